/* .Call glue for isotonic regression on a partial order (core/poset.c):
 * the fit on a graph of order constraints, and the covering edges of the
 * componentwise order of points. The R layer has validated the data. */
#include <stdlib.h>
#include "gpuiso.h"

gi_plane *gi_plane_arg(SEXP plane, gi_idx n, const int *from, const int *to, gi_idx ne,
                       gi_plane *out)
{
  if (Rf_isNull(plane)) return NULL;
  SEXP dim = Rf_getAttrib(plane, R_DimSymbol);
  if (TYPEOF(plane) != INTSXP || TYPEOF(dim) != INTSXP || Rf_xlength(dim) != 2 ||
      INTEGER(dim)[0] != n || INTEGER(dim)[1] != 2)
    gi_internal_error("plane must be an integer matrix of two columns, a row per node");
  out->pos = INTEGER(plane);
  out->rank = INTEGER(plane) + n;
  out->nrank = 0;
  for (gi_idx i = 0; i < n; i++)
    if (out->rank[i] >= out->nrank) out->nrank = (gi_idx) out->rank[i] + 1;
  int bad = gi_plane_check(out, n, from, to, ne);
  if (bad < 0) gi_abort("memory", NULL, 0, "Not enough memory to check %lld points.",
                        (long long) n);
  if (bad) gi_internal_error("the points in the plane do not fit the edges");
  return out;
}

/* y: the values of one problem, or a matrix of one problem per column;
 * w: the n weights they share; warm: the columns as a sequence, each
 * warm-started from the one before (the solver of IDR's thresholds);
 * plane: NULL, or the nodes' positions and ranks in the plane (see
 * gi_plane_arg()). */
SEXP ffi_poset_fit(SEXP y, SEXP w, SEXP from, SEXP to, SEXP warm, SEXP plane,
                   SEXP threads)
{
  SEXP dim = Rf_getAttrib(y, R_DimSymbol);
  R_xlen_t n = Rf_isNull(dim) ? Rf_xlength(y) : INTEGER(dim)[0];
  R_xlen_t K = Rf_isNull(dim) ? 1 : INTEGER(dim)[1], ne = Rf_xlength(from);
  if (TYPEOF(y) != REALSXP || TYPEOF(w) != REALSXP || Rf_xlength(w) != n ||
      TYPEOF(from) != INTSXP || TYPEOF(to) != INTSXP || Rf_xlength(to) != ne ||
      (!Rf_isNull(dim) && Rf_xlength(dim) != 2))
    gi_internal_error("malformed partial-order arguments");
  const int *f = INTEGER(from), *t = INTEGER(to);
  for (R_xlen_t e = 0; e < ne; e++)
    if (f[e] < 0 || f[e] >= n || t[e] < 0 || t[e] >= n)
      gi_internal_error("an edge names a node out of range");
  gi_plane pl;
  const gi_plane *pp = gi_plane_arg(plane, n, f, t, ne, &pl);
  SEXP fit = PROTECT(Rf_allocVector(REALSXP, Rf_xlength(y)));
  if (!Rf_isNull(dim)) Rf_setAttrib(fit, R_DimSymbol, dim);
  gi_begin_work();
  gi_status status =
      Rf_asLogical(warm) == TRUE
          ? gi_poset_fit_sequence(REAL(y), REAL(w), n, K, f, t, ne, pp, NULL, NULL,
                                  Rf_asInteger(threads), REAL(fit))
          : gi_poset_fit_batch(REAL(y), REAL(w), n, K, f, t, ne, pp, Rf_asInteger(threads),
                               REAL(fit));
  if (status == GI_ERR_NOMEM)
    gi_abort("memory", NULL, 0, "Not enough memory for the partial-order fit of %lld "
             "points and %lld edges.", (long long) n, (long long) ne);
  gi_stop_status(status, 0);
  UNPROTECT(1);
  return fit;
}

typedef struct {
  int *from, *to;
  gi_idx ne;
} edge_list;

static SEXP edges_result(void *data)
{
  edge_list *E = (edge_list *) data;
  const char *names[] = {"from", "to", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 0, gi_int_vector(E->from, (R_xlen_t) E->ne));
  SET_VECTOR_ELT(out, 1, gi_int_vector(E->to, (R_xlen_t) E->ne));
  UNPROTECT(1);
  return out;
}

static void edges_free(void *data)
{
  edge_list *E = (edge_list *) data;
  free(E->from);
  free(E->to);
}

/* x: the n x d matrix of distinct points; lex: their lexicographic order
 * (1-based). The edges come back 0-based. */
SEXP ffi_poset_comp_edges(SEXP x, SEXP lex, SEXP threads)
{
  SEXP dim = Rf_getAttrib(x, R_DimSymbol);
  if (TYPEOF(x) != REALSXP || TYPEOF(dim) != INTSXP || Rf_xlength(dim) != 2 ||
      TYPEOF(lex) != INTSXP || Rf_xlength(lex) != INTEGER(dim)[0])
    gi_internal_error("x must be a double matrix and lex its order");
  gi_idx n = INTEGER(dim)[0];
  int d = INTEGER(dim)[1];
  int *l0 = (int *) R_alloc((size_t) (n > 0 ? n : 1), sizeof(int));
  for (gi_idx i = 0; i < n; i++) {
    int v = INTEGER(lex)[i];
    if (v < 1 || v > n) gi_internal_error("lex out of range");
    l0[i] = v - 1;
  }
  edge_list E = {NULL, NULL, 0};
  gi_begin_work();
  int rc = gi_poset_comp_edges(REAL(x), n, d, l0, Rf_asInteger(threads), &E.from, &E.to,
                               &E.ne);
  if (rc == 2) gi_abort_interrupt();
  if (rc == 1) gi_abort("memory", NULL, 0, "Not enough memory for the order of %lld points.",
                        (long long) n);
  return R_ExecWithCleanup(edges_result, &E, edges_free, &E);
}

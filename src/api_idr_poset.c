/* .Call glue for isotonic distributional regression on a partial order
 * (core/idr_poset.c, core/idr_po_predict.c, and cuda/idr_plane.cu on two
 * covariates): the fit of all thresholds and the predictions at new
 * points. The R layer has validated the data. */
#include <stdlib.h>
#include <string.h>
#include "gpuiso.h"
#include "cuda/gi_cuda.h"

typedef struct {
  SEXP node, kcode, from, to;
  const double *w;
  gi_idx n, m, K, ne;
  const gi_plane *plane;
  int threads;
  gi_idr_po *S;
} po_job;

static SEXP po_body(void *data)
{
  po_job *j = (po_job *) data;
  gi_status r = gi_idr_po_begin(j->n, INTEGER(j->node), INTEGER(j->kcode), j->w, j->m, j->K,
                                INTEGER(j->from), INTEGER(j->to), j->ne, j->plane, j->threads,
                                &j->S);
  while (r == GI_OK && !gi_idr_po_done(j->S)) {
    r = gi_idr_po_step(j->S);
    if (r == GI_OK && !gi_idr_po_done(j->S) && gi_poll_now()) r = GI_ERR_INTERRUPT;
  }
  if (r == GI_ERR_INTERRUPT || gi_stop_requested()) gi_abort_interrupt();
  if (r != GI_OK)
    gi_abort("memory", NULL, 0, "Not enough memory for the IDR fit of %lld points and "
             "%lld thresholds on a partial order.", (long long) j->m, (long long) j->K);
  gi_idr_po *S = j->S;
  gi_idx nb = gi_idr_po_nblocks(S);
  const char *names[] = {"ptr", "start", "value", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 0, gi_real_vector(gi_idr_po_ptr(S), (R_xlen_t) j->K + 1));
  SET_VECTOR_ELT(out, 1, Rf_allocVector(INTSXP, (R_xlen_t) nb));
  SET_VECTOR_ELT(out, 2, Rf_allocVector(REALSXP, (R_xlen_t) nb));
  /* straight into the R vectors, on the threads (two covariates, n = 1e4,
   * all thresholds: 23 million blocks, a copy of 0.27 s on one thread) */
  gi_idr_po_gather(S, INTEGER(VECTOR_ELT(out, 1)), REAL(VECTOR_ELT(out, 2)));
  UNPROTECT(1);
  return out;
}

static void po_cleanup(void *data, Rboolean jump)
{
  (void) jump;
  po_job *j = (po_job *) data;
  gi_idr_po_free(j->S);
  j->S = NULL;
}

/* node, kcode: integer vectors of one length (0-based node of each
 * observation, 0-based switch-on threshold); w NULL or doubles; m, K
 * scalars; from, to: the covering edges (0-based, from below to); plane:
 * NULL, or for two covariates the nodes' positions and ranks in the plane
 * (gi_plane_arg()). Returns list(ptr, start, value) as ffi_idr_fit() does,
 * over the nodes. */
SEXP ffi_idr_po_fit(SEXP node, SEXP kcode, SEXP w, SEXP m, SEXP K, SEXP from, SEXP to,
                    SEXP plane, SEXP threads)
{
  po_job j;
  R_xlen_t n = gi_idr_args(node, kcode, m, K, &j.m, &j.K);
  if (TYPEOF(from) != INTSXP || TYPEOF(to) != INTSXP || Rf_xlength(to) != Rf_xlength(from))
    gi_internal_error("from and to must be integer vectors of one length");
  j.ne = (gi_idx) Rf_xlength(from);
  const int *nd = INTEGER(node), *kc = INTEGER(kcode), *f = INTEGER(from), *t = INTEGER(to);
  for (R_xlen_t i = 0; i < n; i++)
    if (nd[i] < 0 || nd[i] >= j.m || kc[i] < 0 || kc[i] >= j.K)
      gi_internal_error("a node or threshold index is out of range");
  for (gi_idx e = 0; e < j.ne; e++)
    if (f[e] < 0 || f[e] >= j.m || t[e] < 0 || t[e] >= j.m)
      gi_internal_error("an edge names a node out of range");
  gi_plane pl;
  j.plane = gi_plane_arg(plane, j.m, f, t, j.ne, &pl);
  j.node = node;
  j.kcode = kcode;
  j.from = from;
  j.to = to;
  j.n = (gi_idx) n;
  j.w = gi_weights_arg(w, n);
  j.threads = Rf_asInteger(threads);
  j.S = NULL;
  gi_begin_work();
  SEXP cont = PROTECT(R_MakeUnwindCont());
  SEXP out = R_UnwindProtect(po_body, &j, po_cleanup, &j, cont);
  UNPROTECT(1);
  return out;
}

/* IDR on two covariates on the device (cuda/idr_plane.cu), for L levels:
 * node, kcode as for ffi_idr_po_fit() within each level (kcode < K), the
 * observations of level l at off[l] .. off[l + 1] - 1; m, K: the levels'
 * points and thresholds; plane: an integer matrix of the points of all
 * levels, level after level, with their positions and ranks within their
 * level (gi_plane_arg()). Returns list(fits, status) as ffi_gpu_idr_batch()
 * does. */
SEXP ffi_gpu_idr_plane(SEXP node, SEXP kcode, SEXP w, SEXP off, SEXP m, SEXP K, SEXP plane,
                       SEXP threads)
{
  SEXP dim = Rf_getAttrib(plane, R_DimSymbol);
  if (TYPEOF(node) != INTSXP || TYPEOF(kcode) != INTSXP || TYPEOF(off) != INTSXP ||
      TYPEOF(m) != INTSXP || TYPEOF(K) != INTSXP || Rf_xlength(node) != Rf_xlength(kcode) ||
      Rf_xlength(m) != Rf_xlength(K) || Rf_xlength(off) != Rf_xlength(m) + 1 ||
      TYPEOF(plane) != INTSXP || TYPEOF(dim) != INTSXP || Rf_xlength(dim) != 2 ||
      INTEGER(dim)[1] != 2)
    gi_internal_error("malformed IDR plane batch arguments");
  R_xlen_t n = Rf_xlength(node), M = INTEGER(dim)[0];
  int L = (int) Rf_xlength(m);
  const int *o = INTEGER(off), *mm = INTEGER(m), *KK = INTEGER(K), *nd = INTEGER(node),
            *kc = INTEGER(kcode), *pos = INTEGER(plane), *rank = INTEGER(plane) + M;
  if (o[0] != 0 || o[L] != n) gi_internal_error("off must run from 0 to n");
  int64_t *lobs = (int64_t *) R_alloc((size_t) L + 1, sizeof(int64_t));
  int64_t *lm = (int64_t *) R_alloc((size_t) L + 1, sizeof(int64_t));
  int64_t *lK = (int64_t *) R_alloc((size_t) L + 1, sizeof(int64_t));
  /* each level's positions a permutation of its points, its ranks among them */
  char *seen = R_alloc((size_t) M + 1, 1);
  memset(seen, 0, (size_t) M + 1);
  R_xlen_t c0 = 0, P = 0;
  for (int l = 0; l < L; l++) {
    if (o[l + 1] <= o[l] || mm[l] < 1 || KK[l] < 1 || c0 + mm[l] > M)
      gi_internal_error("every level needs observations, points and thresholds");
    for (R_xlen_t i = o[l]; i < o[l + 1]; i++)
      if (nd[i] < 0 || nd[i] >= mm[l] || kc[i] < 0 || kc[i] >= KK[l])
        gi_internal_error("a node or threshold index is out of range");
    for (R_xlen_t j = c0; j < c0 + mm[l]; j++) {
      if (pos[j] < 0 || pos[j] >= mm[l] || seen[c0 + pos[j]] || rank[j] < 0 ||
          rank[j] >= mm[l])
        gi_internal_error("the points' positions or ranks are out of range");
      seen[c0 + pos[j]] = 1;
    }
    lobs[l] = o[l];
    lm[l] = mm[l];
    lK[l] = KK[l];
    c0 += mm[l];
    P += KK[l];
  }
  lobs[L] = o[L];
  if (c0 != M) gi_internal_error("the plane must have a row per point");
  double *ptr = (double *) R_alloc((size_t) P + 1, sizeof(double));
  char msg[1024] = "";
  gi_gpu_begin(threads);
  int status = gi_cuda_idr_plane(L, lobs, lm, lK, nd, kc, gi_weights_arg(w, n), pos, rank, ptr,
                                 msg, sizeof(msg));
  SEXP fits = PROTECT(status == GI_CUDA_OK ? gi_gpu_idr_fits(ptr, L, KK) : R_NilValue);
  SEXP out = gi_gpu_result(status, msg, (const char *[]) {"fits", ""}, (SEXP[]) {fits});
  UNPROTECT(1);
  return out;
}

typedef struct {
  double *ptr, *value;
  int *start;
  gi_idx nb, K;
  SEXP pos, nbelow, nabove;
} po_pred;

static SEXP pred_result(void *data)
{
  po_pred *P = (po_pred *) data;
  const char *names[] = {"ptr", "start", "value", "pos", "nbelow", "nabove", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 0, gi_real_vector(P->ptr, (R_xlen_t) P->K + 1));
  SET_VECTOR_ELT(out, 1, gi_int_vector(P->start, (R_xlen_t) P->nb));
  SET_VECTOR_ELT(out, 2, gi_real_vector(P->value, (R_xlen_t) P->nb));
  SET_VECTOR_ELT(out, 3, P->pos);
  SET_VECTOR_ELT(out, 4, P->nbelow);
  SET_VECTOR_ELT(out, 5, P->nabove);
  UNPROTECT(1);
  return out;
}

static void pred_free(void *data)
{
  po_pred *P = (po_pred *) data;
  free(P->ptr);
  free(P->start);
  free(P->value);
}

/* The fit's blocks (ptr, start, value over m points), its points Z (m x d
 * double matrix) and their lexicographic order lex (1-based), new points
 * X (q x d), the climatological CDF clim (K). Returns the predictions as
 * blocks over q points, each prediction's position pos (0-based) and its
 * numbers of bounding points below and above. */
SEXP ffi_idr_po_predict(SEXP ptr, SEXP start, SEXP value, SEXP Z, SEXP lex, SEXP X,
                        SEXP clim, SEXP threads)
{
  SEXP m = PROTECT(Rf_ScalarReal((double) Rf_nrows(Z)));
  gi_idr_view f = gi_idr_view_arg(ptr, start, value, m);
  UNPROTECT(1);
  SEXP dz = Rf_getAttrib(Z, R_DimSymbol), dx = Rf_getAttrib(X, R_DimSymbol);
  if (TYPEOF(Z) != REALSXP || TYPEOF(X) != REALSXP || TYPEOF(dz) != INTSXP ||
      TYPEOF(dx) != INTSXP || INTEGER(dz)[1] != INTEGER(dx)[1] ||
      TYPEOF(lex) != INTSXP || Rf_xlength(lex) != f.m || TYPEOF(clim) != REALSXP ||
      Rf_xlength(clim) != f.K)
    gi_internal_error("malformed partial-order prediction arguments");
  int d = INTEGER(dz)[1];
  gi_idx q = INTEGER(dx)[0];
  int *l0 = (int *) R_alloc((size_t) (f.m > 0 ? f.m : 1), sizeof(int));
  for (gi_idx i = 0; i < f.m; i++) {
    int v = INTEGER(lex)[i];
    if (v < 1 || v > f.m) gi_internal_error("lex out of range");
    l0[i] = v - 1;
  }
  po_pred P = {NULL, NULL, NULL, 0, f.K, R_NilValue, R_NilValue, R_NilValue};
  P.pos = PROTECT(Rf_allocVector(INTSXP, q));
  P.nbelow = PROTECT(Rf_allocVector(INTSXP, q));
  P.nabove = PROTECT(Rf_allocVector(INTSXP, q));
  gi_begin_work();
  gi_status st = gi_idr_po_predict(&f, REAL(Z), d, l0, REAL(X), q, REAL(clim),
                                   Rf_asInteger(threads), INTEGER(P.nbelow),
                                   INTEGER(P.nabove), INTEGER(P.pos), &P.ptr, &P.start,
                                   &P.value, &P.nb);
  if (st == GI_ERR_INTERRUPT) gi_abort_interrupt();
  if (st != GI_OK)
    gi_abort("memory", NULL, 0, "Not enough memory for %lld IDR predictions.",
             (long long) q);
  SEXP out = R_ExecWithCleanup(pred_result, &P, pred_free, &P);
  UNPROTECT(3);
  return out;
}

/* x: a double matrix (finite). Its rows' partial sums, each the exact sum
 * rounded once (the coordinates of the "icx" order). */
SEXP ffi_partial_sums(SEXP x)
{
  SEXP dim = Rf_getAttrib(x, R_DimSymbol);
  if (TYPEOF(x) != REALSXP || TYPEOF(dim) != INTSXP || Rf_xlength(dim) != 2)
    gi_internal_error("x must be a double matrix");
  gi_idx n = INTEGER(dim)[0];
  int k = INTEGER(dim)[1];
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int) n, k));
  gi_partial_sums_rounded(REAL(x), n, k, REAL(out));
  UNPROTECT(1);
  return out;
}

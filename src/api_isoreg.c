/* .Call glue for isoreg(): the points pooled by x in sort order, the pooled
 * problem fitted, the fit spread back and stats' knots found, in one call.
 * The R layer has validated every argument and computed the order. */
#include <limits.h>
#include <math.h>
#include "gpuiso.h"
#include "core/gi_memory.h"

static void order_arg(SEXP ord, R_xlen_t n, gi_order *o)
{
  o->i = NULL;
  o->d = NULL;
  if (Rf_isNull(ord)) return;
  if (Rf_xlength(ord) != n) gi_internal_error("ord must be as long as y");
  if (TYPEOF(ord) == INTSXP) o->i = INTEGER(ord);
  else if (TYPEOF(ord) == REALSXP) o->d = REAL(ord);
  else gi_internal_error("ord must be an index vector");
}

/* A copy rounded to float32 and back, or x itself. */
static void round_single(double *x, R_xlen_t n)
{
  for (R_xlen_t i = 0; i < n; i++) x[i] = (double) (float) x[i];
}

/* Indices as R wants them: integer below 2^31, else double. */
static SEXP index_vector(const gi_idx *v, gi_idx n, gi_idx top)
{
  SEXP out;
  if (top <= INT_MAX) {
    out = Rf_allocVector(INTSXP, n);
    int *p = INTEGER(out);
    for (gi_idx k = 0; k < n; k++) p[k] = (int) v[k];
  } else {
    out = Rf_allocVector(REALSXP, n);
    double *p = REAL(out);
    for (gi_idx k = 0; k < n; k++) p[k] = (double) v[k];
  }
  return out;
}

/* Runs of tied x whose fitted values differ: 0 when every run got one
 * value, as the exact fit gives it. run_end NULL: no ties. */
static int runs_split(const double *yf, const gi_idx *run_end, gi_idx m)
{
  for (gi_idx r = 0, k = 0; r < m; r++) {
    for (k++; k < run_end[r]; k++)
      if (yf[k] != yf[k - 1]) return 1;
  }
  return 0;
}

static int any_zero(const double *w, gi_idx n)
{
  for (gi_idx i = 0; i < n; i++)
    if (w[i] == 0.0) return 1;
  return 0;
}

static void fit_one(const double *y, const double *w, gi_idx n, int dec,
                    double *fit)
{
  gi_idx off[2] = {0, n}, bad;
  gi_status st = gi_isotonic_batch(y, w, off, 1, dec, 1, fit, NULL, &bad);
  if (st != GI_OK) gi_stop_status(st, bad);
}

/* A fresh double vector of n values v. */
static SEXP filled(R_xlen_t n, double v)
{
  SEXP out = Rf_allocVector(REALSXP, n);
  double *p = REAL(out);
  for (R_xlen_t i = 0; i < n; i++) p[i] = v;
  return out;
}

/*
 * The fit of y on x. The points are read in sort order (by x, then by -y;
 * by y for decreasing fits), as stats::isoreg() orders them: tied x then
 * form a run that violates the order, which the fit pools whole (for any
 * positive weights, a pair y_i >= y_(i+1) gets one fitted value), so the
 * sorted values are fitted as they are, without a pooled copy, while the
 * knots are found on a second thread. Zero weights, which follow their
 * right neighbour instead, and a run split by rounding are refitted from
 * the pooled points. ord NULL: x is strictly increasing (no ties).
 * Returns list(yf, yc, iKnots, kx, kw, kfit): the fit in sorted order,
 * stats' running sums and knots, and the distinct x with their summed
 * weights and fit.
 */
SEXP ffi_isoreg_fit(SEXP x, SEXP y, SEXP w, SEXP ord, SEXP decreasing,
                    SEXP single, SEXP threads)
{
  R_xlen_t n = Rf_xlength(y);
  if (TYPEOF(x) != REALSXP || TYPEOF(y) != REALSXP || Rf_xlength(x) != n)
    gi_internal_error("x and y must be doubles of one length");
  const double *wp = gi_weights_arg(w, n);
  gi_order o;
  order_arg(ord, n, &o);
  int sorted = o.i == NULL && o.d == NULL;
  int dec = Rf_asLogical(decreasing) == TRUE;
  int sgl = Rf_asLogical(single) == TRUE;

  const char *names[] = {"yf", "yc", "iKnots", "kx", "kw", "kfit", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SEXP yc = Rf_allocVector(REALSXP, n + 1);
  SET_VECTOR_ELT(out, 1, yc);
  double *cx = wp ? (double *) R_alloc((size_t) n + 1, sizeof(double)) : NULL;
  double *cy = wp ? (double *) R_alloc((size_t) n + 1, sizeof(double)) : NULL;
  const double *ys, *ws;
  gi_idx m, *run_end = NULL;
  if (sorted) {
    gi_running_sums(REAL(y), wp, n, REAL(yc), cx, cy);
    ys = REAL(y);
    ws = wp;
    m = n;
    SET_VECTOR_ELT(out, 3, x);
    SET_VECTOR_ELT(out, 4, wp ? w : filled(n, 1.0));
  } else {
    double *ysb = (double *) R_alloc((size_t) n, sizeof(double));
    double *wsb = wp ? (double *) R_alloc((size_t) n, sizeof(double)) : NULL;
    run_end = (gi_idx *) R_alloc((size_t) n + 1, sizeof(gi_idx));
    SEXP kx = PROTECT(Rf_allocVector(REALSXP, n));
    SEXP kw = PROTECT(Rf_allocVector(REALSXP, n));
    m = gi_isoreg_gather(REAL(x), REAL(y), wp, &o, n, ysb, wsb, REAL(yc), cx,
                         cy, REAL(kx), REAL(kw), run_end);
    SET_VECTOR_ELT(out, 3, m == n ? kx : Rf_xlengthgets(kx, m));
    SET_VECTOR_ELT(out, 4, m == n ? kw : Rf_xlengthgets(kw, m));
    UNPROTECT(2);
    ys = ysb;
    ws = wsb;
  }

  SEXP yf = Rf_allocVector(REALSXP, n);
  SET_VECTOR_ELT(out, 0, yf);
  double *pf = REAL(yf);
  gi_hint_huge(pf, (size_t) n * sizeof(double));
  gi_idx *knot = (gi_idx *) R_alloc((size_t) n + 1, sizeof(gi_idx)), nk = 0, bad;
  const double *Y = wp ? cy : REAL(yc), *X = wp ? cx : NULL;
  gi_status st;
  int zeros = wp != NULL && any_zero(wp, n), pooled = zeros;
  if (pooled) {
    st = gi_isoreg_knots(Y, X, dec ? -1 : 1, n, knot, &nk);
    bad = 0;
  } else {
    st = gi_isoreg_solve(ys, ws, n, dec, Rf_asInteger(threads), Y, X, pf, knot,
                         &nk, &bad);
    pooled = m < n && runs_split(pf, run_end, m);
  }
  if (st != GI_OK) gi_stop_status(st, bad);

  SEXP kfit;
  if (pooled) {
    /* the pooled points, each with its run's weight */
    const double *ky = ys;
    if (run_end) {
      double *p = (double *) R_alloc((size_t) m + 1, sizeof(double));
      gi_isoreg_pooled(ys, ws, run_end, m, p);
      ky = p;
    }
    kfit = Rf_allocVector(REALSXP, m);
    SET_VECTOR_ELT(out, 5, kfit);
    double *pk = REAL(kfit);
    fit_one(ky, REAL(VECTOR_ELT(out, 4)), m, dec, pk);
    for (gi_idx r = 0, k = 0; r < m; r++)
      for (; k < (run_end ? run_end[r] : r + 1); k++) pf[k] = pk[r];
  } else if (m < n) {
    kfit = Rf_allocVector(REALSXP, m);
    SET_VECTOR_ELT(out, 5, kfit);
    double *pk = REAL(kfit);
    for (gi_idx r = 0; r < m; r++) pk[r] = pf[run_end[r] - 1];
  } else {
    SET_VECTOR_ELT(out, 5, yf); /* untied: the fit at the distinct x */
  }
  if (zeros && m < n) gi_isoreg_run_knots(knot, nk, ws, run_end, m);
  if (sgl) {
    round_single(pf, n);
    if (m < n) round_single(REAL(VECTOR_ELT(out, 5)), m);
  }
  SET_VECTOR_ELT(out, 2, index_vector(knot, nk, n));
  UNPROTECT(1);
  return out;
}

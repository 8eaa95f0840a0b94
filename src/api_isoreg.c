/* .Call glue for isoreg(): the points read in sort order, fitted, and
 * stats' knots and the blocks of the fit found, in one call. The R layer
 * has validated every argument and computed the order. */
#include <limits.h>
#include "gpuiso.h"
#include "cuda/gi_cuda.h"

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

static void fit_one(const double *y, const double *w, gi_idx n, int dec,
                    double *fit)
{
  gi_idx off[2] = {0, n}, bad;
  gi_status st = gi_isotonic_batch(y, w, off, 1, dec, 1, fit, NULL, &bad);
  if (st != GI_OK) gi_stop_status(st, bad);
  gi_check_stop();
}

/* Scratch of n doubles. No huge-page hint on it or on the results: on the
 * development VM it made their first touches several times slower. */
static double *scratch(R_xlen_t n)
{
  return (double *) R_alloc((size_t) n, sizeof(double));
}

/* The blocks of the fit (sorted order) as list(from, to, value, weight). */
static SEXP block_list(SEXP x, const gi_order *o, const double *fit,
                       const double *ws, gi_idx n)
{
  gi_idx nb = gi_isoreg_nblocks(fit, n);
  const char *names[] = {"from", "to", "value", "weight", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  for (int j = 0; j < 4; j++) SET_VECTOR_ELT(out, j, Rf_allocVector(REALSXP, nb));
  gi_isoreg_blocks(REAL(x), o, fit, ws, n, REAL(VECTOR_ELT(out, 0)),
                   REAL(VECTOR_ELT(out, 1)), REAL(VECTOR_ELT(out, 2)),
                   REAL(VECTOR_ELT(out, 3)));
  UNPROTECT(1);
  return out;
}

/* The points in stats' order, as the CPU or the GPU put them there. */
typedef struct {
  SEXP x, ord;           /* x as given; the order (R_NilValue: identity) */
  const double *ys, *ws; /* values and weights (NULL) in that order */
  const gi_idx *tie;     /* the runs of tied x, ntie pairs */
  gi_idx ntie, n;
  int dec, nthreads, single;
} sorted_points;

/*
 * Everything after the sort, on the CPU: stats' running sums, the fit
 * (unless `fitted`: the GPU's is in yf already) beside the knots, the
 * refit from the pooled points where zero weights or a split run need it,
 * the blocks. Returns list(yf, yc, iKnots, blocks, distinct, ord): the fit
 * in sorted order, stats' running sums and knots, the blocks of the fit,
 * the number of distinct x and stats' order.
 */
static SEXP finish(const sorted_points *p, SEXP yf, int fitted)
{
  gi_idx n = p->n;
  const double *ys = p->ys, *ws = p->ws;
  const char *names[] = {"yf", "yc", "iKnots", "blocks", "distinct", "ord", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 0, yf);
  SEXP yc = Rf_allocVector(REALSXP, n + 1);
  SET_VECTOR_ELT(out, 1, yc);
  double *cx = ws ? scratch(n + 1) : NULL, *cy = ws ? scratch(n + 1) : NULL;
  gi_running_sums(ys, ws, n, REAL(yc), cx, cy);
  gi_idx m = gi_isoreg_distinct(n, p->tie, p->ntie);

  double *pf = REAL(yf);
  gi_idx *knot = (gi_idx *) R_alloc((size_t) n + 1, sizeof(gi_idx)), nk = 0, bad = 0;
  const double *Y = ws ? cy : REAL(yc), *X = ws ? cx : NULL;
  gi_status st;
  int zeros = gi_any_zero(ws, n);
  if (fitted) {
    st = gi_isoreg_knots(Y, X, p->dec ? -1 : 1, n, knot, &nk);
  } else {
    st = gi_isoreg_solve(ys, ws, n, p->dec, p->nthreads, Y, X, pf, knot, &nk,
                         &bad);
  }
  if (st != GI_OK) gi_stop_status(st, bad);
  gi_check_stop();
  if (zeros) gi_isoreg_run_values(ws, n, p->tie, p->ntie, pf);
  if (fitted && gi_isoreg_split(pf, p->tie, p->ntie)) {
    /* the GPU's rounding split a run of tied x: refit the pooled points
     * (the GPU takes only inputs whose sums stay in range) */
    double *ky = scratch(m + 1), *kw = scratch(m + 1), *kf = scratch(m + 1);
    gi_isoreg_pool(ys, ws, n, p->tie, p->ntie, ky, kw);
    fit_one(ky, kw, m, p->dec, kf);
    gi_isoreg_spread(kf, n, p->tie, p->ntie, pf);
  }
  /* stats' knots come from its running sums; where those overflow they
   * mean nothing, and the ends of the fit's blocks take their place */
  if (!gi_all_finite(Y, n + 1) || (X != NULL && !gi_all_finite(X, n + 1)))
    nk = gi_isoreg_block_knots(pf, n, knot);
  else if (zeros && p->ntie > 0)
    gi_isoreg_run_knots(knot, nk, ws, p->tie, p->ntie);
  if (p->single) gi_convert(pf, pf, n, GI_ROUND_F32, 0, 1); /* in place */
  gi_order o;
  order_arg(p->ord, n, &o);
  SET_VECTOR_ELT(out, 2, index_vector(knot, nk, n));
  SET_VECTOR_ELT(out, 3, block_list(p->x, &o, pf, ws, n));
  SET_VECTOR_ELT(out, 4, Rf_ScalarReal((double) m));
  SET_VECTOR_ELT(out, 5, p->ord);
  UNPROTECT(1);
  return out;
}

static void check_xy(SEXP x, SEXP y)
{
  if (TYPEOF(x) != REALSXP || TYPEOF(y) != REALSXP || Rf_xlength(x) != Rf_xlength(y))
    gi_internal_error("x and y must be doubles of one length");
}

/*
 * The fit of y on x on the CPU. The points are read in sort order (by x,
 * then by -y; by y for decreasing fits), as stats::isoreg() orders them:
 * tied x then form a run that violates the order, which the fit pools
 * whole (for any positive weights, a pair y_i >= y_(i+1) gets one fitted
 * value), so the sorted values are fitted as they are, without a pooled
 * copy, while the knots are found on a second thread. Zero weights, which
 * follow their right neighbour instead, and a run split by rounding are
 * refitted from the pooled points. ord: order(x), which this call
 * completes to stats' order in place (a fresh vector of the R layer's), or
 * NULL when x is strictly increasing (no ties). Returns finish()'s list.
 */
SEXP ffi_isoreg_fit(SEXP x, SEXP y, SEXP w, SEXP ord, SEXP decreasing,
                    SEXP single, SEXP threads)
{
  check_xy(x, y);
  R_xlen_t n = Rf_xlength(y);
  const double *wp = gi_weights_arg(w, n);
  gi_begin_work();
  /* the order is completed in place: in a copy if anything else sees it */
  if (!Rf_isNull(ord) && MAYBE_SHARED(ord)) ord = Rf_duplicate(ord);
  PROTECT(ord);
  gi_order o;
  order_arg(ord, n, &o);
  sorted_points p = {x, ord, REAL(y), wp, NULL, 0, n,
                     Rf_asLogical(decreasing) == TRUE, Rf_asInteger(threads),
                     Rf_asLogical(single) == TRUE};
  /* pairs (first, end) of the runs of tied x: few pages are ever touched */
  gi_idx *tie = (gi_idx *) R_alloc((size_t) n + 2, sizeof(gi_idx));
  p.tie = tie;
  if (o.i != NULL || o.d != NULL) {
    /* gathered in stats' order: tied x by decreasing y (increasing for
     * decreasing fits), completing the R layer's fresh order(x) in place */
    double *ysb = scratch(n), *wsb = wp ? scratch(n) : NULL;
    p.ntie = gi_order_ties(REAL(x), REAL(y), wp,
                           TYPEOF(ord) == INTSXP ? INTEGER(ord) : NULL,
                           TYPEOF(ord) == REALSXP ? REAL(ord) : NULL, n, !p.dec,
                           p.nthreads, ysb, wsb, tie);
    gi_check_stop();
    if (p.ntie < 0) gi_abort("memory", NULL, 0, "Not enough memory to order the points.");
    p.ys = ysb;
    p.ws = wsb;
  }
  SEXP out = finish(&p, PROTECT(Rf_allocVector(REALSXP, n)), 0);
  UNPROTECT(2);
  return out;
}

/*
 * The same with the sort and the fit on the GPU (double precision, weights
 * > 0; the R layer sees to both). Returns finish()'s list, or
 * list(status = "range") beyond what its sort takes (the CPU fits
 * instead); a failure of the engine is raised (gi_gpu_status()).
 */
SEXP ffi_gpu_isoreg(SEXP x, SEXP y, SEXP w, SEXP decreasing, SEXP threads)
{
  check_xy(x, y);
  R_xlen_t n = Rf_xlength(y);
  const double *wp = gi_weights_arg(w, n);
  int dec = Rf_asLogical(decreasing) == TRUE;
  gi_gpu_begin(threads);
  SEXP ord = PROTECT(Rf_allocVector(INTSXP, n));
  SEXP yf = PROTECT(Rf_allocVector(REALSXP, n));
  double *ys = scratch(n), *ws = wp ? scratch(n) : NULL;
  unsigned char *same = (unsigned char *) R_alloc((size_t) n + 1, 1);
  char msg[1024] = "";
  int status = gi_cuda_isoreg_host(REAL(x), REAL(y), wp, (int64_t) n, dec,
                                   INTEGER(ord), ys, ws, same, REAL(yf), msg,
                                   sizeof(msg));
  if (status != GI_CUDA_OK) {
    SEXP out = gi_gpu_result(status, msg, (const char *[]) {""}, NULL);
    UNPROTECT(2);
    return out;
  }
  gi_idx *tie = (gi_idx *) R_alloc((size_t) n + 2, sizeof(gi_idx));
  sorted_points p = {x, ord, ys, ws, tie, gi_list_ties(same, n, tie), n, dec,
                     Rf_asInteger(threads), 0};
  SEXP out = finish(&p, yf, 1);
  UNPROTECT(2);
  return out;
}

/*
 * The model fit of isoreg(), on the points in stats' order (ties.c puts
 * them there): stats' running sums, the points pooled by x where the fit
 * needs it, the blocks of the fit, and the knots of stats::isoreg()
 * reproduced in linear time.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "gi_core.h"
#include "gi_omp.h"

/* Point k of the sort order (0-based). */
static inline gi_idx at(const gi_order *o, gi_idx k)
{
  return o->i ? (gi_idx) o->i[k] - 1 : (o->d ? (gi_idx) o->d[k] - 1 : k);
}

void gi_running_sums(const double *y, const double *w, gi_idx n, double *yc,
                     double *cx, double *cy)
{
  double acc = 0.0;
  yc[0] = 0.0;
  for (gi_idx i = 0; i < n; i++) {
    acc += y[i];
    yc[i + 1] = acc;
  }
  if (w == NULL) return;
  cx[0] = cy[0] = 0.0;
  for (gi_idx i = 0; i < n; i++) {
    cx[i + 1] = cx[i] + w[i];
    cy[i + 1] = cy[i] + w[i] * y[i];
  }
}

/* s + t with Neumaier's compensation in *c. */
static inline void add_comp(double *s, double *c, double t)
{
  double u = *s + t;
  *c += fabs(*s) >= fabs(t) ? (*s - u) + t : (t - u) + *s;
  *s = u;
}

gi_idx gi_isoreg_pool(const double *ys, const double *ws, gi_idx n,
                      const gi_idx *tie, gi_idx ntie, double *ky, double *kw)
{
  gi_idx r = 0, t = 0;
  for (gi_idx k = 0; k < n; r++) {
    gi_idx end = t < ntie && tie[2 * t] == k ? tie[2 * t++ + 1] : k + 1, start = k;
    double swy = 0.0, cwy = 0.0, sw = 0.0, sy = 0.0, cy = 0.0;
    for (; k < end; k++) {
      double wi = ws ? ws[k] : 1.0;
      add_comp(&swy, &cwy, wi * ys[k]);
      add_comp(&sy, &cy, ys[k]);
      sw += wi;
    }
    /* a run of zero weight keeps its plain mean: it never counts */
    ky[r] = sw > 0.0 ? (swy + cwy) / sw : (sy + cy) / (double) (end - start);
    kw[r] = sw;
  }
  return r;
}

gi_idx gi_isoreg_distinct(gi_idx n, const gi_idx *tie, gi_idx ntie)
{
  gi_idx m = n;
  for (gi_idx t = 0; t < ntie; t++) m -= tie[2 * t + 1] - tie[2 * t] - 1;
  return m;
}

void gi_isoreg_spread(const double *kfit, gi_idx n, const gi_idx *tie,
                      gi_idx ntie, double *fit)
{
  gi_idx r = 0, t = 0;
  for (gi_idx k = 0; k < n; r++) {
    gi_idx end = t < ntie && tie[2 * t] == k ? tie[2 * t++ + 1] : k + 1;
    for (; k < end; k++) fit[k] = kfit[r];
  }
}

int gi_isoreg_split(const double *fit, const gi_idx *tie, gi_idx ntie)
{
  for (gi_idx t = 0; t < ntie; t++)
    for (gi_idx k = tie[2 * t] + 1; k < tie[2 * t + 1]; k++)
      if (fit[k] != fit[k - 1]) return 1;
  return 0;
}

void gi_isoreg_run_values(const double *ws, gi_idx n, const gi_idx *tie,
                          gi_idx ntie, double *fit)
{
  for (gi_idx t = 0; t < ntie; t++) {
    gi_idx a = tie[2 * t], b = tie[2 * t + 1], k = a;
    while (k < b && ws[k] == 0.0) k++;
    if (k == b) continue; /* no weight: it has the next point's value */
    for (gi_idx i = a; i < b; i++) fit[i] = fit[k];
  }
}

gi_idx gi_isoreg_block_knots(const double *fit, gi_idx n, gi_idx *knot)
{
  gi_idx nk = 0;
  for (gi_idx k = 1; k < n; k++)
    if (fit[k] != fit[k - 1]) knot[nk++] = k;
  if (n > 0) knot[nk++] = n;
  return nk;
}

int gi_all_finite(const double *x, gi_idx n)
{
  double s = 0.0;
  for (gi_idx i = 0; i < n; i++) s += x[i] * 0.0;
  return s == 0.0;
}

gi_idx gi_isoreg_nblocks(const double *fit, gi_idx n)
{
  gi_idx b = n > 0;
  for (gi_idx k = 1; k < n; k++) b += fit[k] != fit[k - 1];
  return b;
}

void gi_isoreg_blocks(const double *x, const gi_order *ord, const double *fit,
                      const double *ws, gi_idx n, double *from, double *to,
                      double *value, double *weight)
{
  gi_idx b = -1, first = 0;
  double sw = 0.0;
  for (gi_idx k = 0; k < n; k++) {
    if (k == 0 || fit[k] != fit[k - 1]) {
      if (b >= 0) {
        to[b] = x[at(ord, k - 1)];
        weight[b] = ws ? sw : (double) (k - first);
      }
      b++;
      from[b] = x[at(ord, k)];
      value[b] = fit[k];
      first = k;
      sw = 0.0;
    }
    if (ws) sw += ws[k];
  }
  if (b >= 0) {
    to[b] = x[at(ord, n - 1)];
    weight[b] = ws ? sw : (double) (n - first);
  }
}

/*
 * The knots of stats::isoreg(). Its C code walks the cumulative sum
 * diagram P_i = (X_i, Y_i), Y the running double sum of the values in
 * sorted order: from the last knot k it takes the first i > k that
 * minimises the slope fl((Y_i - Y_k) / (X_i - X_k)), which costs O(n) per
 * knot. Here only the points that can win are looked at:
 *  - the lower convex hull H of the P_i is built once (monotone chain);
 *  - a point whose height above H exceeds T = 64 eps S (S bounds |Y| and
 *    |slope| X_n) has a slope from any k above the best one by more than
 *    the rounding of either, so it never wins: the others are candidates;
 *  - from k the candidates are scanned in order, stopping at the first
 *    whose hull point lies more than T above the line from k with the best
 *    slope so far: H is convex, so every later point is higher still.
 * Among candidates the slopes are computed as stats does, so ties and
 * near-ties go the same way. On noisy data a knot scans a few candidates;
 * on runs of points exactly on H (tied means) it scans the rest of the run,
 * as stats does.
 * X NULL means X_i = i (unit weights). sign = -1 uses -Y (decreasing fits).
 * Zero-weight points (X_i = X_{i-1}) are never knots but the last point.
 */
#define XAT(i) (X ? X[i] : (double) (i))
#define YAT(i) (sg * Y[i])

/* The hull's vertices into hv (returns how many) and the largest |Y|. */
static GI_ALWAYS_INLINE gi_idx lower_hull(const double *Y, const double *X,
                                          double sg, gi_idx n, gi_idx *hv,
                                          double *maxy)
{
  gi_idx nh = 0;
  double my = 0.0;
  for (gi_idx i = 0; i <= n; i++) {
    double xi = XAT(i), yi = YAT(i);
    my = fabs(yi) > my ? fabs(yi) : my;
    if (X && nh > 0 && XAT(hv[nh - 1]) == xi) continue;
    while (nh >= 2) {
      gi_idx a = hv[nh - 2], b = hv[nh - 1];
      double xa = XAT(a), ya = YAT(a);
      if ((XAT(b) - xa) * (yi - ya) - (YAT(b) - ya) * (xi - xa) > 0) break;
      nh--;
    }
    hv[nh++] = i;
  }
  *maxy = my;
  return nh;
}

/* The points within T of the hull (1..n), with the hull's height there. */
static GI_ALWAYS_INLINE gi_idx candidates(const double *Y, const double *X,
                                          double sg, gi_idx n, const gi_idx *hv,
                                          gi_idx nh, double T, gi_idx *cand,
                                          double *hy)
{
  gi_idx nc = 0;
  for (gi_idx e = 0; e + 1 < nh; e++) {
    gi_idx a = hv[e], b = hv[e + 1];
    double xa = XAT(a), ya = YAT(a);
    double s = (YAT(b) - ya) / (XAT(b) - xa);
    for (gi_idx i = a + 1; i <= b; i++) {
      double h = i == b ? YAT(b) : ya + s * (XAT(i) - xa);
      if (YAT(i) - h <= T) {
        cand[nc] = i;
        hy[nc] = h;
        nc++;
      }
    }
  }
  /* trailing points at the last vertex's place (zero weights) */
  for (gi_idx i = hv[nh - 1] + 1; i <= n; i++) {
    cand[nc] = i;
    hy[nc] = YAT(i);
    nc++;
  }
  return nc;
}

static GI_ALWAYS_INLINE gi_idx greedy(const double *Y, const double *X,
                                      double sg, gi_idx n, const gi_idx *cand,
                                      const double *hy, gi_idx nc, double T,
                                      gi_idx *knot)
{
  gi_idx known = 0, p = 0, nk = 0;
  while (known < n) {
    while (p < nc && cand[p] <= known) p++;
    double xk = XAT(known), yk = YAT(known), best = INFINITY;
    gi_idx ip = -1;
    for (gi_idx q = p; q < nc; q++) {
      gi_idx i = cand[q];
      double xi = XAT(i);
      if (ip >= 0 && hy[q] - yk - best * (xi - xk) > T) break;
      double dx = xi - xk;
      if (!(dx > 0)) continue;
      double f = (YAT(i) - yk) / dx;
      if (f < best) {
        best = f;
        ip = i;
      }
    }
    if (ip < 0) ip = n; /* only points of zero weight are left */
    knot[nk++] = ip;
    known = ip;
  }
  return nk;
}

static GI_ALWAYS_INLINE gi_status knots(const double *Y, const double *X,
                                        double sg, gi_idx n, gi_idx *knot,
                                        gi_idx *nknot)
{
  gi_idx *hv = malloc((size_t) (n + 1) * sizeof(gi_idx));
  gi_idx *cand = malloc((size_t) n * sizeof(gi_idx));
  double *hy = malloc((size_t) n * sizeof(double));
  if (hv == NULL || cand == NULL || hy == NULL) {
    free(hv);
    free(cand);
    free(hy);
    return GI_ERR_NOMEM;
  }
  double maxy, maxs = 0.0;
  gi_idx nh = lower_hull(Y, X, sg, n, hv, &maxy);
  if (gi_interrupted(n)) {
    free(hv);
    free(cand);
    free(hy);
    return GI_ERR_INTERRUPT;
  }
  for (gi_idx e = 0; e + 1 < nh; e++) {
    double s = (YAT(hv[e + 1]) - YAT(hv[e])) / (XAT(hv[e + 1]) - XAT(hv[e]));
    maxs = fabs(s) > maxs ? fabs(s) : maxs;
  }
  const double T = 64.0 * DBL_EPSILON * (maxy + maxs * XAT(n)) + DBL_MIN;
  gi_idx nc = candidates(Y, X, sg, n, hv, nh, T, cand, hy);
  *nknot = greedy(Y, X, sg, n, cand, hy, nc, T, knot);
  free(hv);
  free(cand);
  free(hy);
  return GI_OK;
}
#undef XAT
#undef YAT

gi_status gi_isoreg_knots(const double *Y, const double *X, int sign, gi_idx n,
                          gi_idx *knot, gi_idx *nknot)
{
  *nknot = 0;
  if (n <= 0) return GI_OK;
  if (X == NULL)
    return sign < 0 ? knots(Y, NULL, -1.0, n, knot, nknot)
                    : knots(Y, NULL, 1.0, n, knot, nknot);
  return knots(Y, X, sign < 0 ? -1.0 : 1.0, n, knot, nknot);
}

void gi_isoreg_run_knots(gi_idx *knot, gi_idx nknot, const double *ws,
                         const gi_idx *tie, gi_idx ntie)
{
  gi_idx t = 0;
  for (gi_idx q = 0; q < nknot; q++) {
    gi_idx k = knot[q]; /* the knot is point k - 1 (0-based) */
    while (t < ntie && tie[2 * t + 1] < k) t++;
    if (t == ntie) break;
    if (tie[2 * t] >= k) continue; /* point k - 1 is not in that run */
    while (k < tie[2 * t + 1] && ws[k] == 0.0) k++;
    knot[q] = k;
  }
}

gi_status gi_isoreg_solve(const double *ys, const double *ws, gi_idx n,
                          int decreasing, int nthreads, const double *Y,
                          const double *X, double *fit, gi_idx *knot,
                          gi_idx *nknot, gi_idx *bad)
{
  gi_idx off[2] = {0, n};
  gi_status fs = GI_OK, ks = GI_OK;
  /* the knots need only the diagram: they are found beside the fit, which
   * stays on the master thread, the one that may ask about interrupts */
  int nt = nthreads >= 2 && n >= 65536 ? gi_threads_cap(2) : 1;
#pragma omp parallel num_threads(nt)
  {
    /* the team may be smaller than asked: its last thread takes the knots */
    int me = omp_get_thread_num(), last = omp_get_num_threads() - 1;
    if (me == 0)
      fs = gi_isotonic_batch(ys, ws, off, 1, decreasing, 1, fit, NULL, bad);
    if (me == last)
      ks = gi_isoreg_knots(Y, X, decreasing ? -1 : 1, n, knot, nknot);
  }
  if (fs != GI_OK) return fs;
  *bad = -1;
  return ks;
}

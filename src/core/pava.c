/*
 * Pool adjacent violators: one left-to-right pass with a stack of blocks.
 *
 * Every element is pushed once and popped at most once, so a problem of n
 * elements costs O(n) whatever its shape. The stack keeps, per block, its
 * first element and its sums of w*y and of w as unevaluated pairs (hi, lo):
 * merging adds them with an error-free two-sum, so a block of millions of
 * elements carries its sum to about twice the working precision. The block
 * means live in the output array itself: block k's mean sits at fit[k],
 * and k never exceeds the element being read. A final right-to-left pass
 * spreads each mean over its block without overwriting a mean not yet read.
 *
 * Decreasing fits negate the values on the way in and out (exact), and
 * sums that would overflow are redone on values and weights scaled by
 * powers of two (also exact), so the answer never depends on either trick.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gi_core.h"
#include "gi_omp.h"

/* a + b == *s + *e exactly (Knuth's two-sum). */
static inline void two_sum(double a, double b, double *s, double *e)
{
  double t = a + b, bb = t - a;
  *e = (a - (t - bb)) + (b - bb);
  *s = t;
}

typedef struct {
  double *shi, *slo; /* sum of w*y */
  double *whi, *wlo; /* sum of w (weighted problems only) */
  gi_idx *start;     /* first element of the block */
  gi_idx cap;
  int weighted;
} block_stack;

static void stack_init(block_stack *s, int weighted)
{
  memset(s, 0, sizeof(*s));
  s->weighted = weighted;
}

static void stack_free(block_stack *s)
{
  free(s->shi); free(s->slo); free(s->whi); free(s->wlo); free(s->start);
  stack_init(s, s->weighted);
}

static int grow_array(void **p, gi_idx cap, size_t size)
{
  void *q = realloc(*p, (size_t) cap * size);
  if (q == NULL) return 1;
  *p = q;
  return 0;
}

/* Room for at least `need` blocks (need <= n of the problem); grows
 * geometrically so that a deep stack costs amortised O(1) per push.
 * Returns nonzero when memory runs out. */
static int stack_reserve(block_stack *s, gi_idx need)
{
  if (need <= s->cap) return 0;
  gi_idx cap = s->cap < 1024 ? 1024 : s->cap;
  while (cap < need) cap *= 2;
  if (grow_array((void **) &s->shi, cap, sizeof(double)) ||
      grow_array((void **) &s->slo, cap, sizeof(double)) ||
      grow_array((void **) &s->start, cap, sizeof(gi_idx)))
    return 1;
  if (s->weighted && (grow_array((void **) &s->whi, cap, sizeof(double)) ||
                      grow_array((void **) &s->wlo, cap, sizeof(double))))
    return 1;
  s->cap = cap;
  return 0;
}

/* Unit weights: a block's weight is its length, exact in a double.
 * Returns the number of blocks, or -1 when memory runs out. */
static gi_idx solve_unit(const double *y, gi_idx n, double sy,
                         double *mean, block_stack *s)
{
  gi_idx k = 0;
  for (gi_idx i = 0; i < n; i++) {
    double v = sy * y[i];
    if (k > 0 && mean[k - 1] >= v) {
      double hi = v, lo = 0.0, m, e;
      gi_idx st;
      do {
        --k;
        two_sum(s->shi[k], hi, &hi, &e);
        lo += s->slo[k] + e;
        st = s->start[k];
        m = (hi + lo) / (double) (i + 1 - st);
      } while (k > 0 && mean[k - 1] >= m);
      mean[k] = m; s->shi[k] = hi; s->slo[k] = lo; s->start[k] = st;
    } else {
      if (k == s->cap && stack_reserve(s, k + 1)) return -1;
      mean[k] = v; s->shi[k] = v; s->slo[k] = 0.0; s->start[k] = i;
    }
    k++;
  }
  return k;
}

/* General weights. A zero-weight point joins the block of the next
 * positive-weight point (`pend` remembers where such a run began); trailing
 * ones stay in the last block. Returns 0 blocks when every weight is zero. */
static gi_idx solve_weighted(const double *y, const double *w, gi_idx n,
                             double sy, double sw, double *mean,
                             block_stack *s)
{
  gi_idx k = 0, pend = -1;
  for (gi_idx i = 0; i < n; i++) {
    double wi = sw * w[i];
    if (wi == 0.0) {
      if (pend < 0) pend = i;
      continue;
    }
    double v = sy * y[i];
    gi_idx st = pend < 0 ? i : pend;
    pend = -1;
    if (k > 0 && mean[k - 1] >= v) {
      double shi = wi * v, slo = 0.0, whi = wi, wlo = 0.0, m, e;
      do {
        --k;
        two_sum(s->shi[k], shi, &shi, &e);
        slo += s->slo[k] + e;
        two_sum(s->whi[k], whi, &whi, &e);
        wlo += s->wlo[k] + e;
        st = s->start[k];
        m = (shi + slo) / (whi + wlo);
      } while (k > 0 && mean[k - 1] >= m);
      mean[k] = m; s->shi[k] = shi; s->slo[k] = slo;
      s->whi[k] = whi; s->wlo[k] = wlo; s->start[k] = st;
    } else {
      if (k == s->cap && stack_reserve(s, k + 1)) return -1;
      mean[k] = v; s->shi[k] = wi * v; s->slo[k] = 0.0;
      s->whi[k] = wi; s->wlo[k] = 0.0; s->start[k] = st;
    }
    k++;
  }
  return k;
}

/* Did any block sum or mean overflow? Only the final blocks need a look:
 * a non-finite intermediate sum stays non-finite in the block it ends in. */
static int blocks_overflowed(const double *mean, const block_stack *s,
                             gi_idx k)
{
  for (gi_idx b = 0; b < k; b++) {
    if (!isfinite(mean[b]) || !isfinite(s->shi[b] + s->slo[b])) return 1;
    if (s->weighted && !isfinite(s->whi[b] + s->wlo[b])) return 1;
  }
  return 0;
}

/* Largest |x| of a problem, as a power of two to divide by, so that the
 * scaled values are below 2 in magnitude. */
static double scale_of(const double *x, gi_idx n)
{
  double mx = 0.0;
  for (gi_idx i = 0; i < n; i++) {
    double a = fabs(x[i]);
    if (a > mx) mx = a;
  }
  return mx > 0 ? ldexp(1.0, -ilogb(mx)) : 1.0;
}

/* Spread block means over their blocks, right to left: block b starts at
 * or after index b, so the means of blocks before b are still intact. */
static void spread(double *fit, const gi_idx *start, gi_idx k, gi_idx n,
                   double back, unsigned char *starts)
{
  gi_idx end = n;
  for (gi_idx b = k - 1; b >= 0; b--) {
    double m = fit[b] * back;
    gi_idx a = start[b];
    for (gi_idx j = a; j < end; j++) fit[j] = m;
    end = a;
  }
  if (starts != NULL) {
    memset(starts, 0, (size_t) n);
    for (gi_idx b = 0; b < k; b++) starts[start[b]] = 1;
  }
}

static gi_status solve_one(const double *y, const double *w, gi_idx n,
                           int decreasing, double *fit,
                           unsigned char *starts, block_stack *s)
{
  if (n == 0) return GI_OK;
  double sign = decreasing ? -1.0 : 1.0, sy = sign, sw = 1.0;
  for (int attempt = 0; attempt < 2; attempt++) {
    gi_idx k = w == NULL ? solve_unit(y, n, sy, fit, s)
                         : solve_weighted(y, w, n, sy, sw, fit, s);
    if (k < 0) return GI_ERR_NOMEM;
    if (k == 0) return GI_ERR_ZERO_WEIGHT;
    if (!blocks_overflowed(fit, s, k)) {
      spread(fit, s->start, k, n, 1.0 / sy, starts);
      return GI_OK;
    }
    /* Redo at unit scale: the fit is equivariant under both scalings. */
    sy = sign * scale_of(y, n);
    if (w != NULL) sw = scale_of(w, n);
  }
  return GI_ERR_OVERFLOW;
}

gi_status gi_isotonic_batch(const double *y, const double *w,
                            const gi_idx *offsets, gi_idx nprob,
                            int decreasing, int nthreads,
                            double *fit, unsigned char *starts, gi_idx *bad)
{
  gi_status status = GI_OK;
  gi_idx first_bad = nprob;
  int nt = nprob < 2 ? 1 : gi_threads_cap(nthreads);
  /* Chunks of problems small enough to balance ragged batches. */
  gi_idx chunk = nprob / ((gi_idx) nt * 16);
  if (chunk < 1) chunk = 1;
  if (chunk > 64) chunk = 64;

#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    block_stack s;
    gi_status mine = GI_OK;
    gi_idx my_bad = nprob;
    stack_init(&s, w != NULL);
#pragma omp for schedule(dynamic, chunk)
    for (gi_idx b = 0; b < nprob; b++) {
      if (mine != GI_OK) continue;
      gi_idx a = offsets[b], n = offsets[b + 1] - a;
      gi_status r = solve_one(y + a, w == NULL ? NULL : w + a, n, decreasing,
                              fit + a, starts == NULL ? NULL : starts + a, &s);
      if (r != GI_OK) {
        mine = r;
        my_bad = b;
      }
    }
    stack_free(&s);
#pragma omp critical(gpuiso_status)
    if (my_bad < first_bad) {
      first_bad = my_bad;
      status = mine;
    }
  }
  *bad = status == GI_OK ? -1 : first_bad;
  return status;
}

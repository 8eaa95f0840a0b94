/*
 * The pieces of the stack pass that pava.c and split.c share: the stack's
 * workspace, the pooling rule, the stack pass itself and the block means.
 * Internal to the core (gi_core.h is its interface).
 */
#ifndef GPUISO_PAVA_H
#define GPUISO_PAVA_H

#include <math.h>
#include "dd.h"
#include "gi_core.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The stack of blocks. The hi parts of the sums of w*y live in the output
 * array (block k at fit[k], k never beyond the element being read), the
 * rest here, one array per field: a fresh page costs more to touch than
 * the pass spends on it, so the scratch is kept small. Unit weights need
 * no weight arrays: a block's weight is its length. A workspace with
 * `fixed` set has room for every block it can meet and never grows (the
 * pieces of split.c share one allocation). */
typedef struct {
  double *slo, *whi, *wlo;
  gi_idx *start;
  gi_idx cap;
  gi_idx pend;  /* after a pass: where its trailing zero weights begin, or -1 */
  int fixed;
  /* after a unit-weight pass that pooled nothing (increasing data): every
   * element is a block of its own, and only the hi sums were stored; the
   * lo sums (0) and the starts (first + index) are implied */
  int singles;
  int overflow; /* a sum or a near-tie test left the range of doubles */
  int outside;  /* some nonzero |y| or weight is outside the safe window */
  /* set by the caller: every nonzero |y| and weight is known to lie in
   * that window, so the pass need not scan for it (outside stays 0) */
  int inside;
  /* set by the caller: the output's pages are faulted in already and it
   * is too large to stay in cache, so the values of one-element blocks
   * are stored past the cache (see stack_pass(); x86-64 only, elsewhere
   * ignored) */
  int stream;
} gi_stack;

/* Is Sa / Wa >= Sb / Wb, for sums given as pairs (hi + lo)? The sign of
 * Sa Wb - Sb Wa in double-double arithmetic; a difference below 2^-80 of
 * the products is a tie (and ties pool). -1 when that arithmetic
 * overflows (operands beyond about 2^996). */
static inline int gi_sums_geq(double sah, double sal, double wah, double wal,
                              double sbh, double sbl, double wbh, double wbl)
{
  double p = sah * wbh, q = sbh * wah;
  double pe = two_prod_err(sah, wbh, p) + (sah * wbl + sal * wbh);
  double qe = two_prod_err(sbh, wah, q) + (sbh * wal + sbl * wah);
  double d, de;
  two_sum(p, -q, &d, &de);
  d += de + (pe - qe);
  if (isnan(d)) return -1;
  return d >= -0x1p-80 * (fabs(p) + fabs(q));
}

/* A merge's sums, kept so that the lo part is at most 2^-32 of the hi
 * part: where it is larger (a sum that cancelled: 1e16, 1, -1e16 leave hi
 * 0 and lo 1; or a very long one), the pair is renormalised, hi the sum
 * rounded and lo its exact error. gi_pools() rests on it: its band, 2^-29
 * of the hi parts' cross product, covers what lo parts of at most 2^-32
 * can move the comparison by, and without the renormalisation 1e16, 1,
 * -1e16, 0.2 were fitted 0.2 everywhere (the fit is 0.3). Ordinary sums
 * never come near 2^-32 (their lo parts are rounding errors, about 2^-53
 * of the hi part each), so they, and their fits, are untouched. Every
 * merge of sums of w*y calls it, on every CPU path (the stack pass,
 * split.c's merge, lockstep.c's lanes) the same way, so that the paths
 * agree to the bit; sums of weights need it only in split.c's merge (see
 * gi_add_weights()). */
static GI_ALWAYS_INLINE void gi_keep_small(double *hi, double *lo)
{
  if (fabs(*lo) > 0x1p-32 * fabs(*hi)) { /* rare, so predicted */
    double s, e;
    two_sum(*hi, *lo, &s, &e);
    *hi = s;
    *lo = e;
  }
}

/* A merge of sums: the lower block's (lh + ll) added into the upper
 * block's (*h + *l), hi parts by two_sum(lower, upper), lo parts as
 * upper + (lower + error). gi_merge_sums() adds gi_keep_small() for sums
 * that may cancel; gi_add_weights() is the same merge for sums of
 * weights. */
static GI_ALWAYS_INLINE void gi_add_sums(double lh, double ll, double *h,
                                         double *l)
{
  double e;
  two_sum(lh, *h, h, &e);
  *l += ll + e;
}

/* two_sum() of two sums of weights a, b >= 0, with the same *s and *e to
 * the bit while nothing overflows (inside the window of dd.h; a pass that
 * meets a weight outside it is redone, see gi_solve_one()): with the
 * larger first, Fast2Sum's error is exact, and max and min order the two
 * without a branch. Five operations instead of six on the weighted pass's
 * chain of merges took 2-4 % off its time at 10^3 and 10^4 points on the
 * VM (bench/onethread-core-RESULTS.md). */
static GI_ALWAYS_INLINE void gi_two_sum_pos(double a, double b, double *s,
                                            double *e)
{
#ifdef __SSE2__
  __m128d x = _mm_set_sd(a), y = _mm_set_sd(b);
  double big = _mm_cvtsd_f64(_mm_max_sd(x, y));
  double small = _mm_cvtsd_f64(_mm_min_sd(x, y));
  double t = a + b;
  *e = small - (t - big);
  *s = t;
#else
  two_sum(a, b, s, e);
#endif
}

/* gi_add_sums() for sums of weights within one stack pass, by
 * gi_two_sum_pos() (the same result to the bit), and with no
 * gi_keep_small(), which could not act (lockstep.c's lanes make the same
 * merge with two_sum() and skip it for the same reason). Weights are
 * positive and a point's own lo part is 0, so a merge leaves the lo part
 * within (r + 2^-53)(1 + 2^-51) of the hi part where its operands were
 * within r:
 * within (m - 1) 2^-53 (1 + 2^-34) for a block of m < 2^16 points. A pass
 * never holds 2^16 points (longer problems go to split.c in pieces,
 * batches' short ones to lockstep.c), so that is below 2^-37, well within
 * 2^-32. Left out, the test saved the weighted pass 2-4 % on the VM;
 * split.c's merges, whose blocks can be of any length, keep it. */
static GI_ALWAYS_INLINE void gi_add_weights(double lh, double ll, double *h,
                                            double *l)
{
  double e;
  gi_two_sum_pos(lh, *h, h, &e);
  *l += ll + e;
}

/* A merge of sums that may cancel (of w*y, or of w across pieces): as
 * gi_add_sums(), then gi_keep_small(). Every scalar merge goes through one
 * of the two (the stack pass, split.c), so that they round alike;
 * lockstep.c's lanes do the same operations in vectors. */
static GI_ALWAYS_INLINE void gi_merge_sums(double lh, double ll, double *h,
                                           double *l)
{
  gi_add_sums(lh, ll, h, l);
  gi_keep_small(h, l);
}

/* The lo sums and starts of k one-element blocks that a unit-weight pass
 * left implied (gi_stack.singles), written out as the pass's pushes would
 * have written them. */
static inline void gi_fill_singles(double *slo, gi_idx *start, gi_idx k,
                                   gi_idx first)
{
  for (gi_idx j = 0; j < k; j++) {
    slo[j] = 0.0;
    start[j] = first + j;
  }
}

/* The pooling rule: does the block below (sums ts + *tl of w*y and
 * tw + *twl of w; twl NULL for unit weights) pool with the block above it
 * (chi + clo, cwh + cwl), that is, is its mean >= the upper one's? Decided
 * by the cross products of the hi parts, p = chi tw and q = ts cwh, unless
 * they differ by at most 2^-29 |q|: the lo parts are at most 2^-32 of
 * the hi parts (gi_keep_small() and gi_add_weights() see to it), so closer
 * calls go to the full sums (gi_sums_geq(), which reads the lo parts only
 * then). That band is 2^-30 (|p| + |q|), the band the sums' error asks
 * for, to within a factor 1 + 2^-29 wherever |d| = |q - p| comes near
 * either (there |p| and |q| agree to 2^-29), so the two decide alike; it
 * scales one magnitude instead of two, and on noisy data, where the pass
 * is bound by its floating-point operations, that saved 6 % (weighted) to
 * 11 % (unit weights) of its time. The vector tests of lockstep.c use the
 * same band. Sets *overflow when the full test leaves the range of doubles
 * (then the sign of the hi parts decides and the caller redoes the
 * problem in wide.c). gi_pools_by() is that rule with the two sides of
 * the filter, q and p, given (gi_pools_point() below forms them
 * otherwise); gi_pools() forms them as said. */
static GI_ALWAYS_INLINE int gi_pools_by(double q, double p, double ts,
                                        const double *tl, double tw,
                                        const double *twl, double chi,
                                        double clo, double cwh, double cwl,
                                        int *overflow)
{
  double d = q - p;
  double tol = 0x1p-29 * fabs(q);
  /* the side first, which waits on one product, then (nearly always
   * true, so predicted) whether it is clear of the band */
  if (q < p) {
    if (p - q > tol) return 0;
  } else if (d > tol) {
    return 1;
  }
  int geq = gi_sums_geq(ts, *tl, tw, twl != NULL ? *twl : 0.0, chi, clo, cwh,
                        cwl);
  if (geq < 0) {
    *overflow = 1;
    geq = d >= 0;
  }
  return geq;
}

static GI_ALWAYS_INLINE int gi_pools(double ts, const double *tl, double tw,
                                     const double *twl, double chi,
                                     double clo, double cwh, double cwl,
                                     int *overflow)
{
  return gi_pools_by(ts * cwh, chi * tw, ts, tl, tw, twl, chi, clo, cwh, cwl,
                     overflow);
}

/* gi_pools() for an upper block of one point of weight cw > 0 and value
 * v (sums chi + clo = cw v exactly, and cw): the lower block's mean is
 * >= v exactly when ts + tl >= v (tw + twl), so the filter compares ts
 * with v tw, which waits on no product of cw. Outside its band, 2^-29 of
 * |ts|, it decides as gi_pools() does (both are exact there: the lo parts
 * move each side by at most 2^-32 of it, the rounding of v tw by 2^-53,
 * and where |v tw| > 2 |ts| the difference is over half of |v tw|);
 * inside, the same full test, so the two agree on every input (an
 * overflow, where the signs may differ, is redone in wide.c anyway). */
static GI_ALWAYS_INLINE int gi_pools_point(double ts, const double *tl,
                                           double tw, const double *twl,
                                           double v, double chi, double clo,
                                           double cw, int *overflow)
{
  return gi_pools_by(ts, v * tw, ts, tl, tw, twl, chi, clo, cw, 0.0,
                     overflow);
}

/* m into fit[a..end), two at a time where SSE2 stores pairs: the loop
 * that writes a fit's blocks runs once per element, and a pair store
 * halves its instructions. */
static inline void gi_fill(double *fit, gi_idx a, gi_idx end, double m)
{
  gi_idx i = a;
#ifdef __SSE2__
  __m128d mm = _mm_set1_pd(m);
  for (; i + 2 <= end; i += 2) _mm_storeu_pd(fit + i, mm);
#endif
  for (; i < end; i++) fit[i] = m;
}

/* (sh + sl) / (wh + wl), rounded about once: the quotient of the hi parts
 * corrected by its residual, formed with an error-free product. A block of
 * one unit-weight element is its value. Non-finite if a sum is. */
static inline double gi_block_mean(double sh, double sl, double wh, double wl)
{
  if (wh == 1.0 && sl == 0.0 && wl == 0.0) return sh; /* sh / 1, no division */
  double m = sh / wh;
  double p = m * wh, pe = two_prod_err(m, wh, p);
  double r = (((sh - p) - pe) + sl) - m * wl;
  double c = m + r / (wh + wl);
  return isfinite(c) ? c : (sh + sl) / (wh + wl);
}

/* The stack pass (pava.c) over y[0..n) scaled by sy (w by sw; w NULL for
 * unit weights), the hi parts of the block sums into shi[]: the number
 * of blocks (0 when every weight is zero), -1 when ws has room for fewer
 * than n blocks, -2 when interrupted. Block starts are stored as first +
 * index. */
gi_idx gi_stack_pass(const double *y, const double *w, gi_idx n, gi_idx first,
                     double sy, double sw, double *shi, gi_stack *ws);

/* The binary exponents of the largest and the smallest nonzero |x|
 * (*lo > *hi when every x is zero), and a power of two that brings such a
 * range around 0 (0 when it spans more than 2^300: the wide pass must
 * solve it). */
void gi_exponent_range(const double *x, gi_idx n, int *lo, int *hi);
double gi_centring_scale(int lo, int hi);

/* The blocks of a problem of n elements: k of them, block b starting at
 * start[b], with sums (hi[b] + lo[b]) of w*y and, for weighted fits,
 * (whi[b] + wlo[b]) of w (whi NULL: unit weights, a block weighs its
 * length). */
typedef struct {
  const double *hi, *lo, *whi, *wlo;
  const gi_idx *start;
  gi_idx k, n;
} gi_blocks;

/* pava.c: gi_spread() of a pass that left every element a block of its
 * own (gi_stack.singles), its values in fit[0..n): the pass pooled no two
 * neighbours, and its test is exact while nothing overflows (and nothing
 * can inside the window of dd.h, where such a pass ends), so the values
 * strictly increase and each block's mean is its value. They are clamped
 * to at most `next` (the smallest mean to their right, INFINITY for a
 * whole problem) and scaled by `back` in place; starts (when not NULL)
 * all set. */
void gi_spread_rising(double *fit, gi_idx n, double next, double back,
                      unsigned char *starts);

/* pava.c: the block means spread over the fit, right to left, each
 * times `back` (hi may lie in fit itself: block b's sums at index
 * b <= start[b] are read before anything is written over them), and the
 * block starts into `starts` (when not NULL). -1 if a mean is not
 * finite. */
int gi_spread(const gi_blocks *B, double *fit, double back,
              unsigned char *starts);

/* pava.c: one problem of n < GI_SPLIT_MIN elements (gi_add_weights() relies
 * on the bound) as a batch solves it (the stack pass, then the scaled pass
 * or wide.c where needed), with ws (zeroed before first use) its stack;
 * gi_stack_free() frees it. */
gi_status gi_solve_one(const double *y, const double *w, gi_idx n,
                       int decreasing, double *fit, unsigned char *starts,
                       gi_stack *ws);
void gi_stack_free(gi_stack *ws);

/* lockstep.c: the short problems (0 < n < GI_SPLIT_MIN) of a batch,
 * GI_LANES at a time, with the same fit and block starts to the bit as
 * gi_solve_one() gives each of them (see there). A batch's problems are
 * taken in order from [0, nprob) or, with `next` not NULL, in chunks of
 * `chunk` from a counter that the threads share (*next, the first problem
 * not yet taken, and *stop, the first failing problem found so far: the
 * problems after it are left). Long problems are left to split.c. Returns
 * the status of this caller's first failing problem and that problem in
 * *bad (nprob when none). */
#define GI_LANES 4
/* Test-only: width 2 keeps the lanes two to a register even where AVX2
 * would put four; 0, the default, lets the processor decide. Returns the
 * previous setting. */
int gi_lockstep_test_width(int width);
gi_status gi_lockstep(const double *y, const double *w, const gi_idx *offsets,
                      gi_idx nprob, int decreasing, gi_idx *next,
                      gi_idx chunk, gi_idx *stop, double *fit,
                      unsigned char *starts, gi_idx *bad);

/* split.c: one problem of n >= GI_SPLIT_MIN elements (gi_core.h) solved in pieces on
 * up to nthreads threads (see there); the same status and result as
 * pava.c's one-thread solve of any problem. `inside` as in gi_stack, or
 * -1 for unit weights whose values are to be checked piece by piece;
 * `faulted`: every page of fit has been written since it was allocated
 * (gi_prefault()), see gi_isotonic_long_unchecked(). */
#define GI_SPLIT_LOG2_PIECE 15
gi_status gi_solve_split(const double *y, const double *w, gi_idx n,
                         int decreasing, int nthreads, int inside,
                         int faulted, double *fit, unsigned char *starts);

#endif

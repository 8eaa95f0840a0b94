/*
 * Pooling of sorted scores (calibration, reliability diagrams): each run of
 * equal (group, score) in sorted order becomes one point with the summed
 * weight and the weighted mean outcome, so that tied scores get one value.
 * One pass in the sorted order; the inputs are read through it, not copied.
 *
 * Both are exact for every finite weight and outcome in [0, 1]: the summed
 * weight is the correctly rounded sum (+Inf where it exceeds DBL_MAX, which
 * the caller reports), the mean the correctly rounded ratio of the exact
 * sums. A run of one point is that point. Longer runs are summed in
 * doubles with a note of any rounding, taken off the chain of the sums
 * (exact for counts, 0/1 outcomes and most data: then one IEEE division);
 * a run whose double sums rounded is read again and summed as gi_xnum
 * (exact products w * y, double-double sums with an exponent of their own,
 * so that neither weights near DBL_MAX nor subnormal ones lose anything),
 * and where even those rounded, once more in fixed point (gi_big.h).
 * The pooled points' group sizes then give a batch's offsets
 * (gi_group_offsets()).
 */
#include <string.h>
#include "gi_core.h"
#include "gi_xnum.h"
#include "gi_big.h"
#include "gi_omp.h"

/* The input element at sorted place k (0-based). */
static inline gi_idx at(const int *ord_i, const double *ord_d, gi_idx k)
{
  return (ord_i ? (gi_idx) ord_i[k] : (gi_idx) ord_d[k]) - 1;
}

/* The run at sorted places k0 .. k1 - 1 summed exactly: its mean into
 * *value, its weight into *weight. */
static void pool_big(const double *y, const double *w, const int *ord_i,
                     const double *ord_d, gi_idx k0, gi_idx k1, double *value,
                     double *weight)
{
  gi_big N, D;
  memset(&N, 0, sizeof N);
  memset(&D, 0, sizeof D);
  for (gi_idx k = k0; k < k1; k++) {
    gi_idx i = at(ord_i, ord_d, k);
    double wi = w ? w[i] : 1.0;
    gi_big_add_prod(&N, wi, y[i]);
    gi_big_add(&D, wi);
  }
  *weight = gi_big_round(&D);
  *value = gi_limbs_top(D.v, GI_BIG_LIMBS) >= 0 ? gi_big_div(&N, &D) : 0.0;
}

/* The same in gi_xnum, falling back to pool_big() where a sum rounds. */
static void pool_xnum(const double *y, const double *w, const int *ord_i,
                      const double *ord_d, gi_idx k0, gi_idx k1, double *value,
                      double *weight)
{
  gi_xnum swy = {0.0, 0.0, 0}, sw = {0.0, 0.0, 0};
  int inexact = 0;
  for (gi_idx k = k0; k < k1 && !inexact; k++) {
    gi_idx i = at(ord_i, ord_d, k);
    double wi = w ? w[i] : 1.0;
    swy = gi_xadd_chk(swy, gi_xnum_prod(wi, y[i]), &inexact);
    sw = gi_xadd_chk(sw, gi_xnum_of(wi, 0, 1.0), &inexact);
  }
  /* exact, but with a low part below 2^-900 of the high one: the checks of
   * the correctly rounded ratio could underflow; fixed point is safe */
  if (!inexact && ((sw.l != 0.0 && fabs(sw.l) < fabs(sw.h) * 0x1p-900) ||
                   (swy.l != 0.0 && fabs(swy.l) < fabs(swy.h) * 0x1p-900)))
    inexact = 1;
  if (inexact) {
    pool_big(y, w, ord_i, ord_d, k0, k1, value, weight);
    return;
  }
  *weight = gi_xround_double(sw);
  *value = sw.h > 0.0 ? gi_xdiv(swy, sw) : 0.0;
}

/* Pools sorted places kb .. ke - 1 (whole runs) into the points from
 * `base` on; run_of gets base + the run (1-based). Returns the runs. */
static gi_idx pool_range(const double *s, const double *y, const double *w,
                         const int *code, const int *ord_i, const double *ord_d,
                         gi_idx kb, gi_idx ke, gi_idx base, double *score,
                         double *value, double *weight, int *group, int *run_of)
{
  gi_idx r = base - 1, k0 = kb, n = ke;
  double prev_s = 0.0, swy = 0.0, sw = 0.0, err = 0.0;
  int prev_g = 0;
  for (gi_idx k = kb; k <= n; k++) {
#if defined(__GNUC__)
    /* the reads are random: start those of a later point now */
    if (k + 16 < n) {
      gi_idx f = at(ord_i, ord_d, k + 16);
      __builtin_prefetch(s + f);
      __builtin_prefetch(y + f);
      if (w) __builtin_prefetch(w + f);
      if (code) __builtin_prefetch(code + f);
    }
#endif
    gi_idx i = k < n ? at(ord_i, ord_d, k) : 0;
    int g = k < n ? (code ? code[i] : 1) : 0;
    if (k == n || r < base || s[i] != prev_s || g != prev_g) {
      if (r >= base) {
        /* the run k0 .. k - 1 ends: its double sums are exact where no
         * error was noted and neither overflowed */
        if (err == 0.0 && sw <= DBL_MAX) {
          weight[r] = sw;
          value[r] = sw > 0.0 ? swy / sw : 0.0;
        } else {
          pool_xnum(y, w, ord_i, ord_d, k0, k, &value[r], &weight[r]);
        }
      }
      if (k == n) break;
      r++;
      score[r] = s[i];
      group[r] = g;
      prev_s = s[i];
      prev_g = g;
      k0 = k;
      swy = 0.0;
      sw = 0.0;
      err = 0.0;
    }
    double wi = w ? w[i] : 1.0, yi = y[i], p = yi, t1, t2;
    if (w) {
      /* the product's rounding error; products near the ends of the range
       * (where that error is not a double, or the split overflows) count
       * as inexact */
      double pe;
      p = wi * yi;
      if (p != 0.0 ? (p < 0x1p-960 || wi > 0x1p990) : (yi != 0.0 && wi != 0.0)) {
        err = 1.0;
      } else {
        p = two_prod(wi, yi, &pe);
        err += fabs(pe);
      }
    }
    two_sum(swy, p, &swy, &t1);
    two_sum(sw, wi, &sw, &t2);
    err += fabs(t1) + fabs(t2);
    if (run_of) run_of[i] = (int) (r + 1);
  }
  return r + 1 - base;
}

#define POOL_MAX_PIECES 64

/* Whether sorted places k - 1 and k hold one run. */
static int same_run(const double *s, const int *code, const int *ord_i,
                    const double *ord_d, gi_idx k)
{
  gi_idx a = at(ord_i, ord_d, k - 1), b = at(ord_i, ord_d, k);
  return s[a] == s[b] && (code == NULL || code[a] == code[b]);
}

gi_idx gi_pool_sorted(const double *s, const double *y, const double *w,
                      const int *code, const int *ord_i, const double *ord_d,
                      gi_idx n, int nthreads, double *score, double *value,
                      double *weight, int *group, int *run_of)
{
  int T = gi_threads_cap(nthreads);
  if (T > POOL_MAX_PIECES) T = POOL_MAX_PIECES;
  if (n < 65536 || T < 2)
    return pool_range(s, y, w, code, ord_i, ord_d, 0, n, 0, score, value, weight, group,
                      run_of);
  /* T pieces of whole runs, each pooled into the points from its first
   * place on (it has no more runs than places), then moved down */
  gi_idx kb[POOL_MAX_PIECES + 1], cnt[POOL_MAX_PIECES], base[POOL_MAX_PIECES];
  kb[0] = 0;
  for (int t = 1; t < T; t++) {
    gi_idx k = n * t / T;
    if (k < kb[t - 1]) k = kb[t - 1];
    while (k > 0 && k < n && same_run(s, code, ord_i, ord_d, k)) k++;
    kb[t] = k;
  }
  kb[T] = n;
#pragma omp parallel for num_threads(T) schedule(static, 1)
  for (int t = 0; t < T; t++)
    cnt[t] = kb[t] < kb[t + 1]
                 ? pool_range(s, y, w, code, ord_i, ord_d, kb[t], kb[t + 1], kb[t], score,
                              value, weight, group, run_of)
                 : 0;
  gi_idx total = 0;
  for (int t = 0; t < T; t++) {
    base[t] = total;
    if (base[t] != kb[t] && cnt[t] > 0) {
      size_t bytes = (size_t) cnt[t] * sizeof(double);
      memmove(score + base[t], score + kb[t], bytes);
      memmove(value + base[t], value + kb[t], bytes);
      memmove(weight + base[t], weight + kb[t], bytes);
      memmove(group + base[t], group + kb[t], (size_t) cnt[t] * sizeof(int));
    }
    total += cnt[t];
  }
  if (run_of != NULL && total != n) {
    /* a place's run, numbered from its piece's first place, renumbered;
     * the pieces are few, so a short search finds each one's piece */
#pragma omp parallel for num_threads(T) schedule(static)
    for (gi_idx i = 0; i < n; i++) {
      gi_idx v = (gi_idx) run_of[i] - 1;
      int t = T - 1;
      while (kb[t] > v) t--;
      run_of[i] = (int) (v - kb[t] + base[t] + 1);
    }
  }
  return total;
}

void gi_group_offsets(const int *group, gi_idx n, int ngroups, double *off)
{
  for (int g = 0; g <= ngroups; g++) off[g] = 0.0;
  for (gi_idx r = 0; r < n; r++) off[group[r]] += 1.0;
  for (int g = 1; g <= ngroups; g++) off[g] += off[g - 1];
}

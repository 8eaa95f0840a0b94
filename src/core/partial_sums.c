/*
 * Partial sums of the rows of a matrix, each the exact sum rounded once to
 * the nearest double: the coordinates of the "icx" order of IDR, which
 * compares ensembles by the partial sums of their sorted members. Sums
 * rounded step by step can order two ensembles against their exact sums
 * (1.0 + 0.4 - 0.5 gives 0.8999999999999999 where 0.5 + 0.5 - 0.1 gives
 * 0.9, and the exact sums of those doubles are equal), and rescaling the
 * data changed which pairs were comparable. Rounding is monotone, so
 * sums rounded once keep every order that the exact sums have.
 *
 * Each row is summed as an unevaluated pair hi + lo, both updated by
 * two_sum(): while no error of the lo updates is lost, hi + lo is the
 * exact sum, and hi + lo rounded once is the answer. A row where one is
 * lost (members some 2^106 apart, or an overflow on the way) is summed
 * again in fixed point (gi_big.h), exactly.
 */
#include "dd.h"
#include "gi_big.h"
#include "gi_core.h"

/* a -= b, a >= b (n limbs). */
static void limbs_sub(uint64_t *a, const uint64_t *b, int n)
{
  uint64_t borrow = 0;
  for (int k = 0; k < n; k++) {
    uint64_t t = a[k] - b[k];
    uint64_t b1 = a[k] < b[k];
    uint64_t u = t - borrow;
    borrow = b1 | (t < borrow);
    a[k] = u;
  }
}

/* pos - neg rounded to the nearest double (ties to even). */
static double big_difference(const gi_big *pos, const gi_big *neg)
{
  gi_big d;
  int c = gi_limbs_cmp(pos->v, neg->v, GI_BIG_LIMBS);
  if (c == 0) return 0.0;
  d = c > 0 ? *pos : *neg;
  limbs_sub(d.v, c > 0 ? neg->v : pos->v, GI_BIG_LIMBS);
  double r = gi_big_round(&d);
  return c > 0 ? r : -r;
}

/* Row i of x (n x k, by columns, finite) into out, exactly. */
static void row_exact(const double *x, gi_idx n, int k, gi_idx i, double *out)
{
  gi_big pos, neg;
  memset(&pos, 0, sizeof pos);
  memset(&neg, 0, sizeof neg);
  for (int j = 0; j < k; j++) {
    double v = x[i + (gi_idx) j * n];
    if (v >= 0.0) gi_big_add(&pos, v);
    else gi_big_add(&neg, -v);
    out[i + (gi_idx) j * n] = big_difference(&pos, &neg);
  }
}

void gi_partial_sums_rounded(const double *x, gi_idx n, int k, double *out)
{
  for (gi_idx i = 0; i < n; i++) {
    double hi = 0.0, lo = 0.0;
    int j = 0;
    for (; j < k; j++) {
      double s, e, t, f;
      two_sum(hi, x[i + (gi_idx) j * n], &s, &e);
      two_sum(lo, e, &t, &f);
      /* f != 0 (or NaN, after an overflow): lo lost a part */
      if (f != 0.0 || !isfinite(s)) break;
      hi = s;
      lo = t;
      out[i + (gi_idx) j * n] = hi + lo;
    }
    if (j < k) row_exact(x, n, k, i, out);
  }
}

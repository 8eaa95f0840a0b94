/*
 * Pool adjacent violators for problems whose values or weights span more
 * than the fast pass (pava.c) can scale into its range: weights from the
 * least subnormal to DBL_MAX in one problem, values of 1e-300 beside 1e307.
 *
 * The same stack pass and the same rules as pava.c (pool on >=, near-ties
 * within 2^-80 pool, zero weights join the next positive-weight point),
 * with every sum and cross product kept as an xdd (dd.h): a double-double
 * with its own exponent, so no product or sum of doubles overflows or
 * underflows. Each block mean is rounded once to the nearest double. About
 * ten times slower than the fast pass; it only runs on such inputs.
 */
#include <stdlib.h>
#include <string.h>
#include "dd.h"
#include "gi_core.h"
#include "wide.h"

typedef struct {
  xdd s, w;    /* sums of w*y and of w */
  gi_idx start;
} wblock;

gi_status gi_pava_wide(const double *y, const double *w, gi_idx n,
                       int decreasing, double *fit, unsigned char *starts)
{
  const double sign = decreasing ? -1.0 : 1.0;
  gi_idx cap = n < 1024 ? n : 1024, k = 0, pend = -1;
  wblock *st = (wblock *) malloc((size_t) cap * sizeof(wblock));
  if (st == NULL) return GI_ERR_NOMEM;
  for (gi_idx i = 0; i < n; i++) {
    if ((i & 0x3FFF) == 0x3FFF && gi_interrupted(0x4000 * 16)) {
      free(st);
      return GI_ERR_INTERRUPT;
    }
    double v = sign * y[i], wi = w == NULL ? 1.0 : w[i];
    wblock c;
    c.start = i;
    if (wi == 0.0) {
      if (pend < 0) pend = i;
      continue;
    }
    if (pend >= 0) c.start = pend;
    pend = -1;
    c.s = xdd_prod(wi, v);
    c.w = xdd_of(wi);
    /* pool while the top's mean is >= the current one's:
     * s_top * w_cur >= s_cur * w_top (the weights are positive) */
    while (k > 0 && xdd_geq(xdd_mul(st[k - 1].s, c.w),
                            xdd_mul(c.s, st[k - 1].w))) {
      k--;
      c.s = xdd_add(st[k].s, c.s);
      c.w = xdd_add(st[k].w, c.w);
      c.start = st[k].start;
    }
    if (k == cap) {
      gi_idx ncap = cap * 2;
      wblock *q = (wblock *) realloc(st, (size_t) ncap * sizeof(wblock));
      if (q == NULL) {
        free(st);
        return GI_ERR_NOMEM;
      }
      st = q;
      cap = ncap;
    }
    st[k++] = c;
  }
  if (k == 0) {
    free(st);
    return GI_ERR_ZERO_WEIGHT;
  }
  /* Right to left, so trailing zero weights take the last block's value;
   * a mean is the block's exact weighted mean rounded once, never above
   * the next one (their order survives rounding; this only guards it). */
  gi_idx end = n;
  double next = INFINITY;
  for (gi_idx j = k - 1; j >= 0; j--) {
    double m = xdd_to_double(xdd_div(st[j].s, st[j].w));
    m = m < next ? m : next;
    next = m;
    for (gi_idx i = st[j].start; i < end; i++) fit[i] = sign * m;
    end = st[j].start;
  }
  if (starts != NULL) {
    memset(starts, 0, (size_t) n);
    for (gi_idx j = 0; j < k; j++) starts[st[j].start] = 1;
  }
  free(st);
  return GI_OK;
}

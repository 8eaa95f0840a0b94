/*
 * Pooling of sorted scores (calibration, reliability diagrams): each run of
 * equal (group, score) in sorted order becomes one point with the summed
 * weight and the weighted mean outcome, so that tied scores get one value.
 * One pass in the sorted order; the inputs are read through it, not copied.
 */
#include "gi_core.h"

gi_idx gi_pool_sorted(const double *s, const double *y, const double *w,
                      const int *code, const int *ord_i, const double *ord_d,
                      gi_idx n, double *score, double *value, double *weight,
                      int *group, int *run_of)
{
  gi_idx r = -1;
  double prev_s = 0.0, swy = 0.0, sw = 0.0;
  int prev_g = 0;
  for (gi_idx k = 0; k < n; k++) {
    gi_idx i = (ord_i ? (gi_idx) ord_i[k] : (gi_idx) ord_d[k]) - 1;
    int g = code ? code[i] : 1;
    double wi = w ? w[i] : 1.0;
    if (r < 0 || s[i] != prev_s || g != prev_g) {
      if (r >= 0) {
        weight[r] = sw;
        value[r] = sw > 0.0 ? swy / sw : 0.0;
      }
      r++;
      score[r] = s[i];
      group[r] = g;
      prev_s = s[i];
      prev_g = g;
      swy = 0.0;
      sw = 0.0;
    }
    swy += wi * y[i];
    sw += wi;
    if (run_of) run_of[i] = (int) (r + 1);
  }
  if (r >= 0) {
    weight[r] = sw;
    value[r] = sw > 0.0 ? swy / sw : 0.0;
  }
  return r + 1;
}

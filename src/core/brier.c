/*
 * The mean Brier scores of a CORP diagram's decomposition in one pass over
 * the forecasts (reliability diagrams): of the forecasts, of their CORP
 * values, and of the constant forecast of the mean outcome. Sums are
 * compensated (Neumaier), so they do not drift over millions of terms.
 */
#include "gi_core.h"
#include "dd.h"

/* s + v, with the rounding error gathered in *c. */
static inline double add_comp(double s, double v, double *c)
{
  double t, e;
  two_sum(s, v, &t, &e);
  *c += e;
  return t;
}

void gi_brier_parts(const double *x, const double *y, const double *fit,
                    const int *run_of, gi_idx n, double *cal, double *out)
{
  double s = 0.0, cs = 0.0, sc = 0.0, csc = 0.0, sy = 0.0, csy = 0.0;
  for (gi_idx i = 0; i < n; i++) {
    double f = fit[run_of[i] - 1], d = x[i] - y[i], dc = f - y[i];
    cal[i] = f;
    s = add_comp(s, d * d, &cs);
    sc = add_comp(sc, dc * dc, &csc);
    sy = add_comp(sy, y[i], &csy);
  }
  double ybar = (sy + csy) / (double) n, sr = 0.0, csr = 0.0;
  for (gi_idx i = 0; i < n; i++) {
    double d = ybar - y[i];
    sr = add_comp(sr, d * d, &csr);
  }
  out[0] = (s + cs) / (double) n;
  out[1] = (sc + csc) / (double) n;
  out[2] = (sr + csr) / (double) n;
}

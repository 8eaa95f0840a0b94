/*
 * Where new points fall among the sorted distinct abscissae of a fit, the
 * one rule behind every predict() of the package (see ?prediction):
 *  - constant: the value of the first knot at or after t, the
 *    right-continuous step of as.stepfun() on a stats::isoreg() fit;
 *  - linear: the interpolation between the knots on either side of t.
 * Outside [knot[0], knot[m-1]] the value is clipped to the nearer end or
 * missing. A place is a knot index j and a weight lam in [0, 1): the value
 * is (1 - lam) f[j] + lam f[j + 1].
 */
#include <math.h>
#include "gi_core.h"

/* The first knot >= t (m if none), by bisection from a guess: points that
 * arrive sorted cost O(1) each, any others O(log m). The bisection moves
 * a base without branches, as random points would mispredict half of
 * them. */
static gi_idx first_at_or_after(const double *k, gi_idx m, double t, gi_idx guess)
{
  if (guess > 0 && guess < m && k[guess - 1] < t && t <= k[guess]) return guess;
  const double *base = k;
  gi_idx len = m;
  while (len > 1) {
    gi_idx half = len / 2;
#if defined(__GNUC__)
    /* both places the next probe can be: memory, not arithmetic, bounds
     * a search over many knots */
    __builtin_prefetch(base + half / 2 - 1);
    __builtin_prefetch(base + half + half / 2 - 1);
#endif
    base = base[half - 1] < t ? base + half : base;
    len -= half;
  }
  return (base - k) + (m > 0 && *base < t);
}

/* (t - a) / (b - a) for a < t < b, without overflow when b - a exceeds
 * the double range (knots near +-1.8e308). */
static double fraction(double a, double b, double t)
{
  double d = b - a;
  double lam = isfinite(d) ? (t - a) / d : (t * 0.5 - a * 0.5) / (b * 0.5 - a * 0.5);
  return lam < 0.0 ? 0.0 : (lam < 1.0 ? lam : 1.0);
}

gi_idx gi_locate(const double *knot, gi_idx m, const double *t, gi_idx n,
                 int linear, int clip, int *j, double *lam)
{
  gi_idx outside = -1, guess = 0;
  for (gi_idx i = 0; i < n; i++) {
    double ti = t[i];
    lam[i] = 0.0;
    if (isnan(ti) || m == 0) {
      j[i] = GI_NO_PLACE;
      continue;
    }
    if (ti < knot[0] || ti > knot[m - 1]) {
      if (outside < 0) outside = i;
      j[i] = clip ? (int) (ti < knot[0] ? 0 : m - 1) : GI_NO_PLACE;
      continue;
    }
    gi_idx r = first_at_or_after(knot, m, ti, guess);
    guess = r;
    if (!linear || knot[r] == ti) {
      j[i] = (int) r;
    } else {
      /* knot[r - 1] < ti < knot[r], r >= 1 since ti >= knot[0] */
      double f = fraction(knot[r - 1], knot[r], ti);
      j[i] = (int) (f < 1.0 ? r - 1 : r); /* 1: rounded up to knot r */
      lam[i] = f < 1.0 ? f : 0.0;
    }
  }
  return outside;
}

gi_idx gi_interpolate(const double *knot, const double *f, gi_idx m,
                      double lo, const double *t, gi_idx n, int linear,
                      int clip, double na, double *out)
{
  gi_idx outside = -1, guess = 0;
  for (gi_idx i = 0; i < n; i++) {
    double ti = t[i];
    if (isnan(ti) || m == 0) {
      out[i] = na;
      continue;
    }
    if (ti < lo || ti > knot[m - 1]) {
      if (outside < 0) outside = i;
      out[i] = clip ? (ti < lo ? f[0] : f[m - 1]) : na;
      continue;
    }
    gi_idx r = first_at_or_after(knot, m, ti, guess);
    guess = r;
    if (!linear || knot[r] == ti || r == 0) {
      out[i] = f[r];
    } else {
      double a = f[r - 1], b = f[r];
      double lam = fraction(knot[r - 1], knot[r], ti);
      double v = lam < 1.0 ? a + lam * (b - a) : b;
      if (!isfinite(v)) v = (1.0 - lam) * a + lam * b; /* b - a overflowed */
      /* within the two values, so that the prediction stays monotone */
      double lo = a < b ? a : b, hi = a < b ? b : a;
      out[i] = v < lo ? lo : (v > hi ? hi : v);
    }
  }
  return outside;
}

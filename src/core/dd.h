/*
 * Error-free transformations and wide-exponent double-double numbers.
 *
 * two_sum() and two_prod_err() give the rounding error of a sum and of a
 * product exactly, so a pair (hi, lo) carries about 106 bits. An `xdd`
 * adds a separate exponent: (hi + lo) * 2^e with 0.5 <= |hi| < 1, so that
 * sums and products of any doubles (weights from 2^-1074 to 2^1024 times
 * values as large) neither overflow nor lose their low bits to underflow.
 * It is for the rare inputs that leave the range the fast paths keep to;
 * each operation costs a few library calls.
 */
#ifndef GPUISO_DD_H
#define GPUISO_DD_H

#include <math.h>
#include <stdint.h>

/* a + b == *s + *e exactly (Knuth's two-sum). */
static inline void two_sum(double a, double b, double *s, double *e)
{
  double t = a + b, bb = t - a;
  *e = (a - (t - bb)) + (b - bb);
  *s = t;
}

/* The rounding error of p = a * b, exactly (when a * b neither overflows
 * nor underflows): one fused multiply-add where the compiler may use one
 * (-mfma and the like), else Dekker's product, as R's default flags target
 * processors without FMA. */
static inline double two_prod_err(double a, double b, double p)
{
#ifdef FP_FAST_FMA
  return fma(a, b, -p);
#else
  const double split = 134217729.0; /* 2^27 + 1 */
  double ca = split * a, ah = ca - (ca - a), al = a - ah;
  double cb = split * b, bh = cb - (cb - b), bl = b - bh;
  return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
#endif
}

/* a * b == return + *err exactly, barring over- and underflow. */
static inline double two_prod(double a, double b, double *err)
{
  double p = a * b;
  *err = two_prod_err(a, b, p);
  return p;
}

/* The window in which the fast passes (pava.c, vjp.c) and the GPU engine
 * are exact to their rule: nonzero magnitudes in [2^-200, 2^200]. Products
 * then lie in [2^-400, 2^400] with their rounding errors above 2^-460,
 * and sums of up to 2^63 of them and their cross products with weights
 * stay well inside the normal range. 1 for a value outside it. */
static inline int outside_window(double a)
{
  a = fabs(a);
  return (a > 0x1p200) | ((a < 0x1p-200) & (a != 0.0));
}

/* 1 when a is 0 or |a| lies in that window: unlike !outside_window(a),
 * 0 for NaN (and Inf), so that one test also tells a is finite. */
static inline int in_window(double a)
{
  a = fabs(a);
  return (a <= 0x1p200) & ((a >= 0x1p-200) | (a == 0.0));
}

/* (hi + lo) * 2^e; zero is hi = lo = 0, e = 0. */
typedef struct {
  double hi, lo;
  int64_t e;
} xdd;

static const xdd xdd_zero = {0.0, 0.0, 0};

/* (hi + lo) * 2^e brought to the form 0.5 <= |hi| < 1, |lo| <= ulp(hi)/2.
 * Parts of lo below 2^-1074 of hi are dropped (relatively 2^-1000). */
static inline xdd xdd_norm(double hi, double lo, int64_t e)
{
  xdd r;
  two_sum(hi, lo, &r.hi, &r.lo);
  if (r.hi == 0.0) return xdd_zero;
  int k;
  r.hi = frexp(r.hi, &k);
  r.lo = ldexp(r.lo, -k);
  r.e = e + k;
  return r;
}

static inline xdd xdd_of(double a)
{
  if (a == 0.0) return xdd_zero;
  xdd r;
  int k;
  r.hi = frexp(a, &k);
  r.lo = 0.0;
  r.e = k;
  return r;
}

/* a * b, exactly, for any finite doubles. */
static inline xdd xdd_prod(double a, double b)
{
  if (a == 0.0 || b == 0.0) return xdd_zero;
  int ka, kb;
  double ma = frexp(a, &ka), mb = frexp(b, &kb), p = ma * mb;
  return xdd_norm(p, two_prod_err(ma, mb, p), (int64_t) ka + kb);
}

/* x * 2^d for d <= 0, as a double (0 when far below). */
static inline double scale_down(double x, int64_t d)
{
  return d < -1100 ? 0.0 : ldexp(x, (int) d);
}

static inline xdd xdd_add(xdd a, xdd b)
{
  if (b.hi == 0.0) return a;
  if (a.hi == 0.0) return b;
  if (a.e < b.e) {
    xdd t = a;
    a = b;
    b = t;
  }
  int64_t d = b.e - a.e;
  double bh = scale_down(b.hi, d), bl = scale_down(b.lo, d), s, err;
  two_sum(a.hi, bh, &s, &err);
  return xdd_norm(s, err + (a.lo + bl), a.e);
}

static inline xdd xdd_neg(xdd a)
{
  a.hi = -a.hi;
  a.lo = -a.lo;
  return a;
}

static inline xdd xdd_mul(xdd a, xdd b)
{
  if (a.hi == 0.0 || b.hi == 0.0) return xdd_zero;
  double p = a.hi * b.hi;
  double err = two_prod_err(a.hi, b.hi, p) + (a.hi * b.lo + a.lo * b.hi);
  return xdd_norm(p, err, a.e + b.e);
}

/* a / b (b not zero): the quotient of the hi parts corrected by the
 * remainder. */
static inline xdd xdd_div(xdd a, xdd b)
{
  if (a.hi == 0.0) return xdd_zero;
  double q = a.hi / b.hi, p = q * b.hi;
  double r = (((a.hi - p) - two_prod_err(q, b.hi, p)) + a.lo) - q * b.lo;
  return xdd_norm(q, r / b.hi, a.e - b.e);
}

/* Is a >= b, with a difference below 2^-80 of the larger a tie (>=)? */
static inline int xdd_geq(xdd a, xdd b)
{
  xdd d = xdd_add(a, xdd_neg(b));
  if (d.hi >= 0.0) return 1;
  /* the larger exponent of the nonzero ones (zero's is meaningless) */
  int64_t top = b.hi == 0.0 || (a.hi != 0.0 && a.e > b.e) ? a.e : b.e;
  return d.e < top - 80;
}

/* The double nearest to a (ties to even); +-Inf beyond the range. */
static inline double xdd_to_double(xdd a)
{
  if (a.hi == 0.0) return 0.0;
  if (a.e > 1024) return a.hi > 0 ? INFINITY : -INFINITY;
  if (a.e >= -1021) return ldexp(a.hi, (int) a.e); /* exact, or overflow */
  if (a.e < -1080) return a.hi * 0.0; /* below half the least subnormal */
  /* Subnormal: ldexp rounds hi once, to nearest; only where hi lies half
   * way between two subnormals can lo say that was the wrong way. */
  double r = ldexp(a.hi, (int) a.e);
  double t = a.hi - ldexp(r, (int) -a.e); /* exact */
  double half = ldexp(0.5, (int) (-1074 - a.e)); /* half an ulp at hi's scale */
  if (t == half && a.lo > 0.0) r = nextafter(r, INFINITY);
  else if (t == -half && a.lo < 0.0) r = nextafter(r, -INFINITY);
  return r;
}

#endif

/*
 * Sums of non-negative doubles anywhere in double's range, and their
 * ratios, for IDR's sweep (idr.c, where its weights span at most 104 bits:
 * every sum then exact) and the pooling of tied scores (pool.c, which
 * notes roundings and falls back to gi_big.h).
 *
 * A gi_xnum is (h + l) 2^e: a double-double mantissa (h the rounded value,
 * l the exact rest) and an exponent of its own, a multiple of 256, so that
 * neither a sum of DBL_MAX weights overflows nor a sum of subnormal ones
 * loses bits: every number keeps its mantissa near 1 (|h| within
 * [2^-128, 2^192)). Numbers of one exponent add as plain double-doubles
 * (the case of every problem whose weights span less than 2^128, after one
 * scaling by a power of two); others are aligned first.
 *
 * Accuracy: an addition is exact whenever the exact sum is a double-double
 * (the sum of any weights whose set bits span at most about 104 binary
 * places, such as counts, integers, or n weights within a factor
 * 2^50 / n of each other); otherwise the sum is correct to about 2^-106 of
 * itself. Comparisons of ratios (gi_xle) are exact for the sums as they
 * are, and gi_xdiv() is their correctly rounded ratio, subnormal results
 * included, whenever no term of the check falls below 2^-1022 (which needs
 * a sum whose low part is below 2^-900 of its high part: inexact sums only).
 */
#ifndef GPUISO_XNUM_H
#define GPUISO_XNUM_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "dd.h" /* two_sum(), two_prod() */

typedef struct {
  double h, l;
  int e;
} gi_xnum;

#if defined(__GNUC__) || defined(__clang__)
#define GI_XNOINLINE __attribute__((noinline))
#define GI_XINLINE inline __attribute__((always_inline))
#else
#define GI_XNOINLINE
#define GI_XINLINE inline
#endif

#define GI_XSTEP 256
#define GI_XBIG 0x1p192

/* The nearest multiple of GI_XSTEP to k. */
static inline int gi_xround(int k)
{
  return (int) floor((k + GI_XSTEP / 2) / (double) GI_XSTEP) * GI_XSTEP;
}

/* w 2^-shift as a gi_xnum, exactly (w >= 0, finite). `scale` is 2^-shift
 * where that is a normal double, else 0: one multiplication then covers
 * the weights within 2^128 of the scale. */
static GI_XINLINE gi_xnum gi_xnum_of(double w, int shift, double scale)
{
  gi_xnum r = {0.0, 0.0, 0};
  if (w == 0.0) return r;
  double h = w * scale; /* exact wherever it is normal */
  if (h >= 0x1p-128 && h < 0x1p128) {
    r.h = h;
    return r;
  }
  r.e = gi_xround(ilogb(w) - shift);
  r.h = ldexp(w, -shift - r.e);
  return r;
}

/* The `scale` of gi_xnum_of() for a shift. */
static inline double gi_xscale(int shift)
{
  return shift > -1000 && shift < 1000 ? ldexp(1.0, -shift) : 0.0;
}

/* a * b as a gi_xnum, exactly (a, b >= 0, finite). */
static GI_XINLINE gi_xnum gi_xnum_prod(double a, double b)
{
  gi_xnum r = {0.0, 0.0, 0};
  if (a == 0.0 || b == 0.0) return r;
  double p = a * b, err;
  if (p >= 0x1p-900 && p <= 0x1p900 && a <= 0x1p900 && b <= 0x1p900) {
    /* no term of the product underflows, no split overflows */
    p = two_prod(a, b, &err);
    if (p >= 0x1p-128 && p < 0x1p128) {
      r.h = p;
      r.l = err;
      return r;
    }
    r.e = gi_xround(ilogb(p));
    r.h = ldexp(p, -r.e);
    r.l = ldexp(err, -r.e);
    return r;
  }
  int ka, kb;
  double ma = frexp(a, &ka), mb = frexp(b, &kb);
  p = two_prod(ma, mb, &err); /* in [0.25, 1), err in scale */
  int E = ka + kb;
  r.e = gi_xround(E - 1);
  r.h = ldexp(p, E - r.e);
  r.l = ldexp(err, E - r.e);
  return r;
}

/* Brings b to a's exponent (a's is the larger); b's bits below 2^-1074 of
 * the new scale are lost (only where b is below 2^-800 of a's scale). */
static GI_XINLINE void gi_xalign(const gi_xnum *a, gi_xnum *b)
{
  int d = a->e - b->e;
  b->h = ldexp(b->h, -d);
  b->l = ldexp(b->l, -d);
  b->e = a->e;
}

static inline void gi_xrenorm(gi_xnum *r)
{
  r->h = ldexp(r->h, -GI_XSTEP);
  r->l = ldexp(r->l, -GI_XSTEP);
  r->e += GI_XSTEP;
}

/* a + b, for a, b >= 0. */
static GI_XINLINE gi_xnum gi_xadd(gi_xnum a, gi_xnum b)
{
  if (b.h == 0.0) return a;
  if (a.h == 0.0) return b;
  if (a.e != b.e) {
    if (a.e > b.e) gi_xalign(&a, &b); else gi_xalign(&b, &a);
  }
  double s, t;
  two_sum(a.h, b.h, &s, &t);
  t += a.l + b.l;
  gi_xnum r;
  r.h = s + t;
  r.l = t - (r.h - s);
  r.e = a.e;
  if (r.h >= GI_XBIG) gi_xrenorm(&r);
  return r;
}

/* a + b as gi_xadd(), and *inexact set to 1 where the result is not the
 * exact sum. */
static GI_XINLINE gi_xnum gi_xadd_chk(gi_xnum a, gi_xnum b, int *inexact)
{
  if (b.h == 0.0) return a;
  if (a.h == 0.0) return b;
  if (a.e != b.e) {
    gi_xnum *lo = a.e > b.e ? &b : &a, *hi = a.e > b.e ? &a : &b;
    gi_xnum keep = *lo;
    gi_xalign(hi, lo);
    if (ldexp(lo->h, hi->e - keep.e) != keep.h || ldexp(lo->l, hi->e - keep.e) != keep.l)
      *inexact = 1;
  }
  double s, t, u, v, x, y;
  two_sum(a.h, b.h, &s, &t);
  two_sum(a.l, b.l, &u, &v);
  two_sum(t, u, &x, &y);
  if (v != 0.0 || y != 0.0) *inexact = 1;
  gi_xnum r;
  r.h = s + x;
  r.l = x - (r.h - s);
  r.e = a.e;
  if (r.h >= GI_XBIG) {
    double h0 = r.h, l0 = r.l;
    gi_xrenorm(&r);
    if (ldexp(r.h, GI_XSTEP) != h0 || ldexp(r.l, GI_XSTEP) != l0) *inexact = 1;
  }
  return r;
}

/* The sign of the exact sum of x[0..n) (n <= 24): Shewchuk's expansion
 * growth with zero elimination; the largest component decides. */
static inline int gi_sign_sum(const double *x, int n)
{
  double e[24];
  int m = 0;
  for (int i = 0; i < n; i++) {
    double q = x[i];
    int k = 0;
    for (int j = 0; j < m; j++) {
      double s, t;
      two_sum(q, e[j], &s, &t);
      if (t != 0.0) e[k++] = t;
      q = s;
    }
    if (q != 0.0) e[k++] = q;
    m = k;
  }
  return m == 0 ? 0 : (e[m - 1] > 0.0 ? 1 : -1);
}

/* (m + l) 2^E with m in [0.5, 1): a positive gi_xnum normalised. */
typedef struct {
  double m, l;
  int E;
} gi_xnorm_t;

static inline gi_xnorm_t gi_xnorm(gi_xnum a)
{
  gi_xnorm_t r;
  int k;
  r.m = frexp(a.h, &k);
  r.l = ldexp(a.l, -k);
  r.E = a.e + k;
  return r;
}

/* Appends the two exact parts of s * a * b (s = +-1, exact) to x. */
static inline int gi_push_prod(double *x, int n, double a, double b, double s)
{
  double err, p = two_prod(a, b, &err);
  x[n++] = s * p;
  x[n++] = s * err;
  return n;
}

/* The sign of a b - c d for a, b, c, d > 0, exactly for the numbers as
 * they are. */
static GI_XNOINLINE int gi_xcmp_prod(gi_xnum a, gi_xnum b, gi_xnum c, gi_xnum d)
{
  gi_xnorm_t A = gi_xnorm(a), B = gi_xnorm(b), C = gi_xnorm(c), D = gi_xnorm(d);
  int dE = (A.E + B.E) - (C.E + D.E);
  /* each product of normalised mantissas lies in [0.25 - 2^-53, 1 + 2^-52] */
  if (dE >= 3) return 1;
  if (dE <= -3) return -1;
  double sc = ldexp(1.0, dE), x[16];
  int n = 0;
  n = gi_push_prod(x, n, A.m * sc, B.m, 1.0);
  n = gi_push_prod(x, n, A.m * sc, B.l, 1.0);
  n = gi_push_prod(x, n, A.l * sc, B.m, 1.0);
  n = gi_push_prod(x, n, A.l * sc, B.l, 1.0);
  n = gi_push_prod(x, n, C.m, D.m, -1.0);
  n = gi_push_prod(x, n, C.m, D.l, -1.0);
  n = gi_push_prod(x, n, C.l, D.m, -1.0);
  n = gi_push_prod(x, n, C.l, D.l, -1.0);
  return gi_sign_sum(x, n);
}

static inline int gi_xsame(gi_xnum a, gi_xnum b)
{
  return a.h == b.h && a.l == b.l && a.e == b.e;
}

/* The exact test of gi_xle(), out of line. */
static GI_XNOINLINE int gi_xle_exact(gi_xnum c1, gi_xnum w1, gi_xnum c2, gi_xnum w2)
{
  /* two means of exactly 1 (common in IDR: every observation on) */
  if (gi_xsame(c1, w1) && gi_xsame(c2, w2)) return 1;
  if (c1.e + w2.e != c2.e + w1.e) return gi_xcmp_prod(c1, w2, c2, w1) <= 0;
  double x[16];
  int n = 0;
  n = gi_push_prod(x, n, c1.h, w2.h, 1.0);
  n = gi_push_prod(x, n, c2.h, w1.h, -1.0);
  if (c1.l != 0.0 || w2.l != 0.0 || c2.l != 0.0 || w1.l != 0.0) {
    n = gi_push_prod(x, n, c1.h, w2.l, 1.0);
    n = gi_push_prod(x, n, c1.l, w2.h, 1.0);
    n = gi_push_prod(x, n, c1.l, w2.l, 1.0);
    n = gi_push_prod(x, n, c2.h, w1.l, -1.0);
    n = gi_push_prod(x, n, c2.l, w1.h, -1.0);
    n = gi_push_prod(x, n, c2.l, w1.l, -1.0);
  }
  return gi_sign_sum(x, n) <= 0;
}

/* c1 / w1 <= c2 / w2, for c >= 0 and w > 0: a cheap test where the
 * products are far apart (each is within 2^-51 of its high parts'
 * product), the exact sign of the difference of the products otherwise
 * (its terms formed directly where the exponents agree: the mantissas are
 * within [2^-128, 2^192], so no term under- or overflows unless a low part
 * is below 2^-800 of its high part). */
static GI_XINLINE int gi_xle(gi_xnum c1, gi_xnum w1, gi_xnum c2, gi_xnum w2)
{
  if (c1.h == 0.0) return 1;
  if (c2.h == 0.0) return 0;
  if (c1.e + w2.e == c2.e + w1.e) {
    double p = c1.h * w2.h, q = c2.h * w1.h;
    if (p < q * (1.0 - 0x1p-48)) return 1;
    if (p > q * (1.0 + 0x1p-48)) return 0;
  }
  return gi_xle_exact(c1, w1, c2, w2);
}

/* The sign of (cm + cl) - (N u + h)(wm + wl) with h = +-u/2, exactly (the
 * midpoint test of gi_xdiv()). */
static int gi_xdiv_side(gi_xnorm_t C, gi_xnorm_t W, double Nu, double h)
{
  double x[8];
  int n = 0;
  x[n++] = C.m;
  x[n++] = C.l;
  n = gi_push_prod(x, n, Nu, W.m, -1.0);
  n = gi_push_prod(x, n, Nu, W.l, -1.0);
  x[n++] = -h * W.m; /* h a power of two: exact */
  x[n++] = -h * W.l;
  return gi_sign_sum(x, n);
}

/* c / w correctly rounded (ties to even), subnormal results included, for
 * c >= 0 and w > 0; +Inf where it overflows. The slow path: a quotient
 * good to about 2^-100, rounded, then checked against the midpoints on
 * either side exactly. */
static GI_XNOINLINE double gi_xdiv_slow(gi_xnum c, gi_xnum w)
{
  gi_xnorm_t C = gi_xnorm(c), W = gi_xnorm(w);
  int s = C.E - W.E; /* the result is q 2^s, q = C / W in (0.49, 2.01) */
  double pe, q0 = C.m / W.m, p = two_prod(q0, W.m, &pe);
  double r = ((C.m - p) - pe) + (C.l - q0 * W.l);
  double qa = q0 + r / W.m;
  int kq;
  (void) frexp(qa, &kq); /* qa in [2^(kq-1), 2^kq) */
  int k = kq - 1 + s;    /* the result's binary exponent, or one off */
  if (k > 1025) return INFINITY;
  if (k < -1078) return 0.0;
  /* the spacing of the doubles there, in the scale of q */
  int uexp = k >= -1022 ? kq - 53 : -1074 - s;
  double u = ldexp(1.0, uexp);
  double N = nearbyint(qa / u);
  for (int it = 0; it < 4; it++) {
    int up = gi_xdiv_side(C, W, N * u, 0.5 * u);
    if (up > 0) { N += 1.0; continue; }
    if (up == 0) { if (fmod(N, 2.0) != 0.0) N += 1.0; break; }
    int dn = N > 0.0 ? gi_xdiv_side(C, W, N * u, -0.5 * u) : 1;
    if (dn < 0) { N -= 1.0; continue; }
    if (dn == 0 && fmod(N, 2.0) != 0.0) N -= 1.0;
    break;
  }
  /* N u 2^s: exact in the normal range (N < 2^54, and N = 2^53 only at a
   * power of two) and on the subnormal grid */
  return ldexp(N * u, s);
}

/* c / w correctly rounded (see gi_xdiv_slow()), with fast paths: one IEEE
 * division where both are doubles of one scale, a double-double quotient
 * where it is clearly away from a midpoint. */
static GI_XINLINE double gi_xdiv(gi_xnum c, gi_xnum w)
{
  if (c.h == 0.0) return 0.0;
  if (c.e == w.e) {
    double q0 = c.h / w.h;
    if (q0 >= 0x1p-1000) {
      if (c.l == 0.0 && w.l == 0.0) return q0;
      double pe, p = two_prod(q0, w.h, &pe);
      double r = ((c.h - p) - pe) + (c.l - q0 * w.l);
      double q1 = r / w.h, R = q0 + q1, d = (q0 - R) + q1;
      uint64_t bits;
      memcpy(&bits, &R, sizeof bits);
      bits &= 0x7ff0000000000000ull;
      double top;
      memcpy(&top, &bits, sizeof top); /* 2^floor(log2 R) */
      /* half the spacing on d's side of R (half as much below a power of
       * two), less the quotient's own error */
      double half = (R == top && d < 0.0) ? top * 0x1p-54 : top * 0x1p-53;
      if (fabs(d) < half - R * 0x1p-96) return R;
    }
  }
  return gi_xdiv_slow(c, w);
}

/* The double nearest to a (ties to even), +Inf where it overflows. */
static inline double gi_xround_double(gi_xnum a)
{
  gi_xnum one = {1.0, 0.0, 0};
  return gi_xdiv(a, one);
}

#endif

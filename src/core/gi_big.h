/*
 * Exact sums of products w * y (w any finite double >= 0, 0 <= y <= 1) as
 * fixed-point integers, and their correctly rounded ratios: the fallback of
 * the pooling of tied scores (pool.c) where a double-double sum would round.
 *
 * A gi_big is a non-negative integer in units of 2^GI_BIG_LOW, in 64-bit
 * limbs, least significant first. Every such product is a multiple of
 * 2^-2148 below 2^1024, so GI_BIG_LIMBS limbs hold the sum of 2^63 of them.
 */
#ifndef GPUISO_BIG_H
#define GPUISO_BIG_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "gi_xnum.h"

#define GI_BIG_LIMBS 54
#define GI_BIG_LOW (-2176)
#define GI_BIG_WORK 128 /* limbs of the scratch numbers of a comparison */

typedef struct {
  uint64_t v[GI_BIG_LIMBS];
} gi_big;

/* x = M 2^E with M an integer below 2^53 (x >= 0, finite). */
static inline void gi_big_split(double x, uint64_t *M, int *E)
{
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  int ex = (int) ((b >> 52) & 0x7ff);
  *M = b & (((uint64_t) 1 << 52) - 1);
  if (ex != 0) {
    *M |= (uint64_t) 1 << 52;
    *E = ex - 1075;
  } else {
    *E = -1074;
  }
}

/* a * b as (hi, lo), 128 bits. */
static inline void gi_mul64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
#if defined(__SIZEOF_INT128__)
  unsigned __int128 p = (unsigned __int128) a * b;
  *hi = (uint64_t) (p >> 64);
  *lo = (uint64_t) p;
#else
  uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
  uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  *lo = (p00 & 0xffffffffu) | (mid << 32);
  *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
#endif
}

/* v[k..] += x, carrying (n limbs). */
static inline void gi_limbs_add_at(uint64_t *v, int n, int k, uint64_t x)
{
  while (x != 0 && k < n) {
    uint64_t s = v[k] + x;
    x = s < x ? 1 : 0;
    v[k++] = s;
  }
}

/* b += w * y, exactly. */
static inline void gi_big_add_prod(gi_big *b, double w, double y)
{
  if (w == 0.0 || y == 0.0) return;
  uint64_t Mw, My, hi, lo;
  int Ew, Ey;
  gi_big_split(w, &Mw, &Ew);
  gi_big_split(y, &My, &Ey);
  gi_mul64(Mw, My, &hi, &lo);
  int pos = Ew + Ey - GI_BIG_LOW; /* >= 28 */
  int k = pos / 64, s = pos % 64;
  uint64_t l0 = lo << s;
  uint64_t l1 = s ? (hi << s) | (lo >> (64 - s)) : hi;
  uint64_t l2 = s ? hi >> (64 - s) : 0;
  gi_limbs_add_at(b->v, GI_BIG_LIMBS, k, l0);
  gi_limbs_add_at(b->v, GI_BIG_LIMBS, k + 1, l1);
  gi_limbs_add_at(b->v, GI_BIG_LIMBS, k + 2, l2);
}

/* The index of the highest non-zero limb of v[0..n), or -1. */
static inline int gi_limbs_top(const uint64_t *v, int n)
{
  int k = n - 1;
  while (k >= 0 && v[k] == 0) k--;
  return k;
}

/* A gi_xnum within 2^-100 of the value of limbs v (units 2^low): the top
 * three limbs, in 32-bit pieces (exact doubles). */
static inline gi_xnum gi_limbs_approx(const uint64_t *v, int n, int low)
{
  gi_xnum r = {0.0, 0.0, 0};
  int top = gi_limbs_top(v, n);
  for (int k = top; k >= 0 && k > top - 3; k--) {
    for (int half = 1; half >= 0; half--) {
      double piece = (double) (half ? v[k] >> 32 : v[k] & 0xffffffffu);
      if (piece == 0.0) continue;
      int pos = low + 64 * k + 32 * half; /* piece 2^pos */
      gi_xnum t;
      t.e = gi_xround(ilogb(piece) + pos);
      t.h = ldexp(piece, pos - t.e);
      t.l = 0.0;
      r = gi_xadd(r, t);
    }
  }
  return r;
}

/* out = v * m (v of n limbs, out of n + 1). */
static inline void gi_limbs_mul_small(const uint64_t *v, int n, uint64_t m, uint64_t *out)
{
  uint64_t carry = 0;
  for (int k = 0; k < n; k++) {
    uint64_t hi, lo;
    gi_mul64(v[k], m, &hi, &lo);
    lo += carry;
    hi += lo < carry ? 1 : 0;
    out[k] = lo;
    carry = hi;
  }
  out[n] = carry;
}

/* out[0..nout) = v[0..n) 2^s (s >= 0; out zeroed first, bits beyond nout
 * must not exist). */
static inline void gi_limbs_shift(const uint64_t *v, int n, int s, uint64_t *out, int nout)
{
  memset(out, 0, (size_t) nout * sizeof(uint64_t));
  int k = s / 64, b = s % 64;
  for (int i = 0; i < n; i++) {
    if (v[i] == 0) continue;
    if (i + k < nout) out[i + k] |= v[i] << b;
    if (b && i + k + 1 < nout) out[i + k + 1] |= v[i] >> (64 - b);
  }
}

static inline int gi_limbs_cmp(const uint64_t *a, const uint64_t *b, int n)
{
  for (int k = n - 1; k >= 0; k--) {
    if (a[k] != b[k]) return a[k] > b[k] ? 1 : -1;
  }
  return 0;
}

/* The sign of N - K D 2^t for an integer K < 2^60, exactly. */
static int gi_big_side(const gi_big *N, const gi_big *D, uint64_t K, int t)
{
  uint64_t P[GI_BIG_LIMBS + 1], A[GI_BIG_WORK], B[GI_BIG_WORK];
  gi_limbs_mul_small(D->v, GI_BIG_LIMBS, K, P);
  /* both sides as integers: N 2^max(-t, 0) against P 2^max(t, 0) */
  int sn = t < 0 ? -t : 0, sp = t > 0 ? t : 0;
  int bits_n = 64 * (gi_limbs_top(N->v, GI_BIG_LIMBS) + 1) + sn;
  int bits_p = 64 * (gi_limbs_top(P, GI_BIG_LIMBS + 1) + 1) + sp;
  if (bits_n > 64 * GI_BIG_WORK || bits_p > 64 * GI_BIG_WORK)
    return bits_n > bits_p ? 1 : -1; /* far apart: the longer wins */
  gi_limbs_shift(N->v, GI_BIG_LIMBS, sn, A, GI_BIG_WORK);
  gi_limbs_shift(P, GI_BIG_LIMBS + 1, sp, B, GI_BIG_WORK);
  return gi_limbs_cmp(A, B, GI_BIG_WORK);
}

/* K and t with x = K 2^t, K an integer below 2^53 (x > 0 finite). */
static inline void gi_double_int(double x, uint64_t *K, int *t)
{
  gi_big_split(x, K, t);
}

/* N / D correctly rounded (ties to even), +Inf where it overflows; D > 0. */
static double gi_big_div(const gi_big *N, const gi_big *D)
{
  if (gi_limbs_top(N->v, GI_BIG_LIMBS) < 0) return 0.0;
  /* a candidate within one double of the quotient, then the midpoints on
   * either side checked exactly */
  gi_xnum n = gi_limbs_approx(N->v, GI_BIG_LIMBS, GI_BIG_LOW);
  gi_xnum d = gi_limbs_approx(D->v, GI_BIG_LIMBS, GI_BIG_LOW);
  double R = gi_xdiv(n, d);
  for (int it = 0; it < 4; it++) {
    if (isinf(R)) {
      /* above DBL_MAX and its midpoint with 2^1024? */
      uint64_t K;
      int t;
      gi_double_int(DBL_MAX, &K, &t);
      if (gi_big_side(N, D, 2 * K + 1, t - 1) < 0) { R = DBL_MAX; continue; }
      return R;
    }
    uint64_t K;
    int t;
    if (R == 0.0) {
      /* 0 or the smallest subnormal: the midpoint is 2^-1075 */
      int up = gi_big_side(N, D, 1, -1075);
      if (up > 0) { R = nextafter(0.0, 1.0); continue; }
      return 0.0;
    }
    gi_double_int(R, &K, &t);
    int up = gi_big_side(N, D, 2 * K + 1, t - 1);
    if (up > 0) { R = nextafter(R, INFINITY); continue; }
    if (up == 0) return (K & 1) ? nextafter(R, INFINITY) : R;
    /* below: the spacing halves under a power of two (normal range) */
    int pow2 = K == ((uint64_t) 1 << 52) && t > -1074;
    int dn = pow2 ? gi_big_side(N, D, 4 * K - 1, t - 2)
                  : gi_big_side(N, D, 2 * K - 1, t - 1);
    if (dn < 0) { R = nextafter(R, 0.0); continue; }
    if (dn == 0) return (K & 1) ? nextafter(R, 0.0) : R;
    return R;
  }
  return R;
}

/* The double nearest to b (ties to even), +Inf where it overflows. */
static double gi_big_round(const gi_big *b)
{
  gi_big one;
  memset(&one, 0, sizeof one);
  gi_big_add_prod(&one, 1.0, 1.0);
  return gi_big_div(b, &one);
}

#endif

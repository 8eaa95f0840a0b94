/*
 * Exact sums of non-negative doubles (and of products w * y with
 * 0 <= y <= 1) as fixed-point integers, compared and divided exactly: the
 * fallback of the pooling of tied scores (pool.c) where a double-double sum
 * would round, and the sums of IDR's sweep (idr.c) where its weights spread
 * over more bits than a double-double holds.
 *
 * A number is n 64-bit limbs, least significant first: a non-negative
 * integer in units of 2^low, the unit chosen by the caller (every summand
 * a multiple of it). gi_big is the fixed size of the pooling: every
 * product w * y is a multiple of 2^-2148 below 2^1024, so GI_BIG_LIMBS
 * limbs in units of 2^GI_BIG_LOW hold the sum of 2^63 of them.
 */
#ifndef GPUISO_BIG_H
#define GPUISO_BIG_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "gi_xnum.h"

#define GI_BIG_LIMBS 54
#define GI_BIG_LOW (-2176)

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

/* v += (hi 2^64 + lo) 2^pos (pos >= 0). */
static inline void gi_limbs_add_bits(uint64_t *v, int n, uint64_t hi, uint64_t lo, int pos)
{
  int k = pos / 64, s = pos % 64;
  uint64_t l0 = lo << s;
  uint64_t l1 = s ? (hi << s) | (lo >> (64 - s)) : hi;
  uint64_t l2 = s ? hi >> (64 - s) : 0;
  gi_limbs_add_at(v, n, k, l0);
  gi_limbs_add_at(v, n, k + 1, l1);
  gi_limbs_add_at(v, n, k + 2, l2);
}

/* v += w * y exactly, in units of 2^low (the product a multiple of it). */
static inline void gi_limbs_add_prod(uint64_t *v, int n, int low, double w, double y)
{
  if (w == 0.0 || y == 0.0) return;
  uint64_t Mw, My, hi, lo;
  int Ew, Ey;
  gi_big_split(w, &Mw, &Ew);
  gi_big_split(y, &My, &Ey);
  gi_mul64(Mw, My, &hi, &lo);
  gi_limbs_add_bits(v, n, hi, lo, Ew + Ey - low); /* the caller's unit: >= 0 */
}

/* w > 0 (finite) as M 2^E with M odd. */
static inline void gi_big_split_odd(double w, uint64_t *M, int *E)
{
  gi_big_split(w, M, E);
  while (!(*M & 1)) {
    *M >>= 1;
    (*E)++;
  }
}

/* The exponent of the lowest set bit of w > 0 (finite). */
static inline int gi_low_bit(double w)
{
  uint64_t M;
  int E;
  gi_big_split_odd(w, &M, &E);
  return E;
}

/* v += w exactly, in units of 2^low (w >= 0 a multiple of 2^low). */
static inline void gi_limbs_add_double(uint64_t *v, int n, int low, double w)
{
  if (w == 0.0) return;
  uint64_t M;
  int E;
  gi_big_split_odd(w, &M, &E);
  gi_limbs_add_bits(v, n, 0, M, E - low);
}

/* a += b (n limbs; no carry out of the top). */
static inline void gi_limbs_add(uint64_t *a, const uint64_t *b, int n)
{
  uint64_t carry = 0;
  for (int k = 0; k < n; k++) {
    uint64_t s = a[k] + carry;
    uint64_t c1 = s < carry;
    uint64_t t = s + b[k];
    carry = c1 + (t < s);
    a[k] = t;
  }
}

/* The index of the highest non-zero limb of v[0..n), or -1. */
static inline int gi_limbs_top(const uint64_t *v, int n)
{
  int k = n - 1;
  while (k >= 0 && v[k] == 0) k--;
  return k;
}

/* The top 128 bits of v (n limbs), normalised: v is about
 * (H 2^64 + Lw) 2^E with the top bit of H set, short by less than 2^E
 * (v != 0). */
static inline void gi_limbs_top128(const uint64_t *v, int n, uint64_t *H, uint64_t *Lw, int *E)
{
  int k = gi_limbs_top(v, n);
  uint64_t a = v[k], b = k >= 1 ? v[k - 1] : 0, c = k >= 2 ? v[k - 2] : 0;
#if defined(__GNUC__) || defined(__clang__)
  int z = __builtin_clzll(a);
#else
  int z = 0;
  while (!(a >> (63 - z) & 1)) z++;
#endif
  *H = z ? (a << z) | (b >> (64 - z)) : a;
  *Lw = z ? (b << z) | (c >> (64 - z)) : b;
  *E = 64 * (k - 1) - z;
}

/* A gi_xnum within 2^-100 of the value of limbs v (units 2^low). */
static inline gi_xnum gi_limbs_approx(const uint64_t *v, int n, int low)
{
  gi_xnum r = {0.0, 0.0, 0};
  if (gi_limbs_top(v, n) < 0) return r;
  uint64_t H, Lw;
  int E;
  gi_limbs_top128(v, n, &H, &Lw, &E);
  /* H 2^64 + Lw = h + l exactly but for l's rounding: h the top 53 bits */
  double h = (double) (H & ~(uint64_t) 0x7ff) * 0x1p64;
  double l = (double) (H & 0x7ff) * 0x1p64 + (double) Lw;
  E += low; /* the value is (h + l) 2^E, h in [2^127, 2^128) */
  r.e = gi_xround(E + 127);
  r.h = ldexp(h, E - r.e);
  r.l = ldexp(l, E - r.e);
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

/* out[0..2n) = a * b (n limbs each). */
static inline void gi_limbs_mul(const uint64_t *a, const uint64_t *b, int n, uint64_t *out)
{
  memset(out, 0, (size_t) (2 * n) * sizeof(uint64_t));
  for (int i = 0; i < n; i++) {
    if (a[i] == 0) continue;
    uint64_t carry = 0;
    for (int j = 0; j < n; j++) {
      uint64_t hi, lo;
      gi_mul64(a[i], b[j], &hi, &lo);
      lo += carry;
      hi += lo < carry;
      uint64_t s = out[i + j] + lo;
      hi += s < lo;
      out[i + j] = s;
      carry = hi;
    }
    gi_limbs_add_at(out, 2 * n, i + n, carry);
  }
}

static inline int gi_limbs_cmp(const uint64_t *a, const uint64_t *b, int n)
{
  for (int k = n - 1; k >= 0; k--) {
    if (a[k] != b[k]) return a[k] > b[k] ? 1 : -1;
  }
  return 0;
}

/* Limb i of x 2^s (x of n limbs, s >= 0). */
static inline uint64_t gi_limb_shifted(const uint64_t *x, int n, int s, int i)
{
  int k = s / 64, b = s % 64, j = i - k;
  uint64_t lo = (j >= 0 && j < n) ? x[j] << b : 0;
  uint64_t hi = (b && j - 1 >= 0 && j - 1 < n) ? x[j - 1] >> (64 - b) : 0;
  return lo | hi;
}

/* The sign of N - K D 2^t for an integer K < 2^60, exactly (N, D of n
 * limbs, n <= GI_BIG_LIMBS): both sides as integers, N 2^max(-t, 0)
 * against K D 2^max(t, 0), compared from the top limb down. */
static int gi_limbs_side(const uint64_t *N, const uint64_t *D, int n, uint64_t K, int t)
{
  uint64_t P[GI_BIG_LIMBS + 1];
  gi_limbs_mul_small(D, n, K, P);
  int sn = t < 0 ? -t : 0, sp = t > 0 ? t : 0;
  int top = (n + 1) + (sn > sp ? sn : sp) / 64 + 1;
  for (int i = top; i >= 0; i--) {
    uint64_t a = gi_limb_shifted(N, n, sn, i), b = gi_limb_shifted(P, n + 1, sp, i);
    if (a != b) return a > b ? 1 : -1;
  }
  return 0;
}

/* N / D correctly rounded (ties to even), +Inf where it overflows; D > 0,
 * N and D of n limbs in one unit. */
static double gi_limbs_div(const uint64_t *N, const uint64_t *D, int n)
{
  if (gi_limbs_top(N, n) < 0) return 0.0;
  /* a candidate within one double of the quotient, then the midpoints on
   * either side checked exactly */
  gi_xnum a = gi_limbs_approx(N, n, 0), b = gi_limbs_approx(D, n, 0);
  double R = gi_xdiv(a, b);
  uint64_t K;
  int t;
  for (int it = 0; it < 4; it++) {
    if (isinf(R)) {
      /* above DBL_MAX and its midpoint with 2^1024? */
      gi_big_split(DBL_MAX, &K, &t);
      if (gi_limbs_side(N, D, n, 2 * K + 1, t - 1) < 0) { R = DBL_MAX; continue; }
      return R;
    }
    if (R == 0.0) {
      /* 0 or the smallest subnormal: the midpoint is 2^-1075 */
      if (gi_limbs_side(N, D, n, 1, -1075) > 0) { R = nextafter(0.0, 1.0); continue; }
      return 0.0;
    }
    gi_big_split(R, &K, &t);
    int up = gi_limbs_side(N, D, n, 2 * K + 1, t - 1);
    if (up > 0) { R = nextafter(R, INFINITY); continue; }
    if (up == 0) return (K & 1) ? nextafter(R, INFINITY) : R;
    /* below: the spacing halves under a power of two (normal range) */
    int pow2 = K == ((uint64_t) 1 << 52) && t > -1074;
    int dn = pow2 ? gi_limbs_side(N, D, n, 4 * K - 1, t - 2)
                  : gi_limbs_side(N, D, n, 2 * K - 1, t - 1);
    if (dn < 0) { R = nextafter(R, 0.0); continue; }
    if (dn == 0) return (K & 1) ? nextafter(R, 0.0) : R;
    return R;
  }
  return R;
}

/* c1 / w1 <= c2 / w2 exactly (n limbs each, c >= 0, w > 0): approximate
 * products where they are far apart, exact ones otherwise. */
static int gi_limbs_le(const uint64_t *c1, const uint64_t *w1, const uint64_t *c2,
                       const uint64_t *w2, int n)
{
  if (gi_limbs_top(c1, n) < 0) return 1;
  if (gi_limbs_top(c2, n) < 0) return 0;
  if (gi_limbs_cmp(c1, w1, n) == 0 && gi_limbs_cmp(c2, w2, n) == 0)
    return 1; /* two means of exactly 1 */
  /* the products of the top 64 bits of each, within 2^-62 of their
   * numbers: decided where they differ by more than 2^-45 */
  uint64_t H[4], Lw;
  int E[4];
  gi_limbs_top128(c1, n, &H[0], &Lw, &E[0]);
  gi_limbs_top128(w2, n, &H[1], &Lw, &E[1]);
  gi_limbs_top128(c2, n, &H[2], &Lw, &E[2]);
  gi_limbs_top128(w1, n, &H[3], &Lw, &E[3]);
  int dE = (E[0] + E[1]) - (E[2] + E[3]); /* mantissas in [2^63, 2^64) */
  if (dE >= 2) return 0;
  if (dE <= -2) return 1;
  double p = (double) H[0] * (double) H[1] * (dE == 1 ? 2.0 : dE == -1 ? 0.5 : 1.0);
  double q = (double) H[2] * (double) H[3];
  if (p < q * (1.0 - 0x1p-45)) return 1;
  if (p > q * (1.0 + 0x1p-45)) return 0;
  uint64_t P[2 * GI_BIG_LIMBS], Q[2 * GI_BIG_LIMBS];
  gi_limbs_mul(c1, w2, n, P);
  gi_limbs_mul(c2, w1, n, Q);
  return gi_limbs_cmp(P, Q, 2 * n) <= 0;
}

/* The pooling's fixed size. */
static inline void gi_big_add_prod(gi_big *b, double w, double y)
{
  gi_limbs_add_prod(b->v, GI_BIG_LIMBS, GI_BIG_LOW, w, y);
}

static inline void gi_big_add(gi_big *b, double w)
{
  gi_limbs_add_double(b->v, GI_BIG_LIMBS, GI_BIG_LOW, w);
}

static double gi_big_div(const gi_big *N, const gi_big *D)
{
  return gi_limbs_div(N->v, D->v, GI_BIG_LIMBS);
}

/* The double nearest to b (ties to even), +Inf where it overflows. */
static double gi_big_round(const gi_big *b)
{
  gi_big one;
  memset(&one, 0, sizeof one);
  gi_limbs_add_double(one.v, GI_BIG_LIMBS, GI_BIG_LOW, 1.0);
  return gi_big_div(b, &one);
}

#endif

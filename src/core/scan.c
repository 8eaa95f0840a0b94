/* Linear scans of the input: those that the R layer uses to report the
 * first bad input, and those that choose a path. */
#include <float.h>
#include <math.h>
#include "dd.h"
#include "gi_big.h" /* gi_low_bit() */
#include "gi_core.h"
#include "gi_omp.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Nonzero when v fails: not finite, or a check of `checks`. Branch-free,
 * so that the loop below vectorises. */
static GI_ALWAYS_INLINE int invalid(double v, int checks)
{
  double a = fabs(v);
  int f32 = (checks & GI_CHECK_F32) != 0, nonneg = (checks & GI_CHECK_NONNEG) != 0;
  int bad = !(a <= (f32 ? 3.4028234663852886e38 : DBL_MAX));
  if (nonneg) bad |= (v < 0) | (f32 & (v > 0) & (v <= 0x1p-150));
  return bad;
}

static GI_ALWAYS_INLINE int any_invalid(const double *x, gi_idx n, int checks)
{
  int bad = 0;
#pragma omp simd reduction(|:bad)
  for (gi_idx i = 0; i < n; i++) bad |= invalid(x[i], checks);
  return bad;
}

/* Runs of 1024 are tested as a whole, and only a failing run element by
 * element. */
static GI_ALWAYS_INLINE gi_idx first_in_as(const double *x, gi_idx lo, gi_idx hi, int checks)
{
  for (gi_idx j = lo; j < hi; j += 1024) {
    gi_idx e = j + 1024 < hi ? j + 1024 : hi;
    if (!any_invalid(x + j, e - j, checks)) continue;
    for (gi_idx i = j; i < e; i++)
      if (invalid(x[i], checks)) return i;
  }
  return -1;
}

static gi_idx first_in(const double *x, gi_idx lo, gi_idx hi, int checks)
{
  switch (checks & (GI_CHECK_NONNEG | GI_CHECK_F32)) {
  case 0: return first_in_as(x, lo, hi, 0);
  case GI_CHECK_NONNEG: return first_in_as(x, lo, hi, GI_CHECK_NONNEG);
  case GI_CHECK_F32: return first_in_as(x, lo, hi, GI_CHECK_F32);
  default: return first_in_as(x, lo, hi, GI_CHECK_NONNEG | GI_CHECK_F32);
  }
}

/* Long vectors are scanned in blocks spread over the threads; the first bad
 * element is the least index any block reports. */
#define GI_SCAN_BLOCK ((gi_idx) 1 << 16)

gi_idx gi_first_invalid(const double *x, gi_idx n, int checks, int nthreads)
{
  int nt = n < 4 * GI_SCAN_BLOCK ? 1 : gi_threads_cap(nthreads);
  if (nt <= 1) return first_in(x, 0, n, checks);
  gi_idx nblock = (n + GI_SCAN_BLOCK - 1) / GI_SCAN_BLOCK, first = n;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(min:first)
  for (gi_idx b = 0; b < nblock; b++) {
    gi_idx lo = b * GI_SCAN_BLOCK;
    if (lo >= first) continue;
    gi_idx hi = lo + GI_SCAN_BLOCK < n ? lo + GI_SCAN_BLOCK : n;
    gi_idx i = first_in(x, lo, hi, checks);
    if (i >= 0 && i < first) first = i;
  }
  return first < n ? first : -1;
}

/* all_in_window() of y[i..n), w[i..n) one element at a time: the tail
 * that the vector loops leave; *ok and *p as its result and *pos. */
static inline void tail_in_window(const double *y, const double *w, gi_idx i,
                                  gi_idx n, int *ok, int *p)
{
  for (; i < n; i++) {
    *ok &= in_window(y[i]);
    if (w != NULL) {
      *ok &= in_window(w[i]) & (w[i] >= 0.0);
      *p |= w[i] > 0;
    }
  }
}

/* The common case of the scan below: 1 when every y[i] is 0 or inside the
 * window and every w[i] is 0 or inside it and not negative (so nothing is
 * invalid and nothing outside); *pos is set when some w[i] is positive.
 * A weight needs no absolute value: w >= 2^-200 or w == 0 already fails
 * negative weights and NaN, and when every weight passes, some w is
 * positive exactly when some w >= 2^-200. With compare masks, two values
 * at a time (SSE2) or four (AVX2, asked at run time): compilers vectorise
 * neither this nor invalid() well, and in R a fit of 1e3 weighted points
 * spent 1.8 us here against 0.8 with two at a time. */
#if defined(__x86_64__) && !defined(_WIN32) && defined(__GNUC__) && \
    (defined(__clang__) || __GNUC__ >= 5)
#define GI_SCAN_AVX2 1
#include <immintrin.h>
__attribute__((target("avx2")))
static int all_in_window_avx2(const double *y, const double *w, gi_idx n,
                              int *pos)
{
  const __m256d hi = _mm256_set1_pd(0x1p200), lo = _mm256_set1_pd(0x1p-200),
                zero = _mm256_setzero_pd(), sign = _mm256_set1_pd(-0.0);
  __m256d all = _mm256_cmp_pd(zero, zero, _CMP_EQ_OQ), any = zero;
  gi_idx i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256d a = _mm256_andnot_pd(sign, _mm256_loadu_pd(y + i));
    __m256d in = _mm256_or_pd(_mm256_cmp_pd(a, lo, _CMP_GE_OQ),
                              _mm256_cmp_pd(a, zero, _CMP_EQ_OQ));
    in = _mm256_and_pd(_mm256_cmp_pd(a, hi, _CMP_LE_OQ), in);
    all = _mm256_and_pd(all, in);
    if (w != NULL) {
      __m256d b = _mm256_loadu_pd(w + i);
      __m256d ge = _mm256_cmp_pd(b, lo, _CMP_GE_OQ);
      in = _mm256_or_pd(ge, _mm256_cmp_pd(b, zero, _CMP_EQ_OQ));
      in = _mm256_and_pd(_mm256_cmp_pd(b, hi, _CMP_LE_OQ), in);
      all = _mm256_and_pd(all, in);
      any = _mm256_or_pd(any, ge);
    }
  }
  int ok = _mm256_movemask_pd(all) == 15, p = _mm256_movemask_pd(any) != 0;
  tail_in_window(y, w, i, n, &ok, &p);
  *pos |= p;
  return ok;
}
#else
#define GI_SCAN_AVX2 0
#endif

static int all_in_window(const double *y, const double *w, gi_idx n, int *pos)
{
#if GI_SCAN_AVX2
  if (__builtin_cpu_supports("avx2")) return all_in_window_avx2(y, w, n, pos);
#endif
  int ok = 1, p = 0;
  gi_idx i = 0;
#ifdef __SSE2__
  const __m128d hi = _mm_set1_pd(0x1p200), lo = _mm_set1_pd(0x1p-200),
                zero = _mm_setzero_pd(), sign = _mm_set1_pd(-0.0);
  __m128d all = _mm_cmpeq_pd(zero, zero), any = zero;
  for (; i + 2 <= n; i += 2) {
    __m128d a = _mm_andnot_pd(sign, _mm_loadu_pd(y + i));
    all = _mm_and_pd(all, _mm_and_pd(_mm_cmple_pd(a, hi),
                                     _mm_or_pd(_mm_cmpge_pd(a, lo),
                                               _mm_cmpeq_pd(a, zero))));
    if (w != NULL) {
      __m128d b = _mm_loadu_pd(w + i), ge = _mm_cmpge_pd(b, lo);
      all = _mm_and_pd(all, _mm_and_pd(_mm_cmple_pd(b, hi),
                                       _mm_or_pd(ge, _mm_cmpeq_pd(b, zero))));
      any = _mm_or_pd(any, ge);
    }
  }
  ok = _mm_movemask_pd(all) == 3;
  p = _mm_movemask_pd(any) != 0;
#endif
  tail_in_window(y, w, i, n, &ok, &p);
  *pos |= p;
  return ok;
}

/* Whether y[lo..hi) and w[lo..hi) hold nothing invalid; *pos is set when
 * some weight there is positive, *out when some nonzero |y| or weight
 * lies outside the window of dd.h (what the stack pass would scan for,
 * told here from values already loaded). Runs of 1024 are tested by
 * all_in_window(), and only a run that fails it element by element. */
static int inputs_ok_in(const double *y, const double *w, gi_idx lo,
                        gi_idx hi, int *pos, int *out)
{
  for (gi_idx j = lo; j < hi; j += 1024) {
    gi_idx e = j + 1024 < hi ? j + 1024 : hi;
    if (all_in_window(y + j, w == NULL ? NULL : w + j, e - j, pos)) continue;
    int bad = 0, p = 0, o = 0;
    for (gi_idx i = j; i < e; i++) {
      bad |= invalid(y[i], 0);
      o |= outside_window(y[i]);
      if (w != NULL) {
        bad |= invalid(w[i], GI_CHECK_NONNEG);
        p |= w[i] > 0;
        o |= outside_window(w[i]);
      }
    }
    *pos |= p;
    *out |= o;
    if (bad) return 0;
  }
  return 1;
}

int gi_fit_inputs_ok(const double *y, const double *w, gi_idx n, int nthreads,
                     int *inside)
{
  int pos = 0, ok = 1, out = 0;
  int nt = n < 4 * GI_SCAN_BLOCK ? 1 : gi_threads_cap(nthreads);
  if (nt <= 1) {
    ok = inputs_ok_in(y, w, 0, n, &pos, &out);
  } else {
    /* a long problem's scan on the threads that will fit it */
    gi_idx nblock = (n + GI_SCAN_BLOCK - 1) / GI_SCAN_BLOCK;
#pragma omp parallel for num_threads(nt) schedule(static) \
  reduction(&:ok) reduction(|:pos, out)
    for (gi_idx b = 0; b < nblock; b++) {
      gi_idx lo = b * GI_SCAN_BLOCK;
      gi_idx hi = lo + GI_SCAN_BLOCK < n ? lo + GI_SCAN_BLOCK : n;
      ok &= inputs_ok_in(y, w, lo, hi, &pos, &out);
    }
  }
  if (inside != NULL) *inside = !out;
  return ok && (w == NULL || n == 0 || pos);
}

gi_idx gi_first_weightless(const double *w, const gi_idx *offsets,
                           gi_idx nprob)
{
  for (gi_idx b = 0; b < nprob; b++) {
    gi_idx i = offsets[b], end = offsets[b + 1];
    if (i == end) continue; /* an empty problem has nothing to fit */
    while (i < end && w[i] == 0) i++;
    if (i == end) return b;
  }
  return -1;
}

int gi_any_zero(const double *w, gi_idx n)
{
  if (w == NULL) return 0;
  for (gi_idx i = 0; i < n; i++)
    if (w[i] == 0.0) return 1;
  return 0;
}

gi_idx gi_first_outside_unit(const double *x, gi_idx n)
{
  for (gi_idx i = 0; i < n; i++)
    if (!(x[i] >= 0.0 && x[i] <= 1.0)) return i;
  return -1;
}

/* outside_window() of scale * x[i], two at a time where SSE2 has the
 * comparisons as masks (compilers do not vectorise the scalar test). */
int gi_any_outside(const double *x, gi_idx n, double scale)
{
  int out = 0;
  gi_idx i = 0;
#ifdef __SSE2__
  const __m128d sc = _mm_set1_pd(scale), hi = _mm_set1_pd(0x1p200),
                lo = _mm_set1_pd(0x1p-200), zero = _mm_setzero_pd(),
                sign = _mm_set1_pd(-0.0);
  __m128d m0 = zero, m1 = zero;
  for (; i + 4 <= n; i += 4) {
    __m128d a = _mm_andnot_pd(sign, _mm_mul_pd(sc, _mm_loadu_pd(x + i)));
    __m128d b = _mm_andnot_pd(sign, _mm_mul_pd(sc, _mm_loadu_pd(x + i + 2)));
    m0 = _mm_or_pd(m0, _mm_or_pd(_mm_cmpgt_pd(a, hi),
                                 _mm_and_pd(_mm_cmplt_pd(a, lo),
                                            _mm_cmpneq_pd(a, zero))));
    m1 = _mm_or_pd(m1, _mm_or_pd(_mm_cmpgt_pd(b, hi),
                                 _mm_and_pd(_mm_cmplt_pd(b, lo),
                                            _mm_cmpneq_pd(b, zero))));
  }
  out = _mm_movemask_pd(_mm_or_pd(m0, m1)) != 0;
#endif
  for (; i < n; i++) out |= outside_window(scale * x[i]);
  return out;
}

int gi_in_window(const double *x, gi_idx n, int nthreads)
{
  if (x == NULL) return 1;
  int out = 0;
  int nt = n < 1048576 ? 1 : gi_threads_cap(nthreads);
#pragma omp parallel for num_threads(nt) if (nt > 1) reduction(|:out)
  for (gi_idx i = 0; i < n; i += 65536)
    out |= gi_any_outside(x + i, n - i < 65536 ? n - i : 65536, 1.0);
  return !out;
}

int gi_sums_exact(const double *w, gi_idx n)
{
  int low = 0, any = 0;
  double total = 0.0;
  for (gi_idx i = 0; i < n; i++) {
    if (!(w[i] > 0.0)) continue;
    int b = gi_low_bit(w[i]);
    if (!any || b < low) low = b;
    any = 1;
    total += w[i];
  }
  return !any || total < ldexp(1.0, 52 + low);
}

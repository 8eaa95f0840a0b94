/* Element copies and conversions between R's vectors and the GPU's
 * staging buffers (see gi_core.h): memory-bound, so split over threads
 * once a piece is large enough to pay for waking them. On request, large
 * pieces are written with non-temporal (streaming) stores where the
 * processor has them: for a fresh result in R's memory, not read again
 * soon, which ordinary stores would first read cache line by cache line, a
 * third more memory traffic. (Not for the staging buffers: the copy engine
 * reads them straight after, from the cache.) */
#include <stdint.h>
#include <string.h>
#include "gi_core.h"
#include "gi_omp.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#define GI_STREAM 1
#endif

/* Below this many bytes a piece is copied by one thread, with ordinary
 * stores. */
#define GI_COPY_PARALLEL ((size_t) 1 << 18)

void gi_conv_sizes(gi_conv conv, size_t *src, size_t *dst)
{
  switch (conv) {
  case GI_COPY1: *src = *dst = 1; break;
  case GI_COPY4: *src = *dst = 4; break;
  case GI_TO_F32: *src = 8; *dst = 4; break;
  case GI_FROM_F32: *src = 4; *dst = 8; break;
  default: *src = *dst = 8; break; /* GI_COPY8, GI_ROUND_F32 */
  }
}

/* d[lo, hi) from s[lo, hi); `stream`: with non-temporal stores. */
static void to_f32(float *d, const double *s, gi_idx lo, gi_idx hi, int stream)
{
  gi_idx i = lo;
#ifdef GI_STREAM
  if (stream) {
    for (; i < hi && ((uintptr_t) (d + i) & 15); i++) d[i] = (float) s[i];
    for (; i + 4 <= hi; i += 4) {
      __m128 a = _mm_cvtpd_ps(_mm_loadu_pd(s + i));
      __m128 b = _mm_cvtpd_ps(_mm_loadu_pd(s + i + 2));
      _mm_stream_ps(d + i, _mm_movelh_ps(a, b));
    }
  }
#endif
#pragma omp simd
  for (gi_idx j = i; j < hi; j++) d[j] = (float) s[j];
}

static void from_f32(double *d, const float *s, gi_idx lo, gi_idx hi, int stream)
{
  gi_idx i = lo;
#ifdef GI_STREAM
  if (stream) {
    for (; i < hi && ((uintptr_t) (d + i) & 15); i++) d[i] = s[i];
    for (; i + 2 <= hi; i += 2) {
      __m128 v = _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *) (s + i)));
      _mm_stream_pd(d + i, _mm_cvtps_pd(v));
    }
  }
#endif
#pragma omp simd
  for (gi_idx j = i; j < hi; j++) d[j] = s[j];
}

static void copy8(double *d, const double *s, gi_idx lo, gi_idx hi, int stream)
{
  gi_idx i = lo;
#ifdef GI_STREAM
  if (stream) {
    for (; i < hi && ((uintptr_t) (d + i) & 15); i++) d[i] = s[i];
    for (; i + 2 <= hi; i += 2) _mm_stream_pd(d + i, _mm_loadu_pd(s + i));
  }
#endif
  memcpy(d + i, s + i, (size_t) (hi - i) * sizeof(double));
}

static void round_f32(double *d, const double *s, gi_idx lo, gi_idx hi)
{
#pragma omp simd
  for (gi_idx i = lo; i < hi; i++) d[i] = (double) (float) s[i];
}

static void convert_range(void *dst, const void *src, gi_idx lo, gi_idx hi,
                          gi_conv conv, size_t es, int stream)
{
  switch (conv) {
  case GI_TO_F32: to_f32((float *) dst, (const double *) src, lo, hi, stream); break;
  case GI_FROM_F32: from_f32((double *) dst, (const float *) src, lo, hi, stream); break;
  case GI_COPY8: copy8((double *) dst, (const double *) src, lo, hi, stream); break;
  case GI_ROUND_F32: round_f32((double *) dst, (const double *) src, lo, hi); break;
  default:
    memcpy((char *) dst + (size_t) lo * es, (const char *) src + (size_t) lo * es,
           (size_t) (hi - lo) * es);
  }
#ifdef GI_STREAM
  /* streaming stores are weakly ordered: visible before the copy engine
   * (or the caller) reads the buffer */
  if (stream) _mm_sfence();
#endif
}

void gi_convert(void *dst, const void *src, gi_idx n, gi_conv conv, int stream,
                int nthreads)
{
  size_t ss, ds;
  gi_conv_sizes(conv, &ss, &ds);
  size_t bytes = (size_t) n * (ss > ds ? ss : ds);
  int nt = bytes < GI_COPY_PARALLEL ? 1 : gi_threads_cap(nthreads);
  stream = stream && bytes >= GI_COPY_PARALLEL;
  if (nt <= 1) {
    convert_range(dst, src, 0, n, conv, ss, stream);
    return;
  }
  /* one contiguous range per thread, each a multiple of 512 elements (whole
   * cache lines of either element size) */
#pragma omp parallel num_threads(nt)
  {
    int t = omp_get_thread_num(), k = omp_get_num_threads();
    gi_idx per = ((n + k - 1) / k + 511) / 512 * 512;
    gi_idx lo = (gi_idx) t * per, hi = lo + per < n ? lo + per : n;
    if (lo < hi) convert_range(dst, src, lo, hi, conv, ss, stream);
  }
}

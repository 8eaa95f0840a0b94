/* Element copies and conversions between R's vectors and the GPU's
 * staging buffers (see gi_core.h): memory-bound, so split over threads
 * once a piece is large enough to pay for waking them. */
#include <string.h>
#include "gi_core.h"
#include "gi_omp.h"

/* Below this many bytes a piece is copied by one thread. */
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

static void convert_range(void *dst, const void *src, gi_idx lo, gi_idx hi,
                          gi_conv conv, size_t es)
{
  switch (conv) {
  case GI_TO_F32: {
    const double *s = (const double *) src;
    float *d = (float *) dst;
#pragma omp simd
    for (gi_idx i = lo; i < hi; i++) d[i] = (float) s[i];
    break;
  }
  case GI_FROM_F32: {
    const float *s = (const float *) src;
    double *d = (double *) dst;
#pragma omp simd
    for (gi_idx i = lo; i < hi; i++) d[i] = s[i];
    break;
  }
  case GI_ROUND_F32: {
    const double *s = (const double *) src;
    double *d = (double *) dst;
#pragma omp simd
    for (gi_idx i = lo; i < hi; i++) d[i] = (double) (float) s[i];
    break;
  }
  default:
    memcpy((char *) dst + (size_t) lo * es, (const char *) src + (size_t) lo * es,
           (size_t) (hi - lo) * es);
  }
}

void gi_convert(void *dst, const void *src, gi_idx n, gi_conv conv, int nthreads)
{
  size_t ss, ds;
  gi_conv_sizes(conv, &ss, &ds);
  size_t bytes = (size_t) n * (ss > ds ? ss : ds);
  int nt = bytes < GI_COPY_PARALLEL ? 1 : gi_threads_cap(nthreads);
  if (nt <= 1) {
    convert_range(dst, src, 0, n, conv, ss);
    return;
  }
  /* one contiguous range per thread, each a multiple of 512 elements (whole
   * cache lines of either element size) */
#pragma omp parallel num_threads(nt)
  {
    int t = omp_get_thread_num(), k = omp_get_num_threads();
    gi_idx per = ((n + k - 1) / k + 511) / 512 * 512;
    gi_idx lo = (gi_idx) t * per, hi = lo + per < n ? lo + per : n;
    if (lo < hi) convert_range(dst, src, lo, hi, conv, ss);
  }
}

/*
 * What the C benches that time the engine share: a monotonic clock,
 * normal deviates from rand() (seeded by the caller with srand()), and on
 * x86-64 a copy with stores past the cache.
 */
#ifndef GPUISO_BENCH_C_H
#define GPUISO_BENCH_C_H

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

static inline double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static inline double gauss(void)
{
  double u1 = (rand() + 1.0) / (RAND_MAX + 2.0);
  double u2 = (rand() + 1.0) / (RAND_MAX + 2.0);
  return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

#if defined(__x86_64__)
/* y[lo, hi) into out[lo, hi) with stores past the cache, one double at a
 * time, as split.c stores a long prefaulted fit; fenced */
static inline void copy_stream(double *out, const double *y, long long lo,
                               long long hi)
{
  for (long long i = lo; i < hi; i++) {
    long long bits;
    memcpy(&bits, y + i, sizeof bits);
    _mm_stream_si64((long long *) (out + i), bits);
  }
  _mm_sfence();
}
#endif

#endif

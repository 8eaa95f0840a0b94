/*
 * What the C benches that time the engine share: a monotonic clock and
 * normal deviates from rand() (seeded by the caller with srand()).
 */
#ifndef GPUISO_BENCH_C_H
#define GPUISO_BENCH_C_H

#include <math.h>
#include <stdlib.h>
#include <time.h>

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

#endif

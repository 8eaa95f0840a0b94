/*
 * How to fill a fresh output of n doubles on T threads: the memory-traffic
 * floor of the increasing row of 10^8 (bench/split-scaling-RESULTS.md).
 * Each variant copies a source array (already in memory) into a freshly
 * malloc'ed output, as the fit of increasing data writes its values:
 *
 *   prefault-stream  the threads fault the output in first, a huge page
 *                    each (the engine's gi_prefault()), then copy with stores
 *                    past the cache (what R's glue and split.c do now)
 *   prefault-store   the same with ordinary stores
 *   local-store      no prefault: each thread copies a contiguous run of
 *                    whole 2 MiB units and so faults in its own huge
 *                    pages, with ordinary stores (the kernel's zeroed
 *                    lines may still be in that core's cache)
 *   local-stream     the same with stores past the cache
 *
 * The huge-page hint (gi_hint_huge()) is given in every variant. Each
 * variant runs REPS times on a fresh output (malloc'ed, so mmap'ed, and
 * freed after), the variants alternating; prints the best and median ms.
 *
 *   gcc -O2 -fopenmp -Ibench -Isrc/core bench/fault-copy.c src/core/memory.c \
 *       src/core/threads.c -o /tmp/fault-copy
 *   /tmp/fault-copy [n=1e8] [reps=5] [threads=1,16]
 */
#define _DEFAULT_SOURCE
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench-c.h"
#include "gi_core.h"
#include "gi_memory.h"

#define HUGE ((uintptr_t) 1 << 21)

static void copy_run(double *out, const double *y, int64_t lo, int64_t hi,
                     int stream)
{
  if (stream) copy_stream(out, y, lo, hi);
  else
    for (int64_t i = lo; i < hi; i++) out[i] = y[i];
}

/* chunks of 2^15 elements shared out dynamically, as split.c's pieces */
static void copy_chunks(double *out, const double *y, int64_t n, int nt,
                        int stream)
{
  int64_t P = n >> 15;
  if (P < 1) P = 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
  for (int64_t p = 0; p < P; p++) {
    int64_t lo = p * (n / P) + p * (n % P) / P;
    int64_t hi = (p + 1) * (n / P) + (p + 1) * (n % P) / P;
    copy_run(out, y, lo, hi, stream);
  }
}

/* each thread a contiguous run of whole 2 MiB units of the output */
static void copy_local(double *out, const double *y, int64_t n, int nt,
                       int stream)
{
  uintptr_t a = (uintptr_t) out, first = a & ~(HUGE - 1);
  uintptr_t e = a + (uintptr_t) n * sizeof(double);
  int64_t units = (int64_t) ((e - first + HUGE - 1) / HUGE);
#pragma omp parallel num_threads(nt)
  {
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    int64_t u0 = units * t / T, u1 = units * (t + 1) / T;
    uintptr_t lo = first + (uintptr_t) u0 * HUGE, hi = first + (uintptr_t) u1 * HUGE;
    if (lo < a) lo = a;
    if (hi > e) hi = e;
    int64_t i0 = (int64_t) ((lo - a + sizeof(double) - 1) / sizeof(double));
    int64_t i1 = t == T - 1 ? n : (int64_t) ((hi - a + sizeof(double) - 1) / sizeof(double));
    if (i1 > i0) copy_run(out, y, i0, i1, stream);
  }
}

static int cmp(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  int64_t n = argc > 1 ? (int64_t) atof(argv[1]) : 100000000;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  const char *tl = argc > 3 ? argv[3] : "1,16";
  size_t bytes = (size_t) n * sizeof(double);
  double *y = malloc(bytes);
  if (y == NULL) return 1;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) y[i] = (double) i;
  const char *names[4] = {"prefault-stream", "prefault-store", "local-store",
                          "local-stream"};
  char buf[256];
  strncpy(buf, tl, sizeof buf - 1);
  buf[sizeof buf - 1] = 0;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    int nt = atoi(tok);
    double t[4][64];
    for (int r = 0; r < reps && r < 64; r++) {
      for (int v = 0; v < 4; v++) {
        double *out = malloc(bytes);
        if (out == NULL) return 1;
        double t0 = now();
        if (v < 2) {
          gi_prefault(out, bytes, nt); /* the hint, then the faults */
          copy_chunks(out, y, n, nt, v == 0);
        } else {
          gi_hint_huge(out, bytes);
          copy_local(out, y, n, nt, v == 3);
        }
        t[v][r] = 1e3 * (now() - t0);
        /* a check that the copy is whole, outside the timing */
        if (out[n - 1] != y[n - 1] || out[n / 2] != y[n / 2]) return 2;
        free(out);
      }
    }
    for (int v = 0; v < 4; v++) {
      qsort(t[v], (size_t) reps, sizeof(double), cmp);
      printf("n=%.0e threads=%2d %-16s best %8.1f ms  median %8.1f ms\n",
             (double) n, nt, names[v], t[v][0], t[v][reps / 2]);
    }
    fflush(stdout);
  }
  free(y);
  return 0;
}

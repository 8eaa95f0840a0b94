/*
 * One long problem on 1 to N threads: the CPU engine's gi_isotonic_batch()
 * called directly (no R) on a fresh output vector, as R hands it one.
 * Prints the best of `reps` runs per (case, n, threads) and checks that
 * every thread count gives the one-thread fit to the bit.
 *
 * GPUISO_BENCH_FIT says what is done to the fresh output before the fit,
 * inside the timing: "r" (default) what R's glue does (fit_batch() of
 * src/api_isotonic.c: the huge-page hint on one thread, gi_prefault() on
 * more), "hint" the hint on one thread only (the glue before 2026-12-02),
 * "local" the hint on every thread count and no prefault (each thread
 * faults in the pages it writes), "fresh" nothing. Rows without weights go
 * through gi_isotonic_long_unchecked(), as R's glue sends them (each piece
 * checked by the thread that fits it).
 *
 * GPUISO_BENCH_FLOOR=1 adds two first rows: "copy": the output prepared the
 * same way, then the increasing values copied into it on the same threads
 * (memcpy of 2^15-element chunks, static schedule): the memory traffic that
 * any fit of a fresh output needs at least, one read and one write of every
 * element, so the most that the increasing row, bound by that traffic, can
 * speed up from one thread to many; and a second, "copy, streamed": the
 * same copy with stores past the cache where the output was faulted in
 * first (on more than one thread), as split.c stores such a long fit.
 *
 *   cc -O2 -fopenmp -Isrc/core bench/split-scaling.c src/core/pava.c \
 *      src/core/split.c src/core/wide.c src/core/threads.c \
 *      src/core/lockstep.c src/core/memory.c src/core/scan.c -lm \
 *      -o /tmp/split-scaling && /tmp/split-scaling 1e8 3 1 2 4 8 16
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench-c.h"
#include "gi_core.h"
#include "gi_memory.h"

/* y into fit on nt threads, 2^15 elements at a time; `stream`: stored
 * past the cache (x86-64), as split.c stores a long prefaulted fit */
static void copy_floor(const double *y, double *fit, gi_idx n, int nt,
                       int stream)
{
  gi_idx chunks = (n + 32767) / 32768;
#pragma omp parallel for num_threads(nt) schedule(static)
  for (gi_idx c = 0; c < chunks; c++) {
    gi_idx a = c * 32768, e = a + 32768 < n ? a + 32768 : n;
#if defined(__x86_64__)
    if (stream) {
      copy_stream(fit, y, a, e);
      continue;
    }
#endif
    memcpy(fit + a, y + a, (size_t) (e - a) * 8);
  }
}

int main(int argc, char **argv)
{
  if (argc < 4) {
    fprintf(stderr, "usage: split-scaling n reps threads...\n");
    return 2;
  }
  gi_idx n = (gi_idx) atof(argv[1]);
  int reps = atoi(argv[2]);
  double *y = malloc((size_t) n * 8), *yi = malloc((size_t) n * 8),
         *w = malloc((size_t) n * 8), *ref = malloc((size_t) n * 8);
  srand(1);
  for (gi_idx i = 0; i < n; i++) {
    yi[i] = 3.0 * (double) i / (double) (n - 1);
    y[i] = yi[i] + gauss();
    w[i] = exp(8.0 * rand() / RAND_MAX);
  }
  const char *name[3] = {"(a) noisy", "(b) increasing", "(c) weighted noisy"};
  gi_idx off[2] = {0, n}, bad;
  const char *mode = getenv("GPUISO_BENCH_FIT");
  if (mode == NULL || *mode == 0) mode = "r";
  printf("output: %s\n\n", mode);
  printf("| case | n | threads | ms | ns/element | speedup | identical |\n");
  printf("| --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
  const char *fl = getenv("GPUISO_BENCH_FLOOR");
  int floor_row = fl != NULL && strcmp(fl, "1") == 0;
  for (int c = floor_row ? -2 : 0; c < 3; c++) {
    const double *yy = c == 1 || c < 0 ? yi : y, *ww = c == 2 ? w : NULL;
    double t1 = 0.0;
    for (int a = 3; a < argc; a++) {
      int nt = atoi(argv[a]);
      double best = 1e30;
      int same = 1;
      for (int r = 0; r < reps; r++) {
        double *fit = malloc((size_t) n * 8); /* fresh pages, as from R */
        double t0 = now();
        int faulted = 0;
        if (strcmp(mode, "fresh") != 0 &&
            (nt == 1 || n < GI_SPLIT_MIN || strcmp(mode, "local") == 0)) {
          gi_hint_huge(fit, (size_t) n * 8);
        } else if (strcmp(mode, "r") == 0) {
          gi_prefault(fit, (size_t) n * 8, nt);
          faulted = 1;
        }
        if (c < 0)
          copy_floor(yy, fit, n, nt, c == -1 && faulted);
        else if (ww == NULL && n >= GI_SPLIT_MIN)
          gi_isotonic_long_unchecked(yy, n, 0, nt, faulted, fit, NULL);
        else
          gi_isotonic_batch(yy, ww, off, 1, 0, nt, fit, NULL, &bad);
        double t = now() - t0;
        if (t < best) best = t;
        if (a == 3 && r == 0) memcpy(ref, fit, (size_t) n * 8);
        else same &= memcmp(ref, fit, (size_t) n * 8) == 0;
        free(fit);
      }
      if (a == 3) t1 = best;
      printf("| %s | %.0e | %d | %.1f | %.2f | %.2fx | %s |\n",
             c == -2 ? "copy (floor)" : c == -1 ? "copy, streamed" : name[c],
             (double) n, nt, best * 1e3, best * 1e9 / (double) n, t1 / best,
             same ? "yes" : "NO");
      fflush(stdout);
    }
  }
  return 0;
}

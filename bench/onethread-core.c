/*
 * One problem on one thread, without R: the CPU engine's
 * gi_isotonic_batch() against monotone's C routine (Busing 2022), on the
 * data of bench/cpu.R's rows (a) noisy, (b) increasing, (c) weighted, at
 * n = 1e3 ... 1e6, each call as isotonic()'s quick path makes it (the scan
 * of gi_fit_inputs_ok(), then the pass that skips its own). Each size
 * cycles through up to 256 different data sets (4e6 points in all), so
 * that the branch predictor cannot learn one; R's timing loops repeat one
 * data set, which a predictor partly learns at small n: GPUISO_BENCH_SETS=1
 * times that (any other number of sets likewise); GPUISO_BENCH_NOSCAN=1
 * leaves the scan out; GPUISO_BENCH_MAX_N=1e4 stops after that size;
 * GPUISO_BENCH_CASES=wt (or noisy, incr, several joined by commas) runs
 * only those rows. From n = 65536 on, each call gets a fresh output
 * vector, as R hands one. monotone's time includes what its R wrapper
 * does in C terms: the copies of x and w (.C duplicates them) and, for
 * unit weights, a vector of ones. Prints the best of 5 rounds of 2e7 / n
 * calls.
 *
 * monotone is not part of gpuiso: point MONOTONE at its unpacked source
 * (see bench/install-peers.sh). To compare two versions of the engine, give
 * each its own src/core (e.g. from git archive) in one run:
 *
 *   cc -O2 -fopenmp -Isrc/core bench/onethread-core.c src/core/pava.c \
 *      src/core/split.c src/core/wide.c src/core/threads.c \
 *      src/core/lockstep.c src/core/memory.c src/core/scan.c \
 *      $MONOTONE/src/monotoneC.c -lm -o /tmp/onethread && /tmp/onethread
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench-c.h"
#include "gi_core.h"

void monotoneC(int *n, double *x, double *w);

int main(void)
{
  static const char *name[] = {"noisy", "incr", "wt"};
  const double sizes[] = {1e3, 1e4, 1e5, 1e6};
  double check = 0.0;
  srand(1);
  const char *cases = getenv("GPUISO_BENCH_CASES");
  /* GPUISO_BENCH_NOSCAN=1: no scan of the inputs, the pass told that they
   * are inside its window (they are): what the scan costs */
  const int noscan = getenv("GPUISO_BENCH_NOSCAN") != NULL &&
                     strcmp(getenv("GPUISO_BENCH_NOSCAN"), "1") == 0;
  /* GPUISO_BENCH_MAX_N: the sizes up to this one only */
  const double max_n = getenv("GPUISO_BENCH_MAX_N") != NULL
                           ? atof(getenv("GPUISO_BENCH_MAX_N")) : 1e6;
  for (int c = 0; c < 3; c++) {
    if (cases != NULL && strstr(cases, name[c]) == NULL) continue;
    for (int s = 0; s < 4 && sizes[s] <= max_n; s++) {
      gi_idx n = (gi_idx) sizes[s], off[2] = {0, n}, bad;
      int D = (int) (4e6 / n);
      if (D > 256) D = 256;
      if (getenv("GPUISO_BENCH_SETS") != NULL) {
        D = atoi(getenv("GPUISO_BENCH_SETS"));
        if (D < 1) D = 1;
      }
      int fresh = n >= 65536;
      double *y = malloc(sizeof(double) * D * n);
      double *w = malloc(sizeof(double) * D * n);
      double *f = calloc(n, sizeof(double));
      double *x2 = malloc(sizeof(double) * n), *w2 = malloc(sizeof(double) * n);
      for (gi_idx i = 0; i < D * n; i++) {
        double t = 3.0 * (i % n) / (n - 1);
        y[i] = c == 1 ? t : t + gauss();
        w[i] = exp(8.0 * rand() / RAND_MAX);
      }
      long reps = (long) (2e7 / n);
      double best = 1e9, best_mono = 1e9;
      for (int r = 0; r < 5; r++) {
        double t0 = now();
        for (long k = 0; k < reps; k++) {
          gi_idx d = k % D;
          double *out = fresh ? malloc(sizeof(double) * n) : f;
          const double *yd = y + d * n, *wd = c == 2 ? w + d * n : NULL;
          int inside = 1;
          if (!noscan && !gi_fit_inputs_ok(yd, wd, n, 1, &inside)) return 1;
          (inside ? gi_isotonic_batch_in_window : gi_isotonic_batch)(
              yd, wd, off, 1, 0, 1, out, NULL, &bad);
          check += out[n / 2];
          if (fresh) free(out);
        }
        double t = (now() - t0) / reps;
        if (t < best) best = t;
        t0 = now();
        for (long k = 0; k < reps; k++) {
          gi_idx d = k % D;
          double *xa = fresh ? malloc(sizeof(double) * n) : x2;
          double *wa = fresh ? malloc(sizeof(double) * n) : w2;
          memcpy(xa, y + d * n, sizeof(double) * n);
          if (c == 2) memcpy(wa, w + d * n, sizeof(double) * n);
          else for (gi_idx i = 0; i < n; i++) wa[i] = 1.0;
          int nn = (int) n;
          monotoneC(&nn, xa, wa);
          check += xa[n / 2];
          if (fresh) {
            free(xa);
            free(wa);
          }
        }
        t = (now() - t0) / reps;
        if (t < best_mono) best_mono = t;
      }
      printf("%-5s n=%-6g gpuiso %9.2f us %6.2f ns/element | monotone %9.2f "
             "us %6.2f ns/element | ratio %.2f\n", name[c], (double) n,
             best * 1e6, best * 1e9 / n, best_mono * 1e6, best_mono * 1e9 / n,
             best / best_mono);
      free(y); free(w); free(f); free(x2); free(w2);
    }
  }
  return check == 12345.0; /* keeps the results live */
}

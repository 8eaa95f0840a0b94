/*
 * The weighted stack pass on data of other shapes than bench/cpu.R's, one
 * problem on one thread, without R: whether a change that speeds up the
 * weighted rows costs data with many zero weights or many ties, which
 * the pass decides in another loop (see weighted_run() in
 * src/core/pava.c). Each call is as isotonic()'s quick path makes it (the
 * scan of gi_fit_inputs_ok(), then the pass). Rows, at 10^3 and 10^5
 * points, y = seq(0, 3) + N(0, 1) and w = exp(U(0, 8)) unless said:
 *
 *   wt        as bench/cpu.R's weighted rows, one data set repeated;
 *   zero10    one weight in ten zero;
 *   zero50    one weight in two zero;
 *   binary    y 0 or 1 with probability rising along the row, w = 1
 *             (many exact ties between block means);
 *   intcnt    y = floor(seq(0, 3) + N(0, 1)), w = 1..5 (ties again);
 *   wtcycled  as wt, 4e6 points of data sets cycled, so that no branch
 *             predictor learns one.
 *
 * Prints the best of 5 rounds of 2e7 / n calls, in us a call. To compare
 * two versions of the engine, build this file against each one's
 * src/core (e.g. from git archive) and run them in turn:
 *
 *   cc -O2 -fopenmp -Ibench -Isrc/core bench/weighted-shapes.c \
 *      src/core/pava.c src/core/split.c src/core/wide.c \
 *      src/core/threads.c src/core/lockstep.c src/core/memory.c \
 *      src/core/scan.c -lm -o /tmp/shapes && /tmp/shapes
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench-c.h"
#include "gi_core.h"

int main(void)
{
  static const char *name[] = {"wt", "zero10", "zero50", "binary", "intcnt",
                               "wtcycled"};
  double check = 0.0;
  srand(3);
  for (int c = 0; c < 6; c++) {
    for (int s = 0; s < 2; s++) {
      gi_idx n = s == 0 ? 1000 : 100000, off[2] = {0, n}, bad;
      int D = c == 5 ? (int) (4e6 / n) : 1;
      if (D > 256) D = 256;
      double *y = malloc(sizeof(double) * n * D);
      double *w = malloc(sizeof(double) * n * D);
      double *f = malloc(sizeof(double) * n);
      if (y == NULL || w == NULL || f == NULL) return 1;
      for (gi_idx i = 0; i < n * D; i++) {
        double t = 3.0 * (i % n) / (n - 1);
        y[i] = t + gauss();
        w[i] = exp(8.0 * rand() / RAND_MAX);
        if (c == 1 && rand() % 10 == 0) w[i] = 0.0;
        if (c == 2 && rand() % 2 == 0) w[i] = 0.0;
        if (c == 3) {
          y[i] = (double) rand() / RAND_MAX < t / 3.0;
          w[i] = 1.0;
        }
        if (c == 4) {
          y[i] = floor(t + gauss());
          w[i] = 1 + rand() % 5;
        }
      }
      long reps = (long) (2e7 / n);
      double best = 1e9;
      for (int r = 0; r < 5; r++) {
        double t0 = now();
        for (long k = 0; k < reps; k++) {
          const double *yd = y + (k % D) * n, *wd = w + (k % D) * n;
          int inside = 1;
          if (!gi_fit_inputs_ok(yd, wd, n, 1, &inside)) return 1;
          (inside ? gi_isotonic_batch_in_window : gi_isotonic_batch)(
              yd, wd, off, 1, 0, 1, f, NULL, &bad);
          check += f[n / 2];
        }
        double t = (now() - t0) / reps;
        if (t < best) best = t;
      }
      printf("%-8s n=%-6ld %9.2f us%s", name[c], (long) n, best * 1e6,
             s == 0 ? " | " : "\n");
      free(y); free(w); free(f);
    }
  }
  return check == 12345.0; /* keeps the results live */
}

/*
 * Does a weighted fit of 10^3 points take longer at some addresses of its
 * output or inputs than at others? The stack pass keeps its blocks' hi
 * sums in the output and the rest in a scratch kept between calls, so the
 * output's distance from the scratch (mod 4 KiB, which decides whether a
 * load may be held up behind an unrelated store: "4K aliasing") changes
 * from one R call to the next, and so could the time. The data are
 * bench/cpu.R's weighted row (y = seq(0, 3) + N(0, 1), w = exp(U(0, 8))),
 * one data set repeated, as R's timing loops repeat one; each call as
 * isotonic()'s quick path makes it (the scan, then the pass).
 *
 *   fit-address [MODE [STEP]]
 *     MODE  fit (default): the output at each offset 0, STEP, ... < 4096
 *           of a 4 KiB-aligned block; inputs: y and w there instead.
 *     STEP  bytes between offsets, a multiple of 8 (default 16).
 *
 * Prints, per offset, the best and the median of 7 rounds of 2,000 calls
 * (us a call), then the least, the median and the largest best over the
 * offsets. Build against src/core as bench/weighted-shapes.c says.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench-c.h"
#include "gi_core.h"

static int by_value(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  const gi_idx n = 1000;
  int inputs = argc > 1 && strcmp(argv[1], "inputs") == 0;
  int step = argc > 2 ? atoi(argv[2]) : 16;
  if (step < 8 || step % 8 != 0) return 2;
  char *pool_y, *pool_w, *pool_f;
  size_t bytes = sizeof(double) * n + 4096;
  if (posix_memalign((void **) &pool_y, 4096, bytes) ||
      posix_memalign((void **) &pool_w, 4096, bytes) ||
      posix_memalign((void **) &pool_f, 4096, bytes))
    return 1;
  memset(pool_f, 0, bytes);
  double *y0 = malloc(sizeof(double) * n), *w0 = malloc(sizeof(double) * n);
  srand(3);
  for (gi_idx i = 0; i < n; i++) {
    y0[i] = 3.0 * i / (n - 1) + gauss();
    w0[i] = exp(8.0 * rand() / RAND_MAX);
  }
  int noff = 4096 / step;
  double *best = malloc(sizeof(double) * noff), check = 0.0;
  for (int pass = 0; pass < 2; pass++) { /* the first warms up */
    for (int j = 0; j < noff; j++) {
      int o = j * step;
      double *y = (double *) (pool_y + (inputs ? o : 0));
      double *w = (double *) (pool_w + (inputs ? o : 0));
      double *f = (double *) (pool_f + (inputs ? 0 : o));
      memcpy(y, y0, sizeof(double) * n);
      memcpy(w, w0, sizeof(double) * n);
      gi_idx off[2] = {0, n}, bad;
      double t[7];
      for (int r = 0; r < 7; r++) {
        double t0 = now();
        for (int k = 0; k < 2000; k++) {
          int inside = 0;
          if (!gi_fit_inputs_ok(y, w, n, 1, &inside)) return 3;
          (inside ? gi_isotonic_batch_in_window : gi_isotonic_batch)(
              y, w, off, 1, 0, 1, f, NULL, &bad);
        }
        t[r] = (now() - t0) / 2000 * 1e6;
      }
      check += f[n / 2];
      qsort(t, 7, sizeof(double), by_value);
      best[j] = t[0];
      if (pass == 1) printf("%s offset %4d: best %.3f median %.3f us\n",
                            inputs ? "inputs" : "fit", o, t[0], t[3]);
    }
  }
  qsort(best, noff, sizeof(double), by_value);
  printf("%s over %d offsets: least %.3f median %.3f largest %.3f us\n",
         inputs ? "inputs" : "fit", noff, best[0], best[noff / 2],
         best[noff - 1]);
  return check == 12345.0; /* keeps the results live */
}

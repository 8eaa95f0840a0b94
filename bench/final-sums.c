/*
 * What a canonical compensated sum over every element would cost: the sums
 * of w*y and of w of a block with their errors (two-sums, and the product's
 * error by one fused multiply-add), element by element in one chain and
 * in four interleaved lanes. It bounds a design that the weighted stack pass
 * does not have: plain sums in the pass, and the exact sums formed
 * once over the final blocks (bench/onethread-core-RESULTS.md). Data as
 * bench/cpu.R's weighted rows; best of the three rounds printed per size.
 *
 *   cc -O2 -Ibench -Isrc/core bench/final-sums.c -lm -o /tmp/final-sums && /tmp/final-sums
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "bench-c.h"
#include "dd.h" /* two_sum(), the package's */

#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target("fma"), noinline)) static void
one_chain(const double *y, const double *w, int n, double *out)
{
  double s = 0, sl = 0, W = 0, wl = 0;
  for (int i = 0; i < n; i++) {
    double p = w[i] * y[i], pe = __builtin_fma(w[i], y[i], -p), e;
    two_sum(s, p, &s, &e);
    sl += e + pe;
    two_sum(W, w[i], &W, &e);
    wl += e;
  }
  out[0] = s + sl;
  out[1] = W + wl;
}

typedef double v4 __attribute__((vector_size(32)));

__attribute__((target("avx2,fma"), noinline)) static void
four_lanes(const double *y, const double *w, int n, double *out)
{
  v4 s = {0}, sl = {0}, W = {0}, wl = {0};
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    v4 yy, ww, pe;
    __builtin_memcpy(&yy, y + i, sizeof(yy));
    __builtin_memcpy(&ww, w + i, sizeof(ww));
    v4 p = ww * yy;
    for (int j = 0; j < 4; j++) pe[j] = __builtin_fma(ww[j], yy[j], -p[j]);
    v4 t = s + p, bb = t - s, e = (s - (t - bb)) + (p - bb);
    s = t;
    sl += e + pe;
    t = W + ww;
    bb = t - W;
    e = (W - (t - bb)) + (ww - bb);
    W = t;
    wl += e;
  }
  double a = 0, b = 0;
  for (int j = 0; j < 4; j++) {
    a += s[j] + sl[j];
    b += W[j] + wl[j];
  }
  for (; i < n; i++) {
    a += w[i] * y[i];
    b += w[i];
  }
  out[0] = a;
  out[1] = b;
}

int main(void)
{
  double check = 0;
  srand(1);
  for (int n = 1000; n <= 100000; n *= 100) {
    double *y = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
    double out[2], best1 = 1e9, best4 = 1e9;
    for (int i = 0; i < n; i++) {
      y[i] = 3.0 * i / (n - 1) + gauss();
      w[i] = exp(8.0 * rand() / RAND_MAX);
    }
    long reps = (long) (2e8 / n);
    for (int r = 0; r < 3; r++) {
      double t0 = now();
      for (long k = 0; k < reps; k++) { one_chain(y, w, n, out); check += out[0]; }
      double t1 = now();
      for (long k = 0; k < reps; k++) { four_lanes(y, w, n, out); check += out[0]; }
      double t2 = now();
      if (t1 - t0 < best1) best1 = t1 - t0;
      if (t2 - t1 < best4) best4 = t2 - t1;
    }
    printf("n=%-6d one chain %.3f ns/element, four lanes %.3f ns/element\n", n,
           best1 / reps / n * 1e9, best4 / reps / n * 1e9);
    free(y);
    free(w);
  }
  return check == 12345.0;
}
#else
int main(void) { puts("x86-64 with GCC only"); return 0; }
#endif

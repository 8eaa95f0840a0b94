/*
 * How fast can pool adjacent violators go on this CPU? The engine of
 * src/core/pava.c against two stripped-down stack passes that give up its
 * accuracy (plain double sums, no exact near-tie test, no zero-weight or
 * overflow handling) and a branch-free variant that runs four problems in
 * lockstep. No R: the core is called directly on data already in memory,
 * with the output pages touched beforehand, so the figures are compute only.
 *
 *   cc -O2 -fopenmp -Isrc/core bench/core-floor.c src/core/pava.c \
 *      src/core/threads.c src/core/split.c src/core/wide.c \
 *      src/core/lockstep.c src/core/memory.c src/core/scan.c -lm \
 *      -o /tmp/core-floor && /tmp/core-floor
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench-c.h"
#include "gi_core.h"

/* Plain PAVA: block means in fit[], a division per merge. */
static void pava_plain(const double *y, gi_idx n, double *fit, double *s,
                       gi_idx *st)
{
  gi_idx k = 0;
  for (gi_idx i = 0; i < n; i++) {
    double v = y[i];
    if (k > 0 && fit[k - 1] >= v) {
      double S = v, m;
      gi_idx a;
      do {
        --k;
        S += s[k];
        a = st[k];
        m = S / (double) (i + 1 - a);
      } while (k > 0 && fit[k - 1] >= m);
      fit[k] = m; s[k] = S; st[k] = a;
    } else {
      fit[k] = v; s[k] = v; st[k] = i;
    }
    k++;
  }
  gi_idx end = n;
  for (gi_idx b = k - 1; b >= 0; b--) {
    double m = fit[b];
    for (gi_idx j = st[b]; j < end; j++) fit[j] = m;
    end = st[b];
  }
}

/* Plain PAVA comparing by cross multiplication: no division in the loop. */
static void pava_xmul(const double *y, gi_idx n, double *fit, gi_idx *st)
{
  gi_idx k = 0;
  double ts = 0, tw = 0;
  for (gi_idx i = 0; i < n; i++) {
    double S = y[i], W = 1;
    gi_idx a = i;
    while (k > 0 && ts * W >= S * tw) {
      --k;
      S += fit[k];
      W += tw;
      a = st[k];
      if (k > 0) {
        ts = fit[k - 1];
        tw = (double) (a - st[k - 1]);
      }
    }
    fit[k] = S; st[k] = a; k++;
    ts = S; tw = W;
  }
  gi_idx end = n;
  for (gi_idx b = k - 1; b >= 0; b--) {
    double m = fit[b] / (double) (end - st[b]);
    for (gi_idx j = st[b]; j < end; j++) fit[j] = m;
    end = st[b];
  }
}

/* Branch-free: four problems in lockstep, one event (a push or a merge)
 * per problem and round, outcomes chosen by masks instead of branches. */
static inline double pick(int c, double a, double b)
{
  uint64_t m = -(uint64_t) c, x, y;
  memcpy(&x, &a, 8);
  memcpy(&y, &b, 8);
  x = (x & m) | (y & ~m);
  memcpy(&a, &x, 8);
  return a;
}

typedef struct {
  const double *y;
  gi_idx n, i, k, a;
  double s;
  double *hi;
  gi_idx *st;
} lane;

static inline void event(lane *L)
{
  gi_idx km1 = L->k - (L->k > 0);
  double ts = L->hi[km1];
  gi_idx ta = L->st[km1];
  double tw = (double) (L->a - ta), cw = (double) (L->i - L->a);
  int c = (L->k > 0) & (ts * cw >= L->s * tw);
  L->hi[L->k] = L->s;
  L->st[L->k] = L->a;
  L->s = pick(c, ts + L->s, L->y[L->i]);
  gi_idx m = -(gi_idx) c;
  L->a = (ta & m) | (L->i & ~m);
  L->k += 1 - 2 * c;
  L->i += 1 - c;
}

static gi_idx lane_finish(lane *L)
{
  gi_idx k = L->k, a = L->a, i = L->i;
  double s = L->s;
  for (;;) {
    while (k > 0 && L->hi[k - 1] * (double) (i - a) >=
                    s * (double) (a - L->st[k - 1])) {
      --k;
      s += L->hi[k];
      a = L->st[k];
    }
    L->hi[k] = s; L->st[k] = a; k++;
    if (i >= L->n) return k;
    s = L->y[i]; a = i; i++;
  }
}

static void lane_spread(const lane *L, gi_idx k, double *fit)
{
  gi_idx end = L->n;
  for (gi_idx b = k - 1; b >= 0; b--) {
    double m = L->hi[b] / (double) (end - L->st[b]);
    for (gi_idx j = L->st[b]; j < end; j++) fit[j] = m;
    end = L->st[b];
  }
}

static void batch_lanes(const double *y, const gi_idx *off, gi_idx nprob,
                        double *fit, gi_idx cap)
{
  lane L[4];
  for (int j = 0; j < 4; j++) {
    L[j].hi = malloc((size_t) cap * sizeof(double));
    L[j].st = malloc((size_t) cap * sizeof(gi_idx));
  }
  for (gi_idx b = 0; b < nprob; b += 4) {
    int m = nprob - b < 4 ? (int) (nprob - b) : 4;
    for (int j = 0; j < m; j++) {
      L[j].y = y + off[b + j];
      L[j].n = off[b + j + 1] - off[b + j];
      L[j].k = 0; L[j].a = 0; L[j].i = 1; L[j].s = L[j].y[0];
    }
    if (m == 4) {
      while ((L[0].i < L[0].n) & (L[1].i < L[1].n) & (L[2].i < L[2].n) &
             (L[3].i < L[3].n)) {
        event(&L[0]); event(&L[1]); event(&L[2]); event(&L[3]);
      }
    }
    for (int j = 0; j < m; j++)
      lane_spread(&L[j], lane_finish(&L[j]), fit + off[b + j]);
  }
  for (int j = 0; j < 4; j++) {
    free(L[j].hi);
    free(L[j].st);
  }
}

#define REPS 5

int main(void)
{
  gi_idx n = 10000000, nb = 1000, mb = 10000, bad;
  double *y = malloc(n * sizeof(double)), *yb = malloc(n * sizeof(double));
  double *fit = malloc(n * sizeof(double)), *s = malloc(n * sizeof(double));
  gi_idx *st = malloc(n * sizeof(gi_idx)), *off = malloc((mb + 1) * sizeof(gi_idx));
  srand(1);
  for (gi_idx i = 0; i < n; i++) {
    y[i] = 3.0 * i / n + gauss();
    yb[i] = 3.0 * (i % nb) / nb + gauss();
    fit[i] = s[i] = 0;
    st[i] = 0;
  }
  for (gi_idx j = 0; j <= mb; j++) off[j] = j * nb;
  gi_idx one[2] = {0, n};
  double best[7];
  for (int v = 0; v < 7; v++) best[v] = 1e9;
  for (int r = 0; r < REPS; r++) {
    double t[8];
    t[0] = now(); gi_isotonic_batch(y, NULL, one, 1, 0, 1, fit, NULL, &bad);
    t[1] = now(); pava_plain(y, n, fit, s, st);
    t[2] = now(); pava_xmul(y, n, fit, st);
    t[3] = now(); gi_isotonic_batch(yb, NULL, off, mb, 0, 1, fit, NULL, &bad);
    t[4] = now(); for (gi_idx b = 0; b < mb; b++) pava_plain(yb + off[b], nb, fit + off[b], s, st);
    t[5] = now(); for (gi_idx b = 0; b < mb; b++) pava_xmul(yb + off[b], nb, fit + off[b], st);
    t[6] = now(); batch_lanes(yb, off, mb, fit, nb);
    t[7] = now();
    for (int v = 0; v < 7; v++) if (t[v + 1] - t[v] < best[v]) best[v] = t[v + 1] - t[v];
  }
  const char *what[7] = {
    "1 x 1e7 noisy: gpuiso engine", "1 x 1e7 noisy: plain PAVA (division)",
    "1 x 1e7 noisy: plain PAVA (cross-multiplication)",
    "1e4 x 1e3 noisy: gpuiso engine", "1e4 x 1e3 noisy: plain PAVA (division)",
    "1e4 x 1e3 noisy: plain PAVA (cross-multiplication)",
    "1e4 x 1e3 noisy: branch-free, 4 problems in lockstep"};
  printf("| variant (one thread, best of %d) | ms | ns/element |\n| --- | ---: | ---: |\n", REPS);
  for (int v = 0; v < 7; v++)
    printf("| %s | %.1f | %.1f |\n", what[v], best[v] * 1e3, best[v] / n * 1e9);
  return 0;
}

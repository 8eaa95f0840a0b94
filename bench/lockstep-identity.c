/*
 * Does a batch fit (which runs its short problems in the lanes of
 * src/core/lockstep.c) give, to the bit, the fit and the block starts of
 * each problem fitted alone (gi_isotonic_batch() with one problem, the
 * scalar stack pass), the same status and the same first failing problem?
 * Over many shapes of data, scales inside and outside the window of dd.h,
 * weights with zeros, ragged lengths, both directions, on 1 and 2 threads,
 * with the lanes four to a register (AVX2, where the processor has it)
 * and two.
 * Prints one line per case and a summary; exits 1 on any difference.
 *
 *   cc -O2 -fopenmp -Isrc/core bench/lockstep-identity.c src/core/pava.c \
 *      src/core/lockstep.c src/core/split.c src/core/wide.c \
 *      src/core/threads.c src/core/memory.c src/core/scan.c -lm \
 *      -o /tmp/ls-identity && /tmp/ls-identity
 *
 * (add -fsanitize=address,undefined for the memory checks; an argument
 * scales the number of repetitions.)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gi_core.h"

int gi_lockstep_test_width(int width); /* core/pava.h */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t next_u64(void)
{
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static double unif(void) { return (next_u64() >> 11) * 0x1p-53; }
static double gauss(void)
{
  double u1 = unif() + 0x1p-60, u2 = unif();
  return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

enum {
  NOISY, INCREASING, DECREASING, CONSTANT, INTEGER, DECIMAL, SAWTOOTH,
  STEPS, NSHAPE
};
static const char *shape_name[NSHAPE] = {"noisy", "increasing", "decreasing",
                                         "constant", "integer", "decimal",
                                         "sawtooth", "steps"};

static double value(int shape, gi_idx i, gi_idx n)
{
  double x = n > 1 ? 3.0 * (double) i / (double) (n - 1) : 0.0;
  switch (shape) {
  case NOISY: return x + gauss();
  case INCREASING: return x + 1e-3 * (double) i;
  case DECREASING: return -x - 1e-3 * (double) i;
  case CONSTANT: return 2.5;
  case INTEGER: return floor(x + 2.0 * gauss());
  case DECIMAL: {
    static const double d[5] = {0.1, 0.2, 0.3, 0.7, 0.6};
    return d[next_u64() % 5] + 0.1 * (double) (i / 50);
  }
  case SAWTOOTH: return (double) (i % 17) - 0.5 * (double) (i % 5);
  default: return (double) ((i * 7) / (n / 4 + 1)) + (next_u64() % 3 == 0);
  }
}

/* weight schemes */
enum { UNIT, EXPW, ZEROS, ZRUNS, ZLEAD, ZTRAIL, ZALL, INTW, NWEIGHT };
static const char *weight_name[NWEIGHT] = {"unit", "exp(U(0,8))", "zeros",
                                           "zero runs", "leading zeros",
                                           "trailing zeros", "an all-zero problem",
                                           "integer"};

typedef struct {
  gi_idx nprob, N;
  gi_idx *off;
  double *y, *w;
} batch;

static void batch_free(batch *B)
{
  free(B->off); free(B->y); free(B->w);
  memset(B, 0, sizeof(*B));
}

/* lengths: fixed n, or ragged in [0, nmax] */
static batch make(gi_idx nprob, gi_idx n, int ragged, int shape, int wscheme,
                  double scale, int mixed)
{
  batch B;
  B.nprob = nprob;
  B.off = malloc((size_t) (nprob + 1) * sizeof(gi_idx));
  B.off[0] = 0;
  for (gi_idx b = 0; b < nprob; b++) {
    gi_idx len = ragged ? (gi_idx) (next_u64() % (uint64_t) (n + 1)) : n;
    if (ragged && b % 37 == 5) len = next_u64() % 4; /* tiny ones */
    B.off[b + 1] = B.off[b] + len;
  }
  B.N = B.off[nprob];
  B.y = malloc((size_t) (B.N + 1) * sizeof(double));
  B.w = wscheme == UNIT ? NULL : malloc((size_t) (B.N + 1) * sizeof(double));
  gi_idx zall = nprob / 2;
  for (gi_idx b = 0; b < nprob; b++) {
    gi_idx a = B.off[b], len = B.off[b + 1] - a;
    /* mixed: some problems at another scale (outside the window) */
    double sc = scale;
    if (mixed && b % 5 == 2) sc = (b % 10 == 2) ? 1e250 : 1e-300;
    for (gi_idx i = 0; i < len; i++) B.y[a + i] = sc * value(shape, i, len);
    if (B.w == NULL) continue;
    for (gi_idx i = 0; i < len; i++) {
      double u = exp(8.0 * unif());
      switch (wscheme) {
      case EXPW: break;
      case ZEROS: if (next_u64() % 4 == 0) u = 0.0; break;
      case ZRUNS: if ((i / 7) % 3 == 1) u = 0.0; break;
      case ZLEAD: if (i < len / 3) u = 0.0; break;
      case ZTRAIL: if (i >= len - len / 3) u = 0.0; break;
      case ZALL: if (b == zall || (i % 5 == 0)) u = 0.0; break;
      case INTW: u = (double) (next_u64() % 4); break;
      }
      if (u == 0.0 && next_u64() % 2) u = -0.0;
      B.w[a + i] = u;
    }
  }
  return B;
}

static int cases = 0, failures = 0;

/* Batch fit against single fits; returns 1 on a difference. */
static int check(const char *what, const batch *B, int dec, int nt, int width)
{
  gi_idx N = B->N;
  double *f1 = malloc((size_t) (N + 1) * sizeof(double));
  double *f2 = malloc((size_t) (N + 1) * sizeof(double));
  unsigned char *s1 = malloc((size_t) N + 1), *s2 = malloc((size_t) N + 1);
  memset(f1, 0, (size_t) (N + 1) * sizeof(double));
  memset(f2, 0, (size_t) (N + 1) * sizeof(double));
  memset(s1, 7, (size_t) N + 1);
  memset(s2, 7, (size_t) N + 1);
  /* reference: one problem at a time */
  gi_status ref = GI_OK;
  gi_idx ref_bad = -1;
  for (gi_idx b = 0; b < B->nprob; b++) {
    gi_idx a = B->off[b], one[2] = {0, B->off[b + 1] - a}, bad;
    gi_status r = gi_isotonic_batch(B->y + a, B->w == NULL ? NULL : B->w + a,
                                    one, 1, dec, 1, f1 + a, s1 + a, &bad);
    if (r != GI_OK) {
      ref = r;
      ref_bad = b;
      break;
    }
  }
  gi_idx bad;
  gi_lockstep_test_width(width);
  gi_status st = gi_isotonic_batch(B->y, B->w, B->off, B->nprob, dec, nt, f2,
                                   s2, &bad);
  gi_lockstep_test_width(0);
  int diff = 0;
  if (st != ref || bad != ref_bad) {
    diff = 1;
    printf("  status %d bad %lld, alone: status %d bad %lld\n", (int) st,
           (long long) bad, (int) ref, (long long) ref_bad);
  } else if (ref == GI_OK) {
    if (memcmp(f1, f2, (size_t) N * sizeof(double)) != 0) {
      gi_idx i = 0;
      while (memcmp(f1 + i, f2 + i, sizeof(double)) == 0) i++;
      gi_idx b = 0;
      while (B->off[b + 1] <= i) b++;
      printf("  fit differs at %lld (problem %lld): %.17g vs %.17g\n",
             (long long) i, (long long) b, f2[i], f1[i]);
      diff = 1;
    }
    if (memcmp(s1, s2, (size_t) N) != 0) {
      printf("  starts differ\n");
      diff = 1;
    }
  }
  cases++;
  failures += diff;
  printf("%s %-64s %s, %d thread%s, %s: status %d%s\n",
         diff ? "FAIL" : "ok  ", what, dec ? "decreasing" : "increasing", nt,
         nt > 1 ? "s" : "", width == 2 ? "2 lanes/register" : "widest",
         (int) st, diff ? "  <<<" : "");
  free(f1); free(f2); free(s1); free(s2);
  return diff;
}

static void run_batch(const char *what, batch B)
{
  for (int dec = 0; dec < 2; dec++)
    for (int nt = 1; nt <= 2; nt++)
      for (int width = 0; width <= 2; width += 2) check(what, &B, dec, nt, width);
  batch_free(&B);
}

int main(int argc, char **argv)
{
  int reps = argc > 1 ? atoi(argv[1]) : 1;
  gi_threads_test_uncapped(1); /* 2 threads even where fewer processors */
  char what[256];
  for (int rep = 0; rep < reps; rep++) {
    /* every shape with every weight scheme: 200 problems of 600 (enough
     * elements for the threads), then ragged lengths 0..2000 */
    for (int shape = 0; shape < NSHAPE; shape++)
      for (int ws = 0; ws < NWEIGHT; ws++) {
        snprintf(what, sizeof(what), "%s, %s, 200 x 600", shape_name[shape],
                 weight_name[ws]);
        run_batch(what, make(200, 600, 0, shape, ws, 1.0, 0));
        snprintf(what, sizeof(what), "%s, %s, 120 ragged 0..2000",
                 shape_name[shape], weight_name[ws]);
        run_batch(what, make(120, 2000, 1, shape, ws, 1.0, 0));
      }
    /* scales: inside the window, at its edges, outside it, near overflow */
    static const double scales[] = {1e250, 1e-300, 1e308, 1.7e308, 0x1p199,
                                    0x1p-199, 1e-310, 1e60};
    for (int s = 0; s < 8; s++)
      for (int ws = 0; ws < 3; ws++) {
        snprintf(what, sizeof(what), "noisy x %g, %s, 150 ragged 0..1500",
                 scales[s], weight_name[ws]);
        run_batch(what, make(150, 1500, 1, NOISY, ws, scales[s], 0));
      }
    for (int ws = 0; ws < NWEIGHT; ws++) {
      snprintf(what, sizeof(what), "noisy, mixed scales, %s, 300 ragged",
               weight_name[ws]);
      run_batch(what, make(300, 800, 1, NOISY, ws, 1.0, 1));
    }
    /* few problems (fewer than the lanes, and just enough), tiny ones */
    for (gi_idx np = 1; np <= 9; np++) {
      snprintf(what, sizeof(what), "noisy, exp weights, %lld x 50",
               (long long) np);
      run_batch(what, make(np, 50, 0, NOISY, EXPW, 1.0, 0));
      snprintf(what, sizeof(what), "integer, unit, %lld x 3", (long long) np);
      run_batch(what, make(np, 3, 0, INTEGER, UNIT, 1.0, 0));
    }
    for (gi_idx n = 1; n <= 5; n++) {
      snprintf(what, sizeof(what), "noisy, zeros, 3000 x %lld", (long long) n);
      run_batch(what, make(3000, n, 0, NOISY, ZEROS, 1.0, 0));
      snprintf(what, sizeof(what), "noisy, unit, 30000 x %lld", (long long) n);
      run_batch(what, make(30000, n, 0, NOISY, UNIT, 1.0, 0));
    }
    /* a long problem (split.c, 70000 elements) among short ones */
    {
      batch B = make(21, 300, 0, NOISY, UNIT, 1.0, 0);
      gi_idx extra = 70000 - 300, at = B.off[11];
      B.y = realloc(B.y, (size_t) (B.N + extra + 1) * sizeof(double));
      memmove(B.y + B.off[12] + extra, B.y + B.off[12],
              (size_t) (B.N - B.off[12]) * sizeof(double));
      for (gi_idx i = 0; i < 70000; i++) B.y[at + i] = value(NOISY, i, 70000);
      for (gi_idx b = 12; b <= 21; b++) B.off[b] += extra;
      B.N += extra;
      run_batch("noisy, unit, a 70000 among 20 x 300", B);
    }
    /* a long row of 60000 (still short) and many of 1000 */
    run_batch("noisy, unit, 8 x 60000", make(8, 60000, 0, NOISY, UNIT, 1.0, 0));
    run_batch("noisy, exp weights, 8 x 60000",
              make(8, 60000, 0, NOISY, EXPW, 1.0, 0));
    run_batch("noisy, unit, 2000 x 1000",
              make(2000, 1000, 0, NOISY, UNIT, 1.0, 0));
    run_batch("noisy, zero runs, 2000 x 1000",
              make(2000, 1000, 0, NOISY, ZRUNS, 1.0, 0));
  }
  printf("\n%d cases, %d differ\n", cases, failures);
  return failures != 0;
}

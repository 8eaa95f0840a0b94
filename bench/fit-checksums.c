/*
 * Checksums of 30,000 fits by the CPU engine, one per family of inputs, to
 * tell whether a change to src/core keeps every fit to the bit: build it
 * against the old and the new src/core and compare the two outputs.
 * Families: (0) noisy, weights exp(U(0, 8)); (1) as (0) with a fifth of the
 * weights 0; (2) values of +-1e16 and 1 plus noise (sums that cancel); (3)
 * ties, integer weights with zeros; (4) weights spanning e^300 (outside the
 * fast window: the scaled pass); (5) values spanning 2^500 (the wide pass);
 * (6) decreasing data; (7) a sine with every 97th weight 0; (8) weights
 * that are powers of two; (9) values 1 + 2^-20 ... 2^-40 of noise, whose
 * block means lie about as close as the pooling filters' band (2^-29), so
 * that the filters and the full test both decide many points. Each problem
 * has 1 to 2,000 points (every tenth up to 70,000, so some go to split.c),
 * is fitted increasing or decreasing on 1 to 3 threads, and takes the
 * quick path of R when its scan allows; every seventh goes without weights
 * (but in families 1 and 3). The fit and the block starts enter the
 * checksum, or the status when the fit fails.
 * Compare builds made with the same flags: with -mfma, gcc also fuses
 * other products and sums, and some fits move by a bit. The checksums of
 * src/core at 1857d80 and after (gcc 12, -O2, x86-64, glibc's libm):
 * 7d1c46e33a8b30b9 35b83f06a17a459c 0d41d0ef898b101a 319d62effb6ac4fb
 * 28f77feaf4f37f4a 75bfbd8f915de7de bd39aa272502a198 a1e1ec49fab2c409
 * 96d86615c623ce59, and family 9 (added after 7d088bc) 52659f7d627f765d.
 *
 *   cc -O2 -fopenmp -Ibench -Isrc/core bench/fit-checksums.c src/core/pava.c \
 *      src/core/split.c src/core/wide.c src/core/threads.c \
 *      src/core/lockstep.c src/core/memory.c src/core/scan.c -lm \
 *      -o /tmp/fit-checksums && /tmp/fit-checksums
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench-c.h" /* gauss() */
#include "gi_core.h"

/* FNV-1a over the bytes of every fit */
static uint64_t hash;

static void mix(const void *p, size_t n)
{
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) {
    hash ^= c[i];
    hash *= 1099511628211ULL;
  }
}

static double unif(void) { return (rand() + 0.5) / ((double) RAND_MAX + 1); }

/* element i of a problem of family fam: value *y, weight *w; t runs from 0
 * to 3 over the problem */
static void element(int fam, gi_idx i, double t, double *y, double *w)
{
  switch (fam) {
  case 0: *y = t + gauss(); *w = exp(8 * unif()); break;
  case 1: *y = t + gauss(); *w = unif() < 0.2 ? 0.0 : exp(8 * unif()); break;
  case 2:
    *y = (rand() % 3 == 0 ? 1e16 : (rand() % 2 ? -1e16 : 1)) + gauss();
    *w = 1 + rand() % 3;
    break;
  case 3: *y = rand() % 4; *w = rand() % 5; break;
  case 4: *y = t + gauss(); *w = exp(300 * (unif() - 0.5)); break;
  case 5: *y = ldexp(gauss(), rand() % 500 - 250); *w = exp(8 * unif()); break;
  case 6: *y = -t + 0.1 * gauss(); *w = exp(gauss()); break;
  case 7: *y = sin(i * 0.01) * 1e3 + gauss(); *w = i % 97 == 0 ? 0 : exp(2 * unif()); break;
  case 8: *y = t + gauss(); *w = ldexp(1.0, rand() % 60 - 30); break;
  default:
    *y = 1 + ldexp(unif() - 0.5 + 0.01 * t, -20 - (int) (i % 21));
    *w = i % 2 ? exp(8 * unif()) : 1 + rand() % 4;
    break;
  }
}

int main(void)
{
  srand(7);
  for (int fam = 0; fam < 10; fam++) {
    hash = 1469598103934665603ULL;
    for (int rep = 0; rep < 3000; rep++) {
      gi_idx n = 1 + rand() % (rep % 10 == 0 ? 70000 : 2000), off[2] = {0, n}, bad;
      double *y = malloc(n * sizeof(double)), *w = malloc(n * sizeof(double));
      double *fit = malloc(n * sizeof(double));
      unsigned char *starts = malloc(n);
      for (gi_idx i = 0; i < n; i++)
        element(fam, i, 3.0 * i / (n > 1 ? n - 1 : 1), y + i, w + i);
      if (fam == 3) w[rand() % n] = 1.0; /* some weight positive */
      /* without weights now and then, where no weight is zero */
      const double *wp = rep % 7 == 0 && fam != 1 && fam != 3 ? NULL : w;
      int inside = 0, quick = gi_fit_inputs_ok(y, wp, n, 1, &inside);
      gi_status s = (quick && inside ? gi_isotonic_batch_in_window
                                     : gi_isotonic_batch)(y, wp, off, 1, rep % 3 == 0,
                                                          1 + rep % 3, fit, starts, &bad);
      mix(&s, sizeof s);
      if (s == GI_OK) {
        mix(fit, n * sizeof(double));
        mix(starts, n);
      }
      free(y); free(w); free(fit); free(starts);
    }
    printf("family %d: %016llx\n", fam, (unsigned long long) hash);
  }
  return 0;
}

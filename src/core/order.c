/*
 * The sorting order of scores, within groups, for calibration and
 * reliability diagrams: what order(code, scores, method = "radix") gives
 * (stable, -0 tied with +0), by a least-significant-digit radix sort of
 * the scores' bit patterns with 11-bit digits, then of the group codes.
 * A digit that every key shares is skipped (scores of a narrow range
 * share their top bits, group codes most of theirs): at most six passes
 * over the scores and three over the codes. Each pass
 * splits the keys into one contiguous piece per thread: a thread counts
 * its piece's digits, and the counts of all the pieces, in order, say
 * where each thread writes (so the sort stays stable on any number of
 * threads and gives the same order).
 */
#include <stdlib.h>
#include <string.h>
#include "gi_core.h"
#include "gi_memory.h"
#include "gi_omp.h"

#define DIGIT_BITS 11
#define DIGITS (1 << DIGIT_BITS)
#define MAX_THREADS 64

/* A double's bits as an unsigned key in the order of the values (-0 as
 * +0, so that the two tie). */
static inline uint64_t score_key(double s)
{
  uint64_t b;
  if (s == 0.0) s = 0.0;
  memcpy(&b, &s, sizeof b);
  return (b >> 63) ? ~b : b | UINT64_C(0x8000000000000000);
}

static inline unsigned digit(uint64_t k, int shift)
{
  return (unsigned) (k >> shift) & (DIGITS - 1);
}

/* One stable pass on the digit at `shift`: (ks, vs) to (kd, vd); cnt has
 * room for the counts of nt threads. */
static void radix_pass(const uint64_t *ks, const uint32_t *vs, uint64_t *kd,
                       uint32_t *vd, gi_idx n, int shift, int nt,
                       gi_idx (*cnt)[DIGITS])
{
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    gi_idx lo = n * t / T, hi = n * (t + 1) / T;
    gi_idx *c = cnt[t];
    memset(c, 0, DIGITS * sizeof(gi_idx));
    for (gi_idx i = lo; i < hi; i++) c[digit(ks[i], shift)]++;
#pragma omp barrier
#pragma omp single
    {
      gi_idx run = 0;
      for (int d = 0; d < DIGITS; d++)
        for (int u = 0; u < T; u++) {
          gi_idx v = cnt[u][d];
          cnt[u][d] = run;
          run += v;
        }
    }
    for (gi_idx i = lo; i < hi; i++) {
      gi_idx at = c[digit(ks[i], shift)]++;
      kd[at] = ks[i];
      vd[at] = vs[i];
    }
  }
}

/* Which of the digits at shifts 0, 11, ... below `bits` differ among the
 * keys: bit d of the result for the digit at d * 11. */
static unsigned varying_digits(const uint64_t *k, gi_idx n, int bits, int nt)
{
  uint64_t or_all = 0, and_all = ~UINT64_C(0);
#pragma omp parallel for num_threads(nt) if (nt > 1) reduction(| : or_all) reduction(& : and_all)
  for (gi_idx i = 0; i < n; i++) {
    or_all |= k[i];
    and_all &= k[i];
  }
  uint64_t diff = or_all ^ and_all; /* the bits that are not all equal */
  unsigned mask = 0;
  for (int d = 0; d * DIGIT_BITS < bits; d++)
    if (digit(diff, d * DIGIT_BITS) != 0) mask |= 1u << d;
  return mask;
}

int gi_order_scores(const double *s, const int *code, gi_idx n, int nthreads, int *ord)
{
  if (n <= 0) return 0;
  if (n > (gi_idx) INT32_MAX) return 1;
  int nt = gi_threads_cap(nthreads);
  if (nt > MAX_THREADS) nt = MAX_THREADS;
  if (n < 65536) nt = 1; /* below that, threads cost more than they save */
  uint64_t *k0 = malloc((size_t) n * sizeof(uint64_t));
  uint64_t *k1 = malloc((size_t) n * sizeof(uint64_t));
  uint32_t *v0 = malloc((size_t) n * sizeof(uint32_t));
  uint32_t *v1 = malloc((size_t) n * sizeof(uint32_t));
  gi_idx (*cnt)[DIGITS] = malloc((size_t) nt * sizeof *cnt);
  if (!k0 || !k1 || !v0 || !v1 || !cnt) {
    free(k0); free(k1); free(v0); free(v1); free(cnt);
    return 1;
  }
  /* fresh pages fault once each when first written: huge ones 512 times
   * fewer */
  gi_hint_huge(k0, (size_t) n * sizeof(uint64_t));
  gi_hint_huge(k1, (size_t) n * sizeof(uint64_t));
  gi_hint_huge(v0, (size_t) n * sizeof(uint32_t));
  gi_hint_huge(v1, (size_t) n * sizeof(uint32_t));
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
  for (gi_idx i = 0; i < n; i++) {
    k0[i] = score_key(s[i]);
    v0[i] = (uint32_t) i;
  }
  /* the scores' digits, then the codes' (the more significant key) */
  for (int round = 0; round < (code != NULL ? 2 : 1); round++) {
    if (round == 1)
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
      for (gi_idx i = 0; i < n; i++) k0[i] = (uint64_t) (uint32_t) code[v0[i]];
    unsigned mask = varying_digits(k0, n, round == 0 ? 64 : 32, nt);
    for (int d = 0; mask >> d; d++) {
      if (!(mask >> d & 1u)) continue;
      radix_pass(k0, v0, k1, v1, n, d * DIGIT_BITS, nt, cnt);
      uint64_t *kt = k0; k0 = k1; k1 = kt;
      uint32_t *vt = v0; v0 = v1; v1 = vt;
    }
  }
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
  for (gi_idx i = 0; i < n; i++) ord[i] = (int) v0[i] + 1;
  free(k0); free(k1); free(v0); free(v1); free(cnt);
  return 0;
}

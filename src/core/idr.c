/*
 * Isotonic distributional regression: the threshold sweep.
 *
 * For thresholds t_0 < ... < t_{K-1}, the fit at threshold k is the
 * antitonic (non-increasing) weighted least-squares regression of
 * c_j(k) / W_j on the distinct covariate values x_0 < ... < x_{m-1}, where
 * W_j is the weight of the observations at x_j and c_j(k) the weight of
 * those with y <= t_k. As k grows, observations switch on one at a time and
 * c only increases, so the sweep keeps the current solution as blocks and
 * updates it observation by observation instead of solving each threshold
 * afresh.
 *
 * One update, c_p += a. Let B = [s, e] be the block that holds p. The old
 * blocks right of e stay valid as they are: the solution restricted to a
 * suffix that starts at a block boundary is the solution of that suffix.
 * The elements e, e-1, ..., s are pushed one at a time, right to left, as in
 * pool adjacent violators for a non-increasing fit read backwards: a new
 * block is pooled with its right neighbour while its mean is at most the
 * neighbour's (equal means pool, so blocks are maximal), and the neighbour
 * of the leftmost stack entry is the old block that follows it. Then the old
 * blocks left of s are pushed whole (the elements of an old block did not
 * change, and such a block is never split when the values to its right
 * rise), until one does not pool: its boundary holds, and nothing to its left
 * can change. Last, the block arrays are rewritten over the range that
 * changed. One update costs |B| plus the number of blocks pooled.
 *
 * Block bookkeeping: a bitset of block starts (the block of p is found by
 * scanning the words backwards from p) and arrays indexed at a block's
 * start (its end, sum of c, sum of W, mean) and at its end (its start).
 *
 * Arithmetic, exact for every weight from the smallest subnormal to
 * DBL_MAX in any mix: decisions are exact and every block mean is the
 * correctly rounded ratio of the exact sums. The type of the sums follows
 * how many bits they span (choose_numbers()): where every sum of weights is
 * an exact double (the weights scaled by one power of two, the largest into
 * [1, 2), which leaves the fit as it is; counts, unit and small integer
 * weights), doubles, means compared by cross multiplication (products
 * checked exactly where they may round) and formed by one IEEE division;
 * up to 104 bits, double-double numbers (gi_xnum.h), exact there; beyond,
 * fixed-point integers of 2 to 34 64-bit limbs (gi_big.h). Equal means
 * pool; a block's mean is formed once, when the block is written, and
 * neighbours whose means round to one double are written as one block.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gi_core.h"
#include "gi_xnum.h"
#include "gi_big.h"

#define WORD_BITS 64

enum { NUM_DOUBLE, NUM_XNUM, NUM_B2, NUM_B4, NUM_B8, NUM_B16, NUM_B34 };

struct gi_idr_sweep {
  gi_idx m, K, k;          /* next threshold to process */
  gi_idx *kptr;            /* K + 1: observations switching on at k */
  int *obs_x;              /* x index of each observation, by switch-on */
  double *obs_w;           /* its weight (NULL: unit weights) */
  int shift;               /* the weights are taken times 2^-shift */
  double scale;            /* 2^-shift, or 0 (gi_xscale()) */
  int kind;                /* the type of the sums (enum below) */
  int unit;                /* fixed point: the sums in units of 2^unit */
  double exact_below;      /* double sums: products below are exact */
  void *c, *W;             /* sums per x index */
  uint64_t *bits;          /* block starts */
  gi_idx *bend, *bstart;   /* end at start, start at end */
  void *bsc, *bsw;         /* sums at start */
  double *bmean;           /* mean at start */
  void *stack;             /* scratch for one update, m entries */
  /* the result */
  double *ptr;             /* K + 1 */
  int *start;
  double *value;
  gi_idx nb, cap;
};

static void set_bit(uint64_t *bits, gi_idx i)
{
  bits[i / WORD_BITS] |= (uint64_t) 1 << (i % WORD_BITS);
}

/* Clear the bits of positions lo..hi. */
static void clear_bits(uint64_t *bits, gi_idx lo, gi_idx hi)
{
  gi_idx wlo = lo / WORD_BITS, whi = hi / WORD_BITS;
  uint64_t mlo = ~(uint64_t) 0 << (lo % WORD_BITS);
  uint64_t mhi = ~(uint64_t) 0 >> (WORD_BITS - 1 - hi % WORD_BITS);
  if (wlo == whi) {
    bits[wlo] &= ~(mlo & mhi);
    return;
  }
  bits[wlo] &= ~mlo;
  for (gi_idx w = wlo + 1; w < whi; w++) bits[w] = 0;
  bits[whi] &= ~mhi;
}

/* The start of the block that holds p (position 0 always starts one). */
static gi_idx block_of(const uint64_t *bits, gi_idx p)
{
  gi_idx w = p / WORD_BITS;
  uint64_t v = bits[w] & (~(uint64_t) 0 >> (WORD_BITS - 1 - p % WORD_BITS));
  while (v == 0) v = bits[--w];
  return w * WORD_BITS + gi_top_bit(v);
}

/* c1 / w1 <= c2 / w2 for exact double sums (c >= 0, w > 0): products below
 * S->exact_below are exact (every sum is a multiple of a power of two
 * whose square they are multiples of), others are compared through their
 * exact parts where they are close. */
static GI_XNOINLINE int dle_exact(double c1, double w1, double c2, double w2)
{
  double x[4];
  int n = 0;
  n = gi_push_prod(x, n, c1, w2, 1.0);
  n = gi_push_prod(x, n, c2, w1, -1.0);
  return gi_sign_sum(x, n) <= 0;
}

static inline int dle(const gi_idr_sweep *S, double c1, double w1, double c2,
                      double w2)
{
  double p = c1 * w2, q = c2 * w1;
  if (p < S->exact_below && q < S->exact_below) return p <= q;
  if (c1 == w1 && c2 == w2) return 1; /* two means of 1: every observation on */
  if (p < q * (1.0 - 0x1p-50)) return 1;
  if (p > q * (1.0 + 0x1p-50)) return 0;
  return dle_exact(c1, w1, c2, w2);
}

/* the sweep in doubles */
#define NUM double
#define SUF _d
#define NUM_ZERO 0.0
#define NUM_SET(d, a) ((d) = (a))
#define NUM_ADDTO(d, a) ((d) += (a))
#define NUM_ADDW(S, d, w) ((d) += (w) * (S)->scale)
#define NUM_LE(S, c1, w1, c2, w2) dle(S, c1, w1, c2, w2)
#define NUM_DIV(c, w) ((c) / (w))
#include "idr_sweep.h"
#undef NUM_SET
#undef NUM_ADDTO
#undef NUM_ADDW
#undef NUM_LE
#undef NUM_DIV

/* the sweep in gi_xnum */
static const gi_xnum xzero = {0.0, 0.0, 0};
#define NUM gi_xnum
#define SUF _x
#define NUM_ZERO xzero
#define NUM_SET(d, a) ((d).h = (a).h, (d).l = (a).l, (d).e = (a).e)
#define NUM_ADDTO(d, a) ((d) = gi_xadd(d, a))
#define NUM_ADDW(S, d, w) ((d) = gi_xadd(d, gi_xnum_of(w, (S)->shift, (S)->scale)))
#define NUM_LE(S, c1, w1, c2, w2) gi_xle(c1, w1, c2, w2)
#define NUM_DIV(c, w) gi_xdiv(c, w)
#include "idr_sweep.h"
#undef NUM_SET
#undef NUM_ADDTO
#undef NUM_ADDW
#undef NUM_LE
#undef NUM_DIV

/* the sweep in fixed point, NL limbs in units of 2^S->unit */
#define BIG_SWEEP(NL)                                                        \
  typedef struct {                                                           \
    uint64_t v[NL];                                                          \
  } big##NL;                                                                 \
  static const big##NL big##NL##_zero = {{0}};
#define NUM_SET(d, a) ((d) = (a))
#define NUM_ADDTO(d, a) gi_limbs_add((d).v, (a).v, NL)
#define NUM_ADDW(S, d, w) gi_limbs_add_double((d).v, NL, (S)->unit, w)
#define NUM_LE(S, c1, w1, c2, w2) gi_limbs_le((c1).v, (w1).v, (c2).v, (w2).v, NL)
#define NUM_DIV(c, w) gi_limbs_div((c).v, (w).v, NL)

#define NL 2
BIG_SWEEP(2)
#define NUM big2
#define SUF _b2
#define NUM_ZERO big2_zero
#include "idr_sweep.h"
#undef NL

#define NL 4
BIG_SWEEP(4)
#define NUM big4
#define SUF _b4
#define NUM_ZERO big4_zero
#include "idr_sweep.h"
#undef NL

#define NL 8
BIG_SWEEP(8)
#define NUM big8
#define SUF _b8
#define NUM_ZERO big8_zero
#include "idr_sweep.h"
#undef NL

#define NL 16
BIG_SWEEP(16)
#define NUM big16
#define SUF _b16
#define NUM_ZERO big16_zero
#include "idr_sweep.h"
#undef NL

#define NL 34
BIG_SWEEP(34)
#define NUM big34
#define SUF _b34
#define NUM_ZERO big34_zero
#include "idr_sweep.h"
#undef NL

#undef NUM_SET
#undef NUM_ADDTO
#undef NUM_ADDW
#undef NUM_LE
#undef NUM_DIV

/* The type of the sums, from how many bits they span: every weight is a
 * multiple of 2^L (its lowest set bit), their total below 2^T. Up to 52
 * bits every sum is an exact double (with the weights scaled by 2^-shift,
 * the largest into [1, 2)); up to 104 an exact double-double (gi_xnum, all
 * of one exponent); beyond, fixed point in units of 2^L (gi_big.h) with
 * limbs enough for the total. */
static void choose_numbers(gi_idr_sweep *S, const double *w, gi_idx n)
{
  S->shift = 0;
  S->scale = 1.0;
  S->unit = 0;
  S->kind = NUM_DOUBLE;
  S->exact_below = 0x1p53;
  if (w == NULL) {
    if ((double) n > 0x1p52) S->kind = NUM_XNUM;
    return;
  }
  double big = 0.0;
  for (gi_idx i = 0; i < n; i++) if (w[i] > big) big = w[i];
  if (!(big > 0.0)) return;
  S->shift = ilogb(big);
  S->scale = gi_xscale(S->shift);
  int L = INT32_MAX;
  double total = 0.0; /* scaled, within n 2^-53 of itself */
  for (gi_idx i = 0; i < n; i++) {
    if (!(w[i] > 0.0)) continue;
    int b = gi_low_bit(w[i]);
    if (b < L) L = b;
    total += S->scale != 0.0 ? w[i] * S->scale : ldexp(w[i], -S->shift);
  }
  int T = S->shift + ilogb(total) + 2; /* total < 2^T, with a bit to spare */
  int span = T - L;
  if (span <= 52 && S->scale != 0.0) {
    S->exact_below = ldexp(1.0, 53 + 2 * (L - S->shift));
    return;
  }
  if (span <= 104) {
    S->kind = NUM_XNUM;
    return;
  }
  S->unit = L;
  S->kind = span < 128 ? NUM_B2 : span < 256 ? NUM_B4 : span < 512 ? NUM_B8
          : span < 1024 ? NUM_B16 : NUM_B34;
}

/* Append the blocks of the current solution. Neighbours whose means differ
 * but round to one double (a mean below 2^-1074, say) are written as one
 * block, so that the blocks are the runs of equal values. */
static gi_status snapshot(gi_idr_sweep *S)
{
  gi_idx m = S->m, first = S->nb;
  for (gi_idx s = 0; s < m; s = S->bend[s] + 1) {
    if (S->nb > first && S->value[S->nb - 1] == S->bmean[s]) continue;
    if (S->nb == S->cap) {
      gi_idx cap = S->cap < 1024 ? 1024 : 2 * S->cap;
      int *ns = (int *) realloc(S->start, (size_t) cap * sizeof(int));
      if (ns == NULL) return GI_ERR_NOMEM;
      S->start = ns;
      double *nv = (double *) realloc(S->value, (size_t) cap * sizeof(double));
      if (nv == NULL) return GI_ERR_NOMEM;
      S->value = nv;
      S->cap = cap;
    }
    S->start[S->nb] = (int) s;
    S->value[S->nb] = S->bmean[s];
    S->nb++;
  }
  S->ptr[S->k + 1] = (double) S->nb;
  return GI_OK;
}

void gi_idr_free(gi_idr_sweep *S)
{
  if (S == NULL) return;
  free(S->kptr);
  free(S->obs_x);
  free(S->obs_w);
  free(S->c);
  free(S->W);
  free(S->bits);
  free(S->bend);
  free(S->bstart);
  free(S->bsc);
  free(S->bsw);
  free(S->bmean);
  free(S->stack);
  free(S->ptr);
  free(S->start);
  free(S->value);
  free(S);
}

gi_status gi_idr_begin(gi_idx n, const int *xcode, const int *kcode,
                       const double *w, gi_idx m, gi_idx K,
                       gi_idr_sweep **out)
{
  *out = NULL;
  gi_idr_sweep *S = (gi_idr_sweep *) calloc(1, sizeof(gi_idr_sweep));
  if (S == NULL) return GI_ERR_NOMEM;
  S->m = m;
  S->K = K;
  gi_idx nwords = (m + WORD_BITS - 1) / WORD_BITS;
  size_t mm = (size_t) (m > 0 ? m : 1);
  S->kptr = (gi_idx *) calloc((size_t) K + 2, sizeof(gi_idx));
  S->obs_x = (int *) malloc((size_t) (n > 0 ? n : 1) * sizeof(int));
  if (w != NULL) S->obs_w = (double *) malloc((size_t) (n > 0 ? n : 1) * sizeof(double));
  choose_numbers(S, w, n);
  size_t nsz = 0, ssz = 0;
  switch (S->kind) {
  case NUM_DOUBLE: nsz = sizeof(double); ssz = sizeof(stack_block_d); break;
  case NUM_XNUM: nsz = sizeof(gi_xnum); ssz = sizeof(stack_block_x); break;
  case NUM_B2: nsz = sizeof(big2); ssz = sizeof(stack_block_b2); break;
  case NUM_B4: nsz = sizeof(big4); ssz = sizeof(stack_block_b4); break;
  case NUM_B8: nsz = sizeof(big8); ssz = sizeof(stack_block_b8); break;
  case NUM_B16: nsz = sizeof(big16); ssz = sizeof(stack_block_b16); break;
  default: nsz = sizeof(big34); ssz = sizeof(stack_block_b34); break;
  }
  S->c = malloc(mm * nsz);
  S->W = malloc(mm * nsz);
  S->bits = (uint64_t *) calloc((size_t) (nwords > 0 ? nwords : 1), sizeof(uint64_t));
  S->bend = (gi_idx *) malloc(mm * sizeof(gi_idx));
  S->bstart = (gi_idx *) malloc(mm * sizeof(gi_idx));
  S->bsc = malloc(mm * nsz);
  S->bsw = malloc(mm * nsz);
  S->bmean = (double *) malloc(mm * sizeof(double));
  S->stack = malloc(mm * ssz);
  S->ptr = (double *) calloc((size_t) K + 1, sizeof(double));
  if (!S->kptr || !S->obs_x || (w != NULL && !S->obs_w) || !S->c || !S->W ||
      !S->bits || !S->bend || !S->bstart || !S->bsc || !S->bsw ||
      !S->bmean || !S->stack || !S->ptr) {
    gi_idr_free(S);
    return GI_ERR_NOMEM;
  }
  /* counting sort of the observations by the threshold that switches them
   * on; kcode == K means never */
  for (gi_idx i = 0; i < n; i++) S->kptr[kcode[i] + 1]++;
  for (gi_idx k = 0; k <= K; k++) S->kptr[k + 1] += S->kptr[k];
  gi_idx *fill = (gi_idx *) malloc(((size_t) K + 1) * sizeof(gi_idx));
  if (fill == NULL) {
    gi_idr_free(S);
    return GI_ERR_NOMEM;
  }
  memcpy(fill, S->kptr, ((size_t) K + 1) * sizeof(gi_idx));
  for (gi_idx i = 0; i < n; i++) {
    gi_idx at = fill[kcode[i]]++;
    S->obs_x[at] = xcode[i];
    if (w != NULL) S->obs_w[at] = w[i];
  }
  free(fill);
  switch (S->kind) {
  case NUM_DOUBLE: init_sums_d(S); break;
  case NUM_XNUM: init_sums_x(S); break;
  case NUM_B2: init_sums_b2(S); break;
  case NUM_B4: init_sums_b4(S); break;
  case NUM_B8: init_sums_b8(S); break;
  case NUM_B16: init_sums_b16(S); break;
  default: init_sums_b34(S); break;
  }
  if (m > 0) {
    set_bit(S->bits, 0);
    S->bend[0] = m - 1;
    S->bstart[m - 1] = 0;
    S->bmean[0] = 0.0;
  }
  *out = S;
  return GI_OK;
}

gi_status gi_idr_step(gi_idr_sweep *S, gi_idx work)
{
  gi_idx done = 0;
  while (S->k < S->K && done < work) {
    gi_idx k = S->k;
    switch (S->kind) {
    case NUM_DOUBLE: threshold_d(S, k); break;
    case NUM_XNUM: threshold_x(S, k); break;
    case NUM_B2: threshold_b2(S, k); break;
    case NUM_B4: threshold_b4(S, k); break;
    case NUM_B8: threshold_b8(S, k); break;
    case NUM_B16: threshold_b16(S, k); break;
    default: threshold_b34(S, k); break;
    }
    done += S->kptr[k + 1] - S->kptr[k] + 1;
    gi_idx before = S->nb;
    gi_status r = snapshot(S);
    if (r != GI_OK) return r;
    done += S->nb - before;
    S->k++;
  }
  return GI_OK;
}

int gi_idr_done(const gi_idr_sweep *S) { return S->k >= S->K; }

gi_idx gi_idr_nblocks(const gi_idr_sweep *S) { return S->nb; }

const double *gi_idr_ptr(const gi_idr_sweep *S) { return S->ptr; }

const int *gi_idr_starts(const gi_idr_sweep *S) { return S->start; }

const double *gi_idr_values(const gi_idr_sweep *S) { return S->value; }

gi_idx gi_idr_level_runs(gi_idx n, const int *level, const double *v, const int *ord, int L,
                         int *code, int *count, double *runs)
{
  for (int l = 0; l < L; l++) count[l] = 0;
  gi_idx r = 0, prev = -1;
  for (gi_idx k = 0; k < n; k++) {
    gi_idx i = ord ? (gi_idx) ord[k] - 1 : k;
    if (i < 0 || i >= n || level[i] < 1 || level[i] > L) return -1;
    if (k > 0 && level[k] < level[k - 1]) return -1;
    if (prev >= 0 && (level[i] < level[prev] || (level[i] == level[prev] && v[i] < v[prev])))
      return -1;
    int l = level[i] - 1;
    if (prev < 0 || level[i] != level[prev] || v[i] != v[prev]) {
      count[l]++;
      runs[r++] = v[i];
    }
    code[i] = count[l] - 1;
    prev = i;
  }
  return r;
}

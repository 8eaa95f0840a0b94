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
 * start (its end, sum of c, sum of W) and at its end (its start). Means are
 * compared by cross multiplication. The sums of c and of W of a block are
 * always formed by the same additions in the same order, and W_j is summed
 * in the order in which the observations switch on, so where every c_j
 * equals W_j the block values are exactly 1.
 */
#include <stdlib.h>
#include <string.h>
#include "gi_core.h"

#define WORD_BITS 64

typedef struct {
  gi_idx s, e;
  double c, w;
} stack_block;

struct gi_idr_sweep {
  gi_idx m, K, k;          /* next threshold to process */
  gi_idx *kptr;            /* K + 1: observations switching on at k */
  int *obs_x;              /* x index of each observation, by switch-on */
  double *obs_w;           /* its weight (NULL: unit weights) */
  double *c, *W;           /* per x index */
  uint64_t *bits;          /* block starts */
  gi_idx *bend, *bstart;   /* end at start, start at end */
  double *bsc, *bsw;       /* sums at start */
  stack_block *stack;      /* scratch for one update, m entries */
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

static int highest_bit(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
  return 63 - __builtin_clzll(v);
#else
  int b = 0;
  while (v >>= 1) b++;
  return b;
#endif
}

/* The start of the block that holds p (position 0 always starts one). */
static gi_idx block_of(const uint64_t *bits, gi_idx p)
{
  gi_idx w = p / WORD_BITS;
  uint64_t v = bits[w] & (~(uint64_t) 0 >> (WORD_BITS - 1 - p % WORD_BITS));
  while (v == 0) v = bits[--w];
  return w * WORD_BITS + highest_bit(v);
}

/* Push the block s..e with sums c, w; returns the new top. */
static gi_idx push(stack_block *st, gi_idx top, gi_idx s, gi_idx e, double c,
                   double w)
{
  top++;
  st[top].s = s;
  st[top].e = e;
  st[top].c = c;
  st[top].w = w;
  return top;
}

/* Pool the top of the stack with its right neighbours while its mean is at
 * most theirs. The neighbour of the bottom entry is the old block after it.
 * Returns the new top; *pooled says whether anything was pooled. */
static gi_idx pool(gi_idr_sweep *S, gi_idx top, int *pooled)
{
  stack_block *st = S->stack;
  *pooled = 0;
  for (;;) {
    stack_block *b = &st[top];
    if (top > 0) {
      stack_block *r = &st[top - 1];
      if (b->c * r->w > r->c * b->w) break;
      r->s = b->s;
      r->c = r->c + b->c;
      r->w = r->w + b->w;
      top--;
    } else {
      gi_idx n = b->e + 1;
      if (n >= S->m) break;
      double rc = S->bsc[n], rw = S->bsw[n];
      if (b->c * rw > rc * b->w) break;
      b->e = S->bend[n];
      b->c = rc + b->c;
      b->w = rw + b->w;
    }
    *pooled = 1;
  }
  return top;
}

/* One observation at x index p switches on with weight a. */
static void update(gi_idr_sweep *S, gi_idx p, double a)
{
  stack_block *st = S->stack;
  S->c[p] += a;
  gi_idx s = block_of(S->bits, p), e = S->bend[s];
  gi_idx top = -1;
  int pooled;
  for (gi_idx j = e; j >= s; j--)
    top = pool(S, push(st, top, j, j, S->c[j], S->W[j]), &pooled);
  /* old blocks to the left, whole, until one holds its boundary */
  while (st[top].s > 0) {
    gi_idx ue = st[top].s - 1, us = S->bstart[ue];
    top = pool(S, push(st, top, us, ue, S->bsc[us], S->bsw[us]), &pooled);
    if (!pooled) {
      top--;
      break;
    }
  }
  gi_idx lo = st[top].s, hi = st[0].e;
  clear_bits(S->bits, lo, hi);
  for (gi_idx b = 0; b <= top; b++) {
    gi_idx bs = st[b].s, be = st[b].e;
    set_bit(S->bits, bs);
    S->bend[bs] = be;
    S->bstart[be] = bs;
    S->bsc[bs] = st[b].c;
    S->bsw[bs] = st[b].w;
  }
}

/* Append the blocks of the current solution. */
static gi_status snapshot(gi_idr_sweep *S)
{
  gi_idx m = S->m;
  for (gi_idx s = 0; s < m; s = S->bend[s] + 1) {
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
    double v = S->bsc[s] / S->bsw[s];
    S->start[S->nb] = (int) s;
    S->value[S->nb] = v > 1.0 ? 1.0 : v;
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
  S->c = (double *) calloc(mm, sizeof(double));
  S->W = (double *) calloc(mm, sizeof(double));
  S->bits = (uint64_t *) calloc((size_t) (nwords > 0 ? nwords : 1), sizeof(uint64_t));
  S->bend = (gi_idx *) malloc(mm * sizeof(gi_idx));
  S->bstart = (gi_idx *) malloc(mm * sizeof(gi_idx));
  S->bsc = (double *) malloc(mm * sizeof(double));
  S->bsw = (double *) malloc(mm * sizeof(double));
  S->stack = (stack_block *) malloc(mm * sizeof(stack_block));
  S->ptr = (double *) calloc((size_t) K + 1, sizeof(double));
  if (!S->kptr || !S->obs_x || (w != NULL && !S->obs_w) || !S->c || !S->W ||
      !S->bits || !S->bend || !S->bstart || !S->bsc || !S->bsw ||
      !S->stack || !S->ptr) {
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
  /* W_j in switch-on order, the order in which c_j will grow */
  gi_idx non = S->kptr[K];
  for (gi_idx i = 0; i < non; i++)
    S->W[S->obs_x[i]] += w != NULL ? S->obs_w[i] : 1.0;
  /* all c = 0: one block */
  if (m > 0) {
    set_bit(S->bits, 0);
    S->bend[0] = m - 1;
    S->bstart[m - 1] = 0;
    S->bsc[0] = 0.0;
    double sw = 0.0;
    for (gi_idx j = 0; j < m; j++) sw += S->W[j];
    S->bsw[0] = sw;
  }
  *out = S;
  return GI_OK;
}

gi_status gi_idr_step(gi_idr_sweep *S, gi_idx work)
{
  gi_idx done = 0;
  while (S->k < S->K && done < work) {
    gi_idx k = S->k;
    for (gi_idx i = S->kptr[k]; i < S->kptr[k + 1]; i++) {
      update(S, S->obs_x[i], S->obs_w != NULL ? S->obs_w[i] : 1.0);
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

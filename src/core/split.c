/*
 * One long problem in pieces: the decomposition of the paper's GPU
 * algorithm on the CPU's threads.
 *
 * A problem of n >= GI_SPLIT_MIN elements is cut into P = n / 2^15 pieces
 * of nearly equal length, whatever the number of threads, and every piece
 * is solved on its own by the stack pass of pava.c (its blocks are its
 * lower hull). The pieces are then merged left to right: the blocks of a
 * piece are pushed onto the stack of those before it and pooled by the
 * same rule (gi_pools()) while a mean steps down. A piece's blocks already
 * increase, so only its first blocks can pool: the walk ends at the first
 * block that pools with neither neighbour, and the merge costs what it
 * pools, not what the pieces hold. Last the means are formed from the
 * merged sums and spread over the blocks, on the threads again. A piece
 * whose pass pooled nothing (increasing data) has only its hi sums stored
 * (gi_stack.singles); its other fields are implied until the merge changes
 * it, and the spread leaves its values where they are.
 *
 * The pieces and their order of merging depend on n alone, so the fit is
 * the same to the bit on any number of threads, and a batch that holds a
 * long problem fits it as it fits alone. The sums are the stack pass's
 * compensated pairs, and the accuracy rules are the same: values or
 * weights outside the window of dd.h send the problem to the scaled pass
 * (in pieces again) and, beyond that, with any overflow, to wide.c.
 */
#include <stdlib.h>
#include <string.h>
#include "gi_memory.h"
#include "gi_omp.h"
#include "pava.h"
#include "wide.h"

typedef struct {
  gi_idx a, b;  /* the piece's elements [a, b); its slots in the arrays */
  gi_idx k0;    /* blocks found by its stack pass */
  gi_idx lo, k; /* after the merge: its live blocks, slots [lo, k) */
  gi_idx prev;  /* the nearest piece to the left with live blocks, or -1 */
  gi_idx pend;  /* where its trailing zero weights begin, or -1 */
  gi_idx end;   /* the end of its last live block */
  double next;  /* the smallest mean of every block to its right */
  double min;   /* the smallest mean of its live blocks */
  /* its pass pooled nothing (gi_stack.singles): its slots hold only hi
   * sums, their lo sums (0) and starts (a + j) implied until written out
   * (write_singles()), which the merge does before it changes the piece */
  int singles;
  int overflow, outside, failed;
} piece;

/* The blocks of every piece: slot a + j holds block j of the piece that
 * starts at a (its hi sum of w*y in fit[a + j], as the stack pass leaves
 * it). Unit weights keep no weight arrays. */
typedef struct {
  double *hi, *lo, *whi, *wlo;
  gi_idx *start;
} slots;

/* Piece p of P over n elements starts at floor(p n / P), without
 * overflow for any n that memory can hold. */
static gi_idx piece_start(gi_idx n, gi_idx P, gi_idx p)
{
  return p * (n / P) + p * (n % P) / P;
}

/* The lo sum and the start of slot j of piece q, implied or stored. */
static double slot_lo(const slots *S, const piece *q, gi_idx j)
{
  return q->singles ? 0.0 : S->lo[q->a + j];
}

static gi_idx slot_start(const slots *S, const piece *q, gi_idx j)
{
  return q->singles ? q->a + j : S->start[q->a + j];
}

/* A piece's implied slots written out, before the merge changes it. */
static void write_singles(const slots *S, piece *q)
{
  if (!q->singles) return;
  gi_fill_singles(S->lo + q->a, S->start + q->a, q->k0, q->a);
  q->singles = 0;
}

/* The end of slot j of piece q while the pieces merge, for unit weights
 * (no zero weights, so a block ends where the next one of its pass
 * starts: slots above a piece's top keep the starts of the blocks that
 * pooled away, and only the lowest live slot is rewritten). */
static gi_idx slot_end(const slots *S, const piece *q, gi_idx j)
{
  return j + 1 < q->k0 ? slot_start(S, q, j + 1) : q->b;
}

/* A fit of at least this many elements whose pages the caller has faulted
 * in (gi_prefault(), as R's glue does for one problem on several threads)
 * is written past the cache where every element is a block of its own
 * (increasing data). The kernel's zeroing of those pages has left them in
 * memory, not in cache, so an ordinary store reads each line back before
 * it writes it: on increasing data, where the pass is bound by memory
 * traffic, that read is a third of it (an increasing row of 1e8 from R on
 * 16 threads of the H100 host: 30-32 -> 25-28 ms). On fresh pages,
 * faulted in by the pass itself, the zeroed line is still in cache and
 * streaming is slower (a 2-core VM, 1e8 elements: 291 -> 345 ms on one
 * thread, 224 -> 354 on two; prefaulted, on two threads, 150 -> 129). A
 * shorter fit may stay in cache whole (bench/split-scaling-RESULTS.md). */
#define GI_STREAM_MIN ((gi_idx) 1 << 23)
static gi_idx stream_min = GI_STREAM_MIN;

gi_idx gi_split_test_stream_min(gi_idx n)
{
  gi_idx was = stream_min;
  stream_min = n < 1 ? GI_STREAM_MIN : n;
  return was;
}

/* The stack pass on every piece. `inside` as in gi_stack, or
 * GI_UNCHECKED: the values (unit weights) are first checked piece by
 * piece (gi_isotonic_long_unchecked()); `stream` as in gi_stack. */
#define GI_UNCHECKED (-1)
static gi_status solve_pieces(const double *y, const double *w, piece *pc,
                              gi_idx P, double sy, double sw, const slots *S,
                              int nt, int inside, int stream)
{
  int failed = 0; /* 1: memory, 2: interrupt */
  int invalid = 0;
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(dynamic, 1) \
  reduction(max:failed) reduction(|:invalid)
  for (gi_idx p = 0; p < P; p++) {
    piece *q = &pc[p];
    /* the master thread asks about interrupts between its pieces (a
     * piece is too short for the pass to ask); the others see its answer */
    if (gi_interrupted(q->b - q->a)) {
      failed = 2;
      continue;
    }
    int in = inside;
    if (inside == GI_UNCHECKED &&
        !gi_fit_inputs_ok(y + q->a, NULL, q->b - q->a, 1, &in)) {
      invalid = 1;
      continue;
    }
    gi_stack ws;
    memset(&ws, 0, sizeof(ws));
    ws.slo = S->lo + q->a;
    ws.start = S->start + q->a;
    if (w != NULL) {
      ws.whi = S->whi + q->a;
      ws.wlo = S->wlo + q->a;
    }
    ws.cap = q->b - q->a;
    ws.fixed = 1;
    ws.inside = in;
    ws.stream = stream;
    gi_idx k = gi_stack_pass(y + q->a, w == NULL ? NULL : w + q->a,
                             q->b - q->a, q->a, sy, sw, S->hi + q->a, &ws);
    if (k < 0) {
      failed = k == -1 ? 1 : 2;
      q->k0 = 0;
      continue;
    }
    q->k0 = k;
    q->singles = ws.singles;
    q->pend = ws.pend;
    q->overflow = ws.overflow;
    q->outside = ws.outside;
  }
  if (failed == 2 || gi_stop_requested()) return GI_ERR_INTERRUPT;
  if (invalid) return GI_ERR_INVALID;
  return failed ? GI_ERR_NOMEM : GI_OK;
}

/* A block's sums while it is merged: (chi + clo) of w*y, (cwh + cwl) of
 * w (for unit weights cwh is its length, up to `end`), its first element
 * `a`. */
typedef struct {
  double chi, clo, cwh, cwl;
  gi_idx a, end;
} run;

static void load(const slots *S, const piece *q, gi_idx j, int weighted,
                 run *r)
{
  gi_idx s = q->a + j;
  r->chi = S->hi[s];
  r->clo = slot_lo(S, q, j);
  r->a = slot_start(S, q, j);
  if (weighted) {
    r->cwh = S->whi[s];
    r->cwl = S->wlo[s];
  } else {
    r->end = slot_end(S, q, j);
    r->cwh = (double) (r->end - r->a);
    r->cwl = 0.0;
  }
}

static void store(const slots *S, piece *q, gi_idx j, int weighted,
                  const run *r)
{
  gi_idx s = q->a + j;
  write_singles(S, q);
  S->hi[s] = r->chi;
  S->lo[s] = r->clo;
  S->start[s] = r->a;
  if (weighted) {
    S->whi[s] = r->cwh;
    S->wlo[s] = r->cwl;
  }
}

/* Pool block `l` (on the left) and block `r` into *r, the sums added as
 * the stack pass adds them. */
static void pool_into(const run *l, run *r, int weighted)
{
  gi_merge_sums(l->chi, l->clo, &r->chi, &r->clo);
  if (weighted) {
    gi_merge_sums(l->cwh, l->cwl, &r->cwh, &r->cwl);
  } else {
    r->cwh = (double) (r->end - l->a);
  }
  r->a = l->a;
}

static int pools(const run *l, const run *r, int weighted, int *overflow)
{
  return gi_pools(l->chi, &l->clo, l->cwh, weighted ? &l->cwl : NULL, r->chi,
                  r->clo, r->cwh, r->cwl, overflow);
}

/* The merge, left to right, on one thread. Returns 1 on overflow. */
static int merge_pieces(piece *pc, gi_idx P, gi_idx n, const slots *S,
                        int weighted)
{
  int overflow = 0;
  gi_idx tp = -1; /* the piece that holds the top of the stack */
  gi_idx zr = -1; /* where the zero weights before this piece begin */
  for (gi_idx p = 0; p < P; p++) {
    piece *q = &pc[p];
    q->lo = 0;
    q->k = q->k0;
    q->prev = tp;
    if (q->k0 == 0) {
      /* every weight of the piece is zero: the run goes on */
      if (zr < 0) zr = q->a;
      continue;
    }
    /* zero weights before the piece join its first block */
    if (zr >= 0) S->start[q->a] = zr;
    zr = q->pend;
    gi_idx j = 0;
    int pooled = 0;
    run cur, top, nxt;
    load(S, q, 0, weighted, &cur);
    for (;;) {
      while (tp >= 0) {
        piece *t = &pc[tp];
        load(S, t, t->k - 1, weighted, &top);
        if (!pools(&top, &cur, weighted, &overflow)) break;
        pool_into(&top, &cur, weighted);
        pooled = 1;
        write_singles(S, t); /* its live slots change */
        if (--t->k == t->lo) tp = t->prev;
      }
      if (j + 1 == q->k0) break;
      load(S, q, j + 1, weighted, &nxt);
      if (!pools(&cur, &nxt, weighted, &overflow)) break;
      pool_into(&cur, &nxt, weighted);
      pooled = 1;
      cur = nxt;
      j++;
    }
    q->lo = j;
    /* a first block that pooled with nothing is its slot as it stands */
    if (pooled || !q->singles) store(S, q, j, weighted, &cur);
    q->prev = tp;
    tp = p;
  }
  /* the end of each piece's last live block: where the next one starts */
  gi_idx next_start = n;
  for (gi_idx p = P - 1; p >= 0; p--) {
    piece *q = &pc[p];
    if (q->k > q->lo) {
      q->end = next_start;
      next_start = slot_start(S, q, q->lo);
    }
  }
  return overflow;
}

/* The end of live slot j of piece q. */
static gi_idx live_end(const slots *S, const piece *q, gi_idx j)
{
  return j + 1 < q->k ? slot_start(S, q, j + 1) : q->end;
}

/* Is piece q, of unit weights, still every element a block of its own,
 * as on increasing data: its stack pass pooled nothing and the merge took
 * nothing from it or into it? Then each block's mean is its value, which
 * the fit already holds (fit[a + j] is slot j's hi sum, its lo sum 0), and
 * the two passes below need not look at the slots. */
static int all_singletons(const piece *q, const slots *S, int weighted)
{
  return !weighted && q->lo == 0 && q->k == q->b - q->a &&
         slot_start(S, q, 0) == q->a && q->end == q->b;
}

/* Means into S->lo (the sums are read first), each piece's smallest mean,
 * and the start flags cleared over its elements. Returns 1 if a mean is
 * not finite. */
static int piece_means(piece *q, const slots *S, int weighted,
                       unsigned char *starts)
{
  double mn = INFINITY, total = 0.0;
  if (q->k > q->lo && all_singletons(q, S, weighted)) {
    /* gi_block_mean() of a one-element block is its value. Its pass
     * pooled no two neighbours, so (the test is exact while nothing
     * overflows, and this runs only then) the values strictly increase,
     * and they lie in the window of dd.h: the first is the smallest, and
     * all are finite. */
    mn = S->hi[q->a];
  } else {
    write_singles(S, q); /* cannot happen: the merge left it whole */
    for (gi_idx j = q->lo; j < q->k; j++) {
      gi_idx s = q->a + j;
      double wt = weighted ? S->whi[s]
                           : (double) (live_end(S, q, j) - S->start[s]);
      double m = gi_block_mean(S->hi[s], S->lo[s], wt,
                               weighted ? S->wlo[s] : 0.0);
      total += m * 0.0; /* stays 0 unless a mean is not finite */
      S->lo[s] = m;
      mn = m < mn ? m : mn;
    }
  }
  q->min = mn;
  if (starts != NULL) memset(starts + q->a, 0, (size_t) (q->b - q->a));
  return !(total == 0.0);
}

/* The fit of a piece's live blocks, right to left; the rounded means must
 * not step down, so each is at most every mean to its right. */
static void piece_spread(const piece *q, const slots *S, double back,
                         double *fit, unsigned char *starts)
{
  double next = q->next;
  if (q->k > q->lo && all_singletons(q, S, S->whi != NULL)) {
    /* the fit holds the values already (slot j is element a + j) */
    gi_spread_rising(fit + q->a, q->b - q->a, next, back,
                     starts == NULL ? NULL : starts + q->a);
    return;
  }
  for (gi_idx j = q->k - 1; j >= q->lo; j--) {
    gi_idx s = q->a + j, a = S->start[s], end = live_end(S, q, j);
    double m = S->lo[s] < next ? S->lo[s] : next;
    next = m;
    m *= back;
    gi_fill(fit, a, end, m);
    if (starts != NULL) starts[a] = 1;
  }
}

/* The means spread, on the threads: 0, or 1 if a mean is not finite. */
static int spread_pieces(piece *pc, gi_idx P, const slots *S, int weighted,
                         double back, double *fit, unsigned char *starts,
                         int nt)
{
  int bad = 0;
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
#pragma omp for schedule(dynamic, 4) reduction(max:bad)
    for (gi_idx p = 0; p < P; p++)
      bad = bad | piece_means(&pc[p], S, weighted, starts);
#pragma omp single
    {
      double next = INFINITY;
      for (gi_idx p = P - 1; p >= 0; p--) {
        pc[p].next = next;
        if (pc[p].k > pc[p].lo && pc[p].min < next) next = pc[p].min;
      }
    }
    if (!bad) {
#pragma omp for schedule(dynamic, 4)
      for (gi_idx p = 0; p < P; p++)
        piece_spread(&pc[p], S, back, fit, starts);
    }
  }
  return bad;
}

/* One attempt at scale (sy, sw). With GI_OK, *redo says whether the fit
 * was written (0), an element lies outside the window (1: scale and try
 * again) or a sum overflowed (2: the wide pass must solve it). */
static gi_status attempt(const double *y, const double *w, gi_idx n,
                         piece *pc, gi_idx P, const slots *S, double sy,
                         double sw, int nt, int inside, int stream,
                         double *fit, unsigned char *starts, int *redo)
{
  const int weighted = w != NULL;
  *redo = 0;
  gi_status st = solve_pieces(y, w, pc, P, sy, sw, S, nt, inside, stream);
  if (st != GI_OK) return st;
  gi_idx nblocks = 0;
  int outside = 0, overflow = 0;
  for (gi_idx p = 0; p < P; p++) {
    nblocks += pc[p].k0;
    outside |= pc[p].outside;
    overflow |= pc[p].overflow;
  }
  if (outside) {
    *redo = 1;
    return GI_OK;
  }
  if (nblocks == 0) return GI_ERR_ZERO_WEIGHT;
  overflow |= merge_pieces(pc, P, n, S, weighted);
  if (overflow ||
      spread_pieces(pc, P, S, weighted, 1.0 / sy, fit, starts, nt)) {
    *redo = 2;
    return GI_OK;
  }
  return GI_OK;
}

gi_status gi_solve_split(const double *y, const double *w, gi_idx n,
                         int decreasing, int nthreads, int inside,
                         int faulted, double *fit, unsigned char *starts)
{
  const int weighted = w != NULL;
  const int stream = faulted && n >= stream_min;
  gi_idx P = n >> GI_SPLIT_LOG2_PIECE;
  if (P < 1) P = 1;
  int nt = nthreads < 1 ? 1 : nthreads;
  if ((gi_idx) nt > P) nt = (int) P;
  /* one block: the pieces, then the slots' arrays (kept from call to
   * call when small, see gi_scratch_take()) */
  size_t arrays = weighted ? 4 : 2;
  gi_scratch mem = gi_scratch_take((size_t) P * sizeof(piece) +
                                   arrays * (size_t) n * sizeof(double));
  piece *pc = mem.p;
  slots S = {fit, NULL, NULL, NULL, NULL};
  gi_status st = GI_OK;
  int redo = 0;
  if (pc == NULL) {
    st = GI_ERR_NOMEM;
    goto done;
  }
  memset(pc, 0, (size_t) P * sizeof(piece));
  S.lo = (double *) (pc + P);
  S.start = (gi_idx *) (S.lo + n);
  if (weighted) {
    S.whi = (double *) (S.start + n);
    S.wlo = S.whi + n;
  }
  for (gi_idx p = 0; p < P; p++) {
    pc[p].a = piece_start(n, P, p);
    pc[p].b = piece_start(n, P, p + 1);
  }
  double sign = decreasing ? -1.0 : 1.0;
  st = attempt(y, w, n, pc, P, &S, sign, 1.0, nt, inside, stream, fit,
               starts, &redo);
  if (st == GI_OK && redo == 1) {
    /* outside the window (every value checked by now): values and
     * weights scaled by powers of two */
    int ylo, yhi, wlo = 0, whi = 0;
    gi_exponent_range(y, n, &ylo, &yhi);
    if (weighted) gi_exponent_range(w, n, &wlo, &whi);
    double cy = gi_centring_scale(ylo, yhi), cw = gi_centring_scale(wlo, whi);
    if (cy == 0.0 || cw == 0.0) {
      redo = 2;
    } else {
      st = attempt(y, w, n, pc, P, &S, sign * cy, cw, nt, 0, stream, fit,
                   starts, &redo);
      if (redo == 1) redo = 2;
    }
  }
done:
  gi_scratch_give(mem);
  if (st == GI_OK && redo == 2)
    st = gi_pava_wide(y, w, n, decreasing, fit, starts);
  return st;
}

gi_status gi_isotonic_long_unchecked(const double *y, gi_idx n,
                                     int decreasing, int nthreads,
                                     int faulted, double *fit,
                                     unsigned char *starts)
{
  return gi_solve_split(y, NULL, n, decreasing, gi_threads_cap(nthreads),
                        GI_UNCHECKED, faulted, fit, starts);
}

/*
 * Isotonic distributional regression on a partial order: the problems of
 * all thresholds, solved by the partial-order solver (poset.c) and stored
 * as blocks in the representation of the one-covariate sweep (idr.c), over
 * the nodes in the caller's order.
 *
 * At threshold k, node i (a distinct covariate point of summed weight W_i)
 * has the share c_i(k) / W_i of its weight with y <= t_k, and the CDF
 * F_k is the antitonic least-squares fit of these shares: F_k(a) >=
 * F_k(b) for every edge a -> b of the order (a below b), which is the
 * isotonic fit on the reversed edges. The order is the same at every
 * threshold, so consecutive problems are one sequence on one graph
 * (gi_poset_fit_sequence()): from one threshold to the next only the nodes
 * of the observations that switch on change, and the fit is re-solved only
 * on the level sets around them that must change. A threshold at which no
 * observation switches on has the fit of the one before (zero at the
 * first), and the last, at which all have, is 1 everywhere: neither is
 * solved.
 *
 * The thresholds are cut into contiguous ranges, one per thread to begin
 * with, each a sequence of its own: its first fit is solved in full and
 * the rest warm, from the one before, a run of thresholds at a time (so
 * memory stays bounded). A thread out of work splits the range with the
 * most thresholds left and takes its upper half, so the threads finish
 * together although the thresholds differ in cost (the tails cost most);
 * each split costs one more cold solve. The calling thread is one of the
 * workers, so interrupts are polled inside the solver throughout.
 *
 * The exact fits do not decrease from one threshold to the next at any
 * node and lie in [0, 1]; the solver's values are exact up to rounding, so
 * they are clamped to [0, 1] and raised to the previous threshold's value
 * where rounding left them below it: within a range as they are solved,
 * and across the ranges' bounds once all are (raised to the last fit of
 * the range before, until a fit needs no raising). The solver's values are
 * the compensated means of the final level sets, whichever start found
 * them, so the fits are the same on any threads.
 * Within a threshold a block is a run of nodes with the same value in the
 * caller's order; an order in which the level sets of the fits are
 * contiguous (the R layer orders the nodes by their fitted CDFs at a few
 * thresholds) keeps the blocks few.
 */
#include <stdlib.h>
#include <string.h>
#include "dd.h"
#include "gi_core.h"
#include "gi_omp.h"

/* CDF values solved at a time, over all threads (y and fit matrices of 16
 * bytes per value), at most 256 thresholds per thread; a range is split
 * for an idle thread only if it has this many thresholds left, as the
 * new range's first threshold is solved cold (at 10,000 points on two
 * covariates that costs about what 50 warm ones do). */
#define CHUNK_VALUES ((gi_idx) 1 << 22)
#define RUN_MAX 256
#define MIN_SPLIT 64

/* MIN_SPLIT, or what the tests set (gi_idr_po_test_min_split()). */
static gi_idx min_split = MIN_SPLIT;

gi_idx gi_idr_po_test_min_split(gi_idx k)
{
  gi_idx was = min_split;
  min_split = k >= 2 ? k : MIN_SPLIT;
  return was;
}

/* Fits as runs of equal values: start node and value, growing. */
typedef struct {
  int *start;
  double *value;
  gi_idx nb, cap;
} blocks;

/* One range of thresholds [begin, end), its thresholds before k taken by
 * its thread: the compensated counts at k, the last fit (for the clamp),
 * the last problem and its fit (for the warm start), and the blocks emitted
 * so far. end falls when the range is split. */
typedef struct {
  gi_idx k, begin, end;
  double *c, *cerr, *prev, *last_y, *last_f;
  int have_last;
  blocks out;
} range;

/* A thread's problems of one run. */
typedef struct {
  double *y, *fit;
  int *col;
} runbuf;

struct gi_idr_po {
  gi_idx m, K, ne, run, min_split;
  int nthreads, nr, rcap, done;
  const int *from, *to;
  const int *node;
  const double *w;
  double *W;
  /* two covariates: the points in the plane, in the solver's orientation */
  gi_plane plane;
  int *ppos, *prank;
  gi_idx *koff, *obs_sorted, *nbk;
  range *r;
  /* the result: the blocks of threshold k are src[k]'s from off[k] on */
  double *ptr;
  blocks fix;
  const blocks **src;
  gi_idx *off;
};

static void blocks_free(blocks *b)
{
  free(b->start);
  free(b->value);
  b->start = NULL;
  b->value = NULL;
  b->nb = b->cap = 0;
}

/* Frees what a range needs while it is solved. */
static void range_release(range *r)
{
  free(r->c); free(r->cerr); free(r->prev); free(r->last_y); free(r->last_f);
  r->c = r->cerr = r->prev = r->last_y = r->last_f = NULL;
}

void gi_idr_po_free(gi_idr_po *s)
{
  if (s == NULL) return;
  if (s->r != NULL)
    for (int t = 0; t < s->nr; t++) {
      range_release(&s->r[t]);
      blocks_free(&s->r[t].out);
    }
  free(s->r);
  free(s->W); free(s->koff); free(s->obs_sorted); free(s->nbk); free(s->ptr);
  free(s->ppos); free(s->prank);
  blocks_free(&s->fix);
  free(s->src);
  free(s->off);
  free(s);
}

/* Adds threshold k's observations to the counts c (compensated in cerr). */
static void count(const gi_idr_po *s, gi_idx k, double *c, double *cerr)
{
  for (gi_idx a = s->koff[k]; a < s->koff[k + 1]; a++) {
    gi_idx i = s->obs_sorted[a], j = s->node[i];
    double t, e;
    two_sum(c[j], s->w ? s->w[i] : 1.0, &t, &e);
    c[j] = t;
    cerr[j] += e;
  }
}

/* Range r's state at its first threshold: the counts from one pass over
 * the thresholds before it in order, so they are those of a single sweep
 * to the bit. 1 when memory runs out. */
static int range_start(const gi_idr_po *s, range *r)
{
  size_t mm = (size_t) s->m + 1;
  r->c = calloc(mm, sizeof(double));
  r->cerr = calloc(mm, sizeof(double));
  r->prev = calloc(mm, sizeof(double));
  r->last_y = malloc(mm * sizeof(double));
  r->last_f = malloc(mm * sizeof(double));
  r->out.cap = s->m + 1;
  r->out.start = malloc((size_t) r->out.cap * sizeof(int));
  r->out.value = malloc((size_t) r->out.cap * sizeof(double));
  if (!(r->c && r->cerr && r->prev && r->last_y && r->last_f && r->out.start && r->out.value))
    return 1;
  for (gi_idx k = 0; k < r->begin; k++) count(s, k, r->c, r->cerr);
  return 0;
}

gi_status gi_idr_po_begin(gi_idx n, const int *node, const int *kcode, const double *w,
                          gi_idx m, gi_idx K, const int *from, const int *to, gi_idx ne,
                          const gi_plane *plane, int nthreads, gi_idr_po **out)
{
  *out = NULL;
  gi_idr_po *s = calloc(1, sizeof(gi_idr_po));
  if (s == NULL) return GI_ERR_NOMEM;
  s->m = m;
  s->K = K;
  s->ne = ne;
  s->nthreads = gi_threads_cap(nthreads);
  s->w = w;
  s->node = node;
  /* the solver wants isotonic edges: F at the upper end <= F at the lower */
  s->from = to;
  s->to = from;
  /* and so the points of two covariates mirrored: what is below in the
   * order is above for the solver */
  if (plane != NULL) {
    s->ppos = malloc(((size_t) m + 1) * sizeof(int));
    s->prank = malloc(((size_t) m + 1) * sizeof(int));
    if (s->ppos == NULL || s->prank == NULL) {
      gi_idr_po_free(s);
      return GI_ERR_NOMEM;
    }
    for (gi_idx i = 0; i < m; i++) {
      s->ppos[i] = (int) (m - 1 - plane->pos[i]);
      s->prank[i] = (int) (plane->nrank - 1 - plane->rank[i]);
    }
    s->plane.pos = s->ppos;
    s->plane.rank = s->prank;
    s->plane.nrank = plane->nrank;
  }
  gi_idx nr = s->nthreads < K ? s->nthreads : K;
  s->nr = (int) nr;
  s->min_split = min_split;
  s->rcap = (int) (nr + K / (s->min_split / 2) + 1);
  gi_idx run = m > 0 && nr > 0 ? CHUNK_VALUES / (m * nr) : RUN_MAX;
  if (run > RUN_MAX) run = RUN_MAX;
  if (run < 1) run = 1;
  s->run = run;
  s->W = calloc((size_t) m + 1, sizeof(double));
  s->koff = calloc((size_t) K + 2, sizeof(gi_idx));
  s->obs_sorted = malloc(((size_t) n + 1) * sizeof(gi_idx));
  s->nbk = calloc((size_t) K + 1, sizeof(gi_idx));
  s->ptr = calloc((size_t) K + 1, sizeof(double));
  s->r = calloc((size_t) s->rcap, sizeof(range));
  double *Werr = calloc((size_t) m + 1, sizeof(double));
  gi_idx *fill = malloc(((size_t) K + 1) * sizeof(gi_idx));
  int fail = !s->W || !s->koff || !s->obs_sorted || !s->nbk || !s->ptr || !s->r || !Werr ||
             !fill;
  if (fail) {
    free(Werr);
    free(fill);
    gi_idr_po_free(s);
    return GI_ERR_NOMEM;
  }
  /* summed weights (compensated, then rounded once) */
  for (gi_idx i = 0; i < n; i++) {
    double t, e;
    two_sum(s->W[node[i]], w ? w[i] : 1.0, &t, &e);
    s->W[node[i]] = t;
    Werr[node[i]] += e;
  }
  for (gi_idx i = 0; i < m; i++) s->W[i] += Werr[i];
  /* the observations by the threshold at which they switch on */
  for (gi_idx i = 0; i < n; i++)
    if (kcode[i] < K) s->koff[kcode[i] + 1]++;
  for (gi_idx k = 0; k < K; k++) s->koff[k + 1] += s->koff[k];
  memcpy(fill, s->koff, (size_t) K * sizeof(gi_idx));
  for (gi_idx i = 0; i < n; i++)
    if (kcode[i] < K) s->obs_sorted[fill[kcode[i]]++] = i;
  free(fill);
  free(Werr);
  s->fix.cap = 1;
  s->fix.start = malloc(sizeof(int));
  s->fix.value = malloc(sizeof(double));
  s->src = malloc(((size_t) K + 1) * sizeof(blocks *));
  s->off = malloc(((size_t) K + 1) * sizeof(gi_idx));
  if (s->fix.start == NULL || s->fix.value == NULL || s->src == NULL || s->off == NULL) {
    gi_idr_po_free(s);
    return GI_ERR_NOMEM;
  }
  /* one range per thread to begin with */
  for (gi_idx t = 0; t < nr; t++) {
    s->r[t].begin = s->r[t].k = K * t / nr;
    s->r[t].end = K * (t + 1) / nr;
  }
  s->done = nr == 0;
  *out = s;
  return GI_OK;
}

int gi_idr_po_done(const gi_idr_po *s) { return s->done; }
gi_idx gi_idr_po_nblocks(const gi_idr_po *s) { return (gi_idx) s->ptr[s->K]; }
const double *gi_idr_po_ptr(const gi_idr_po *s) { return s->ptr; }

/* Room in b for `more` blocks beyond its nb; 1 when memory runs out. */
static int blocks_reserve(blocks *b, gi_idx more)
{
  if (b->nb + more <= b->cap) return 0;
  gi_idx cap = 2 * b->cap + more;
  int *st = realloc(b->start, (size_t) cap * sizeof(int));
  if (st == NULL) return 1;
  b->start = st;
  double *va = realloc(b->value, (size_t) cap * sizeof(double));
  if (va == NULL) return 1;
  b->value = va;
  b->cap = cap;
  return 0;
}

/* A block of value v starting at node i onto b: 1 when memory runs out. */
static int append_block(blocks *b, gi_idx i, double v)
{
  if (blocks_reserve(b, 1)) return 1;
  b->start[b->nb] = (int) i;
  b->value[b->nb] = v;
  b->nb++;
  return 0;
}

/* Appends the runs of v[0..m) to b; returns their number, -1 when memory
 * runs out. */
static gi_idx emit(blocks *b, const double *v, gi_idx m)
{
  gi_idx nb0 = b->nb;
  for (gi_idx i = 0; i < m; i++) {
    if (i > 0 && v[i] == v[i - 1]) continue;
    if (append_block(b, i, v[i])) return -1;
  }
  return b->nb - nb0;
}

/* The solver's fit f clamped to [0, 1] and raised to the fit before,
 * prev, where rounding left it below: into prev, and its runs appended to
 * b as emit() does, in one pass. Returns their number, -1 when memory runs
 * out. */
static gi_idx clamp_emit(blocks *b, double *prev, const double *f, gi_idx m)
{
  gi_idx nb0 = b->nb;
  double last = 0.0;
  for (gi_idx i = 0; i < m; i++) {
    double v = f[i];
    if (!(v >= 0.0)) v = 0.0;
    if (v > 1.0) v = 1.0;
    if (v < prev[i]) v = prev[i];
    prev[i] = v;
    if (i > 0 && v == last) continue;
    last = v;
    if (append_block(b, i, v)) return -1;
  }
  return b->nb - nb0;
}

/* Writes the nb blocks of b from block b0 into v[0..m). */
static void decode(const blocks *b, gi_idx b0, gi_idx nb, gi_idx m, double *v)
{
  for (gi_idx a = b0; a < b0 + nb; a++) {
    gi_idx e = a + 1 < b0 + nb ? b->start[a + 1] : m;
    for (gi_idx i = b->start[a]; i < e; i++) v[i] = b->value[a];
  }
}

/* Node j's share of its weight with y <= the threshold, at most 1. */
static inline double share(const range *r, const double *W, gi_idx j)
{
  double q = (r->c[j] + r->cerr[j]) / W[j];
  return q < 1.0 ? q : 1.0;
}

/* Range r's thresholds [k0, k1), solved on this thread into buffers b. */
static gi_status range_run(const gi_idr_po *s, range *r, gi_idx k0, gi_idx k1, runbuf *b)
{
  gi_idx m = s->m, K = s->K;
  /* the shares of every threshold of the run that needs a fit (before
   * the range's first switch-on, the fit before the range is not known
   * here: zero stands for it, raised to it when the ranges are joined) */
  int nc = 0;
  for (gi_idx k = k0; k < k1; k++) {
    int changed = s->koff[k + 1] > s->koff[k];
    count(s, k, r->c, r->cerr);
    if (!changed || k == K - 1) {
      b->col[k - k0] = -1;
      continue;
    }
    /* the shares: those of the problem before (whose counts differ only
     * at the nodes of threshold k's observations) but there */
    double *y = b->y + (size_t) nc * m;
    const double *base = nc > 0 ? y - m : r->have_last ? r->last_y : NULL;
    if (base != NULL) {
      memcpy(y, base, (size_t) m * sizeof(double));
      for (gi_idx a = s->koff[k]; a < s->koff[k + 1]; a++) {
        gi_idx j = s->node[s->obs_sorted[a]];
        y[j] = share(r, s->W, j);
      }
    } else {
      for (gi_idx j = 0; j < m; j++) y[j] = share(r, s->W, j);
    }
    b->col[k - k0] = nc++;
  }
  gi_status st = gi_poset_fit_sequence(b->y, s->W, m, nc, s->from, s->to, s->ne,
                                       s->ppos != NULL ? &s->plane : NULL,
                                       r->have_last ? r->last_y : NULL,
                                       r->have_last ? r->last_f : NULL, 1, b->fit);
  if (st != GI_OK) return st;
  if (nc > 0) {
    memcpy(r->last_y, b->y + (size_t) (nc - 1) * m, (size_t) m * sizeof(double));
    memcpy(r->last_f, b->fit + (size_t) (nc - 1) * m, (size_t) m * sizeof(double));
    r->have_last = 1;
  }
  for (gi_idx k = k0; k < k1; k++) {
    int c = b->col[k - k0];
    if (k == K - 1) {
      for (gi_idx j = 0; j < m; j++) r->prev[j] = 1.0;
    } else if (c >= 0) {
      gi_idx nb = clamp_emit(&r->out, r->prev, b->fit + (size_t) c * m, m);
      if (nb < 0) return GI_ERR_NOMEM;
      s->nbk[k] = nb;
      continue;
    }
    /* unchanged: the previous fit (zero before the first switch-on) */
    gi_idx nb = emit(&r->out, r->prev, m);
    if (nb < 0) return GI_ERR_NOMEM;
    s->nbk[k] = nb;
  }
  return GI_OK;
}

/* For a thread out of work: the range with the most thresholds left is
 * split in two, the thread to take the upper half; -1 when none has
 * min_split left. Called inside the critical section on the ranges. */
static int split_range(gi_idr_po *s)
{
  int best = -1;
  gi_idx left = s->min_split - 1;
  for (int t = 0; t < s->nr; t++)
    if (s->r[t].end - s->r[t].k > left) {
      left = s->r[t].end - s->r[t].k;
      best = t;
    }
  if (best < 0 || s->nr == s->rcap) return -1;
  range *old = &s->r[best], *r = &s->r[s->nr];
  r->begin = r->k = old->k + left / 2;
  r->end = old->end;
  old->end = r->begin;
  return s->nr++;
}

/* The ranges' blocks joined in threshold order, each range's first fits
 * raised to the last fit of the range before where rounding left them
 * below it: threshold k's blocks are src[k]'s (a range, or s->fix for a
 * raised fit) from block off[k], and ptr[k + 1] counts them all up to k.
 * Nothing is copied here: gi_idr_po_gather() copies each threshold's
 * blocks once, into the caller's arrays, on all the threads. */
static gi_status join_ranges(gi_idr_po *s)
{
  gi_idx m = s->m;
  double *P = malloc(((size_t) m + 1) * sizeof(double));
  double *v = malloc(((size_t) m + 1) * sizeof(double));
  if (!P || !v) {
    free(P);
    free(v);
    return GI_ERR_NOMEM;
  }
  gi_status st = GI_OK;
  for (int t = 0; t < s->nr && st == GI_OK; t++) {
    range *r = &s->r[t];
    gi_idx b0 = 0;
    int fixing = t > 0;
    for (gi_idx k = r->begin; k < r->end; k++) {
      gi_idx nb = s->nbk[k];
      int raised = 0;
      if (fixing) {
        decode(&r->out, b0, nb, m, v);
        for (gi_idx j = 0; j < m; j++)
          if (v[j] < P[j]) {
            v[j] = P[j];
            raised = 1;
          }
        /* a fit at or above P: so are the rest of the range */
        fixing = raised;
      }
      if (raised) {
        s->src[k] = &s->fix;
        s->off[k] = s->fix.nb;
        gi_idx nf = emit(&s->fix, v, m);
        if (nf < 0) {
          st = GI_ERR_NOMEM;
          break;
        }
        s->nbk[k] = nf;
      } else {
        s->src[k] = &r->out;
        s->off[k] = b0;
      }
      b0 += nb;
      s->ptr[k + 1] = s->ptr[k] + (double) s->nbk[k];
    }
    if (st != GI_OK || r->end <= r->begin) continue;
    /* the range's last fit, as joined */
    gi_idx last = r->end - 1;
    decode(s->src[last], s->off[last], s->nbk[last], m, P);
  }
  free(P);
  free(v);
  return st;
}

void gi_idr_po_gather(const gi_idr_po *s, int *start, double *value)
{
  int nt = s->nthreads;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 64) if (nt > 1)
  for (gi_idx k = 0; k < s->K; k++) {
    gi_idx at = (gi_idx) s->ptr[k], nb = s->nbk[k], o = s->off[k];
    if (nb == 0) continue;
    memcpy(start + at, s->src[k]->start + o, (size_t) nb * sizeof(int));
    memcpy(value + at, s->src[k]->value + o, (size_t) nb * sizeof(double));
  }
}

static int by_begin(const void *a, const void *b)
{
  gi_idx x = ((const range *) a)->begin, y = ((const range *) b)->begin;
  return (x > y) - (x < y);
}

/* All thresholds in one step: each thread solves its range a run at a
 * time, then splits the largest range left and takes its upper half,
 * until none is worth splitting. The calling thread is one of them, so
 * interrupts are polled inside the solver throughout. */
gi_status gi_idr_po_step(gi_idr_po *s)
{
  if (s->done) return GI_OK;
  int nt = s->nr;
  gi_status status = GI_OK;
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    gi_idx m = s->m;
    runbuf b;
    b.y = malloc(((size_t) m * (size_t) s->run + 1) * sizeof(double));
    b.fit = malloc(((size_t) m * (size_t) s->run + 1) * sizeof(double));
    b.col = malloc(((size_t) s->run + 1) * sizeof(int));
    gi_status st = b.y && b.fit && b.col ? GI_OK : GI_ERR_NOMEM;
    int t = omp_get_thread_num();
    while (st == GI_OK && t >= 0) {
      range *r = &s->r[t]; /* s->r does not move: only its count grows */
      if (range_start(s, r)) st = GI_ERR_NOMEM;
      for (;;) {
        gi_status all;
#pragma omp atomic read
        all = status;
        if (st != GI_OK || all != GI_OK) break;
        if (gi_stop_requested()) {
          st = GI_ERR_INTERRUPT;
          break;
        }
        gi_idx k0, k1;
#pragma omp critical(gi_idr_po_ranges)
        {
          k0 = r->k;
          k1 = k0 + s->run < r->end ? k0 + s->run : r->end;
          r->k = k1;
        }
        if (k0 >= k1) break;
        st = range_run(s, r, k0, k1, &b);
      }
      range_release(r);
      if (st != GI_OK) break;
#pragma omp critical(gi_idr_po_ranges)
      t = split_range(s);
    }
    if (st != GI_OK) {
#pragma omp critical(gi_idr_po_status)
      if (status == GI_OK) status = st;
    }
    free(b.y);
    free(b.fit);
    free(b.col);
  }
  if (status != GI_OK) return status;
  qsort(s->r, (size_t) s->nr, sizeof(range), by_begin);
  status = join_ranges(s);
  if (status == GI_OK) s->done = 1;
  return status;
}

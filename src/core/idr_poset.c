/*
 * Isotonic distributional regression on a partial order: the problems of
 * all thresholds, solved in chunks by the partial-order solver (poset.c)
 * and stored as blocks in the representation of the one-covariate sweep
 * (idr.c), over the nodes in the caller's order.
 *
 * At threshold k, node i (a distinct covariate point of summed weight W_i)
 * has the share c_i(k) / W_i of its weight with y <= t_k, and the CDF
 * F_k is the antitonic least-squares fit of these shares: F_k(a) >=
 * F_k(b) for every edge a -> b of the order (a below b), which is the
 * isotonic fit on the reversed edges. The order is the same at every
 * threshold, so each chunk's problems are one sequence on one graph
 * (gi_poset_fit_sequence()): from one threshold to the next only the nodes
 * of the observations that switch on change, and the fit is re-solved only
 * on the level sets around them that must change. A
 * threshold at which no observation switches on has the fit of the one
 * before (zero at the first), and the last, at which all have, is 1
 * everywhere: neither is solved.
 *
 * The exact fits do not decrease from one threshold to the next at any
 * node and lie in [0, 1]; the solver's values are exact up to rounding, so
 * they are clamped to [0, 1] and raised to the previous threshold's value
 * where rounding left them below it. Within a threshold a block is a run
 * of nodes with the same value in the caller's order; an order in which
 * the level sets of the fits are contiguous (the R layer orders the nodes
 * by their fitted CDFs at a few thresholds) keeps the blocks few.
 */
#include <stdlib.h>
#include <string.h>
#include "dd.h"
#include "gi_core.h"

/* The problems of one chunk: at most this many CDF values (y and fit
 * matrices of 16 bytes per value), and at most 256 thresholds per thread:
 * each thread solves a run of consecutive thresholds, warm from the one
 * before, and the first of a run in full. */
#define CHUNK_VALUES ((gi_idx) 1 << 22)
#define CHUNK_PER_THREAD 256

struct gi_idr_po {
  gi_idx m, K, ne, k, chunk;
  int nthreads;
  const int *from, *to;
  double *W, *c, *cerr, *prev, *y, *fit, *last_y, *last_f;
  int have_last;
  gi_idx *koff;
  const int *node;
  const double *w;
  gi_idx *obs_sorted;
  int *col;
  /* the result */
  double *ptr, *value;
  int *start;
  gi_idx nb, cap;
};

void gi_idr_po_free(gi_idr_po *s)
{
  if (s == NULL) return;
  free(s->W); free(s->c); free(s->cerr); free(s->prev); free(s->y); free(s->fit);
  free(s->last_y); free(s->last_f);
  free(s->koff); free(s->obs_sorted); free(s->col);
  free(s->ptr); free(s->value); free(s->start);
  free(s);
}

gi_status gi_idr_po_begin(gi_idx n, const int *node, const int *kcode, const double *w,
                          gi_idx m, gi_idx K, const int *from, const int *to, gi_idx ne,
                          int nthreads, gi_idr_po **out)
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
  gi_idx chunk = m > 0 ? CHUNK_VALUES / m : K;
  if (chunk > (gi_idx) CHUNK_PER_THREAD * s->nthreads)
    chunk = (gi_idx) CHUNK_PER_THREAD * s->nthreads;
  if (chunk < 1) chunk = 1;
  if (chunk > K) chunk = K > 0 ? K : 1;
  s->chunk = chunk;
  s->W = calloc((size_t) m + 1, sizeof(double));
  s->c = calloc((size_t) m + 1, sizeof(double));
  s->cerr = calloc((size_t) m + 1, sizeof(double));
  s->prev = calloc((size_t) m + 1, sizeof(double));
  s->last_y = malloc(((size_t) m + 1) * sizeof(double));
  s->last_f = malloc(((size_t) m + 1) * sizeof(double));
  s->y = malloc(((size_t) m * chunk + 1) * sizeof(double));
  s->fit = malloc(((size_t) m * chunk + 1) * sizeof(double));
  s->koff = calloc((size_t) K + 2, sizeof(gi_idx));
  s->obs_sorted = malloc(((size_t) n + 1) * sizeof(gi_idx));
  s->col = malloc(((size_t) chunk + 1) * sizeof(int));
  s->ptr = calloc((size_t) K + 1, sizeof(double));
  s->cap = m + 1;
  s->start = malloc((size_t) s->cap * sizeof(int));
  s->value = malloc((size_t) s->cap * sizeof(double));
  if (!s->W || !s->c || !s->cerr || !s->prev || !s->last_y || !s->last_f || !s->y ||
      !s->fit || !s->koff ||
      !s->obs_sorted || !s->col || !s->ptr || !s->start || !s->value) {
    gi_idr_po_free(s);
    return GI_ERR_NOMEM;
  }
  /* summed weights (compensated, then rounded once) */
  double *Werr = s->cerr;
  for (gi_idx i = 0; i < n; i++) {
    double t, e;
    two_sum(s->W[node[i]], w ? w[i] : 1.0, &t, &e);
    s->W[node[i]] = t;
    Werr[node[i]] += e;
  }
  for (gi_idx i = 0; i < m; i++) {
    s->W[i] += Werr[i];
    Werr[i] = 0.0;
  }
  /* the observations by the threshold at which they switch on */
  for (gi_idx i = 0; i < n; i++)
    if (kcode[i] < K) s->koff[kcode[i] + 1]++;
  for (gi_idx k = 0; k < K; k++) s->koff[k + 1] += s->koff[k];
  gi_idx *fill = malloc(((size_t) K + 1) * sizeof(gi_idx));
  if (fill == NULL) {
    gi_idr_po_free(s);
    return GI_ERR_NOMEM;
  }
  memcpy(fill, s->koff, (size_t) K * sizeof(gi_idx));
  for (gi_idx i = 0; i < n; i++)
    if (kcode[i] < K) s->obs_sorted[fill[kcode[i]]++] = i;
  free(fill);
  *out = s;
  return GI_OK;
}

int gi_idr_po_done(const gi_idr_po *s) { return s->k >= s->K; }
gi_idx gi_idr_po_nblocks(const gi_idr_po *s) { return s->nb; }
const double *gi_idr_po_ptr(const gi_idr_po *s) { return s->ptr; }
const int *gi_idr_po_starts(const gi_idr_po *s) { return s->start; }
const double *gi_idr_po_values(const gi_idr_po *s) { return s->value; }

/* Appends threshold k's blocks, the runs of v[0..m). */
static gi_status emit(gi_idr_po *s, gi_idx k, const double *v)
{
  for (gi_idx i = 0; i < s->m; i++) {
    if (i > 0 && v[i] == v[i - 1]) continue;
    if (s->nb == s->cap) {
      gi_idx cap = 2 * s->cap;
      int *st = realloc(s->start, (size_t) cap * sizeof(int));
      if (st == NULL) return GI_ERR_NOMEM;
      s->start = st;
      double *va = realloc(s->value, (size_t) cap * sizeof(double));
      if (va == NULL) return GI_ERR_NOMEM;
      s->value = va;
      s->cap = cap;
    }
    s->start[s->nb] = (int) i;
    s->value[s->nb] = v[i];
    s->nb++;
  }
  s->ptr[k + 1] = (double) s->nb;
  return GI_OK;
}

gi_status gi_idr_po_step(gi_idr_po *s)
{
  gi_idx m = s->m, K = s->K, k0 = s->k, k1 = k0 + s->chunk;
  if (k1 > K) k1 = K;
  /* the shares of every threshold of the chunk that needs a fit */
  int nc = 0;
  for (gi_idx k = k0; k < k1; k++) {
    int changed = s->koff[k + 1] > s->koff[k];
    for (gi_idx a = s->koff[k]; a < s->koff[k + 1]; a++) {
      gi_idx i = s->obs_sorted[a], j = s->node[i];
      double t, e;
      two_sum(s->c[j], s->w ? s->w[i] : 1.0, &t, &e);
      s->c[j] = t;
      s->cerr[j] += e;
    }
    if (!changed || k == K - 1) {
      s->col[k - k0] = -1;
      continue;
    }
    double *y = s->y + (size_t) nc * m;
    for (gi_idx j = 0; j < m; j++) {
      double r = (s->c[j] + s->cerr[j]) / s->W[j];
      y[j] = r < 1.0 ? r : 1.0;
    }
    s->col[k - k0] = nc++;
  }
  gi_status st = gi_poset_fit_sequence(s->y, s->W, m, nc, s->from, s->to, s->ne,
                                       s->have_last ? s->last_y : NULL,
                                       s->have_last ? s->last_f : NULL, s->nthreads,
                                       s->fit);
  if (st != GI_OK) return st;
  if (nc > 0) {
    memcpy(s->last_y, s->y + (size_t) (nc - 1) * m, (size_t) m * sizeof(double));
    memcpy(s->last_f, s->fit + (size_t) (nc - 1) * m, (size_t) m * sizeof(double));
    s->have_last = 1;
  }
  for (gi_idx k = k0; k < k1; k++) {
    int c = s->col[k - k0];
    if (k == K - 1) {
      for (gi_idx j = 0; j < m; j++) s->prev[j] = 1.0;
    } else if (c >= 0) {
      const double *f = s->fit + (size_t) c * m;
      for (gi_idx j = 0; j < m; j++) {
        double v = f[j];
        if (!(v >= 0.0)) v = 0.0;
        if (v > 1.0) v = 1.0;
        if (v < s->prev[j]) v = s->prev[j];
        s->prev[j] = v;
      }
    }
    /* unchanged: the previous fit (zero before the first switch-on) */
    st = emit(s, k, s->prev);
    if (st != GI_OK) return st;
  }
  s->k = k1;
  return GI_OK;
}

/*
 * Predictions of an IDR fit on a partial order at new points, by the rule
 * of isodistrreg's predict.idrfit(): with S the fitted points below the new
 * point x and G those above it (in every coordinate of the order's
 * representation), the fitted CDF at any point of S bounds the CDF at x
 * from above and any point of G from below, so
 *   upper_k = min_{s in S} F_k(s),   lower_k = max_{g in G} F_k(g),
 * and the prediction is (lower_k + upper_k) / 2 where both exist, upper_k
 * (lower_k) where only S (only G) is not empty, and the climatological
 * CDF clim_k where x is comparable to no fitted point. At a fitted point
 * S and G both reduce to it, and the prediction is its fit.
 *
 * The minimum over S is attained at S's maximal points and the maximum
 * over G at G's minimal ones, so only those are kept: scanning the points
 * in reverse lexicographic order, a point below x is maximal unless a kept
 * one is above it (every point above it comes earlier in that order), and
 * G likewise in lexicographic order. Finding them is O(m d + |S| |S*| d)
 * per new point (S* the maximal ones), on the threads.
 *
 * The predictions' CDFs at all K thresholds are then stored as blocks in
 * the representation of a fit (idr.c), with the predictions as its
 * "points": the runs of equal values over them, in the order of their
 * summed CDF values (a first pass), which keeps the runs long. Each pass
 * is O(K (m + sum_x |S*| + |G*|)).
 */
#include <stdlib.h>
#include <string.h>
#include "gi_core.h"
#include "gi_omp.h"

/* Whether point a of A (na x d, by columns) is <= point b of B (nb x d) in
 * every coordinate. */
static inline int leq(const double *A, gi_idx na, gi_idx a, const double *B, gi_idx nb,
                      gi_idx b, int d)
{
  for (int c = 0; c < d; c++)
    if (A[(size_t) c * na + a] > B[(size_t) c * nb + b]) return 0;
  return 1;
}

typedef struct {
  int *idx;
  gi_idx n;
} point_list;

/* The maximal fitted points below new point x (up = 0) or the minimal ones
 * above it (up = 1). */
static int extremes(const double *Z, gi_idx m, const int *lex, const double *X, gi_idx q,
                    gi_idx x, int d, int up, point_list *out)
{
  gi_idx cap = 16, n = 0;
  int *kept = malloc((size_t) cap * sizeof(int));
  if (kept == NULL) return 1;
  for (gi_idx a = 0; a < m; a++) {
    gi_idx i = lex[up ? a : m - 1 - a];
    int cand = up ? leq(X, q, x, Z, m, i, d) : leq(Z, m, i, X, q, x, d);
    if (!cand) continue;
    int dominated = 0;
    for (gi_idx b = 0; b < n && !dominated; b++)
      dominated = up ? leq(Z, m, kept[b], Z, m, i, d) : leq(Z, m, i, Z, m, kept[b], d);
    if (dominated) continue;
    if (n == cap) {
      cap *= 2;
      int *k2 = realloc(kept, (size_t) cap * sizeof(int));
      if (k2 == NULL) {
        free(kept);
        return 1;
      }
      kept = k2;
    }
    kept[n++] = (int) i;
  }
  out->idx = kept;
  out->n = n;
  return 0;
}

/* F_k over all m points, from threshold k's blocks. */
static void dense_fit(const gi_idr_view *f, gi_idx k, double *Fk)
{
  gi_idx lo = (gi_idx) f->ptr[k], hi = (gi_idx) f->ptr[k + 1];
  for (gi_idx b = lo; b < hi; b++) {
    gi_idx e = b + 1 < hi ? f->start[b + 1] : f->m;
    for (gi_idx i = f->start[b]; i < e; i++) Fk[i] = f->value[b];
  }
}

static double predict_one(const double *Fk, const point_list *S, const point_list *G,
                          double clim)
{
  if (S->n == 0 && G->n == 0) return clim;
  double upper = 1.0, lower = 0.0;
  for (gi_idx a = 0; a < S->n; a++)
    if (Fk[S->idx[a]] < upper) upper = Fk[S->idx[a]];
  for (gi_idx a = 0; a < G->n; a++)
    if (Fk[G->idx[a]] > lower) lower = Fk[G->idx[a]];
  if (S->n == 0) return lower;
  if (G->n == 0) return upper;
  return 0.5 * lower + 0.5 * upper;
}

typedef struct {
  double score;
  gi_idx i;
} scored;

static int by_score(const void *a, const void *b)
{
  const scored *x = a, *y = b;
  if (x->score > y->score) return -1;
  if (x->score < y->score) return 1;
  return (x->i > y->i) - (x->i < y->i);
}

gi_status gi_idr_po_predict(const gi_idr_view *f, const double *Z, int d, const int *lex,
                            const double *X, gi_idx q, const double *clim, int nthreads,
                            int *nbelow, int *nabove, int *pos, double **ptr_out,
                            int **start_out, double **value_out, gi_idx *nb_out)
{
  gi_idx m = f->m, K = f->K;
  *ptr_out = NULL;
  *start_out = NULL;
  *value_out = NULL;
  *nb_out = 0;
  point_list *S = calloc((size_t) q + 1, sizeof(point_list));
  point_list *G = calloc((size_t) q + 1, sizeof(point_list));
  double *Fk = malloc(((size_t) m + 1) * sizeof(double));
  double *g = malloc(((size_t) q + 1) * sizeof(double));
  scored *sc = calloc((size_t) q + 1, sizeof(scored));
  double *ptr = calloc((size_t) K + 1, sizeof(double));
  gi_idx cap = q + 1, nb = 0;
  int *start = malloc((size_t) cap * sizeof(int));
  double *value = malloc((size_t) cap * sizeof(double));
  gi_status status = GI_OK;
  if (!S || !G || !Fk || !g || !sc || !ptr || !start || !value) {
    status = GI_ERR_NOMEM;
    goto done;
  }
  int nt = gi_threads_cap(nthreads), failed = 0;
#pragma omp parallel for num_threads(nt) if (nt > 1 && q > 64) schedule(dynamic, 16) \
  reduction(| : failed)
  for (gi_idx x = 0; x < q; x++) {
    if (failed) continue;
    failed |= extremes(Z, m, lex, X, q, x, d, 0, &S[x]);
    failed |= extremes(Z, m, lex, X, q, x, d, 1, &G[x]);
  }
  if (failed) {
    status = GI_ERR_NOMEM;
    goto done;
  }
  if (gi_stop_requested() || gi_interrupted((int64_t) q * m)) {
    status = GI_ERR_INTERRUPT;
    goto done;
  }
  for (gi_idx x = 0; x < q; x++) {
    nbelow[x] = (int) S[x].n;
    nabove[x] = (int) G[x].n;
    sc[x].i = x;
  }
  /* pass 1: the summed CDF values, the order of storage */
  for (gi_idx k = 0; k < K; k++) {
    dense_fit(f, k, Fk);
    for (gi_idx x = 0; x < q; x++) sc[x].score += predict_one(Fk, &S[x], &G[x], clim[k]);
    if (gi_interrupted(m + q)) {
      status = GI_ERR_INTERRUPT;
      goto done;
    }
  }
  qsort(sc, (size_t) q, sizeof(scored), by_score);
  for (gi_idx a = 0; a < q; a++) pos[sc[a].i] = (int) a;
  /* pass 2: the blocks */
  for (gi_idx k = 0; k < K; k++) {
    dense_fit(f, k, Fk);
    for (gi_idx a = 0; a < q; a++) {
      gi_idx x = sc[a].i;
      g[a] = predict_one(Fk, &S[x], &G[x], clim[k]);
      if (a > 0 && g[a] == g[a - 1]) continue;
      if (nb == cap) {
        cap *= 2;
        int *s2 = realloc(start, (size_t) cap * sizeof(int));
        if (s2 == NULL) { status = GI_ERR_NOMEM; goto done; }
        start = s2;
        double *v2 = realloc(value, (size_t) cap * sizeof(double));
        if (v2 == NULL) { status = GI_ERR_NOMEM; goto done; }
        value = v2;
      }
      start[nb] = (int) a;
      value[nb] = g[a];
      nb++;
    }
    ptr[k + 1] = (double) nb;
    if (gi_interrupted(m + q)) {
      status = GI_ERR_INTERRUPT;
      goto done;
    }
  }
done:
  if (S && G) {
    for (gi_idx x = 0; x < q; x++) {
      free(S[x].idx);
      free(G[x].idx);
    }
  }
  free(S); free(G); free(Fk); free(g); free(sc);
  if (status != GI_OK) {
    free(ptr); free(start); free(value);
    return status;
  }
  *ptr_out = ptr;
  *start_out = start;
  *value_out = value;
  *nb_out = nb;
  return GI_OK;
}

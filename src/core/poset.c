/*
 * Weighted least-squares isotonic regression on a partial order:
 * minimise sum_i w_i (f_i - y_i)^2 subject to f_a <= f_b for every edge
 * a -> b of a directed graph (a cycle ties its nodes), w_i > 0.
 *
 * The method is the partitioning (decomposition) algorithm of Maxwell and
 * Muckstadt (1985), as Hochbaum and Queyranne (2003) and Luss, Rosset and
 * Shahar (2012) state it for the squared loss: for a set S of nodes with
 * weighted mean m, let U be an upper set of S (closed under the edges
 * inside S) maximising sum_{i in U} w_i (y_i - m). If its value is zero,
 * the solution on S is m everywhere; otherwise there is a solution that
 * is >= m on U and <= m on S \ U, and the problems on U and on S \ U,
 * each with the edges inside it, are independent: each is solved the same
 * way. The best U is a maximum-weight closure, the source side of a
 * minimum cut in the network s -> i of capacity w_i (y_i - m) where that
 * is positive, i -> t of capacity w_i (m - y_i) where that is positive,
 * and a -> b of infinite capacity for each edge (Picard 1976). The cuts
 * are found by push-relabel maximum preflows, started from a greedy
 * routing of the supply (which alone proves some sets do not split). At
 * most n - 1 splits, each a maximum flow on its set: O(n) flows of at
 * most O(n^2 E) each in the worst case, far fewer in practice; the memory
 * is O(n + E). When the order is the componentwise order of points in the
 * plane (IDR on two covariates), the best U is a staircase that
 * plane_cut.c finds in one pass over the set in lexicographic order
 * instead, with no network (10,000 points on two covariates, all
 * thresholds: 7.7 s -> 2.2 s on two threads of the VM), and the covering
 * pairs come from a sweep (plane_covers.c). A batch of problems on one
 * graph (IDR's thresholds) is spread over the threads, one problem each.
 *
 * The capacities are doubles, so "zero" is relative: a residual capacity
 * below the tolerance (a few ulps of the largest capacity) counts as
 * saturated, and a set splits only where its best closure is worth more
 * than a few ulps of the sum of its capacities. The fitted values are the
 * compensated weighted means of the final sets, and the KKT conditions hold
 * to rounding.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dd.h"
#include "gi_core.h"
#include "gi_omp.h"
#include "plane.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The network of one set: CSR arcs (head, residual capacity, index of the
 * reverse arc), k nodes plus the source k and the sink k + 1. */
typedef struct {
  gi_idx *first, *head, *rev, *iter, *queue, *fifo;
  int *level;
  double *cap;
} network;

/* Compensated weighted mean of y over nodes v[0..k). */
static double set_mean(const double *y, const double *w, const gi_idx *v, gi_idx k)
{
  double swy = 0.0, cwy = 0.0, sw = 0.0, cw = 0.0, t, e;
  for (gi_idx a = 0; a < k; a++) {
    gi_idx i = v[a];
    double pe, p = two_prod(w[i], y[i], &pe);
    two_sum(swy, p, &t, &e);
    swy = t;
    cwy += e + pe;
    two_sum(sw, w[i], &t, &e);
    sw = t;
    cw += e;
  }
  double m = (swy + cwy) / (sw + cw);
  return isfinite(m) ? m : swy / sw;
}

/* Heights: the distance to the sink over residual arcs, by a search back
 * from it; nodes that do not reach it (the source among them) get nodes,
 * out of play. */
static void heights(network *N, gi_idx nodes, gi_idx s, gi_idx t, double tol)
{
  for (gi_idx u = 0; u < nodes; u++) N->level[u] = (int) nodes;
  gi_idx qh = 0, qt = 0;
  N->queue[qt++] = t;
  N->level[t] = 0;
  while (qh < qt) {
    gi_idx v = N->queue[qh++];
    for (gi_idx a = N->first[v]; a < N->first[v + 1]; a++) {
      gi_idx u = N->head[a];
      if (u == s || N->level[u] < (int) nodes || !(N->cap[N->rev[a]] > tol)) continue;
      N->level[u] = N->level[v] + 1;
      N->queue[qt++] = u;
    }
  }
}

/* A maximum preflow by push-relabel (Goldberg and Tarjan 1988: active
 * nodes first in, first out, the heights recomputed exactly after every
 * `nodes` relabels, as Cherkassky and Goldberg 1997 advise). Afterwards
 * the nodes that do not reach the sink over residual arcs (height nodes)
 * are the source side of a minimum cut, the largest one. Unlike Dinic's
 * method it needs no search of the whole network per augmenting path
 * length, which costs most on the long paths of large partial orders
 * (100 thresholds of 10,000 points on two covariates: 18.2 s -> 12.9 s).
 * 1 when interrupted. */
static int max_preflow(network *N, double *ex, gi_idx nodes, gi_idx s, gi_idx t, double tol)
{
  for (gi_idx u = 0; u < nodes; u++) {
    ex[u] = 0.0;
    N->iter[u] = N->first[u];
  }
  for (gi_idx a = N->first[s]; a < N->first[s + 1]; a++) {
    double d = N->cap[a];
    N->cap[a] = 0.0;
    N->cap[N->rev[a]] += d;
    ex[N->head[a]] += d;
  }
  heights(N, nodes, s, t, tol);
  gi_idx *fifo = N->fifo, qh = 0, len = 0, relabels = 0;
  int top = (int) nodes;
  for (gi_idx u = 0; u < nodes; u++)
    if (u != s && u != t && ex[u] > tol && N->level[u] < top) fifo[(qh + len++) % nodes] = u;
  while (len > 0) {
    gi_idx u = fifo[qh];
    qh = (qh + 1) % nodes;
    len--;
    /* discharge u, its state in registers */
    double eu = ex[u];
    int hu = N->level[u];
    gi_idx a = N->iter[u], end = N->first[u + 1];
    while (eu > tol && hu < top) {
      if (a == end) {
        int h = 2 * top;
        for (gi_idx b = N->first[u]; b < end; b++)
          if (N->cap[b] > tol && N->level[N->head[b]] < h) h = N->level[N->head[b]];
        hu = h + 1 < top ? h + 1 : top;
        N->level[u] = hu;
        a = N->first[u];
        if (++relabels == nodes) {
          relabels = 0;
          if (gi_interrupted((int64_t) N->first[nodes])) return 1;
          heights(N, nodes, s, t, tol);
          for (gi_idx x = 0; x < nodes; x++) N->iter[x] = N->first[x];
          hu = N->level[u];
        }
        continue;
      }
      gi_idx v = N->head[a];
      double ca = N->cap[a];
      if (ca > tol && hu == N->level[v] + 1) {
        double d = eu < ca ? eu : ca;
        N->cap[a] = ca - d;
        N->cap[N->rev[a]] += d;
        eu -= d;
        if (v != t && v != s && !(ex[v] > tol) && ex[v] + d > tol)
          fifo[(qh + len++) % nodes] = v;
        ex[v] += d;
        if (!(N->cap[a] > tol)) a++;
      } else {
        a++;
      }
    }
    ex[u] = eu;
    N->iter[u] = a;
    N->level[u] = hu;
  }
  heights(N, nodes, s, t, tol);
  return 0;
}

/* Routes the source's supply greedily before the preflow: from each node
 * fed by the source, a depth-first search along the edges (infinite arcs)
 * to nodes with sink capacity left, each node's arcs scanned once over all
 * searches (a node with nothing left below it is dead). This is a valid
 * flow, so the preflow may start from it; and where it routes the whole
 * supply it is a maximum flow, whose cut is the source alone: the set does
 * not split, and no heights need computing (a fifth of the sets that do
 * not split are proved so at n = 1e4 on two covariates, all thresholds);
 * elsewhere the preflow has less left to push. Its cost is one pass over
 * the arcs. (Following residual arcs back as well, an augmenting-path
 * search, proved no more for its cost.)
 * Returns 1 when the whole supply is routed. */
static int route_greedy(network *N, gi_idx nodes, gi_idx s, gi_idx t, double tol)
{
  int *state = N->level; /* 0 fresh, 1 on the search path, 2 dead */
  gi_idx *path = N->queue, *arcs = N->fifo;
  for (gi_idx u = 0; u < nodes; u++) {
    state[u] = 0;
    N->iter[u] = N->first[u];
  }
  int all = 1;
  for (gi_idx a0 = N->first[s]; a0 < N->first[s + 1]; a0++) {
    double supply = N->cap[a0], rem = supply;
    gi_idx q = N->head[a0], depth = 0;
    if (!(rem > tol) || state[q] == 2) {
      all &= !(rem > tol);
      continue;
    }
    path[depth++] = q;
    state[q] = 1;
    while (depth > 0 && rem > 0.0) {
      gi_idx u = path[depth - 1], end = N->first[u + 1];
      int down = 0;
      while (N->iter[u] < end) {
        gi_idx a = N->iter[u], v = N->head[a];
        if (v == t) {
          if (N->cap[a] > tol) {
            double d = rem < N->cap[a] ? rem : N->cap[a];
            N->cap[a] -= d;
            N->cap[N->rev[a]] += d;
            for (gi_idx i = 0; i + 1 < depth; i++) N->cap[N->rev[arcs[i]]] += d;
            rem -= d;
            if (rem == 0.0) break;
          }
        } else if (N->cap[a] == INFINITY && state[v] == 0) {
          arcs[depth - 1] = a;
          path[depth++] = v;
          state[v] = 1;
          down = 1;
          break;
        }
        N->iter[u]++;
      }
      if (down || rem == 0.0) continue;
      /* nothing left below u */
      state[u] = 2;
      depth--;
      if (depth > 0) N->iter[path[depth - 1]]++;
    }
    for (gi_idx i = 0; i < depth; i++) state[path[i]] = 0;
    N->cap[a0] = rem;
    N->cap[N->rev[a0]] += supply - rem;
    if (rem > tol) all = 0;
  }
  return all;
}

/* The graph's out-edges in CSR, shared by the problems of a batch. */
typedef struct {
  gi_idx n, *first, *head;
} graph;

/* One thread's workspace: the sets as segments of a permutation of the
 * nodes (a stack of them), the local numbering of a set, its capacities,
 * and the network of the largest set (the first: n + 2 nodes, arcs for
 * every edge and a source or sink arc per node, each with its reverse). */
typedef struct {
  gi_idx *perm, *tmp, *seg, *loc;
  double *c, *ex;
  network N;
  /* for an order of points in the plane (plane not NULL): the cut of
   * plane_cut.c, U's flags, and sort keys */
  const gi_plane *plane;
  gi_plane_ws P;
  unsigned char *in_u;
  uint64_t *keys;
} workspace;

static void work_free(workspace *W)
{
  free(W->perm); free(W->tmp); free(W->seg); free(W->loc); free(W->c); free(W->ex);
  free(W->N.first); free(W->N.head); free(W->N.rev); free(W->N.cap); free(W->N.iter);
  free(W->N.queue); free(W->N.fifo); free(W->N.level);
  free(W->in_u); free(W->keys);
  if (W->plane != NULL) gi_plane_ws_free(&W->P);
}

/* 1 when memory runs out (W then freed). With plane, the cuts need no
 * network. */
static int work_alloc(workspace *W, gi_idx n, gi_idx ne, const gi_plane *plane)
{
  memset(W, 0, sizeof(*W));
  if (plane != NULL) {
    W->perm = malloc(((size_t) n + 1) * sizeof(gi_idx));
    W->tmp = malloc(((size_t) n + 1) * sizeof(gi_idx));
    W->seg = malloc(2 * ((size_t) n + 1) * sizeof(gi_idx));
    W->c = malloc(((size_t) n + 1) * sizeof(double));
    W->in_u = malloc((size_t) n + 1);
    W->keys = malloc(((size_t) n + 1) * sizeof(uint64_t));
    if (W->perm && W->tmp && W->seg && W->c && W->in_u && W->keys &&
        gi_plane_ws_alloc(&W->P, n, plane->nrank) == 0) {
      W->plane = plane;
      return 0;
    }
    work_free(W);
    return 1;
  }
  size_t arcs = 2 * ((size_t) ne + (size_t) n) + 1, nodes = (size_t) n + 2;
  W->perm = malloc((size_t) n * sizeof(gi_idx));
  W->tmp = malloc((size_t) n * sizeof(gi_idx));
  W->seg = malloc(2 * ((size_t) n + 1) * sizeof(gi_idx));
  W->loc = malloc((size_t) n * sizeof(gi_idx));
  W->c = malloc((size_t) n * sizeof(double));
  W->ex = malloc(((size_t) n + 2) * sizeof(double));
  W->N.first = malloc((nodes + 1) * sizeof(gi_idx));
  W->N.head = malloc(arcs * sizeof(gi_idx));
  W->N.rev = malloc(arcs * sizeof(gi_idx));
  W->N.cap = malloc(arcs * sizeof(double));
  W->N.iter = malloc(nodes * sizeof(gi_idx));
  W->N.queue = malloc(nodes * sizeof(gi_idx));
  W->N.fifo = malloc(nodes * sizeof(gi_idx));
  W->N.level = malloc(nodes * sizeof(int));
  W->in_u = malloc((size_t) n + 1);
  if (W->perm && W->tmp && W->seg && W->loc && W->c && W->ex && W->N.first && W->N.head &&
      W->N.rev && W->N.cap && W->N.iter && W->N.queue && W->N.fifo && W->N.level && W->in_u) {
    for (gi_idx i = 0; i < n; i++) W->loc[i] = -1;
    return 0;
  }
  work_free(W);
  return 1;
}

/* The cut of the set v[0..k) of costs c[] by a maximum flow: marks the
 * source side (the upper set) in side[], returns its size and its value in
 * *value; 0 when a greedy routing proves that the set does not split; -1
 * when interrupted. */
static gi_idx network_cut(const graph *G, workspace *W, const gi_idx *v, gi_idx k,
                          const double *c, unsigned char *side, double *value)
{
  const gi_idx *ofirst = G->first, *ohead = G->head;
  gi_idx *loc = W->loc;
  network N = W->N;
  double cmax = 0.0;
  /* loc is -1 on every node between calls (work_alloc(), and each cut
   * resets its own), so a cut of a few nodes costs no O(n) pass */
  for (gi_idx q = 0; q < k; q++) {
    loc[v[q]] = q;
    if (fabs(c[q]) > cmax) cmax = fabs(c[q]);
  }
  gi_idx s = k, t = k + 1, nn = k + 2;
  /* the arcs: out-degree counts, then the arcs and their reverses */
  for (gi_idx u = 0; u <= nn; u++) N.first[u] = 0;
  for (gi_idx q = 0; q < k; q++) {
    gi_idx i = v[q];
    if (c[q] > 0.0) { N.first[s + 1]++; N.first[q + 1]++; }
    if (c[q] < 0.0) { N.first[q + 1]++; N.first[t + 1]++; }
    for (gi_idx e = ofirst[i]; e < ofirst[i + 1]; e++) {
      gi_idx r = loc[ohead[e]];
      if (r < 0 || r == q) continue;
      N.first[q + 1]++;
      N.first[r + 1]++;
    }
  }
  for (gi_idx u = 0; u < nn; u++) N.first[u + 1] += N.first[u];
  for (gi_idx u = 0; u < nn; u++) N.iter[u] = N.first[u];
#define ADD_ARC(U, V, CAP)                                                   \
  do {                                                                       \
    gi_idx a_ = N.iter[U]++, b_ = N.iter[V]++;                               \
    N.head[a_] = (V); N.cap[a_] = (CAP); N.rev[a_] = b_;                     \
    N.head[b_] = (U); N.cap[b_] = 0.0; N.rev[b_] = a_;                       \
  } while (0)
  for (gi_idx q = 0; q < k; q++) {
    gi_idx i = v[q];
    if (c[q] > 0.0) ADD_ARC(s, q, c[q]);
    if (c[q] < 0.0) ADD_ARC(q, t, -c[q]);
    for (gi_idx e = ofirst[i]; e < ofirst[i + 1]; e++) {
      gi_idx r = loc[ohead[e]];
      if (r < 0 || r == q) continue;
      ADD_ARC(q, r, INFINITY);
    }
  }
#undef ADD_ARC
  for (gi_idx q = 0; q < k; q++) loc[v[q]] = -1;
  double tol = 32.0 * DBL_EPSILON * cmax;
  /* a greedy routing of the whole supply is a maximum flow: no split */
  int routed = route_greedy(&N, nn, s, t, tol);
  if ((!routed && max_preflow(&N, W->ex, nn, s, t, tol)) ||
      gi_interrupted((int64_t) N.first[nn]))
    return -1;
  /* the source side of the cut: what does not reach the sink */
  double sum = 0.0;
  gi_idx nu = 0;
  for (gi_idx q = 0; q < k; q++) {
    side[q] = !routed && N.level[q] >= (int) nn;
    if (side[q]) {
      sum += c[q];
      nu++;
    }
  }
  *value = sum;
  return nu;
}

/* perm[0..k) (nodes) in the lexicographic order of their points: the
 * inverse of the positions for all n nodes, else by insertion for a few
 * and by a radix sort of the positions, a byte at a time, for more. */
static void plane_sort(workspace *W, gi_idx *perm, gi_idx k, gi_idx n, int all)
{
  const int *pos = W->plane->pos;
  if (all) {
    for (gi_idx i = 0; i < n; i++) perm[pos[i]] = i;
    return;
  }
  if (k <= 32) {
    for (gi_idx q = 1; q < k; q++) {
      gi_idx v = perm[q], a = q;
      for (; a > 0 && pos[perm[a - 1]] > pos[v]; a--) perm[a] = perm[a - 1];
      perm[a] = v;
    }
    return;
  }
  /* keys: position above, node below; sorted on the position's bytes */
  uint64_t *key = W->keys, *other = (uint64_t *) W->tmp;
  for (gi_idx q = 0; q < k; q++)
    key[q] = ((uint64_t) (uint32_t) pos[perm[q]] << 32) | (uint64_t) (uint32_t) perm[q];
  for (int shift = 32; shift < 64 && ((uint64_t) (n - 1) >> (shift - 32)) != 0; shift += 8) {
    gi_idx cnt[257] = {0};
    for (gi_idx q = 0; q < k; q++) cnt[((key[q] >> shift) & 0xff) + 1]++;
    for (int d = 0; d < 256; d++) cnt[d + 1] += cnt[d];
    for (gi_idx q = 0; q < k; q++) other[cnt[(key[q] >> shift) & 0xff]++] = key[q];
    uint64_t *t = key;
    key = other;
    other = t;
  }
  for (gi_idx q = 0; q < k; q++) perm[q] = (gi_idx) (key[q] & 0xffffffffu);
}

/* The final sets of the warm solves of a sequence (see solve_warm()): set
 * id of each node (-1: none), and each set's nodes in mem from start[id],
 * len[id] of them (those whose id has changed since have left it). */
typedef struct {
  gi_idx *id, *mem, *start, *len;
  gi_idx nmem, capmem, nsets, capsets, n;
} setstore;

/* Forgets every set. */
static void sets_clear(setstore *S)
{
  for (gi_idx i = 0; i < S->n; i++) S->id[i] = -1;
  S->nmem = S->nsets = 0;
}

/* The sets rebuilt from the nodes' ids (renumbered in order of first
 * node), dropping the nodes that have left: then mem holds at most n. */
static void sets_compact(setstore *S)
{
  gi_idx *map = S->start, *cnt = S->len, ns = 0; /* old id -> new id, sizes */
  for (gi_idx a = 0; a < S->nsets; a++) map[a] = -1;
  for (gi_idx i = 0; i < S->n; i++) {
    gi_idx id = S->id[i];
    if (id < 0) continue;
    if (map[id] < 0) map[id] = ns++;
    S->id[i] = map[id];
  }
  for (gi_idx a = 0; a < ns; a++) cnt[a] = 0;
  for (gi_idx i = 0; i < S->n; i++)
    if (S->id[i] >= 0) cnt[S->id[i]]++;
  /* starts from the sizes, then the nodes in order */
  gi_idx at = 0;
  for (gi_idx a = 0; a < ns; a++) {
    gi_idx c = cnt[a];
    map[a] = at;
    at += c;
  }
  for (gi_idx i = 0; i < S->n; i++)
    if (S->id[i] >= 0) S->mem[map[S->id[i]]++] = i;
  for (gi_idx a = 0; a < ns; a++) map[a] -= cnt[a];
  S->nsets = ns;
  S->nmem = at;
}

/* Records v[0..k) as a set; 1 when memory runs out. The store is compacted
 * when it would grow past 8n nodes, so it stays O(n). */
static int sets_add(setstore *S, const gi_idx *v, gi_idx k)
{
  if (S->nmem + k > 8 * S->n + 64) sets_compact(S);
  if (S->nmem + k > S->capmem) {
    gi_idx cap = 2 * S->capmem + k;
    gi_idx *m = realloc(S->mem, (size_t) cap * sizeof(gi_idx));
    if (m == NULL) return 1;
    S->mem = m;
    S->capmem = cap;
  }
  if (S->nsets == S->capsets) {
    gi_idx cap = 2 * S->capsets + 64;
    gi_idx *a = realloc(S->start, (size_t) cap * sizeof(gi_idx));
    if (a != NULL) S->start = a;
    gi_idx *b = realloc(S->len, (size_t) cap * sizeof(gi_idx));
    if (b != NULL) S->len = b;
    if (a == NULL || b == NULL) return 1;
    S->capsets = cap;
  }
  gi_idx id = S->nsets++;
  S->start[id] = S->nmem;
  S->len[id] = k;
  for (gi_idx q = 0; q < k; q++) {
    S->mem[S->nmem++] = v[q];
    S->id[v[q]] = id;
  }
  return 0;
}

/* One problem on graph G, on all its nodes (nodes NULL) or on the k nodes
 * listed with the edges among them (fit written there only). With label,
 * the nodes of each final set (a set of one value that does not split) get
 * a label of their own, *next and up. For an order of points in the plane
 * (W->plane), each set is kept in lexicographic order (a split keeps the
 * order within its parts) for plane_cut.c's cuts. */
static gi_status solve(const graph *G, workspace *W, const double *y, const double *w,
                       const gi_idx *nodes, gi_idx k0, double *fit, gi_idx *label,
                       gi_idx *next, setstore *S)
{
  gi_idx n = G->n, *perm = W->perm, *tmp = W->tmp, *seg = W->seg;
  double *c = W->c;
  unsigned char *side = W->in_u;
  gi_status status = GI_OK;
  if (nodes == NULL) k0 = n;
  if (W->plane != NULL && k0 > 1) {
    if (nodes != NULL) memcpy(perm, nodes, (size_t) k0 * sizeof(gi_idx));
    plane_sort(W, perm, k0, n, nodes == NULL);
  } else {
    for (gi_idx i = 0; i < k0; i++) perm[i] = nodes ? nodes[i] : i;
  }
  seg[0] = 0;
  seg[1] = k0;
  gi_idx nseg = 1;
  while (nseg > 0 && status == GI_OK) {
    nseg--;
    gi_idx a0 = seg[2 * nseg], k = seg[2 * nseg + 1] - a0;
    const gi_idx *v = perm + a0;
    double m = set_mean(y, w, v, k);
    if (k == 1) {
      fit[v[0]] = m;
      if (label) label[v[0]] = (*next)++;
      if (S != NULL && sets_add(S, v, 1)) status = GI_ERR_NOMEM;
      continue;
    }
    double csum = 0.0;
    for (gi_idx q = 0; q < k; q++) {
      c[q] = w[v[q]] * (y[v[q]] - m);
      csum += fabs(c[q]);
    }
    double value = 0.0;
    gi_idx nu;
    if (W->plane != NULL) {
      nu = gi_plane_cut(&W->P, W->plane->rank, v, k, c, side, &value);
      /* counted as the network of the set's covering pairs would be
       * (about 8 arcs a node in the plane), so that the polls for
       * interrupts come about as often in time */
      if (gi_interrupted(8 * (int64_t) k)) nu = -1;
    } else {
      nu = network_cut(G, W, v, k, c, side, &value);
    }
    if (nu < 0) {
      status = GI_ERR_INTERRUPT;
      break;
    }
    if (nu == 0 || nu == k || !(value > 64.0 * DBL_EPSILON * csum)) {
      for (gi_idx q = 0; q < k; q++) fit[v[q]] = m;
      if (label) {
        for (gi_idx q = 0; q < k; q++) label[v[q]] = *next;
        (*next)++;
      }
      if (S != NULL && sets_add(S, v, k)) status = GI_ERR_NOMEM;
      continue;
    }
    /* U (the upper set) after the rest, each a set of its own */
    gi_idx lo = 0, hi = k - nu;
    for (gi_idx q = 0; q < k; q++) {
      if (side[q]) tmp[hi++] = v[q];
      else tmp[lo++] = v[q];
    }
    memcpy(perm + a0, tmp, (size_t) k * sizeof(gi_idx));
    seg[2 * nseg] = a0;
    seg[2 * nseg + 1] = a0 + k - nu;
    nseg++;
    seg[2 * nseg] = a0 + k - nu;
    seg[2 * nseg + 1] = a0 + k;
    nseg++;
  }
  return status;
}

/* The CSR of the edges from[e] -> to[e] over n nodes into G: 1 when memory
 * runs out (G then freed). */
static int graph_csr(gi_idx n, const int *from, const int *to, gi_idx ne, graph *G)
{
  G->n = n;
  G->first = calloc((size_t) n + 1, sizeof(gi_idx));
  G->head = malloc(((size_t) ne + 1) * sizeof(gi_idx));
  if (G->first == NULL || G->head == NULL) {
    free(G->first);
    free(G->head);
    return 1;
  }
  for (gi_idx e = 0; e < ne; e++) G->first[from[e] + 1]++;
  for (gi_idx i = 0; i < n; i++) G->first[i + 1] += G->first[i];
  for (gi_idx e = 0; e < ne; e++) G->head[G->first[from[e]]++] = to[e];
  for (gi_idx i = n; i > 0; i--) G->first[i] = G->first[i - 1];
  G->first[0] = 0;
  return 0;
}

gi_status gi_poset_fit_batch(const double *y, const double *w, gi_idx n, gi_idx K,
                             const int *from, const int *to, gi_idx ne,
                             const gi_plane *plane, int nthreads, double *fit)
{
  if (n <= 0 || K <= 0) return GI_OK;
  graph G;
  if (graph_csr(n, from, to, ne, &G)) return GI_ERR_NOMEM;
  int nt = gi_threads_cap(nthreads);
  if ((gi_idx) nt > K) nt = (int) K;
  gi_status status = GI_OK;
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    workspace W;
    gi_status st = work_alloc(&W, n, ne, plane) ? GI_ERR_NOMEM : GI_OK;
#pragma omp for schedule(dynamic, 1)
    for (gi_idx k = 0; k < K; k++) {
      gi_status all;
#pragma omp atomic read
      all = status;
      if (st != GI_OK || all != GI_OK) continue;
      st = solve(&G, &W, y + (size_t) k * n, w, NULL, 0, fit + (size_t) k * n, NULL, NULL,
                 NULL);
    }
    if (st != GI_OK) {
#pragma omp critical(gi_poset_status)
      if (status == GI_OK) status = st;
    }
    if (st != GI_ERR_NOMEM) work_free(&W);
  }
  free(G.first);
  free(G.head);
  if (status == GI_OK && gi_stop_requested()) status = GI_ERR_INTERRUPT;
  return status;
}

/* Whether two fitted values are one level (equal up to the rounding of
 * their means). */
static inline int same_level(double a, double b)
{
  double s = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
  return fabs(a - b) <= 64.0 * DBL_EPSILON * s;
}

/* A thread's state for warm starts: the region R (a list and a flag per
 * node); the block label of each node of R, and over the labels (at most
 * 2n + 1 in a round) a union-find with a flag for the blocks that must be
 * solved; work lists; and the smallest and largest values of the previous
 * problem y0. */
typedef struct {
  gi_idx *R, *queue, nR;
  unsigned char *in;
  gi_idx *lab, *parent, *map, *order, *bstart, next;
  unsigned char *dirty, *dnew;
  double ymin, ymax;
  setstore sets;
} region;

static void region_free(region *Q)
{
  free(Q->R); free(Q->queue); free(Q->in); free(Q->lab); free(Q->parent); free(Q->map);
  free(Q->order); free(Q->bstart); free(Q->dirty); free(Q->dnew);
  free(Q->sets.id); free(Q->sets.mem); free(Q->sets.start); free(Q->sets.len);
}

/* 1 when memory runs out (Q then freed). */
static int region_alloc(region *Q, gi_idx n)
{
  size_t cap = 2 * (size_t) n + 1;
  memset(Q, 0, sizeof(region));
  Q->R = malloc((size_t) n * sizeof(gi_idx));
  Q->queue = malloc((size_t) n * sizeof(gi_idx));
  Q->in = calloc((size_t) n, 1);
  Q->lab = malloc((size_t) n * sizeof(gi_idx));
  Q->parent = malloc(cap * sizeof(gi_idx));
  Q->map = malloc(cap * sizeof(gi_idx));
  Q->order = malloc((size_t) n * sizeof(gi_idx));
  Q->bstart = malloc(((size_t) n + 1) * sizeof(gi_idx));
  Q->dirty = malloc(cap);
  Q->dnew = malloc((size_t) n + 1);
  Q->sets.id = malloc(((size_t) n + 1) * sizeof(gi_idx));
  Q->sets.n = n;
  if (Q->R && Q->queue && Q->in && Q->lab && Q->parent && Q->map && Q->order && Q->bstart &&
      Q->dirty && Q->dnew && Q->sets.id) {
    for (size_t l = 0; l < cap; l++) Q->map[l] = -1;
    sets_clear(&Q->sets);
    return 0;
  }
  region_free(Q);
  return 1;
}

static gi_idx new_label(region *Q)
{
  gi_idx l = Q->next++;
  Q->parent[l] = l;
  Q->dirty[l] = 1;
  return l;
}

static gi_idx find(region *Q, gi_idx l)
{
  while (Q->parent[l] != l) {
    Q->parent[l] = Q->parent[Q->parent[l]];
    l = Q->parent[l];
  }
  return l;
}

/* Pools two blocks into one, to be solved. */
static void join(region *Q, gi_idx a, gi_idx b)
{
  a = find(Q, a);
  b = find(Q, b);
  if (a != b) Q->parent[a] = b;
  Q->dirty[b] = 1;
}

static inline void region_add(region *Q, gi_idx v, gi_idx l)
{
  Q->in[v] = 1;
  Q->lab[v] = l;
  Q->R[Q->nR++] = v;
}

/* Whether node u lies at the bottom (-1) or the top (+1) of the previous
 * problem: fitted and observed at its smallest or largest value. Such a
 * level set has the mean of its extreme values only if every value in it is
 * that extreme, so it fits its data exactly and its constraints carry no
 * multiplier: each of its nodes may be taken as a level set of its own. */
static inline int extreme(const region *Q, const double *y0, const double *f0, gi_idx u)
{
  if (f0[u] == Q->ymin && y0[u] == Q->ymin) return -1;
  if (f0[u] == Q->ymax && y0[u] == Q->ymax) return 1;
  return 0;
}

/* Adds node v to R as a new block, to be solved, and returns its label.
 * The block is v's set in Q->sets: the final set that held v in the last
 * solve of the sequence that held it, or its level set of the fit the
 * sequence started from (see sets_from_levels()); every node has one,
 * from the sequence's first problem on. Such a set has the multipliers of
 * its solution on its inner constraints only, and it has not changed
 * since: a change to any of its nodes brings the whole set into R, where
 * it is solved again and gets new sets. But a node at the bottom comes
 * alone, and when it must rise (up > 0), so must every node above it at
 * the bottom (reached by the edges): they come with it, which saves
 * growing R one edge at a time through them. The top likewise, downwards
 * (up < 0). A set at an extreme fits its data exactly, so any part of it
 * may stay behind. */
static gi_idx add_node(const graph *G, const graph *In, const double *y0, const double *f0,
                       region *Q, gi_idx v, int up)
{
  gi_idx l = new_label(Q), qh = 0, qt = 0;
  int x = extreme(Q, y0, f0, v);
  region_add(Q, v, l);
  if (x != 0 && (x < 0) != (up > 0)) return l;
  if (x == 0) {
    /* v's final set in the last solve that held it: still a set solved on
     * its own, as no node of it has changed since (a change re-solves the
     * whole set), and no search over the edges */
    const setstore *S = &Q->sets;
    gi_idx id = S->id[v];
    for (gi_idx q = S->start[id], e = q + S->len[id]; q < e; q++) {
      gi_idx t = S->mem[q];
      if (S->id[t] == id && !Q->in[t]) region_add(Q, t, l);
    }
    return l;
  }
  /* the nodes at v's extreme reached from it along the edges up from the
   * bottom, or down from the top */
  const graph *H = x < 0 ? G : In;
  Q->queue[qt++] = v;
  while (qh < qt) {
    gi_idx u = Q->queue[qh++];
    for (gi_idx e = H->first[u]; e < H->first[u + 1]; e++) {
      gi_idx t = H->head[e];
      if (Q->in[t] || extreme(Q, y0, f0, t) != x) continue;
      region_add(Q, t, l);
      Q->queue[qt++] = t;
    }
  }
  return l;
}

/* The level sets of f (nodes joined by edges, either way, with the same
 * value) recorded as the sets of Q, for a sequence that starts warm from
 * f: 1 when memory runs out. */
static int sets_from_levels(const graph *G, const graph *In, const double *f, region *Q)
{
  setstore *S = &Q->sets;
  sets_clear(S);
  for (gi_idx v = 0; v < G->n; v++) {
    if (S->id[v] >= 0) continue;
    gi_idx qh = 0, qt = 0;
    Q->queue[qt++] = v;
    Q->in[v] = 1;
    while (qh < qt) {
      gi_idx u = Q->queue[qh++];
      for (int dir = 0; dir < 2; dir++) {
        const graph *H = dir == 0 ? G : In;
        for (gi_idx e = H->first[u]; e < H->first[u + 1]; e++) {
          gi_idx t = H->head[e];
          if (Q->in[t] || !same_level(f[u], f[t])) continue;
          Q->in[t] = 1;
          Q->queue[qt++] = t;
        }
      }
    }
    for (gi_idx q = 0; q < qt; q++) Q->in[Q->queue[q]] = 0;
    if (sets_add(S, Q->queue, qt)) return 1;
  }
  return 0;
}

/* The blocks of R numbered 0, 1, ... afresh (the labels pooled by join()
 * become one), and R's nodes listed by block; returns their number. */
static gi_idx renumber(region *Q)
{
  gi_idx B = 0, *roots = Q->queue;
  for (gi_idx a = 0; a < Q->nR; a++) {
    gi_idx r = Q->R[a], l = find(Q, Q->lab[r]);
    if (Q->map[l] < 0) {
      Q->map[l] = B;
      Q->dnew[B] = Q->dirty[l];
      roots[B++] = l;
    }
    Q->lab[r] = l;
  }
  for (gi_idx a = 0; a < Q->nR; a++) Q->lab[Q->R[a]] = Q->map[Q->lab[Q->R[a]]];
  for (gi_idx b = 0; b < B; b++) {
    Q->map[roots[b]] = -1;
    Q->parent[b] = b;
    Q->dirty[b] = Q->dnew[b];
    Q->bstart[b + 1] = 0;
  }
  Q->bstart[0] = 0;
  Q->next = B;
  for (gi_idx a = 0; a < Q->nR; a++) Q->bstart[Q->lab[Q->R[a]] + 1]++;
  for (gi_idx b = 0; b < B; b++) Q->bstart[b + 1] += Q->bstart[b];
  for (gi_idx b = 0; b < B; b++) roots[b] = Q->bstart[b];
  for (gi_idx a = 0; a < Q->nR; a++) Q->order[roots[Q->lab[Q->R[a]]]++] = Q->R[a];
  return B;
}

/* Rounds of pooling and splitting before a region is solved in full. */
#define WARM_ROUNDS 256

/* A region that starts with more than this share of the nodes is solved in
 * full at once: its blocks and rounds would cost more than one solve.
 * Measured on two covariates, one thread (poset_fit, warm): 10,000 points
 * at 100 thresholds (1 % of the points switch at each) 322 -> 205 ms
 * (cold: 196), 100,000 points at 100 thresholds 10.8 -> 3.5 s; at 300,
 * 1,000 and 3,000 thresholds the region stays under it and nothing
 * changes (a share of 0.1 would have cost 1,000 thresholds 2.2 times). */
#define WARM_MAX_SHARE 0.5

/* The problem y whose previous neighbour y0 has the solution f0: fit is
 * f0 except on a region R, a union of blocks, grown from the nodes where y
 * differs from y0 with their sets (see add_node()). Each block that joins
 * R is solved and splits into the level sets of its own solution, which
 * stand until pooled. Then where a constraint between two blocks fails,
 * the two are pooled into one block to be solved, and where one between R
 * and the rest fails, the node across it joins R with its set and is
 * pooled with the block it fails against; until none fails. That is the
 * solution: every block, and every set outside R, is a problem solved on
 * its own, and a solution on its own
 * has multipliers on its inner constraints only (none at all at an extreme
 * value: see extreme()); since the constraints between blocks hold, these
 * multipliers are those of the whole problem. A region however large
 * costs only its blocks to solve, but one still failing after WARM_ROUNDS
 * rounds is solved in full instead (the same solution; a bound on the
 * rounds, which no measured sweep has reached), and so is one that starts
 * with most of the nodes (WARM_MAX_SHARE). */
static gi_status solve_warm(const graph *G, const graph *In, workspace *W, region *Q,
                            const double *y, const double *y0, const double *f0,
                            const double *w, double *fit)
{
  gi_idx n = G->n;
  memcpy(fit, f0, (size_t) n * sizeof(double));
  Q->nR = 0;
  Q->next = 0;
  /* one pass for the extremes of y0 and the nodes that change (listed in
   * Q->order, which renumber() fills only later) */
  double lo = y0[0], hi = y0[0];
  gi_idx nc = 0, *changed = Q->order, i = 0;
#if defined(__SSE2__)
  /* two at a time: few nodes change (the extremes only meet ==, where -0
   * and 0 are one) */
  __m128d vlo = _mm_set1_pd(lo), vhi = vlo;
  for (; i + 2 <= n; i += 2) {
    __m128d a = _mm_loadu_pd(y0 + i);
    vlo = _mm_min_pd(vlo, a);
    vhi = _mm_max_pd(vhi, a);
    int ne = _mm_movemask_pd(_mm_cmpneq_pd(a, _mm_loadu_pd(y + i)));
    if (ne != 0) {
      if (ne & 1) changed[nc++] = i;
      if (ne & 2) changed[nc++] = i + 1;
    }
  }
  double l2[2], h2[2];
  _mm_storeu_pd(l2, vlo);
  _mm_storeu_pd(h2, vhi);
  lo = l2[0] < l2[1] ? l2[0] : l2[1];
  hi = h2[0] > h2[1] ? h2[0] : h2[1];
#endif
  for (; i < n; i++) {
    double v = y0[i];
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
    changed[nc] = i;
    nc += y[i] != v;
  }
  Q->ymin = lo;
  Q->ymax = hi;
  for (gi_idx a = 0; a < nc; a++) {
    gi_idx i = changed[a];
    if (!Q->in[i]) add_node(G, In, y0, f0, Q, i, y[i] > y0[i] ? 1 : -1);
  }
  gi_status st = GI_OK;
  int full = (double) Q->nR > WARM_MAX_SHARE * (double) n;
  for (int round = 0; Q->nR > 0; round++) {
    if (full || round == WARM_ROUNDS) {
      for (gi_idx a = 0; a < Q->nR; a++) Q->in[Q->R[a]] = 0;
      Q->nR = 0;
      sets_clear(&Q->sets); /* a full solve finds them all afresh */
      return solve(G, W, y, w, NULL, 0, fit, NULL, NULL, &Q->sets);
    }
    gi_idx B = renumber(Q);
    for (gi_idx b = 0; b < B && st == GI_OK; b++) {
      if (!Q->dirty[b]) continue;
      gi_idx l0 = Q->next;
      st = solve(G, W, y, w, Q->order + Q->bstart[b], Q->bstart[b + 1] - Q->bstart[b], fit,
                 Q->lab, &Q->next, &Q->sets);
      for (gi_idx l = l0; l < Q->next; l++) {
        Q->parent[l] = l;
        Q->dirty[l] = 0;
      }
    }
    if (st != GI_OK) break;
    /* the constraints at R's nodes: out-edges (r below v) and in-edges
     * (v below r); v across a failing one must rise or fall */
    int pooled = 0;
    gi_idx before = Q->nR;
    for (gi_idx a = 0; a < before; a++) {
      gi_idx r = Q->R[a];
      for (int dir = 0; dir < 2; dir++) {
        const graph *H = dir == 0 ? G : In;
        for (gi_idx e = H->first[r]; e < H->first[r + 1]; e++) {
          gi_idx v = H->head[e];
          if (!(dir == 0 ? fit[r] > fit[v] : fit[v] > fit[r])) continue;
          if (!Q->in[v]) {
            join(Q, Q->lab[r], add_node(G, In, y0, f0, Q, v, dir == 0 ? 1 : -1));
            pooled = 1;
          } else if (!same_level(fit[r], fit[v]) && find(Q, Q->lab[r]) != find(Q, Q->lab[v])) {
            join(Q, Q->lab[r], Q->lab[v]);
            pooled = 1;
          }
        }
      }
    }
    if (!pooled) break;
  }
  for (gi_idx a = 0; a < Q->nR; a++) Q->in[Q->R[a]] = 0;
  /* the passes over all nodes and the region's constraints, counted as
   * work between polls for interrupts (the cuts count their own) */
  if (st == GI_OK && gi_interrupted((int64_t) n + 8 * (int64_t) Q->nR))
    st = GI_ERR_INTERRUPT;
  return st;
}

gi_status gi_poset_fit_sequence(const double *y, const double *w, gi_idx n, gi_idx K,
                                const int *from, const int *to, gi_idx ne,
                                const gi_plane *plane, const double *y_prev,
                                const double *f_prev, int nthreads, double *fit)
{
  if (n <= 0 || K <= 0) return GI_OK;
  /* the out-edges, and the in-edges (the edges reversed) for the warm starts */
  graph G, In;
  if (graph_csr(n, from, to, ne, &G)) return GI_ERR_NOMEM;
  if (graph_csr(n, to, from, ne, &In)) {
    free(G.first);
    free(G.head);
    return GI_ERR_NOMEM;
  }
  int nt = gi_threads_cap(nthreads);
  if ((gi_idx) nt > K) nt = (int) K;
  gi_status status = GI_OK;
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    workspace W;
    region Q;
    int qfail = region_alloc(&Q, n);
    int wfail = work_alloc(&W, n, ne, plane);
    gi_status st = wfail ? GI_ERR_NOMEM : GI_OK;
    if (qfail) st = GI_ERR_NOMEM;
    /* thread t takes a run of consecutive problems: the first in full
     * (warm from the previous call's last one for t = 0), the rest warm */
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    gi_idx k0 = K * t / T, k1 = K * (t + 1) / T;
    for (gi_idx k = k0; k < k1 && st == GI_OK; k++) {
      gi_status all;
#pragma omp atomic read
      all = status;
      if (all != GI_OK) break;
      const double *yk = y + (size_t) k * n;
      double *fk = fit + (size_t) k * n;
      if (k > k0) {
        st = solve_warm(&G, &In, &W, &Q, yk, yk - n, fk - n, w, fk);
      } else if (k == 0 && y_prev != NULL) {
        st = sets_from_levels(&G, &In, f_prev, &Q) ? GI_ERR_NOMEM
             : solve_warm(&G, &In, &W, &Q, yk, y_prev, f_prev, w, fk);
      } else {
        st = solve(&G, &W, yk, w, NULL, 0, fk, NULL, NULL, &Q.sets);
      }
    }
    if (st != GI_OK) {
#pragma omp critical(gi_poset_status)
      if (status == GI_OK) status = st;
    }
    if (!wfail) work_free(&W);
    if (!qfail) region_free(&Q);
  }
  free(G.first); free(G.head); free(In.first); free(In.head);
  if (status == GI_OK && gi_stop_requested()) status = GI_ERR_INTERRUPT;
  return status;
}

gi_status gi_poset_fit(const double *y, const double *w, gi_idx n, const int *from,
                       const int *to, gi_idx ne, double *fit)
{
  return gi_poset_fit_batch(y, w, n, 1, from, to, ne, NULL, 1, fit);
}

/* Whether x_i <= x_j in every coordinate (x is n x d, by columns). */
static inline int below(const double *x, gi_idx n, int d, gi_idx i, gi_idx j)
{
  for (int c = 0; c < d; c++)
    if (x[(size_t) c * n + i] > x[(size_t) c * n + j]) return 0;
  return 1;
}

/* The covering pairs of a run of points (in lex order), kept apart so
 * that threads fill runs in any order and the pairs still come out in the
 * order of one pass. */
typedef struct {
  int *f, *g;
  gi_idx len, cap;
} pair_run;

#define COVER_RUN 64

/* Appends the pair i -> j to P (room grown for a run of len points): 1
 * when memory runs out. */
static int add_pair(pair_run *P, gi_idx i, gi_idx j, gi_idx len)
{
  if (P->len == P->cap) {
    gi_idx cap = P->cap ? 2 * P->cap : 4 * len;
    int *f2 = realloc(P->f, (size_t) cap * sizeof(int));
    if (f2) P->f = f2;
    int *g2 = realloc(P->g, (size_t) cap * sizeof(int));
    if (g2) P->g = g2;
    if (!f2 || !g2) return 1;
    P->cap = cap;
  }
  P->f[P->len] = (int) i;
  P->g[P->len] = (int) j;
  P->len++;
  return 0;
}

/* The covers of lex[a0..a1) into P: 0, or 1 when memory runs out, 2 when
 * interrupted. */
static int covers(const double *x, gi_idx n, int d, const int *lex, gi_idx a0, gi_idx a1,
                  gi_idx *minimal, pair_run *P)
{
  for (gi_idx a = a0; a < a1; a++) {
    gi_idx i = lex[a], nm = 0;
    /* lex is a linear extension (the points in lexicographic order), so
     * the points above point i come after it; the first of them not above
     * another one kept so far are its covers */
    for (gi_idx b = a + 1; b < n; b++) {
      gi_idx j = lex[b];
      if (!below(x, n, d, i, j)) continue;
      int covered = 0;
      for (gi_idx q = 0; q < nm && !covered; q++) covered = below(x, n, d, minimal[q], j);
      if (covered) continue;
      minimal[nm++] = j;
      if (add_pair(P, i, j, a1 - a0)) return 1;
    }
    if (gi_interrupted((int64_t) (n - a) * d)) return 2;
  }
  return 0;
}

int gi_poset_comp_edges(const double *x, gi_idx n, int d, const int *lex, int nthreads,
                        int **from, int **to, gi_idx *ne)
{
  if (d == 2) {
    /* in the plane, a sweep (plane_covers.c) */
    double *z = malloc(((size_t) n + 1) * sizeof(double));
    if (z == NULL) return 1;
    for (gi_idx a = 0; a < n; a++) z[a] = x[n + lex[a]];
    int rc = gi_plane_covers(z, lex, n, from, to, ne);
    free(z);
    return rc;
  }
  gi_idx runs = (n + COVER_RUN - 1) / COVER_RUN;
  pair_run *P = calloc((size_t) runs + 1, sizeof(pair_run));
  if (P == NULL) return 1;
  int fail = 0, nt = gi_threads_cap(nthreads);
  if ((gi_idx) nt > runs) nt = runs > 0 ? (int) runs : 1;
  /* the points early in lex have the most points above them: runs are
   * handed out one at a time */
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    gi_idx *minimal = malloc(((size_t) n + 1) * sizeof(gi_idx));
    if (minimal == NULL) {
#pragma omp atomic write
      fail = 1;
    }
#pragma omp for schedule(dynamic, 1)
    for (gi_idx r = 0; r < runs; r++) {
      int now;
#pragma omp atomic read
      now = fail;
      if (now || minimal == NULL) continue;
      gi_idx a1 = (r + 1) * COVER_RUN < n ? (r + 1) * COVER_RUN : n;
      int rc = covers(x, n, d, lex, r * COVER_RUN, a1, minimal, &P[r]);
      if (rc) {
#pragma omp critical(gi_poset_edges)
        if (fail == 0 || rc == 1) fail = rc;
      }
    }
    free(minimal);
  }
  gi_idx len = 0;
  for (gi_idx r = 0; r < runs; r++) len += P[r].len;
  int *f = NULL, *g = NULL;
  if (fail == 0) {
    f = malloc(((size_t) len + 1) * sizeof(int));
    g = malloc(((size_t) len + 1) * sizeof(int));
    if (f == NULL || g == NULL) fail = 1;
  }
  gi_idx at = 0;
  for (gi_idx r = 0; r < runs; r++) {
    if (fail == 0 && P[r].len > 0) {
      memcpy(f + at, P[r].f, (size_t) P[r].len * sizeof(int));
      memcpy(g + at, P[r].g, (size_t) P[r].len * sizeof(int));
      at += P[r].len;
    }
    free(P[r].f);
    free(P[r].g);
  }
  free(P);
  if (fail) {
    free(f);
    free(g);
    return fail;
  }
  *from = f;
  *to = g;
  *ne = len;
  return 0;
}

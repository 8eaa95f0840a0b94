/*
 * gpuiso CUDA engine: isotonic distributional regression on two covariates
 * (points in the plane under the componentwise order), for one fit or a
 * batch of independent fits (levels). Each threshold of a level is one
 * antitonic problem over the level's m distinct points, solved exactly by
 * the partitioning algorithm of core/poset.c with the staircase cut of
 * core/plane_cut.c: a set of mean mu takes the costs w_i (y_i - mu), the
 * cut splits off its best upper set U, and the set is final when the cut's
 * value is within 64 ulps of sum |c_i|.
 *
 * One CUDA block per threshold: its threads build the shares from the
 * observations, then one thread solves with the whole workspace in the
 * block's shared memory, 8 (ranks + bitset words) + 4 m bytes and a
 * stack, which bounds m at about 18,000 (beyond: GI_CUDA_RANGE, the CPU
 * fits). A thread of a GPU is far slower than a CPU core on this chain
 * of dependent steps; the device wins by running thousands of thresholds
 * at once from shared memory (bench/gpu/poset-exact-RESULTS.md), so the
 * smaller the workspace, the more thresholds an SM runs and the faster
 * the fit (bench/gpu/idr-plane-RESULTS.md).
 *
 * The nodes are renumbered by their lexicographic position in the solver's
 * orientation (the order mirrored: what is below for IDR is above for the
 * isotonic solver, as in core/idr_poset.c). A set is then a segment of a
 * permutation kept increasing, which the cut's stable split preserves, so
 * no sort is needed. The smaller part of a split is solved first, so the
 * stack never holds more than log2(m) + 2 sets.
 *
 * As on the CPU (core/idr_poset.c): the shares are the compensated counts
 * over the compensated node weights, each set's mean is compensated, the
 * fits are clamped to [0, 1] and raised to the previous threshold's where
 * rounding left them below; thresholds at which no observation switches on
 * keep the previous fit, and the last is 1. Only the blocks (runs of equal
 * values in the caller's order of the nodes) come back to the host, in
 * waves of whole thresholds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <float.h>
#include <cub/cub.cuh>
#include "engine.cuh"
#include "../core/dd.h" /* the host's two_sum(), as core/idr_poset.c sums */
#include "gi_cuda.h"

#define PO_CAP 64        /* stack entries: log2(m) + 2 are needed */
#define PO_LEVELS 6      /* bitset levels: 64^6 ranks at most */
#define PO_WAVE ((int64_t) 1 << 25) /* values per wave, at most */
#define PO_SOLVE 32      /* threads of a solving block (they build the shares) */
#define PO_ROW 256       /* threads of a block reducing a threshold to blocks */

/* A level: its nodes col0 .. col0 + m - 1 (of all levels' side by side),
 * its problems p0 .. p0 + K - 1, its ranks and their bitset's shape (level
 * b of the bitset has words off[b] .. off[b + 1] - 1). */
struct po_level {
  int64_t col0, p0;
  int32_t m, nrank, K, nlev;
  int32_t off[PO_LEVELS + 1];
};

/* A threshold problem solved in a wave: its values at wave offset `off`. */
struct po_task {
  int64_t off;
  int32_t level, k;
};

/* A level's thresholds ka .. kb - 1 in a wave, from wave offset `base`. */
struct po_span {
  int64_t base;
  int32_t ka, kb;
};

/* A threshold of a wave: its values at `off`, m of them. */
struct po_row {
  int64_t off;
  int32_t m;
};

/* A compensated sum of weights and one of weighted values. */
struct po_sums {
  double w, we, wy, wye;
  __device__ void add(double wv, double yv)
  {
    double p = wv * yv, pe = fma(wv, yv, -p);
    dd s = two_sum(wy, p);
    wy = s.hi;
    wye += s.lo + pe;
    s = two_sum(w, wv);
    w = s.hi;
    we += s.lo;
  }
  __device__ double mean() const
  {
    double m = (wy + wye) / (w + we);
    return isfinite(m) ? m : wy / w;
  }
};

__device__ __forceinline__ int po_top_bit(uint64_t x) { return 63 - __clzll((long long) x); }

__device__ __forceinline__ void bit_set(const po_level &L, uint64_t *B, int x)
{
  for (int l = 0; l < L.nlev; l++) {
    int i = L.off[l] + (x >> 6);
    uint64_t was = B[i];
    B[i] = was | ((uint64_t) 1 << (x & 63));
    if (was != 0) return; /* the levels above know this word */
    x >>= 6;
  }
}

__device__ __forceinline__ void bit_clear(const po_level &L, uint64_t *B, int x)
{
  for (int l = 0; l < L.nlev; l++) {
    int i = L.off[l] + (x >> 6);
    uint64_t v = B[i] & ~((uint64_t) 1 << (x & 63));
    B[i] = v;
    if (v != 0) return;
    x >>= 6;
  }
}

/* The largest set position <= x, or -1. */
__device__ __forceinline__ int bit_pred(const po_level &L, const uint64_t *B, int x)
{
  for (int l = 0; l < L.nlev && x >= 0; l++) {
    int wi = x >> 6, b = x & 63;
    uint64_t m = B[L.off[l] + wi] & (b == 63 ? ~(uint64_t) 0 : (((uint64_t) 2 << b) - 1));
    if (m != 0) {
      x = (wi << 6) + po_top_bit(m);
      for (int d = l - 1; d >= 0; d--) x = (x << 6) + po_top_bit(B[L.off[d] + x]);
      return x;
    }
    x = wi - 1; /* the words before wi, one level up */
  }
  return -1;
}

/* Shared memory of a level's solving block: the stack, the steps and the
 * bitset, and two arrays of 16-bit indices (nodes and ranks are below
 * 2^15: the steps alone fill a block's memory before). */
static size_t po_shared_bytes(int64_t m, int64_t nrank, int64_t words)
{
  return 8 * (4 * (size_t) PO_CAP + (size_t) nrank + (size_t) words) +
         4 * 2 * (size_t) PO_CAP + 2 * 2 * (size_t) m;
}

/* Task blockIdx.x: the shares of its threshold into y (lexicographic
 * order), then its fit into fit (the caller's order). gptr/okc/osh: the
 * observations of lexicographic node v are gptr[v] .. gptr[v + 1] - 1, by
 * switch-on threshold, with the node's share after each; lex2node, rlex,
 * wlex: node v's index in the caller's order, its rank and weight. */
__global__ void po_solve(const po_level *lev, const po_task *task, const int64_t *gptr,
                         const int32_t *okc, const double *osh, const int32_t *lex2node,
                         const int32_t *rlex, const double *wlex, double *y, double *fit,
                         int *full)
{
  extern __shared__ double smem[];
  const po_task T = task[blockIdx.x];
  const po_level L = lev[T.level];
  const int m = L.m, nr = L.nrank, nw = L.off[L.nlev];
  double *ssw = smem, *sswe = ssw + PO_CAP, *sswy = sswe + PO_CAP, *sswye = sswy + PO_CAP;
  double *step = sswye + PO_CAP;
  uint64_t *bits = (uint64_t *) (step + nr);
  int *sbeg = (int *) (bits + nw), *send = sbeg + PO_CAP;
  int16_t *perm = (int16_t *) (send + PO_CAP), *reach = perm + m;
  const int64_t c0 = L.col0;
  double *yr = y + T.off, *fr = fit + T.off;
  for (int q = threadIdx.x; q < nr; q += blockDim.x) step[q] = 0.0;
  for (int q = threadIdx.x; q < nw; q += blockDim.x) bits[q] = 0;
  for (int v = threadIdx.x; v < m; v += blockDim.x) {
    int64_t a = gptr[c0 + v], lo = a, hi = gptr[c0 + v + 1];
    while (lo < hi) { /* the first observation switching on after k */
      int64_t mid = (lo + hi) >> 1;
      if (okc[mid] <= T.k) lo = mid + 1; else hi = mid;
    }
    yr[v] = lo > a ? osh[lo - 1] : 0.0;
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  const int32_t *rank = rlex + c0, *node = lex2node + c0;
  const double *w = wlex + c0;
  po_sums all = {0, 0, 0, 0};
  for (int v = 0; v < m; v++) {
    perm[v] = (int16_t) v;
    all.add(w[v], yr[v]);
  }
  int ns = 1;
  sbeg[0] = 0; send[0] = m;
  ssw[0] = all.w; sswe[0] = all.we; sswy[0] = all.wy; sswye[0] = all.wye;
  while (ns > 0) {
    ns--;
    const int a0 = sbeg[ns], k = send[ns] - a0;
    const po_sums S = {ssw[ns], sswe[ns], sswy[ns], sswye[ns]};
    const double mu = S.mean();
    if (k == 1) {
      fr[node[perm[a0]]] = mu;
      continue;
    }
    /* forward pass of the cut: the steps of the best value over the ranks
     * (each point's rank, weight and share loaded one point ahead, so that
     * their latency overlaps the work on the point before) */
    double csum = 0;
    int vn = perm[a0], rn = __ldg(rank + vn);
    double wn = w[vn], yn = yr[vn];
    for (int q = 0; q < k; q++) {
      const int r = rn;
      const double c = wn * (yn - mu);
      if (q + 1 < k) {
        vn = perm[a0 + q + 1];
        rn = __ldg(rank + vn);
        wn = __ldg(w + vn);
        yn = yr[vn];
      }
      csum += fabs(c);
      if (c >= 0) {
        if (c > 0) {
          if (step[r] == 0.0) bit_set(L, bits, r);
          step[r] += c;
        }
        reach[q] = (int16_t) r;
        continue;
      }
      double need = -c;
      int at = bit_pred(L, bits, r);
      while (at >= 0 && step[at] < need) {
        need -= step[at];
        step[at] = 0.0;
        bit_clear(L, bits, at);
        at = bit_pred(L, bits, at - 1);
      }
      if (at >= 0) {
        double s = step[at] - need;
        if (!(s > 0.0)) {
          s = 0.0;
          bit_clear(L, bits, at);
        }
        step[at] = s;
      }
      reach[q] = (int16_t) at;
    }
    /* pass back: U, the steps emptied for the next cut, both parts' sums,
     * and the split: the rest compacted upwards in place, U into the slots
     * of reach already read (its i-th from the end at k - i), so that both
     * keep their order */
    int b = 0, nu = 0, nl = 0;
    double value = 0;
    po_sums U = {0, 0, 0, 0}, R = {0, 0, 0, 0};
    vn = perm[a0 + k - 1];
    rn = __ldg(rank + vn);
    wn = __ldg(w + vn);
    yn = yr[vn];
    for (int q = k - 1; q >= 0; q--) {
      /* the next point read ahead: the writes of this step are at q or
       * above */
      const int v = vn, r = rn;
      const double wv = wn, yv = yn;
      if (q > 0) {
        vn = perm[a0 + q - 1];
        rn = __ldg(rank + vn);
        wn = __ldg(w + vn);
        yn = yr[vn];
      }
      if (step[r] != 0.0) {
        step[r] = 0.0;
        bit_clear(L, bits, r);
      }
      if (b <= reach[q]) {
        value += wv * (yv - mu);
        U.add(wv, yv);
        nu++;
        reach[k - nu] = (int16_t) v;
      } else {
        if (b <= r) b = r + 1;
        R.add(wv, yv);
        perm[a0 + k - 1 - nl++] = (int16_t) v;
      }
    }
    if (nu == 0 || nu == k || !(value > 64.0 * DBL_EPSILON * csum)) {
      for (int q = k - nu; q < k; q++) fr[node[reach[q]]] = mu;
      for (int q = nu; q < k; q++) fr[node[perm[a0 + q]]] = mu;
      continue;
    }
    for (int q = 0; q < nu; q++) perm[a0 + q] = reach[k - nu + q];
    if (ns + 2 > PO_CAP) { /* cannot happen (smaller part first): the CPU fits */
      atomicExch(full, 1);
      return;
    }
    /* the larger part below, the smaller on top, solved next */
    int ub = a0, ue = a0 + nu, rb = a0 + nu, re = a0 + k;
    po_sums first = U, second = R;
    if (nu < k - nu) {
      ub = a0 + nu; ue = a0 + k; rb = a0; re = a0 + nu;
      first = R; second = U;
    }
    sbeg[ns] = ub; send[ns] = ue;
    ssw[ns] = first.w; sswe[ns] = first.we; sswy[ns] = first.wy; sswye[ns] = first.wye;
    ns++;
    sbeg[ns] = rb; send[ns] = re;
    ssw[ns] = second.w; sswe[ns] = second.we; sswy[ns] = second.wy; sswye[ns] = second.wye;
    ns++;
  }
}

/* Node g of the levels in the wave (from node g0 on; level l0 + the last
 * of the nl with col0 <= g): its fits over the wave's thresholds of its
 * level clamped to [0, 1] and raised to the one before, prev[g] carrying
 * that across waves; thresholds not solved keep the one before, and the
 * last is 1. */
__global__ void po_clamp(const po_level *lev, int l0, int nl, const po_span *span,
                         const unsigned char *solved, int64_t g0, int64_t g1, double *fit,
                         double *prev)
{
  int64_t g = g0 + (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= g1) return;
  int lo = 0, hi = nl - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) >> 1;
    if (lev[l0 + mid].col0 <= g) lo = mid; else hi = mid - 1;
  }
  const po_level &L = lev[l0 + lo];
  const po_span sp = span[lo];
  const int64_t j = g - L.col0;
  double pv = prev[g];
  for (int32_t k = sp.ka; k < sp.kb; k++) {
    double *e = fit + sp.base + (int64_t) (k - sp.ka) * L.m + j;
    double v;
    if (solved[L.p0 + k]) {
      v = *e;
      if (!(v >= 0.0)) v = 0.0;
      if (v > 1.0) v = 1.0;
      if (v < pv) v = pv;
    } else {
      v = k == L.K - 1 ? 1.0 : pv;
    }
    *e = v;
    pv = v;
  }
  prev[g] = pv;
}

/* Row blockIdx.x's blocks: runs of equal values. */
__global__ void po_count(const po_row *rows, const double *fit, int64_t *count)
{
  typedef cub::BlockReduce<int, PO_ROW> reduce;
  __shared__ typename reduce::TempStorage tmp;
  const po_row r = rows[blockIdx.x];
  const double *v = fit + r.off;
  int c = 0;
  for (int j = threadIdx.x; j < r.m; j += PO_ROW) c += j == 0 || v[j] != v[j - 1];
  int total = reduce(tmp).Sum(c);
  if (threadIdx.x == 0) count[blockIdx.x] = total;
}

/* Row blockIdx.x's blocks written from its first, at[blockIdx.x]: the
 * first node of each and its value. */
__global__ void po_write(const po_row *rows, const double *fit, const int64_t *at,
                         int32_t *start, double *value)
{
  typedef cub::BlockScan<int, PO_ROW> scan;
  __shared__ typename scan::TempStorage tmp;
  __shared__ int64_t base;
  const po_row r = rows[blockIdx.x];
  const double *v = fit + r.off;
  if (threadIdx.x == 0) base = at[blockIdx.x];
  __syncthreads();
  for (int j0 = 0; j0 < r.m; j0 += PO_ROW) {
    int j = j0 + threadIdx.x;
    int f = j < r.m && (j == 0 || v[j] != v[j - 1]), pos, sum;
    scan(tmp).ExclusiveSum(f, pos, sum);
    if (f) {
      start[base + pos] = j;
      value[base + pos] = v[j];
    }
    __syncthreads(); /* base is read above, and tmp is reused */
    if (threadIdx.x == 0) base += sum;
    __syncthreads();
  }
}

/* What the host prepares: the observations by lexicographic node, then by
 * switch-on threshold, then as given, with the node's share after each
 * (compensated counts over compensated weights, as core/idr_poset.c forms
 * them; gptr: each node's first); the nodes' weights (wlex), indices in
 * the caller's order (lex2node) and ranks (rlex) by lexicographic node;
 * each level's shape, and which of its thresholds need a solve. */
struct po_host {
  int64_t *gptr;
  int32_t *okc, *lex2node, *rlex;
  double *osh, *wlex;
  po_level *lev;
  unsigned char *solved;
};

/* Level l's part of h (the arrays of gi_cuda_idr_plane(); scratch of m[l]
 * entries each). */
static void po_prepare_level(const int64_t *lobs, const int64_t *m, const int64_t *K, int l,
                             int64_t col0, int64_t p0, const int *node, const int *kcode,
                             const double *w, const int *pos, const int *rank, po_host *h,
                             int64_t *fill, int64_t *byk, int32_t *lexof, double *W,
                             double *We, double *c, double *ce, int64_t *next)
{
  const int64_t ml = m[l], Kl = K[l], i0 = lobs[l], i1 = lobs[l + 1];
  po_level &lv = h->lev[l];
  lv.col0 = col0;
  lv.p0 = p0;
  lv.m = (int32_t) ml;
  lv.K = (int32_t) Kl;
  int32_t nrank = 1;
  for (int64_t j = 0; j < ml; j++)
    if (rank[col0 + j] + 1 > nrank) nrank = rank[col0 + j] + 1;
  lv.nrank = nrank;
  lv.nlev = 0;
  lv.off[0] = 0;
  int32_t words = nrank;
  do {
    words = (words + 63) / 64;
    lv.off[lv.nlev + 1] = lv.off[lv.nlev] + words;
    lv.nlev++;
  } while (words > 1);
  /* the solver's orientation: positions and ranks mirrored */
  for (int64_t j = 0; j < ml; j++) {
    int32_t v = (int32_t) (ml - 1 - pos[col0 + j]);
    lexof[j] = v;
    h->lex2node[col0 + v] = (int32_t) j;
    h->rlex[col0 + v] = nrank - 1 - rank[col0 + j];
    W[j] = We[j] = c[j] = ce[j] = 0.0;
  }
  /* compensated node weights, rounded once */
  for (int64_t i = i0; i < i1; i++) {
    double t, e;
    two_sum(W[node[i]], w ? w[i] : 1.0, &t, &e);
    W[node[i]] = t;
    We[node[i]] += e;
  }
  for (int64_t j = 0; j < ml; j++) {
    W[j] += We[j];
    h->wlex[col0 + lexof[j]] = W[j];
  }
  /* the observations by switch-on threshold (stable): a threshold needs a
   * solve when one switches on there, but for the last */
  memset(fill, 0, ((size_t) Kl + 1) * sizeof(int64_t));
  for (int64_t i = i0; i < i1; i++) fill[kcode[i] + 1]++;
  for (int64_t k = 0; k < Kl; k++) {
    h->solved[p0 + k] = fill[k + 1] > 0 && k < Kl - 1;
    fill[k + 1] += fill[k];
  }
  for (int64_t i = i0; i < i1; i++) byk[fill[kcode[i]]++] = i;
  /* then by lexicographic node, with the running shares */
  for (int64_t v = 0; v < ml; v++) h->gptr[col0 + v + 1] = 0;
  for (int64_t i = i0; i < i1; i++) h->gptr[col0 + lexof[node[i]] + 1]++;
  for (int64_t v = 0; v < ml; v++) {
    h->gptr[col0 + v + 1] += h->gptr[col0 + v];
    next[v] = h->gptr[col0 + v];
  }
  for (int64_t r = 0; r < i1 - i0; r++) {
    int64_t i = byk[r];
    int j = node[i];
    double t, e;
    two_sum(c[j], w ? w[i] : 1.0, &t, &e);
    c[j] = t;
    ce[j] += e;
    double q = (c[j] + ce[j]) / W[j];
    int64_t p = next[lexof[j]]++;
    h->okc[p] = kcode[i];
    h->osh[p] = q < 1.0 ? q : 1.0;
  }
}

/* A wave: problems p0 .. p1 - 1 (levels l0 .. l1, those of level l1 maybe
 * not all), as many whole problems as fit in `cap` values, at least one. */
struct po_wave {
  int64_t p0, p1, values;
  int l0, l1;
};

static po_wave next_wave(const po_level *lev, int L, int64_t P, int64_t p, int64_t cap)
{
  po_wave s = {p, p, 0, 0, 0};
  int l = 0;
  while (l + 1 < L && lev[l + 1].p0 <= p) l++;
  while (l < L && lev[l].K == 0) l++;
  s.l0 = s.l1 = l;
  while (s.p1 < P) {
    while (lev[l].p0 + lev[l].K <= s.p1) l++;
    if (s.p1 > s.p0 && s.values + lev[l].m > cap) break;
    s.values += lev[l].m;
    s.l1 = l;
    s.p1++;
  }
  return s;
}

/* Device buffers. */
struct po_buffers {
  int64_t *gptr, *count, *at;
  int32_t *okc, *lex2node, *rlex, *start;
  double *osh, *wlex, *prev, *y, *fit, *value;
  po_level *lev;
  unsigned char *solved;
  po_row *rows;
  po_task *tasks;
  po_span *spans;
  int *full;
};

static size_t po_layout(int64_t n, int64_t M, int L, int64_t P, int64_t S, int64_t C,
                        char *base, po_buffers *b)
{
  gi_carver c = {base, 0};
  c.take_each(M + 1, b->gptr);
  c.take_each(n, b->okc);
  c.take_each(n, b->osh);
  c.take_each(M, b->lex2node, b->rlex);
  c.take_each(M, b->wlex, b->prev);
  c.take_each(L, b->lev);
  c.take_each(L, b->spans);
  c.take_each(P, b->solved);
  c.take_each(S, b->y, b->fit, b->value);
  c.take_each(S, b->start);
  c.take_each(C, b->rows);
  c.take_each(C, b->tasks);
  c.take_each(C, b->count, b->at);
  c.take_each(1, b->full);
  return c.off;
}

/* h's arrays but lev (the caller's), and the tables of a wave: at most C
 * problems and L levels. -1 when memory runs out (the caller frees what
 * was allocated). */
static int po_host_arrays(int64_t n, int64_t M, int L, int64_t P, int64_t C, po_host *h,
                          po_row **rows, po_task **tasks, po_span **spans, int64_t **count)
{
  h->gptr = (int64_t *) malloc(((size_t) M + 1) * sizeof(int64_t));
  h->okc = (int32_t *) malloc(((size_t) n + 1) * sizeof(int32_t));
  h->osh = (double *) malloc(((size_t) n + 1) * sizeof(double));
  h->lex2node = (int32_t *) malloc(((size_t) M + 1) * sizeof(int32_t));
  h->rlex = (int32_t *) malloc(((size_t) M + 1) * sizeof(int32_t));
  h->wlex = (double *) malloc(((size_t) M + 1) * sizeof(double));
  h->solved = (unsigned char *) malloc((size_t) P + 1);
  *rows = (po_row *) malloc(((size_t) C + 1) * sizeof(po_row));
  *tasks = (po_task *) malloc(((size_t) C + 1) * sizeof(po_task));
  *spans = (po_span *) malloc(((size_t) L + 1) * sizeof(po_span));
  *count = (int64_t *) malloc(((size_t) C + 1) * sizeof(int64_t));
  int ok = h->gptr && h->okc && h->osh && h->lex2node && h->rlex && h->wlex && h->solved;
  return ok && *rows && *tasks && *spans && *count ? 0 : -1;
}

static void po_host_free(po_host *h)
{
  free(h->gptr); free(h->okc); free(h->osh); free(h->lex2node); free(h->rlex);
  free(h->wlex); free(h->lev); free(h->solved);
}

/* The levels' data prepared into h, whose lev has each level's p0, K and
 * m (host scratch for the largest level). */
static int po_prepare(int L, const int64_t *lobs, const int64_t *m, const int64_t *K,
                      const int *node, const int *kcode, const double *w, const int *pos,
                      const int *rank, po_host *h)
{
  int64_t Kmax = 1, mmax = 1, nmax = 1;
  for (int l = 0; l < L; l++) {
    if (K[l] > Kmax) Kmax = K[l];
    if (m[l] > mmax) mmax = m[l];
    if (lobs[l + 1] - lobs[l] > nmax) nmax = lobs[l + 1] - lobs[l];
  }
  size_t mm = (size_t) mmax + 1;
  int64_t *fill = (int64_t *) malloc(((size_t) Kmax + 2) * sizeof(int64_t));
  int64_t *byk = (int64_t *) malloc(((size_t) nmax + 1) * sizeof(int64_t));
  int32_t *lexof = (int32_t *) malloc(mm * sizeof(int32_t));
  double *W = (double *) malloc(mm * sizeof(double)), *We = (double *) malloc(mm * sizeof(double));
  double *c = (double *) malloc(mm * sizeof(double)), *ce = (double *) malloc(mm * sizeof(double));
  int64_t *next = (int64_t *) malloc(mm * sizeof(int64_t));
  int rc = fill && byk && lexof && W && We && c && ce && next ? 0 : -1;
  if (rc == 0) {
    h->gptr[0] = 0;
    int64_t col0 = 0, p0 = 0;
    for (int l = 0; l < L; l++) {
      po_prepare_level(lobs, m, K, l, col0, p0, node, kcode, w, pos, rank, h, fill, byk, lexof,
                       W, We, c, ce, next);
      col0 += m[l];
      p0 += K[l];
    }
  }
  free(fill); free(byk); free(lexof); free(W); free(We); free(c); free(ce); free(next);
  return rc;
}

/* The tests' cap on a wave's values (gi_cuda_test_idr_plane_wave()). */
static int64_t wave_cap = 0;

extern "C" int64_t gi_cuda_test_idr_plane_wave(int64_t values)
{
  int64_t was = wave_cap;
  wave_cap = values > 0 ? values : 0;
  return was;
}

static int idr_plane_host(int L, const int64_t *lobs, const int64_t *m, const int64_t *K,
                          const int *node, const int *kcode, const double *w, const int *pos,
                          const int *rank, double *ptr, char *msg, size_t len)
{
  int64_t n = lobs[L], M = 0, P = 0;
  for (int l = 0; l < L; l++) {
    M += m[l];
    P += K[l];
  }
  ptr[0] = 0;
  if (P == 0) return GI_CUDA_OK;
  if (M > (int64_t) INT32_MAX || n > (int64_t) INT32_MAX) {
    snprintf(msg, len, "more observations than the device path takes: fit on the CPU");
    return GI_CUDA_RANGE;
  }
  int dev = 0, optin = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  if (err != cudaSuccess) return gi_fail(err, "asking for the device's shared memory", 0, msg, len);
  size_t fr = 0, tot = 0;
  if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) fr = 0;
  (void) cudaGetLastError();
  int64_t cap = wave_cap > 0 ? wave_cap : PO_WAVE;
  if (fr > 0 && (int64_t) (fr / 160) < cap) cap = (int64_t) (fr / 160);

  po_host h;
  po_row *rows = NULL;
  po_task *tasks = NULL;
  po_span *spans = NULL;
  int64_t *count = NULL;
  int rc = GI_CUDA_OK;
  /* the largest wave, for one workspace, after the levels' shapes */
  int64_t S = 1, C = 1;
  memset(&h, 0, sizeof(h));
  h.lev = (po_level *) calloc((size_t) L + 1, sizeof(po_level));
  if (h.lev == NULL) {
    snprintf(msg, len, "out of host memory while preparing the IDR fit");
    return GI_CUDA_NOMEM;
  }
  for (int l = 0; l < L; l++) {
    h.lev[l].p0 = l > 0 ? h.lev[l - 1].p0 + K[l - 1] : 0;
    h.lev[l].K = (int32_t) K[l];
    h.lev[l].m = (int32_t) m[l];
  }
  for (po_wave s = next_wave(h.lev, L, P, 0, cap); s.p1 > s.p0;
       s = next_wave(h.lev, L, P, s.p1, cap)) {
    if (s.values > S) S = s.values;
    if (s.p1 - s.p0 > C) C = s.p1 - s.p0;
  }
  size_t smem = 0;
  int64_t mmax = 0;
  if (po_host_arrays(n, M, L, P, C, &h, &rows, &tasks, &spans, &count) ||
      po_prepare(L, lobs, m, K, node, kcode, w, pos, rank, &h)) {
    snprintf(msg, len, "out of host memory while preparing the IDR fit");
    rc = GI_CUDA_NOMEM;
    goto done;
  }
  for (int l = 0; l < L; l++) {
    const po_level &lv = h.lev[l];
    size_t b = po_shared_bytes(lv.m, lv.nrank, lv.off[lv.nlev]);
    if (b > smem) smem = b;
    if (m[l] > mmax) mmax = m[l];
  }
  if (mmax > INT16_MAX) smem = (size_t) -1; /* 16-bit indices */
  if (smem > (size_t) optin) {
    snprintf(msg, len, "a fit of more distinct points than the device's shared memory "
             "holds (%.0f points, %.0f KB in a block): fit on the CPU",
             (double) mmax, optin / 1024.0);
    rc = GI_CUDA_RANGE;
    goto done;
  }
  {
    po_buffers b;
    size_t need = po_layout(n, M, L, P, S, C, NULL, &b);
    void *base = NULL;
    const char *stage = "while reserving its workspace";
    err = gi_aux_reserve(need, &base);
    if (err == cudaSuccess) {
      po_layout(n, M, L, P, S, C, (char *) base, &b);
      stage = "copying the observations to the device";
      err = cudaFuncSetAttribute(po_solve, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int) smem);
    }
    if (err == cudaSuccess) err = gi_put(b.gptr, h.gptr, M + 1, GI_COPY8, 0);
    if (err == cudaSuccess && n > 0) err = gi_put(b.okc, h.okc, n, GI_COPY4, 0);
    if (err == cudaSuccess && n > 0) err = gi_put(b.osh, h.osh, n, GI_COPY8, 0);
    if (err == cudaSuccess) err = gi_put(b.lex2node, h.lex2node, M, GI_COPY4, 0);
    if (err == cudaSuccess) err = gi_put(b.rlex, h.rlex, M, GI_COPY4, 0);
    if (err == cudaSuccess) err = gi_put(b.wlex, h.wlex, M, GI_COPY8, 0);
    if (err == cudaSuccess)
      err = cudaMemcpy(b.lev, h.lev, (size_t) L * sizeof(po_level), cudaMemcpyHostToDevice);
    if (err == cudaSuccess)
      err = cudaMemcpy(b.solved, h.solved, (size_t) P, cudaMemcpyHostToDevice);
    if (err == cudaSuccess) err = cudaMemset(b.prev, 0, (size_t) M * sizeof(double));
    if (err == cudaSuccess) err = cudaMemset(b.full, 0, sizeof(int));
    int64_t nb = 0;
    for (po_wave s = next_wave(h.lev, L, P, 0, cap); err == cudaSuccess && s.p1 > s.p0;
         s = next_wave(h.lev, L, P, s.p1, cap)) {
      /* the wave's rows, its levels' spans and the problems to solve */
      int64_t c = s.p1 - s.p0, ntask = 0, off = 0;
      int l = s.l0;
      for (int64_t p = s.p0; p < s.p1; p++) {
        while (h.lev[l].p0 + h.lev[l].K <= p) l++;
        const po_level &lv = h.lev[l];
        int32_t k = (int32_t) (p - lv.p0);
        po_span &sp = spans[l - s.l0];
        if (p == s.p0 || k == 0) {
          sp.base = off;
          sp.ka = k;
        }
        sp.kb = k + 1;
        rows[p - s.p0].off = off;
        rows[p - s.p0].m = lv.m;
        if (h.solved[p]) {
          tasks[ntask].off = off;
          tasks[ntask].level = l;
          tasks[ntask].k = k;
          ntask++;
        }
        off += lv.m;
      }
      int nl = s.l1 - s.l0 + 1;
      stage = "solving the threshold problems";
      err = cudaMemcpy(b.rows, rows, (size_t) c * sizeof(po_row), cudaMemcpyHostToDevice);
      if (err == cudaSuccess)
        err = cudaMemcpy(b.spans, spans, (size_t) nl * sizeof(po_span), cudaMemcpyHostToDevice);
      if (err == cudaSuccess && ntask > 0)
        err = cudaMemcpy(b.tasks, tasks, (size_t) ntask * sizeof(po_task), cudaMemcpyHostToDevice);
      if (err != cudaSuccess) break;
      if (ntask > 0)
        po_solve<<<(unsigned) ntask, PO_SOLVE, smem>>>(b.lev, b.tasks, b.gptr, b.okc, b.osh,
                                                        b.lex2node, b.rlex, b.wlex, b.y, b.fit,
                                                        b.full);
      int64_t g0 = h.lev[s.l0].col0, g1 = h.lev[s.l1].col0 + h.lev[s.l1].m;
      po_clamp<<<(unsigned) ((g1 - g0 + 255) / 256), 256>>>(b.lev, s.l0, nl, b.spans, b.solved,
                                                           g0, g1, b.fit, b.prev);
      po_count<<<(unsigned) c, PO_ROW>>>(b.rows, b.fit, b.count);
      err = cudaGetLastError();
      if (err == cudaSuccess)
        err = cudaMemcpy(count, b.count, (size_t) c * sizeof(int64_t), cudaMemcpyDeviceToHost);
      if (err != cudaSuccess) break;
      /* each threshold's first block, within the wave and over the fit */
      int64_t total = 0;
      for (int64_t t = 0; t < c; t++) {
        int64_t k = count[t];
        count[t] = total;
        total += k;
        ptr[s.p0 + t + 1] = (double) (nb + total);
      }
      int32_t *rs;
      double *rv;
      rc = gi_idr_result_reserve(nb + total, &rs, &rv, msg, len);
      if (rc != GI_CUDA_OK) goto done;
      stage = "reducing the fits to their blocks";
      err = cudaMemcpy(b.at, count, (size_t) c * sizeof(int64_t), cudaMemcpyHostToDevice);
      if (err != cudaSuccess) break;
      po_write<<<(unsigned) c, PO_ROW>>>(b.rows, b.fit, b.at, b.start, b.value);
      err = cudaGetLastError();
      if (err != cudaSuccess) break;
      stage = "copying the blocks back";
      err = gi_get(rs + nb, b.start, total, GI_COPY4, 0);
      if (err == cudaSuccess) err = gi_get(rv + nb, b.value, total, GI_COPY8, 0);
      nb += total;
      /* between waves, a look at interrupts (the host's hook) */
      if (err == cudaSuccess && s.p1 < P && gi_interrupted(GI_POLL_WORK)) {
        snprintf(msg, len, "interrupted");
        rc = GI_CUDA_INTERRUPT;
        goto done;
      }
    }
    /* the stack's overflow flag, once for all waves: it cannot be set (the
     * smaller part of each split is solved first), and a wave that set it
     * would still have written no more blocks than its points */
    int full = 0;
    if (err == cudaSuccess) err = cudaMemcpy(&full, b.full, sizeof(int), cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
      rc = gi_fail(err, stage, need, msg, len);
    } else if (full) {
      snprintf(msg, len, "a split tree deeper than the device's stack: fit on the CPU");
      rc = GI_CUDA_RANGE;
    }
  }
done:
  po_host_free(&h);
  free(rows); free(tasks); free(spans); free(count);
  return rc;
}

extern "C" int gi_cuda_idr_plane(int L, const int64_t *lobs, const int64_t *m, const int64_t *K,
                                 const int *node, const int *kcode, const double *w,
                                 const int *pos, const int *rank, double *ptr, char *msg,
                                 size_t len)
{
  gi_times_begin();
  int rc = idr_plane_host(L, lobs, m, K, node, kcode, w, pos, rank, ptr, msg, len);
  gi_times_end();
  return rc;
}

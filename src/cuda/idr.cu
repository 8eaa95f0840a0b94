/*
 * gpuiso CUDA engine: isotonic distributional regression on the device,
 * for one fit or a batch of independent fits (levels). Every threshold t_k
 * of a level is one antitonic problem over its m distinct covariate
 * values: the share c_j(t_k) / W_j of the weight at x_j with y <= t_k,
 * weighted by W_j. The problems of all levels, in turn, are solved in
 * slabs of whole problems, a batch for the solver; each slab's problems
 * are built on the device from the observations (sorted by x, then by the
 * threshold at which they switch on, with running weights), solved, and
 * reduced to their blocks (first index and exact mean), which alone come
 * back to the host. The m x K matrices never exist anywhere: a slab is at
 * most GI_IDR_SLAB values. Between slabs the host asks for interrupts
 * (gi_interrupted()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cub/cub.cuh>
#include "engine.cuh"
#include "gi_cuda.h"

/* Values per slab: the solver's workspace for a slab of long problems is
 * about 60 bytes a value, the slab's own buffers 64. */
#define GI_IDR_SLAB ((int64_t) 120000000)
#define GI_IDR_TILE 32 /* thresholds per thread when building a slab */
#define GI_IDR_BUILD 128 /* threads per block when building a slab */

/* A tile of a slab: up to GI_IDR_TILE consecutive thresholds of one
 * level, over its m covariate values; threshold k0 + t of the tile is the
 * problem at slab values yoff + t m .. yoff + (t + 1) m - 1. */
struct idr_tile {
  int64_t yoff, col0; /* first slab value; the level's first column */
  int32_t m, k0, count;
};

/* The share of column j's weight switched on at each threshold of the
 * tile of block b (the tile whose first block, in the running count
 * bfirst, is the last at or before b), by thread j of the tile: a
 * bisection finds how many of the column's observations switch on before
 * the tile's first threshold, then the thread walks the tile. okc/ocw:
 * the observations of column g are gptr[g] .. gptr[g+1] - 1, by switch-on
 * threshold (of their level), with running weights (exact: see
 * level_shifts()). Without `flag`, the kernel builds the slab's problems
 * (y, and w when weighted); with it, it adds each value's switched-on
 * weight and weight to the sums (sc, sw) of the run of the fit that holds
 * it (run pos[e] + flag[e] - 1), one atomic add per run and warp. */
__global__ void idr_columns(const int64_t *gptr, const int32_t *okc, const double *ocw,
                            const idr_tile *tile, const int64_t *bfirst, int64_t ntile,
                            int weighted, double *y, double *w, const int32_t *flag,
                            const int32_t *pos, double *sc, double *sw)
{
  int64_t bx = blockIdx.x, lo = 0, hi = ntile - 1;
  while (lo < hi) {
    int64_t mid = (lo + hi + 1) >> 1;
    if (bfirst[mid] <= bx) lo = mid; else hi = mid - 1;
  }
  const idr_tile T = tile[lo];
  int64_t j = (bx - bfirst[lo]) * blockDim.x + threadIdx.x;
  /* the lanes of a warp are consecutive values of one tile; those past the
   * tile's values leave, and are the warp's last */
  const unsigned live = __ballot_sync(0xffffffffu, j < T.m);
  if (j >= T.m) return;
  const int lane = threadIdx.x & 31, last = 31 - __clz(live);
  int64_t first = gptr[T.col0 + j], end = gptr[T.col0 + j + 1];
  const double W = ocw[end - 1];
  int64_t a = first, b = end; /* first observation with okc >= k0 */
  while (a < b) {
    int64_t mid = (a + b) >> 1;
    if (okc[mid] < T.k0) a = mid + 1; else b = mid;
  }
  double c = a > first ? ocw[a - 1] : 0.0;
  for (int32_t t = 0; t < T.count; t++) {
    while (a < end && okc[a] == T.k0 + t) c = ocw[a++];
    int64_t e = T.yoff + (int64_t) t * T.m + j;
    if (flag == NULL) {
      /* the last observation's running weight is W itself: exactly 1 */
      y[e] = c / W;
      if (weighted) w[e] = W;
      continue;
    }
    /* the sums of the warp's lanes in each run (runs are consecutive
     * lanes): a segmented scan, whose last lane in a run adds it to the
     * run's sums. Exact in any order: multiples of one power of two, below
     * 2^53 of it (level_shifts()). */
    int32_t run = pos[e] + flag[e] - 1;
    double vc = c, vw = W;
    for (int d = 1; d < 32; d <<= 1) {
      double oc = __shfl_up_sync(live, vc, d), ow = __shfl_up_sync(live, vw, d);
      int32_t orun = __shfl_up_sync(live, run, d);
      if (lane >= d && orun == run) {
        vc += oc;
        vw += ow;
      }
    }
    int32_t nrun = __shfl_down_sync(live, run, 1);
    if (lane == last || nrun != run) {
      if (vc != 0.0) atomicAdd(sc + run, vc);
      atomicAdd(sw + run, vw);
    }
  }
}

/* The fit of a slab is reduced to its blocks in two steps. The solver's
 * values are block means of the rounded shares c / W: first the runs of
 * equal values (clamped to [0, 1]) are found, then each run gets the exact
 * mean sum c / sum W of its values, correctly rounded, as the CPU's sweep
 * gives it, and runs of one mean are joined into one block. So both
 * engines give the same blocks, bit for bit, wherever the solver's
 * decisions on the rounded shares are those on the exact ones (always but
 * where two block means differ by a few units in the last place). */
__device__ __forceinline__ double unit(double v) { return fmin(fmax(v, 0.0), 1.0); }

/* 1 where a run starts: a change of the clamped value; idr_firsts() then
 * marks the first value of every problem. */
__global__ void idr_flags(const double *fit, int64_t n, int32_t *flag)
{
  int64_t e = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n) return;
  flag[e] = (e == 0 || unit(fit[e]) != unit(fit[e - 1])) ? 1 : 0;
}

__global__ void idr_firsts(const int64_t *poff, int64_t C, int32_t *flag)
{
  int64_t t = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (t < C) flag[poff[t]] = 1;
}

/* The problem that holds slab value e: the last t with poff[t] <= e. */
__device__ __forceinline__ int64_t problem_of(const int64_t *poff, int64_t C, int64_t e)
{
  int64_t lo = 0, hi = C - 1;
  while (lo < hi) {
    int64_t mid = (lo + hi + 1) >> 1;
    if (poff[mid] <= e) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/* The first slab value of each run. */
__global__ void idr_run_starts(const int32_t *flag, const int32_t *pos, int64_t n,
                               int32_t *rstart)
{
  int64_t e = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n && flag[e]) rstart[pos[e]] = (int32_t) e;
}

/* Run i's exact mean, and 1 in bflag where a block starts: the first run
 * of a problem, or a change of the mean. Past the runs, 0. */
__global__ void idr_means(const int32_t *rflag, const int32_t *rpos, const int32_t *rstart,
                          const int64_t *poff, int64_t C, int64_t n, const double *sc,
                          const double *sw, double *mean, int32_t *bflag)
{
  int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t runs = (int64_t) rpos[n - 1] + rflag[n - 1];
  if (i >= runs) { bflag[i] = 0; return; }
  double v = sc[i] / sw[i];
  mean[i] = v;
  int64_t e = rstart[i];
  int first = poff[problem_of(poff, C, e)] == e;
  bflag[i] = (first || sc[i - 1] / sw[i - 1] != v) ? 1 : 0;
}

__global__ void idr_blocks(const int32_t *bflag, const int32_t *bpos, const int32_t *rstart,
                           const double *mean, const int64_t *poff, int64_t C, int64_t n,
                           int32_t *start, double *value)
{
  int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || !bflag[i]) return;
  int64_t e = rstart[i];
  start[bpos[i]] = (int32_t) (e - poff[problem_of(poff, C, e)]);
  value[bpos[i]] = mean[i];
}

/* Blocks of each problem of the slab (its first run is rpos[poff[t]]),
 * and the slab's total. */
__global__ void idr_counts(const int32_t *rpos, const int32_t *bflag, const int32_t *bpos,
                           const int64_t *poff, int64_t C, int64_t n, int64_t *count)
{
  int64_t t = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (t > C) return;
  int64_t total = (int64_t) bpos[n - 1] + bflag[n - 1];
  if (t == C) { count[C] = total; return; }
  int64_t hi = t + 1 < C ? bpos[rpos[poff[t + 1]]] : total;
  count[t] = hi - bpos[rpos[poff[t]]];
}

/* The blocks of the last fit, kept for the glue to copy (host memory that
 * only grows, like the device workspace), of this file's fits and those of
 * idr_plane.cu: gi_idr_result_reserve() makes room for `need` blocks in
 * all and says where they go. */
static int32_t *res_start = NULL;
static double *res_value = NULL;
static int64_t res_cap = 0;

int gi_idr_result_reserve(int64_t need, int32_t **start, double **value, char *msg,
                          size_t len)
{
  *start = res_start;
  *value = res_value;
  if (need <= res_cap) return GI_CUDA_OK;
  int64_t cap = res_cap > 0 ? res_cap : 1024;
  while (cap < need) cap *= 2;
  int32_t *s = (int32_t *) realloc(res_start, (size_t) cap * sizeof(int32_t));
  if (s) res_start = s;
  double *v = (double *) realloc(res_value, (size_t) cap * sizeof(double));
  if (v) res_value = v;
  if (!s || !v) {
    snprintf(msg, len, "out of host memory for the blocks of the IDR fit (%.0f)",
             (double) need);
    return GI_CUDA_NOMEM;
  }
  res_cap = cap;
  *start = res_start;
  *value = res_value;
  return GI_CUDA_OK;
}

extern "C" void gi_cuda_idr_result(const int **start, const double **value)
{
  *start = res_start;
  *value = res_value;
}

/* The levels of a batch: level l has the observations lobs[l] ..
 * lobs[l+1] - 1, m[l] covariate values (the columns col0[l] .. of all
 * levels' values side by side) and K[l] thresholds; its weights are scaled
 * by 2^-shift[l]. M columns and P problems in all. */
struct idr_levels {
  int L;
  const int64_t *lobs, *m, *K;
  int64_t *col0;
  int *shift;
  int64_t M, P, Kmax;
};

/* The observations by column, then by switch-on threshold (two counting
 * sorts), with running weights per column. */
static int sort_observations(const int *xcode, const int *kcode, const double *w,
                             const idr_levels *lv, int64_t n, int64_t *gptr,
                             int32_t *okc, double *ocw, int *weighted)
{
  int64_t M = lv->M;
  int64_t *kcount = (int64_t *) calloc((size_t) lv->Kmax + 2, sizeof(int64_t));
  int64_t *byk = (int64_t *) malloc((size_t) (n > 0 ? n : 1) * sizeof(int64_t));
  int64_t *col = (int64_t *) malloc((size_t) (n > 0 ? n : 1) * sizeof(int64_t));
  double *sw = w ? (double *) malloc((size_t) (n > 0 ? n : 1) * sizeof(double)) : NULL;
  int64_t *next = (int64_t *) malloc(((size_t) M + 1) * sizeof(int64_t));
  if (!kcount || !byk || !col || (w && !sw) || !next) {
    free(kcount); free(byk); free(col); free(sw); free(next);
    return -1;
  }
  for (int l = 0; l < lv->L; l++) {
    for (int64_t i = lv->lobs[l]; i < lv->lobs[l + 1]; i++) {
      col[i] = lv->col0[l] + xcode[i];
      if (w) sw[i] = ldexp(w[i], -lv->shift[l]); /* exact: no underflow */
    }
  }
  for (int64_t i = 0; i < n; i++) kcount[kcode[i] + 1]++;
  for (int64_t k = 0; k <= lv->Kmax; k++) kcount[k + 1] += kcount[k];
  for (int64_t i = 0; i < n; i++) byk[kcount[kcode[i]]++] = i;
  memset(gptr, 0, ((size_t) M + 1) * sizeof(int64_t));
  for (int64_t i = 0; i < n; i++) gptr[col[i] + 1]++;
  for (int64_t g = 0; g < M; g++) gptr[g + 1] += gptr[g];
  for (int64_t g = 0; g < M; g++) next[g] = gptr[g];
  for (int64_t r = 0; r < n; r++) {
    int64_t i = byk[r];
    int64_t p = next[col[i]]++;
    okc[p] = kcode[i];
    ocw[p] = w ? sw[i] : 1.0;
  }
  *weighted = 0;
  for (int64_t g = 0; g < M; g++) {
    for (int64_t p = gptr[g] + 1; p < gptr[g + 1]; p++) ocw[p] += ocw[p - 1];
    if (ocw[gptr[g + 1] - 1] != 1.0) *weighted = 1;
  }
  free(kcount); free(byk); free(col); free(sw); free(next);
  return 0;
}

/* A slab: the problems (l0, k0) up to (l1, k1), exclusive, in the order of
 * the levels and then of their thresholds; as many whole problems as fit
 * in `cap` values, at least one. */
struct idr_slab {
  int l0, l1;
  int64_t k0, k1, values, problems, tiles;
};

static idr_slab next_slab(const idr_levels *lv, int l, int64_t k, int64_t cap)
{
  idr_slab s = {l, l, k, k, 0, 0, 0};
  int64_t run = 0; /* problems of the current level in the slab */
  while (s.l1 < lv->L) {
    int64_t m = lv->m[s.l1];
    if (s.problems > 0 && s.values + m > cap) break;
    s.values += m;
    s.problems++;
    if (run++ % GI_IDR_TILE == 0) s.tiles++;
    if (++s.k1 == lv->K[s.l1]) {
      s.l1++;
      s.k1 = 0;
      run = 0;
    }
  }
  return s;
}

/* The slab's problem offsets (poff, problems + 1), its tiles and the first
 * block of each (bfirst, tiles + 1). */
static void slab_plan(const idr_levels *lv, const idr_slab *s, int64_t *poff,
                      idr_tile *tile, int64_t *bfirst)
{
  int64_t p = 0, nt = 0, v = 0;
  int l = s->l0;
  int64_t k = s->k0;
  poff[0] = 0;
  bfirst[0] = 0;
  while (p < s->problems) {
    int64_t m = lv->m[l];
    int64_t run = lv->K[l] - k, left = s->problems - p;
    if (run > left) run = left;
    for (int64_t t0 = 0; t0 < run; t0 += GI_IDR_TILE) {
      int64_t c = run - t0 < GI_IDR_TILE ? run - t0 : GI_IDR_TILE;
      idr_tile T = {v + t0 * m, lv->col0[l], (int32_t) m, (int32_t) (k + t0), (int32_t) c};
      tile[nt] = T;
      bfirst[nt + 1] = bfirst[nt] + (m + GI_IDR_BUILD - 1) / GI_IDR_BUILD;
      nt++;
    }
    for (int64_t t = 0; t < run; t++) {
      v += m;
      poff[++p] = v;
    }
    l++;
    k = 0;
  }
}

/* Device buffers. After the solver, y holds the runs' switched-on weight,
 * and fit their means. */
struct idr_buffers {
  int64_t *gptr, *count, *poff, *bfirst;
  int32_t *okc, *flag, *pos, *rstart, *bflag, *bpos, *start;
  double *ocw, *y, *w, *fit, *sw, *value;
  idr_tile *tile;
  void *tmp;
  size_t tmp_bytes;
};

static size_t idr_layout(int64_t n, int64_t M, int64_t S, int64_t C, int64_t T,
                         int weighted, char *base, idr_buffers *b)
{
  size_t s = (size_t) S;
  gi_carver c = {base, 0};
  c.take_each(M + 1, b->gptr);
  c.take_each(n, b->okc, b->ocw);
  c.take_each(s, b->y);
  c.take_each(weighted ? s : 0, b->w);
  c.take_each(s, b->fit, b->sw, b->value);
  c.take_each(s, b->flag, b->pos, b->rstart, b->bflag, b->bpos, b->start);
  c.take_each(C + 1, b->count, b->poff);
  c.take_each(T, b->tile);
  c.take_each(T + 1, b->bfirst);
  size_t t = 0;
  cub::DeviceScan::ExclusiveSum(nullptr, t, (int32_t *) nullptr, (int32_t *) nullptr, (int) s);
  c.take_scratch(t, b->tmp, b->tmp_bytes);
  return c.off;
}

/* The weights' scales, one per level: the largest weight into [1, 2) (the
 * fit does not change), so that no running sum overflows. The device sums
 * weights and forms shares in plain doubles, which lose a weight below
 * 2^-53 of the sum it joins: a level whose weights spread over more than
 * 2^30 goes to the CPU, which sums them exactly (a differential test
 * against exact rationals found the device's CDFs off by orders of
 * magnitude beyond 2^52). */
static int level_shifts(const double *w, idr_levels *lv, char *msg, size_t len)
{
  for (int l = 0; l < lv->L; l++) {
    lv->shift[l] = 0;
    if (w == NULL) continue;
    double lo = INFINITY, hi = 0.0;
    for (int64_t i = lv->lobs[l]; i < lv->lobs[l + 1]; i++) {
      if (w[i] < lo) lo = w[i];
      if (w[i] > hi) hi = w[i];
    }
    if (!(lo > 0.0) || lo < ldexp(hi, -30)) {
      snprintf(msg, len, "weights spread beyond what the device path takes exactly: "
               "fit on the CPU");
      return GI_CUDA_RANGE;
    }
    lv->shift[l] = ilogb(hi);
  }
  return GI_CUDA_OK;
}

static int idr_host(const int *xcode, const int *kcode, const double *w, idr_levels *lv,
                    double *ptr, char *msg, size_t len)
{
  ptr[0] = 0;
  int64_t n = lv->lobs[lv->L];
  if (lv->M > (int64_t) INT32_MAX || n > (int64_t) INT32_MAX) {
    snprintf(msg, len, "more observations than the device path takes: fit on the CPU");
    return GI_CUDA_RANGE;
  }
  int rc = level_shifts(w, lv, msg, len);
  if (rc != GI_CUDA_OK) return rc;
  /* slabs of whole thresholds, smaller when the device is short of memory */
  size_t fr = 0, tot = 0;
  if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) fr = 0;
  (void) cudaGetLastError();
  int64_t cap = GI_IDR_SLAB;
  if (fr > 0 && (int64_t) (fr / 200) < cap) cap = (int64_t) (fr / 200);
  /* the largest slab, problem count and tile count, for one workspace */
  int64_t S = 1, C = 1, T = 1;
  for (idr_slab s = next_slab(lv, 0, 0, cap); s.problems > 0;
       s = next_slab(lv, s.l1, s.k1, cap)) {
    if (s.values > S) S = s.values;
    if (s.problems > C) C = s.problems;
    if (s.tiles > T) T = s.tiles;
  }

  int64_t *gptr = (int64_t *) malloc(((size_t) lv->M + 1) * sizeof(int64_t));
  int32_t *okc = (int32_t *) malloc((size_t) (n > 0 ? n : 1) * sizeof(int32_t));
  double *ocw = (double *) malloc((size_t) (n > 0 ? n : 1) * sizeof(double));
  int64_t *poff = (int64_t *) malloc(((size_t) C + 1) * sizeof(int64_t));
  int64_t *count = (int64_t *) malloc(((size_t) C + 1) * sizeof(int64_t));
  idr_tile *tile = (idr_tile *) malloc((size_t) T * sizeof(idr_tile));
  int64_t *bfirst = (int64_t *) malloc(((size_t) T + 1) * sizeof(int64_t));
  int weighted = 0;
  if (!gptr || !okc || !ocw || !poff || !count || !tile || !bfirst ||
      sort_observations(xcode, kcode, w, lv, n, gptr, okc, ocw, &weighted)) {
    snprintf(msg, len, "out of host memory while preparing the IDR fit");
    rc = GI_CUDA_NOMEM;
    goto done;
  }
  {
    idr_buffers b;
    size_t need = idr_layout(n, lv->M, S, C, T, weighted, NULL, &b);
    void *base = NULL;
    cudaError_t err = gi_aux_reserve(need, &base);
    const char *stage = "while reserving its workspace";
    if (err == cudaSuccess) {
      idr_layout(n, lv->M, S, C, T, weighted, (char *) base, &b);
      stage = "copying the observations to the device";
      err = gi_put(b.gptr, gptr, lv->M + 1, GI_COPY8, 0);
    }
    if (err == cudaSuccess) err = gi_put(b.okc, okc, n, GI_COPY4, 0);
    if (err == cudaSuccess) err = gi_put(b.ocw, ocw, n, GI_COPY8, 0);
    int64_t nb = 0, p0 = 0;
    for (idr_slab s = next_slab(lv, 0, 0, cap); err == cudaSuccess && s.problems > 0;
         s = next_slab(lv, s.l1, s.k1, cap)) {
      int64_t c = s.problems, sv = s.values;
      slab_plan(lv, &s, poff, tile, bfirst);
      stage = "building the threshold problems";
      err = cudaMemcpy(b.poff, poff, ((size_t) c + 1) * sizeof(int64_t), cudaMemcpyHostToDevice);
      if (err == cudaSuccess)
        err = cudaMemcpy(b.tile, tile, (size_t) s.tiles * sizeof(idr_tile), cudaMemcpyHostToDevice);
      if (err == cudaSuccess)
        err = cudaMemcpy(b.bfirst, bfirst, ((size_t) s.tiles + 1) * sizeof(int64_t),
                         cudaMemcpyHostToDevice);
      if (err != cudaSuccess) break;
      unsigned cols = (unsigned) bfirst[s.tiles];
      idr_columns<<<cols, GI_IDR_BUILD>>>(b.gptr, b.okc, b.ocw, b.tile, b.bfirst, s.tiles,
                                          weighted, b.y, b.w, NULL, NULL, NULL, NULL);
      err = cudaGetLastError();
      if (err != cudaSuccess) break;
      rc = gi_fit_prepared(b.y, weighted ? b.w : NULL, poff, c, 1, b.fit, NULL, msg, len);
      if (rc != GI_CUDA_OK) goto done;
      stage = "reducing the fits to their blocks";
      unsigned blocks = (unsigned) ((sv + 255) / 256);
      idr_flags<<<blocks, 256>>>(b.fit, sv, b.flag);
      idr_firsts<<<(unsigned) ((c + 255) / 256), 256>>>(b.poff, c, b.flag);
      size_t tb = b.tmp_bytes;
      err = cub::DeviceScan::ExclusiveSum(b.tmp, tb, b.flag, b.pos, (int) sv);
      if (err == cudaSuccess) err = cudaMemsetAsync(b.y, 0, (size_t) sv * sizeof(double), 0);
      if (err == cudaSuccess) err = cudaMemsetAsync(b.sw, 0, (size_t) sv * sizeof(double), 0);
      if (err != cudaSuccess) break;
      idr_columns<<<cols, GI_IDR_BUILD>>>(b.gptr, b.okc, b.ocw, b.tile, b.bfirst, s.tiles,
                                          weighted, NULL, NULL, b.flag, b.pos, b.y, b.sw);
      idr_run_starts<<<blocks, 256>>>(b.flag, b.pos, sv, b.rstart);
      idr_means<<<blocks, 256>>>(b.flag, b.pos, b.rstart, b.poff, c, sv, b.y, b.sw, b.fit,
                                 b.bflag);
      tb = b.tmp_bytes;
      err = cub::DeviceScan::ExclusiveSum(b.tmp, tb, b.bflag, b.bpos, (int) sv);
      if (err != cudaSuccess) break;
      idr_blocks<<<blocks, 256>>>(b.bflag, b.bpos, b.rstart, b.fit, b.poff, c, sv, b.start,
                                  b.value);
      idr_counts<<<(unsigned) ((c + 1 + 255) / 256), 256>>>(b.pos, b.bflag, b.bpos, b.poff, c,
                                                           sv, b.count);
      err = cudaMemcpy(count, b.count, ((size_t) c + 1) * sizeof(int64_t), cudaMemcpyDeviceToHost);
      if (err != cudaSuccess) break;
      int64_t total = count[c];
      int32_t *rs;
      double *rv;
      rc = gi_idr_result_reserve(nb + total, &rs, &rv, msg, len);
      if (rc != GI_CUDA_OK) goto done;
      stage = "copying the blocks back";
      err = gi_get(rs + nb, b.start, total, GI_COPY4, 0);
      if (err == cudaSuccess) err = gi_get(rv + nb, b.value, total, GI_COPY8, 0);
      for (int64_t t = 0; t < c; t++) {
        nb += count[t];
        ptr[p0 + t + 1] = (double) nb;
      }
      p0 += c;
      /* between slabs, a look at interrupts (the host's hook) */
      if (err == cudaSuccess && p0 < lv->P && gi_interrupted(GI_POLL_WORK)) {
        snprintf(msg, len, "interrupted");
        rc = GI_CUDA_INTERRUPT;
        goto done;
      }
    }
    if (err != cudaSuccess) rc = gi_fail(err, stage, need, msg, len);
  }
done:
  free(gptr); free(okc); free(ocw); free(poff); free(count); free(tile); free(bfirst);
  return rc;
}

extern "C" int gi_cuda_idr_host(const int *xcode, const int *kcode, const double *w, int L,
                                const int64_t *lobs, const int64_t *m, const int64_t *K,
                                double *ptr, char *msg, size_t len)
{
  idr_levels lv = {L, lobs, m, K, NULL, NULL, 0, 0, 0};
  lv.col0 = (int64_t *) malloc(((size_t) L + 1) * sizeof(int64_t));
  lv.shift = (int *) malloc(((size_t) L + 1) * sizeof(int));
  int rc;
  if (!lv.col0 || !lv.shift) {
    snprintf(msg, len, "out of host memory while preparing the IDR fit");
    rc = GI_CUDA_NOMEM;
  } else {
    for (int l = 0; l < L; l++) {
      lv.col0[l] = lv.M;
      lv.M += m[l];
      lv.P += K[l];
      if (K[l] > lv.Kmax) lv.Kmax = K[l];
    }
    gi_times_begin();
    rc = idr_host(xcode, kcode, w, &lv, ptr, msg, len);
    gi_times_end();
  }
  free(lv.col0); free(lv.shift);
  return rc;
}

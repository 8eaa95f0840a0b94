/*
 * gpuiso CUDA engine: isotonic distributional regression on the device.
 * Every threshold t_k is one antitonic problem over the m distinct
 * covariate values: the share c_j(t_k) / W_j of the weight at x_j with
 * y <= t_k, weighted by W_j. The thresholds are solved in slabs of C
 * problems, a batch for the solver; each slab's problems are built on the
 * device from the observations (sorted by x, then by the threshold at
 * which they switch on, with running weights), solved, and reduced to their
 * blocks (first index and value), which alone come back to the host. The
 * m x K matrix never exists anywhere: a slab is at most GI_IDR_SLAB values.
 * Between slabs the host asks for interrupts (gi_interrupted()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cub/cub.cuh>
#include "engine.cuh"
#include "gi_cuda.h"

/* Values per slab: the solver's workspace for a slab of long problems is
 * about 60 bytes a value, the slab's own buffers 40. */
#define GI_IDR_SLAB ((int64_t) 120000000)
#define GI_IDR_TILE 32 /* thresholds per thread when building a slab */

/* Slab values for thresholds k0 .. k0 + C - 1: thread (j, tile) finds, by
 * bisection, how many of x_j's observations switch on before its first
 * threshold, then walks its tile. okc/ocw: the observations of x_j are
 * gptr[j] .. gptr[j+1] - 1, by switch-on threshold, with running weights. */
__global__ void idr_build(const int64_t *gptr, const int32_t *okc, const double *ocw,
                          int64_t m, int64_t k0, int64_t C, int weighted, double *y,
                          double *w)
{
  int64_t j = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  int64_t t0 = (int64_t) blockIdx.y * GI_IDR_TILE;
  if (j >= m || t0 >= C) return;
  int64_t lo = gptr[j], hi = gptr[j + 1];
  const double W = ocw[hi - 1];
  int64_t a = lo, b = hi; /* first observation with okc >= k0 + t0 */
  while (a < b) {
    int64_t mid = (a + b) >> 1;
    if (okc[mid] < k0 + t0) a = mid + 1; else b = mid;
  }
  double c = a > lo ? ocw[a - 1] : 0.0;
  int64_t tend = t0 + GI_IDR_TILE < C ? t0 + GI_IDR_TILE : C;
  for (int64_t t = t0; t < tend; t++) {
    while (a < hi && okc[a] == k0 + t) c = ocw[a++];
    /* the last observation's running weight is W itself: exactly 1 */
    y[t * m + j] = c / W;
    if (weighted) w[t * m + j] = W;
  }
}

/* CDF values: means of shares in [0, 1], and in [0, 1] but for rounding
 * (a run of zeros can come out a hair below zero). */
__device__ __forceinline__ double unit(double v) { return fmin(fmax(v, 0.0), 1.0); }

/* 1 where a block starts: the first value of a problem, or a change of the
 * clamped value (so that two runs that clamp to one value are one block). */
__global__ void idr_flags(const double *fit, int64_t m, int64_t n, int32_t *flag)
{
  int64_t e = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n) return;
  flag[e] = (e % m == 0 || unit(fit[e]) != unit(fit[e - 1])) ? 1 : 0;
}

__global__ void idr_scatter(const double *fit, const int32_t *flag, const int32_t *pos,
                            int64_t m, int64_t n, int32_t *start, double *value)
{
  int64_t e = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n || !flag[e]) return;
  start[pos[e]] = (int32_t) (e % m);
  value[pos[e]] = unit(fit[e]);
}

/* Blocks of each problem of the slab, and the slab's total. */
__global__ void idr_counts(const int32_t *flag, const int32_t *pos, int64_t m, int64_t C,
                           int64_t *count)
{
  int64_t t = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (t > C) return;
  int64_t n = C * m;
  int64_t total = (int64_t) pos[n - 1] + flag[n - 1];
  if (t == C) { count[C] = total; return; }
  int64_t hi = t + 1 < C ? pos[(t + 1) * m] : total;
  count[t] = hi - pos[t * m];
}

/* The blocks of the last fit, kept for the glue to copy (host memory that
 * only grows, like the device workspace). */
static int32_t *res_start = NULL;
static double *res_value = NULL;
static int64_t res_cap = 0;

static int grow_result(int64_t need)
{
  if (need <= res_cap) return 0;
  int64_t cap = res_cap > 0 ? res_cap : 1024;
  while (cap < need) cap *= 2;
  int32_t *s = (int32_t *) realloc(res_start, (size_t) cap * sizeof(int32_t));
  if (s) res_start = s;
  double *v = (double *) realloc(res_value, (size_t) cap * sizeof(double));
  if (v) res_value = v;
  if (!s || !v) return -1;
  res_cap = cap;
  return 0;
}

extern "C" void gi_cuda_idr_result(const int **start, const double **value)
{
  *start = res_start;
  *value = res_value;
}

/* The observations by x, then by switch-on threshold (two counting sorts),
 * with running weights per x. */
static int sort_observations(const int *xcode, const int *kcode, const double *w,
                             int shift, int64_t n, int64_t m, int64_t K,
                             int64_t *gptr, int32_t *okc, double *ocw, int *weighted)
{
  int64_t *kcount = (int64_t *) calloc((size_t) K + 1, sizeof(int64_t));
  int64_t *byk = (int64_t *) malloc((size_t) (n > 0 ? n : 1) * sizeof(int64_t));
  int64_t *next = (int64_t *) malloc(((size_t) m + 1) * sizeof(int64_t));
  if (!kcount || !byk || !next) { free(kcount); free(byk); free(next); return -1; }
  for (int64_t i = 0; i < n; i++) kcount[kcode[i] + 1]++;
  for (int64_t k = 0; k < K; k++) kcount[k + 1] += kcount[k];
  for (int64_t i = 0; i < n; i++) byk[kcount[kcode[i]]++] = i;
  memset(gptr, 0, ((size_t) m + 1) * sizeof(int64_t));
  for (int64_t i = 0; i < n; i++) gptr[xcode[i] + 1]++;
  for (int64_t j = 0; j < m; j++) gptr[j + 1] += gptr[j];
  for (int64_t j = 0; j < m; j++) next[j] = gptr[j];
  for (int64_t r = 0; r < n; r++) {
    int64_t i = byk[r];
    int64_t p = next[xcode[i]]++;
    okc[p] = kcode[i];
    ocw[p] = w ? ldexp(w[i], -shift) : 1.0; /* exact: no underflow */
  }
  *weighted = 0;
  for (int64_t j = 0; j < m; j++) {
    for (int64_t p = gptr[j] + 1; p < gptr[j + 1]; p++) ocw[p] += ocw[p - 1];
    if (ocw[gptr[j + 1] - 1] != 1.0) *weighted = 1;
  }
  free(kcount);
  free(byk);
  free(next);
  return 0;
}

struct idr_buffers {
  int64_t *gptr, *count;
  int32_t *okc, *flag, *pos, *start;
  double *ocw, *y, *w, *fit, *value;
  void *tmp;
  size_t tmp_bytes;
};

static size_t idr_layout(int64_t n, int64_t m, int64_t C, int weighted, char *base,
                         idr_buffers *b)
{
  size_t s = (size_t) (C * m);
  gi_carver c = {base, 0};
  c.take_each(m + 1, b->gptr);
  c.take_each(n, b->okc, b->ocw);
  c.take_each(s, b->y);
  c.take_each(weighted ? s : 0, b->w);
  c.take_each(s, b->fit, b->flag, b->pos, b->start, b->value);
  c.take_each(C + 1, b->count);
  size_t t = 0;
  cub::DeviceScan::ExclusiveSum(nullptr, t, (int32_t *) nullptr, (int32_t *) nullptr, (int) s);
  c.take_scratch(t, b->tmp, b->tmp_bytes);
  return c.off;
}

static int idr_host(const int *xcode, const int *kcode, const double *w, int64_t n,
                    int64_t m, int64_t K, double *ptr, char *msg, size_t len)
{
  ptr[0] = 0;
  if (m > (int64_t) INT32_MAX || n > (int64_t) INT32_MAX) {
    snprintf(msg, len, "more observations than the device path takes: fit on the CPU");
    return GI_CUDA_RANGE;
  }
  /* the weights scaled by a power of two, the largest into [1, 2) (the fit
   * does not change): no running sum overflows. The device sums weights
   * and forms shares in plain doubles, which lose a weight below 2^-53 of
   * the sum it joins: weights spread over more than 2^30 go to the CPU,
   * which sums them exactly (a differential test against exact rationals
   * found the device's CDFs off by orders of magnitude beyond 2^52) */
  int shift = 0;
  if (w != NULL) {
    double lo = INFINITY, hi = 0.0;
    for (int64_t i = 0; i < n; i++) {
      if (w[i] < lo) lo = w[i];
      if (w[i] > hi) hi = w[i];
    }
    if (!(lo > 0.0) || lo < ldexp(hi, -30)) {
      snprintf(msg, len, "weights spread beyond what the device path takes exactly: "
               "fit on the CPU");
      return GI_CUDA_RANGE;
    }
    shift = ilogb(hi);
  }
  /* slabs of whole thresholds, smaller when the device is short of memory */
  size_t fr = 0, tot = 0;
  if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) fr = 0;
  (void) cudaGetLastError();
  int64_t slab = GI_IDR_SLAB;
  if (fr > 0 && (int64_t) (fr / 160) < slab) slab = (int64_t) (fr / 160);
  int64_t C = slab / m;
  if (C < 1) C = 1;
  if (C > K) C = K;

  int64_t *gptr = (int64_t *) malloc(((size_t) m + 1) * sizeof(int64_t));
  int32_t *okc = (int32_t *) malloc((size_t) (n > 0 ? n : 1) * sizeof(int32_t));
  double *ocw = (double *) malloc((size_t) (n > 0 ? n : 1) * sizeof(double));
  int64_t *off = (int64_t *) malloc(((size_t) C + 1) * sizeof(int64_t));
  int64_t *count = (int64_t *) malloc(((size_t) C + 1) * sizeof(int64_t));
  int weighted = 0;
  int rc = GI_CUDA_OK;
  if (!gptr || !okc || !ocw || !off || !count ||
      sort_observations(xcode, kcode, w, shift, n, m, K, gptr, okc, ocw, &weighted)) {
    snprintf(msg, len, "out of host memory while preparing the IDR fit");
    rc = GI_CUDA_NOMEM;
    goto done;
  }
  {
    idr_buffers b;
    size_t need = idr_layout(n, m, C, weighted, NULL, &b);
    void *base = NULL;
    cudaError_t err = gi_aux_reserve(need, &base);
    const char *stage = "while reserving its workspace";
    if (err == cudaSuccess) {
      idr_layout(n, m, C, weighted, (char *) base, &b);
      stage = "copying the observations to the device";
      err = gi_put(b.gptr, gptr, m + 1, GI_COPY8, 0);
    }
    if (err == cudaSuccess) err = gi_put(b.okc, okc, n, GI_COPY4, 0);
    if (err == cudaSuccess) err = gi_put(b.ocw, ocw, n, GI_COPY8, 0);
    int64_t nb = 0;
    for (int64_t k0 = 0; err == cudaSuccess && k0 < K; k0 += C) {
      int64_t c = K - k0 < C ? K - k0 : C, s = c * m;
      stage = "building the threshold problems";
      dim3 grid((unsigned) ((m + 127) / 128), (unsigned) ((c + GI_IDR_TILE - 1) / GI_IDR_TILE));
      idr_build<<<grid, 128>>>(b.gptr, b.okc, b.ocw, m, k0, c, weighted, b.y, b.w);
      err = cudaGetLastError();
      if (err != cudaSuccess) break;
      for (int64_t t = 0; t <= c; t++) off[t] = t * m;
      rc = gi_fit_prepared(b.y, weighted ? b.w : NULL, off, c, 1, b.fit, NULL, msg, len);
      if (rc != GI_CUDA_OK) goto done;
      stage = "reducing the fits to their blocks";
      unsigned blocks = (unsigned) ((s + 255) / 256);
      idr_flags<<<blocks, 256>>>(b.fit, m, s, b.flag);
      size_t tb = b.tmp_bytes;
      err = cub::DeviceScan::ExclusiveSum(b.tmp, tb, b.flag, b.pos, (int) s);
      if (err != cudaSuccess) break;
      idr_scatter<<<blocks, 256>>>(b.fit, b.flag, b.pos, m, s, b.start, b.value);
      idr_counts<<<(unsigned) ((c + 1 + 255) / 256), 256>>>(b.flag, b.pos, m, c, b.count);
      err = cudaMemcpy(count, b.count, ((size_t) c + 1) * sizeof(int64_t), cudaMemcpyDeviceToHost);
      if (err != cudaSuccess) break;
      int64_t total = count[c];
      if (grow_result(nb + total)) {
        snprintf(msg, len, "out of host memory for the blocks of the IDR fit (%.0f so far)",
                 (double) (nb + total));
        rc = GI_CUDA_NOMEM;
        goto done;
      }
      stage = "copying the blocks back";
      err = gi_get(res_start + nb, b.start, total, GI_COPY4, 0);
      if (err == cudaSuccess) err = gi_get(res_value + nb, b.value, total, GI_COPY8, 0);
      for (int64_t t = 0; t < c; t++) {
        nb += count[t];
        ptr[k0 + t + 1] = (double) nb;
      }
      /* between slabs, a look at interrupts (the host's hook) */
      if (err == cudaSuccess && k0 + c < K && gi_interrupted(GI_POLL_WORK)) {
        snprintf(msg, len, "interrupted");
        rc = GI_CUDA_INTERRUPT;
        goto done;
      }
    }
    if (err != cudaSuccess) rc = gi_fail(err, stage, need, msg, len);
  }
done:
  free(gptr); free(okc); free(ocw); free(off); free(count);
  return rc;
}

extern "C" int gi_cuda_idr_host(const int *xcode, const int *kcode, const double *w,
                                int64_t n, int64_t m, int64_t K, double *ptr,
                                char *msg, size_t len)
{
  gi_times_begin();
  int rc = idr_host(xcode, kcode, w, n, m, K, ptr, msg, len);
  gi_times_end();
  return rc;
}

/*
 * gpuiso CUDA engine: the sort and the fit of isoreg() on the device. The
 * points are put in stats::isoreg()'s order, by x and tied x by decreasing
 * y (increasing y for decreasing fits), by two stable radix sorts (y, then
 * x); the values are gathered in that order and fitted as they stand (a
 * run of tied x sorted against the fit is pooled whole by it). The order,
 * the sorted values, where x repeats and the fit come back; the host adds
 * stats' running sums and knots, which need its sequential arithmetic.
 */
#include <stdio.h>
#include <cub/cub.cuh>
#include "engine.cuh"
#include "gi_cuda.h"

/* A double as an unsigned key in its order (-0 as +0, so that the two tie
 * as they do in R's order()); `flip` gives the decreasing order. */
__device__ __forceinline__ uint64_t iso_key(double v, bool flip)
{
  uint64_t b = (uint64_t) __double_as_longlong(v == 0.0 ? 0.0 : v);
  b = (b >> 63) ? ~b : b | 0x8000000000000000ull;
  return flip ? ~b : b;
}

__global__ void iso_ykeys(const double *y, int64_t n, bool flip, uint64_t *key,
                          uint32_t *idx)
{
  int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  key[i] = iso_key(y[i], flip);
  idx[i] = (uint32_t) i;
}

__global__ void iso_xkeys(const double *x, const uint32_t *perm, int64_t n,
                          uint64_t *key)
{
  int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) key[i] = iso_key(x[perm[i]], false);
}

/* The values (and weights) in sort order, the order 1-based for R, and
 * whether each point's x equals its predecessor's. */
__global__ void iso_gather(const double *y, const double *w, const uint32_t *perm,
                           const uint64_t *xkey, int64_t n, double *ys, double *ws,
                           int32_t *ord, unsigned char *same)
{
  int64_t k = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  uint32_t i = perm[k];
  ys[k] = y[i];
  if (w) ws[k] = w[i];
  ord[k] = (int32_t) i + 1;
  same[k] = k > 0 && xkey[k] == xkey[k - 1];
}

struct iso_buffers {
  double *x, *y, *w, *ys, *ws, *fit;
  uint64_t *key_in, *key;
  uint32_t *idx_in, *perm1, *perm;
  int32_t *ord;
  unsigned char *same;
  void *tmp;
  size_t tmp_bytes;
};

static size_t iso_layout(int64_t n, int weighted, char *base, iso_buffers *b)
{
  size_t nd = (size_t) n, nw = weighted ? nd : 0;
  gi_carver c = {base, 0};
  c.take_each(nd, b->x, b->y);
  c.take_each(nw, b->w);
  c.take_each(nd, b->ys);
  c.take_each(nw, b->ws);
  c.take_each(nd, b->fit, b->key_in, b->key, b->idx_in, b->perm1, b->perm, b->ord, b->same);
  size_t t = 0;
  cub::DeviceRadixSort::SortPairs(nullptr, t, (uint64_t *) nullptr, (uint64_t *) nullptr,
                                  (uint32_t *) nullptr, (uint32_t *) nullptr, (int) n);
  c.take_scratch(t, b->tmp, b->tmp_bytes);
  return c.off;
}

static int isoreg_host(const double *x, const double *y, const double *w, int64_t n,
                       int decreasing, int32_t *ord, double *ys, double *ws,
                       unsigned char *same, double *fit, char *msg, size_t len)
{
  if (n <= 0) return GI_CUDA_OK;
  if (n > (int64_t) INT32_MAX) {
    snprintf(msg, len, "more points than one device sort takes: sort them on the CPU");
    return GI_CUDA_RANGE;
  }
  iso_buffers b;
  size_t need = iso_layout(n, w != NULL, NULL, &b);
  void *base = NULL;
  cudaError_t err = gi_aux_reserve(need, &base);
  if (err != cudaSuccess) return gi_fail(err, "while reserving its workspace", need, msg, len);
  iso_layout(n, w != NULL, (char *) base, &b);

  const char *stage = "copying the points to the device";
  err = gi_put(b.x, x, n, GI_COPY8, 0);
  if (err == cudaSuccess) err = gi_put(b.y, y, n, GI_COPY8, 0);
  if (err == cudaSuccess && w) err = gi_put(b.w, w, n, GI_COPY8, 0);
  unsigned blocks = (unsigned) ((n + 255) / 256);
  int nn = (int) n;
  if (err == cudaSuccess) {
    stage = "sorting the points";
    /* by y first (decreasing for increasing fits), then stably by x */
    iso_ykeys<<<blocks, 256>>>(b.y, n, !decreasing, b.key_in, b.idx_in);
    size_t tb = b.tmp_bytes;
    err = cub::DeviceRadixSort::SortPairs(b.tmp, tb, b.key_in, b.key, b.idx_in, b.perm1, nn);
  }
  if (err == cudaSuccess) {
    iso_xkeys<<<blocks, 256>>>(b.x, b.perm1, n, b.key_in);
    size_t tb = b.tmp_bytes;
    err = cub::DeviceRadixSort::SortPairs(b.tmp, tb, b.key_in, b.key, b.perm1, b.perm, nn);
  }
  if (err == cudaSuccess) {
    stage = "gathering the points in order";
    iso_gather<<<blocks, 256>>>(b.y, w ? b.w : NULL, b.perm, b.key, n, b.ys,
                                w ? b.ws : NULL, b.ord, b.same);
    err = cudaGetLastError();
  }
  if (err != cudaSuccess) return gi_fail(err, stage, need, msg, len);
  int64_t off[2] = {0, n};
  int rc = gi_fit_prepared(b.ys, w ? b.ws : NULL, off, 1, decreasing, b.fit, NULL, msg,
                           len);
  if (rc != GI_CUDA_OK) return rc;
  stage = "copying the fit back";
  err = gi_get(ord, b.ord, n, GI_COPY4, 0);
  if (err == cudaSuccess) err = gi_get(ys, b.ys, n, GI_COPY8, 0);
  if (err == cudaSuccess && w) err = gi_get(ws, b.ws, n, GI_COPY8, 0);
  if (err == cudaSuccess) err = gi_get(same, b.same, n, GI_COPY1, 0);
  if (err == cudaSuccess) err = gi_get(fit, b.fit, n, GI_COPY8, 0);
  if (err != cudaSuccess) return gi_fail(err, stage, need, msg, len);
  return GI_CUDA_OK;
}

extern "C" int gi_cuda_isoreg_host(const double *x, const double *y, const double *w,
                                   int64_t n, int decreasing, int32_t *ord,
                                   double *ys, double *ws, unsigned char *same,
                                   double *fit, char *msg, size_t len)
{
  gi_times_begin();
  int rc = isoreg_host(x, y, w, n, decreasing, ord, ys, ws, same, fit, msg, len);
  gi_times_end();
  return rc;
}

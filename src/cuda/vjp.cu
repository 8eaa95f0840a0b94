/*
 * gpuiso CUDA engine: the backward pass (paper, section 6, "Gradient").
 * The fit is constant on blocks, each the weighted mean of y over it, so
 * with G and W the sums of the upstream gradient and of the weights over
 * an element's block, dy = w G / W and dw = (y - fit) G / W. The blocks
 * are the forward pass's (its start flags); the block sums come from
 * prefix sums in pairs, so no atomics and no digits lost on long rows.
 */
#include <cub/cub.cuh>
#include "engine.cuh"

struct gw {
  dd g, w;
};

struct gw_add {
  __device__ __forceinline__ gw operator()(const gw &a, const gw &b) const
  {
    return gw{dd_add(a.g, b.g), dd_add(a.w, b.w)};
  }
};

__global__ void vjp_prepare(const unsigned char *starts, const double *grad,
                            const double *w, int64_t n, int64_t *ids, gw *sums)
{
  int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  ids[i] = starts[i] != 0;
  sums[i] = gw{dd_make(grad[i]), dd_make(w ? w[i] : 1.0)};
}

/* where each block starts, by the block numbers the scan gave */
__global__ void vjp_block_starts(const unsigned char *starts, const int64_t *ids,
                                 int64_t n, int64_t *bstart)
{
  int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && starts[i]) bstart[ids[i] - 1] = i;
}

__global__ void vjp_apply(const double *y, const double *w, const double *fit,
                          const int64_t *ids, const int64_t *bstart,
                          const gw *sums, int64_t n, double *dy, double *dw)
{
  int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int64_t nb = ids[n - 1], k = ids[i] - 1;
  const int64_t s = bstart[k], e = k + 1 < nb ? bstart[k + 1] : n;
  gw hi = sums[e - 1];
  dd G = hi.g, W = hi.w;
  if (s > 0) {
    G = dd_sub(G, sums[s - 1].g);
    W = dd_sub(W, sums[s - 1].w);
  }
  double r = dd_div(G, W);
  dy[i] = (w ? w[i] : 1.0) * r;
  if (dw) dw[i] = (y[i] - fit[i]) * r;
}

static size_t align256(size_t b) { return (b + 255) & ~(size_t) 255; }

static size_t cub_bytes(int64_t n)
{
  size_t a = 0, b = 0;
  cub::DeviceScan::InclusiveSum(nullptr, a, (int64_t *) nullptr, (int64_t *) nullptr, n);
  cub::DeviceScan::InclusiveScan(nullptr, b, (gw *) nullptr, (gw *) nullptr, gw_add(), n);
  return a > b ? a : b;
}

size_t gi_vjp_scratch_bytes(int64_t n)
{
  return align256((size_t) n * sizeof(int64_t)) * 2 +
         align256((size_t) n * sizeof(gw)) + align256(cub_bytes(n));
}

cudaError_t gi_launch_vjp(const double *y, const double *w, const double *fit,
                          const unsigned char *starts, const double *grad,
                          int64_t n, double *dy, double *dw, void *scratch,
                          size_t scratch_bytes, cudaStream_t s)
{
  if (n == 0) return cudaSuccess;
  char *p = (char *) scratch;
  int64_t *ids = (int64_t *) p; p += align256((size_t) n * sizeof(int64_t));
  int64_t *bstart = (int64_t *) p; p += align256((size_t) n * sizeof(int64_t));
  gw *sums = (gw *) p; p += align256((size_t) n * sizeof(gw));
  size_t tb = scratch_bytes - (size_t) (p - (char *) scratch);
  unsigned blocks = (unsigned) ((n + 255) / 256);
  vjp_prepare<<<blocks, 256, 0, s>>>(starts, grad, w, n, ids, sums);
  cudaError_t err = cub::DeviceScan::InclusiveSum(p, tb, ids, ids, n, s);
  if (err != cudaSuccess) return err;
  err = cub::DeviceScan::InclusiveScan(p, tb, sums, sums, gw_add(), n, s);
  if (err != cudaSuccess) return err;
  vjp_block_starts<<<blocks, 256, 0, s>>>(starts, ids, n, bstart);
  vjp_apply<<<blocks, 256, 0, s>>>(y, w, fit, ids, bstart, sums, n, dy, dw);
  return cudaGetLastError();
}

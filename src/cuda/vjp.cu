/*
 * gpuiso CUDA engine: the backward pass (paper, section 6, "Gradient").
 * The fit is constant on blocks, each the weighted mean of y over it, so
 * with G and W the sums of the upstream gradient and of the weights over
 * an element's block, dy = w G / W and dw = (y - fit) G / W. The blocks
 * are the forward pass's (its start flags); G and W are sums in pairs, so
 * no atomics and no digits lost on long blocks.
 *
 * A thread takes a piece of 16 elements. Its elements before its first
 * block start (its head) belong to a block that began further left; from
 * its last start on (its tail) to one that may go on to the right; blocks
 * between lie inside the piece. Two segmented scans over the pieces, not
 * the elements, join heads and tails into block totals: one from the
 * right sums each tail's following heads, one from the left hands each
 * head its block's total. The elements are read twice and written once.
 */
#include <cub/cub.cuh>
#include "engine.cuh"

#define PIECE 16

/* Sums of gradient and weight, and whether the piece holds a start. */
struct vseg {
  dd g, w;
  int flag;
};

/* Segmented sum: a flagged piece starts afresh. */
struct seg_sum {
  __device__ __forceinline__ vseg operator()(const vseg &a, const vseg &b) const
  {
    if (b.flag) return b;
    return vseg{dd_add(a.g, b.g), dd_add(a.w, b.w), a.flag};
  }
};

/* The latest flagged value. */
struct seg_last {
  __device__ __forceinline__ vseg operator()(const vseg &a, const vseg &b) const
  {
    return b.flag ? b : a;
  }
};

/* Each piece's head (into heads, in reverse order for the scan from the
 * right) and tail. */
__global__ void vjp_pieces(const unsigned char *starts, const double *grad, const double *w,
                           int64_t n, int64_t np, vseg *heads, vseg *tails)
{
  int64_t k = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= np) return;
  const int64_t a = k * PIECE, b = min(a + PIECE, n);
  dd hg = dd_make(0.0), hw = dd_make(0.0), tg = dd_make(0.0), tw = dd_make(0.0);
  int found = 0;
  for (int64_t i = a; i < b; i++) {
    const double wi = w ? w[i] : 1.0;
    if (starts[i]) {
      found = 1;
      tg = dd_make(0.0);
      tw = dd_make(0.0);
    }
    if (found) {
      tg = dd_add_d(tg, grad[i]);
      tw = dd_add_d(tw, wi);
    } else {
      hg = dd_add_d(hg, grad[i]);
      hw = dd_add_d(hw, wi);
    }
  }
  heads[np - 1 - k] = vseg{hg, hw, found};
  tails[k] = vseg{tg, tw, found};
}

/* After the scan from the right, heads[np - 1 - k] holds the sum of the
 * heads of pieces k, k + 1, ... up to the first that holds a start (its
 * head included): a tail's block total is the tail plus that sum of the
 * next piece. */
__global__ void vjp_tail_totals(const vseg *heads, int64_t np, vseg *tails)
{
  int64_t k = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= np || !tails[k].flag) return;
  if (k + 1 < np) {
    const vseg h = heads[np - 2 - k];
    tails[k].g = dd_add(tails[k].g, h.g);
    tails[k].w = dd_add(tails[k].w, h.w);
  }
}

__device__ __forceinline__ void vjp_write(const double *y, const double *w, const double *fit,
                                          int64_t a, int64_t b, dd G, dd W, double *dy,
                                          double *dw)
{
  const double r = dd_div(G, W);
  for (int64_t i = a; i < b; i++) {
    dy[i] = (w ? w[i] : 1.0) * r;
    if (dw) dw[i] = (y[i] - fit[i]) * r;
  }
}

/* The derivatives of a piece's elements: its head from the block total
 * the scan from the left brought (the last tail before it), its inner
 * blocks from their own sums, its tail from its total. */
__global__ void vjp_apply(const double *y, const double *w, const double *fit,
                          const unsigned char *starts, const double *grad, int64_t n,
                          int64_t np, const vseg *before, const vseg *tails, double *dy,
                          double *dw)
{
  int64_t k = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= np) return;
  const int64_t a = k * PIECE, b = min(a + PIECE, n);
  int64_t i = a;
  while (i < b && !starts[i]) i++;
  if (i > a) vjp_write(y, w, fit, a, i, before[k].g, before[k].w, dy, dw);
  while (i < b) {
    int64_t j = i + 1;
    while (j < b && !starts[j]) j++;
    if (j == b) {
      vjp_write(y, w, fit, i, j, tails[k].g, tails[k].w, dy, dw);
    } else {
      dd G = dd_make(0.0), W = dd_make(0.0);
      for (int64_t m = i; m < j; m++) {
        G = dd_add_d(G, grad[m]);
        W = dd_add_d(W, w ? w[m] : 1.0);
      }
      vjp_write(y, w, fit, i, j, G, W, dy, dw);
    }
    i = j;
  }
}

static int64_t pieces(int64_t n) { return (n + PIECE - 1) / PIECE; }

static size_t cub_bytes(int64_t np)
{
  size_t a = 0, b = 0;
  vseg zero{};
  cub::DeviceScan::InclusiveScan(nullptr, a, (vseg *) nullptr, (vseg *) nullptr, seg_sum(), np);
  cub::DeviceScan::ExclusiveScan(nullptr, b, (vseg *) nullptr, (vseg *) nullptr, seg_last(),
                                 zero, np);
  return a > b ? a : b;
}

/* The scratch: three arrays of a vseg per piece, then CUB's (what is left
 * of it once they are carved). */
size_t gi_vjp_scratch_bytes(int64_t n)
{
  const int64_t np = pieces(n);
  vseg *heads, *tails, *before;
  gi_carver c = {NULL, 0};
  c.take_each((size_t) np, heads, tails, before);
  c.take<char>(cub_bytes(np));
  return c.off;
}

cudaError_t gi_launch_vjp(const double *y, const double *w, const double *fit,
                          const unsigned char *starts, const double *grad,
                          int64_t n, double *dy, double *dw, void *scratch,
                          size_t scratch_bytes, cudaStream_t s)
{
  if (n == 0) return cudaSuccess;
  const int64_t np = pieces(n);
  vseg *heads, *tails, *before;
  gi_carver c = {(char *) scratch, 0};
  c.take_each((size_t) np, heads, tails, before);
  char *p = c.base + c.off;
  size_t tb = scratch_bytes - c.off;
  const unsigned blocks = (unsigned) ((np + 255) / 256);
  vjp_pieces<<<blocks, 256, 0, s>>>(starts, grad, w, n, np, heads, tails);
  cudaError_t err = cub::DeviceScan::InclusiveScan(p, tb, heads, heads, seg_sum(), np, s);
  if (err != cudaSuccess) return err;
  vjp_tail_totals<<<blocks, 256, 0, s>>>(heads, np, tails);
  vseg zero{};
  err = cub::DeviceScan::ExclusiveScan(p, tb, tails, before, seg_last(), zero, np, s);
  if (err != cudaSuccess) return err;
  vjp_apply<<<blocks, 256, 0, s>>>(y, w, fit, starts, grad, n, np, before, tails, dy, dw);
  return cudaGetLastError();
}

/*
 * gpuiso CUDA engine: the plan of a batch (engine.cuh says how a batch is
 * laid out in lanes and chunks), the bytes it needs of each workspace
 * buffer, its image on the device, and the launches of one forward pass.
 * Host code only; the kernels are in chunk.cu and merge.cu.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host.cuh"
#include "gi_cuda.h"

void gi_plan_free(host_plan *h)
{
  free(h->chunks); free(h->multi); free(h->merges);
  free(h->keys);
  memset(h, 0, sizeof(*h));
}

static int32_t lanes_for(int64_t n)
{
  int32_t L = 1;
  while (GI_UNIT * (int64_t) L < n) L <<= 1;
  return L;
}

/* Returns 0, or -1 when host memory runs out. */
static int plan_make(const int64_t *off, int64_t nprob, host_plan *h)
{
  memset(h, 0, sizeof(*h));
  int64_t n0 = nprob > 0 ? off[1] - off[0] : 0;
  int uniform = nprob > 0 && n0 >= 1 && n0 <= GI_CHUNK;
  for (int64_t b = 1; b < nprob && uniform; b++)
    uniform = off[b + 1] - off[b] == n0;
  if (uniform) {
    h->uniform_n = (int32_t) n0;
    h->uniform_L = lanes_for(n0);
    h->uniform_count = nprob;
    h->nlanes = (nprob * h->uniform_L + GI_BLOCK_UNITS - 1) / GI_BLOCK_UNITS * GI_BLOCK_UNITS;
    return 0;
  }
  int64_t nchunk = 0, nmulti = 0;
  for (int64_t b = 0; b < nprob; b++) {
    int64_t nb = off[b + 1] - off[b];
    if (nb > GI_CHUNK) {
      int64_t m = (nb + GI_CHUNK - 1) / GI_CHUNK;
      nchunk += m; nmulti += m;
    } else if (nb > 0) {
      nchunk++;
    }
  }
  h->chunks = (gi_chunk *) malloc((size_t) (nchunk > 0 ? nchunk : 1) * sizeof(gi_chunk));
  h->multi = (gi_multi *) malloc((size_t) (nmulti > 0 ? nmulti : 1) * sizeof(gi_multi));
  h->merges = (int64_t *) calloc(64, sizeof(int64_t));
  h->keys = (int64_t *) malloc((size_t) (nmulti > 0 ? nmulti : 1) * sizeof(int64_t));
  if (!h->chunks || !h->multi || !h->merges || !h->keys) {
    gi_plan_free(h);
    return -1;
  }
  int64_t cursor = 0, c = 0, mi = 0;
  for (int64_t b = 0; b < nprob; b++) {
    int64_t nb = off[b + 1] - off[b];
    if (nb == 0) continue;
    if (nb <= GI_CHUNK) {
      int32_t L = lanes_for(nb);
      cursor = (cursor + L - 1) / L * L;
      h->chunks[c++] = gi_chunk{off[b], cursor, -1, (int32_t) nb, L};
      cursor += L;
      continue;
    }
    int64_t m = (nb + GI_CHUNK - 1) / GI_CHUNK, first = mi;
    cursor = (cursor + GI_BLOCK_UNITS - 1) / GI_BLOCK_UNITS * GI_BLOCK_UNITS;
    for (int64_t k = 0; k < m; k++) {
      int64_t e0 = off[b] + k * GI_CHUNK;
      int32_t cnt = (int32_t) (nb - k * GI_CHUNK < GI_CHUNK ? nb - k * GI_CHUNK : GI_CHUNK);
      h->chunks[c++] = gi_chunk{e0, cursor, mi, cnt, GI_BLOCK_UNITS};
      h->keys[mi] = first;
      h->multi[mi++] = gi_multi{e0, first, cnt, (int32_t) m};
      cursor += GI_BLOCK_UNITS;
    }
    int lev = 0;
    for (int64_t nodes = m; nodes > 1; nodes = (nodes + 1) / 2, lev++)
      h->merges[lev] += nodes / 2;
    if (lev > h->levels) h->levels = lev;
  }
  h->nchunk = nchunk;
  h->nmulti = nmulti;
  h->nlanes = (cursor + GI_BLOCK_UNITS - 1) / GI_BLOCK_UNITS * GI_BLOCK_UNITS;
  return 0;
}

static void device_sizes(const host_plan *h, int64_t n, int single, int weighted,
                         size_t *need)
{
  size_t es = single ? sizeof(float) : sizeof(double);
  need[B_Y] = (size_t) n * es;
  need[B_W] = weighted ? (size_t) n * es : 0;
  need[B_FIT] = (size_t) n * es;
  need[B_CHUNKS] = (size_t) h->nchunk * sizeof(gi_chunk);
  need[B_MULTI] = (size_t) h->nmulti * sizeof(gi_multi);
  need[B_SIDX] = (size_t) h->nmulti * GI_SLOT * sizeof(int16_t);
  need[B_SY] = (size_t) h->nmulti * GI_SLOT * sizeof(dd);
  need[B_SX] = weighted ? (size_t) h->nmulti * GI_SLOT * sizeof(dd) : 0;
  need[B_CSTART] = (size_t) h->nmulti * 2 * sizeof(dd);
  need[B_CTOTAL] = (size_t) h->nmulti * 2 * sizeof(dd);
  need[B_KEYS] = (size_t) h->nmulti * sizeof(int64_t);
  gi_plan q;
  memset(&q, 0, sizeof(q));
  q.nmulti = h->nmulti;
  need[B_SSCRATCH] = gi_chunk_starts_scratch(q);
  need[B_DESC] = (size_t) h->nmulti * sizeof(gi_seg);
  need[B_COUNT] = (size_t) h->nmulti * sizeof(int32_t);
  need[B_FLAG] = sizeof(int);
}

int gi_plan_begin(const int64_t *off, int64_t nprob, int single, int weighted, host_plan *h,
                  size_t *need, char *msg, size_t len)
{
  if (plan_make(off, nprob, h)) {
    snprintf(msg, len, "out of host memory while planning the batch");
    return GI_CUDA_NOMEM;
  }
  memset(need, 0, B_N * sizeof(size_t));
  device_sizes(h, off[nprob], single, weighted, need);
  return GI_CUDA_OK;
}

gi_plan gi_device_plan(const host_plan *h, const void *y, const void *w, void *fit,
                       unsigned char *starts, int decreasing, int single)
{
  gi_plan p;
  memset(&p, 0, sizeof(p));
  p.nlanes = h->nlanes;
  p.nchunk = h->nchunk;
  p.nmulti = h->nmulti;
  p.uniform_n = h->uniform_n;
  p.uniform_L = h->uniform_L;
  p.uniform_count = h->uniform_count;
  p.chunks = (const gi_chunk *) gi_ws(B_CHUNKS);
  p.multi = (const gi_multi *) gi_ws(B_MULTI);
  p.y = y; p.w = w; p.fit = fit; p.starts = starts;
  p.decreasing = decreasing; p.single = single;
  p.slot_idx = (int16_t *) gi_ws(B_SIDX);
  p.slot_y = (dd *) gi_ws(B_SY);
  p.slot_x = (dd *) gi_ws(B_SX);
  p.cstart = (dd *) gi_ws(B_CSTART);
  p.ctotal = (dd *) gi_ws(B_CTOTAL);
  p.keys = (const int64_t *) gi_ws(B_KEYS);
  p.desc = (gi_seg *) gi_ws(B_DESC);
  p.count = (int32_t *) gi_ws(B_COUNT);
  p.flag = (int *) gi_ws(B_FLAG);
  return p;
}

cudaError_t gi_upload_plan(const host_plan *h, cudaStream_t s)
{
  cudaError_t err = cudaSuccess;
  if (h->nchunk)
    err = cudaMemcpyAsync(gi_ws(B_CHUNKS), h->chunks, (size_t) h->nchunk * sizeof(gi_chunk),
                          cudaMemcpyHostToDevice, s);
  if (err == cudaSuccess && h->nmulti)
    err = cudaMemcpyAsync(gi_ws(B_MULTI), h->multi, (size_t) h->nmulti * sizeof(gi_multi),
                          cudaMemcpyHostToDevice, s);
  if (err == cudaSuccess && h->nmulti)
    err = cudaMemcpyAsync(gi_ws(B_KEYS), h->keys, (size_t) h->nmulti * sizeof(int64_t),
                          cudaMemcpyHostToDevice, s);
  return err;
}

/* A level with fewer merges than this runs a warp per merge, which walks
 * 32 steps at a time and moves descriptors in coalesced rounds; a wider
 * level runs a thread per merge, which costs less work in all (a warp per
 * merge doubled the time of the first levels of a row of 10^8). */
#define GI_WARP_LEVEL 256

cudaError_t gi_solve(const host_plan *h, const gi_plan &p, cudaStream_t s, cudaEvent_t *ev)
{
  cudaError_t err = cudaMemsetAsync(p.flag, 0, sizeof(int), s);
  if (err != cudaSuccess) return err;
  gi_launch_chunks(p, s);
  if (ev) cudaEventRecord(ev[0], s);
  if (h->nmulti > 0) {
    err = gi_launch_chunk_starts(p, gi_ws(B_SSCRATCH), gi_ws_cap(B_SSCRATCH), s);
    if (err != cudaSuccess) return err;
  }
  if (ev) cudaEventRecord(ev[1], s);
  for (int r = 0; r < h->levels; r++)
    gi_launch_merge_level(p, r, h->merges[r] < GI_WARP_LEVEL, s);
  if (ev) cudaEventRecord(ev[2], s);
  if (h->nmulti > 0) gi_launch_long_fit(p, s);
  if (ev) cudaEventRecord(ev[3], s);
  return cudaGetLastError();
}

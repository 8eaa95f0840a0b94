/*
 * gpuiso CUDA engine: the device workspace kept between calls. A fixed set
 * of buffers that only grow, how they are asked for (cudaMalloc, or the
 * always-full device of the out-of-memory test hook), what they hold
 * (gi_cuda_memory()) and their release. Host code only.
 */
#include <stdio.h>
#include "host.cuh"
#include "gi_cuda.h"

/* A device buffer that only grows; all are freed together on request or
 * after an error. */
struct dbuf {
  void *p;
  size_t cap;
};

static dbuf ws[B_N];
static int engine_started = 0; /* has this session used the device? */

void *gi_ws(int b) { return ws[b].p; }
size_t gi_ws_cap(int b) { return ws[b].cap; }

size_t gi_sum_sizes(const size_t *need)
{
  size_t s = 0;
  for (int i = 0; i < B_N; i++) s += need[i];
  return s;
}

static size_t held_bytes(void)
{
  size_t s = 0;
  for (int i = 0; i < B_N; i++) s += ws[i].cap;
  return s;
}

extern "C" void gi_cuda_release(void)
{
  for (int i = 0; i < B_N; i++) {
    if (ws[i].p) cudaFree(ws[i].p);
    ws[i].p = NULL;
    ws[i].cap = 0;
  }
  gi_ring_release();
  (void) cudaGetLastError();
}

/* How the workspace asks for device memory: cudaMalloc, or, while a test
 * has armed gi_cuda_test_full_device(), a device that is always full. */
static cudaError_t plain_alloc(void **p, size_t bytes) { return cudaMalloc(p, bytes); }
static cudaError_t full_alloc(void **p, size_t bytes)
{
  (void) bytes;
  *p = NULL;
  return cudaErrorMemoryAllocation;
}
static cudaError_t (*dev_alloc)(void **, size_t) = plain_alloc;

/* For the tests only (not reached from the user's functions): the device
 * looks full from now on (on = 1) or no longer (on = 0), so that they can
 * follow the out-of-memory path without filling an H200. Arming it gives
 * everything held back first, so that every buffer is asked for anew. */
extern "C" void gi_cuda_test_full_device(int on)
{
  if (on) gi_cuda_release();
  dev_alloc = on ? full_alloc : plain_alloc;
}

/* The old buffers may be what is in the way of new ones: a failed first
 * attempt gives them back before the second. */
cudaError_t gi_reserve(const size_t *need, int keep_aux)
{
  engine_started = 1;
  for (int attempt = 0; attempt < 2; attempt++) {
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < B_N && err == cudaSuccess; i++) {
      if (need[i] <= ws[i].cap) continue;
      if (ws[i].p) cudaFree(ws[i].p);
      ws[i].p = NULL;
      ws[i].cap = 0;
      size_t want = attempt == 0 ? need[i] + need[i] / 8 : need[i];
      err = dev_alloc(&ws[i].p, want);
      if (err == cudaSuccess) ws[i].cap = want;
      else ws[i].p = NULL;
    }
    if (err == cudaSuccess) return cudaSuccess;
    (void) cudaGetLastError();
    if (err != cudaErrorMemoryAllocation) {
      gi_cuda_release();
      return err;
    }
    for (int i = 0; i < B_N; i++) {
      if (keep_aux && i == B_AUX) continue;
      if (ws[i].p) cudaFree(ws[i].p);
      ws[i].p = NULL;
      ws[i].cap = 0;
    }
  }
  return cudaErrorMemoryAllocation;
}

cudaError_t gi_aux_reserve(size_t bytes, void **p)
{
  size_t need[B_N] = {0};
  need[B_AUX] = bytes;
  cudaError_t err = gi_reserve(need);
  *p = err == cudaSuccess ? ws[B_AUX].p : NULL;
  return err;
}

extern "C" int gi_cuda_memory(double *held, double *pinned, double *free_bytes,
                              double *total_bytes, char *msg, size_t len)
{
  size_t fr = 0, tot = 0;
  *held = (double) held_bytes();
  *pinned = (double) gi_ring_bytes();
  /* asking the device would start a CUDA context: not before the engine
   * has run in this session */
  if (!engine_started) {
    *free_bytes = *total_bytes = -1;
    return GI_CUDA_OK;
  }
  cudaError_t err = cudaMemGetInfo(&fr, &tot);
  if (err != cudaSuccess) {
    snprintf(msg, len, "%s", cudaGetErrorString(err));
    (void) cudaGetLastError();
    *free_bytes = *total_bytes = 0;
    return GI_CUDA_ABSENT;
  }
  *free_bytes = (double) fr;
  *total_bytes = (double) tot;
  return GI_CUDA_OK;
}

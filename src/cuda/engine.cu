/*
 * gpuiso CUDA engine: the plan of a batch, the device workspace kept
 * between calls, and the entry points of gi_cuda.h. Host code only; the
 * kernels are in chunk.cu, merge.cu and vjp.cu, the host transfers in
 * transfer.cu. Of C++'s libraries only CUB (header-only, with the toolkit)
 * is used, so that the package links with the C compiler.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.cuh"
#include "gi_cuda.h"

/* ---- the workspace ------------------------------------------------------ */

/* A device buffer that only grows; all are freed together on request or
 * after an error. */
struct dbuf {
  void *p;
  size_t cap;
};

enum { B_Y, B_W, B_FIT, B_STARTS, B_CHUNKS, B_MULTI, B_SIDX, B_SY,
       B_SX, B_CSTART, B_CTOTAL, B_KEYS, B_SSCRATCH, B_DESC, B_COUNT, B_FLAG, B_GRAD, B_DY, B_DW, B_SCRATCH,
       B_AUX, /* the data of a pipeline that prepares its batch on the device */
       B_N };

static dbuf ws[B_N];
static int engine_started = 0; /* has this session used the device? */

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

/* Make each buffer hold at least need[i] bytes. When the device is short of
 * memory, everything is given back and asked for once more at the exact
 * sizes, since the old buffers may be what is in the way; everything but
 * the auxiliary buffer when `keep_aux`, whose data a pipeline still needs. */
static cudaError_t reserve(const size_t *need, int keep_aux = 0)
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

/* ---- the plan ------------------------------------------------------------ */

struct host_plan {
  gi_chunk *chunks;
  gi_multi *multi;
  int64_t *keys; /* per chunk of a long problem: its problem's first one */
  int64_t nchunk, nmulti, nlanes, uniform_count;
  int32_t uniform_n, uniform_L, levels;
  int64_t *merges; /* merges per level */
};

static void plan_free(host_plan *h)
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
    plan_free(h);
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

/* ---- solving ------------------------------------------------------------- */

/* A level with fewer merges than this runs a warp per merge, which walks
 * 32 steps at a time and moves descriptors in coalesced rounds; a wider
 * level runs a thread per merge, which costs less work in all (a warp per
 * merge doubled the time of the first levels of a row of 10^8). */
#define GI_WARP_LEVEL 256

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

static gi_plan device_plan(const host_plan *h, const void *y, const void *w,
                           void *fit, unsigned char *starts, int decreasing,
                           int single)
{
  gi_plan p;
  memset(&p, 0, sizeof(p));
  p.nlanes = h->nlanes;
  p.nchunk = h->nchunk;
  p.nmulti = h->nmulti;
  p.uniform_n = h->uniform_n;
  p.uniform_L = h->uniform_L;
  p.uniform_count = h->uniform_count;
  p.chunks = (const gi_chunk *) ws[B_CHUNKS].p;
  p.multi = (const gi_multi *) ws[B_MULTI].p;
  p.y = y; p.w = w; p.fit = fit; p.starts = starts;
  p.decreasing = decreasing; p.single = single;
  p.slot_idx = (int16_t *) ws[B_SIDX].p;
  p.slot_y = (dd *) ws[B_SY].p;
  p.slot_x = (dd *) ws[B_SX].p;
  p.cstart = (dd *) ws[B_CSTART].p;
  p.ctotal = (dd *) ws[B_CTOTAL].p;
  p.keys = (const int64_t *) ws[B_KEYS].p;
  p.desc = (gi_seg *) ws[B_DESC].p;
  p.count = (int32_t *) ws[B_COUNT].p;
  p.flag = (int *) ws[B_FLAG].p;
  return p;
}

static cudaError_t upload_plan(const host_plan *h, cudaStream_t s)
{
  cudaError_t err = cudaSuccess;
  if (h->nchunk)
    err = cudaMemcpyAsync(ws[B_CHUNKS].p, h->chunks, (size_t) h->nchunk * sizeof(gi_chunk),
                          cudaMemcpyHostToDevice, s);
  if (err == cudaSuccess && h->nmulti)
    err = cudaMemcpyAsync(ws[B_MULTI].p, h->multi, (size_t) h->nmulti * sizeof(gi_multi),
                          cudaMemcpyHostToDevice, s);
  if (err == cudaSuccess && h->nmulti)
    err = cudaMemcpyAsync(ws[B_KEYS].p, h->keys, (size_t) h->nmulti * sizeof(int64_t),
                          cudaMemcpyHostToDevice, s);
  return err;
}

/* The kernels of one forward pass, in stream order; `ev`, when not NULL,
 * gets an event after each of its four stages (for benchmarks). */
static cudaError_t solve(const host_plan *h, const gi_plan &p, cudaStream_t s,
                         cudaEvent_t *ev = NULL)
{
  cudaError_t err = cudaMemsetAsync(p.flag, 0, sizeof(int), s);
  if (err != cudaSuccess) return err;
  gi_launch_chunks(p, s);
  if (ev) cudaEventRecord(ev[0], s);
  if (h->nmulti > 0) {
    err = gi_launch_chunk_starts(p, ws[B_SSCRATCH].p, ws[B_SSCRATCH].cap, s);
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

/* ---- messages ------------------------------------------------------------ */

static int fail(cudaError_t err, const char *what, size_t need, char *msg, size_t len)
{
  (void) cudaGetLastError();
  if (err == GI_ERR_INTERRUPTED) {
    snprintf(msg, len, "interrupted");
    return GI_CUDA_INTERRUPT;
  }
  if (err == cudaErrorMemoryAllocation) {
    size_t fr = 0, tot = 0;
    if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) { fr = 0; tot = 0; }
    (void) cudaGetLastError();
    snprintf(msg, len,
             "the GPU ran out of memory %s: this batch needs about %.2f GB of "
             "device memory and %.2f GB of %.2f GB are free. Use device = \"cpu\", "
             "or solve the batch in parts",
             what, need / 1e9, fr / 1e9, tot / 1e9);
    return GI_CUDA_NOMEM;
  }
  /* after a failed kernel the context may be unusable: start afresh */
  gi_cuda_release();
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) {
    snprintf(msg, len, "no usable GPU: %s. Use device = \"cpu\"", cudaGetErrorString(err));
    return GI_CUDA_ABSENT;
  }
  snprintf(msg, len, "CUDA error %s: %s. The device workspace was freed; "
           "use device = \"cpu\" if this persists", what, cudaGetErrorString(err));
  return GI_CUDA_FAILED;
}

static size_t sum_sizes(const size_t *need)
{
  size_t s = 0;
  for (int i = 0; i < B_N; i++) s += need[i];
  return s;
}

static cudaError_t read_flag(int *flag)
{
  *flag = 0;
  return cudaMemcpy(flag, ws[B_FLAG].p, sizeof(int), cudaMemcpyDeviceToHost);
}

static int range_status(int flag, char *msg, size_t len)
{
  if (flag & GI_FLAG_RANGE) {
    snprintf(msg, len, "sums beyond the range of doubles");
    return GI_CUDA_RANGE;
  }
  return GI_CUDA_OK;
}

/* Monotone output enforced on the host: a cumulative maximum (minimum for
 * decreasing fits) per problem. Only reached when the check kernel saw a
 * step the wrong way, which rounding should never produce. */
template <typename T>
static void enforce_monotone(T *fit, const int64_t *off, int64_t nprob, int decreasing)
{
  for (int64_t b = 0; b < nprob; b++) {
    for (int64_t i = off[b] + 1; i < off[b + 1]; i++) {
      if (decreasing ? fit[i] > fit[i - 1] : fit[i] < fit[i - 1]) fit[i] = fit[i - 1];
    }
  }
}

template <typename T>
static cudaError_t enforce_on_device(void *dfit, const int64_t *off, int64_t nprob,
                                     int decreasing)
{
  int64_t n = off[nprob];
  T *tmp = (T *) malloc((size_t) n * sizeof(T));
  if (!tmp) return cudaErrorMemoryAllocation;
  cudaError_t err = cudaMemcpy(tmp, dfit, (size_t) n * sizeof(T), cudaMemcpyDeviceToHost);
  if (err == cudaSuccess) {
    enforce_monotone(tmp, off, nprob, decreasing);
    err = cudaMemcpy(dfit, tmp, (size_t) n * sizeof(T), cudaMemcpyHostToDevice);
  }
  free(tmp);
  return err;
}

/* The plan of a batch and the bytes each device buffer needs for it: 0, or
 * GI_CUDA_NOMEM with the reason when host memory runs out. */
static int begin(const int64_t *off, int64_t nprob, int single, int weighted,
                 host_plan *h, size_t *need, char *msg, size_t len)
{
  if (plan_make(off, nprob, h)) {
    snprintf(msg, len, "out of host memory while planning the batch");
    return GI_CUDA_NOMEM;
  }
  memset(need, 0, B_N * sizeof(size_t));
  device_sizes(h, off[nprob], single, weighted, need);
  return GI_CUDA_OK;
}

/* ---- entry points -------------------------------------------------------- */

static int fit_host(const double *y, const double *w, const int64_t *off, int64_t nprob,
                    int decreasing, int single, double *fit, unsigned char *starts,
                    char *msg, size_t len)
{
  int64_t n = off[nprob];
  if (n == 0) return GI_CUDA_OK;
  host_plan h;
  size_t need[B_N];
  if (begin(off, nprob, single, w != NULL, &h, need, msg, len)) return GI_CUDA_NOMEM;
  need[B_STARTS] = starts ? (size_t) n : 0;
  cudaError_t err = reserve(need);
  if (err != cudaSuccess) {
    plan_free(&h);
    return fail(err, "while reserving its workspace", sum_sizes(need), msg, len);
  }
  gi_conv values = single ? GI_TO_F32 : GI_COPY8;
  const char *stage = "copying the data to the device";
  err = upload_plan(&h, 0);
  if (err == cudaSuccess) err = gi_put(ws[B_Y].p, y, n, values, 0);
  if (err == cudaSuccess && w) err = gi_put(ws[B_W].p, w, n, values, 0);
  if (err == cudaSuccess) {
    stage = "in the solver's kernels";
    gi_plan p = device_plan(&h, ws[B_Y].p, w ? ws[B_W].p : NULL, ws[B_FIT].p,
                            starts ? (unsigned char *) ws[B_STARTS].p : NULL,
                            decreasing, single);
    err = solve(&h, p, 0);
  }
  if (err == cudaSuccess) {
    gi_host_ready(fit, (size_t) n * sizeof(double));
    if (starts) gi_host_ready(starts, (size_t) n);
  }
  int flag = 0;
  if (err == cudaSuccess) err = read_flag(&flag);
  /* a batch the CPU must solve is not copied back */
  if (err == cudaSuccess && !(flag & GI_FLAG_RANGE)) {
    stage = "copying the fit back";
    err = gi_get(fit, ws[B_FIT].p, n, single ? GI_FROM_F32 : GI_COPY8, 0);
    if (err == cudaSuccess && starts) err = gi_get(starts, ws[B_STARTS].p, n, GI_COPY1, 0);
  }
  plan_free(&h);
  if (err != cudaSuccess) return fail(err, stage, sum_sizes(need), msg, len);
  if (flag & GI_FLAG_STEP) enforce_monotone(fit, off, nprob, decreasing);
  return range_status(flag, msg, len);
}

extern "C" int gi_cuda_fit_host(const double *y, const double *w, const int64_t *off,
                                int64_t nprob, int decreasing, int single, double *fit,
                                unsigned char *starts, char *msg, size_t len)
{
  gi_times_begin();
  int rc = fit_host(y, w, off, nprob, decreasing, single, fit, starts, msg, len);
  gi_times_end();
  return rc;
}

/* The forward pass on device data; see gi_cuda_fit_device(). */
static int fit_device(const void *y, const void *w, const int64_t *off, int64_t nprob,
                      int decreasing, int single, void *fit, unsigned char *starts,
                      cudaStream_t s, int keep_aux, char *msg, size_t len)
{
  int64_t n = off[nprob];
  if (n == 0) return GI_CUDA_OK;
  host_plan h;
  size_t need[B_N];
  if (begin(off, nprob, single, w != NULL, &h, need, msg, len)) return GI_CUDA_NOMEM;
  need[B_Y] = need[B_W] = need[B_FIT] = 0; /* the caller's */
  need[B_AUX] = keep_aux ? ws[B_AUX].cap : 0;
  cudaError_t err = reserve(need, keep_aux);
  if (err == cudaSuccess) err = upload_plan(&h, s);
  if (err == cudaSuccess) {
    gi_plan p = device_plan(&h, y, w, fit, starts, decreasing, single);
    err = solve(&h, p, s);
  }
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  int flag = 0;
  if (err == cudaSuccess) err = read_flag(&flag);
  if (err == cudaSuccess && (flag & GI_FLAG_STEP))
    err = single ? enforce_on_device<float>(fit, off, nprob, decreasing)
                 : enforce_on_device<double>(fit, off, nprob, decreasing);
  plan_free(&h);
  if (err != cudaSuccess) return fail(err, "in the solver", sum_sizes(need), msg, len);
  return range_status(flag, msg, len);
}

extern "C" int gi_cuda_fit_device(const void *y, const void *w, const int64_t *off,
                                  int64_t nprob, int decreasing, int single, void *fit,
                                  unsigned char *starts, void *stream, char *msg,
                                  size_t len)
{
  return fit_device(y, w, off, nprob, decreasing, single, fit, starts,
                    (cudaStream_t) stream, 0, msg, len);
}

/* ---- pipelines that prepare their batch on the device --------------------- */

cudaError_t gi_aux_reserve(size_t bytes, void **p)
{
  size_t need[B_N] = {0};
  need[B_AUX] = bytes;
  cudaError_t err = reserve(need);
  *p = err == cudaSuccess ? ws[B_AUX].p : NULL;
  return err;
}

int gi_fit_prepared(const double *y, const double *w, const int64_t *off, int64_t nprob,
                    int decreasing, double *fit, unsigned char *starts, char *msg,
                    size_t len)
{
  return fit_device(y, w, off, nprob, decreasing, 0, fit, starts, 0, 1, msg, len);
}

int gi_fail(cudaError_t err, const char *what, size_t need, char *msg, size_t len)
{
  return fail(err, what, need, msg, len);
}

extern "C" int gi_cuda_bench(const double *y, const double *w, const int64_t *off,
                             int64_t nprob, int decreasing, int single, int reps,
                             double *ms, double *stage_ms, double *fit, char *msg,
                             size_t len)
{
  int64_t n = off[nprob];
  for (int r = 0; r < reps; r++) ms[r] = 0.0;
  if (n == 0) return GI_CUDA_OK;
  host_plan h;
  size_t need[B_N];
  if (begin(off, nprob, single, w != NULL, &h, need, msg, len)) return GI_CUDA_NOMEM;
  cudaError_t err = reserve(need);
  cudaEvent_t e0 = NULL, e1 = NULL, ev[4] = {NULL, NULL, NULL, NULL};
  gi_conv values = single ? GI_TO_F32 : GI_COPY8;
  if (err == cudaSuccess) err = gi_put(ws[B_Y].p, y, n, values, 0);
  if (err == cudaSuccess && w) err = gi_put(ws[B_W].p, w, n, values, 0);
  if (err == cudaSuccess) err = cudaEventCreate(&e0);
  if (err == cudaSuccess) err = cudaEventCreate(&e1);
  for (int i = 0; i < 4 && err == cudaSuccess; i++) err = cudaEventCreate(&ev[i]);
  /* the warm-up goes through the entry point for device data, which also
   * uploads the plan; its fit comes back for checking when asked for */
  if (err == cudaSuccess) {
    int rc = gi_cuda_fit_device(ws[B_Y].p, w ? ws[B_W].p : NULL, off, nprob, decreasing,
                                single, ws[B_FIT].p, NULL, NULL, msg, len);
    if (rc != GI_CUDA_OK) {
      if (e0) cudaEventDestroy(e0);
      if (e1) cudaEventDestroy(e1);
      for (int i = 0; i < 4; i++) if (ev[i]) cudaEventDestroy(ev[i]);
      plan_free(&h);
      return rc;
    }
    if (fit) err = gi_get(fit, ws[B_FIT].p, n, single ? GI_FROM_F32 : GI_COPY8, 0);
  }
  gi_plan p = device_plan(&h, ws[B_Y].p, w ? ws[B_W].p : NULL, ws[B_FIT].p, NULL,
                          decreasing, single);
  for (int r = 0; r < reps && err == cudaSuccess; r++) {
    float t = 0.0f;
    err = cudaEventRecord(e0, 0);
    if (err == cudaSuccess) err = solve(&h, p, 0);
    if (err == cudaSuccess) err = cudaEventRecord(e1, 0);
    if (err == cudaSuccess) err = cudaEventSynchronize(e1);
    if (err == cudaSuccess) err = cudaEventElapsedTime(&t, e0, e1);
    ms[r] = t;
  }
  /* one more run, split by stage: chunks, chunk starts, merge levels, fit */
  if (err == cudaSuccess && stage_ms) {
    err = cudaEventRecord(e0, 0);
    if (err == cudaSuccess) err = solve(&h, p, 0, ev);
    if (err == cudaSuccess) err = cudaEventSynchronize(ev[3]);
    for (int i = 0; i < 4 && err == cudaSuccess; i++) {
      float t = 0.0f;
      err = cudaEventElapsedTime(&t, i == 0 ? e0 : ev[i - 1], ev[i]);
      stage_ms[i] = t;
    }
  }
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  for (int i = 0; i < 4; i++) if (ev[i]) cudaEventDestroy(ev[i]);
  int flag = 0;
  if (err == cudaSuccess) err = read_flag(&flag);
  plan_free(&h);
  if (err != cudaSuccess) return fail(err, "in the benchmark", sum_sizes(need), msg, len);
  return range_status(flag, msg, len);
}

/* The backward pass's workspace, dw's when want_dw; need gets the bytes,
 * for messages. */
static cudaError_t vjp_reserve(int64_t n, int weighted, int want_dw, size_t *need)
{
  size_t nb = (size_t) n * sizeof(double);
  memset(need, 0, B_N * sizeof(size_t));
  need[B_Y] = nb; need[B_W] = weighted ? nb : 0; need[B_FIT] = nb; need[B_STARTS] = (size_t) n;
  need[B_GRAD] = nb; need[B_DY] = nb; need[B_DW] = want_dw ? nb : 0;
  need[B_SCRATCH] = gi_vjp_scratch_bytes(n);
  return reserve(need);
}

/* Its inputs, copied to the reserved workspace. */
static cudaError_t vjp_upload(const double *y, const double *w, const double *fit,
                              const unsigned char *starts, const double *grad, int64_t n)
{
  cudaError_t err = gi_put(ws[B_Y].p, y, n, GI_COPY8, 0);
  if (err == cudaSuccess && w) err = gi_put(ws[B_W].p, w, n, GI_COPY8, 0);
  if (err == cudaSuccess) err = gi_put(ws[B_FIT].p, fit, n, GI_COPY8, 0);
  if (err == cudaSuccess) err = gi_put(ws[B_STARTS].p, starts, n, GI_COPY1, 0);
  if (err == cudaSuccess) err = gi_put(ws[B_GRAD].p, grad, n, GI_COPY8, 0);
  return err;
}

/* The pass on the uploaded inputs, into the workspace's dy (and dw). */
static cudaError_t vjp_run(int64_t n, int weighted, int want_dw)
{
  return gi_launch_vjp((const double *) ws[B_Y].p, weighted ? (const double *) ws[B_W].p : NULL,
                       (const double *) ws[B_FIT].p, (const unsigned char *) ws[B_STARTS].p,
                       (const double *) ws[B_GRAD].p, n, (double *) ws[B_DY].p,
                       want_dw ? (double *) ws[B_DW].p : NULL, ws[B_SCRATCH].p,
                       ws[B_SCRATCH].cap, 0);
}

static int vjp_host(const double *y, const double *w, const double *fit,
                    const unsigned char *starts, const double *grad, int64_t n,
                    double *dy, double *dw, char *msg, size_t len)
{
  if (n == 0) return GI_CUDA_OK;
  size_t nb = (size_t) n * sizeof(double);
  size_t need[B_N];
  cudaError_t err = vjp_reserve(n, w != NULL, dw != NULL, need);
  if (err != cudaSuccess) return fail(err, "while reserving its workspace", sum_sizes(need), msg, len);
  err = vjp_upload(y, w, fit, starts, grad, n);
  if (err == cudaSuccess) err = vjp_run(n, w != NULL, dw != NULL);
  if (err == cudaSuccess) {
    gi_host_ready(dy, nb);
    if (dw) gi_host_ready(dw, nb);
  }
  if (err == cudaSuccess) err = gi_get(dy, ws[B_DY].p, n, GI_COPY8, 0);
  if (err == cudaSuccess && dw) err = gi_get(dw, ws[B_DW].p, n, GI_COPY8, 0);
  if (err != cudaSuccess) return fail(err, "in the backward pass", sum_sizes(need), msg, len);
  return GI_CUDA_OK;
}

extern "C" int gi_cuda_vjp_host(const double *y, const double *w, const double *fit,
                                const unsigned char *starts, const double *grad,
                                const int64_t *off, int64_t nprob, int single,
                                double *dy, double *dw, char *msg, size_t len)
{
  (void) single; /* the R layer rounds inputs and outputs; sums are pairs */
  gi_times_begin();
  int rc = vjp_host(y, w, fit, starts, grad, off[nprob], dy, dw, msg, len);
  gi_times_end();
  return rc;
}

extern "C" int gi_cuda_bench_vjp(const double *y, const double *w, const double *fit,
                                 const unsigned char *starts, const double *grad, int64_t n,
                                 int reps, double *ms, char *msg, size_t len)
{
  for (int r = 0; r < reps; r++) ms[r] = 0.0;
  if (n == 0) return GI_CUDA_OK;
  size_t need[B_N];
  cudaError_t err = vjp_reserve(n, w != NULL, w != NULL, need);
  if (err == cudaSuccess) err = vjp_upload(y, w, fit, starts, grad, n);
  cudaEvent_t e0 = NULL, e1 = NULL;
  if (err == cudaSuccess) err = cudaEventCreate(&e0);
  if (err == cudaSuccess) err = cudaEventCreate(&e1);
  for (int r = -1; r < reps && err == cudaSuccess; r++) { /* r = -1: the warm-up */
    float t = 0.0f;
    err = cudaEventRecord(e0, 0);
    if (err == cudaSuccess) err = vjp_run(n, w != NULL, w != NULL);
    if (err == cudaSuccess) err = cudaEventRecord(e1, 0);
    if (err == cudaSuccess) err = cudaEventSynchronize(e1);
    if (err == cudaSuccess) err = cudaEventElapsedTime(&t, e0, e1);
    if (r >= 0) ms[r] = t;
  }
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  if (err != cudaSuccess) return fail(err, "in the backward benchmark", sum_sizes(need), msg, len);
  return GI_CUDA_OK;
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

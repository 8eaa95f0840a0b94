/*
 * gpuiso CUDA engine, host side: what workspace.cu, plan.cu, status.cu,
 * entry.cu and bench.cu share among themselves (the pipelines that prepare
 * their batch on the device see only engine.cuh). Host code only; every
 * name here stays inside the package (-fvisibility=hidden).
 */
#ifndef GI_HOST_CUH
#define GI_HOST_CUH

#include "engine.cuh"

/* ---- the workspace (workspace.cu) ---------------------------------------- */

/* The device buffers kept between calls, each grown on demand. */
enum {
  B_Y, B_W, B_FIT, B_STARTS, B_CHUNKS, B_MULTI, B_SIDX, B_SY, B_SX, B_CSTART, B_CTOTAL,
  B_KEYS, B_SSCRATCH, B_DESC, B_COUNT, B_FLAG, B_GRAD, B_DY, B_DW, B_SCRATCH,
  B_AUX, /* the data of a pipeline that prepares its batch on the device */
  B_N
};

/* Buffer b's device memory and its bytes. */
void *gi_ws(int b);
size_t gi_ws_cap(int b);

/* Makes each buffer hold at least need[i] bytes (B_N entries); when the
 * device is short of memory, gives everything back and asks once more at
 * the exact sizes, keeping the auxiliary buffer when `keep_aux`. */
cudaError_t gi_reserve(const size_t *need, int keep_aux = 0);

/* The sum of need[0 .. B_N), for messages. */
size_t gi_sum_sizes(const size_t *need);

/* ---- the plan (plan.cu) --------------------------------------------------- */

/* The plan of a batch on the host: the tables that go up, and the merges
 * of each level. */
struct host_plan {
  gi_chunk *chunks;
  gi_multi *multi;
  int64_t *keys; /* per chunk of a long problem: its problem's first one */
  int64_t nchunk, nmulti, nlanes, uniform_count;
  int32_t uniform_n, uniform_L, levels;
  int64_t *merges; /* merges per level */
};

/* The plan of a batch and the bytes each device buffer needs for it (need
 * has B_N entries): GI_CUDA_OK, or GI_CUDA_NOMEM with the reason when host
 * memory runs out. */
int gi_plan_begin(const int64_t *off, int64_t nprob, int single, int weighted, host_plan *h,
                  size_t *need, char *msg, size_t len);
void gi_plan_free(host_plan *h);

/* The plan as the kernels see it, over the workspace's tables. */
gi_plan gi_device_plan(const host_plan *h, const void *y, const void *w, void *fit,
                       unsigned char *starts, int decreasing, int single);

/* The plan's tables into the workspace, on stream s. */
cudaError_t gi_upload_plan(const host_plan *h, cudaStream_t s);

/* The kernels of one forward pass, in stream order; `ev`, when not NULL,
 * gets an event after each of its four stages (for benchmarks). */
cudaError_t gi_solve(const host_plan *h, const gi_plan &p, cudaStream_t s,
                     cudaEvent_t *ev = NULL);

/* ---- what a call reports (status.cu) -------------------------------------- */

/* The kernels' flag (GI_FLAG_*), from the workspace. */
cudaError_t gi_read_flag(int *flag);

/* GI_CUDA_RANGE with its message when the flag says sums left double
 * range, else GI_CUDA_OK. */
int gi_range_status(int flag, char *msg, size_t len);

/* ---- the backward pass on the workspace (entry.cu) ------------------------ */

/* Reserves the pass's buffers, dw's when want_dw; need gets the bytes (B_N
 * entries), for messages. */
cudaError_t gi_vjp_reserve(int64_t n, int weighted, int want_dw, size_t *need);

/* Its inputs, copied to the reserved buffers. */
cudaError_t gi_vjp_upload(const double *y, const double *w, const double *fit,
                          const unsigned char *starts, const double *grad, int64_t n);

/* The pass on the uploaded inputs, into the workspace's dy (and dw). */
cudaError_t gi_vjp_run(int64_t n, int weighted, int want_dw);

#endif

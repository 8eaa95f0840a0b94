/*
 * gpuiso CUDA engine: the benchmark entries of gi_cuda.h, gi_cuda_bench()
 * and gi_cuda_bench_vjp(): kernel time on data copied to the device once,
 * timed with CUDA events (for bench/gpu, tools/gpu-harness, and the tests
 * of the entry point for device data, through which the forward warm-up
 * goes). They run the plan, workspace and launches of entry.cu. Host code
 * only.
 */
#include <stdio.h>
#include "host.cuh"
#include "gi_cuda.h"

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
  if (gi_plan_begin(off, nprob, single, w != NULL, &h, need, msg, len)) return GI_CUDA_NOMEM;
  cudaError_t err = gi_reserve(need);
  cudaEvent_t e0 = NULL, e1 = NULL, ev[4] = {NULL, NULL, NULL, NULL};
  gi_conv values = single ? GI_TO_F32 : GI_COPY8;
  if (err == cudaSuccess) err = gi_put(gi_ws(B_Y), y, n, values, 0);
  if (err == cudaSuccess && w) err = gi_put(gi_ws(B_W), w, n, values, 0);
  if (err == cudaSuccess) err = cudaEventCreate(&e0);
  if (err == cudaSuccess) err = cudaEventCreate(&e1);
  for (int i = 0; i < 4 && err == cudaSuccess; i++) err = cudaEventCreate(&ev[i]);
  /* the warm-up goes through the entry point for device data, which also
   * uploads the plan; its fit comes back for checking when asked for */
  if (err == cudaSuccess) {
    int rc = gi_cuda_fit_device(gi_ws(B_Y), w ? gi_ws(B_W) : NULL, off, nprob, decreasing,
                                single, gi_ws(B_FIT), NULL, NULL, msg, len);
    if (rc != GI_CUDA_OK) {
      if (e0) cudaEventDestroy(e0);
      if (e1) cudaEventDestroy(e1);
      for (int i = 0; i < 4; i++) if (ev[i]) cudaEventDestroy(ev[i]);
      gi_plan_free(&h);
      return rc;
    }
    if (fit) err = gi_get(fit, gi_ws(B_FIT), n, single ? GI_FROM_F32 : GI_COPY8, 0);
  }
  gi_plan p = gi_device_plan(&h, gi_ws(B_Y), w ? gi_ws(B_W) : NULL, gi_ws(B_FIT), NULL,
                             decreasing, single);
  for (int r = 0; r < reps && err == cudaSuccess; r++) {
    float t = 0.0f;
    err = cudaEventRecord(e0, 0);
    if (err == cudaSuccess) err = gi_solve(&h, p, 0);
    if (err == cudaSuccess) err = cudaEventRecord(e1, 0);
    if (err == cudaSuccess) err = cudaEventSynchronize(e1);
    if (err == cudaSuccess) err = cudaEventElapsedTime(&t, e0, e1);
    ms[r] = t;
  }
  /* one more run, split by stage: chunks, chunk starts, merge levels, fit */
  if (err == cudaSuccess && stage_ms) {
    err = cudaEventRecord(e0, 0);
    if (err == cudaSuccess) err = gi_solve(&h, p, 0, ev);
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
  if (err == cudaSuccess) err = gi_read_flag(&flag);
  gi_plan_free(&h);
  if (err != cudaSuccess) return gi_fail(err, "in the benchmark", gi_sum_sizes(need), msg, len);
  return gi_range_status(flag, msg, len);
}

extern "C" int gi_cuda_bench_vjp(const double *y, const double *w, const double *fit,
                                 const unsigned char *starts, const double *grad, int64_t n,
                                 int reps, double *ms, char *msg, size_t len)
{
  for (int r = 0; r < reps; r++) ms[r] = 0.0;
  if (n == 0) return GI_CUDA_OK;
  size_t need[B_N];
  cudaError_t err = gi_vjp_reserve(n, w != NULL, w != NULL, need);
  if (err == cudaSuccess) err = gi_vjp_upload(y, w, fit, starts, grad, n);
  cudaEvent_t e0 = NULL, e1 = NULL;
  if (err == cudaSuccess) err = cudaEventCreate(&e0);
  if (err == cudaSuccess) err = cudaEventCreate(&e1);
  for (int r = -1; r < reps && err == cudaSuccess; r++) { /* r = -1: the warm-up */
    float t = 0.0f;
    err = cudaEventRecord(e0, 0);
    if (err == cudaSuccess) err = gi_vjp_run(n, w != NULL, w != NULL);
    if (err == cudaSuccess) err = cudaEventRecord(e1, 0);
    if (err == cudaSuccess) err = cudaEventSynchronize(e1);
    if (err == cudaSuccess) err = cudaEventElapsedTime(&t, e0, e1);
    if (r >= 0) ms[r] = t;
  }
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  if (err != cudaSuccess)
    return gi_fail(err, "in the backward benchmark", gi_sum_sizes(need), msg, len);
  return GI_CUDA_OK;
}

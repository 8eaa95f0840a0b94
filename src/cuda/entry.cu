/*
 * gpuiso CUDA engine: the entry points of gi_cuda.h for the forward pass
 * (from host data, from device data, and on data a pipeline prepared in
 * the workspace) and for the backward pass. Each plans the batch, reserves
 * the workspace, moves the data and runs the kernels; the benchmark
 * entries are in bench.cu. Host code only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host.cuh"
#include "gi_cuda.h"

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

static int fit_host(const double *y, const double *w, const int64_t *off, int64_t nprob,
                    int decreasing, int single, double *fit, unsigned char *starts,
                    char *msg, size_t len)
{
  int64_t n = off[nprob];
  if (n == 0) return GI_CUDA_OK;
  host_plan h;
  size_t need[B_N];
  if (gi_plan_begin(off, nprob, single, w != NULL, &h, need, msg, len)) return GI_CUDA_NOMEM;
  need[B_STARTS] = starts ? (size_t) n : 0;
  cudaError_t err = gi_reserve(need);
  if (err != cudaSuccess) {
    gi_plan_free(&h);
    return gi_fail(err, "while reserving its workspace", gi_sum_sizes(need), msg, len);
  }
  gi_conv values = single ? GI_TO_F32 : GI_COPY8;
  const char *stage = "copying the data to the device";
  err = gi_upload_plan(&h, 0);
  if (err == cudaSuccess) err = gi_put(gi_ws(B_Y), y, n, values, 0);
  if (err == cudaSuccess && w) err = gi_put(gi_ws(B_W), w, n, values, 0);
  if (err == cudaSuccess) {
    stage = "in the solver's kernels";
    gi_plan p = gi_device_plan(&h, gi_ws(B_Y), w ? gi_ws(B_W) : NULL, gi_ws(B_FIT),
                               starts ? (unsigned char *) gi_ws(B_STARTS) : NULL,
                               decreasing, single);
    err = gi_solve(&h, p, 0);
  }
  if (err == cudaSuccess) {
    gi_host_ready(fit, (size_t) n * sizeof(double));
    if (starts) gi_host_ready(starts, (size_t) n);
  }
  int flag = 0;
  if (err == cudaSuccess) err = gi_read_flag(&flag);
  /* a batch the CPU must solve is not copied back */
  if (err == cudaSuccess && !(flag & GI_FLAG_RANGE)) {
    stage = "copying the fit back";
    err = gi_get(fit, gi_ws(B_FIT), n, single ? GI_FROM_F32 : GI_COPY8, 0);
    if (err == cudaSuccess && starts) err = gi_get(starts, gi_ws(B_STARTS), n, GI_COPY1, 0);
  }
  gi_plan_free(&h);
  if (err != cudaSuccess) return gi_fail(err, stage, gi_sum_sizes(need), msg, len);
  if (flag & GI_FLAG_STEP) enforce_monotone(fit, off, nprob, decreasing);
  return gi_range_status(flag, msg, len);
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
  if (gi_plan_begin(off, nprob, single, w != NULL, &h, need, msg, len)) return GI_CUDA_NOMEM;
  need[B_Y] = need[B_W] = need[B_FIT] = 0; /* the caller's */
  need[B_AUX] = keep_aux ? gi_ws_cap(B_AUX) : 0;
  cudaError_t err = gi_reserve(need, keep_aux);
  if (err == cudaSuccess) err = gi_upload_plan(&h, s);
  if (err == cudaSuccess) {
    gi_plan p = gi_device_plan(&h, y, w, fit, starts, decreasing, single);
    err = gi_solve(&h, p, s);
  }
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  int flag = 0;
  if (err == cudaSuccess) err = gi_read_flag(&flag);
  if (err == cudaSuccess && (flag & GI_FLAG_STEP))
    err = single ? enforce_on_device<float>(fit, off, nprob, decreasing)
                 : enforce_on_device<double>(fit, off, nprob, decreasing);
  gi_plan_free(&h);
  if (err != cudaSuccess) return gi_fail(err, "in the solver", gi_sum_sizes(need), msg, len);
  return gi_range_status(flag, msg, len);
}

extern "C" int gi_cuda_fit_device(const void *y, const void *w, const int64_t *off,
                                  int64_t nprob, int decreasing, int single, void *fit,
                                  unsigned char *starts, void *stream, char *msg,
                                  size_t len)
{
  return fit_device(y, w, off, nprob, decreasing, single, fit, starts,
                    (cudaStream_t) stream, 0, msg, len);
}

int gi_fit_prepared(const double *y, const double *w, const int64_t *off, int64_t nprob,
                    int decreasing, double *fit, unsigned char *starts, char *msg,
                    size_t len)
{
  return fit_device(y, w, off, nprob, decreasing, 0, fit, starts, 0, 1, msg, len);
}

/* The backward pass's workspace, dw's when want_dw; need gets the bytes,
 * for messages. */
cudaError_t gi_vjp_reserve(int64_t n, int weighted, int want_dw, size_t *need)
{
  size_t nb = (size_t) n * sizeof(double);
  memset(need, 0, B_N * sizeof(size_t));
  need[B_Y] = nb; need[B_W] = weighted ? nb : 0; need[B_FIT] = nb; need[B_STARTS] = (size_t) n;
  need[B_GRAD] = nb; need[B_DY] = nb; need[B_DW] = want_dw ? nb : 0;
  need[B_SCRATCH] = gi_vjp_scratch_bytes(n);
  return gi_reserve(need);
}

/* Its inputs, copied to the reserved workspace. */
cudaError_t gi_vjp_upload(const double *y, const double *w, const double *fit,
                          const unsigned char *starts, const double *grad, int64_t n)
{
  cudaError_t err = gi_put(gi_ws(B_Y), y, n, GI_COPY8, 0);
  if (err == cudaSuccess && w) err = gi_put(gi_ws(B_W), w, n, GI_COPY8, 0);
  if (err == cudaSuccess) err = gi_put(gi_ws(B_FIT), fit, n, GI_COPY8, 0);
  if (err == cudaSuccess) err = gi_put(gi_ws(B_STARTS), starts, n, GI_COPY1, 0);
  if (err == cudaSuccess) err = gi_put(gi_ws(B_GRAD), grad, n, GI_COPY8, 0);
  return err;
}

/* The pass on the uploaded inputs, into the workspace's dy (and dw). */
cudaError_t gi_vjp_run(int64_t n, int weighted, int want_dw)
{
  return gi_launch_vjp((const double *) gi_ws(B_Y),
                       weighted ? (const double *) gi_ws(B_W) : NULL,
                       (const double *) gi_ws(B_FIT), (const unsigned char *) gi_ws(B_STARTS),
                       (const double *) gi_ws(B_GRAD), n, (double *) gi_ws(B_DY),
                       want_dw ? (double *) gi_ws(B_DW) : NULL, gi_ws(B_SCRATCH),
                       gi_ws_cap(B_SCRATCH), 0);
}

static int vjp_host(const double *y, const double *w, const double *fit,
                    const unsigned char *starts, const double *grad, int64_t n,
                    double *dy, double *dw, char *msg, size_t len)
{
  if (n == 0) return GI_CUDA_OK;
  size_t nb = (size_t) n * sizeof(double);
  size_t need[B_N];
  cudaError_t err = gi_vjp_reserve(n, w != NULL, dw != NULL, need);
  if (err != cudaSuccess)
    return gi_fail(err, "while reserving its workspace", gi_sum_sizes(need), msg, len);
  err = gi_vjp_upload(y, w, fit, starts, grad, n);
  if (err == cudaSuccess) err = gi_vjp_run(n, w != NULL, dw != NULL);
  if (err == cudaSuccess) {
    gi_host_ready(dy, nb);
    if (dw) gi_host_ready(dw, nb);
  }
  if (err == cudaSuccess) err = gi_get(dy, gi_ws(B_DY), n, GI_COPY8, 0);
  if (err == cudaSuccess && dw) err = gi_get(dw, gi_ws(B_DW), n, GI_COPY8, 0);
  if (err != cudaSuccess)
    return gi_fail(err, "in the backward pass", gi_sum_sizes(need), msg, len);
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

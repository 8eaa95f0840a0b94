/*
 * gpuiso CUDA engine: what a call reports. A CUDA error becomes a status of
 * gi_cuda.h and a message with advice (the workspace freed but after an
 * out-of-memory error), and the kernels' flag becomes GI_CUDA_RANGE when
 * the CPU must solve the batch. Host code only.
 */
#include <stdio.h>
#include "host.cuh"
#include "gi_cuda.h"

int gi_fail(cudaError_t err, const char *what, size_t need, char *msg, size_t len)
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

cudaError_t gi_read_flag(int *flag)
{
  *flag = 0;
  return cudaMemcpy(flag, gi_ws(B_FLAG), sizeof(int), cudaMemcpyDeviceToHost);
}

int gi_range_status(int flag, char *msg, size_t len)
{
  if (flag & GI_FLAG_RANGE) {
    snprintf(msg, len, "sums beyond the range of doubles");
    return GI_CUDA_RANGE;
  }
  return GI_CUDA_OK;
}

/* gpuiso: which CUDA devices are there (see gi_cuda.h). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include "gi_cuda.h"

/* Copy a CUDA error's text into msg, and clear the error so that it does not
 * stick to the next call. */
static void say(cudaError_t err, char *msg, size_t len)
{
  if (msg != NULL && len > 0) snprintf(msg, len, "%s", cudaGetErrorString(err));
  (void) cudaGetLastError();
}

extern "C" int gi_cuda_device_count(char *msg, size_t len)
{
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    say(err, msg, len);
    return -1;
  }
  return n;
}

extern "C" int gi_cuda_device_props(int dev, char *name, size_t name_len,
                                    double *mem_bytes, int *cc_major,
                                    int *cc_minor, char *msg, size_t len)
{
  cudaDeviceProp p;
  cudaError_t err = cudaGetDeviceProperties(&p, dev);
  if (err != cudaSuccess) {
    say(err, msg, len);
    return -1;
  }
  snprintf(name, name_len, "%s", p.name);
  *mem_bytes = (double) p.totalGlobalMem;
  *cc_major = p.major;
  *cc_minor = p.minor;
  return 0;
}

extern "C" int gi_cuda_runtime_version(void)
{
  int v = 0;
  if (cudaRuntimeGetVersion(&v) != cudaSuccess) v = 0;
  (void) cudaGetLastError();
  return v;
}

extern "C" int gi_cuda_driver_version(void)
{
  int v = 0;
  if (cudaDriverGetVersion(&v) != cudaSuccess) v = 0;
  (void) cudaGetLastError();
  return v;
}

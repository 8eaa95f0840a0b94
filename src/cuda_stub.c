/* The CUDA interface (cuda/gi_cuda.h) of a build without CUDA: every call
 * says so; none pretends to work. */
#include <stdio.h>
#include "cuda/gi_cuda.h"

static const char *why = "gpuiso was built without CUDA";

int gi_cuda_device_count(char *msg, size_t len)
{
  if (msg != NULL && len > 0) snprintf(msg, len, "%s", why);
  return -1;
}

int gi_cuda_device_props(int dev, char *name, size_t name_len,
                         double *mem_bytes, int *cc_major, int *cc_minor,
                         char *msg, size_t len)
{
  (void) dev; (void) name; (void) name_len;
  (void) mem_bytes; (void) cc_major; (void) cc_minor;
  if (msg != NULL && len > 0) snprintf(msg, len, "%s", why);
  return -1;
}

int gi_cuda_runtime_version(void) { return 0; }
int gi_cuda_driver_version(void) { return 0; }

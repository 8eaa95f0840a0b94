/*
 * gpuiso: the CUDA engine's C interface. Plain C types and no R headers, so
 * that the glue (C) and the engine (CUDA C++) meet only here. Built from
 * cuda/*.cu when configure finds the CUDA toolkit, else from cuda_stub.c,
 * which answers every call with "not compiled".
 */
#ifndef GPUISO_CUDA_H
#define GPUISO_CUDA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Devices usable now (>= 0), or -1 with the reason in msg. Asks the CUDA
 * runtime on every call; gpuiso itself caches nothing. */
int gi_cuda_device_count(char *msg, size_t len);

/* Name, total memory in bytes and compute capability of device `dev`;
 * 0 on success, -1 with the reason in msg. */
int gi_cuda_device_props(int dev, char *name, size_t name_len,
                         double *mem_bytes, int *cc_major, int *cc_minor,
                         char *msg, size_t len);

/* Versions of the runtime linked in and of the driver, as CUDA encodes
 * them (1000 * major + 10 * minor); 0 when unknown. */
int gi_cuda_runtime_version(void);
int gi_cuda_driver_version(void);

#ifdef __cplusplus
}
#endif

#endif

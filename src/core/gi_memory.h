/* Memory hints for large buffers. */
#ifndef GPUISO_MEMORY_H
#define GPUISO_MEMORY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" { /* the CUDA engine calls these too */
#endif

/* Ask the kernel to back the 2 MiB-aligned interior of a large buffer with
 * huge pages: first touching a fresh page costs more than the fit writes
 * into it. A hint only; a no-op where the platform has no such advice. */
void gi_hint_huge(void *p, size_t bytes);

/* Write a zero into every page of a buffer about to be filled (with the
 * hint above first), from up to nthreads threads: the page faults of a
 * fresh result, and the kernel's zeroing of its pages, are then paid in
 * parallel, and can be paid while the GPU works. */
void gi_prefault(void *p, size_t bytes, int nthreads);

#ifdef __cplusplus
}
#endif

#endif

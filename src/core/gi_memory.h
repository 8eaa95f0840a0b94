/* Memory hints for large buffers. */
#ifndef GPUISO_MEMORY_H
#define GPUISO_MEMORY_H

#include <stddef.h>

/* Ask the kernel to back the 2 MiB-aligned interior of a large buffer with
 * huge pages: first touching a fresh page costs more than the fit writes
 * into it. A hint only; a no-op where the platform has no such advice. */
void gi_hint_huge(void *p, size_t bytes);

#endif

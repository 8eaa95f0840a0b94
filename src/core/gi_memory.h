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

/* Scratch memory kept from one call to the next. A fresh block costs a
 * page fault per page first touched, and freeing a large one lets the C
 * library return the top of its heap to the system, so that the next
 * call's result faults in fresh pages too: a pass over 10^5 elements
 * spent a sixth of its time so. gi_scratch_take() lends the kept block
 * (grown to `bytes` if need be) when bytes <= GI_SCRATCH_KEEP and no one
 * else holds it, else it mallocs a block of its own; gi_scratch_give()
 * returns either kind. `p` is NULL when memory runs out. Any thread may
 * take and give; without atomic operations (a compiler other than GCC's
 * family) nothing is kept. gi_scratch_release() frees the kept block (at
 * unload; no block may be lent then). */
#define GI_SCRATCH_KEEP ((size_t) 4 << 20)
typedef struct {
  void *p;
  int kept;
} gi_scratch;
gi_scratch gi_scratch_take(size_t bytes);
void gi_scratch_give(gi_scratch s);
void gi_scratch_release(void);

#ifdef __cplusplus
}
#endif

#endif

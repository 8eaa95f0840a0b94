/* Memory hints for large buffers (see gi_memory.h). */
#if defined(__linux__)
#define _DEFAULT_SOURCE
#include <sys/mman.h>
#endif
#include <stdint.h>
#include "gi_core.h"
#include "gi_memory.h"
#include "gi_omp.h"

#define GI_HUGE ((uintptr_t) 1 << 21)

void gi_hint_huge(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (p == NULL || bytes < 2 * GI_HUGE) return;
  uintptr_t a = ((uintptr_t) p + GI_HUGE - 1) & ~(GI_HUGE - 1);
  uintptr_t e = ((uintptr_t) p + bytes) & ~(GI_HUGE - 1);
  if (e > a) (void) madvise((void *) a, e - a, MADV_HUGEPAGE);
#else
  (void) p;
  (void) bytes;
#endif
}

void gi_prefault(void *p, size_t bytes, int nthreads)
{
  if (p == NULL || bytes == 0) return;
  gi_hint_huge(p, bytes);
  /* one 2 MiB unit (aligned) per iteration, so that no two threads fault
   * into the same huge page, which would make them wait for each other */
  uintptr_t a = (uintptr_t) p, e = a + bytes;
  uintptr_t first = a & ~(GI_HUGE - 1);
  int64_t units = (int64_t) ((e - first + GI_HUGE - 1) / GI_HUGE);
  int nt = gi_threads_cap(nthreads);
  if (nt > units) nt = (int) units;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t u = 0; u < units; u++) {
    uintptr_t lo = first + (uintptr_t) u * GI_HUGE, hi = lo + GI_HUGE;
    if (lo < a) lo = a;
    if (hi > e) hi = e;
    for (uintptr_t q = lo; q < hi; q += 4096) *(volatile char *) q = 0;
    *(volatile char *) (hi - 1) = 0; /* the last page, when lo was not page-aligned */
  }
}

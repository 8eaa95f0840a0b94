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
  volatile char *c = (volatile char *) p;
  int64_t npage = (int64_t) ((bytes + 4095) / 4096);
  int nt = bytes < ((size_t) 4 << 20) ? 1 : gi_threads_cap(nthreads);
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t k = 0; k < npage; k++) c[(size_t) k * 4096] = 0;
}

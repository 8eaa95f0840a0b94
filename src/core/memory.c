/* Memory hints for large buffers (see gi_memory.h). */
#if defined(__linux__)
#define _DEFAULT_SOURCE
#include <sys/mman.h>
#endif
#include <stdint.h>
#include "gi_memory.h"

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

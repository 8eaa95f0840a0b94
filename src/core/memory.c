/* Memory hints for large buffers (see gi_memory.h). */
#if defined(__linux__)
#define _DEFAULT_SOURCE
#include <sys/mman.h>
#endif
#include <stdint.h>
#include <stdlib.h>
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

static void *kept = NULL;
static size_t kept_bytes = 0;
static volatile int kept_lent = 0;

/* 1 if this thread now holds the kept block's lock. */
static int lock_kept(void)
{
#if defined(__GNUC__)
  return __sync_lock_test_and_set(&kept_lent, 1) == 0;
#else
  return 0;
#endif
}

static void unlock_kept(void)
{
#if defined(__GNUC__)
  __sync_lock_release(&kept_lent);
#endif
}

gi_scratch gi_scratch_take(size_t bytes)
{
  gi_scratch s = {NULL, 0};
  if (bytes == 0) bytes = 1;
  if (bytes <= GI_SCRATCH_KEEP && lock_kept()) {
    if (kept_bytes < bytes) {
      /* grown in steps, so that slowly growing requests reallocate rarely */
      size_t want = kept_bytes * 2 > bytes ? kept_bytes * 2 : bytes;
      if (want > GI_SCRATCH_KEEP) want = GI_SCRATCH_KEEP;
      free(kept);
      kept = malloc(want);
      kept_bytes = kept != NULL ? want : 0;
    }
    if (kept != NULL) {
      s.p = kept;
      s.kept = 1;
      return s;
    }
    unlock_kept();
  }
  s.p = malloc(bytes);
  return s;
}

void gi_scratch_give(gi_scratch s)
{
  if (s.kept) unlock_kept();
  else free(s.p);
}

void gi_scratch_release(void)
{
  if (!lock_kept()) return; /* lent: cannot happen at unload */
  free(kept);
  kept = NULL;
  kept_bytes = 0;
  unlock_kept();
}

/* How many threads the engine may use. */
#include "gi_core.h"
#include "gi_omp.h"

int gi_have_openmp(void)
{
#ifdef _OPENMP
  return 1;
#else
  return 0;
#endif
}

/* The request, capped by the processors, OMP_THREAD_LIMIT and
 * OMP_NUM_THREADS; at least 1. */
int gi_threads_cap(int requested)
{
  int cap = requested;
  if (cap > omp_get_num_procs()) cap = omp_get_num_procs();
  if (cap > omp_get_thread_limit()) cap = omp_get_thread_limit();
  if (cap > omp_get_max_threads()) cap = omp_get_max_threads();
  return cap < 1 ? 1 : cap;
}

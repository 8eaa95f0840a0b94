/* How many threads the engine may use, and the look at interrupts. */
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

int gi_procs(void)
{
  return omp_get_num_procs();
}

static int uncapped = 0;

int gi_threads_test_uncapped(int on)
{
  int was = uncapped;
  uncapped = on != 0;
  return was;
}

/* The request, capped by the processors, OMP_THREAD_LIMIT and
 * OMP_NUM_THREADS (only by OMP_THREAD_LIMIT and 64 for the tests'
 * gi_threads_test_uncapped()); at least 1. */
int gi_threads_cap(int requested)
{
  int cap = requested;
  if (uncapped) {
    if (cap > 64) cap = 64;
    if (cap > omp_get_thread_limit()) cap = omp_get_thread_limit();
    return cap < 1 ? 1 : cap;
  }
  if (cap > omp_get_num_procs()) cap = omp_get_num_procs();
  if (cap > omp_get_thread_limit()) cap = omp_get_thread_limit();
  if (cap > omp_get_max_threads()) cap = omp_get_max_threads();
  return cap < 1 ? 1 : cap;
}

int (*gi_interrupt_hook)(void) = NULL;

/* Set once the hook has said stop, until the next gi_stop_reset(); read by
 * every thread of a parallel region. */
static volatile int stop_flag = 0;
static int64_t since_poll = 0;

/* Whether this is the thread that called the engine: thread 0 at every
 * level of nesting (a solver run on one thread inside a parallel loop is
 * thread 0 of its own team, but must not call R). */
static int on_main_thread(void)
{
  for (int l = omp_get_level(); l > 0; l--)
    if (omp_get_ancestor_thread_num(l) != 0) return 0;
  return 1;
}

int gi_interrupted(int64_t work)
{
  if (stop_flag) return 1;
  if (gi_interrupt_hook == NULL || !on_main_thread()) return 0;
  since_poll += work;
  if (since_poll < GI_POLL_WORK) return 0;
  since_poll = 0;
  if (gi_interrupt_hook()) stop_flag = 1;
  return stop_flag;
}

int gi_stop_requested(void)
{
  return stop_flag;
}

void gi_stop_reset(void)
{
  stop_flag = 0;
  since_poll = 0;
}

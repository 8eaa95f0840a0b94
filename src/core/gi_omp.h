/* OpenMP or its serial stand-ins, so the engine needs no #ifdef elsewhere. */
#ifndef GPUISO_OMP_H
#define GPUISO_OMP_H

#ifdef _OPENMP
#include <omp.h>
#else
static inline int omp_get_num_procs(void) { return 1; }
static inline int omp_get_max_threads(void) { return 1; }
static inline int omp_get_thread_limit(void) { return 1; }
static inline int omp_get_thread_num(void) { return 0; }
static inline int omp_get_num_threads(void) { return 1; }
static inline int omp_get_level(void) { return 0; }
static inline int omp_get_ancestor_thread_num(int level) { return level == 0 ? 0 : -1; }
#endif

#endif

/*
 * gpuiso: the CPU engine's C interface.
 *
 * Pure C99 with no R headers, so the engine can be built and tested on its
 * own. Every entry point solves a batch of independent problems laid end to
 * end: values y[0..N), optional weights w (NULL for unit weights), and
 * offsets[0..B] with problem b covering [offsets[b], offsets[b + 1]).
 * Errors come back as status codes; the caller turns them into messages.
 */
#ifndef GPUISO_CORE_H
#define GPUISO_CORE_H

#include <stddef.h>
#include <stdint.h>

typedef int64_t gi_idx;

typedef enum {
  GI_OK = 0,
  GI_ERR_NOMEM = 1,       /* scratch memory could not be allocated */
  GI_ERR_ZERO_WEIGHT = 2, /* a problem whose weights are all zero */
  GI_ERR_OVERFLOW = 3     /* sums overflowed even after rescaling */
} gi_status;

/* Weighted least-squares isotonic regression of every problem of a batch.
 * Adjacent blocks with equal means are pooled. A point of zero weight takes
 * the value of the nearest positive-weight point to its right (the last one
 * when none is to its right). `starts`, when not NULL, receives 1 where a
 * block starts and 0 elsewhere. On failure `*bad` is the first failing
 * problem (0-based). O(n) time per problem on every input. */
gi_status gi_isotonic_batch(const double *y, const double *w,
                            const gi_idx *offsets, gi_idx nprob,
                            int decreasing, int nthreads,
                            double *fit, unsigned char *starts, gi_idx *bad);

/* Backward pass: with G and W the sums of `grad` and of w over an element's
 * block (blocks from `starts`), dy_i = w_i G / W and
 * dw_i = (y_i - fit_i) G / W. `dw` may be NULL. */
void gi_isotonic_vjp_batch(const double *y, const double *w,
                           const double *fit, const unsigned char *starts,
                           const double *grad, const gi_idx *offsets,
                           gi_idx nprob, int nthreads,
                           double *dy, double *dw);

/* First problem (0-based) whose weights sum to zero, or -1. */
gi_idx gi_first_weightless(const double *w, const gi_idx *offsets,
                           gi_idx nprob);

/* First element (0-based) that is not finite, or negative when `nonneg`;
 * -1 if none. */
gi_idx gi_first_invalid(const double *x, gi_idx n, int nonneg);

/* Pools n scores read in sorted order (ord, 1-based, in ord_i or ord_d):
 * each run of equal (code, score) becomes one point, its score, group code
 * (code NULL: 1), summed weight and weighted mean outcome (0 when the
 * weight is zero). run_of, when not NULL, gets each input's run (1-based).
 * The outputs have room for n points; returns how many were written. */
gi_idx gi_pool_sorted(const double *s, const double *y, const double *w,
                      const int *code, const int *ord_i, const double *ord_d,
                      gi_idx n, double *score, double *value, double *weight,
                      int *group, int *run_of);

/* Threads the engine may use: the request capped by what OpenMP allows
 * (1 when the package was built without OpenMP). */
int gi_threads_cap(int requested);
int gi_have_openmp(void);

#endif

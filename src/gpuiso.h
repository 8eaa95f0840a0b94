/* gpuiso: declarations shared by the .Call glue (the only code that sees R). */
#ifndef GPUISO_H
#define GPUISO_H

#define R_NO_REMAP
#include <R.h>
#include <Rinternals.h>
#include "core/gi_core.h"

/* Problem boundaries from R: a double vector 0 = o[0] <= ... <= o[B] = n
 * (double, so that long vectors fit). Returns B + 1 offsets in R_alloc
 * memory; a malformed vector is a bug in the R layer. */
const gi_idx *gi_offsets_arg(SEXP offsets, R_xlen_t n, gi_idx *nprob);

/* Pointer to a double vector, or NULL for R's NULL (unit weights). */
const double *gi_weights_arg(SEXP w, R_xlen_t n);

/* The length of a backward pass's vectors: y, fit and grad doubles, starts
 * raw, all of one length (the R layer sees to it). */
R_xlen_t gi_vjp_args(SEXP y, SEXP fit, SEXP starts, SEXP grad);

/* The arguments of an IDR fit: xcode and kcode integer vectors of one
 * length (returned), m and K positive counts (into *mm, *KK). */
R_xlen_t gi_idr_args(SEXP xcode, SEXP kcode, SEXP m, SEXP K, gi_idx *mm,
                     gi_idx *KK);

/* Turn an engine status into an R error naming the problem (1-based). */
void gi_stop_status(gi_status status, gi_idx bad);

/* The R layer validates every argument, so a violation seen here is a bug. */
#define gi_internal_error(...) \
  Rf_error("gpuiso internal error in %s (%s:%d): %s. Please report it.", \
           __func__, __FILE__, __LINE__, __VA_ARGS__)

SEXP ffi_isotonic_fit(SEXP y, SEXP w, SEXP offsets, SEXP decreasing,
                      SEXP want_starts, SEXP threads);
SEXP ffi_isotonic_quick(SEXP y, SEXP w, SEXP decreasing);
SEXP ffi_isotonic_vjp(SEXP y, SEXP w, SEXP fit, SEXP starts, SEXP grad,
                      SEXP offsets, SEXP want_dw, SEXP threads);
SEXP ffi_first_invalid(SEXP x, SEXP nonneg);
SEXP ffi_first_weightless(SEXP w, SEXP offsets);
SEXP ffi_build_info(void);
SEXP ffi_gpu_probe(void);
SEXP ffi_gpu_fit(SEXP y, SEXP w, SEXP offsets, SEXP decreasing,
                 SEXP want_starts, SEXP single);
SEXP ffi_gpu_vjp(SEXP y, SEXP w, SEXP fit, SEXP starts, SEXP grad,
                 SEXP offsets, SEXP want_dw, SEXP single);
SEXP ffi_gpu_bench(SEXP y, SEXP w, SEXP offsets, SEXP decreasing,
                   SEXP single, SEXP reps);
SEXP ffi_gpu_memory(void);
SEXP ffi_gpu_release(void);
SEXP ffi_as_single(SEXP x);
SEXP ffi_first_beyond_single(SEXP x, SEXP weights);
SEXP ffi_first_outside_unit(SEXP x);
SEXP ffi_pool_sorted(SEXP scores, SEXP outcomes, SEXP weights, SEXP code,
                     SEXP ngroups, SEXP ord, SEXP want_run_of);
SEXP ffi_gpu_calibrate(SEXP scores, SEXP outcomes, SEXP weights, SEXP code,
                       SEXP ngroups);
SEXP ffi_idr_fit(SEXP xcode, SEXP kcode, SEXP w, SEXP m, SEXP K);
SEXP ffi_gpu_idr(SEXP xcode, SEXP kcode, SEXP w, SEXP m, SEXP K);
SEXP ffi_idr_cdf(SEXP ptr, SEXP start, SEXP value, SEXP m, SEXP j, SEXP lam,
                 SEXP kz, SEXP paired);
SEXP ffi_idr_qpred(SEXP ptr, SEXP start, SEXP value, SEXP m,
                   SEXP thresholds, SEXP j, SEXP lam, SEXP alpha);
SEXP ffi_idr_crps(SEXP ptr, SEXP start, SEXP value, SEXP m, SEXP thresholds,
                  SEXP j, SEXP lam, SEXP y, SEXP kappa);
SEXP ffi_interpolate(SEXP knots, SEXP values, SEXP t, SEXP linear, SEXP clip,
                     SEXP lo);
SEXP ffi_locate(SEXP knots, SEXP t, SEXP linear, SEXP clip);
SEXP ffi_isoreg_fit(SEXP x, SEXP y, SEXP w, SEXP ord, SEXP decreasing,
                    SEXP single, SEXP threads);
SEXP ffi_gpu_isoreg(SEXP x, SEXP y, SEXP w, SEXP decreasing, SEXP threads);

#endif

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

/* A batch from R, its arguments converted: n values y (doubles), weights
 * (NULL: unit weights) and nprob problems' offsets (gi_offsets_arg()). */
typedef struct {
  R_xlen_t n;
  gi_idx nprob;
  const gi_idx *off;
  const double *w;
} gi_batch;

/* The batch of a fit: y a double vector, w and offsets as above. */
gi_batch gi_fit_batch(SEXP y, SEXP w, SEXP offsets);

/* The batch of a backward pass: its vectors checked (gi_vjp_args()), w and
 * offsets as above. */
gi_batch gi_vjp_batch(SEXP y, SEXP w, SEXP fit, SEXP starts, SEXP grad,
                      SEXP offsets);

/* The gradients of a backward pass: list(dy, dw) of fresh double vectors
 * of length n, dw R_NilValue unless want_dw is TRUE; with `huge`, a
 * huge-page hint on each (gi_hint_huge()). */
SEXP gi_vjp_alloc(R_xlen_t n, SEXP want_dw, int huge);

/* Fresh vectors holding copies of n ints or doubles (p may be NULL when n
 * is 0). */
SEXP gi_int_vector(const int *p, R_xlen_t n);
SEXP gi_real_vector(const double *p, R_xlen_t n);

/* The arguments of an IDR fit: xcode and kcode integer vectors of one
 * length (returned), m and K positive counts (into *mm, *KK). */
R_xlen_t gi_idr_args(SEXP xcode, SEXP kcode, SEXP m, SEXP K, gi_idx *mm,
                     gi_idx *KK);

/* The blocks (ptr, start, value) of an IDR fit over m points, checked
 * (api_idr.c). */
gi_idr_view gi_idr_view_arg(SEXP ptr, SEXP start, SEXP value, SEXP m);

/*
 * Errors and interrupts (api_errors.c): the only way the glue stops.
 *
 * gi_abort() raises an R error of class c("gpuiso_error_<kind>",
 * "gpuiso_error", "error", "condition"), built by abort_from_c() of
 * R/conditions.R, with the message from fmt and the fields `arg` (the
 * argument at fault, or NULL) and `position` (the 1-based element of arg,
 * or the failing problem of a batch; NA when pos < 1). Kinds: "input",
 * "overflow" (a true result beyond the range of doubles), "memory",
 * "device" (the GPU engine) and "internal" (a bug). The call it reports is
 * the user's call of the package function that reached the .Call (see
 * abort_from_c()). Free C memory first: the call does not return.
 */
void NORET gi_abort(const char *kind, const char *arg, R_xlen_t pos,
                    const char *fmt, ...);

/* Signals R's own `interrupt` condition (interrupt_from_c()) and, unless a
 * handler takes it, returns to top level as a user interrupt does. Resets
 * the engine's stop flag first. */
void NORET gi_abort_interrupt(void);

/* Sets the core's gi_interrupt_hook (at load). */
void gi_interrupts_init(void);

/* Before every entry point's core work: the stop flag reset, and the test
 * hook (GPUISO_TEST_INTERRUPT) armed. */
void gi_begin_work(void);

/* Asks the hook now (for loops in the glue, between pieces): 1 when the
 * user interrupted. */
int gi_poll_now(void);

/* After a core call that returns no status: pass on the interrupt it
 * stopped for, if any. */
void gi_check_stop(void);

/* A status of the GPU engine (cuda/gi_cuda.h) for the R layer, by name:
 * "ok", or "range" (beyond what the device path takes: the R layer solves
 * on the CPU). Any other status is raised: GI_CUDA_INTERRUPT as the
 * interrupt, a failure as an error of kind "device" with the engine's
 * message `msg`. */
SEXP gi_gpu_status(int status, const char *msg);
/* Before a GPU engine call: a fresh look at interrupts, and the host
 * threads of its transfers. */
void gi_gpu_begin(SEXP threads);
/* The fits of a device IDR batch of L levels (api_idr.c). */
SEXP gi_gpu_idr_fits(const double *ptr, int L, const int *K);

/* The result of a GPU entry point: the list of `values` named by `names`
 * (terminated by "", at most 7) and last `status` (gi_gpu_status(), which
 * raises a failure first). The values are the caller's, protected; the
 * list comes back unprotected. */
SEXP gi_gpu_result(int status, const char *msg, const char *const *names,
                   const SEXP *values);

/* Turn an engine status into a condition naming the problem (1-based);
 * GI_ERR_INTERRUPT becomes the interrupt. */
void gi_stop_status(gi_status status, gi_idx bad);

/* The same for a backward pass: an overflow is a gradient's. */
void gi_stop_vjp_status(gi_status status, gi_idx bad);

/* The R layer validates every argument, so a violation seen here is a bug. */
#define gi_internal_error(...) \
  gi_abort("internal", NULL, 0, \
           "gpuiso internal error in %s (%s:%d): %s. Please report it.", \
           __func__, __FILE__, __LINE__, __VA_ARGS__)

SEXP ffi_isotonic_fit(SEXP y, SEXP w, SEXP offsets, SEXP decreasing,
                      SEXP want_starts, SEXP threads);
SEXP ffi_isotonic_quick(SEXP y, SEXP w, SEXP decreasing, SEXP precision,
                        SEXP na_rm, SEXP device, SEXP device_missing,
                        SEXP groups, SEXP y_min, SEXP y_max);
SEXP ffi_isotonic_vjp(SEXP y, SEXP w, SEXP fit, SEXP starts, SEXP grad,
                      SEXP offsets, SEXP want_dw, SEXP threads);
SEXP ffi_first_invalid(SEXP x, SEXP nonneg, SEXP single, SEXP threads);
SEXP ffi_first_weightless(SEXP w, SEXP offsets);
SEXP ffi_build_info(void);
SEXP ffi_stop_status(SEXP status, SEXP bad);
SEXP ffi_gpu_probe(SEXP detail);
SEXP ffi_gpu_fit(SEXP y, SEXP w, SEXP offsets, SEXP decreasing,
                 SEXP want_starts, SEXP single, SEXP threads);
SEXP ffi_gpu_vjp(SEXP y, SEXP w, SEXP fit, SEXP starts, SEXP grad,
                 SEXP offsets, SEXP want_dw, SEXP single, SEXP threads);
SEXP ffi_gpu_bench_vjp(SEXP y, SEXP w, SEXP fit, SEXP starts, SEXP grad, SEXP reps);
SEXP ffi_gpu_bench(SEXP y, SEXP w, SEXP offsets, SEXP decreasing,
                   SEXP single, SEXP reps);
SEXP ffi_gpu_memory(void);
SEXP ffi_gpu_release(void);
SEXP ffi_gpu_test_full_device(SEXP on);
SEXP ffi_gpu_test_idr_plane_wave(SEXP values);
SEXP ffi_test_threads_uncapped(SEXP on);
SEXP ffi_test_idr_po_min_split(SEXP k);
SEXP ffi_test_stream_min(SEXP n);
SEXP ffi_gpu_last_times(void);
SEXP ffi_gpu_set_piece(SEXP bytes);
SEXP ffi_as_single(SEXP x);
SEXP ffi_first_outside_unit(SEXP x);
SEXP ffi_sums_exact(SEXP w);
SEXP ffi_order_scores(SEXP scores, SEXP code, SEXP threads);
SEXP ffi_pool_sorted(SEXP scores, SEXP outcomes, SEXP weights, SEXP code,
                     SEXP ngroups, SEXP ord, SEXP want_run_of, SEXP threads);
SEXP ffi_gpu_calibrate(SEXP scores, SEXP outcomes, SEXP weights, SEXP code,
                       SEXP ngroups, SEXP threads);
SEXP ffi_idr_fit(SEXP xcode, SEXP kcode, SEXP w, SEXP m, SEXP K);
SEXP ffi_idr_fit_batch(SEXP xcode, SEXP kcode, SEXP w, SEXP off, SEXP m, SEXP K,
                       SEXP threads);
SEXP ffi_gpu_idr(SEXP xcode, SEXP kcode, SEXP w, SEXP m, SEXP K, SEXP threads);
SEXP ffi_idr_batch_codes(SEXP cs, SEXP xs, SEXP ys, SEXP o2, SEXP levels);
SEXP ffi_gpu_idr_batch(SEXP xcode, SEXP kcode, SEXP w, SEXP off, SEXP m, SEXP K,
                       SEXP threads);
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

SEXP ffi_poset_fit(SEXP y, SEXP w, SEXP from, SEXP to, SEXP warm, SEXP plane,
                   SEXP threads);
/* plane: NULL, or an integer matrix (a row per node: lexicographic
 * position, rank of the second coordinate, both 0-based) checked against
 * the edges into *out; returns out, or NULL for NULL. */
gi_plane *gi_plane_arg(SEXP plane, gi_idx n, const int *from, const int *to, gi_idx ne,
                       gi_plane *out);
SEXP ffi_poset_comp_edges(SEXP x, SEXP lex, SEXP threads);
SEXP ffi_idr_po_fit(SEXP node, SEXP kcode, SEXP w, SEXP m, SEXP K, SEXP from, SEXP to,
                    SEXP plane, SEXP threads);
SEXP ffi_gpu_idr_plane(SEXP node, SEXP kcode, SEXP w, SEXP off, SEXP m, SEXP K, SEXP plane,
                       SEXP threads);
SEXP ffi_idr_po_predict(SEXP ptr, SEXP start, SEXP value, SEXP Z, SEXP lex, SEXP X,
                        SEXP clim, SEXP threads);
SEXP ffi_partial_sums(SEXP x);

SEXP ffi_corp_bands(SEXP u, SEXP p0, SEXP count, SEXP n, SEXP resamples,
                    SEXP probs, SEXP seed, SEXP threads);
SEXP ffi_gpu_corp_bands(SEXP u, SEXP p0, SEXP count, SEXP n, SEXP resamples,
                        SEXP probs, SEXP seed, SEXP threads);
SEXP ffi_brier_parts(SEXP x, SEXP y, SEXP fit, SEXP run_of, SEXP threads);
SEXP ffi_corp_resample(SEXP p0, SEXP count, SEXP n, SEXP seed, SEXP b, SEXP plain);

#endif

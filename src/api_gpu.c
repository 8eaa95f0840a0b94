/* .Call glue for the GPU engine (cuda/gi_cuda.h). A failure of the engine
 * is raised here (gi_gpu_status()); an entry returns its results with the
 * `status` "ok", or "range" where the R layer must solve on the CPU
 * instead. The R layer has validated every argument. */
#include "gpuiso.h"
#include "cuda/gi_cuda.h"

static SEXP engine_error(int status, const char *msg)
{
  if (status == GI_CUDA_OK) return R_NilValue;
  return Rf_mkString(msg);
}

void gi_gpu_begin(SEXP threads)
{
  gi_begin_work();
  gi_cuda_set_threads(Rf_asInteger(threads));
}

SEXP gi_gpu_status(int status, const char *msg)
{
  switch (status) {
  case GI_CUDA_OK:
    return Rf_mkString("ok");
  case GI_CUDA_RANGE:
    return Rf_mkString("range");
  case GI_CUDA_INTERRUPT:
    gi_abort_interrupt();
  default:
    gi_abort("device", NULL, 0, "%s", msg);
  }
}

SEXP gi_gpu_result(int status, const char *msg, const char *const *names,
                   const SEXP *values)
{
  const char *all[9];
  int n = 0;
  while (names[n][0] != '\0') {
    if (n == 7) gi_internal_error("too many elements for a GPU result");
    all[n] = names[n];
    n++;
  }
  all[n] = "status";
  all[n + 1] = "";
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, all));
  SET_VECTOR_ELT(out, n, gi_gpu_status(status, msg));
  for (int k = 0; k < n; k++) SET_VECTOR_ELT(out, k, values[k]);
  UNPROTECT(1);
  return out;
}

/* Zero weights: the engine takes positive weights only, so the batch is
 * compacted first and its fit spread back (core/compact.c). */
SEXP ffi_gpu_fit(SEXP y, SEXP w, SEXP offsets, SEXP decreasing,
                 SEXP want_starts, SEXP single, SEXP threads)
{
  gi_batch b = gi_fit_batch(y, w, offsets);
  int dec = Rf_asLogical(decreasing) == TRUE;
  int sgl = Rf_asLogical(single) == TRUE;

  SEXP fit = PROTECT(Rf_allocVector(REALSXP, b.n));
  SEXP st = PROTECT(Rf_asLogical(want_starts) == TRUE
                        ? Rf_allocVector(RAWSXP, b.n) : R_NilValue);
  unsigned char *stp = Rf_isNull(st) ? NULL : RAW(st);
  char msg[1024] = "";
  int status;
  gi_gpu_begin(threads);
  if (gi_any_zero(b.w, b.n)) {
    size_t room = b.n > 0 ? (size_t) b.n : 1;
    double *cy = (double *) R_alloc(room, sizeof(double));
    double *cw = (double *) R_alloc(room, sizeof(double));
    gi_idx *coff = (gi_idx *) R_alloc((size_t) b.nprob + 1, sizeof(gi_idx));
    gi_idx cn = gi_compact_zero(REAL(y), b.w, b.off, b.nprob, cy, cw, coff);
    double *cfit = (double *) R_alloc((size_t) cn + 1, sizeof(double));
    unsigned char *cst = stp == NULL ? NULL
                                     : (unsigned char *) R_alloc((size_t) cn + 1, 1);
    status = gi_cuda_fit_host(cy, cw, coff, b.nprob, dec, sgl, cfit, cst, msg,
                              sizeof(msg));
    if (status == GI_CUDA_OK)
      gi_expand_zero(b.w, b.off, b.nprob, coff, cfit, cst, REAL(fit), stp);
  } else {
    status = gi_cuda_fit_host(REAL(y), b.w, b.off, b.nprob, dec, sgl, REAL(fit),
                              stp, msg, sizeof(msg));
  }
  SEXP out = gi_gpu_result(status, msg, (const char *[]) {"fit", "starts", ""},
                           (SEXP[]) {fit, st});
  UNPROTECT(2);
  return out;
}

SEXP ffi_gpu_vjp(SEXP y, SEXP w, SEXP fit, SEXP starts, SEXP grad,
                 SEXP offsets, SEXP want_dw, SEXP single, SEXP threads)
{
  gi_batch b = gi_vjp_batch(y, w, fit, starts, grad, offsets);
  SEXP d = PROTECT(gi_vjp_alloc(b.n, want_dw, 0));
  SEXP dy = VECTOR_ELT(d, 0), dw = VECTOR_ELT(d, 1);
  double *dwp = Rf_isNull(dw) ? NULL : REAL(dw);
  char msg[1024] = "";
  int status = GI_CUDA_OK;
  gi_gpu_begin(threads);
  /* w and the y of positive weights passed the forward pass on the GPU,
   * whose first kernel sends data outside the window to the CPU; the y of
   * zero weights did not (ffi_gpu_fit() leaves them out), and enter
   * dw = (y - fit) G / W here, so with the fit and grad they are checked */
  int nt = Rf_asInteger(threads);
  if (gi_in_window(REAL(fit), b.n, nt) && gi_in_window(REAL(grad), b.n, nt) &&
      (b.w == NULL || gi_in_window(REAL(y), b.n, nt))) {
    status = gi_cuda_vjp_host(REAL(y), b.w, REAL(fit), RAW(starts), REAL(grad),
                              b.off, b.nprob, Rf_asLogical(single) == TRUE,
                              REAL(dy), dwp, msg, sizeof(msg));
  } else {
    /* the GPU's prefix sums are exact only inside the window: the CPU's
     * backward pass, exact over the whole range, takes these */
    gi_idx bad;
    gi_status st = gi_isotonic_vjp_batch(REAL(y), b.w, REAL(fit), RAW(starts),
                                         REAL(grad), b.off, b.nprob, nt,
                                         REAL(dy), dwp, &bad);
    gi_stop_vjp_status(st, bad);
  }
  SEXP out = gi_gpu_result(status, msg, (const char *[]) {"y", "weights", ""},
                           (SEXP[]) {dy, dw});
  UNPROTECT(1);
  return out;
}

static int reps_arg(SEXP reps)
{
  int r = Rf_asInteger(reps);
  if (r < 1 || r == NA_INTEGER) gi_internal_error("reps must be >= 1");
  return r;
}

SEXP ffi_gpu_bench(SEXP y, SEXP w, SEXP offsets, SEXP decreasing,
                   SEXP single, SEXP reps)
{
  gi_batch b = gi_fit_batch(y, w, offsets);
  int r = reps_arg(reps);
  SEXP ms = PROTECT(Rf_allocVector(REALSXP, r));
  SEXP stages = PROTECT(Rf_allocVector(REALSXP, 4));
  for (int i = 0; i < 4; i++) REAL(stages)[i] = NA_REAL;
  SEXP fit = PROTECT(Rf_allocVector(REALSXP, b.n));
  char msg[1024] = "";
  int status = gi_cuda_bench(REAL(y), b.w, b.off, b.nprob,
                             Rf_asLogical(decreasing) == TRUE,
                             Rf_asLogical(single) == TRUE, r, REAL(ms),
                             REAL(stages), REAL(fit), msg, sizeof(msg));
  SEXP out = gi_gpu_result(status, msg, (const char *[]) {"ms", "stages", "fit", ""},
                           (SEXP[]) {ms, stages, fit});
  UNPROTECT(3);
  return out;
}

SEXP ffi_gpu_bench_vjp(SEXP y, SEXP w, SEXP fit, SEXP starts, SEXP grad, SEXP reps)
{
  R_xlen_t n = gi_vjp_args(y, fit, starts, grad);
  const double *wp = gi_weights_arg(w, n);
  int r = reps_arg(reps);
  SEXP ms = PROTECT(Rf_allocVector(REALSXP, r));
  char msg[1024] = "";
  int status = gi_cuda_bench_vjp(REAL(y), wp, REAL(fit), RAW(starts), REAL(grad),
                                 (int64_t) n, r, REAL(ms), msg, sizeof(msg));
  SEXP out = gi_gpu_result(status, msg, (const char *[]) {"ms", ""}, (SEXP[]) {ms});
  UNPROTECT(1);
  return out;
}

SEXP ffi_gpu_memory(void)
{
  double held = 0, pinned = 0, fr = 0, tot = 0;
  char msg[1024] = "";
  int status = gi_cuda_memory(&held, &pinned, &fr, &tot, msg, sizeof(msg));
  const char *names[] = {"workspace", "pinned", "free", "total", "error", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 0, Rf_ScalarReal(held));
  SET_VECTOR_ELT(out, 1, Rf_ScalarReal(pinned));
  SET_VECTOR_ELT(out, 2, Rf_ScalarReal(status == GI_CUDA_OK && fr >= 0 ? fr : NA_REAL));
  SET_VECTOR_ELT(out, 3, Rf_ScalarReal(status == GI_CUDA_OK && tot >= 0 ? tot : NA_REAL));
  SET_VECTOR_ELT(out, 4, engine_error(status, msg));
  UNPROTECT(1);
  return out;
}

/* The stage times (ms) and bytes of the last host-data call of the engine
 * (gi_cuda_last_times()), named. */
SEXP ffi_gpu_last_times(void)
{
  double t[GI_TIMES];
  gi_cuda_last_times(t);
  const char *names[] = {"total", "copy_in", "device", "copy_out", "convert",
                         "prefault", "bytes_in", "bytes_out", ""};
  SEXP out = PROTECT(Rf_mkNamed(REALSXP, names));
  for (int i = 0; i < GI_TIMES; i++) REAL(out)[i] = t[i];
  UNPROTECT(1);
  return out;
}

/* The largest piece of the engine's transfers (bytes, 0 for the default);
 * returns the previous one. */
SEXP ffi_gpu_set_piece(SEXP bytes)
{
  double b = Rf_asReal(bytes);
  if (!(b >= 0 && b < 0x1p40)) gi_internal_error("bytes must be in [0, 2^40)");
  return Rf_ScalarReal((double) gi_cuda_set_piece((size_t) b));
}

SEXP ffi_gpu_release(void)
{
  gi_cuda_release();
  return R_NilValue;
}

/* Test-only: the device looks full (TRUE) or no longer (FALSE). */
SEXP ffi_gpu_test_full_device(SEXP on)
{
  gi_cuda_test_full_device(Rf_asLogical(on) == TRUE);
  return R_NilValue;
}

/* Test-only: at most `values` values a wave of the device's IDR on two
 * covariates (0: the default), so that small fits take several waves;
 * returns the previous setting. */
SEXP ffi_gpu_test_idr_plane_wave(SEXP values)
{
  return Rf_ScalarReal((double) gi_cuda_test_idr_plane_wave((int64_t) Rf_asReal(values)));
}

/* Values rounded to float32 and back: what precision = "single" sees. */
SEXP ffi_as_single(SEXP x)
{
  if (TYPEOF(x) != REALSXP) gi_internal_error("x must be a double vector");
  R_xlen_t n = Rf_xlength(x);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  gi_convert(REAL(out), REAL(x), n, GI_ROUND_F32, 0, 1);
  UNPROTECT(1);
  return out;
}

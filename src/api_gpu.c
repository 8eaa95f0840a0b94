/* .Call glue for the GPU engine (cuda/gi_cuda.h). A failure of the engine
 * is raised here (gi_gpu_status()); an entry returns its results with the
 * `status` "ok", or "range" where the R layer must solve on the CPU
 * instead. The R layer has validated every argument. */
#include <math.h>
#include <string.h>
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

/* Zero weights: the engine takes positive weights only, so such points are
 * left out and then take the fit of the next positive-weight point of their
 * problem (of the last one when none follows), as on the CPU. A block that
 * such a run precedes starts at the run's first point. */
typedef struct {
  double *y, *w;
  gi_idx *off;
  gi_idx n;
} compressed;

static int has_zero(const double *w, R_xlen_t n)
{
  if (w == NULL) return 0;
  for (R_xlen_t i = 0; i < n; i++)
    if (w[i] == 0.0) return 1;
  return 0;
}

static compressed compress(const double *y, const double *w,
                           const gi_idx *off, gi_idx nprob)
{
  compressed c;
  gi_idx n = off[nprob], k = 0;
  c.y = (double *) R_alloc((size_t) n > 0 ? (size_t) n : 1, sizeof(double));
  c.w = (double *) R_alloc((size_t) n > 0 ? (size_t) n : 1, sizeof(double));
  c.off = (gi_idx *) R_alloc((size_t) nprob + 1, sizeof(gi_idx));
  c.off[0] = 0;
  for (gi_idx b = 0; b < nprob; b++) {
    for (gi_idx i = off[b]; i < off[b + 1]; i++) {
      if (w[i] > 0.0) {
        c.y[k] = y[i];
        c.w[k] = w[i];
        k++;
      }
    }
    c.off[b + 1] = k;
  }
  c.n = k;
  return c;
}

static void expand(const double *w, const gi_idx *off, gi_idx nprob,
                   const compressed *c, const double *cfit,
                   const unsigned char *cst, double *fit, unsigned char *st)
{
  for (gi_idx b = 0; b < nprob; b++) {
    gi_idx j = c->off[b], jend = c->off[b + 1], run = -1;
    for (gi_idx i = off[b]; i < off[b + 1]; i++) {
      if (w[i] > 0.0) {
        fit[i] = cfit[j];
        if (st != NULL) {
          st[i] = run >= 0 ? 0 : cst[j];
          if (run >= 0) st[run] = cst[j];
        }
        run = -1;
        j++;
      } else {
        fit[i] = cfit[j < jend ? j : jend - 1];
        if (st != NULL) st[i] = 0;
        if (run < 0 && j < jend) run = i;
      }
    }
  }
}

SEXP ffi_gpu_fit(SEXP y, SEXP w, SEXP offsets, SEXP decreasing,
                 SEXP want_starts, SEXP single, SEXP threads)
{
  if (TYPEOF(y) != REALSXP) gi_internal_error("y must be a double vector");
  R_xlen_t n = Rf_xlength(y);
  gi_idx nprob;
  const gi_idx *off = gi_offsets_arg(offsets, n, &nprob);
  const double *wp = gi_weights_arg(w, n);
  int dec = Rf_asLogical(decreasing) == TRUE;
  int sgl = Rf_asLogical(single) == TRUE;

  SEXP fit = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP st = PROTECT(Rf_asLogical(want_starts) == TRUE
                        ? Rf_allocVector(RAWSXP, n) : R_NilValue);
  unsigned char *stp = Rf_isNull(st) ? NULL : RAW(st);
  char msg[1024] = "";
  int status;
  gi_gpu_begin(threads);
  if (has_zero(wp, n)) {
    compressed c = compress(REAL(y), wp, off, nprob);
    double *cfit = (double *) R_alloc((size_t) c.n + 1, sizeof(double));
    unsigned char *cst = stp == NULL ? NULL
                                     : (unsigned char *) R_alloc((size_t) c.n + 1, 1);
    status = gi_cuda_fit_host(c.y, c.w, c.off, nprob, dec, sgl, cfit, cst,
                              msg, sizeof(msg));
    if (status == GI_CUDA_OK)
      expand(wp, off, nprob, &c, cfit, cst, REAL(fit), stp);
  } else {
    status = gi_cuda_fit_host(REAL(y), wp, off, nprob, dec, sgl, REAL(fit),
                              stp, msg, sizeof(msg));
  }
  const char *names[] = {"fit", "starts", "status", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 2, gi_gpu_status(status, msg));
  SET_VECTOR_ELT(out, 0, fit);
  SET_VECTOR_ELT(out, 1, st);
  UNPROTECT(3);
  return out;
}

SEXP ffi_gpu_vjp(SEXP y, SEXP w, SEXP fit, SEXP starts, SEXP grad,
                 SEXP offsets, SEXP want_dw, SEXP single, SEXP threads)
{
  R_xlen_t n = gi_vjp_args(y, fit, starts, grad);
  gi_idx nprob;
  const gi_idx *off = gi_offsets_arg(offsets, n, &nprob);
  const double *wp = gi_weights_arg(w, n);
  int nprotect = 0;
  SEXP dy = PROTECT(Rf_allocVector(REALSXP, n)); nprotect++;
  SEXP dw = R_NilValue;
  if (Rf_asLogical(want_dw) == TRUE) {
    dw = PROTECT(Rf_allocVector(REALSXP, n)); nprotect++;
  }
  char msg[1024] = "";
  int status = GI_CUDA_OK;
  gi_gpu_begin(threads);
  /* y and w passed the forward pass on the GPU, whose first kernel sends
   * data outside the window to the CPU: only the fit and grad are new */
  int nt = Rf_asInteger(threads);
  if (gi_in_window(REAL(fit), n, nt) && gi_in_window(REAL(grad), n, nt)) {
    status = gi_cuda_vjp_host(REAL(y), wp, REAL(fit), RAW(starts),
                              REAL(grad), off, nprob,
                              Rf_asLogical(single) == TRUE, REAL(dy),
                              dw == R_NilValue ? NULL : REAL(dw), msg,
                              sizeof(msg));
  } else {
    /* the GPU's prefix sums are exact only inside the window: the CPU's
     * backward pass, exact over the whole range, takes these */
    gi_idx bad;
    gi_status st = gi_isotonic_vjp_batch(REAL(y), wp, REAL(fit), RAW(starts),
                                         REAL(grad), off, nprob, nt, REAL(dy),
                                         dw == R_NilValue ? NULL : REAL(dw),
                                         &bad);
    gi_stop_vjp_status(st, bad);
  }
  const char *names[] = {"y", "weights", "status", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names)); nprotect++;
  SET_VECTOR_ELT(out, 2, gi_gpu_status(status, msg));
  SET_VECTOR_ELT(out, 0, dy);
  SET_VECTOR_ELT(out, 1, dw);
  UNPROTECT(nprotect);
  return out;
}

SEXP ffi_gpu_bench(SEXP y, SEXP w, SEXP offsets, SEXP decreasing,
                   SEXP single, SEXP reps)
{
  if (TYPEOF(y) != REALSXP) gi_internal_error("y must be a double vector");
  R_xlen_t n = Rf_xlength(y);
  gi_idx nprob;
  const gi_idx *off = gi_offsets_arg(offsets, n, &nprob);
  const double *wp = gi_weights_arg(w, n);
  int r = Rf_asInteger(reps);
  if (r < 1 || r == NA_INTEGER) gi_internal_error("reps must be >= 1");
  SEXP ms = PROTECT(Rf_allocVector(REALSXP, r));
  SEXP stages = PROTECT(Rf_allocVector(REALSXP, 4));
  for (int i = 0; i < 4; i++) REAL(stages)[i] = NA_REAL;
  SEXP fit = PROTECT(Rf_allocVector(REALSXP, n));
  char msg[1024] = "";
  int status = gi_cuda_bench(REAL(y), wp, off, nprob,
                             Rf_asLogical(decreasing) == TRUE,
                             Rf_asLogical(single) == TRUE, r, REAL(ms),
                             REAL(stages), REAL(fit), msg, sizeof(msg));
  const char *names[] = {"ms", "stages", "fit", "status", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 3, gi_gpu_status(status, msg));
  SET_VECTOR_ELT(out, 0, ms);
  SET_VECTOR_ELT(out, 1, stages);
  SET_VECTOR_ELT(out, 2, fit);
  UNPROTECT(4);
  return out;
}

SEXP ffi_gpu_bench_vjp(SEXP y, SEXP w, SEXP fit, SEXP starts, SEXP grad, SEXP reps)
{
  R_xlen_t n = gi_vjp_args(y, fit, starts, grad);
  const double *wp = gi_weights_arg(w, n);
  int r = Rf_asInteger(reps);
  if (r < 1 || r == NA_INTEGER) gi_internal_error("reps must be >= 1");
  SEXP ms = PROTECT(Rf_allocVector(REALSXP, r));
  char msg[1024] = "";
  int status = gi_cuda_bench_vjp(REAL(y), wp, REAL(fit), RAW(starts), REAL(grad),
                                 (int64_t) n, r, REAL(ms), msg, sizeof(msg));
  const char *names[] = {"ms", "status", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 0, ms);
  SET_VECTOR_ELT(out, 1, gi_gpu_status(status, msg));
  UNPROTECT(2);
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

/* IDR on the device (cuda/idr.cu), with the arguments and result of
 * ffi_idr_fit plus the status (gi_gpu_status()). */
SEXP ffi_gpu_idr(SEXP xcode, SEXP kcode, SEXP w, SEXP m, SEXP K, SEXP threads)
{
  gi_idx mm, KK;
  R_xlen_t n = gi_idr_args(xcode, kcode, m, K, &mm, &KK);
  const double *wp = gi_weights_arg(w, n);
  SEXP ptr = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t) KK + 1));
  char msg[1024] = "";
  gi_gpu_begin(threads);
  int status = gi_cuda_idr_host(INTEGER(xcode), INTEGER(kcode), wp, (int64_t) n, mm, KK,
                                REAL(ptr), msg, sizeof(msg));
  R_xlen_t nb = status == GI_CUDA_OK ? (R_xlen_t) REAL(ptr)[(R_xlen_t) KK] : 0;
  SEXP start = PROTECT(Rf_allocVector(INTSXP, nb));
  SEXP value = PROTECT(Rf_allocVector(REALSXP, nb));
  if (nb > 0) {
    const int *s;
    const double *v;
    gi_cuda_idr_result(&s, &v);
    memcpy(INTEGER(start), s, (size_t) nb * sizeof(int));
    memcpy(REAL(value), v, (size_t) nb * sizeof(double));
  }
  const char *names[] = {"ptr", "start", "value", "status", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 3, gi_gpu_status(status, msg));
  SET_VECTOR_ELT(out, 0, ptr);
  SET_VECTOR_ELT(out, 1, start);
  SET_VECTOR_ELT(out, 2, value);
  UNPROTECT(4);
  return out;
}

/* .Call glue for the forward and backward passes of the isotonic fit. */
#include <math.h>
#include "gpuiso.h"
#include "core/gi_memory.h"

/* Problems are handed to the engine in pieces of about this many elements,
 * and R is asked for an interrupt between pieces (the engine also asks
 * within a piece, through gi_interrupted()). */
#define GI_PIECE ((gi_idx) 1 << 22)

static gi_idx piece_end(const gi_idx *off, gi_idx nprob, gi_idx b0)
{
  gi_idx b1 = b0 + 1;
  while (b1 < nprob && off[b1 + 1] - off[b0] <= GI_PIECE) b1++;
  return b1;
}

/* The fit of a batch, piece by piece; `st` is NULL or a raw vector for the
 * block-start flags. Returns the fit, unprotected. */
static SEXP fit_batch(SEXP y, const double *wp, const gi_idx *off,
                      gi_idx nprob, int dec, int nt, SEXP st)
{
  R_xlen_t n = Rf_xlength(y);
  SEXP fit = PROTECT(Rf_allocVector(REALSXP, n));
  /* One problem on one thread: huge pages save it most of its page
   * faults. Threads sharing fresh huge pages wait on each other, so
   * batches and problems in pieces on threads are left to ordinary
   * pages. */
  if (nprob == 1 && (nt == 1 || n < GI_SPLIT_MIN)) gi_hint_huge(REAL(fit), (size_t) n * sizeof(double));
  unsigned char *stp = Rf_isNull(st) ? NULL : RAW(st);
  gi_begin_work();
  for (gi_idx b0 = 0, b1; b0 < nprob; b0 = b1) {
    gi_idx bad;
    b1 = piece_end(off, nprob, b0);
    gi_status r = gi_isotonic_batch(REAL(y), wp, off + b0, b1 - b0, dec, nt,
                                    REAL(fit), stp, &bad);
    if (r != GI_OK) gi_stop_status(r, b0 + bad);
    gi_check_stop();
    if (b1 < nprob && gi_poll_now()) gi_abort_interrupt();
  }
  UNPROTECT(1);
  return fit;
}

SEXP ffi_isotonic_fit(SEXP y, SEXP w, SEXP offsets, SEXP decreasing,
                      SEXP want_starts, SEXP threads)
{
  gi_batch b = gi_fit_batch(y, w, offsets);
  SEXP st = PROTECT(Rf_asLogical(want_starts) == TRUE
                        ? Rf_allocVector(RAWSXP, b.n) : R_NilValue);
  SEXP fit = PROTECT(fit_batch(y, b.w, b.off, b.nprob,
                               Rf_asLogical(decreasing) == TRUE,
                               Rf_asInteger(threads), st));
  SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
  SET_VECTOR_ELT(out, 0, fit);
  SET_VECTOR_ELT(out, 1, st);
  UNPROTECT(3);
  return out;
}

SEXP ffi_isotonic_vjp(SEXP y, SEXP w, SEXP fit, SEXP starts, SEXP grad,
                      SEXP offsets, SEXP want_dw, SEXP threads)
{
  gi_batch b = gi_vjp_batch(y, w, fit, starts, grad, offsets);
  SEXP out = PROTECT(gi_vjp_alloc(b.n, want_dw, b.nprob == 1));
  SEXP dw = VECTOR_ELT(out, 1);
  gi_begin_work();
  gi_idx bad;
  gi_status st = gi_isotonic_vjp_batch(REAL(y), b.w, REAL(fit), RAW(starts),
                                       REAL(grad), b.off, b.nprob,
                                       Rf_asInteger(threads),
                                       REAL(VECTOR_ELT(out, 0)),
                                       Rf_isNull(dw) ? NULL : REAL(dw), &bad);
  gi_stop_vjp_status(st, bad);
  UNPROTECT(1);
  return out;
}

/* options(gpuiso.threads) when it is a positive whole number, else 0 (the
 * R layer then says what is wrong with it). */
static int option_threads(void)
{
  SEXP t = Rf_GetOption1(Rf_install("gpuiso.threads"));
  if (Rf_isNull(t)) return 2;
  if (Rf_xlength(t) != 1 || (TYPEOF(t) != INTSXP && TYPEOF(t) != REALSXP))
    return 0;
  double v = Rf_asReal(t);
  if (!(v >= 1.0) || v != floor(v)) return 0;
  return v > 1 << 20 ? 1 << 20 : (int) v;
}

/* The common case without any R-level preparation: one problem, y a double
 * vector, w NULL or a double vector of the same length. Returns the fit, or
 * NULL when any input is invalid, so that the R layer can take its full
 * path and raise the error that names the argument and position. */
SEXP ffi_isotonic_quick(SEXP y, SEXP w, SEXP decreasing)
{
  if (TYPEOF(y) != REALSXP) return R_NilValue;
  R_xlen_t n = Rf_xlength(y);
  if (gi_first_invalid(REAL(y), n, 0, 1) >= 0) return R_NilValue;
  const double *wp = NULL;
  gi_idx off[2] = {0, (gi_idx) n};
  if (!Rf_isNull(w)) {
    if (TYPEOF(w) != REALSXP || Rf_xlength(w) != n) return R_NilValue;
    wp = REAL(w);
    if (gi_first_invalid(wp, n, GI_CHECK_NONNEG, 1) >= 0 || gi_first_weightless(wp, off, 1) >= 0)
      return R_NilValue;
  }
  int nt = 1;
  if (n >= GI_SPLIT_MIN && (nt = option_threads()) < 1)
    return R_NilValue;
  return fit_batch(y, wp, off, 1, Rf_asLogical(decreasing) == TRUE, nt,
                   R_NilValue);
}

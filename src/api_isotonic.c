/* .Call glue for the forward and backward passes of the isotonic fit. */
#include <math.h>
#include <string.h>
#include <Rversion.h>
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

/* A fresh fit of n values for nprob problems on nt threads, unprotected.
 * One problem on one thread: huge pages save it most of its page faults.
 * One problem in pieces on threads: the threads fault the pages in first,
 * a huge page each (gi_prefault()), as threads that share a fresh huge
 * page wait on each other; on increasing data, where the fit is most of
 * the memory the pass writes, 1e8 elements on 16 threads took 40 ms so and
 * 55-64 without (bench/split-scaling-RESULTS.md). Batches are left to
 * ordinary pages. *faulted (when not NULL) says whether the pages were
 * faulted in. */
static SEXP alloc_fit(R_xlen_t n, gi_idx nprob, int nt, int *faulted)
{
  SEXP fit = Rf_allocVector(REALSXP, n);
  int pre = nprob == 1 && nt > 1 && n >= GI_SPLIT_MIN;
  if (pre)
    gi_prefault(REAL(fit), (size_t) n * sizeof(double), nt);
  else if (nprob == 1)
    gi_hint_huge(REAL(fit), (size_t) n * sizeof(double));
  if (faulted != NULL) *faulted = pre;
  return fit;
}

/* The fit of a batch, piece by piece; `st` is NULL or a raw vector for the
 * block-start flags; `inside`: the inputs were found inside the window of
 * the fast passes (gi_fit_inputs_ok()). Returns the fit, unprotected. */
static SEXP fit_batch(SEXP y, const double *wp, const gi_idx *off,
                      gi_idx nprob, int dec, int nt, int inside, SEXP st)
{
  SEXP fit = PROTECT(alloc_fit(Rf_xlength(y), nprob, nt, NULL));
  unsigned char *stp = Rf_isNull(st) ? NULL : RAW(st);
  gi_begin_work();
  for (gi_idx b0 = 0, b1; b0 < nprob; b0 = b1) {
    gi_idx bad;
    b1 = piece_end(off, nprob, b0);
    gi_status r = (inside ? gi_isotonic_batch_in_window
                          : gi_isotonic_batch)(REAL(y), wp, off + b0, b1 - b0,
                                               dec, nt, REAL(fit), stp, &bad);
    if (r != GI_OK) gi_stop_status(r, b0 + bad);
    gi_check_stop();
    if (b1 < nprob && gi_poll_now()) gi_abort_interrupt();
  }
  UNPROTECT(1);
  return fit;
}

/* The fit of one long problem with unit weights whose values are
 * unchecked (gi_isotonic_long_unchecked()): NULL when one is NA, NaN or
 * infinite, for the R layer to name it. Returns the fit, unprotected. */
static SEXP fit_long_unchecked(SEXP y, int dec, int nt)
{
  R_xlen_t n = Rf_xlength(y);
  int faulted;
  SEXP fit = PROTECT(alloc_fit(n, 1, nt, &faulted));
  gi_begin_work();
  gi_status r = gi_isotonic_long_unchecked(REAL(y), (gi_idx) n, dec, nt,
                                           faulted, REAL(fit), NULL);
  if (r == GI_ERR_INVALID) {
    UNPROTECT(1);
    return R_NilValue;
  }
  if (r != GI_OK) gi_stop_status(r, 0);
  gi_check_stop();
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
                               Rf_asInteger(threads), 0, st));
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

/* The package's options that the quick path reads, in one walk of the
 * options list (R_NilValue where unset), none when neither the device's
 * (gpuiso.device, gpuiso.gpu_min_n) nor the threads' is wanted:
 * Rf_GetOption1() walks the list once per option, 0.15 us each on a
 * session's list, and the device's default took two walks. */
typedef struct {
  SEXP device, gpu_min_n, threads;
} quick_options;

static quick_options read_options(int want_device, int want_threads)
{
  static SEXP s_options = NULL, s_device, s_min_n, s_threads;
  if (s_options == NULL) {
    s_options = Rf_install(".Options");
    s_device = Rf_install("gpuiso.device");
    s_min_n = Rf_install("gpuiso.gpu_min_n");
    s_threads = Rf_install("gpuiso.threads");
  }
  quick_options o = {R_NilValue, R_NilValue, R_NilValue};
  if (!want_device && !want_threads) return o;
  SEXP opt = Rf_findVarInFrame(R_BaseEnv, s_options);
  if (TYPEOF(opt) != LISTSXP) return o;
  for (; opt != R_NilValue; opt = CDR(opt)) {
    SEXP tag = TAG(opt);
    if (tag == s_device) o.device = CAR(opt);
    else if (tag == s_min_n) o.gpu_min_n = CAR(opt);
    else if (tag == s_threads) o.threads = CAR(opt);
  }
  return o;
}

/* options(gpuiso.threads) (t) when it is a positive whole number, else 0:
 * the R layer then says what is wrong with it, or, where it is unset,
 * takes the default (default_threads()). */
static int option_threads(SEXP t)
{
  if (Rf_xlength(t) != 1 || OBJECT(t) || (TYPEOF(t) != INTSXP && TYPEOF(t) != REALSXP))
    return 0;
  double v = Rf_asReal(t);
  if (!(v >= 1.0) || v != floor(v)) return 0;
  return v > 1 << 20 ? 1 << 20 : (int) v;
}

/* A string vector of one element equal to `s`, as identical() compares
 * them (neither NA nor marked as bytes). */
static int is_string(SEXP x, const char *s)
{
  if (TYPEOF(x) != STRSXP || Rf_xlength(x) != 1 || OBJECT(x)) return 0;
  SEXP c = STRING_ELT(x, 0);
  return c != NA_STRING && Rf_getCharCE(c) != CE_BYTES && strcmp(CHAR(c), s) == 0;
}

/* TRUE or FALSE, not NA. */
static int is_flag(SEXP x)
{
  return TYPEOF(x) == LGLSXP && Rf_xlength(x) == 1 && !OBJECT(x) &&
         LOGICAL(x)[0] != NA_LOGICAL;
}

/* precision = "double", or the default c("double", "single"). */
static int is_double_precision(SEXP p)
{
  if (is_string(p, "double")) return 1;
  if (TYPEOF(p) != STRSXP || Rf_xlength(p) != 2 || OBJECT(p)) return 0;
  for (int i = 0; i < 2; i++) {
    SEXP c = STRING_ELT(p, i);
    if (c == NA_STRING || Rf_getCharCE(c) == CE_BYTES ||
        strcmp(CHAR(c), i == 0 ? "double" : "single") != 0)
      return 0;
  }
  return 1;
}

/* device = "auto" stays on the CPU below options(gpuiso.gpu_min_n)
 * (gpu_min_n() of R/device.R, whose default gpu_min_n_default this
 * repeats), m the option: 1 if n is below it, 0 if not, -1 if it is not a
 * number that C can read as valid (the R layer then asks gpu_min_n()). */
static int below_gpu_min_n(R_xlen_t n, SEXP m)
{
  double v;
  if (Rf_isNull(m)) {
    v = 16384.0;
  } else if (Rf_xlength(m) != 1 || OBJECT(m)) {
    return -1;
  } else if (TYPEOF(m) == INTSXP) {
    if (INTEGER(m)[0] == NA_INTEGER) return -1;
    v = INTEGER(m)[0];
  } else if (TYPEOF(m) == REALSXP) {
    v = REAL(m)[0];
  } else {
    return -1;
  }
  if (!(v >= 0)) return -1; /* negative or NaN */
  return (double) n < v;
}

/* Has x any attribute? */
static int has_attributes(SEXP x)
{
#if R_VERSION >= R_Version(4, 5, 0)
  return ANY_ATTRIB(x);
#else
  return ATTRIB(x) != R_NilValue;
#endif
}

/* The common case without any R-level preparation: one problem, y a double
 * vector, w NULL or a double vector of the same length (neither with
 * attributes), groups and the bounds NULL, decreasing and na.rm TRUE or
 * FALSE, precision "double" (or its default), device "cpu" (without
 * attributes), or "auto" below options(gpuiso.gpu_min_n). When
 * device_missing is TRUE, device is the argument's default,
 * options(gpuiso.device) or "auto", read here: getOption() in R took
 * 0.85 us of a 2.8 us call on one point. Returns the fit; FALSE when
 * device is "auto" and that option is not a valid number (the R layer
 * then raises gpu_min_n()'s error); NULL when anything else
 * is asked for or any input is invalid, so that the R layer can take its
 * full path (and raise the error that names the argument and position). */
SEXP ffi_isotonic_quick(SEXP y, SEXP w, SEXP decreasing, SEXP precision,
                        SEXP na_rm, SEXP device, SEXP device_missing,
                        SEXP groups, SEXP y_min, SEXP y_max)
{
  if (TYPEOF(y) != REALSXP || has_attributes(y) || has_attributes(w) ||
      has_attributes(device) || !Rf_isNull(groups) || !Rf_isNull(y_min) ||
      !Rf_isNull(y_max) || !is_flag(decreasing) ||
      !is_double_precision(precision) || !is_flag(na_rm))
    return R_NilValue;
  R_xlen_t n = Rf_xlength(y);
  int is_auto = 0;
  int dev_default = Rf_asLogical(device_missing) == TRUE;
  quick_options opt = read_options(dev_default || !is_string(device, "cpu"),
                                   n >= GI_SPLIT_MIN);
  if (dev_default) {
    device = opt.device;
    if (has_attributes(device)) return R_NilValue;
    is_auto = Rf_isNull(device); /* the option unset: the default "auto" */
  }
  if (!is_string(device, "cpu")) {
    if (!is_auto && !is_string(device, "auto")) return R_NilValue;
    int below = below_gpu_min_n(n, opt.gpu_min_n);
    if (below < 0) return Rf_ScalarLogical(FALSE);
    if (!below) return R_NilValue;
  }
  const double *wp = NULL;
  if (!Rf_isNull(w)) {
    if (TYPEOF(w) != REALSXP || Rf_xlength(w) != n) return R_NilValue;
    wp = REAL(w);
  }
  /* below GI_SPLIT_MIN one thread, and the option is not read (as
   * documented): walking the options list for it cost a call of 1e3
   * points 3 % where device = "cpu" was given */
  int nt = 1;
  if (n >= GI_SPLIT_MIN && (nt = option_threads(opt.threads)) < 1)
    return R_NilValue;
  /* one long row without weights: its values are checked by the threads
   * that fit it, piece by piece, not in a scan of their own */
  if (wp == NULL && n >= GI_SPLIT_MIN)
    return fit_long_unchecked(y, LOGICAL(decreasing)[0] == TRUE, nt);
  int inside = 0;
  if (!gi_fit_inputs_ok(REAL(y), wp, (gi_idx) n, nt, &inside))
    return R_NilValue;
  gi_idx off[2] = {0, (gi_idx) n};
  return fit_batch(y, wp, off, 1, LOGICAL(decreasing)[0] == TRUE, nt, inside,
                   R_NilValue);
}

/* .Call glue for the input scans behind the R layer's error messages. */
#include "gpuiso.h"

/* 1-based position of the first non-finite (or, with `nonneg`, negative;
 * with `single`, beyond what float32 holds) element of a double vector, 0
 * if none; a double for long vectors. On `threads` threads. */
SEXP ffi_first_invalid(SEXP x, SEXP nonneg, SEXP single, SEXP threads)
{
  if (TYPEOF(x) != REALSXP) gi_internal_error("x must be a double vector");
  int checks = (Rf_asLogical(nonneg) == TRUE ? GI_CHECK_NONNEG : 0) |
               (Rf_asLogical(single) == TRUE ? GI_CHECK_F32 : 0);
  gi_idx i = gi_first_invalid(REAL(x), Rf_xlength(x), checks, Rf_asInteger(threads));
  return Rf_ScalarReal((double) (i + 1));
}

/* 1-based index of the first problem whose weights are all zero, 0 if none. */
SEXP ffi_first_weightless(SEXP w, SEXP offsets)
{
  if (TYPEOF(w) != REALSXP) gi_internal_error("w must be a double vector");
  gi_idx nprob;
  const gi_idx *off = gi_offsets_arg(offsets, Rf_xlength(w), &nprob);
  return Rf_ScalarReal((double) (gi_first_weightless(REAL(w), off, nprob) + 1));
}

/* The first element (1-based, 0 if none) outside [0, 1]. */
SEXP ffi_first_outside_unit(SEXP x)
{
  if (TYPEOF(x) != REALSXP) gi_internal_error("x must be a double vector");
  return Rf_ScalarReal((double) (gi_first_outside_unit(REAL(x), Rf_xlength(x)) + 1));
}

/* TRUE when plain double sums of the weights (NULL: ones) are exact in
 * any order (gi_sums_exact()): what the GPU's pooling and IDR sums need. */
SEXP ffi_sums_exact(SEXP w)
{
  if (Rf_isNull(w)) return Rf_ScalarLogical(TRUE);
  if (TYPEOF(w) != REALSXP) gi_internal_error("w must be a double vector");
  return Rf_ScalarLogical(gi_sums_exact(REAL(w), Rf_xlength(w)));
}

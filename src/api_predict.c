/* .Call glue for prediction: new points placed among a fit's knots by the
 * one rule of core/locate.c. The R layer has validated every argument. */
#include <limits.h>
#include "gpuiso.h"

static void predict_args(SEXP knots, SEXP t, SEXP linear, SEXP clip,
                         int *lin, int *clp)
{
  if (TYPEOF(knots) != REALSXP || TYPEOF(t) != REALSXP)
    gi_internal_error("knots and t must be double vectors");
  *lin = Rf_asLogical(linear) == TRUE;
  *clp = Rf_asLogical(clip) == TRUE;
}

/* The values of a fit (knots, values) at t: a double vector with the
 * 1-based position of the first point outside the fit's range as its
 * attribute "outside" (0 if none). The range starts at `lo` (NULL: the
 * first knot). */
SEXP ffi_interpolate(SEXP knots, SEXP values, SEXP t, SEXP linear, SEXP clip,
                     SEXP lo)
{
  int lin, clp;
  predict_args(knots, t, linear, clip, &lin, &clp);
  if (TYPEOF(values) != REALSXP || Rf_xlength(values) != Rf_xlength(knots))
    gi_internal_error("values must be doubles, one per knot");
  R_xlen_t n = Rf_xlength(t), m = Rf_xlength(knots);
  double start = !Rf_isNull(lo) ? Rf_asReal(lo) : (m > 0 ? REAL(knots)[0] : 0.0);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  gi_idx first = gi_interpolate(REAL(knots), REAL(values), m, start, REAL(t), n,
                                lin, clp, NA_REAL, REAL(out));
  Rf_setAttrib(out, Rf_install("outside"), Rf_ScalarReal((double) (first + 1)));
  UNPROTECT(1);
  return out;
}

/* The places of t among the knots: list(j = 0-based knot index or NA,
 * lambda, outside = as above). */
SEXP ffi_locate(SEXP knots, SEXP t, SEXP linear, SEXP clip)
{
  int lin, clp;
  predict_args(knots, t, linear, clip, &lin, &clp);
  R_xlen_t n = Rf_xlength(t);
  if (Rf_xlength(knots) > INT_MAX) gi_internal_error("too many knots");
  const char *names[] = {"j", "lambda", "outside", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SEXP j = Rf_allocVector(INTSXP, n);
  SET_VECTOR_ELT(out, 0, j);
  SEXP lam = Rf_allocVector(REALSXP, n);
  SET_VECTOR_ELT(out, 1, lam);
  gi_idx first = gi_locate(REAL(knots), Rf_xlength(knots), REAL(t), n, lin,
                           clp, INTEGER(j), REAL(lam));
  /* GI_NO_PLACE is R's NA_INTEGER: no translation needed */
  SET_VECTOR_ELT(out, 2, Rf_ScalarReal((double) (first + 1)));
  UNPROTECT(1);
  return out;
}

/* Argument conversions shared by the .Call entry points. */
#include "gpuiso.h"

const gi_idx *gi_offsets_arg(SEXP offsets, R_xlen_t n, gi_idx *nprob)
{
  if (TYPEOF(offsets) != REALSXP || Rf_xlength(offsets) < 1)
    gi_internal_error("offsets must be a non-empty double vector");
  R_xlen_t m = Rf_xlength(offsets);
  const double *o = REAL(offsets);
  gi_idx *out = (gi_idx *) R_alloc((size_t) m, sizeof(gi_idx));
  for (R_xlen_t b = 0; b < m; b++) {
    out[b] = (gi_idx) o[b];
    if ((double) out[b] != o[b] || (b > 0 && out[b] < out[b - 1]))
      gi_internal_error("offsets must be non-decreasing whole numbers");
  }
  if (out[0] != 0 || out[m - 1] != (gi_idx) n)
    gi_internal_error("offsets must run from 0 to the length of y");
  *nprob = (gi_idx) (m - 1);
  return out;
}

const double *gi_weights_arg(SEXP w, R_xlen_t n)
{
  if (Rf_isNull(w)) return NULL;
  if (TYPEOF(w) != REALSXP || Rf_xlength(w) != n)
    gi_internal_error("weights must be NULL or a double vector as long as y");
  return REAL(w);
}

R_xlen_t gi_vjp_args(SEXP y, SEXP fit, SEXP starts, SEXP grad)
{
  R_xlen_t n = Rf_xlength(y);
  if (TYPEOF(y) != REALSXP || TYPEOF(fit) != REALSXP ||
      TYPEOF(starts) != RAWSXP || TYPEOF(grad) != REALSXP ||
      Rf_xlength(fit) != n || Rf_xlength(starts) != n ||
      Rf_xlength(grad) != n)
    gi_internal_error("y, fit, starts and grad must match");
  return n;
}

R_xlen_t gi_idr_args(SEXP xcode, SEXP kcode, SEXP m, SEXP K, gi_idx *mm,
                     gi_idx *KK)
{
  if (TYPEOF(xcode) != INTSXP || TYPEOF(kcode) != INTSXP ||
      Rf_xlength(xcode) != Rf_xlength(kcode))
    gi_internal_error("xcode and kcode must be integer vectors of one length");
  double dm = Rf_asReal(m), dK = Rf_asReal(K);
  if (!(dm >= 1 && dK >= 1)) gi_internal_error("m and K must be positive");
  *mm = (gi_idx) dm;
  *KK = (gi_idx) dK;
  return Rf_xlength(xcode);
}

/* Argument conversions and result vectors shared by the .Call entry
 * points. */
#include <string.h>
#include "gpuiso.h"
#include "core/gi_memory.h"

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

static gi_batch batch_of(R_xlen_t n, SEXP w, SEXP offsets)
{
  gi_batch b;
  b.n = n;
  b.off = gi_offsets_arg(offsets, n, &b.nprob);
  b.w = gi_weights_arg(w, n);
  return b;
}

gi_batch gi_fit_batch(SEXP y, SEXP w, SEXP offsets)
{
  if (TYPEOF(y) != REALSXP) gi_internal_error("y must be a double vector");
  return batch_of(Rf_xlength(y), w, offsets);
}

gi_batch gi_vjp_batch(SEXP y, SEXP w, SEXP fit, SEXP starts, SEXP grad,
                      SEXP offsets)
{
  return batch_of(gi_vjp_args(y, fit, starts, grad), w, offsets);
}

SEXP gi_vjp_alloc(R_xlen_t n, SEXP want_dw, int huge)
{
  SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
  int k = Rf_asLogical(want_dw) == TRUE ? 2 : 1;
  for (int i = 0; i < k; i++) {
    SEXP d = Rf_allocVector(REALSXP, n);
    SET_VECTOR_ELT(out, i, d);
    if (huge) gi_hint_huge(REAL(d), (size_t) n * sizeof(double));
  }
  UNPROTECT(1);
  return out;
}

SEXP gi_int_vector(const int *p, R_xlen_t n)
{
  SEXP out = Rf_allocVector(INTSXP, n);
  if (n > 0) memcpy(INTEGER(out), p, (size_t) n * sizeof(int));
  return out;
}

SEXP gi_real_vector(const double *p, R_xlen_t n)
{
  SEXP out = Rf_allocVector(REALSXP, n);
  if (n > 0) memcpy(REAL(out), p, (size_t) n * sizeof(double));
  return out;
}

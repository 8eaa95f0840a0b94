/* .Call glue for isotonic distributional regression: the fit (threshold
 * sweep) and the evaluations of predictions. */
#include <string.h>
#include "gpuiso.h"

/* Work units of the sweep between two looks at interrupts: about 0.1 s
 * (a unit, an observation switched on or a block recorded, takes about
 * 1 us on the development machine). */
#define GI_IDR_PIECE ((gi_idx) 1 << 17)

/* The sweep of one call: its arguments, and the sweep itself, which the
 * cleanup frees whether the body returns or jumps (an interrupt, an error,
 * an R allocation that fails). */
typedef struct {
  SEXP xcode, kcode;
  const double *w;
  gi_idx n, m, K;
  gi_idr_sweep *S;
} idr_job;

static SEXP idr_body(void *data)
{
  idr_job *j = (idr_job *) data;
  gi_status r = gi_idr_begin(j->n, INTEGER(j->xcode), INTEGER(j->kcode), j->w,
                             j->m, j->K, &j->S);
  while (r == GI_OK && !gi_idr_done(j->S)) {
    r = gi_idr_step(j->S, GI_IDR_PIECE);
    if (r == GI_OK && !gi_idr_done(j->S) && gi_poll_now()) r = GI_ERR_INTERRUPT;
  }
  if (r == GI_ERR_INTERRUPT || gi_stop_requested()) gi_abort_interrupt();
  if (r != GI_OK) gi_abort("memory", NULL, 0, "Not enough memory for the IDR fit.");

  gi_idr_sweep *S = j->S;
  gi_idx nb = gi_idr_nblocks(S);
  const char *names[] = {"ptr", "start", "value", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SEXP ptr = Rf_allocVector(REALSXP, (R_xlen_t) j->K + 1);
  SET_VECTOR_ELT(out, 0, ptr);
  SEXP start = Rf_allocVector(INTSXP, (R_xlen_t) nb);
  SET_VECTOR_ELT(out, 1, start);
  SEXP value = Rf_allocVector(REALSXP, (R_xlen_t) nb);
  SET_VECTOR_ELT(out, 2, value);
  memcpy(REAL(ptr), gi_idr_ptr(S), ((size_t) j->K + 1) * sizeof(double));
  if (nb > 0) {
    memcpy(INTEGER(start), gi_idr_starts(S), (size_t) nb * sizeof(int));
    memcpy(REAL(value), gi_idr_values(S), (size_t) nb * sizeof(double));
  }
  UNPROTECT(1);
  return out;
}

static void idr_cleanup(void *data, Rboolean jump)
{
  (void) jump;
  idr_job *j = (idr_job *) data;
  gi_idr_free(j->S);
  j->S = NULL;
}

/* xcode, kcode: integer vectors of one length n (0-based x index, 0-based
 * switch-on threshold, K for never); w NULL or double of length n; m, K
 * scalars. Returns list(ptr, start, value). The sweep runs in pieces, with
 * a look at interrupts between them; its memory is freed on every way out
 * (R_UnwindProtect). */
SEXP ffi_idr_fit(SEXP xcode, SEXP kcode, SEXP w, SEXP m, SEXP K)
{
  idr_job j;
  R_xlen_t n = gi_idr_args(xcode, kcode, m, K, &j.m, &j.K);
  j.xcode = xcode;
  j.kcode = kcode;
  j.n = (gi_idx) n;
  j.w = gi_weights_arg(w, n);
  j.S = NULL;
  gi_begin_work();
  SEXP cont = PROTECT(R_MakeUnwindCont());
  SEXP out = R_UnwindProtect(idr_body, &j, idr_cleanup, &j, cont);
  UNPROTECT(1);
  return out;
}

/* The representation of a fit, checked (the R layer builds it). */
static gi_idr_view view_arg(SEXP ptr, SEXP start, SEXP value, SEXP m)
{
  if (TYPEOF(ptr) != REALSXP || TYPEOF(start) != INTSXP ||
      TYPEOF(value) != REALSXP || Rf_xlength(start) != Rf_xlength(value) ||
      Rf_xlength(ptr) < 2)
    gi_internal_error("ptr, start and value must describe an IDR fit");
  gi_idr_view f;
  f.m = (gi_idx) Rf_asReal(m);
  f.K = (gi_idx) (Rf_xlength(ptr) - 1);
  f.ptr = REAL(ptr);
  f.start = INTEGER(start);
  f.value = REAL(value);
  if (f.ptr[f.K] != (double) Rf_xlength(start))
    gi_internal_error("ptr must end at the number of blocks");
  return f;
}

/* Predictions (j: integer 0-based lower index, lam: double weights).
 * paired FALSE: matrix of G at threshold indices kz (integer, -1 for below
 * the first threshold), one row per prediction; TRUE: G at kz[i] for
 * prediction i. */
SEXP ffi_idr_cdf(SEXP ptr, SEXP start, SEXP value, SEXP m, SEXP j, SEXP lam,
                 SEXP kz, SEXP paired)
{
  gi_idr_view f = view_arg(ptr, start, value, m);
  if (TYPEOF(j) != INTSXP || TYPEOF(lam) != REALSXP || TYPEOF(kz) != INTSXP ||
      Rf_xlength(j) != Rf_xlength(lam))
    gi_internal_error("j, lam and kz must be integer, double, integer");
  R_xlen_t np = Rf_xlength(j), nz = Rf_xlength(kz);
  const int *pj = INTEGER(j), *pk = INTEGER(kz);
  const double *pl = REAL(lam);
  SEXP out;
  if (Rf_asLogical(paired) == TRUE) {
    if (nz != np) gi_internal_error("paired kz must match j");
    out = PROTECT(Rf_allocVector(REALSXP, np));
    double *po = REAL(out);
    for (R_xlen_t i = 0; i < np; i++) po[i] = gi_idr_G(&f, pk[i], pj[i], pl[i]);
  } else {
    out = PROTECT(Rf_allocMatrix(REALSXP, (int) np, (int) nz));
    double *po = REAL(out);
    for (R_xlen_t z = 0; z < nz; z++)
      for (R_xlen_t i = 0; i < np; i++)
        po[i + np * z] = gi_idr_G(&f, pk[z], pj[i], pl[i]);
  }
  UNPROTECT(1);
  return out;
}

/* Matrix of quantiles, one row per prediction, one column per alpha. */
SEXP ffi_idr_qpred(SEXP ptr, SEXP start, SEXP value, SEXP m,
                   SEXP thresholds, SEXP j, SEXP lam, SEXP alpha)
{
  gi_idr_view f = view_arg(ptr, start, value, m);
  if (TYPEOF(thresholds) != REALSXP || Rf_xlength(thresholds) != f.K ||
      TYPEOF(j) != INTSXP || TYPEOF(lam) != REALSXP ||
      TYPEOF(alpha) != REALSXP || Rf_xlength(j) != Rf_xlength(lam))
    gi_internal_error("thresholds, j, lam and alpha do not match the fit");
  R_xlen_t np = Rf_xlength(j), nq = Rf_xlength(alpha);
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int) np, (int) nq));
  gi_idr_quantiles(&f, REAL(thresholds), np, INTEGER(j), REAL(lam), nq,
                   REAL(alpha), REAL(out));
  UNPROTECT(1);
  return out;
}

/* CRPS of prediction i at y[i]; kappa (integer) the first threshold index
 * >= y[i], K if none. */
SEXP ffi_idr_crps(SEXP ptr, SEXP start, SEXP value, SEXP m, SEXP thresholds,
                  SEXP j, SEXP lam, SEXP y, SEXP kappa)
{
  gi_idr_view f = view_arg(ptr, start, value, m);
  R_xlen_t np = Rf_xlength(j);
  if (TYPEOF(thresholds) != REALSXP || Rf_xlength(thresholds) != f.K ||
      TYPEOF(j) != INTSXP || TYPEOF(lam) != REALSXP || TYPEOF(y) != REALSXP ||
      TYPEOF(kappa) != INTSXP || Rf_xlength(lam) != np ||
      Rf_xlength(y) != np || Rf_xlength(kappa) != np)
    gi_internal_error("thresholds, j, lam, y and kappa do not match");
  SEXP out = PROTECT(Rf_allocVector(REALSXP, np));
  gi_status r = gi_idr_crps(&f, REAL(thresholds), np, INTEGER(j), REAL(lam),
                            REAL(y), INTEGER(kappa), REAL(out));
  if (r != GI_OK) gi_abort("memory", NULL, 0, "Not enough memory for the CRPS.");
  UNPROTECT(1);
  return out;
}

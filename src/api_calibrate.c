/* .Call glue for calibration's preparation: tied scores pooled in sorted
 * order on the CPU (core/pool.c), or sorted, pooled and fitted on the GPU
 * (cuda/calibrate.cu). The R layer has validated every argument. */
#include "gpuiso.h"
#include "core/gi_memory.h"
#include "cuda/gi_cuda.h"

/* The first n elements of a fresh vector (a copy only when shorter). */
static SEXP head(SEXP x, R_xlen_t n)
{
  return n == Rf_xlength(x) ? x : Rf_xlengthgets(x, n);
}

/* Group sizes (codes 1..ngroups) as problem offsets 0, ..., n. */
static SEXP offsets_of(const int *group, R_xlen_t n, int ngroups)
{
  SEXP off = Rf_allocVector(REALSXP, (R_xlen_t) ngroups + 1);
  gi_group_offsets(group, n, ngroups, REAL(off));
  return off;
}

/* The order of the scores within groups (core/order.c), or NULL when
 * memory runs out: then R's order() sorts them. */
SEXP ffi_order_scores(SEXP scores, SEXP code, SEXP threads)
{
  R_xlen_t n = Rf_xlength(scores);
  if (TYPEOF(scores) != REALSXP || (!Rf_isNull(code) && (TYPEOF(code) != INTSXP ||
                                                         Rf_xlength(code) != n)))
    gi_internal_error("scores must be doubles and code NULL or integers of one length");
  SEXP ord = PROTECT(Rf_allocVector(INTSXP, n));
  gi_begin_work();
  int nomem = gi_order_scores(REAL(scores), Rf_isNull(code) ? NULL : INTEGER(code), n,
                              Rf_asInteger(threads), INTEGER(ord));
  UNPROTECT(1);
  return nomem ? R_NilValue : ord;
}

SEXP ffi_pool_sorted(SEXP scores, SEXP outcomes, SEXP weights, SEXP code,
                     SEXP ngroups, SEXP ord, SEXP want_run_of, SEXP threads)
{
  R_xlen_t n = Rf_xlength(scores);
  if (TYPEOF(scores) != REALSXP || TYPEOF(outcomes) != REALSXP ||
      Rf_xlength(outcomes) != n || Rf_xlength(ord) != n)
    gi_internal_error("scores, outcomes and ord must be doubles of one length");
  const double *w = gi_weights_arg(weights, n);
  const int *cp = Rf_isNull(code) ? NULL : INTEGER(code);
  int ng = Rf_asInteger(ngroups);
  const int *oi = TYPEOF(ord) == INTSXP ? INTEGER(ord) : NULL;
  const double *od = TYPEOF(ord) == REALSXP ? REAL(ord) : NULL;
  if (oi == NULL && od == NULL) gi_internal_error("ord must be an index vector");

  SEXP s = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP v = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP wt = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP g = PROTECT(Rf_allocVector(INTSXP, n));
  SEXP run = PROTECT(Rf_asLogical(want_run_of) == TRUE ? Rf_allocVector(INTSXP, n)
                                                       : R_NilValue);
  /* fresh pages: each costs a fault when first written, the outputs'
   * faults as much as the pass itself at 1e6 scores; huge pages take
   * 512 times fewer */
  gi_hint_huge(REAL(s), (size_t) n * sizeof(double));
  gi_hint_huge(REAL(v), (size_t) n * sizeof(double));
  gi_hint_huge(REAL(wt), (size_t) n * sizeof(double));
  gi_hint_huge(INTEGER(g), (size_t) n * sizeof(int));
  if (!Rf_isNull(run)) gi_hint_huge(INTEGER(run), (size_t) n * sizeof(int));
  gi_idx k = gi_pool_sorted(REAL(scores), REAL(outcomes), w, cp, oi, od, n,
                            Rf_asInteger(threads), REAL(s),
                            REAL(v), REAL(wt), INTEGER(g),
                            Rf_isNull(run) ? NULL : INTEGER(run));
  const char *names[] = {"score", "value", "weight", "group", "offsets", "run_of", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 0, head(s, k));
  SET_VECTOR_ELT(out, 1, head(v, k));
  SET_VECTOR_ELT(out, 2, head(wt, k));
  SET_VECTOR_ELT(out, 3, head(g, k));
  SET_VECTOR_ELT(out, 4, offsets_of(INTEGER(VECTOR_ELT(out, 3)), k, ng));
  SET_VECTOR_ELT(out, 5, run);
  UNPROTECT(6);
  return out;
}

SEXP ffi_gpu_calibrate(SEXP scores, SEXP outcomes, SEXP weights, SEXP code,
                       SEXP ngroups, SEXP threads)
{
  R_xlen_t n = Rf_xlength(scores);
  if (TYPEOF(scores) != REALSXP || TYPEOF(outcomes) != REALSXP ||
      Rf_xlength(outcomes) != n)
    gi_internal_error("scores and outcomes must be doubles of one length");
  const double *w = gi_weights_arg(weights, n);
  int ng = Rf_asInteger(ngroups);
  const int *cp = Rf_isNull(code) ? NULL : INTEGER(code);
  if (cp == NULL) ng = 1;

  SEXP s = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP v = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP wt = PROTECT(Rf_allocVector(REALSXP, n));
  int64_t *off = (int64_t *) R_alloc((size_t) ng + 1, sizeof(int64_t));
  char msg[1024] = "";
  gi_gpu_begin(threads);
  int status = gi_cuda_calibrate_host(REAL(scores), REAL(outcomes), w, cp, (int64_t) n,
                                      ng, REAL(s), REAL(v), REAL(wt), off, msg,
                                      sizeof(msg));
  R_xlen_t k = status == GI_CUDA_OK ? (R_xlen_t) off[ng] : 0;
  SEXP offsets = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t) ng + 1));
  for (int b = 0; b <= ng; b++) REAL(offsets)[b] = status == GI_CUDA_OK ? (double) off[b] : 0.0;
  SEXP sk = PROTECT(head(s, k)), vk = PROTECT(head(v, k)), wk = PROTECT(head(wt, k));
  SEXP out = gi_gpu_result(status, msg,
                           (const char *[]) {"score", "value", "weight", "offsets", ""},
                           (SEXP[]) {sk, vk, wk, offsets});
  UNPROTECT(7);
  return out;
}

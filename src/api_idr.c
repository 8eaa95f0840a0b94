/* .Call glue for isotonic distributional regression: the fit (threshold
 * sweep, on the CPU or on the GPU) and the evaluations of predictions. */
#include "gpuiso.h"
#include "cuda/gi_cuda.h"

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
  SET_VECTOR_ELT(out, 0, gi_real_vector(gi_idr_ptr(S), (R_xlen_t) j->K + 1));
  SET_VECTOR_ELT(out, 1, gi_int_vector(gi_idr_starts(S), (R_xlen_t) nb));
  SET_VECTOR_ELT(out, 2, gi_real_vector(gi_idr_values(S), (R_xlen_t) nb));
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

/* IDR on the device (cuda/idr.cu), with the arguments and result of
 * ffi_idr_fit plus the status (gi_gpu_status()). */
SEXP ffi_gpu_idr(SEXP xcode, SEXP kcode, SEXP w, SEXP m, SEXP K, SEXP threads)
{
  gi_idx mm, KK;
  R_xlen_t n = gi_idr_args(xcode, kcode, m, K, &mm, &KK);
  const double *wp = gi_weights_arg(w, n);
  SEXP ptr = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t) KK + 1));
  char msg[1024] = "";
  int64_t lobs[2] = {0, (int64_t) n}, lm = mm, lK = KK;
  gi_gpu_begin(threads);
  int status = gi_cuda_idr_host(INTEGER(xcode), INTEGER(kcode), wp, 1, lobs, &lm, &lK,
                                REAL(ptr), msg, sizeof(msg));
  R_xlen_t nb = status == GI_CUDA_OK ? (R_xlen_t) REAL(ptr)[(R_xlen_t) KK] : 0;
  const int *s = NULL;
  const double *v = NULL;
  if (nb > 0) gi_cuda_idr_result(&s, &v);
  SEXP start = PROTECT(gi_int_vector(s, nb));
  SEXP value = PROTECT(gi_real_vector(v, nb));
  SEXP out = gi_gpu_result(status, msg, (const char *[]) {"ptr", "start", "value", ""},
                           (SEXP[]) {ptr, start, value});
  UNPROTECT(3);
  return out;
}

/* The representation of a fit, checked (the R layer builds it). */
gi_idr_view gi_idr_view_arg(SEXP ptr, SEXP start, SEXP value, SEXP m)
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
  gi_idr_view f = gi_idr_view_arg(ptr, start, value, m);
  if (TYPEOF(j) != INTSXP || TYPEOF(lam) != REALSXP || TYPEOF(kz) != INTSXP ||
      Rf_xlength(j) != Rf_xlength(lam))
    gi_internal_error("j, lam and kz must be integer, double, integer");
  R_xlen_t np = Rf_xlength(j), nz = Rf_xlength(kz);
  int pair = Rf_asLogical(paired) == TRUE;
  if (pair && nz != np) gi_internal_error("paired kz must match j");
  SEXP out = PROTECT(pair ? Rf_allocVector(REALSXP, np)
                          : Rf_allocMatrix(REALSXP, (int) np, (int) nz));
  gi_idr_cdf(&f, np, INTEGER(j), REAL(lam), nz, INTEGER(kz), pair, REAL(out));
  UNPROTECT(1);
  return out;
}

/* Matrix of quantiles, one row per prediction, one column per alpha. */
SEXP ffi_idr_qpred(SEXP ptr, SEXP start, SEXP value, SEXP m,
                   SEXP thresholds, SEXP j, SEXP lam, SEXP alpha)
{
  gi_idr_view f = gi_idr_view_arg(ptr, start, value, m);
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
  gi_idr_view f = gi_idr_view_arg(ptr, start, value, m);
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


/* IDR batches: one sweep per level, the levels spread over the threads
 * (each sweep is sequential, so a batch of many small fits scales with the
 * threads where one fit cannot). The sweeps live until their blocks are
 * copied into R vectors; the cleanup frees them on every way out. */
typedef struct {
  int L;
  const int *K;
  gi_idr_sweep **S;
} idr_batch;

static void idr_batch_free(void *data)
{
  idr_batch *b = (idr_batch *) data;
  for (int l = 0; l < b->L; l++) gi_idr_free(b->S[l]);
}

static SEXP idr_batch_result(void *data)
{
  idr_batch *b = (idr_batch *) data;
  SEXP out = PROTECT(Rf_allocVector(VECSXP, b->L));
  const char *names[] = {"ptr", "start", "value", ""};
  for (int l = 0; l < b->L; l++) {
    gi_idr_sweep *S = b->S[l];
    gi_idx nb = gi_idr_nblocks(S);
    SEXP one = PROTECT(Rf_mkNamed(VECSXP, names));
    SET_VECTOR_ELT(one, 0, gi_real_vector(gi_idr_ptr(S), (R_xlen_t) b->K[l] + 1));
    SET_VECTOR_ELT(one, 1, gi_int_vector(gi_idr_starts(S), (R_xlen_t) nb));
    SET_VECTOR_ELT(one, 2, gi_real_vector(gi_idr_values(S), (R_xlen_t) nb));
    SET_VECTOR_ELT(out, l, one);
    UNPROTECT(1);
  }
  UNPROTECT(1);
  return out;
}

/* The arguments of a batch, checked: xcode, kcode, w as for ffi_idr_fit(),
 * the observations of level l at off[l] .. off[l + 1] - 1 (xcode and
 * kcode within the level: 0-based indices into its m[l] covariate values
 * and K[l] thresholds). Returns the number of levels. */
static int batch_args(SEXP xcode, SEXP kcode, SEXP off, SEXP m, SEXP K)
{
  if (TYPEOF(xcode) != INTSXP || TYPEOF(kcode) != INTSXP || TYPEOF(off) != INTSXP ||
      TYPEOF(m) != INTSXP || TYPEOF(K) != INTSXP || Rf_xlength(xcode) != Rf_xlength(kcode) ||
      Rf_xlength(m) != Rf_xlength(K) || Rf_xlength(off) != Rf_xlength(m) + 1)
    gi_internal_error("malformed IDR batch arguments");
  R_xlen_t n = Rf_xlength(xcode);
  int L = (int) Rf_xlength(m);
  const int *o = INTEGER(off), *mm = INTEGER(m), *KK = INTEGER(K), *xc = INTEGER(xcode),
            *kc = INTEGER(kcode);
  if (o[0] != 0 || o[L] != n) gi_internal_error("off must run from 0 to n");
  for (int l = 0; l < L; l++) {
    if (o[l + 1] <= o[l] || mm[l] < 1 || KK[l] < 1)
      gi_internal_error("every level needs observations, values and thresholds");
    for (R_xlen_t i = o[l]; i < o[l + 1]; i++)
      if (xc[i] < 0 || xc[i] >= mm[l] || kc[i] < 0 || kc[i] > KK[l])
        gi_internal_error("a covariate or threshold index is out of range");
  }
  return L;
}

/* Arguments as batch_args(). Returns a list of list(ptr, start, value), one
 * per level. */
SEXP ffi_idr_fit_batch(SEXP xcode, SEXP kcode, SEXP w, SEXP off, SEXP m, SEXP K,
                       SEXP threads)
{
  int L = batch_args(xcode, kcode, off, m, K);
  R_xlen_t n = Rf_xlength(xcode);
  const int *o = INTEGER(off), *mm = INTEGER(m), *KK = INTEGER(K), *xc = INTEGER(xcode),
            *kc = INTEGER(kcode);
  const double *wp = gi_weights_arg(w, n);
  idr_batch b = {L, KK, (gi_idr_sweep **) R_alloc((size_t) (L > 0 ? L : 1),
                                                  sizeof(gi_idr_sweep *))};
  for (int l = 0; l < L; l++) b.S[l] = NULL;
  gi_begin_work();
  int nt = gi_threads_cap(Rf_asInteger(threads));
  if (nt > L) nt = L > 0 ? L : 1;
  gi_status status = GI_OK;
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(dynamic, 1)
  for (int l = 0; l < L; l++) {
    gi_status st;
#pragma omp atomic read
    st = status;
    if (st != GI_OK) continue;
    st = gi_idr_begin((gi_idx) (o[l + 1] - o[l]), xc + o[l], kc + o[l],
                      wp ? wp + o[l] : NULL, mm[l], KK[l], &b.S[l]);
    while (st == GI_OK && !gi_idr_done(b.S[l])) {
      st = gi_idr_step(b.S[l], GI_IDR_PIECE);
      if (st == GI_OK && gi_interrupted(GI_IDR_PIECE)) st = GI_ERR_INTERRUPT;
    }
    if (st != GI_OK) {
#pragma omp critical(gi_idr_batch_status)
      if (status == GI_OK) status = st;
    }
  }
  if (status != GI_OK) {
    idr_batch_free(&b);
    if (status == GI_ERR_INTERRUPT || gi_stop_requested()) gi_abort_interrupt();
    gi_abort("memory", NULL, 0, "Not enough memory for the batch of %d IDR fits.", L);
  }
  return R_ExecWithCleanup(idr_batch_result, &b, idr_batch_free, &b);
}

/* The fits of L levels from the device's blocks (gi_cuda_idr_result()),
 * level l's K[l] problems after those of the levels before, ptr the running
 * count of blocks over all: a list of list(ptr, start, value), as
 * ffi_idr_fit_batch() gives. */
SEXP gi_gpu_idr_fits(const double *ptr, int L, const int *K)
{
  R_xlen_t P = 0;
  for (int l = 0; l < L; l++) P += K[l];
  const int *s = NULL;
  const double *v = NULL;
  if (ptr[P] > 0) gi_cuda_idr_result(&s, &v);
  const char *names[] = {"ptr", "start", "value", ""};
  SEXP fits = PROTECT(Rf_allocVector(VECSXP, L));
  R_xlen_t p0 = 0;
  for (int l = 0; l < L; l++) {
    SEXP one = PROTECT(Rf_mkNamed(VECSXP, names));
    SEXP lp = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t) K[l] + 1));
    double b0 = ptr[p0];
    for (R_xlen_t k = 0; k <= K[l]; k++) REAL(lp)[k] = ptr[p0 + k] - b0;
    R_xlen_t nb = (R_xlen_t) (ptr[p0 + K[l]] - b0);
    SET_VECTOR_ELT(one, 0, lp);
    SET_VECTOR_ELT(one, 1, gi_int_vector(s ? s + (R_xlen_t) b0 : NULL, nb));
    SET_VECTOR_ELT(one, 2, gi_real_vector(v ? v + (R_xlen_t) b0 : NULL, nb));
    SET_VECTOR_ELT(fits, l, one);
    UNPROTECT(2);
    p0 += K[l];
  }
  UNPROTECT(1);
  return fits;
}

/* A batch on the device: the problems of all levels are one run of slabs
 * (cuda/idr.cu). Arguments as batch_args(); returns list(fits, status),
 * fits as ffi_idr_fit_batch() gives them (NULL unless the status is
 * "ok"). */
SEXP ffi_gpu_idr_batch(SEXP xcode, SEXP kcode, SEXP w, SEXP off, SEXP m, SEXP K,
                       SEXP threads)
{
  int L = batch_args(xcode, kcode, off, m, K);
  R_xlen_t n = Rf_xlength(xcode);
  const int *o = INTEGER(off), *mm = INTEGER(m), *KK = INTEGER(K);
  const double *wp = gi_weights_arg(w, n);
  int64_t *lobs = (int64_t *) R_alloc((size_t) L + 1, sizeof(int64_t));
  int64_t *lm = (int64_t *) R_alloc((size_t) L + 1, sizeof(int64_t));
  int64_t *lK = (int64_t *) R_alloc((size_t) L + 1, sizeof(int64_t));
  R_xlen_t P = 0;
  for (int l = 0; l <= L; l++) lobs[l] = o[l];
  for (int l = 0; l < L; l++) {
    lm[l] = mm[l];
    lK[l] = KK[l];
    P += KK[l];
  }
  double *ptr = (double *) R_alloc((size_t) P + 1, sizeof(double));
  char msg[1024] = "";
  gi_gpu_begin(threads);
  int status = gi_cuda_idr_host(INTEGER(xcode), INTEGER(kcode), wp, L, lobs, lm, lK, ptr,
                                msg, sizeof(msg));
  SEXP fits = PROTECT(status == GI_CUDA_OK ? gi_gpu_idr_fits(ptr, L, KK) : R_NilValue);
  SEXP out = gi_gpu_result(status, msg, (const char *[]) {"fits", ""}, (SEXP[]) {fits});
  UNPROTECT(1);
  return out;
}

/* The codes of a batch's problems, from the observations sorted by level
 * and covariate (cs: 1-based level codes, xs, ys; the sort keeps ties in
 * their order) and, unless o2 is NULL, the 1-based order o2 of (cs, ys):
 * xcode (0-based index of each observation's value among its level's
 * distinct values), xu (those values, level after level) and m (their
 * number per level); with o2, also kcode, thr and K, the same for y. */
static void level_runs(SEXP cs, SEXP v, SEXP ord, int L, SEXP out, int at)
{
  R_xlen_t n = Rf_xlength(cs);
  SEXP code = Rf_allocVector(INTSXP, n);
  SET_VECTOR_ELT(out, at, code);
  SEXP count = Rf_allocVector(INTSXP, L);
  SET_VECTOR_ELT(out, at + 2, count);
  double *runs = (double *) R_alloc((size_t) (n > 0 ? n : 1), sizeof(double));
  gi_idx r = gi_idr_level_runs((gi_idx) n, INTEGER(cs), REAL(v),
                               Rf_isNull(ord) ? NULL : INTEGER(ord), L, INTEGER(code),
                               INTEGER(count), runs);
  if (r < 0) gi_internal_error("the batch's observations are not sorted by level and value");
  SET_VECTOR_ELT(out, at + 1, gi_real_vector(runs, (R_xlen_t) r));
}

SEXP ffi_idr_batch_codes(SEXP cs, SEXP xs, SEXP ys, SEXP o2, SEXP levels)
{
  R_xlen_t n = Rf_xlength(cs);
  int L = Rf_asInteger(levels);
  if (TYPEOF(cs) != INTSXP || TYPEOF(xs) != REALSXP || TYPEOF(ys) != REALSXP ||
      Rf_xlength(xs) != n || Rf_xlength(ys) != n || L < 1 ||
      (!Rf_isNull(o2) && (TYPEOF(o2) != INTSXP || Rf_xlength(o2) != n)))
    gi_internal_error("malformed IDR batch codes arguments");
  const char *names[] = {"xcode", "xu", "m", "kcode", "thr", "K", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  level_runs(cs, xs, R_NilValue, L, out, 0);
  if (!Rf_isNull(o2)) level_runs(cs, ys, o2, L, out, 3);
  UNPROTECT(1);
  return out;
}

/* .Call glue for the resampled bands of a CORP reliability curve, on the
 * CPU (core/bands.c) or the GPU (cuda/bands.cu), and for the CORP values
 * and the decomposition (core/brier.c). The R layer has validated every
 * argument. */
#include <stdint.h>
#include "gpuiso.h"
#include "core/gi_memory.h"
#include "cuda/gi_cuda.h"

/* The generator's seed from two uniforms of R's RNG (drawn in R, so that
 * set.seed() fixes it). */
static uint64_t seed_arg(SEXP seed)
{
  if (TYPEOF(seed) != REALSXP || Rf_xlength(seed) != 2)
    gi_internal_error("seed must be two doubles");
  const double *s = REAL(seed);
  return ((uint64_t) (s[0] * 4294967296.0) << 32) ^
         (uint64_t) (s[1] * 4294967296.0);
}

/* The counts of the distinct forecasts: whole numbers summing to n. */
static const double *count_arg(SEXP count, R_xlen_t m, R_xlen_t n)
{
  if (TYPEOF(count) != REALSXP || Rf_xlength(count) != m)
    gi_internal_error("count must be a double vector of one count per forecast");
  double total = 0.0;
  for (R_xlen_t j = 0; j < m; j++) total += REAL(count)[j];
  if (total != (double) n) gi_internal_error("the counts must sum to n");
  return REAL(count);
}

/* The band's arguments, checked (the R layer has validated them). */
typedef struct {
  R_xlen_t m, n;
  int B;
  const double *count;
  uint64_t seed;
} band_args;

static band_args bands_arg(SEXP u, SEXP p0, SEXP count, SEXP n, SEXP resamples,
                           SEXP probs, SEXP seed)
{
  band_args a;
  a.m = Rf_xlength(u);
  a.n = (R_xlen_t) Rf_asReal(n);
  a.B = Rf_asInteger(resamples);
  if (TYPEOF(u) != REALSXP || TYPEOF(p0) != REALSXP || Rf_xlength(p0) != a.m ||
      TYPEOF(probs) != REALSXP || Rf_xlength(probs) != 2 || a.B < 1 || a.m < 1 ||
      a.n < a.m)
    gi_internal_error("malformed band arguments");
  a.count = count_arg(count, a.m, a.n);
  a.seed = seed_arg(seed);
  return a;
}

/* list(lower, upper, mcb) for m forecasts and B resamples. */
static SEXP band_result(R_xlen_t m, int B)
{
  const char *names[] = {"lower", "upper", "mcb", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 0, Rf_allocVector(REALSXP, m));
  SET_VECTOR_ELT(out, 1, Rf_allocVector(REALSXP, m));
  SET_VECTOR_ELT(out, 2, Rf_allocVector(REALSXP, B));
  UNPROTECT(1);
  return out;
}

SEXP ffi_corp_bands(SEXP u, SEXP p0, SEXP count, SEXP n, SEXP resamples,
                    SEXP probs, SEXP seed, SEXP threads)
{
  band_args a = bands_arg(u, p0, count, n, resamples, probs, seed);
  SEXP out = PROTECT(band_result(a.m, a.B));
  gi_begin_work();
  gi_status status = gi_corp_bands(REAL(u), REAL(p0), a.count, a.m, a.n, a.B,
                                   REAL(probs)[0], REAL(probs)[1], a.seed,
                                   Rf_asInteger(threads),
                                   REAL(VECTOR_ELT(out, 0)),
                                   REAL(VECTOR_ELT(out, 1)),
                                   REAL(VECTOR_ELT(out, 2)));
  if (status == GI_ERR_NOMEM)
    gi_abort("memory", NULL, 0, "Not enough memory for %d resamples of %lld "
             "forecasts.", a.B, (long long) a.m);
  gi_stop_status(status, 0);
  UNPROTECT(1);
  return out;
}

/* The same with the resampling on the GPU (cuda/bands.cu): the result
 * with its `status` (gi_gpu_result()). */
SEXP ffi_gpu_corp_bands(SEXP u, SEXP p0, SEXP count, SEXP n, SEXP resamples,
                        SEXP probs, SEXP seed, SEXP threads)
{
  band_args a = bands_arg(u, p0, count, n, resamples, probs, seed);
  SEXP b = PROTECT(band_result(a.m, a.B));
  char msg[1024] = "";
  gi_gpu_begin(threads);
  int status = gi_cuda_corp_bands(REAL(u), REAL(p0), a.count, (int64_t) a.m,
                                  (int64_t) a.n, a.B, REAL(probs)[0], REAL(probs)[1],
                                  a.seed, REAL(VECTOR_ELT(b, 0)), REAL(VECTOR_ELT(b, 1)),
                                  REAL(VECTOR_ELT(b, 2)), msg, sizeof(msg));
  SEXP out = gi_gpu_result(status, msg, (const char *[]) {"lower", "upper", "mcb", ""},
                           (SEXP[]) {VECTOR_ELT(b, 0), VECTOR_ELT(b, 1), VECTOR_ELT(b, 2)});
  UNPROTECT(1);
  return out;
}

/* The CORP fit clamped to [0, 1], the CORP values of the forecasts and
 * the decomposition's three mean scores (of the forecasts, of the CORP
 * values, of the mean outcome). */
SEXP ffi_brier_parts(SEXP x, SEXP y, SEXP fit, SEXP run_of, SEXP threads)
{
  R_xlen_t n = Rf_xlength(x);
  if (TYPEOF(x) != REALSXP || TYPEOF(y) != REALSXP || TYPEOF(fit) != REALSXP ||
      TYPEOF(run_of) != INTSXP || Rf_xlength(y) != n || Rf_xlength(run_of) != n || n < 1)
    gi_internal_error("malformed decomposition arguments");
  R_xlen_t m = Rf_xlength(fit);
  const int *r = INTEGER(run_of);
  for (R_xlen_t i = 0; i < n; i++)
    if (r[i] < 1 || r[i] > m) gi_internal_error("run_of out of range");
  const char *names[] = {"fit", "calibrated", "parts", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 0, Rf_allocVector(REALSXP, m));
  SET_VECTOR_ELT(out, 1, Rf_allocVector(REALSXP, n));
  SET_VECTOR_ELT(out, 2, Rf_allocVector(REALSXP, 3));
  gi_hint_huge(REAL(VECTOR_ELT(out, 1)), (size_t) n * sizeof(double));
  gi_brier_parts(REAL(x), REAL(y), REAL(fit), m, r, n, Rf_asInteger(threads),
                 REAL(VECTOR_ELT(out, 0)), REAL(VECTOR_ELT(out, 1)),
                 REAL(VECTOR_ELT(out, 2)));
  UNPROTECT(1);
  return out;
}

/* For the tests: the draws of resample b (0-based), as the bands use
 * them (with `plain`, counted without the buckets). */
SEXP ffi_corp_resample(SEXP p0, SEXP count, SEXP n, SEXP seed, SEXP b, SEXP plain)
{
  R_xlen_t m = Rf_xlength(p0), nn = (R_xlen_t) Rf_asReal(n);
  if (TYPEOF(p0) != REALSXP || nn < m) gi_internal_error("malformed draw arguments");
  const double *cp = count_arg(count, m, nn);
  const char *names[] = {"count", "events", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 0, Rf_allocVector(REALSXP, m));
  SET_VECTOR_ELT(out, 1, Rf_allocVector(REALSXP, m));
  if (gi_corp_resample(REAL(p0), cp, m, nn, seed_arg(seed), (gi_idx) Rf_asReal(b),
                       Rf_asLogical(plain) == TRUE, REAL(VECTOR_ELT(out, 0)),
                       REAL(VECTOR_ELT(out, 1))))
    gi_abort("memory", NULL, 0, "Not enough memory to draw a resample.");
  UNPROTECT(1);
  return out;
}

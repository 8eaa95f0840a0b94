/* .Call glue reporting how the package was built. */
#include <stdio.h>
#include "gpuiso.h"
#include "cuda/gi_cuda.h"

#ifdef GPUISO_HAVE_CONFIG_H
#include "config.h" /* written by configure */
#endif
#ifndef GPUISO_CUDA_COMPILED
#define GPUISO_CUDA_COMPILED 0
#endif
#ifndef GPUISO_CUDA_NOTE
#define GPUISO_CUDA_NOTE "the package was built without configure (CPU only)"
#endif
#ifndef GPUISO_NVCC
#define GPUISO_NVCC ""
#endif
#ifndef GPUISO_NVCC_VERSION
#define GPUISO_NVCC_VERSION ""
#endif

SEXP ffi_build_info(void)
{
  const char *names[] = {"cuda_compiled", "cuda_note", "nvcc",
                         "nvcc_version", "openmp", "max_threads", "procs", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 0, Rf_ScalarLogical(GPUISO_CUDA_COMPILED));
  SET_VECTOR_ELT(out, 1, Rf_mkString(GPUISO_CUDA_NOTE));
  SET_VECTOR_ELT(out, 2, Rf_mkString(GPUISO_NVCC));
  SET_VECTOR_ELT(out, 3, Rf_mkString(GPUISO_NVCC_VERSION));
  SET_VECTOR_ELT(out, 4, Rf_ScalarLogical(gi_have_openmp()));
  SET_VECTOR_ELT(out, 5, Rf_ScalarInteger(gi_threads_cap(1 << 20)));
  SET_VECTOR_ELT(out, 6, Rf_ScalarInteger(gi_procs()));
  UNPROTECT(1);
  return out;
}

/* Test-only: the engine takes the threads it is asked for, beyond the
 * processors (TRUE), or no longer (FALSE); returns the previous setting. */
SEXP ffi_test_threads_uncapped(SEXP on)
{
  return Rf_ScalarLogical(gi_threads_test_uncapped(Rf_asLogical(on) == TRUE));
}

/* Test-only: a fit of at least n values that its threads fault in first is
 * written past the cache (split.c; n < 1: the default); returns the
 * previous setting. */
SEXP ffi_test_stream_min(SEXP n)
{
  return Rf_ScalarReal((double) gi_split_test_stream_min((gi_idx) Rf_asReal(n)));
}

/* Test-only: an IDR fit on a partial order splits a range of thresholds
 * for an idle thread when `k` are left (see idr_poset.c); returns the
 * previous setting. */
SEXP ffi_test_idr_po_min_split(SEXP k)
{
  return Rf_ScalarInteger((int) gi_idr_po_test_min_split((gi_idx) Rf_asInteger(k)));
}

/* What the CUDA runtime sees now: list(count, reason, runtime, driver,
 * name, memory, cc), the last three one entry per device. count is -1 when
 * the runtime cannot answer (no driver, no device, not compiled), with the
 * reason. Nothing is cached, and nothing is started on a device. Without
 * `detail`, only the count and the reason (no device properties: asking
 * for them costs about a millisecond, too much before every call). */
SEXP ffi_gpu_probe(SEXP detail)
{
  char msg[256] = "";
  int n = gi_cuda_device_count(msg, sizeof(msg));
  int m = n > 0 && Rf_asLogical(detail) == TRUE ? n : 0;
  const char *names[] = {"count", "reason", "runtime", "driver", "name",
                         "memory", "cc", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SEXP nm = PROTECT(Rf_allocVector(STRSXP, m));
  SEXP mem = PROTECT(Rf_allocVector(REALSXP, m));
  SEXP cc = PROTECT(Rf_allocVector(STRSXP, m));
  for (int d = 0; d < m; d++) {
    char name[256] = "", ccs[32] = "", why[256] = "";
    double bytes = NA_REAL;
    int major = 0, minor = 0;
    if (gi_cuda_device_props(d, name, sizeof(name), &bytes, &major, &minor,
                             why, sizeof(why)) == 0) {
      snprintf(ccs, sizeof(ccs), "%d.%d", major, minor);
      SET_STRING_ELT(nm, d, Rf_mkChar(name));
      SET_STRING_ELT(cc, d, Rf_mkChar(ccs));
    } else {
      SET_STRING_ELT(nm, d, NA_STRING);
      SET_STRING_ELT(cc, d, NA_STRING);
      bytes = NA_REAL;
    }
    REAL(mem)[d] = bytes;
  }
  SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(n));
  SET_VECTOR_ELT(out, 1, Rf_mkString(msg));
  SET_VECTOR_ELT(out, 2, Rf_ScalarInteger(gi_cuda_runtime_version()));
  SET_VECTOR_ELT(out, 3, Rf_ScalarInteger(gi_cuda_driver_version()));
  SET_VECTOR_ELT(out, 4, nm);
  SET_VECTOR_ELT(out, 5, mem);
  SET_VECTOR_ELT(out, 6, cc);
  UNPROTECT(4);
  return out;
}

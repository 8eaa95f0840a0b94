/* .Call glue reporting how the package was built. */
#include "gpuiso.h"

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
                         "nvcc_version", "openmp", "max_threads", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 0, Rf_ScalarLogical(GPUISO_CUDA_COMPILED));
  SET_VECTOR_ELT(out, 1, Rf_mkString(GPUISO_CUDA_NOTE));
  SET_VECTOR_ELT(out, 2, Rf_mkString(GPUISO_NVCC));
  SET_VECTOR_ELT(out, 3, Rf_mkString(GPUISO_NVCC_VERSION));
  SET_VECTOR_ELT(out, 4, Rf_ScalarLogical(gi_have_openmp()));
  SET_VECTOR_ELT(out, 5, Rf_ScalarInteger(gi_threads_cap(1 << 20)));
  UNPROTECT(1);
  return out;
}

/* The table of .Call entry points: the package's only registration site. */
#include <R_ext/Rdynload.h>
#include <R_ext/Visibility.h>
#include "gpuiso.h"
#include "core/gi_memory.h"

#define CALLDEF(name, n) {#name, (DL_FUNC) &name, n}

static const R_CallMethodDef call_entries[] = {
  CALLDEF(ffi_isotonic_fit, 6),
  CALLDEF(ffi_isotonic_quick, 10),
  CALLDEF(ffi_isotonic_vjp, 8),
  CALLDEF(ffi_first_invalid, 4),
  CALLDEF(ffi_first_weightless, 2),
  CALLDEF(ffi_build_info, 0),
  CALLDEF(ffi_stop_status, 2),
  CALLDEF(ffi_gpu_probe, 1),
  CALLDEF(ffi_gpu_fit, 7),
  CALLDEF(ffi_gpu_vjp, 9),
  CALLDEF(ffi_gpu_bench, 6),
  CALLDEF(ffi_gpu_bench_vjp, 6),
  CALLDEF(ffi_gpu_memory, 0),
  CALLDEF(ffi_gpu_release, 0),
  CALLDEF(ffi_gpu_test_full_device, 1),
  CALLDEF(ffi_gpu_test_idr_plane_wave, 1),
  CALLDEF(ffi_test_threads_uncapped, 1),
  CALLDEF(ffi_test_idr_po_min_split, 1),
  CALLDEF(ffi_test_stream_min, 1),
  CALLDEF(ffi_gpu_last_times, 0),
  CALLDEF(ffi_gpu_set_piece, 1),
  CALLDEF(ffi_as_single, 1),
  CALLDEF(ffi_first_outside_unit, 1),
  CALLDEF(ffi_sums_exact, 1),
  CALLDEF(ffi_pool_sorted, 8),
  CALLDEF(ffi_order_scores, 3),
  CALLDEF(ffi_gpu_calibrate, 6),
  CALLDEF(ffi_gpu_idr, 6),
  CALLDEF(ffi_idr_fit, 5),
  CALLDEF(ffi_idr_fit_batch, 7),
  CALLDEF(ffi_gpu_idr_batch, 7),
  CALLDEF(ffi_idr_batch_codes, 5),
  CALLDEF(ffi_idr_cdf, 8),
  CALLDEF(ffi_idr_qpred, 8),
  CALLDEF(ffi_idr_crps, 9),
  CALLDEF(ffi_interpolate, 6),
  CALLDEF(ffi_locate, 4),
  CALLDEF(ffi_isoreg_fit, 7),
  CALLDEF(ffi_gpu_isoreg, 5),
  CALLDEF(ffi_poset_fit, 7),
  CALLDEF(ffi_poset_comp_edges, 3),
  CALLDEF(ffi_idr_po_fit, 9),
  CALLDEF(ffi_idr_po_predict, 8),
  CALLDEF(ffi_gpu_idr_plane, 8),
  CALLDEF(ffi_partial_sums, 1),
  CALLDEF(ffi_corp_bands, 8),
  CALLDEF(ffi_gpu_corp_bands, 8),
  CALLDEF(ffi_corp_resample, 6),
  CALLDEF(ffi_brier_parts, 5),
  {NULL, NULL, 0}
};

void attribute_visible R_init_gpuiso(DllInfo *dll)
{
  R_registerRoutines(dll, NULL, call_entries, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
  gi_interrupts_init();
}

/* The scratch memory the engine keeps between calls (gi_scratch_take()). */
void attribute_visible R_unload_gpuiso(DllInfo *dll)
{
  (void) dll;
  gi_scratch_release();
}

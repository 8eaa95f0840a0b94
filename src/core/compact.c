/*
 * Zero weights around an engine that takes positive weights only (the GPU
 * engine): such points are left out of the batch, and the fit of what is
 * left is spread back, a zero-weight point taking the fit of the next
 * positive-weight point of its problem (of the last one when none
 * follows), as the CPU's pass gives it. A block that such a run precedes
 * starts at the run's first point. The caller finds zero weights first
 * (gi_any_zero()) and provides every buffer.
 */
#include "gi_core.h"

gi_idx gi_compact_zero(const double *y, const double *w, const gi_idx *offsets,
                       gi_idx nprob, double *cy, double *cw, gi_idx *coff)
{
  gi_idx k = 0;
  coff[0] = 0;
  for (gi_idx b = 0; b < nprob; b++) {
    for (gi_idx i = offsets[b]; i < offsets[b + 1]; i++) {
      if (w[i] > 0.0) {
        cy[k] = y[i];
        cw[k] = w[i];
        k++;
      }
    }
    coff[b + 1] = k;
  }
  return k;
}

void gi_expand_zero(const double *w, const gi_idx *offsets, gi_idx nprob,
                    const gi_idx *coff, const double *cfit,
                    const unsigned char *cstarts, double *fit,
                    unsigned char *starts)
{
  for (gi_idx b = 0; b < nprob; b++) {
    /* run: the first point of the zero-weight run before point j, or -1 */
    gi_idx j = coff[b], jend = coff[b + 1], run = -1;
    for (gi_idx i = offsets[b]; i < offsets[b + 1]; i++) {
      if (w[i] > 0.0) {
        fit[i] = cfit[j];
        if (starts != NULL) {
          starts[i] = run >= 0 ? 0 : cstarts[j];
          if (run >= 0) starts[run] = cstarts[j];
        }
        run = -1;
        j++;
      } else {
        fit[i] = cfit[j < jend ? j : jend - 1];
        if (starts != NULL) starts[i] = 0;
        if (run < 0 && j < jend) run = i;
      }
    }
  }
}

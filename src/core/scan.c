/* Linear scans that the R layer uses to report the first bad input. */
#include <math.h>
#include "gi_core.h"

gi_idx gi_first_invalid(const double *x, gi_idx n, int nonneg)
{
  for (gi_idx i = 0; i < n; i++) {
    if (!isfinite(x[i]) || (nonneg && x[i] < 0)) return i;
  }
  return -1;
}

gi_idx gi_first_weightless(const double *w, const gi_idx *offsets,
                           gi_idx nprob)
{
  for (gi_idx b = 0; b < nprob; b++) {
    gi_idx i = offsets[b], end = offsets[b + 1];
    if (i == end) continue; /* an empty problem has nothing to fit */
    while (i < end && w[i] == 0) i++;
    if (i == end) return b;
  }
  return -1;
}

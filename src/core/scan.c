/* Linear scans that the R layer uses to report the first bad input. */
#include <math.h>
#include "dd.h"
#include "gi_big.h" /* gi_low_bit() */
#include "gi_core.h"
#include "gi_omp.h"

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

int gi_in_window(const double *x, gi_idx n, int nthreads)
{
  if (x == NULL) return 1;
  int out = 0;
  int nt = n < 1048576 ? 1 : gi_threads_cap(nthreads);
#pragma omp parallel for num_threads(nt) if (nt > 1) reduction(|:out)
  for (gi_idx i = 0; i < n; i++) out |= outside_window(x[i]);
  return !out;
}

int gi_sums_exact(const double *w, gi_idx n)
{
  int low = 0, any = 0;
  double total = 0.0;
  for (gi_idx i = 0; i < n; i++) {
    if (!(w[i] > 0.0)) continue;
    int b = gi_low_bit(w[i]);
    if (!any || b < low) low = b;
    any = 1;
    total += w[i];
  }
  return !any || total < ldexp(1.0, 52 + low);
}

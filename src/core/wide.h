/* The wide-range pass of the isotonic fit (wide.c), for pava.c. */
#ifndef GPUISO_WIDE_H
#define GPUISO_WIDE_H

#include "gi_core.h"

/* One problem of n elements, as gi_isotonic_batch() solves it, for any
 * finite values and weights (w NULL: unit weights). */
gi_status gi_pava_wide(const double *y, const double *w, gi_idx n,
                       int decreasing, double *fit, unsigned char *starts);

#endif

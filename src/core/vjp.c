/*
 * Backward pass of the isotonic fit.
 *
 * The fit is constant on blocks, each the weighted mean of y over its
 * block, so a block's outputs depend only on its own inputs: with G and W
 * the sums of the upstream gradient and of the weights over the block,
 * d/dy_i = w_i G / W and d/dw_i = (y_i - z_i) G / W. The blocks come from
 * the forward pass's start flags, so no tolerance on equal values is used.
 */
#include "gi_core.h"
#include "gi_omp.h"

static void vjp_one(const double *y, const double *w, const double *fit,
                    const unsigned char *starts, const double *grad,
                    gi_idx n, double *dy, double *dw)
{
  gi_idx j = 0;
  while (j < n) {
    gi_idx a = j;
    double G = 0.0, W = 0.0;
    do {
      G += grad[j];
      W += w == NULL ? 1.0 : w[j];
      j++;
    } while (j < n && !starts[j]);
    double r = G / W;
    for (gi_idx i = a; i < j; i++) {
      dy[i] = (w == NULL ? 1.0 : w[i]) * r;
      if (dw != NULL) dw[i] = (y[i] - fit[i]) * r;
    }
  }
}

void gi_isotonic_vjp_batch(const double *y, const double *w,
                           const double *fit, const unsigned char *starts,
                           const double *grad, const gi_idx *offsets,
                           gi_idx nprob, int nthreads,
                           double *dy, double *dw)
{
  int nt = nprob < 2 ? 1 : gi_threads_cap(nthreads);
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(dynamic, 16)
  for (gi_idx b = 0; b < nprob; b++) {
    gi_idx a = offsets[b];
    vjp_one(y + a, w == NULL ? NULL : w + a, fit + a, starts + a, grad + a,
            offsets[b + 1] - a, dy + a, dw == NULL ? NULL : dw + a);
  }
}

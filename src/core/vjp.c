/*
 * Backward pass of the isotonic fit.
 *
 * The fit is constant on blocks, each the weighted mean of y over its
 * block, so a block's outputs depend only on its own inputs: with G and W
 * the sums of the upstream gradient and of the weights over the block,
 * d/dy_i = w_i G / W and d/dw_i = (y_i - z_i) G / W. The blocks come from
 * the forward pass's start flags, so no tolerance on equal values is used.
 *
 * G and W are summed in double-double. A block whose gradients, weights,
 * values or fit leave [2^-200, 2^200] (pava.c's window, where nothing
 * over- or underflows) is redone in wide-exponent arithmetic (dd.h), so
 * that subnormal weights or gradients of 1e308 give the exact derivative,
 * and a derivative beyond the range of doubles is an error, not Inf.
 */
#include "dd.h"
#include "gi_core.h"
#include "gi_omp.h"

/* (gh + gl) / (wh + wl), rounded about once (wh > 0). */
static inline double dd_quotient(double gh, double gl, double wh, double wl)
{
  double q = gh / wh, p = q * wh;
  double r = (((gh - p) - two_prod_err(q, wh, p)) + gl) - q * wl;
  return q + r / wh;
}

/* One block [a, b) in wide arithmetic. Returns 1 if a derivative is
 * beyond the range of doubles. */
static int vjp_block_wide(const double *y, const double *w, const double *fit,
                          const double *grad, gi_idx a, gi_idx b, double *dy,
                          double *dw)
{
  xdd G = xdd_zero, W = xdd_zero;
  for (gi_idx i = a; i < b; i++) {
    G = xdd_add(G, xdd_of(grad[i]));
    W = xdd_add(W, xdd_of(w == NULL ? 1.0 : w[i]));
  }
  xdd r = xdd_div(G, W);
  int over = 0;
  for (gi_idx i = a; i < b; i++) {
    dy[i] = xdd_to_double(xdd_mul(xdd_of(w == NULL ? 1.0 : w[i]), r));
    over |= !isfinite(dy[i]);
    if (dw != NULL) {
      xdd d = xdd_add(xdd_of(y[i]), xdd_neg(xdd_of(fit[i])));
      dw[i] = xdd_to_double(xdd_mul(d, r));
      over |= !isfinite(dw[i]);
    }
  }
  return over;
}

/* One problem; returns GI_ERR_OVERFLOW if a derivative is beyond the
 * range of doubles. */
static gi_status vjp_one(const double *y, const double *w, const double *fit,
                         const unsigned char *starts, const double *grad,
                         gi_idx n, double *dy, double *dw)
{
  gi_idx j = 0;
  int over = 0;
  while (j < n) {
    gi_idx a = j;
    double gh = 0.0, gl = 0.0, wh = 0.0, wl = 0.0, e;
    int outside = 0;
    do {
      double wj = w == NULL ? 1.0 : w[j];
      outside |= outside_window(grad[j]) | outside_window(wj) |
                 outside_window(y[j]) | outside_window(fit[j]);
      two_sum(gh, grad[j], &gh, &e);
      gl += e;
      two_sum(wh, wj, &wh, &e);
      wl += e;
      j++;
    } while (j < n && !starts[j]);
    if (outside) {
      over |= vjp_block_wide(y, w, fit, grad, a, j, dy, dw);
      continue;
    }
    double r = dd_quotient(gh, gl, wh, wl);
    for (gi_idx i = a; i < j; i++) {
      dy[i] = (w == NULL ? 1.0 : w[i]) * r;
      if (dw != NULL) dw[i] = (y[i] - fit[i]) * r;
    }
  }
  return over ? GI_ERR_OVERFLOW : GI_OK;
}

gi_status gi_isotonic_vjp_batch(const double *y, const double *w,
                                const double *fit, const unsigned char *starts,
                                const double *grad, const gi_idx *offsets,
                                gi_idx nprob, int nthreads, double *dy,
                                double *dw, gi_idx *bad)
{
  int nt = nprob < 2 ? 1 : gi_threads_cap(nthreads);
  gi_idx first_bad = nprob;
  gi_status status = GI_OK;
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(dynamic, 16)
  for (gi_idx b = 0; b < nprob; b++) {
    gi_idx a = offsets[b], len = offsets[b + 1] - a;
    gi_status r = gi_interrupted(len + 64) ? GI_ERR_INTERRUPT : GI_OK;
    if (r == GI_OK)
      r = vjp_one(y + a, w == NULL ? NULL : w + a, fit + a, starts + a,
                  grad + a, len, dy + a, dw == NULL ? NULL : dw + a);
    if (r != GI_OK) {
#pragma omp critical(gpuiso_vjp_status)
      if (b < first_bad) {
        first_bad = b;
        status = r;
      }
    }
  }
  *bad = status == GI_OK ? -1 : first_bad;
  return status;
}

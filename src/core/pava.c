/*
 * Pool adjacent violators: one left-to-right pass with a stack of blocks,
 * then one right-to-left pass that writes the fit.
 *
 * Every element is pushed once and popped at most once, so a problem of n
 * elements costs O(n) whatever its shape. Per block the stack keeps its
 * first element and its sums of w*y and of w as unevaluated pairs (hi, lo),
 * added with an error-free two-sum (and, for weights, an error-free
 * product), so a block of millions of elements carries its sums to about
 * twice the working precision.
 *
 * Blocks are compared by cross multiplication of the hi parts, which keeps
 * the chain of dependent operations from one merge to the next short: that
 * chain, not the arithmetic, bounds the speed of the pass. The lo parts
 * are accumulated beside it, off that chain. When the two sides agree to
 * 30 bits, more than the lo parts can change unless a block's sum nearly
 * cancels, the full sums decide in double-double arithmetic (a filtered
 * predicate): equal means are pooled and near-ties are decided as exactly
 * as the sums allow. Each block's mean is formed once, from its full sums.
 *
 * Decreasing fits negate the values on the way in and out (exact). The
 * pass stays exact while every nonzero |y| and weight lies in [2^-200,
 * 2^200]: then no product, sum or cross product over- or underflows. The
 * pass notes any element outside; such a problem is redone on values and
 * weights scaled by powers of two (exact) when each spans at most 2^300,
 * and by the wide-exponent pass of wide.c otherwise. So the answer depends
 * on none of these tricks, for any finite input.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dd.h"
#include "gi_core.h"
#include "gi_omp.h"
#include "wide.h"

/* The stack of blocks. The hi parts of the sums of w*y live in the output
 * array (block k at fit[k], k never beyond the element being read), the
 * rest here, one array per field: a fresh page costs more to touch than
 * the pass spends on it, so the scratch is kept small. Unit weights need
 * no weight arrays: a block's weight is its length. */
typedef struct {
  double *slo, *whi, *wlo;
  gi_idx *start;
  gi_idx cap;
  int overflow; /* a sum or a near-tie test left the range of doubles */
  int outside;  /* some nonzero |y| or weight is outside the safe window */
} workspace;

static int grow(void **p, gi_idx cap, size_t size)
{
  void *q = realloc(*p, (size_t) cap * size);
  if (q == NULL) return 1;
  *p = q;
  return 0;
}

/* Room for `need` blocks, grown geometrically (amortised O(1) a push). */
static int reserve(workspace *ws, gi_idx need, int weighted)
{
  if (need <= ws->cap) return 0;
  gi_idx cap = ws->cap < 1024 ? 1024 : ws->cap;
  while (cap < need) cap *= 2;
  if (grow((void **) &ws->slo, cap, sizeof(double)) ||
      grow((void **) &ws->start, cap, sizeof(gi_idx)) ||
      (weighted && (grow((void **) &ws->whi, cap, sizeof(double)) ||
                    grow((void **) &ws->wlo, cap, sizeof(double)))))
    return 1;
  ws->cap = cap;
  return 0;
}

static void workspace_free(workspace *ws)
{
  free(ws->slo); free(ws->whi); free(ws->wlo); free(ws->start);
  memset(ws, 0, sizeof(*ws));
}

/* Is Sa / Wa >= Sb / Wb, for sums given as pairs (hi + lo)? The sign of
 * Sa Wb - Sb Wa in double-double arithmetic; a difference below 2^-80 of
 * the products is a tie (and ties pool). -1 when that arithmetic
 * overflows (operands beyond about 2^996). */
static int sums_geq(double sah, double sal, double wah, double wal,
                    double sbh, double sbl, double wbh, double wbl)
{
  double p = sah * wbh, q = sbh * wah;
  double pe = two_prod_err(sah, wbh, p) + (sah * wbl + sal * wbh);
  double qe = two_prod_err(sbh, wah, q) + (sbh * wal + sbl * wah);
  double d, de;
  two_sum(p, -q, &d, &de);
  d += de + (pe - qe);
  if (isnan(d)) return -1;
  return d >= -0x1p-80 * (fabs(p) + fabs(q));
}

/* The stack pass over y (scaled by sy; weights by sw, w NULL for unit
 * weights), with the hi parts of the block sums in shi[]. Returns the
 * number of blocks (0 when every weight is zero), -1 when memory runs
 * out, -2 when interrupted. Sets ws->outside if an element lies outside
 * the window of dd.h (the result is then not to be used). Decisions are
 * taken on the hi parts of the sums, by cross multiplication, unless they
 * agree to 30 bits; then the full sums decide
 * (sums_geq()). A point of zero weight decides nothing: it joins the block
 * of the next positive-weight point (`pend` remembers where such points
 * began); trailing ones stay in the last block. */
static GI_ALWAYS_INLINE gi_idx stack_pass(const double *y, const double *w,
                                         gi_idx n, double sy, double sw,
                                         double *shi, workspace *ws)
{
  const int weighted = w != NULL;
  gi_idx k = 0, pend = -1;
  double ts = 0.0, tw = 0.0; /* hi parts of the top block's sums */
  double *slo = ws->slo, *whi = ws->whi, *wlo = ws->wlo;
  gi_idx *start = ws->start;
  int outside = 0;
  /* in pieces, between which the master thread may ask about interrupts */
  for (gi_idx i0 = 0; i0 < n; i0 += 0x10000) {
    gi_idx i1 = n - i0 > 0x10000 ? i0 + 0x10000 : n;
    if (i0 > 0 && gi_interrupted(0x10000)) return -2;
    for (gi_idx i = i0; i < i1; i++) {
      double v = sy * y[i], chi = v, clo = 0.0, cwh = 1.0, cwl = 0.0;
      gi_idx a = i;
      outside |= outside_window(v);
      if (weighted) {
        double wi = sw * w[i];
        outside |= outside_window(wi);
        if (wi == 0.0) {
          if (pend < 0) pend = i;
          continue;
        }
        if (pend >= 0) a = pend;
        pend = -1;
        chi = wi * v;
        clo = two_prod_err(wi, v, chi);
        cwh = wi;
      }
      while (k > 0) {
        /* pool while the top's mean is >= the current one's: ts/tw >= chi/cwh */
        double p = chi * tw, q = ts * cwh, d = q - p;
        /* the lo parts are below 2^-30 of the hi parts unless a block's sum
         * nearly cancels; closer calls go to the full sums */
        double tol = 0x1p-30 * (fabs(p) + fabs(q));
        if (d < -tol) break;
        if (d <= tol) {
          /* too close for the hi parts alone: decide from the full sums */
          double twl = weighted ? wlo[k - 1] : 0.0;
          int geq = sums_geq(ts, slo[k - 1], tw, twl, chi, clo, cwh, cwl);
          if (geq < 0) {
            ws->overflow = 1; /* not inside the window: wide.c redoes it */
            geq = d >= 0;
          }
          if (!geq) break;
        }
        double e;
        --k;
        two_sum(shi[k], chi, &chi, &e);
        clo += slo[k] + e;
        a = start[k];
        if (weighted) {
          two_sum(whi[k], cwh, &cwh, &e);
          cwl += wlo[k] + e;
        } else {
          cwh = (double) (i + 1 - a);
        }
        if (k > 0) {
          ts = shi[k - 1];
          tw = weighted ? whi[k - 1] : (double) (a - start[k - 1]);
        }
      }
      if (k == ws->cap) {
        if (reserve(ws, k + 1, weighted)) return -1;
        slo = ws->slo; whi = ws->whi; wlo = ws->wlo; start = ws->start;
      }
      shi[k] = chi; slo[k] = clo; start[k] = a;
      if (weighted) {
        whi[k] = cwh;
        wlo[k] = cwl;
      }
      k++;
      ts = chi;
      tw = cwh;
    }
  }
  ws->outside = outside;
  return k;
}

static gi_idx stack_pass_unit(const double *y, gi_idx n, double sy,
                              double *shi, workspace *ws)
{
  return stack_pass(y, NULL, n, sy, 1.0, shi, ws);
}

static gi_idx stack_pass_weighted(const double *y, const double *w, gi_idx n,
                                  double sy, double sw, double *shi,
                                  workspace *ws)
{
  return stack_pass(y, w, n, sy, sw, shi, ws);
}

/* The blocks of a problem of n elements: k of them, block b starting at
 * start[b], with sums (hi[b] + lo[b]) of w*y and, for weighted fits,
 * (whi[b] + wlo[b]) of w; unit-weight blocks weigh their length. */
typedef struct {
  double *hi, *lo, *whi, *wlo;
  gi_idx *start;
  gi_idx k, n;
} blocks;

/* (sh + sl) / (wh + wl), rounded about once: the quotient of the hi parts
 * corrected by its residual, formed with an error-free product. A block of
 * one unit-weight element is its value. Non-finite if a sum is. */
static inline double block_mean(double sh, double sl, double wh, double wl)
{
  double m = sh / wh;
  if (sl == 0.0 && wl == 0.0 && wh == 1.0) return m;
  double p = m * wh, pe = two_prod_err(m, wh, p);
  double r = (((sh - p) - pe) + sl) - m * wl;
  double c = m + r / (wh + wl);
  return isfinite(c) ? c : (sh + sl) / (wh + wl);
}

/* Spread the block means over their blocks, right to left: block b's sums
 * sit at index b <= start[b], so a block is read before anything is
 * written over it. Returns -1 if a sum is not finite. */
static int spread(const blocks *B, double *fit, double back,
                  unsigned char *starts)
{
  gi_idx end = B->n;
  double total = 0.0, next = INFINITY;
  for (gi_idx j = B->k - 1; j >= 0; j--) {
    gi_idx a = B->start[j];
    double wt = B->whi != NULL ? B->whi[j] : (double) (end - a);
    double m = block_mean(B->hi[j], B->lo[j], wt,
                          B->whi != NULL ? B->wlo[j] : 0.0);
    total += m * 0.0; /* stays 0 unless a mean is not finite */
    /* the means are in order; their rounding must not step down */
    m = m < next ? m : next;
    next = m;
    m *= back;
    for (gi_idx i = a; i < end; i++) fit[i] = m;
    end = a;
  }
  if (!isfinite(total)) return -1;
  if (starts != NULL) {
    memset(starts, 0, (size_t) B->n);
    for (gi_idx j = 0; j < B->k; j++) starts[B->start[j]] = 1;
  }
  return 0;
}

/* The binary exponents of the largest and the smallest nonzero |x|
 * (ilogb); *lo > *hi when every x is zero. */
static void exponent_range(const double *x, gi_idx n, int *lo, int *hi)
{
  double mx = 0.0, mn = INFINITY;
  for (gi_idx i = 0; i < n; i++) {
    double a = fabs(x[i]);
    mx = a > mx ? a : mx;
    mn = a < mn && a != 0.0 ? a : mn;
  }
  *hi = mx > 0.0 ? ilogb(mx) : 0;
  *lo = mx > 0.0 ? ilogb(mn) : 1;
}

/* A power of two that brings the exponents [lo, hi] around 0, or 0 when
 * they span more than 2^300 (the wide pass must solve it). */
static double centring_scale(int lo, int hi)
{
  if (lo > hi) return 1.0;
  if (hi - lo > 300) return 0.0;
  return ldexp(1.0, -(lo + (hi - lo) / 2));
}

static gi_status solve_one(const double *y, const double *w, gi_idx n,
                           int decreasing, double *fit,
                           unsigned char *starts, workspace *ws)
{
  if (n == 0) return GI_OK;
  double sign = decreasing ? -1.0 : 1.0, sy = sign, sw = 1.0;
  if (reserve(ws, n < 4096 ? n : 4096, w != NULL)) return GI_ERR_NOMEM;
  for (int attempt = 0; attempt < 2; attempt++) {
    ws->overflow = 0;
    gi_idx k = w == NULL ? stack_pass_unit(y, n, sy, fit, ws)
                         : stack_pass_weighted(y, w, n, sy, sw, fit, ws);
    if (k == -1) return GI_ERR_NOMEM;
    if (k == -2) return GI_ERR_INTERRUPT;
    if (!ws->outside) {
      if (k == 0) return GI_ERR_ZERO_WEIGHT;
      blocks B = {fit, ws->slo, w == NULL ? NULL : ws->whi,
                  w == NULL ? NULL : ws->wlo, ws->start, k, n};
      /* inside the window nothing overflows; the check only guards it */
      if (spread(&B, fit, 1.0 / sy, starts) == 0 && !ws->overflow)
        return GI_OK;
      break;
    }
    if (attempt > 0) break;
    /* Outside the window: scale values and weights by powers of two. */
    int ylo, yhi, wlo = 0, whi = 0;
    exponent_range(y, n, &ylo, &yhi);
    if (w != NULL) exponent_range(w, n, &wlo, &whi);
    double cy = centring_scale(ylo, yhi), cw = centring_scale(wlo, whi);
    if (cy == 0.0 || cw == 0.0) break;
    sy = sign * cy;
    sw = cw;
  }
  return gi_pava_wide(y, w, n, decreasing, fit, starts);
}

/* Problem b of a batch. */
static gi_status solve_problem(const double *y, const double *w,
                               const gi_idx *offsets, gi_idx b,
                               int decreasing, double *fit,
                               unsigned char *starts, workspace *ws)
{
  gi_idx a = offsets[b], n = offsets[b + 1] - a;
  return solve_one(y + a, w == NULL ? NULL : w + a, n, decreasing, fit + a,
                   starts == NULL ? NULL : starts + a, ws);
}

gi_status gi_isotonic_batch(const double *y, const double *w,
                            const gi_idx *offsets, gi_idx nprob,
                            int decreasing, int nthreads,
                            double *fit, unsigned char *starts, gi_idx *bad)
{
  gi_status status = GI_OK;
  gi_idx first_bad = nprob;
  /* Threads pay off only on batches with enough work to share. */
  int nt = nprob < 2 || offsets[nprob] - offsets[0] < 65536
               ? 1 : gi_threads_cap(nthreads);
  /* Chunks of problems small enough to balance ragged batches. */
  gi_idx chunk = nprob / ((gi_idx) nt * 16);
  if (chunk < 1) chunk = 1;
  if (chunk > 64) chunk = 64;

  if (nt == 1) {
    /* no parallel region at all: it costs more than a short problem */
    workspace ws;
    memset(&ws, 0, sizeof(ws));
    for (gi_idx b = 0; b < nprob && status == GI_OK; b++) {
      status = solve_problem(y, w, offsets, b, decreasing, fit, starts, &ws);
      if (status == GI_OK && gi_interrupted(offsets[b + 1] - offsets[b] + 64))
        status = GI_ERR_INTERRUPT;
      first_bad = b;
    }
    workspace_free(&ws);
  } else {
#pragma omp parallel num_threads(nt)
    {
      gi_status mine = GI_OK;
      gi_idx my_bad = nprob;
      workspace ws;
      memset(&ws, 0, sizeof(ws));
#pragma omp for schedule(dynamic, chunk)
      for (gi_idx b = 0; b < nprob; b++) {
        if (mine != GI_OK) continue;
        gi_status r = solve_problem(y, w, offsets, b, decreasing, fit, starts,
                                    &ws);
        /* the master thread asks R; the others see its answer */
        if (r == GI_OK && gi_interrupted(offsets[b + 1] - offsets[b] + 64))
          r = GI_ERR_INTERRUPT;
        if (r != GI_OK) {
          mine = r;
          my_bad = b;
        }
      }
      workspace_free(&ws);
#pragma omp critical(gpuiso_status)
      if (my_bad < first_bad) {
        first_bad = my_bad;
        status = mine;
      }
    }
  }
  *bad = status == GI_OK ? -1 : first_bad;
  return status;
}

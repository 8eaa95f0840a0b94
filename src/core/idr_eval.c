/*
 * Evaluation of an IDR fit: point lookups, quantiles and the CRPS.
 *
 * The fit at threshold k is a list of blocks (start, value) sorted by
 * start, so F_k(j) is a binary search over that threshold's starts. A
 * prediction interpolates two neighbouring fitted points:
 * G_k = F_k(j) + lam (F_k(j + 1) - F_k(j)); written this way G_k is exactly
 * 1 where both are.
 *
 * The CRPS of the step CDF (0 below t_0, G_k on [t_k, t_{k+1}), 1 from
 * t_{K-1} on) at y, with d_k = t_{k+1} - t_k and kappa the first k with
 * t_k >= y, splits into
 *   sum_{k < K-1} d_k G_k^2                                    (a)
 *   + sum_{kappa <= k < K-1} d_k (1 - 2 G_k)                   (b)
 *   + (t_kappa - y)(1 - 2 G_{kappa-1})  when t_{kappa-1} < y < t_kappa
 *   + (t_0 - y) when y < t_0,  + (y - t_{K-1}) when y > t_{K-1}.
 * (a) is (1-lam)^2 A(j) + 2 lam (1-lam) C(j) + lam^2 A(j+1) with
 * A(j) = sum_k d_k F_k(j)^2 and C(j) = sum_k d_k F_k(j) F_k(j+1), both for
 * all j from difference arrays over the blocks. (b) needs
 * T(j, kappa) = sum_{k >= kappa} d_k F_k(j): the thresholds are added from
 * the last down into a Fenwick tree over j (F_k as the prefix sums of its
 * jumps, one point update per block), and each query is answered when its
 * kappa is reached. O((blocks + queries) log m) in all.
 *
 * Range: where the thresholds and observations spread over more than
 * DBL_MAX / 16 (differences t_{k+1} - t_k, and the CRPS itself, could
 * overflow), the whole computation runs on them times 2^-4, exact but for
 * subnormal values (negligible beside that spread), and the results are
 * scaled back: +Inf where the CRPS exceeds DBL_MAX, which the caller
 * reports. A CRPS is never negative: rounding below 0 gives 0.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include "gi_core.h"

double gi_idr_F(const gi_idr_view *f, gi_idx k, gi_idx j)
{
  gi_idx lo = (gi_idx) f->ptr[k], hi = (gi_idx) f->ptr[k + 1] - 1;
  /* the last block with start <= j; start[lo] is 0 */
  while (lo < hi) {
    gi_idx mid = lo + (hi - lo + 1) / 2;
    if (f->start[mid] <= j) lo = mid; else hi = mid - 1;
  }
  return f->value[lo];
}

double gi_idr_G(const gi_idr_view *f, gi_idx k, gi_idx j, double lam)
{
  if (k < 0) return 0.0;
  double a = gi_idr_F(f, k, j);
  if (lam == 0.0) return a;
  return a + lam * (gi_idr_F(f, k, j + 1) - a);
}

void gi_idr_cdf(const gi_idr_view *f, gi_idx npred, const int *j,
                const double *lam, gi_idx nk, const int *k, int paired,
                double *out)
{
  if (paired) {
    for (gi_idx i = 0; i < npred; i++) out[i] = gi_idr_G(f, k[i], j[i], lam[i]);
    return;
  }
  for (gi_idx z = 0; z < nk; z++)
    for (gi_idx i = 0; i < npred; i++)
      out[i + npred * z] = gi_idr_G(f, k[z], j[i], lam[i]);
}

void gi_idr_quantiles(const gi_idr_view *f, const double *thresholds,
                      gi_idx npred, const int *j, const double *lam,
                      gi_idx nq, const double *alpha, double *out)
{
  for (gi_idx i = 0; i < npred; i++) {
    for (gi_idx q = 0; q < nq; q++) {
      double a = alpha[q];
      gi_idx lo = 0, hi = f->K - 1; /* G_{K-1} = 1 */
      while (lo < hi) {
        gi_idx mid = lo + (hi - lo) / 2;
        double g = gi_idr_G(f, mid, j[i], lam[i]);
        if (a > 0.0 ? g >= a : g > 0.0) hi = mid; else lo = mid + 1;
      }
      out[i + npred * q] = thresholds[lo];
    }
  }
}

static void fenwick_add(double *tree, gi_idx m, gi_idx pos, double v)
{
  for (gi_idx i = pos + 1; i <= m; i += i & -i) tree[i] += v;
}

static double fenwick_sum(const double *tree, gi_idx pos)
{
  double s = 0.0;
  for (gi_idx i = pos + 1; i > 0; i -= i & -i) s += tree[i];
  return s;
}

gi_status gi_idr_crps(const gi_idr_view *f, const double *t,
                      gi_idx npred, const int *j, const double *lam,
                      const double *y, const int *kappa, double *out)
{
  gi_idx m = f->m, K = f->K;
  double *A = (double *) calloc((size_t) m + 1, sizeof(double));
  double *P = (double *) calloc((size_t) m + 1, sizeof(double));
  double *tree = (double *) calloc((size_t) m + 1, sizeof(double));
  gi_idx *cnt = (gi_idx *) calloc((size_t) K + 2, sizeof(gi_idx));
  gi_idx *order = (gi_idx *) malloc((size_t) (npred > 0 ? npred : 1) * sizeof(gi_idx));
  if (!A || !P || !tree || !cnt || !order) {
    free(A); free(P); free(tree); free(cnt); free(order);
    return GI_ERR_NOMEM;
  }

  /* the scale: 1, or 2^-4 where the spread is near the range's end */
  double lo = t[0], hi = t[K - 1];
  for (gi_idx i = 0; i < npred; i++) {
    if (y[i] < lo) lo = y[i];
    if (y[i] > hi) hi = y[i];
  }
  const double sc = hi * 0.0625 - lo * 0.0625 > DBL_MAX / 256 ? 0.0625 : 1.0;
#define TS(k) (t[k] * sc)

  /* A as a difference array, P the corrections that make C from A */
  for (gi_idx k = 0; k + 1 < K; k++) {
    double d = TS(k + 1) - TS(k), prev = 0.0;
    gi_idx lo = (gi_idx) f->ptr[k], hi = (gi_idx) f->ptr[k + 1];
    for (gi_idx b = lo; b < hi; b++) {
      double v = f->value[b];
      A[f->start[b]] += d * (v * v - prev * prev);
      if (b + 1 < hi) {
        gi_idx e = (gi_idx) f->start[b + 1] - 1;
        P[e] += d * (v * f->value[b + 1] - v * v);
      }
      prev = v;
    }
  }
  for (gi_idx i = 1; i < m; i++) A[i] += A[i - 1];

  /* (a), the partial interval and the tails; (b) below */
  for (gi_idx i = 0; i < npred; i++) {
    gi_idx ji = j[i], ka = kappa[i];
    double l = lam[i], yi = y[i] * sc;
    double s = A[ji];
    if (l != 0.0) {
      double Cj = A[ji] + P[ji];
      s = (1 - l) * (1 - l) * A[ji] + 2 * l * (1 - l) * Cj + l * l * A[ji + 1];
    }
    if (ka >= 1 && ka <= K - 1 && yi < TS(ka)) {
      s += (TS(ka) - yi) * (1 - 2 * gi_idr_G(f, ka - 1, ji, l));
    }
    if (ka == 0 && yi < TS(0)) s += TS(0) - yi;
    if (ka == K) s += yi - TS(K - 1);
    out[i] = s;
  }

  /* queries grouped by kappa (counting sort) */
  for (gi_idx i = 0; i < npred; i++) cnt[kappa[i] + 1]++;
  for (gi_idx k = 0; k <= K; k++) cnt[k + 1] += cnt[k];
  for (gi_idx i = 0; i < npred; i++) order[cnt[kappa[i]]++] = i;
  /* now cnt[k] is the end of group k, cnt[k-1] (or 0) its start */
  for (gi_idx k = K - 2; k >= 0; k--) {
    double d = TS(k + 1) - TS(k), prev = 0.0;
    gi_idx lo = (gi_idx) f->ptr[k], hi = (gi_idx) f->ptr[k + 1];
    for (gi_idx b = lo; b < hi; b++) {
      double v = f->value[b];
      fenwick_add(tree, m, f->start[b], d * (v - prev));
      prev = v;
    }
    gi_idx q0 = k > 0 ? cnt[k - 1] : 0, q1 = cnt[k];
    double tail = TS(K - 1) - TS(k);
    for (gi_idx q = q0; q < q1; q++) {
      gi_idx i = order[q], ji = j[i];
      double l = lam[i], T = fenwick_sum(tree, ji);
      if (l != 0.0) T += l * (fenwick_sum(tree, ji + 1) - T);
      out[i] += tail - 2 * T;
    }
  }

#undef TS
  for (gi_idx i = 0; i < npred; i++) {
    double v = out[i] / sc; /* exact, or +Inf beyond DBL_MAX */
    out[i] = v < 0.0 ? 0.0 : v;
  }
  free(A); free(P); free(tree); free(cnt); free(order);
  return GI_OK;
}

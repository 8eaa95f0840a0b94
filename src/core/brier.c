/*
 * The mean Brier scores of a CORP diagram's decomposition in one pass over
 * the forecasts (reliability diagrams): of the forecasts, of their CORP
 * values, and of the constant forecast of the mean outcome. Sums are
 * compensated (Neumaier), so they do not drift over millions of terms.
 */
#include <stdlib.h>
#include "gi_core.h"
#include "dd.h"
#include "gi_omp.h"

/* s + v, with the rounding error gathered in *c. */
static inline double add_comp(double s, double v, double *c)
{
  double t, e;
  two_sum(s, v, &t, &e);
  *c += e;
  return t;
}

/* Sums are taken over fixed pieces of BRIER_PIECE forecasts, on any
 * number of threads, and the pieces' sums then in order: the same result
 * on every number. */
#define BRIER_PIECE 65536

typedef struct {
  double s, c;
} comp_sum;

/* A piece's compensated sum added to a running one. */
static inline void add_piece(comp_sum *a, comp_sum p)
{
  a->s = add_comp(a->s, p.s, &a->c);
  a->c += p.c;
}

/* Piece q's sums of the squared errors of x and of the CORP values, and
 * of the outcomes, into p[0..2]; its CORP values into cal. */
static void first_pieces(const double *x, const double *y, const double *fit,
                         const int *run_of, gi_idx n, gi_idx q, double *cal, comp_sum *p)
{
  comp_sum s = {0.0, 0.0}, sc = {0.0, 0.0}, sy = {0.0, 0.0};
  gi_idx e = (q + 1) * BRIER_PIECE < n ? (q + 1) * BRIER_PIECE : n;
  for (gi_idx i = q * BRIER_PIECE; i < e; i++) {
    double f = fit[run_of[i] - 1], d = x[i] - y[i], dc = f - y[i];
    cal[i] = f;
    s.s = add_comp(s.s, d * d, &s.c);
    sc.s = add_comp(sc.s, dc * dc, &sc.c);
    sy.s = add_comp(sy.s, y[i], &sy.c);
  }
  p[0] = s;
  p[1] = sc;
  p[2] = sy;
}

static comp_sum spread_piece(const double *y, gi_idx n, gi_idx q, double ybar)
{
  comp_sum sr = {0.0, 0.0};
  gi_idx e = (q + 1) * BRIER_PIECE < n ? (q + 1) * BRIER_PIECE : n;
  for (gi_idx i = q * BRIER_PIECE; i < e; i++) {
    double d = ybar - y[i];
    sr.s = add_comp(sr.s, d * d, &sr.c);
  }
  return sr;
}

void gi_brier_parts(const double *x, const double *y, const double *fit0, gi_idx m,
                    const int *run_of, gi_idx n, int nthreads, double *fit, double *cal,
                    double *out)
{
  /* the fit in [0, 1] (means of outcomes in [0, 1] but for rounding) */
  for (gi_idx j = 0; j < m; j++) fit[j] = fit0[j] < 0.0 ? 0.0 : fit0[j] > 1.0 ? 1.0 : fit0[j];
  gi_idx np = (n + BRIER_PIECE - 1) / BRIER_PIECE;
  int nt = np < 2 ? 1 : gi_threads_cap(nthreads);
  /* the pieces' sums, kept to be added in order (without the memory, one
   * piece at a time: the same sums) */
  comp_sum *ps = nt > 1 ? malloc((size_t) np * 4 * sizeof(comp_sum)) : NULL;
  comp_sum S = {0.0, 0.0}, SC = {0.0, 0.0}, SY = {0.0, 0.0}, SR = {0.0, 0.0}, one[4];
  if (ps != NULL) {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (gi_idx q = 0; q < np; q++) first_pieces(x, y, fit, run_of, n, q, cal, ps + 4 * q);
  }
  for (gi_idx q = 0; q < np; q++) {
    comp_sum *p = ps != NULL ? ps + 4 * q : one;
    if (ps == NULL) first_pieces(x, y, fit, run_of, n, q, cal, p);
    add_piece(&S, p[0]);
    add_piece(&SC, p[1]);
    add_piece(&SY, p[2]);
  }
  double ybar = (SY.s + SY.c) / (double) n;
  if (ps != NULL) {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (gi_idx q = 0; q < np; q++) ps[4 * q + 3] = spread_piece(y, n, q, ybar);
  }
  for (gi_idx q = 0; q < np; q++)
    add_piece(&SR, ps != NULL ? ps[4 * q + 3] : spread_piece(y, n, q, ybar));
  free(ps);
  out[0] = (S.s + S.c) / (double) n;
  out[1] = (SC.s + SC.c) / (double) n;
  out[2] = (SR.s + SR.c) / (double) n;
}

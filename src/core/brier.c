/*
 * The mean Brier scores of a CORP diagram's decomposition in one pass over
 * the forecasts (reliability diagrams): of the forecasts, of their CORP
 * values, and of the constant forecast of the mean outcome. Sums are
 * compensated (Neumaier), so they do not drift over millions of terms.
 */
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
#define ROUND 64 /* pieces summed in parallel between two ordered additions */

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
  /* the pieces' sums, ROUND pieces at a time, added in order */
  comp_sum S = {0.0, 0.0}, SC = {0.0, 0.0}, SY = {0.0, 0.0}, SR = {0.0, 0.0}, ps[ROUND][3];
  for (gi_idx q0 = 0; q0 < np; q0 += ROUND) {
    gi_idx q1 = q0 + ROUND < np ? q0 + ROUND : np;
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
    for (gi_idx q = q0; q < q1; q++) first_pieces(x, y, fit, run_of, n, q, cal, ps[q - q0]);
    for (gi_idx q = q0; q < q1; q++) {
      add_piece(&S, ps[q - q0][0]);
      add_piece(&SC, ps[q - q0][1]);
      add_piece(&SY, ps[q - q0][2]);
    }
  }
  double ybar = (SY.s + SY.c) / (double) n;
  for (gi_idx q0 = 0; q0 < np; q0 += ROUND) {
    gi_idx q1 = q0 + ROUND < np ? q0 + ROUND : np;
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
    for (gi_idx q = q0; q < q1; q++) ps[q - q0][0] = spread_piece(y, n, q, ybar);
    for (gi_idx q = q0; q < q1; q++) add_piece(&SR, ps[q - q0][0]);
  }
  out[0] = (S.s + S.c) / (double) n;
  out[1] = (SC.s + SC.c) / (double) n;
  out[2] = (SR.s + SR.c) / (double) n;
}

/*
 * Resampled bands of a CORP reliability curve (Dimitriadis, Gneiting and
 * Jordan 2021), as reliabilitydiag's "resampling" method defines them:
 * the n forecast-outcome pairs are drawn with replacement, each drawn
 * pair gets a new outcome, Bernoulli with the probability p0 of its
 * forecast (the forecast itself for consistency bands, its CORP value for
 * confidence bands), the CORP curve of the resample is fitted, read at
 * every distinct forecast by linear interpolation between the drawn ones
 * (nothing outside their range), and the band at a forecast is a pair of
 * quantiles of those values across the resamples.
 *
 * A resample is fitted on its distinct forecasts: forecast j drawn c_j
 * times with e_j events is one point of value e_j / c_j and weight c_j
 * (tied forecasts pool, as CORP pools them), so B resamples are one batch
 * of B problems of m points for the engine, undrawn points weighing zero.
 *
 * The draws come from a counter-based generator (SplitMix64's output
 * function of seed + counter): draw k of resample b uses counters
 * 2 (b n + k) and 2 (b n + k) + 1, so a band depends on the seed alone,
 * not on the threads or the order of the work. The quantiles are R's
 * type 7, from the few smallest and largest values kept per forecast as
 * the resamples come (the memory is O(m) whatever B).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dd.h"
#include "gi_core.h"
#include "gi_omp.h"

/* Uniform on [0, 1) with 53 random bits: counter ctr of the stream `seed`. */
static inline double rand_u01(uint64_t seed, uint64_t ctr)
{
  uint64_t z = seed + (ctr + 1) * UINT64_C(0x9E3779B97F4A7C15);
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  z ^= z >> 31;
  return (double) (z >> 11) * 0x1p-53;
}

/* The distinct forecast of sorted pair k: jof[k], or k itself when every
 * forecast is distinct (jof NULL). */
static inline gi_idx point_of(const int *jof, gi_idx k)
{
  return jof == NULL ? k : (gi_idx) jof[k];
}

/* The forecast of each pair in sorted order (pair k at forecast jof[k]),
 * from the counts of the m forecasts; NULL when every count is 1 (pair
 * k is forecast k) or memory runs out (*nomem set). */
static int *pairs_of(const double *count, gi_idx m, gi_idx n, int *nomem)
{
  *nomem = 0;
  if (m == n) return NULL;
  int *jof = malloc((size_t) n * sizeof(int));
  if (jof == NULL) {
    *nomem = 1;
    return NULL;
  }
  gi_idx k = 0;
  for (gi_idx j = 0; j < m; j++)
    for (gi_idx c = (gi_idx) count[j]; c > 0 && k < n; c--) jof[k++] = (int) j;
  return jof;
}

/* Pairs are drawn uniformly from [0, n), which scatters the counts over
 * memory: an access missed the caches and the TLB for nearly every draw.
 * So the draws are first sorted into buckets of 2^BUCKET consecutive
 * pairs, and each bucket then touches a few kilobytes. The counts are
 * whole numbers, so the order of the additions changes nothing. */
#define BUCKET 13

static gi_idx draw_pair(uint64_t seed, uint64_t ctr, gi_idx n)
{
  gi_idx s = (gi_idx) (rand_u01(seed, ctr) * (double) n);
  return s < n ? s : n - 1; /* u * n may round up to n */
}

/* Resample b's draws into count and events; 1 when memory runs out. */
static void plain_draws(const double *p0, const int *jof, gi_idx n,
                        uint64_t seed, uint64_t c0, double *count,
                        double *events)
{
  for (gi_idx k = 0; k < n; k++) {
    gi_idx j = point_of(jof, draw_pair(seed, c0 + 2 * (uint64_t) k, n));
    count[j] += 1.0;
    events[j] += rand_u01(seed, c0 + 2 * (uint64_t) k + 1) < p0[j];
  }
}

static int resample(const double *p0, const int *jof, gi_idx m, gi_idx n,
                    uint64_t seed, gi_idx b, int plain, double *count,
                    double *events)
{
  memset(count, 0, (size_t) m * sizeof(double));
  memset(events, 0, (size_t) m * sizeof(double));
  uint64_t c0 = 2 * (uint64_t) b * (uint64_t) n;
  gi_idx width = (gi_idx) 1 << BUCKET;
  if (plain || n > (gi_idx) UINT32_MAX || n <= 4 * width) {
    /* small: the counts stay in the caches; huge: beyond a slot */
    plain_draws(p0, jof, n, seed, c0, count, events);
    return 0;
  }
  /* A bucket receives Binomial(n, width / n) draws, width on average: room
   * for 8 standard deviations more (a bucket that overflows all the same
   * sends the resample to the plain loop, which counts the same). */
  gi_idx nb = (n + width - 1) >> BUCKET;
  gi_idx cap = width + 8 * (gi_idx) sqrt((double) width) + 32;
  gi_idx *fill = calloc((size_t) nb, sizeof(gi_idx));
  uint64_t *slot = malloc((size_t) nb * (size_t) cap * sizeof(uint64_t));
  if (fill == NULL || slot == NULL) {
    free(fill);
    free(slot);
    return 1;
  }
  int overflow = 0;
  for (gi_idx k = 0; k < n && !overflow; k++) {
    gi_idx s = draw_pair(seed, c0 + 2 * (uint64_t) k, n), q = s >> BUCKET;
    if (fill[q] == cap) overflow = 1;
    else slot[q * cap + fill[q]++] = (uint64_t) s << 32 | (uint64_t) k;
  }
  if (overflow) {
    plain_draws(p0, jof, n, seed, c0, count, events);
  } else {
    for (gi_idx q = 0; q < nb; q++)
      for (const uint64_t *t = slot + q * cap, *e = t + fill[q]; t < e; t++) {
        gi_idx s = (gi_idx) (*t >> 32), k = (gi_idx) (*t & UINT32_MAX);
        gi_idx j = point_of(jof, s);
        count[j] += 1.0;
        events[j] += rand_u01(seed, c0 + 2 * (uint64_t) k + 1) < p0[j];
      }
  }
  free(fill);
  free(slot);
  return 0;
}

int gi_corp_resample(const double *p0, const double *pairs, gi_idx m,
                     gi_idx n, uint64_t seed, gi_idx b, int plain,
                     double *count, double *events)
{
  int nomem;
  int *jof = pairs_of(pairs, m, n, &nomem);
  if (nomem) return 1;
  int r = resample(p0, jof, m, n, seed, b, plain, count, events);
  free(jof);
  return r;
}

/* A resample's drawn forecasts, in place: the L forecasts drawn (their
 * indices into idx, their counts and events moved to the front of count
 * and events, their event rates into value). Returns L. */
static gi_idx compact_drawn(double *count, double *events, gi_idx m,
                            int *idx, double *value)
{
  gi_idx L = 0;
  for (gi_idx j = 0; j < m; j++) {
    if (count[j] == 0.0) continue;
    idx[L] = (int) j;
    count[L] = count[j];
    events[L] = events[j];
    value[L] = events[j] / count[j];
    L++;
  }
  return L;
}

/* The fit f of a resample's L drawn forecasts (idx, their counts c and
 * events e) read at every forecast into out: a drawn one keeps its fit,
 * one between drawn ones is interpolated linearly in u (as
 * stats::approx() does), one outside them is NaN. Returns the resample's
 * MCB: the mean Brier score of its forecasts less that of its CORP fit,
 * over its n draws. The difference is summed, not the two scores: a drawn
 * forecast u fitted v with e events in c draws adds
 * e (1-u)^2 + (c-e) u^2 - e (1-v)^2 - (c-e) v^2 = (u - v) (c (u + v) - 2 e),
 * terms far smaller than the scores, whose difference (the MCB, often
 * 10^-4 of them) would keep only a few digits at 10^6 forecasts; the sum
 * is compensated, so that the GPU's (in another order) agrees with it. */
static double read_resample(const double *u, const int *idx, const double *c,
                            const double *e, double *f, gi_idx L, gi_idx m,
                            gi_idx n, double *out)
{
  double s = 0.0, cs = 0.0;
  gi_idx j = -1;
  for (gi_idx p = 0; p < L; p++) {
    gi_idx ja = j;
    j = idx[p];
    double v = f[p] < 0.0 ? 0.0 : f[p] > 1.0 ? 1.0 : f[p], t, err;
    f[p] = v;
    two_sum(s, (u[j] - v) * (c[p] * (u[j] + v) - 2.0 * e[p]), &t, &err);
    s = t;
    cs += err;
    if (p == 0) {
      for (gi_idx i = 0; i < j; i++) out[i] = NAN;
    } else {
      double fa = f[p - 1], ua = u[ja];
      for (gi_idx i = ja + 1; i < j; i++)
        out[i] = fa + (v - fa) * ((u[i] - ua) / (u[j] - ua));
    }
    out[j] = v;
  }
  for (gi_idx i = j + 1; i < m; i++) out[i] = NAN;
  return (s + cs) / (double) n;
}

/* Per forecast, the kl smallest values seen (ascending) and the kh
 * largest (descending), and how many were seen. */
typedef struct {
  double *lo, *hi;
  int *seen;
  int kl, kh;
} order_stats;

static void keep(order_stats *S, gi_idx j, double v)
{
  int n = S->seen[j]++;
  double *a = S->lo + (size_t) j * S->kl;
  int len = n < S->kl ? n : S->kl;
  if (len < S->kl || v < a[len - 1]) {
    int i = len < S->kl ? len : len - 1;
    for (; i > 0 && a[i - 1] > v; i--) a[i] = a[i - 1];
    a[i] = v;
  }
  a = S->hi + (size_t) j * S->kh;
  len = n < S->kh ? n : S->kh;
  if (len < S->kh || v > a[len - 1]) {
    int i = len < S->kh ? len : len - 1;
    for (; i > 0 && a[i - 1] < v; i--) a[i] = a[i - 1];
    a[i] = v;
  }
}

/* The order statistic r (1-based, ascending) of the values seen at a
 * forecast, from whichever end keeps it. */
static double order_stat(const order_stats *S, gi_idx j, int r)
{
  int n = S->seen[j];
  if (r <= S->kl) return S->lo[(size_t) j * S->kl + r - 1];
  return S->hi[(size_t) j * S->kh + (n - r)];
}

/* R's type-7 quantile at prob p of the values seen at forecast j. */
static double quantile7(const order_stats *S, gi_idx j, double p)
{
  int n = S->seen[j];
  if (n == 0) return NAN;
  double index = 1.0 + (double) (n - 1) * p;
  int lo = (int) floor(index), hi = (int) ceil(index);
  double qs = order_stat(S, j, lo);
  if (index > lo) {
    double xh = order_stat(S, j, hi);
    if (xh != qs) {
      double h = index - lo;
      qs = (1.0 - h) * qs + h * xh;
    }
  }
  return qs;
}

void gi_band_ends(int B, double plo, double phi, int *kl, int *kh)
{
  *kl = 1;
  *kh = 1;
  for (int n = 1; n <= B; n++) {
    int l = (int) ceil(1.0 + (double) (n - 1) * plo);
    int h = n - (int) floor(1.0 + (double) (n - 1) * phi) + 1;
    if (l > *kl) *kl = l;
    if (h > *kh) *kh = h;
  }
  if (*kl > B) *kl = B;
  if (*kh > B) *kh = B;
}

gi_status gi_corp_bands(const double *u, const double *p0,
                        const double *pairs, gi_idx m, gi_idx n, int B, double plo, double phi,
                        uint64_t seed, int nthreads, double *lower,
                        double *upper, double *mcb)
{
  int nt = gi_threads_cap(nthreads);
  /* resamples fitted G at a time: a batch of about 2^22 points or more */
  gi_idx G = ((gi_idx) 1 << 22) / (m > 0 ? m : 1);
  if (G < nt) G = nt;
  if (G > B) G = B;
  if (G < 1) G = 1;
  order_stats S;
  gi_band_ends(B, plo, phi, &S.kl, &S.kh);
  size_t mg = (size_t) m * (size_t) G;
  double *cnt = malloc(mg * sizeof(double)), *ev = malloc(mg * sizeof(double));
  double *val = malloc(mg * sizeof(double)), *fit = malloc(mg * sizeof(double));
  int *idx = malloc(mg * sizeof(int));
  gi_idx *off = malloc(((size_t) G + 1) * sizeof(gi_idx));
  gi_idx *len = malloc((size_t) G * sizeof(gi_idx));
  S.lo = malloc((size_t) m * S.kl * sizeof(double));
  S.hi = malloc((size_t) m * S.kh * sizeof(double));
  S.seen = calloc((size_t) m, sizeof(int));
  gi_status status = GI_OK;
  int nomem, failed = 0;
  int *jof = pairs_of(pairs, m, n, &nomem);
  if (nomem || !cnt || !ev || !val || !fit || !idx || !off || !len || !S.lo ||
      !S.hi || !S.seen) {
    status = GI_ERR_NOMEM;
    goto done;
  }
  for (gi_idx b0 = 0; b0 < B && status == GI_OK; b0 += G) {
    gi_idx g = B - b0 < G ? B - b0 : G;
    /* the draws; each resample's undrawn forecasts (weight zero) are left
     * out of its problem, so the batch holds only drawn ones */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1 && g > 1)
    for (gi_idx r = 0; r < g; r++) {
      size_t o = (size_t) r * m;
      if (resample(p0, jof, m, n, seed, b0 + r, 0, cnt + o, ev + o)) {
#pragma omp atomic write
        failed = 1;
        continue;
      }
      len[r] = compact_drawn(cnt + o, ev + o, m, idx + o, val + o);
    }
    if (failed) {
      status = GI_ERR_NOMEM;
      break;
    }
    /* the problems end to end (each moves left, over nothing it needs) */
    off[0] = 0;
    for (gi_idx r = 0; r < g; r++) {
      off[r + 1] = off[r] + len[r];
      if (r > 0) {
        memmove(val + off[r], val + (size_t) r * m, (size_t) len[r] * sizeof(double));
        memmove(cnt + off[r], cnt + (size_t) r * m, (size_t) len[r] * sizeof(double));
      }
    }
    gi_idx bad;
    status = gi_isotonic_batch(val, cnt, off, g, 0, nt, fit, NULL, &bad);
    if (status != GI_OK) break;
    /* each resample read at every forecast, into its row of val */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1 && g > 1)
    for (gi_idx r = 0; r < g; r++) {
      size_t o = (size_t) r * m;
      double d = read_resample(u, idx + o, cnt + off[r], ev + o, fit + off[r], len[r], m, n,
                               val + o);
      if (mcb != NULL) mcb[b0 + r] = d;
    }
    /* the order statistics, each thread a range of forecasts */
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && m > 4096)
    for (gi_idx j = 0; j < m; j++)
      for (gi_idx r = 0; r < g; r++) {
        double v = val[(size_t) r * m + j];
        if (!isnan(v)) keep(&S, j, v);
      }
    if (gi_interrupted((int64_t) g * m * 4)) status = GI_ERR_INTERRUPT;
  }
  if (status == GI_OK)
    for (gi_idx j = 0; j < m; j++) {
      lower[j] = quantile7(&S, j, plo);
      upper[j] = quantile7(&S, j, phi);
    }
done:
  free(cnt); free(ev); free(val); free(fit); free(idx); free(off); free(len);
  free(S.lo); free(S.hi); free(S.seen); free(jof);
  return status;
}

/*
 * gpuiso CUDA engine: the resampled bands of a CORP reliability curve
 * (core/bands.c defines them) with the resampling on the device. Only the
 * distinct forecasts, their counts and outcome probabilities go up; only
 * the two band bounds and each resample's miscalibration come down.
 *
 * The resamples are done G at a time. Each draw is one thread: the same
 * counter-based generator and counters as the CPU (so the same resamples),
 * its pair's forecast counted by a 64-bit atomic add of
 * (1 << 32 | event) into its resample's slot of that forecast (whole
 * numbers: the order of the adds changes nothing). A scan of the drawn
 * slots lays the G problems end to end over their drawn forecasts (event
 * rate, count), the solver fits them, and one thread per forecast reads
 * each resample at its forecast (its fit, or the interpolation between
 * the drawn neighbours, with the CPU's operations in the CPU's order, no
 * fused multiply-adds) into the few smallest and largest values the
 * type-7 quantiles need. So the band equals the CPU's up to the rounding
 * of the fits; the miscalibrations are sums in another order, equal to
 * the CPU's up to rounding.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <math_constants.h>
#include <cub/cub.cuh>
#include "engine.cuh"
#include "gi_cuda.h"

/* SplitMix64's output of counter ctr of the stream `seed` (as bands.c). */
__device__ __forceinline__ double band_u01(uint64_t seed, uint64_t ctr)
{
  uint64_t z = seed + (ctr + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double) (z >> 11) * 0x1p-53;
}

/* The forecast of each sorted pair: the last j with start[j] <= k. */
__global__ void band_pairs(const int32_t *start, int64_t m, int64_t n, int32_t *jof)
{
  int64_t k = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  int64_t lo = 0, hi = m - 1;
  while (lo < hi) {
    int64_t mid = (lo + hi + 1) >> 1;
    if (start[mid] <= k) lo = mid; else hi = mid - 1;
  }
  jof[k] = (int32_t) lo;
}

/* Draw k of resample b0 + r, for the g n draws of the group. */
__global__ void band_draw(const double *p0, const int32_t *jof, int64_t m, int64_t n,
                          int64_t g, int64_t b0, uint64_t seed,
                          unsigned long long *slot)
{
  int64_t t = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= g * n) return;
  int64_t r = t / n, k = t - r * n;
  uint64_t ctr = 2 * ((uint64_t) (b0 + r) * (uint64_t) n + (uint64_t) k);
  int64_t s = (int64_t) (band_u01(seed, ctr) * (double) n);
  if (s >= n) s = n - 1; /* u * n may round up to n */
  int64_t j = jof ? jof[s] : s;
  unsigned long long e = band_u01(seed, ctr + 1) < p0[j] ? 1ull : 0ull;
  atomicAdd(slot + r * m + j, (1ull << 32) | e);
}

__global__ void band_flags(const unsigned long long *slot, int64_t total, int32_t *flag)
{
  int64_t e = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (e < total) flag[e] = (slot[e] >> 32) != 0;
}

/* The drawn forecasts of each resample, end to end: event rate, count,
 * events and the forecast's index. */
__global__ void band_compact(const unsigned long long *slot, const int32_t *flag,
                             const int32_t *pos, int64_t m, int64_t total, double *val,
                             double *cnt, double *ev, int32_t *xj)
{
  int64_t e = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= total || !flag[e]) return;
  int64_t p = pos[e];
  double c = (double) (slot[e] >> 32), x = (double) (slot[e] & 0xffffffffull);
  val[p] = x / c;
  cnt[p] = c;
  ev[p] = x;
  xj[p] = (int32_t) (e % m);
}

/* Where each resample's problem starts, and the end of the last. */
__global__ void band_offsets(const int32_t *flag, const int32_t *pos, int64_t m, int64_t g,
                             int64_t *off)
{
  int64_t r = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (r > g) return;
  off[r] = r < g ? pos[r * m] : (int64_t) pos[g * m - 1] + flag[g * m - 1];
}

/* The fits in [0, 1] (means of 0/1 outcomes but for rounding), as the
 * CPU clamps them. */
__global__ void band_clamp(double *f, int64_t len)
{
  int64_t p = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= len) return;
  double v = f[p];
  f[p] = v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
}

/* Each drawn forecast's term of the resample's MCB, in place of its rate
 * (bands.c's read_resample() says why this form). */
__global__ void band_terms(const double *u, const int32_t *xj, const double *cnt,
                           const double *ev, const double *fit, int64_t len, double *val)
{
  int64_t p = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= len) return;
  double uj = u[xj[p]], v = fit[p];
  val[p] = __dmul_rn(__dsub_rn(uj, v),
                     __dsub_rn(__dmul_rn(cnt[p], __dadd_rn(uj, v)), __dmul_rn(2.0, ev[p])));
}

__global__ void band_mcb(const double *s, int64_t g, double n, double *mcb)
{
  int64_t r = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (r < g) mcb[r] = __ddiv_rn(s[r], n);
}

/* The kl smallest values seen at forecast j (ascending, lo[i m + j]) and
 * the kh largest (descending), as bands.c's keep(). */
struct band_stats {
  double *lo, *hi;
  int32_t *seen;
  int kl, kh;
  int64_t m;
};

static __device__ void band_keep(const band_stats &S, int64_t j, double v)
{
  int n = S.seen[j]++;
  int len = n < S.kl ? n : S.kl;
  if (len < S.kl || v < S.lo[(int64_t) (len - 1) * S.m + j]) {
    int i = len < S.kl ? len : len - 1;
    for (; i > 0 && S.lo[(int64_t) (i - 1) * S.m + j] > v; i--)
      S.lo[(int64_t) i * S.m + j] = S.lo[(int64_t) (i - 1) * S.m + j];
    S.lo[(int64_t) i * S.m + j] = v;
  }
  len = n < S.kh ? n : S.kh;
  if (len < S.kh || v > S.hi[(int64_t) (len - 1) * S.m + j]) {
    int i = len < S.kh ? len : len - 1;
    for (; i > 0 && S.hi[(int64_t) (i - 1) * S.m + j] < v; i--)
      S.hi[(int64_t) i * S.m + j] = S.hi[(int64_t) (i - 1) * S.m + j];
    S.hi[(int64_t) i * S.m + j] = v;
  }
}

/* Every resample of the group read at forecast j: its (clamped) fit where
 * drawn, between drawn neighbours the CPU's interpolation, nothing outside
 * them. */
__global__ void band_read(const double *u, const int32_t *flag, const int32_t *pos,
                          const int64_t *off, const int32_t *xj, const double *fit,
                          int64_t g, band_stats S)
{
  int64_t j = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= S.m) return;
  for (int64_t r = 0; r < g; r++) {
    int64_t e = r * S.m + j, p = pos[e];
    double v;
    if (flag[e]) {
      v = fit[p];
    } else {
      if (p == off[r] || p == off[r + 1]) continue;
      double fa = fit[p - 1], fb = fit[p], ua = u[xj[p - 1]], ub = u[xj[p]];
      v = __dadd_rn(fa, __dmul_rn(__dsub_rn(fb, fa),
                                  __ddiv_rn(__dsub_rn(u[j], ua), __dsub_rn(ub, ua))));
    }
    band_keep(S, j, v);
  }
}

static __device__ double band_order_stat(const band_stats &S, int64_t j, int r)
{
  int n = S.seen[j];
  if (r <= S.kl) return S.lo[(int64_t) (r - 1) * S.m + j];
  return S.hi[(int64_t) (n - r) * S.m + j];
}

/* R's type-7 quantile at p (bands.c's quantile7, unfused). */
static __device__ double band_quantile(const band_stats &S, int64_t j, double p)
{
  int n = S.seen[j];
  if (n == 0) return CUDART_NAN;
  double index = __dadd_rn(1.0, __dmul_rn((double) (n - 1), p));
  int lo = (int) floor(index), hi = (int) ceil(index);
  double qs = band_order_stat(S, j, lo);
  if (index > lo) {
    double xh = band_order_stat(S, j, hi);
    if (xh != qs) {
      double h = __dsub_rn(index, (double) lo);
      qs = __dadd_rn(__dmul_rn(__dsub_rn(1.0, h), qs), __dmul_rn(h, xh));
    }
  }
  return qs;
}

__global__ void band_quantiles(band_stats S, double plo, double phi, double *lower,
                               double *upper)
{
  int64_t j = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= S.m) return;
  lower[j] = band_quantile(S, j, plo);
  upper[j] = band_quantile(S, j, phi);
}

struct band_buffers {
  double *u, *p0, *val, *cnt, *ev, *fit, *lo, *hi, *lower, *upper, *s, *mcb;
  int32_t *start, *jof, *flag, *pos, *xj, *seen;
  unsigned long long *slot;
  int64_t *off;
  void *tmp;
  size_t tmp_bytes;
};

static size_t band_scratch(int64_t total, int64_t g)
{
  size_t a = 0, b = 0;
  cub::DeviceScan::ExclusiveSum(nullptr, a, (int32_t *) nullptr, (int32_t *) nullptr,
                                (int) total);
  cub::DeviceSegmentedReduce::Sum(nullptr, b, (double *) nullptr, (double *) nullptr,
                                  (int) g, (int64_t *) nullptr, (int64_t *) nullptr);
  return a > b ? a : b;
}

static size_t band_layout(int64_t m, int64_t n, int64_t G, int kl, int kh, char *base,
                          band_buffers *b)
{
  size_t mm = (size_t) m, t = (size_t) (G * m), pairs = m < n ? (size_t) n : 0;
  gi_carver c = {base, 0};
  c.take_each(mm, b->u, b->p0, b->lower, b->upper);
  c.take_each(pairs ? mm : 0, b->start);
  c.take_each(pairs, b->jof);
  c.take_each(t, b->slot);
  c.take_each(t, b->flag, b->pos, b->xj);
  c.take_each(t, b->val, b->cnt, b->ev, b->fit);
  c.take_each((size_t) G + 1, b->off);
  c.take_each((size_t) G, b->s, b->mcb);
  c.take_each(mm * (size_t) kl, b->lo);
  c.take_each(mm * (size_t) kh, b->hi);
  c.take_each(mm, b->seen);
  c.take_scratch(band_scratch(G * m, G), b->tmp, b->tmp_bytes);
  return c.off;
}

static unsigned blocks_for(int64_t n) { return (unsigned) ((n + 255) / 256); }

static int corp_bands(const double *u, const double *p0, const double *count, int64_t m,
                      int64_t n, int B, double plo, double phi, uint64_t seed,
                      double *lower, double *upper, double *mcb, char *msg, size_t len)
{
  if (n > (int64_t) INT32_MAX) {
    snprintf(msg, len, "more forecasts than the device's counts take: resample on the CPU");
    return GI_CUDA_RANGE;
  }
  int kl, kh;
  gi_band_ends(B, plo, phi, &kl, &kh);
  /* resamples per group: about 2^24 slots, fewer when the device is short
   * of memory (some 60 bytes a slot here and as much for the solver) */
  size_t fr = 0, tot = 0;
  if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) fr = 0;
  (void) cudaGetLastError();
  int64_t slots = (int64_t) 1 << 24;
  if (fr > 0 && (int64_t) (fr / 160) < slots) slots = (int64_t) (fr / 160);
  int64_t G = slots / m;
  if (G < 1) G = 1;
  if (G > B) G = B;
  if (G * m > (int64_t) INT32_MAX) G = (int64_t) INT32_MAX / m;

  int64_t *off = (int64_t *) malloc(((size_t) G + 1) * sizeof(int64_t));
  int32_t *start = NULL;
  if (m < n) start = (int32_t *) malloc((size_t) m * sizeof(int32_t));
  if (off == NULL || (m < n && start == NULL)) {
    free(off);
    free(start);
    snprintf(msg, len, "out of host memory while preparing the bands");
    return GI_CUDA_NOMEM;
  }
  if (start != NULL) {
    int64_t k = 0;
    for (int64_t j = 0; j < m; j++) {
      start[j] = (int32_t) k;
      k += (int64_t) count[j];
    }
  }
  band_buffers b;
  size_t need = band_layout(m, n, G, kl, kh, NULL, &b);
  void *base = NULL;
  int rc = GI_CUDA_OK;
  const char *stage = "while reserving its workspace";
  cudaError_t err = gi_aux_reserve(need, &base);
  if (err == cudaSuccess) {
    band_layout(m, n, G, kl, kh, (char *) base, &b);
    stage = "copying the forecasts to the device";
    err = gi_put(b.u, u, m, GI_COPY8, 0);
  }
  if (err == cudaSuccess) err = gi_put(b.p0, p0, m, GI_COPY8, 0);
  if (err == cudaSuccess && start != NULL) {
    err = gi_put(b.start, start, m, GI_COPY4, 0);
    if (err == cudaSuccess) {
      band_pairs<<<blocks_for(n), 256>>>(b.start, m, n, b.jof);
      err = cudaGetLastError();
    }
  }
  if (err == cudaSuccess) err = cudaMemsetAsync(b.seen, 0, (size_t) m * sizeof(int32_t), 0);
  band_stats S = {b.lo, b.hi, b.seen, kl, kh, m};
  for (int64_t b0 = 0; err == cudaSuccess && b0 < B; b0 += G) {
    int64_t g = B - b0 < G ? B - b0 : G, total = g * m;
    stage = "drawing the resamples";
    err = cudaMemsetAsync(b.slot, 0, (size_t) total * sizeof(unsigned long long), 0);
    if (err != cudaSuccess) break;
    band_draw<<<blocks_for(g * n), 256>>>(b.p0, start ? b.jof : NULL, m, n, g, b0, seed,
                                          b.slot);
    band_flags<<<blocks_for(total), 256>>>(b.slot, total, b.flag);
    size_t tb = b.tmp_bytes;
    err = cub::DeviceScan::ExclusiveSum(b.tmp, tb, b.flag, b.pos, (int) total);
    if (err != cudaSuccess) break;
    band_compact<<<blocks_for(total), 256>>>(b.slot, b.flag, b.pos, m, total, b.val, b.cnt,
                                             b.ev, b.xj);
    band_offsets<<<blocks_for(g + 1), 256>>>(b.flag, b.pos, m, g, b.off);
    err = cudaMemcpy(off, b.off, ((size_t) g + 1) * sizeof(int64_t), cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) break;
    int64_t drawn = off[g];
    rc = gi_fit_prepared(b.val, b.cnt, off, g, 0, b.fit, NULL, msg, len);
    if (rc != GI_CUDA_OK) goto done;
    stage = "reading the resamples";
    band_clamp<<<blocks_for(drawn), 256>>>(b.fit, drawn);
    band_read<<<blocks_for(m), 256>>>(b.u, b.flag, b.pos, b.off, b.xj, b.fit, g, S);
    band_terms<<<blocks_for(drawn), 256>>>(b.u, b.xj, b.cnt, b.ev, b.fit, drawn, b.val);
    tb = b.tmp_bytes;
    err = cub::DeviceSegmentedReduce::Sum(b.tmp, tb, b.val, b.s, (int) g, b.off, b.off + 1);
    if (err != cudaSuccess) break;
    band_mcb<<<blocks_for(g), 256>>>(b.s, g, (double) n, b.mcb);
    err = cudaMemcpy(mcb + b0, b.mcb, (size_t) g * sizeof(double), cudaMemcpyDeviceToHost);
    /* between groups, a look at interrupts (the host's hook) */
    if (err == cudaSuccess && b0 + g < B && gi_interrupted(GI_POLL_WORK)) {
      snprintf(msg, len, "interrupted");
      rc = GI_CUDA_INTERRUPT;
      goto done;
    }
  }
  if (err == cudaSuccess) {
    stage = "copying the bands back";
    band_quantiles<<<blocks_for(m), 256>>>(S, plo, phi, b.lower, b.upper);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess) err = gi_get(lower, b.lower, m, GI_COPY8, 0);
  if (err == cudaSuccess) err = gi_get(upper, b.upper, m, GI_COPY8, 0);
  if (err != cudaSuccess) rc = gi_fail(err, stage, need, msg, len);
done:
  free(off);
  free(start);
  return rc;
}

extern "C" int gi_cuda_corp_bands(const double *u, const double *p0, const double *count,
                                  int64_t m, int64_t n, int B, double plo, double phi,
                                  uint64_t seed, double *lower, double *upper, double *mcb,
                                  char *msg, size_t len)
{
  gi_times_begin();
  int rc = corp_bands(u, p0, count, m, n, B, plo, phi, seed, lower, upper, mcb, msg, len);
  gi_times_end();
  return rc;
}

/*
 * gpuiso CUDA engine: isotonic calibration prepared on the device. The
 * scores are sorted within groups by two stable radix sorts (score, then
 * group), runs of equal (group, score) are pooled into one point (the
 * weighted mean outcome and the summed weight) by a reduction by key, and
 * the pooled points are fitted by the solver, one problem per group. Only
 * the inputs go up and the curves come down: no sort on the host.
 */
#include <stdio.h>
#include <cub/cub.cuh>
#include "engine.cuh"
#include "gi_cuda.h"

/* A score as an unsigned key in the order of the doubles (-0 taken as +0,
 * so that the two pool). */
__device__ __forceinline__ uint64_t score_key(double s)
{
  uint64_t b = (uint64_t) __double_as_longlong(s == 0.0 ? 0.0 : s);
  return (b >> 63) ? ~b : b | 0x8000000000000000ull;
}

__device__ __forceinline__ double key_score(uint64_t k)
{
  uint64_t b = (k >> 63) ? k & 0x7fffffffffffffffull : ~k;
  return __longlong_as_double((long long) b);
}

struct run_key {
  uint64_t s;
  int32_t g;
  __device__ __forceinline__ bool operator==(const run_key &o) const
  {
    return s == o.s && g == o.g;
  }
};

struct run_sum {
  double wy, w;
};

struct run_add {
  __device__ __forceinline__ run_sum operator()(const run_sum &a, const run_sum &b) const
  {
    return run_sum{a.wy + b.wy, a.w + b.w};
  }
};

__global__ void cal_keys(const double *score, int64_t n, uint64_t *key, uint32_t *idx)
{
  int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  key[i] = score_key(score[i]);
  idx[i] = (uint32_t) i;
}

/* the group of each score in score order, and its place in that order */
__global__ void cal_group_keys(const int32_t *group, const uint32_t *perm, int64_t n,
                               uint32_t *gkey, uint32_t *pos)
{
  int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  gkey[i] = (uint32_t) group[perm[i]];
  pos[i] = (uint32_t) i;
}

/* the pairs to reduce, in (group, score) order; `pos` is NULL without
 * groups */
__global__ void cal_runs_input(const uint64_t *skey, const uint32_t *perm,
                               const uint32_t *pos, const uint32_t *gkey,
                               const double *y, const double *w, int64_t n,
                               run_key *key, run_sum *val)
{
  int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t j = pos ? pos[i] : i; /* place in score order */
  uint32_t e = perm[j];         /* the input element */
  double wi = w ? w[e] : 1.0;
  key[i] = run_key{skey[j], pos ? (int32_t) gkey[i] : 1};
  val[i] = run_sum{wi * y[e], wi};
}

/* Pooled points, and where each group's points start (every group code
 * 1..G has at least one score, so every start is written). */
__global__ void cal_points(const run_key *key, const run_sum *sum, const int64_t *nruns,
                           double *score, double *value, double *weight, int64_t *gstart)
{
  int64_t r = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= *nruns) return;
  score[r] = key_score(key[r].s);
  value[r] = sum[r].wy / sum[r].w;
  weight[r] = sum[r].w;
  if (r == 0 || key[r].g != key[r - 1].g) gstart[key[r].g - 1] = r;
}

/* Means of outcomes in [0, 1] are in [0, 1] but for rounding. */
__global__ void cal_clamp(double *v, int64_t n)
{
  int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = fmin(fmax(v[i], 0.0), 1.0);
}

/* The bytes of CUB's scratch for the three passes over n items. */
static size_t cub_bytes(int64_t n)
{
  size_t a = 0, b = 0, c = 0;
  int nn = (int) n;
  cub::DeviceRadixSort::SortPairs(nullptr, a, (uint64_t *) nullptr, (uint64_t *) nullptr,
                                  (uint32_t *) nullptr, (uint32_t *) nullptr, nn);
  cub::DeviceRadixSort::SortPairs(nullptr, b, (uint32_t *) nullptr, (uint32_t *) nullptr,
                                  (uint32_t *) nullptr, (uint32_t *) nullptr, nn);
  cub::DeviceReduce::ReduceByKey(nullptr, c, (run_key *) nullptr, (run_key *) nullptr,
                                 (run_sum *) nullptr, (run_sum *) nullptr,
                                 (int64_t *) nullptr, run_add(), nn);
  size_t m = a > b ? a : b;
  return m > c ? m : c;
}

/* Carves the auxiliary buffer. */
struct cal_buffers {
  double *score, *y, *w, *pscore, *pvalue, *pweight, *fit;
  int32_t *group;
  uint64_t *skey_in, *skey;
  uint32_t *idx_in, *perm, *gkey_in, *gkey, *pos_in, *pos;
  run_key *rkey, *ukey;
  run_sum *rval, *usum;
  int64_t *nruns, *gstart;
  void *tmp;
  size_t tmp_bytes;
};

static size_t cal_layout(int64_t n, int64_t ngroups, int weighted, int grouped,
                         char *base, cal_buffers *b)
{
  size_t nd = (size_t) n, ng = grouped ? nd : 0;
  gi_carver c = {base, 0};
  c.take_each(nd, b->score, b->y);
  c.take_each(weighted ? nd : 0, b->w);
  c.take_each(ng, b->group);
  c.take_each(nd, b->skey_in, b->skey, b->idx_in, b->perm);
  c.take_each(ng, b->gkey_in, b->gkey, b->pos_in, b->pos);
  c.take_each(nd, b->rkey, b->ukey, b->rval, b->usum, b->pscore, b->pvalue, b->pweight, b->fit);
  c.take_each(1, b->nruns);
  c.take_each(ngroups + 1, b->gstart);
  c.take_scratch(cub_bytes(n), b->tmp, b->tmp_bytes);
  return c.off;
}

static int bits_for(int64_t v)
{
  int b = 1;
  while (b < 32 && (v >> b) != 0) b++;
  return b;
}

static int calibrate_host(const double *score, const double *outcome, const double *w,
                          const int *group, int64_t n, int64_t ngroups, double *score_out,
                          double *value_out, double *weight_out, int64_t *offsets,
                          char *msg, size_t len)
{
  if (n <= 0) return GI_CUDA_OK;
  if (n > (int64_t) INT32_MAX) {
    snprintf(msg, len, "more scores than one device sort takes: prepare them on the CPU");
    return GI_CUDA_RANGE;
  }
  if (w != NULL) {
    /* the device pools in plain doubles: weights near either end of the
     * range (sums that overflow, products w * y that underflow) go to the
     * CPU, which pools them exactly */
    double lo = INFINITY, hi = 0.0;
    for (int64_t i = 0; i < n; i++) {
      if (w[i] < lo) lo = w[i];
      if (w[i] > hi) hi = w[i];
    }
    if (!(lo >= 0x1p-900) || hi > 0x1p900 / (double) n) {
      snprintf(msg, len, "weights beyond what the device pooling takes exactly: "
               "prepare them on the CPU");
      return GI_CUDA_RANGE;
    }
  }
  int grouped = group != NULL && ngroups > 1;
  if (!grouped) ngroups = 1;
  cal_buffers b;
  size_t need = cal_layout(n, ngroups, w != NULL, grouped, NULL, &b);
  void *base = NULL;
  cudaError_t err = gi_aux_reserve(need, &base);
  if (err != cudaSuccess) return gi_fail(err, "while reserving its workspace", need, msg, len);
  cal_layout(n, ngroups, w != NULL, grouped, (char *) base, &b);

  const char *stage = "copying the scores to the device";
  err = gi_put(b.score, score, n, GI_COPY8, 0);
  if (err == cudaSuccess) err = gi_put(b.y, outcome, n, GI_COPY8, 0);
  if (err == cudaSuccess && w) err = gi_put(b.w, w, n, GI_COPY8, 0);
  if (err == cudaSuccess && grouped) err = gi_put(b.group, group, n, GI_COPY4, 0);
  unsigned blocks = (unsigned) ((n + 255) / 256);
  int nn = (int) n;
  if (err == cudaSuccess) {
    stage = "sorting the scores";
    cal_keys<<<blocks, 256>>>(b.score, n, b.skey_in, b.idx_in);
    size_t tb = b.tmp_bytes;
    err = cub::DeviceRadixSort::SortPairs(b.tmp, tb, b.skey_in, b.skey, b.idx_in, b.perm, nn);
  }
  if (err == cudaSuccess && grouped) {
    cal_group_keys<<<blocks, 256>>>(b.group, b.perm, n, b.gkey_in, b.pos_in);
    size_t tb = b.tmp_bytes;
    err = cub::DeviceRadixSort::SortPairs(b.tmp, tb, b.gkey_in, b.gkey, b.pos_in, b.pos, nn,
                                          0, bits_for(ngroups));
  }
  if (err == cudaSuccess) {
    stage = "pooling tied scores";
    cal_runs_input<<<blocks, 256>>>(b.skey, b.perm, grouped ? b.pos : NULL, b.gkey, b.y,
                                    w ? b.w : NULL, n, b.rkey, b.rval);
    size_t tb = b.tmp_bytes;
    err = cub::DeviceReduce::ReduceByKey(b.tmp, tb, b.rkey, b.ukey, b.rval, b.usum,
                                         b.nruns, run_add(), nn);
  }
  if (err == cudaSuccess) {
    cal_points<<<blocks, 256>>>(b.ukey, b.usum, b.nruns, b.pscore, b.pvalue, b.pweight,
                                b.gstart);
    err = cudaGetLastError();
  }
  int64_t nruns = 0;
  if (err == cudaSuccess)
    err = cudaMemcpy(&nruns, b.nruns, sizeof(int64_t), cudaMemcpyDeviceToHost);
  if (err == cudaSuccess)
    err = cudaMemcpy(offsets, b.gstart, (size_t) ngroups * sizeof(int64_t),
                     cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) return gi_fail(err, stage, need, msg, len);
  offsets[ngroups] = nruns;

  int rc = gi_fit_prepared(b.pvalue, b.pweight, offsets, ngroups, 0, b.fit, NULL, msg, len);
  if (rc != GI_CUDA_OK) return rc;
  stage = "copying the curves back";
  cal_clamp<<<(unsigned) ((nruns + 255) / 256), 256>>>(b.fit, nruns);
  err = cudaGetLastError();
  if (err == cudaSuccess) err = gi_get(score_out, b.pscore, nruns, GI_COPY8, 0);
  if (err == cudaSuccess) err = gi_get(value_out, b.fit, nruns, GI_COPY8, 0);
  if (err == cudaSuccess) err = gi_get(weight_out, b.pweight, nruns, GI_COPY8, 0);
  if (err != cudaSuccess) return gi_fail(err, stage, need, msg, len);
  return GI_CUDA_OK;
}

extern "C" int gi_cuda_calibrate_host(const double *score, const double *outcome,
                                      const double *w, const int *group, int64_t n,
                                      int64_t ngroups, double *score_out,
                                      double *value_out, double *weight_out,
                                      int64_t *offsets, char *msg, size_t len)
{
  gi_times_begin();
  int rc = calibrate_host(score, outcome, w, group, n, ngroups, score_out, value_out,
                          weight_out, offsets, msg, len);
  gi_times_end();
  return rc;
}

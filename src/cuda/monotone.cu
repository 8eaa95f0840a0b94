/*
 * gpuiso CUDA engine: the last guard on the output. Neighbouring slopes of
 * the hull differ by more than the tie tolerance of the predicates, so
 * their rounded values should never step the wrong way; this pass checks
 * that they do not, with one read of the fit, and flags the batch if one
 * does, so that the host can enforce monotone output (a cumulative
 * maximum per problem) instead of trusting the argument. Whole problems
 * are checked by the chunk kernel as it writes them; this pass reads the
 * fits of long problems.
 */
#include "engine.cuh"

template <typename T>
__global__ void __launch_bounds__(32) monotone_kernel(gi_plan p)
{
  const int lane = threadIdx.x;
  gi_chunk c = lane_chunk(p, (int64_t) blockIdx.x * 32 + lane);
  const int li = lane - (int) (c.lane0 - (int64_t) blockIdx.x * 32);
  const int first = li * 32;
  const int np = c.cnt > first ? min(32, c.cnt - first) : 0;
  if (np == 0 || c.mid < 0) return;
  const T *fit = (const T *) p.fit;
  /* the problem's first element: a chunk of a long problem may look back */
  int64_t pstart = c.mid < 0 ? c.e0 : p.multi[p.multi[c.mid].first].e0;
  int64_t e = c.e0 + first;
  T prev = e > pstart ? fit[e - 1] : fit[e];
  bool bad = false;
  for (int k = 0; k < np; k++) {
    T z = fit[e + k];
    bad |= p.decreasing ? z > prev : z < prev;
    prev = z;
  }
  if (bad) atomicOr(p.flag, GI_FLAG_STEP);
}

void gi_launch_monotone_check(const gi_plan &p, cudaStream_t s)
{
  int64_t warps = p.nlanes / 32;
  if (warps == 0 || p.nmulti == 0) return;
  if (p.single) monotone_kernel<float><<<(unsigned) warps, 32, 0, s>>>(p);
  else monotone_kernel<double><<<(unsigned) warps, 32, 0, s>>>(p);
}

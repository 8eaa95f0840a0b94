/*
 * gpuiso CUDA engine, first stage: the hull of each chunk (paper, 3.1-3.3,
 * 3.5). A warp takes 32 lanes of 32 elements. Each lane forms the running
 * sums of its elements (pairs, chunk-relative) and the lower hull of its
 * 33 points with the monotone chain, its stack a bit mask. The lanes of a
 * chunk then merge their hulls pairwise in five rounds, walking from the
 * shared point to the bridge and clearing the bits under it. A chunk that
 * is a whole problem is fitted right here; a chunk of a long problem writes
 * its hull, once, to its vertex slot for the merge levels.
 */
#include "engine.cuh"

#define PTS_PER_WARP (33 * 32)

/* A development build with -DGI_PROFILE counts each phase's clock cycles
 * over the warps (gi_prof_read()); the package never defines it. */
#ifdef GI_PROFILE
__device__ unsigned long long gi_prof[8];
#define PROF_START long long prof_t = clock64()
#define PROF_MARK(k)                                                               \
  do {                                                                             \
    long long t_ = clock64();                                                      \
    if (lane == 0) atomicAdd(&gi_prof[k], (unsigned long long) (t_ - prof_t));     \
    if (lane == 0 && (k) == 4) atomicAdd(&gi_prof[7], 1ull);                       \
    prof_t = t_;                                                                   \
  } while (0)
extern "C" void gi_prof_read(unsigned long long *out, int reset)
{
  if (reset) {
    unsigned long long z[8] = {0};
    cudaMemcpyToSymbol(gi_prof, z, sizeof(z));
  } else {
    cudaMemcpyFromSymbol(out, gi_prof, 8 * sizeof(unsigned long long));
  }
}
#else
#define PROF_START
#define PROF_MARK(k)
#endif

/* The vertex before point q (the first set bit below it) and after it. */
__device__ __forceinline__ int prev_vertex(const uint32_t *W, int q)
{
  int w = q >> 5;
  uint32_t m = W[w] & ((1u << (q & 31)) - 1u);
  while (m == 0) m = W[--w];
  return (w << 5) + 31 - __clz(m);
}

__device__ __forceinline__ int next_vertex(const uint32_t *W, int q)
{
  int r = q + 1, w = r >> 5;
  uint32_t m = W[w] & (0xffffffffu << (r & 31));
  while (m == 0) m = W[++w];
  return (w << 5) + __ffs(m) - 1;
}

/* Where point i >= 1 of the chunk whose lanes start at lane q of the warp
 * sits in shared memory: lane li's 32 points (32 li + 1 .. 32 li + 32) at
 * 33 li + 0..31, so that the lanes' loops, which walk their own points in
 * step, read different banks. Point 0, the origin, is not stored. */
__device__ __forceinline__ int spos(int q, int i)
{
  int j = i - 1;
  return 33 * q + j + (j >> 5);
}

template <bool WT>
__device__ __forceinline__ pt point_at(const dd *Ys, const dd *Xs, int q, int i)
{
  pt r;
  if (i == 0) {
    r.y = dd_make(0.0);
    r.x = dd_make(0.0);
    return r;
  }
  int k = spos(q, i);
  r.y = Ys[k];
  r.x = WT ? Xs[k] : dd_make((double) i);
  return r;
}

/* Point k of lane li (chunk point 32 li + k) with a lane-relative
 * abscissa when unweighted, as the lane's hull sees it. */
template <bool WT>
__device__ __forceinline__ pt lane_point(const dd *Ys, const dd *Xs, int q, int first, int k)
{
  pt r = point_at<WT>(Ys, Xs, q, first + k);
  if (!WT) r.x = dd_make((double) k);
  return r;
}

/* Outside [2^-200, 2^200] and not zero: beyond the range in which the
 * double-double sums and hull tests are exact to their rule (pava.c's
 * window). */
__device__ __forceinline__ bool outside_window(double a)
{
  a = fabs(a);
  return a > 0x1p200 || (a < 0x1p-200 && a != 0.0);
}

template <typename T, bool WT>
__global__ void __launch_bounds__(32) chunk_kernel(gi_plan p)
{
  extern __shared__ double smem_d[];
  dd *Ys = (dd *) smem_d;
  dd *Xs = WT ? Ys + PTS_PER_WARP : nullptr;
  uint32_t *W = (uint32_t *) (Ys + (WT ? 2 : 1) * PTS_PER_WARP);

  const int lane = threadIdx.x;
  PROF_START;
  const int64_t wbase_lane = (int64_t) blockIdx.x * 32;
  gi_chunk c = lane_chunk(p, wbase_lane + lane);
  const int q = (int) (c.lane0 - wbase_lane);
  const int li = lane - q;
  const int wb = 2 * q;
  const int first = li * 32;
  const int np = c.cnt > first ? min(32, c.cnt - first) : 0;
  const T *y = (const T *) p.y;
  const T *w = (const T *) p.w;

  W[2 * lane] = 0u;
  W[2 * lane + 1] = 0u;

  /* The warp's elements are contiguous (chunks are placed in order), so
   * they are staged through shared memory with coalesced loads; a lane's
   * 32 values then come from there, one padded double per 32 keeping the
   * banks apart. */
  int64_t my_lo = np > 0 ? c.e0 + first : INT64_MAX;
  int64_t my_hi = np > 0 ? c.e0 + first + np : 0;
  for (int off = 16; off > 0; off >>= 1) {
    my_lo = min(my_lo, (int64_t) __shfl_xor_sync(0xffffffffu, (long long) my_lo, off));
    my_hi = max(my_hi, (int64_t) __shfl_xor_sync(0xffffffffu, (long long) my_hi, off));
  }
  double *stage_y = (double *) Ys, *stage_w = stage_y + 1056;
  const int span = my_hi > my_lo ? (int) (my_hi - my_lo) : 0;
  for (int i = lane; i < span; i += 32) {
    stage_y[i + (i >> 5)] = (double) y[my_lo + i];
    if (WT) stage_w[i + (i >> 5)] = (double) w[my_lo + i];
  }
  __syncwarp();
  double v[32], wv[32];
  const int s0 = np > 0 ? (int) (c.e0 + first - my_lo) : 0;
#pragma unroll
  for (int k = 0; k < 32; k++) {
    int i = s0 + k;
    v[k] = k < np ? stage_y[i + (i >> 5)] : 0.0;
    wv[k] = WT && k < np ? stage_w[i + (i >> 5)] : 0.0;
  }
  __syncwarp();
  PROF_MARK(0);

  /* the lane's totals; its running sums are written once its start is
   * known, so that shared memory is written once per point */
  dd sy = dd_make(0.0), sx = dd_make(0.0);
  bool outside = false;
#pragma unroll
  for (int k = 0; k < 32; k++) {
    if (k < np) {
      double vk = p.decreasing ? -v[k] : v[k];
      outside |= outside_window(vk) || (WT && outside_window(wv[k]));
      if (WT) {
        sy = dd_add(sy, two_prod(wv[k], vk));
        sx = dd_add_d(sx, wv[k]);
      } else {
        sy = dd_add_d(sy, vk);
      }
    }
  }

  /* values or weights beyond the window: the CPU's exact passes solve it */
  if (outside) atomicOr(p.flag, GI_FLAG_RANGE);

  /* lane starts: an exclusive scan of the lane totals over the chunk */
  dd iy = sy, ix = sx;
  for (int off = 1; off < 32; off <<= 1) {
    dd ty, tx;
    ty.hi = __shfl_up_sync(0xffffffffu, iy.hi, off);
    ty.lo = __shfl_up_sync(0xffffffffu, iy.lo, off);
    tx.hi = __shfl_up_sync(0xffffffffu, ix.hi, off);
    tx.lo = __shfl_up_sync(0xffffffffu, ix.lo, off);
    if (li >= off) {
      iy = dd_add(ty, iy);
      if (WT) ix = dd_add(tx, ix);
    }
  }
  dd st_y, st_x;
  st_y.hi = __shfl_up_sync(0xffffffffu, iy.hi, 1);
  st_y.lo = __shfl_up_sync(0xffffffffu, iy.lo, 1);
  st_x.hi = __shfl_up_sync(0xffffffffu, ix.hi, 1);
  st_x.lo = __shfl_up_sync(0xffffffffu, ix.lo, 1);
  if (li == 0) { st_y = dd_make(0.0); st_x = dd_make(0.0); }
  {
    dd ry = st_y, rx = st_x;
    const int o = spos(q, first + 1);
#pragma unroll
    for (int k = 0; k < 32; k++) {
      if (k < np) {
        double vk = p.decreasing ? -v[k] : v[k];
        if (WT) {
          ry = dd_add(ry, two_prod(wv[k], vk));
          rx = dd_add_d(rx, wv[k]);
          Xs[o + k] = rx;
        } else {
          ry = dd_add_d(ry, vk);
        }
        Ys[o + k] = ry;
      }
    }
  }
  __syncwarp();
  PROF_MARK(1);

  /* the lane's hull: the monotone chain with its stack in a bit mask;
   * a is the entry under the top b, found again by counting zeros */
  if (np > 0) {
    uint64_t mask = 1u;
    int a = -1, b = 0, k = 1;
    /* unweighted abscissae here are lane-relative: turns do not mind. The
     * top two entries stay in registers; a pop reloads the one under. */
    pt pa = lane_point<WT>(Ys, Xs, q, first, 0), pb = pa;
    pt pk = lane_point<WT>(Ys, Xs, q, first, 1);
    while (k <= np) {
      if (a >= 0 && !convex_at(pa, pb, pk)) {
        mask &= ~(1ull << b);
        b = a;
        pb = pa;
        uint64_t below = mask & ((1ull << a) - 1ull);
        a = below ? 63 - __clzll((long long) below) : -1;
        pa = lane_point<WT>(Ys, Xs, q, first, a > 0 ? a : 0);
      } else {
        mask |= 1ull << k;
        a = b; pa = pb;
        b = k; pb = pk;
        k++;
        pk = lane_point<WT>(Ys, Xs, q, first, k <= np ? k : np);
      }
    }
    W[wb + li] = (uint32_t) mask;
    if (first + np == c.cnt && (mask >> 32)) W[wb + li + 1] = 1u;
  }
  __syncwarp();
  PROF_MARK(2);

  /* five rounds of merges within the chunk, walking to each bridge */
  for (int g = 1; g < 32; g <<= 1) {
    if (c.cnt > 0 && li % (2 * g) == 0 && li + g < c.L && (li + g) * 32 < c.cnt) {
      const int s = (li + g) * 32, lo_end = li * 32;
      const int hi_end = min((li + 2 * g) * 32, c.cnt);
      int a = prev_vertex(W + wb, s), b = next_vertex(W + wb, s);
      if (!convex_at(point_at<WT>(Ys, Xs, q, a), point_at<WT>(Ys, Xs, q, s),
                     point_at<WT>(Ys, Xs, q, b))) {
        bool moved = true;
        while (moved) {
          moved = false;
          while (a > lo_end) {
            int a2 = prev_vertex(W + wb, a);
            if (convex_at(point_at<WT>(Ys, Xs, q, a2), point_at<WT>(Ys, Xs, q, a),
                          point_at<WT>(Ys, Xs, q, b)))
              break;
            a = a2; moved = true;
          }
          while (b < hi_end) {
            int b2 = next_vertex(W + wb, b);
            if (convex_at(point_at<WT>(Ys, Xs, q, a), point_at<WT>(Ys, Xs, q, b),
                          point_at<WT>(Ys, Xs, q, b2)))
              break;
            b = b2; moved = true;
          }
        }
        /* the points strictly between the bridge's ends are gone; a word
         * with nothing to clear is not written, as the neighbouring merge
         * may be writing the word that holds b */
        for (int wi = a >> 5; wi <= (b >> 5); wi++) {
          int lo = wi << 5;
          uint32_t gone = 0xffffffffu;
          if (a >= lo) gone &= ~((2u << (a - lo)) - 1u);   /* bits > a */
          if (b < lo + 32) gone &= (1u << (b - lo)) - 1u;   /* bits < b */
          if (gone) W[wb + wi] &= ~gone;
        }
      }
    }
    __syncwarp();
  }
  PROF_MARK(3);
  if (c.mid < 0) {
    /* whole problems (and idle lanes): each element gets the slope of the
     * edge above it. The lanes of a problem take its elements in turn, so
     * that the stores coalesce, and compare each rounded value with the
     * one before it, which the neighbouring lane holds: a step the wrong
     * way flags the batch (see monotone.cu). */
    T *fit = (T *) p.fit;
    const int L = c.L;
    int rounds = c.cnt > 0 ? (c.cnt + L - 1) / L : 0;
    for (int off = 16; off > 0; off >>= 1)
      rounds = max(rounds, __shfl_xor_sync(0xffffffffu, rounds, off));
    int last_l = -1;
    double val = 0.0;
    T before = (T) 0;
    bool bad = false;
    for (int t = 0; t < rounds; t++) {
      const int e = li + L * t;
      const bool on = e < c.cnt;
      T z = (T) 0;
      if (on) {
        int vl = prev_vertex(W + wb, e + 1);
        if (vl != last_l) {
          int vr = next_vertex(W + wb, vl);
          val = slope(point_at<WT>(Ys, Xs, q, vl), point_at<WT>(Ys, Xs, q, vr));
          last_l = vl;
        }
        z = (T) (p.decreasing ? -val : val);
        fit[c.e0 + e] = z;
        if (p.starts) p.starts[c.e0 + e] = (unsigned char) (vl == e);
      }
      T left = __shfl_sync(0xffffffffu, z, lane > 0 ? lane - 1 : 0);
      T last = __shfl_sync(0xffffffffu, z, q + L - 1);
      if (on && e > 0) {
        T zp = li > 0 ? left : before;
        bad |= p.decreasing ? z > zp : z < zp;
      }
      before = last;
    }
    if (bad) atomicOr(p.flag, GI_FLAG_STEP);
    if (c.cnt > 0 && first + np == c.cnt && !isfinite(point_at<WT>(Ys, Xs, q, c.cnt).y.hi))
      atomicOr(p.flag, GI_FLAG_RANGE);
    PROF_MARK(4);
    return;
  }

  /* a chunk of a long problem: write its hull once, ranked by a scan */
  uint32_t mine = W[lane], extra = lane == 31 ? W[32] : 0u;
  int nv = __popc(mine) + __popc(extra), pos = nv;
  for (int off = 1; off < 32; off <<= 1) {
    int t = __shfl_up_sync(0xffffffffu, pos, off);
    if (lane >= off) pos += t;
  }
  int total = __shfl_sync(0xffffffffu, pos, 31);
  pos -= nv;
  const int64_t so = c.mid * (int64_t) GI_SLOT;
  for (int part = 0; part < 2; part++) {
    uint32_t m = part ? extra : mine;
    int wi = part ? 32 : lane;
    while (m) {
      int bit = __ffs(m) - 1;
      m &= m - 1u;
      int qp = (wi << 5) + bit;
      p.slot_idx[so + pos] = (int16_t) qp;
      pt v = point_at<WT>(Ys, Xs, 0, qp);
      p.slot_y[so + pos] = v.y;
      if (WT) p.slot_x[so + pos] = v.x;
      pos++;
    }
  }
  if (lane == 0) {
    p.desc[c.mid] = gi_seg{c.mid, 0, total - 1};
    p.count[c.mid] = 1;
    /* the chunk's totals, which gi_launch_chunk_starts scans */
    pt end = point_at<WT>(Ys, Xs, 0, c.cnt);
    p.ctotal[2 * c.mid] = end.x;
    p.ctotal[2 * c.mid + 1] = end.y;
    if (!isfinite(end.y.hi)) atomicOr(p.flag, GI_FLAG_RANGE);
  }
  PROF_MARK(4);
}

template <typename T, bool WT>
static void launch(const gi_plan &p, cudaStream_t s)
{
  size_t shm = (WT ? 2 : 1) * PTS_PER_WARP * sizeof(dd) + 64 * sizeof(uint32_t);
  int64_t warps = p.nlanes / 32;
  if (warps == 0) return;
  /* occupancy is bound by shared memory: ask for all of it */
  static bool carved = false;
  if (!carved) {
    cudaFuncSetAttribute(chunk_kernel<T, WT>, cudaFuncAttributePreferredSharedMemoryCarveout,
                         cudaSharedmemCarveoutMaxShared);
    (void) cudaGetLastError();
    carved = true;
  }
  chunk_kernel<T, WT><<<(unsigned) warps, 32, shm, s>>>(p);
}

void gi_launch_chunks(const gi_plan &p, cudaStream_t s)
{
  if (p.single) {
    if (p.w) launch<float, true>(p, s); else launch<float, false>(p, s);
  } else {
    if (p.w) launch<double, true>(p, s); else launch<double, false>(p, s);
  }
}

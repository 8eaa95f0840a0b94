/*
 * gpuiso CUDA engine, first stage: the hull of each chunk (paper, 3.1-3.3,
 * 3.5). A block of 64 threads takes 64 lanes of the plan, 16 elements
 * each, a thread to a lane. Each thread forms the running sums of its
 * elements (pairs, chunk-relative) and the lower hull of its 17 points
 * with the monotone chain, its stack a bit mask. The
 * threads of a chunk then merge their hulls pairwise in six rounds, walking
 * from the shared point to the bridge and clearing the bits under it. A
 * chunk that is a whole problem is fitted right here; a chunk of a long
 * problem writes its hull, once, to its vertex slot for the merge levels.
 *
 * Sixteen elements a thread, rather than 32, halve the serial hull loop
 * and double the warps that share an SM's shared memory, which bounds how
 * many chunks run at once (16 bytes a point).
 */
#include "engine.cuh"

#define THREADS GI_BLOCK_UNITS /* per block */
#define PTS GI_UNIT            /* elements per thread */
#define NPOS (17 * THREADS) /* shared slots of points, 17 per thread */

/* A development build with -DGI_PROFILE counts each phase's clock cycles
 * over the blocks (gi_prof_read()); the package never defines it. */
#ifdef GI_PROFILE
__device__ unsigned long long gi_prof[8];
#define PROF_START long long prof_t = clock64()
#define PROF_COUNT(k, v) atomicAdd(&gi_prof[k], (unsigned long long) (v))
#define PROF_MARK(k)                                                               \
  do {                                                                             \
    long long t_ = clock64();                                                      \
    if (tid == 0) atomicAdd(&gi_prof[k], (unsigned long long) (t_ - prof_t));      \
    if (tid == 0 && (k) == 4) atomicAdd(&gi_prof[7], 1ull);                        \
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
#define PROF_COUNT(k, v)
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

/* Where point i >= 1 of the chunk whose lanes start at lane q of the block
 * sits in shared memory: thread t's 16 points at 17 t + 0..15, so that threads
 * walking their own points in step read different banks. Point 0, the
 * origin, is not stored. */
__device__ __forceinline__ int spos(int q, int i)
{
  int j = i - 1;
  return 17 * q + j + (j >> 4);
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

/* Point k of the thread whose first point is chunk point `first`, with a
 * thread-relative abscissa when unweighted, as the thread's hull sees it. */
template <bool WT>
__device__ __forceinline__ pt own_point(const dd *Ys, const dd *Xs, int q, int first, int k)
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

__device__ __forceinline__ dd shfl_up_dd(dd a, int off)
{
  return dd{__shfl_up_sync(0xffffffffu, a.hi, off), __shfl_up_sync(0xffffffffu, a.lo, off)};
}

/* The shared memory of a block: the points (y, and x when weighted), the
 * vertex bits (a word per lane: a chunk of L lanes at lane q owns words
 * q .. q + L - 1, enough for its 16 L + 1 points), and a few words for the
 * exchanges between the two warps. */
template <bool WT>
struct chunk_smem {
  static constexpr size_t bytes = (WT ? 2 : 1) * NPOS * sizeof(dd) + THREADS * sizeof(uint32_t) +
                                  2 * sizeof(dd) + 4 * sizeof(int64_t) + sizeof(double);
};

template <typename T, bool WT>
__global__ void __launch_bounds__(THREADS) chunk_kernel(gi_plan p)
{
  extern __shared__ double smem_d[];
  dd *Ys = (dd *) smem_d;
  dd *Xs = WT ? Ys + NPOS : nullptr;
  uint32_t *W = (uint32_t *) (Ys + (WT ? 2 : 1) * NPOS);
  dd *xw = (dd *) (W + THREADS);      /* warp 0's totals, for warp 1 */
  int64_t *xr = (int64_t *) (xw + 2); /* the warps' element spans */
  double *xv = (double *) (xr + 4);   /* warp 0's last fitted value */

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  PROF_START;
  const int64_t blane = (int64_t) blockIdx.x * THREADS;
  gi_chunk c = lane_chunk(p, blane + tid);
  const int q = (int) (c.lane0 - blane);   /* the chunk's first lane in the block */
  const int tc = tid - q;                  /* the thread's index in its chunk */
  const int wb = q;
  const int first = tc * PTS;
  const int np = c.cnt > first ? min(PTS, c.cnt - first) : 0;
  const T *y = (const T *) p.y;
  const T *w = (const T *) p.w;

  W[tid] = 0u;

  /* The block's elements are contiguous (chunks are placed in order), so
   * they are staged through shared memory with coalesced loads; a thread's
   * 16 values then come from there, one padded double per 16 keeping the
   * banks apart. */
  int64_t my_lo = np > 0 ? c.e0 + first : INT64_MAX;
  int64_t my_hi = np > 0 ? c.e0 + first + np : 0;
  for (int off = 16; off > 0; off >>= 1) {
    my_lo = min(my_lo, (int64_t) __shfl_xor_sync(0xffffffffu, (long long) my_lo, off));
    my_hi = max(my_hi, (int64_t) __shfl_xor_sync(0xffffffffu, (long long) my_hi, off));
  }
  if (lane == 0) {
    xr[2 * warp] = my_lo;
    xr[2 * warp + 1] = my_hi;
  }
  __syncthreads();
  my_lo = min(xr[0], xr[2]);
  my_hi = max(xr[1], xr[3]);
  double *stage_y = (double *) Ys, *stage_w = stage_y + NPOS;
  const int span = my_hi > my_lo ? (int) (my_hi - my_lo) : 0;
  for (int i = tid; i < span; i += THREADS) {
    stage_y[i + (i >> 4)] = (double) y[my_lo + i];
    if (WT) stage_w[i + (i >> 4)] = (double) w[my_lo + i];
  }
  __syncthreads();
  double v[PTS], wv[PTS];
  const int s0 = np > 0 ? (int) (c.e0 + first - my_lo) : 0;
#pragma unroll
  for (int k = 0; k < PTS; k++) {
    int i = s0 + k;
    v[k] = k < np ? stage_y[i + (i >> 4)] : 0.0;
    wv[k] = WT && k < np ? stage_w[i + (i >> 4)] : 0.0;
    if (p.decreasing) v[k] = -v[k];
  }
  __syncthreads();
  PROF_MARK(0);

  /* the thread's totals; its running sums are written once its start is
   * known, so that shared memory is written once per point */
  dd sy = dd_make(0.0), sx = dd_make(0.0);
  bool outside = false;
#pragma unroll
  for (int k = 0; k < PTS; k++) {
    if (k < np) {
      outside |= outside_window(v[k]) || (WT && outside_window(wv[k]));
      if (WT) {
        sy = dd_add(sy, two_prod(wv[k], v[k]));
        sx = dd_add_d(sx, wv[k]);
      } else {
        sy = dd_add_d(sy, v[k]);
      }
    }
  }
  /* values or weights beyond the window: the CPU's exact passes solve it */
  if (outside) atomicOr(p.flag, GI_FLAG_RANGE);

  /* thread starts: an exclusive scan of the totals over the chunk; a chunk
   * of 64 lanes spans both warps, and warp 1 adds warp 0's total */
  dd iy = sy, ix = sx;
  const int tw = tc < 32 ? tc : tc - 32; /* index among the chunk's threads in this warp */
  for (int off = 1; off < 32; off <<= 1) {
    dd ty = shfl_up_dd(iy, off), tx = shfl_up_dd(ix, off);
    if (tw >= off) {
      iy = dd_add(ty, iy);
      if (WT) ix = dd_add(tx, ix);
    }
  }
  if (tid == 31) {
    xw[0] = iy;
    xw[1] = ix;
  }
  dd st_y = shfl_up_dd(iy, 1), st_x = shfl_up_dd(ix, 1);
  if (tw == 0) { st_y = dd_make(0.0); st_x = dd_make(0.0); }
  __syncthreads();
  if (tc >= 32) {
    st_y = dd_add(xw[0], st_y);
    if (WT) st_x = dd_add(xw[1], st_x);
  }
  {
    dd ry = st_y, rx = st_x;
    const int o = spos(q, first + 1);
#pragma unroll
    for (int k = 0; k < PTS; k++) {
      if (k < np) {
        if (WT) {
          ry = dd_add(ry, two_prod(wv[k], v[k]));
          rx = dd_add_d(rx, wv[k]);
          Xs[o + k] = rx;
        } else {
          ry = dd_add_d(ry, v[k]);
        }
        Ys[o + k] = ry;
      }
    }
  }
  __syncthreads();
  PROF_MARK(1);

  /* the thread's hull: the monotone chain with its stack in a bit mask;
   * a is the entry under the top b, found again by counting zeros.
   * Unweighted abscissae here are thread-relative: turns do not mind. */
  uint32_t mask = 0u;
  if (np > 0) {
    mask = 1u;
    int a = -1, b = 0, k = 1;
    pt pa = own_point<WT>(Ys, Xs, q, first, 0), pb = pa;
    pt pk = own_point<WT>(Ys, Xs, q, first, 1);
    while (k <= np) {
      if (a >= 0 && !convex_at(pa, pb, pk)) {
        mask &= ~(1u << b);
        b = a;
        pb = pa;
        uint32_t below = mask & ((1u << a) - 1u);
        a = below ? 31 - __clz(below) : -1;
        pa = own_point<WT>(Ys, Xs, q, first, a > 0 ? a : 0);
      } else {
        mask |= 1u << k;
        a = b; pa = pb;
        b = k; pb = pk;
        k++;
        pk = own_point<WT>(Ys, Xs, q, first, k <= np ? k : np);
      }
    }
  }
  /* a word of a chunk of two lanes or more: an even thread's bits 0..16
   * and the next one's shifted by 16 (they share point 16); a chunk of one
   * lane has its word to itself. The chunk's end point, when it starts a
   * word, goes into the chunk's next word. */
  {
    uint32_t other = __shfl_xor_sync(0xffffffffu, mask, 1);
    if (c.L == 1) other = 0u;
    if ((tc & 1) == 0 && np > 0) W[wb + (tc >> 1)] = (mask & 0x1ffffu) | (other << 16);
    if (np > 0 && first + np == c.cnt && (c.cnt & 31) == 0 && ((mask >> np) & 1u))
      W[wb + (c.cnt >> 5)] = 1u;
  }
  __syncthreads();
  PROF_MARK(2);

  /* six rounds of merges within the chunk, walking to each bridge */
  for (int g = 1; g < THREADS; g <<= 1) {
    if (c.cnt > 0 && tc % (2 * g) == 0 && tc + g < c.L && (tc + g) * PTS < c.cnt) {
      const int s = (tc + g) * PTS, lo_end = tc * PTS;
      const int hi_end = min((tc + 2 * g) * PTS, c.cnt);
      int a = prev_vertex(W + wb, s), b = next_vertex(W + wb, s);
      pt pa = point_at<WT>(Ys, Xs, q, a), pb = point_at<WT>(Ys, Xs, q, b);
      if (!convex_at(pa, point_at<WT>(Ys, Xs, q, s), pb)) {
        /* the ends move apart until the line between them supports both
         * hulls; the ends' points stay in registers */
        bool moved = true;
        int steps = 0;
        while (moved) {
          moved = false;
          while (a > lo_end) {
            int a2 = prev_vertex(W + wb, a);
            pt p2 = point_at<WT>(Ys, Xs, q, a2);
            steps++;
            if (convex_at(p2, pa, pb)) break;
            a = a2; pa = p2; moved = true;
          }
          while (b < hi_end) {
            int b2 = next_vertex(W + wb, b);
            pt p2 = point_at<WT>(Ys, Xs, q, b2);
            steps++;
            if (convex_at(pa, pb, p2)) break;
            b = b2; pb = p2; moved = true;
          }
        }
        PROF_COUNT(5, steps + 1); /* walk steps, in profiling builds */
        (void) steps;
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
    __syncthreads();
  }
  PROF_MARK(3);

  if (c.mid < 0) {
    /* whole problems (and idle lanes): each element gets the slope of the
     * edge above it. The threads of a problem take its elements in turn,
     * each warp a contiguous half of a problem that spans both, so that
     * the stores coalesce and each value's predecessor is held by the
     * neighbouring lane, or by the other warp at the half: a step the
     * wrong way flags the batch (GI_FLAG_STEP). */
    T *fit = (T *) p.fit;
    const int G = min(c.L, 32);          /* the problem's threads in this warp */
    const int tl = tc & 31;              /* this thread's place among them */
    const int glane0 = lane - tl;        /* the lane of the first of them */
    const int eb = (tc >> 5) * 32 * PTS; /* the first element of this warp's part */
    const int here = min(c.cnt - eb, 32 * PTS);
    int rounds = here > 0 ? (here + G - 1) / G : 0;
    for (int off = 16; off > 0; off >>= 1)
      rounds = max(rounds, __shfl_xor_sync(0xffffffffu, rounds, off));
    int vl = -1, vr = -1;
    double val = 0.0;
    T before = (T) 0, head = (T) 0;
    bool bad = false;
    for (int t = 0; t < rounds; t++) {
      const int e = eb + tl + G * t;
      const bool on = tl + G * t < here;
      T z = (T) 0;
      if (on) {
        if (e >= vr) { /* past the cached edge: the one over element e */
          vl = prev_vertex(W + wb, e + 1);
          vr = next_vertex(W + wb, vl);
          val = slope(point_at<WT>(Ys, Xs, q, vl), point_at<WT>(Ys, Xs, q, vr));
        }
        z = (T) (p.decreasing ? -val : val);
        fit[c.e0 + e] = z;
        if (p.starts) p.starts[c.e0 + e] = (unsigned char) (vl == e);
        if (t == 0) head = z;
        /* the second warp's part starts after the first's last value */
        if (tc == 31 && c.L == THREADS && e == 32 * PTS - 1) *xv = (double) z;
      }
      T left = __shfl_sync(0xffffffffu, z, lane > 0 ? lane - 1 : 0);
      T last = __shfl_sync(0xffffffffu, z, glane0 + G - 1);
      if (on && e > eb) {
        T zp = tl > 0 ? left : before;
        bad |= p.decreasing ? z > zp : z < zp;
      }
      before = last;
    }
    __syncthreads();
    if (tc == 32 && c.cnt > 32 * PTS) {
      T zp = (T) *xv;
      bad |= p.decreasing ? head > zp : head < zp;
    }
    if (bad) atomicOr(p.flag, GI_FLAG_STEP);
    if (np > 0 && first + np == c.cnt && !isfinite(point_at<WT>(Ys, Xs, q, c.cnt).y.hi))
      atomicOr(p.flag, GI_FLAG_RANGE);
    PROF_MARK(4);
    return;
  }

  /* a chunk of a long problem: write its hull once, ranked by a scan over
   * its 33 words (the first warp) */
  if (warp == 1) return;
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
      pt vx = point_at<WT>(Ys, Xs, 0, qp);
      p.slot_idx[so + pos] = (int16_t) qp;
      p.slot_y[so + pos] = vx.y;
      if (WT) p.slot_x[so + pos] = vx.x;
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
  size_t shm = chunk_smem<WT>::bytes;
  int64_t blocks = p.nlanes / THREADS;
  if (blocks == 0) return;
  /* occupancy is bound by shared memory: ask for all of it */
  static bool carved = false;
  if (!carved) {
    cudaFuncSetAttribute(chunk_kernel<T, WT>, cudaFuncAttributePreferredSharedMemoryCarveout,
                         cudaSharedmemCarveoutMaxShared);
    (void) cudaGetLastError();
    carved = true;
  }
  chunk_kernel<T, WT><<<(unsigned) blocks, THREADS, shm, s>>>(p);
}

void gi_launch_chunks(const gi_plan &p, cudaStream_t s)
{
  if (p.single) {
    if (p.w) launch<float, true>(p, s); else launch<float, false>(p, s);
  } else {
    if (p.w) launch<double, true>(p, s); else launch<double, false>(p, s);
  }
}

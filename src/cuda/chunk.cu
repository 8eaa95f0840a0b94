/*
 * gpuiso CUDA engine, first stage: the hull of each chunk (paper, 3.1-3.3,
 * 3.5). A block of 64 threads takes 64 lanes of the plan, 16 elements
 * each, a thread to a lane. The kernel runs five phases, each a function
 * below and each a share of the profile (-DGI_PROFILE):
 *   load   the thread's values, staged through shared memory;
 *   sums   the chunk's running sums (double-double pairs, chunk-relative),
 *          one point per element in shared memory;
 *   hull   each thread's lower hull of its 17 points (its start and its
 *          16 sums) by the monotone chain, its stack a bit mask;
 *   merge  the threads' hulls merged pairwise in six rounds, walking from
 *          the shared point to the bridge and clearing the bits under it;
 *   out    a chunk that is a whole problem is fitted right here; a chunk
 *          of a long problem writes its hull, once, to its vertex slot for
 *          the merge levels.
 *
 * Sixteen elements a thread, rather than 32, halve the serial hull loop
 * and double the warps that share an SM's shared memory, which bounds how
 * many chunks run at once (16 bytes a point, 32 weighted).
 */
#include "engine.cuh"

#define THREADS GI_BLOCK_UNITS /* per block */
#define PTS GI_UNIT            /* elements per thread */
#define NPOS (17 * THREADS)    /* shared slots of points: 16 per thread and a pad */

/* A development build with -DGI_PROFILE counts, over the blocks, the clock
 * cycles of each phase k (0 load .. 4 out; thread 0's, in gi_prof[k]), the
 * blocks (gi_prof[7]) and the merges' walk steps (gi_prof[5]); read with
 * gi_prof_read(). The package never defines it. */
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
  dd *Ys, *Xs; /* the points' ordinates and (weighted) abscissae, at spos() */
  uint32_t *W; /* the vertex bits */
  dd *xw;      /* warp 0's totals, for warp 1 */
  int64_t *xr; /* the warps' element spans */
  double *xv;  /* warp 0's last fitted value */

  __device__ __forceinline__ chunk_smem(double *base)
  {
    Ys = (dd *) base;
    Xs = WT ? Ys + NPOS : nullptr;
    W = (uint32_t *) (Ys + (WT ? 2 : 1) * NPOS);
    xw = (dd *) (W + THREADS);
    xr = (int64_t *) (xw + 2);
    xv = (double *) (xr + 4);
  }
};

/* A thread's place: its chunk c; q, the chunk's first lane in the block and
 * so the first of its vertex words; tc, the thread's index in the chunk;
 * its first point and its number of elements np (0 past the chunk's end). */
struct chunk_thread {
  gi_chunk c;
  int tid, lane, warp, q, tc, first, np;
};

__device__ __forceinline__ chunk_thread place_thread(const gi_plan &p, int tid)
{
  chunk_thread t;
  t.tid = tid;
  t.lane = tid & 31;
  t.warp = tid >> 5;
  const int64_t blane = (int64_t) blockIdx.x * THREADS;
  t.c = lane_chunk(p, blane + tid);
  t.q = (int) (t.c.lane0 - blane);
  t.tc = tid - t.q;
  t.first = t.tc * PTS;
  t.np = t.c.cnt > t.first ? min(PTS, t.c.cnt - t.first) : 0;
  return t;
}

/* Phase "load": the thread's 16 values and weights, negated for a
 * decreasing fit, 0 past np. The block's elements are contiguous (chunks
 * are placed in order), so they are staged through shared memory with
 * coalesced loads; a thread's 16 values then come from there, one padded
 * double per 16 keeping the banks apart. The staging area is the points',
 * free again after the closing barrier. The thread also clears its vertex
 * word here, barriers ahead of the hull phase, whose threads set the words
 * of others. */
template <typename T, bool WT>
__device__ __forceinline__ void load_values(const gi_plan &p, const chunk_smem<WT> &s,
                                            const chunk_thread &t, double (&v)[PTS],
                                            double (&wv)[PTS])
{
  const T *y = (const T *) p.y;
  const T *w = (const T *) p.w;
  s.W[t.tid] = 0u;

  /* the block's span of elements, over both warps */
  int64_t my_lo = t.np > 0 ? t.c.e0 + t.first : INT64_MAX;
  int64_t my_hi = t.np > 0 ? t.c.e0 + t.first + t.np : 0;
  for (int off = 16; off > 0; off >>= 1) {
    my_lo = min(my_lo, (int64_t) __shfl_xor_sync(0xffffffffu, (long long) my_lo, off));
    my_hi = max(my_hi, (int64_t) __shfl_xor_sync(0xffffffffu, (long long) my_hi, off));
  }
  if (t.lane == 0) {
    s.xr[2 * t.warp] = my_lo;
    s.xr[2 * t.warp + 1] = my_hi;
  }
  __syncthreads();
  my_lo = min(s.xr[0], s.xr[2]);
  my_hi = max(s.xr[1], s.xr[3]);
  double *stage_y = (double *) s.Ys, *stage_w = stage_y + NPOS;
  const int span = my_hi > my_lo ? (int) (my_hi - my_lo) : 0;
  for (int i = t.tid; i < span; i += THREADS) {
    stage_y[i + (i >> 4)] = (double) y[my_lo + i];
    if (WT) stage_w[i + (i >> 4)] = (double) w[my_lo + i];
  }
  __syncthreads();
  const int s0 = t.np > 0 ? (int) (t.c.e0 + t.first - my_lo) : 0;
#pragma unroll
  for (int k = 0; k < PTS; k++) {
    int i = s0 + k;
    v[k] = k < t.np ? stage_y[i + (i >> 4)] : 0.0;
    wv[k] = WT && k < t.np ? stage_w[i + (i >> 4)] : 0.0;
    if (p.decreasing) v[k] = -v[k];
  }
  __syncthreads();
}

/* The thread's totals, the sums of w y and of w (of y alone when
 * unweighted), into sy and sx; returns whether a value or weight lies
 * outside the window. */
template <bool WT>
__device__ __forceinline__ bool thread_totals(const double (&v)[PTS], const double (&wv)[PTS],
                                              int np, dd &sy, dd &sx)
{
  dd ty = dd_make(0.0), tx = dd_make(0.0);
  bool outside = false;
#pragma unroll
  for (int k = 0; k < PTS; k++) {
    if (k < np) {
      outside |= outside_window(v[k]) || (WT && outside_window(wv[k]));
      if (WT) {
        ty = dd_add(ty, two_prod(wv[k], v[k]));
        tx = dd_add_d(tx, wv[k]);
      } else {
        ty = dd_add_d(ty, v[k]);
      }
    }
  }
  sy = ty;
  sx = tx;
  return outside;
}

/* The thread's start, the point before its first, into st_y and st_x: an
 * exclusive scan of the totals over the chunk's threads, tw being the
 * thread's index among those in its warp. A chunk of 64 lanes spans both
 * warps, and warp 1 adds warp 0's total, which thread 31 leaves in shared
 * memory; every thread of the block reaches the barrier inside. */
template <bool WT>
__device__ __forceinline__ void thread_start(const chunk_smem<WT> &s, const chunk_thread &t,
                                             dd sy, dd sx, int tw, dd &st_y, dd &st_x)
{
  dd iy = sy, ix = sx;
  for (int off = 1; off < 32; off <<= 1) {
    dd ty = shfl_up_dd(iy, off), tx = shfl_up_dd(ix, off);
    if (tw >= off) {
      iy = dd_add(ty, iy);
      if (WT) ix = dd_add(tx, ix);
    }
  }
  if (t.tid == 31) {
    s.xw[0] = iy;
    s.xw[1] = ix;
  }
  dd ry = shfl_up_dd(iy, 1), rx = shfl_up_dd(ix, 1);
  if (tw == 0) { ry = dd_make(0.0); rx = dd_make(0.0); }
  __syncthreads();
  if (t.tc >= 32) {
    ry = dd_add(s.xw[0], ry);
    if (WT) rx = dd_add(s.xw[1], rx);
  }
  st_y = ry;
  st_x = rx;
}

/* Phase "sums": the chunk's running sums, relative to its first point, into
 * the thread's 16 point slots. The thread's totals come first, and its
 * sums are written once its start is known, so that shared memory is
 * written once per point. Values or weights beyond the window flag the
 * batch: the CPU's exact passes solve it. */
template <bool WT>
__device__ __forceinline__ void running_sums(const gi_plan &p, const chunk_smem<WT> &s,
                                             const chunk_thread &t, const double (&v)[PTS],
                                             const double (&wv)[PTS])
{
  dd sy, sx;
  if (thread_totals<WT>(v, wv, t.np, sy, sx)) atomicOr(p.flag, GI_FLAG_RANGE);
  const int tw = t.tc < 32 ? t.tc : t.tc - 32;
  dd ry, rx;
  thread_start<WT>(s, t, sy, sx, tw, ry, rx);
  const int o = spos(t.q, t.first + 1);
#pragma unroll
  for (int k = 0; k < PTS; k++) {
    if (k < t.np) {
      if (WT) {
        ry = dd_add(ry, two_prod(wv[k], v[k]));
        rx = dd_add_d(rx, wv[k]);
        s.Xs[o + k] = rx;
      } else {
        ry = dd_add_d(ry, v[k]);
      }
      s.Ys[o + k] = ry;
    }
  }
  __syncthreads();
}

/* The lower hull of the thread's points first .. first + np by the
 * monotone chain, its stack a bit mask with bit k for point first + k. a is
 * the entry under the top b, found again by counting zeros; each step pops
 * b or pushes point k. Unweighted abscissae here are thread-relative: turns
 * do not mind. */
template <bool WT>
__device__ __forceinline__ uint32_t monotone_chain(const chunk_smem<WT> &s, const chunk_thread &t)
{
  const int q = t.q, first = t.first, np = t.np;
  uint32_t mask = 0u;
  if (np > 0) {
    mask = 1u;
    int a = -1, b = 0, k = 1;
    pt pa = own_point<WT>(s.Ys, s.Xs, q, first, 0), pb = pa;
    pt pk = own_point<WT>(s.Ys, s.Xs, q, first, 1);
    while (k <= np) {
      if (a >= 0 && !convex_at(pa, pb, pk)) {
        mask &= ~(1u << b);
        b = a;
        pb = pa;
        uint32_t below = mask & ((1u << a) - 1u);
        a = below ? 31 - __clz(below) : -1;
        pa = own_point<WT>(s.Ys, s.Xs, q, first, a > 0 ? a : 0);
      } else {
        mask |= 1u << k;
        a = b; pa = pb;
        b = k; pb = pk;
        k++;
        pk = own_point<WT>(s.Ys, s.Xs, q, first, k <= np ? k : np);
      }
    }
  }
  return mask;
}

/* Phase "hull": the thread's hull into the chunk's vertex words, in which
 * bit i is the chunk's point i. A word of a chunk of two lanes or more
 * holds an even thread's bits 0..16 and the next one's shifted by 16 (they
 * share point 16); a chunk of one lane has its word to itself. The chunk's
 * end point, when it starts a word, goes into the chunk's next word. */
template <bool WT>
__device__ __forceinline__ void thread_hull(const chunk_smem<WT> &s, const chunk_thread &t)
{
  const uint32_t mask = monotone_chain<WT>(s, t);
  uint32_t other = __shfl_xor_sync(0xffffffffu, mask, 1);
  if (t.c.L == 1) other = 0u;
  if ((t.tc & 1) == 0 && t.np > 0) s.W[t.q + (t.tc >> 1)] = (mask & 0x1ffffu) | (other << 16);
  if (t.np > 0 && t.first + t.np == t.c.cnt && (t.c.cnt & 31) == 0 && ((mask >> t.np) & 1u))
    s.W[t.q + (t.c.cnt >> 5)] = 1u;
  __syncthreads();
}

/* The bridge of the two neighbouring hulls that share point sp, the left
 * one's points lo_end .. sp and the right one's sp .. hi_end, Wc being the
 * chunk's vertex words. Returns false when the chain is convex at sp, which
 * then stays a vertex. Otherwise the ends, from the vertices either side
 * of sp, move apart until the line between them supports both hulls; they
 * are returned in a_out and b_out, and their points stay in registers. */
template <bool WT>
__device__ __forceinline__ bool find_bridge(const chunk_smem<WT> &s, const uint32_t *Wc, int q,
                                            int sp, int lo_end, int hi_end, int &a_out,
                                            int &b_out)
{
  int a = prev_vertex(Wc, sp), b = next_vertex(Wc, sp);
  pt pb, pa; /* b first: declared a first, nvcc 13 gives the unweighted walk 6 more instructions */
  pa = point_at<WT>(s.Ys, s.Xs, q, a);
  pb = point_at<WT>(s.Ys, s.Xs, q, b);
  if (convex_at(pa, point_at<WT>(s.Ys, s.Xs, q, sp), pb)) return false;
  bool moved = true;
  int steps = 0;
  while (moved) {
    moved = false;
    while (a > lo_end) {
      int a2 = prev_vertex(Wc, a);
      pt p2 = point_at<WT>(s.Ys, s.Xs, q, a2);
      steps++;
      if (convex_at(p2, pa, pb)) break;
      a = a2; pa = p2; moved = true;
    }
    while (b < hi_end) {
      int b2 = next_vertex(Wc, b);
      pt p2 = point_at<WT>(s.Ys, s.Xs, q, b2);
      steps++;
      if (convex_at(pa, pb, p2)) break;
      b = b2; pb = p2; moved = true;
    }
  }
  PROF_COUNT(5, steps + 1); /* walk steps, in profiling builds */
  (void) steps;
  a_out = a;
  b_out = b;
  return true;
}

/* Clears the bits strictly between the bridge's ends a and b. A word with
 * nothing to clear is not written, as the neighbouring merge may be writing
 * the word that holds b. */
__device__ __forceinline__ void clear_under_bridge(uint32_t *Wc, int a, int b)
{
  for (int wi = a >> 5; wi <= (b >> 5); wi++) {
    int lo = wi << 5;
    uint32_t gone = 0xffffffffu;
    if (a >= lo) gone &= ~((2u << (a - lo)) - 1u);   /* bits > a */
    if (b < lo + 32) gone &= (1u << (b - lo)) - 1u;   /* bits < b */
    if (gone) Wc[wi] &= ~gone;
  }
}

/* Phase "merge": the threads' hulls merge pairwise in six rounds, round g
 * (1, 2, .. 32) joining hulls of g threads. The first thread of each pair
 * that has a right hull finds the bridge over the shared point and clears
 * the vertices under it; a barrier closes each round. */
template <bool WT>
__device__ __forceinline__ void merge_rounds(const chunk_smem<WT> &s, const chunk_thread &t)
{
  const int q = t.q, tc = t.tc;
  const gi_chunk &c = t.c;
  uint32_t *Wc = s.W + q;
  for (int g = 1; g < THREADS; g <<= 1) {
    if (c.cnt > 0 && tc % (2 * g) == 0 && tc + g < c.L && (tc + g) * PTS < c.cnt) {
      const int sp = (tc + g) * PTS, lo_end = tc * PTS;
      const int hi_end = min((tc + 2 * g) * PTS, c.cnt);
      int a, b;
      if (find_bridge<WT>(s, Wc, q, sp, lo_end, hi_end, a, b)) clear_under_bridge(Wc, a, b);
    }
    __syncthreads();
  }
}

/* Phase "out" for whole problems (and idle lanes): each element gets the
 * slope of the hull's edge above it, the edge cached while the thread's
 * elements stay under it. The threads of a problem take its elements in
 * turn, each warp a contiguous half of a problem that spans both, so that
 * the stores coalesce and each value's predecessor is held by the
 * neighbouring lane, or by the other warp at the half: a step the wrong way
 * flags the batch (GI_FLAG_STEP). Sums that left double range (an end
 * point not finite) flag it GI_FLAG_RANGE. */
template <typename T, bool WT>
__device__ __forceinline__ void fit_whole(const gi_plan &p, const chunk_smem<WT> &s,
                                          const chunk_thread &t)
{
  const gi_chunk &c = t.c;
  const int q = t.q, tc = t.tc, lane = t.lane;
  const uint32_t *Wc = s.W + q;
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
  for (int r = 0; r < rounds; r++) {
    const int e = eb + tl + G * r;
    const bool on = tl + G * r < here;
    T z = (T) 0;
    if (on) {
      if (e >= vr) { /* past the cached edge: the one over element e */
        vl = prev_vertex(Wc, e + 1);
        vr = next_vertex(Wc, vl);
        val = slope(point_at<WT>(s.Ys, s.Xs, q, vl), point_at<WT>(s.Ys, s.Xs, q, vr));
      }
      z = (T) (p.decreasing ? -val : val);
      fit[c.e0 + e] = z;
      if (p.starts) p.starts[c.e0 + e] = (unsigned char) (vl == e);
      if (r == 0) head = z;
      /* the second warp's part starts after the first's last value */
      if (tc == 31 && c.L == THREADS && e == 32 * PTS - 1) *s.xv = (double) z;
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
    T zp = (T) *s.xv;
    bad |= p.decreasing ? head > zp : head < zp;
  }
  if (bad) atomicOr(p.flag, GI_FLAG_STEP);
  if (t.np > 0 && t.first + t.np == c.cnt && !isfinite(point_at<WT>(s.Ys, s.Xs, q, c.cnt).y.hi))
    atomicOr(p.flag, GI_FLAG_RANGE);
}

/* Phase "out" for a chunk of a long problem, whose 64 lanes are the
 * block's, run by the first warp: the chunk's hull written once to its
 * vertex slot, each vertex ranked by a scan over the chunk's 33 words; a
 * descriptor of one segment spanning it; and the chunk's totals, which
 * gi_launch_chunk_starts scans (sums beyond double range flag
 * GI_FLAG_RANGE). */
template <bool WT>
__device__ __forceinline__ void write_chunk_hull(const gi_plan &p, const chunk_smem<WT> &s,
                                                 const chunk_thread &t)
{
  const gi_chunk &c = t.c;
  const int lane = t.lane;
  uint32_t mine = s.W[lane], extra = lane == 31 ? s.W[32] : 0u;
  int nv = __popc(mine) + __popc(extra), pos = nv;
  for (int off = 1; off < 32; off <<= 1) {
    int u = __shfl_up_sync(0xffffffffu, pos, off);
    if (lane >= off) pos += u;
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
      pt vx = point_at<WT>(s.Ys, s.Xs, 0, qp);
      p.slot_idx[so + pos] = (int16_t) qp;
      p.slot_y[so + pos] = vx.y;
      if (WT) p.slot_x[so + pos] = vx.x;
      pos++;
    }
  }
  if (lane == 0) {
    p.desc[c.mid] = gi_seg{c.mid, 0, total - 1};
    p.count[c.mid] = 1;
    pt end = point_at<WT>(s.Ys, s.Xs, 0, c.cnt);
    p.ctotal[2 * c.mid] = end.x;
    p.ctotal[2 * c.mid + 1] = end.y;
    if (!isfinite(end.y.hi)) atomicOr(p.flag, GI_FLAG_RANGE);
  }
}

/* The phases in turn, each ending at a barrier that every thread of the
 * block reaches (the last phase but for its end). A block holds whole
 * problems, or one chunk of a long problem, so that its threads all take
 * the same output. PROF_MARK(k) closes phase k in profiling builds. */
template <typename T, bool WT>
__global__ void __launch_bounds__(THREADS) chunk_kernel(gi_plan p)
{
  extern __shared__ double smem_d[];
  const chunk_smem<WT> s(smem_d);
  const int tid = threadIdx.x;
  PROF_START;
  const chunk_thread t = place_thread(p, tid);

  double v[PTS], wv[PTS];
  load_values<T, WT>(p, s, t, v, wv);
  PROF_MARK(0);
  running_sums<WT>(p, s, t, v, wv);
  PROF_MARK(1);
  thread_hull<WT>(s, t);
  PROF_MARK(2);
  merge_rounds<WT>(s, t);
  PROF_MARK(3);
  if (t.c.mid < 0) {
    fit_whole<T, WT>(p, s, t);
    PROF_MARK(4);
    return;
  }
  if (t.warp == 1) return; /* the first warp writes a long chunk's hull */
  write_chunk_hull<WT>(p, s, t);
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

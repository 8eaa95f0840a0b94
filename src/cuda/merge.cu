/*
 * gpuiso CUDA engine, second and third stages for problems longer than a
 * chunk (paper, 3.3-3.4 and 4): the chunks' starting points by a scan of
 * their totals, the merge levels on segment lists, and the fit.
 *
 * A merged hull is a list of segments (chunk, first vertex, last vertex),
 * at most one per chunk, kept in the descriptor slots of its chunks from
 * its first chunk on. A merge finds the bridge between two neighbouring
 * lists (a walk of at most GI_WALK steps from the shared point, 32 steps
 * at a time when a warp walks, else a bisection), cuts the two segments
 * it lands in and moves the right list's remaining descriptors down behind
 * the left one. No vertex is copied.
 */
#include <climits>
#include <cub/cub.cuh>
#include <cuda/std/functional>
#include "engine.cuh"

#define GI_WALK 64

/* ---- chunk starts ------------------------------------------------------ */

/* A chunk's first point (x, y): the running sums of the chunk totals before
 * it in its problem, an exclusive scan by problem, in pairs. */
struct xy {
  dd x, y;
};

struct xy_add {
  __device__ __forceinline__ xy operator()(const xy &a, const xy &b) const
  {
    return xy{dd_add(a.x, b.x), dd_add(a.y, b.y)};
  }
};

static cudaError_t scan_starts(void *tmp, size_t &bytes, const gi_plan &p,
                               cudaStream_t s)
{
  xy zero{dd{0.0, 0.0}, dd{0.0, 0.0}};
  return cub::DeviceScan::ExclusiveScanByKey(tmp, bytes, p.keys, (const xy *) p.ctotal,
                                             (xy *) p.cstart, xy_add(), zero,
                                             p.nmulti, ::cuda::std::equal_to<>{}, s);
}

size_t gi_chunk_starts_scratch(const gi_plan &p)
{
  size_t bytes = 0;
  if (p.nmulti > 0) scan_starts(nullptr, bytes, p, 0);
  return bytes;
}

cudaError_t gi_launch_chunk_starts(const gi_plan &p, void *scratch,
                                   size_t scratch_bytes, cudaStream_t s)
{
  if (p.nmulti == 0) return cudaSuccess;
  return scan_starts(scratch, scratch_bytes, p, s);
}

/* ---- vertices of segment lists ----------------------------------------- */

/* A vertex: descriptor position and slot position. */
struct vref {
  int64_t di;
  int pos;
};

template <bool WT>
__device__ __forceinline__ pt vertex_pt(const gi_plan &p, int64_t j, int pos)
{
  const int64_t k = j * GI_SLOT + pos;
  pt r;
  r.y = dd_add(p.cstart[2 * j + 1], p.slot_y[k]);
  r.x = dd_add(p.cstart[2 * j], WT ? p.slot_x[k] : dd_make((double) p.slot_idx[k]));
  return r;
}

template <bool WT>
__device__ __forceinline__ pt vpt(const gi_plan &p, vref v)
{
  return vertex_pt<WT>(p, p.desc[v.di].j, v.pos);
}

__device__ __forceinline__ vref vprev(const gi_plan &p, vref v)
{
  if (v.pos > p.desc[v.di].l) return vref{v.di, v.pos - 1};
  return vref{v.di - 1, p.desc[v.di - 1].h};
}

__device__ __forceinline__ vref vnext(const gi_plan &p, vref v)
{
  if (v.pos < p.desc[v.di].h) return vref{v.di, v.pos + 1};
  return vref{v.di + 1, p.desc[v.di + 1].l};
}

/* The vertex of the right list R = [r0, r1) where the tangent from a
 * touches it: the first k whose successor lies strictly above the line
 * from a through k (the last vertex if none), by bisection over segments
 * and then within one. */
template <bool WT>
__device__ vref tangent(const gi_plan &p, const pt &a, int64_t r0, int64_t r1)
{
  int64_t lo = r0, hi = r1 - 1;
  while (lo < hi) { /* first segment whose last vertex passes */
    int64_t md = (lo + hi) >> 1;
    vref v{md, p.desc[md].h};
    if (convex_at(a, vpt<WT>(p, v), vpt<WT>(p, vnext(p, v)))) hi = md; else lo = md + 1;
  }
  int pl = p.desc[lo].l, ph = p.desc[lo].h;
  while (pl < ph) {
    int md = (pl + ph) >> 1;
    vref v{lo, md};
    if (convex_at(a, vpt<WT>(p, v), vpt<WT>(p, vref{lo, md + 1}))) ph = md; else pl = md + 1;
  }
  return vref{lo, pl};
}

/* Is a at or right of the bridge's left end: does its successor lie on or
 * above the line from a to its tangent point on R? */
template <bool WT>
__device__ bool past_left_end(const gi_plan &p, vref a, int64_t r0, int64_t r1)
{
  pt pa = vpt<WT>(p, a);
  vref t = tangent<WT>(p, pa, r0, r1);
  return !convex_at(pa, vpt<WT>(p, vnext(p, a)), vpt<WT>(p, t));
}

/* The ends of a merge: the shared point s (as L's last vertex and R's
 * first) and the lists' outer vertices. */
struct ends {
  vref sl, sr, lfirst, rlast;
};

__device__ __forceinline__ ends merge_ends(const gi_plan &p, int64_t l0, int nl, int64_t r0,
                                           int nr)
{
  return ends{vref{l0 + nl - 1, p.desc[l0 + nl - 1].h}, vref{r0, p.desc[r0].l},
              vref{l0, p.desc[l0].l}, vref{r0 + nr - 1, p.desc[r0 + nr - 1].h}};
}

__device__ __forceinline__ bool same(vref u, vref v) { return u.di == v.di && u.pos == v.pos; }

/* After the walk: a bisection when it took more than GI_WALK steps, then
 * the bridge's ends as the cut wants them. Returns false when the bridge
 * is the shared point itself. */
template <bool WT>
__device__ bool bridge_finish(const gi_plan &p, const ends &e, int64_t l0, int nl,
                              int64_t r0, int nr, bool walked_out, vref a, vref b,
                              vref *A, vref *B)
{
  if (walked_out) {
    /* bisection: the first vertex of L (s excluded) past the left end */
    int64_t lo = l0, hi = l0 + nl - 1;
    while (lo < hi) {
      int64_t md = (lo + hi) >> 1;
      if (past_left_end<WT>(p, vref{md, p.desc[md].h}, r0, r0 + nr)) hi = md; else lo = md + 1;
    }
    int pl = p.desc[lo].l, ph = p.desc[lo].h;
    while (pl < ph) {
      int md = (pl + ph) >> 1;
      if (past_left_end<WT>(p, vref{lo, md}, r0, r0 + nr)) ph = md; else pl = md + 1;
    }
    a = vref{lo, pl};
    b = tangent<WT>(p, vpt<WT>(p, a), r0, r0 + nr);
  }
  if (same(a, e.sl)) return false;
  if (same(b, e.sr)) b = vnext(p, b);
  *A = a;
  *B = b;
  return true;
}

/* The bridge between L = [l0, l0 + nl) and R = [r0, r0 + nr), which share
 * their boundary point, found by one thread. Returns false when the chain
 * is convex there. */
template <bool WT>
__device__ bool find_bridge(const gi_plan &p, int64_t l0, int nl, int64_t r0,
                            int nr, vref *A, vref *B)
{
  const ends e = merge_ends(p, l0, nl, r0, nr);
  vref a = vprev(p, e.sl), b = vnext(p, e.sr);
  pt pa = vpt<WT>(p, a), pb = vpt<WT>(p, b);
  if (convex_at(pa, vpt<WT>(p, e.sl), pb)) return false;

  /* walk outwards from the shared point, at most GI_WALK steps */
  int steps = 0;
  bool moved = true;
  while (moved && steps <= GI_WALK) {
    moved = false;
    while (!same(a, e.lfirst) && steps <= GI_WALK) {
      vref a2 = vprev(p, a);
      pt p2 = vpt<WT>(p, a2);
      if (convex_at(p2, pa, pb)) break;
      a = a2; pa = p2; moved = true; steps++;
    }
    while (!same(b, e.rlast) && steps <= GI_WALK) {
      vref b2 = vnext(p, b);
      pt p2 = vpt<WT>(p, b2);
      if (convex_at(pa, pb, p2)) break;
      b = b2; pb = p2; moved = true; steps++;
    }
  }
  return bridge_finish<WT>(p, e, l0, nl, r0, nr, steps > GI_WALK, a, b, A, B);
}

/* The same bridge found by a warp, which tests 32 steps of a walk at once:
 * lane k looks at the k-th vertex from the walking end within its segment
 * and the first that would stop the walk is where the walk stops. The step
 * count, and with it the switch to the bisection, is the serial walk's, so
 * the bridge is the same to the bit. Every lane gets the result. */
template <bool WT>
__device__ bool find_bridge_warp(const gi_plan &p, int64_t l0, int nl, int64_t r0, int nr,
                                 vref *A, vref *B)
{
  const int lane = threadIdx.x & 31;
  const ends e = merge_ends(p, l0, nl, r0, nr);
  vref a = vprev(p, e.sl), b = vnext(p, e.sr);
  if (convex_at(vpt<WT>(p, a), vpt<WT>(p, e.sl), vpt<WT>(p, b))) return false;

  int steps = 0;
  bool moved = true;
  while (moved && steps <= GI_WALK) {
    moved = false;
    /* the left end moves to its predecessors while their turn with b is
     * not convex, stopping at L's first vertex */
    const pt pb = vpt<WT>(p, b);
    while (steps <= GI_WALK) {
      const gi_seg d = p.desc[a.di];
      const vref v{a.di, a.pos - lane};
      bool stop = false;
      if (v.pos >= d.l)
        stop = same(v, e.lfirst) || convex_at(vpt<WT>(p, vprev(p, v)), vpt<WT>(p, v), pb);
      const unsigned m = __ballot_sync(0xffffffffu, stop);
      const int left = a.pos - d.l + 1; /* vertices of the segment from a on */
      const int k = m ? __ffs(m) - 1 : min(left, 32); /* moves */
      if (k > 0) moved = true;
      if (steps + k > GI_WALK) { steps = GI_WALK + 1; break; }
      steps += k;
      if (m) { a.pos -= k; break; }
      if (k < left) a.pos -= k;
      else a = vref{a.di - 1, p.desc[a.di - 1].h};
    }
    const pt pa = vpt<WT>(p, a);
    while (steps <= GI_WALK) {
      const gi_seg d = p.desc[b.di];
      const vref v{b.di, b.pos + lane};
      bool stop = false;
      if (v.pos <= d.h)
        stop = same(v, e.rlast) || convex_at(pa, vpt<WT>(p, v), vpt<WT>(p, vnext(p, v)));
      const unsigned m = __ballot_sync(0xffffffffu, stop);
      const int left = d.h - b.pos + 1;
      const int k = m ? __ffs(m) - 1 : min(left, 32);
      if (k > 0) moved = true;
      if (steps + k > GI_WALK) { steps = GI_WALK + 1; break; }
      steps += k;
      if (m) { b.pos += k; break; }
      if (k < left) b.pos += k;
      else b = vref{b.di + 1, p.desc[b.di + 1].l};
    }
  }
  return bridge_finish<WT>(p, e, l0, nl, r0, nr, steps > GI_WALK, a, b, A, B);
}

/* Cut the lists at the bridge (or drop R's copy of the shared point) and
 * return where R's kept descriptors start and how many L keeps. */
__device__ __forceinline__ void cut(const gi_plan &p, bool bridged, vref a, vref b,
                                    int64_t l0, int nl, int64_t r0,
                                    int64_t *from, int *keep_l)
{
  if (!bridged) {
    *keep_l = nl;
    if (p.desc[r0].l < p.desc[r0].h) {
      p.desc[r0].l += 1;
      *from = r0;
    } else {
      *from = r0 + 1;
    }
    return;
  }
  p.desc[a.di].h = a.pos;
  *keep_l = (int) (a.di - l0 + 1);
  p.desc[b.di].l = b.pos;
  *from = b.di;
}

/* The merge of level `level` whose left list starts at chunk `mid`, if
 * there is one. */
__device__ __forceinline__ bool merge_at(const gi_plan &p, int64_t mid, int level,
                                         int64_t *r0)
{
  gi_multi mc = p.multi[mid];
  int64_t c = mid - mc.first;
  int64_t half = (int64_t) 1 << level;
  if (c % (2 * half) != 0 || c + half >= mc.m) return false;
  *r0 = mid + half;
  return true;
}

template <bool WT>
__global__ void merge_thread_kernel(gi_plan p, int level)
{
  int64_t mid = (int64_t) blockIdx.x * blockDim.x + threadIdx.x, r0;
  if (mid >= p.nmulti || !merge_at(p, mid, level, &r0)) return;
  int nl = p.count[mid], nr = p.count[r0];
  vref a{0, 0}, b{0, 0};
  bool bridged = find_bridge<WT>(p, mid, nl, r0, nr, &a, &b);
  int64_t from;
  int keep;
  cut(p, bridged, a, b, mid, nl, r0, &from, &keep);
  int64_t to = mid + keep, end = r0 + nr;
  for (int64_t k = from; k < end; k++) p.desc[to + (k - from)] = p.desc[k];
  p.count[mid] = keep + (int) (end - from);
}

/* A warp per merge: the warp finds the bridge, lane 0 cuts the lists and
 * the warp moves the right list's descriptors in coalesced rounds (read
 * all, then write, so that the overlapping ranges stay intact). */
template <bool WT>
__global__ void merge_warp_kernel(gi_plan p, int level)
{
  int64_t mid = ((int64_t) blockIdx.x * blockDim.x + threadIdx.x) >> 5, r0;
  int lane = threadIdx.x & 31;
  if (mid >= p.nmulti || !merge_at(p, mid, level, &r0)) return;
  int nl = p.count[mid], nr = p.count[r0];
  int64_t from = 0;
  int keep = 0;
  vref a{0, 0}, b{0, 0};
  bool bridged = find_bridge_warp<WT>(p, mid, nl, r0, nr, &a, &b);
  __syncwarp();
  if (lane == 0) cut(p, bridged, a, b, mid, nl, r0, &from, &keep);
  from = __shfl_sync(0xffffffffu, from, 0);
  keep = __shfl_sync(0xffffffffu, keep, 0);
  __syncwarp();
  int64_t to = mid + keep, end = r0 + nr;
  for (int64_t k0 = from; k0 < end; k0 += 32) {
    int64_t k = k0 + lane;
    gi_seg d;
    if (k < end) d = p.desc[k];
    __syncwarp();
    if (k < end) p.desc[to + (k - from)] = d;
    __syncwarp();
  }
  if (lane == 0) p.count[mid] = keep + (int) (end - from);
}

void gi_launch_merge_level(const gi_plan &p, int level, int warp_per_merge,
                           cudaStream_t s)
{
  if (p.nmulti == 0) return;
  bool wt = p.w != nullptr;
  if (warp_per_merge) {
    unsigned blocks = (unsigned) ((p.nmulti * 32 + 255) / 256);
    if (wt) merge_warp_kernel<true><<<blocks, 256, 0, s>>>(p, level);
    else merge_warp_kernel<false><<<blocks, 256, 0, s>>>(p, level);
  } else {
    unsigned blocks = (unsigned) ((p.nmulti + 127) / 128);
    if (wt) merge_thread_kernel<true><<<blocks, 128, 0, s>>>(p, level);
    else merge_thread_kernel<false><<<blocks, 128, 0, s>>>(p, level);
  }
}

/* ---- the fit of long problems ------------------------------------------ */

/* The slope of the edge from vertex (ja, qa) to (jb, qb), rounded to T
 * with the sign of the fit. */
template <typename T, bool WT>
__device__ __forceinline__ T edge_value(const gi_plan &p, int64_t ja, int qa, int64_t jb,
                                        int qb)
{
  double v = slope(vertex_pt<WT>(p, ja, qa), vertex_pt<WT>(p, jb, qb));
  return (T) (p.decreasing ? -v : v);
}

/* A warp per chunk: find the chunk's place in its problem's final list,
 * then give each element the slope of the hull edge above it. The lanes
 * take the elements in turn, each keeping its edge while its elements lie
 * under it, and compare every value with the one before it (the
 * neighbouring lane's, or across the chunk's start the edge that ends
 * there): a step the wrong way flags the batch (GI_FLAG_STEP). */
template <typename T, bool WT>
__global__ void long_fit_kernel(gi_plan p)
{
  int64_t mid = ((int64_t) blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (mid >= p.nmulti) return;
  const gi_multi mc = p.multi[mid];
  const int64_t f = mc.first, end = f + p.count[f];
  int64_t lo = f, hi = end;
  while (lo < hi) { /* the first segment of a chunk >= mid */
    int64_t md = (lo + hi) >> 1;
    if (p.desc[md].j < mid) lo = md + 1; else hi = md;
  }
  const int64_t qd = lo;
  const bool has = qd < end && p.desc[qd].j == mid;
  const int64_t so = mid * (int64_t) GI_SLOT;
  int sl = 0, sh = 0, pl = 0, ph = 0;
  if (has) {
    sl = p.desc[qd].l; sh = p.desc[qd].h;
    pl = p.slot_idx[so + sl]; ph = p.slot_idx[so + sh];
  }
  T *fit = (T *) p.fit;
  int upto = -1; /* the cached edge covers the lane's elements below this */
  int a0 = sl;   /* the last vertex of the segment at or before them */
  T z = (T) 0, before = (T) 0, head = (T) 0;
  bool bad = false, head_starts = false;
  const int rounds = (mc.cnt + 31) >> 5;
  for (int t = 0; t < rounds; t++) {
    const int e = lane + 32 * t;
    const bool on = e < mc.cnt;
    if (on && e >= upto) {
      int64_t ja, jb;
      int qa, qb;
      if (!has) {
        ja = p.desc[qd - 1].j; qa = p.desc[qd - 1].h;
        jb = p.desc[qd].j; qb = p.desc[qd].l;
        upto = INT_MAX;
      } else if (e < pl) {
        ja = p.desc[qd - 1].j; qa = p.desc[qd - 1].h;
        jb = mid; qb = sl;
        upto = pl;
      } else if (e >= ph) {
        ja = mid; qa = sh;
        jb = p.desc[qd + 1].j; qb = p.desc[qd + 1].l;
        upto = INT_MAX;
      } else {
        int a1 = sh - 1; /* the last vertex at or before e */
        while (a0 < a1) {
          int md = (a0 + a1 + 1) >> 1;
          if (p.slot_idx[so + md] <= e) a0 = md; else a1 = md - 1;
        }
        ja = mid; qa = a0; jb = mid; qb = a0 + 1;
        upto = p.slot_idx[so + a0 + 1];
      }
      z = edge_value<T, WT>(p, ja, qa, jb, qb);
      /* a block starts here when the edge's left end is this point */
      const int64_t kka = ja * GI_SLOT + qa;
      bool st = ja == mid ? p.slot_idx[kka] == e
                          : (e == 0 && ja == mid - 1 && p.slot_idx[kka] == GI_CHUNK);
      if (e == 0) head_starts = st;
      if (p.starts) p.starts[mc.e0 + e] = (unsigned char) st;
    } else if (on && p.starts) {
      p.starts[mc.e0 + e] = 0;
    }
    if (on) fit[mc.e0 + e] = z;
    if (t == 0) head = z;
    T left = __shfl_sync(0xffffffffu, z, lane > 0 ? lane - 1 : 0);
    T last = __shfl_sync(0xffffffffu, z, 31);
    if (on && e > 0) {
      T zp = lane > 0 ? left : before;
      bad |= p.decreasing ? z > zp : z < zp;
    }
    before = last;
  }
  /* across the chunk's start: when its first point is a vertex, the edge
   * before it ends there, at the previous chunk's last slot entry */
  if (lane == 0 && mid != f && head_starts) {
    const int64_t d = qd - 1;
    int64_t jp;
    int qp;
    if (p.desc[d].h > p.desc[d].l) { jp = p.desc[d].j; qp = p.desc[d].h - 1; }
    else { jp = p.desc[d - 1].j; qp = p.desc[d - 1].h; }
    T zp = edge_value<T, WT>(p, jp, qp, p.desc[d].j, p.desc[d].h);
    bad |= p.decreasing ? head > zp : head < zp;
  }
  if (bad) atomicOr(p.flag, GI_FLAG_STEP);
}

void gi_launch_long_fit(const gi_plan &p, cudaStream_t s)
{
  if (p.nmulti == 0) return;
  unsigned blocks = (unsigned) ((p.nmulti * 32 + 255) / 256);
  bool wt = p.w != nullptr;
  if (p.single) {
    if (wt) long_fit_kernel<float, true><<<blocks, 256, 0, s>>>(p);
    else long_fit_kernel<float, false><<<blocks, 256, 0, s>>>(p);
  } else {
    if (wt) long_fit_kernel<double, true><<<blocks, 256, 0, s>>>(p);
    else long_fit_kernel<double, false><<<blocks, 256, 0, s>>>(p);
  }
}

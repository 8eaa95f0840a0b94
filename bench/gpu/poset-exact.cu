// The floor of an exact GPU method for IDR's threshold problems on two
// covariates: one thread per threshold, each running the partitioning
// algorithm of src/core/poset.c with the staircase cut of
// src/core/plane_cut.c, with no communication between thresholds.
//
//     nvcc -O3 -arch=sm_90 -o poset-exact bench/gpu/poset-exact.cu
//     ./poset-exact [--cpu] FILE [contiguous|interleaved|shared|both] [block]
//
// (--cpu: the same solver on the host, one threshold after another, to
// check it without a GPU; the layout argument picks the workspace's layout
// there too, and "both", the default, runs every layout, the first two on
// the host. block: threads per block, 32 by default, so that the few warps
// of a launch spread over the SMs.)
//
// FILE from bench/gpu/poset-exact-data.R. The nodes are renumbered by their
// lexicographic position on reading (y, w, rank and the exact fits moved
// with them; IDR could order its data so for free). A set's nodes are then
// a segment of a per-threshold permutation kept in increasing order, which a
// stable split preserves, so no sort is ever needed.
//
// Per threshold: a stack of segments, each with its weight and weighted sum
// of y (the sums of both parts come out of the split pass, so a set's mean
// costs no pass of its own). A set of mean m takes the costs
// c_i = w_i (y_i - m); the forward pass of the staircase cut (steps over
// the ranks, with a bitset of the non-zero ones) gives each point its reach,
// and one pass back decides U, empties the steps, sums both parts and splits
// the segment in place (S \ U compacted to the top of the segment, U via a
// scratch array to its bottom). A set is final when the cut's value is not
// above 64 ulps of sum |c_i| (poset.c's test).
//
// Two layouts of the per-thread workspace (global memory): "contiguous"
// (each thread's arrays together) and "interleaved" (element q of thread t
// at q * T + t, so that threads walking the same index read one line). y and
// the fits are stored threshold-major for the first and node-major for the
// second, for the same reason. A launch takes as many thresholds as 8 GB
// of workspace holds. A third layout, "shared", puts one threshold's
// workspace in a block's shared memory (see solve_kernel_shared()).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <cmath>
#include <cfloat>
#include <vector>
#include <algorithm>
#include <chrono>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

#define MAX_LEVELS 6  // bitset levels: 64^6 ranks at most

struct Input {
  int n, K, nrank;
  std::vector<int> rank;                 // by lexicographic position
  std::vector<double> w, y, exact;       // by position; y, exact threshold-major
};

static void read_input(const char *file, Input &P)
{
  FILE *f = fopen(file, "rb");
  if (!f) { perror(file); exit(1); }
  int h[3];
  if (fread(h, 4, 3, f) != 3) { fprintf(stderr, "short file\n"); exit(1); }
  P.n = h[0]; P.K = h[1]; P.nrank = h[2];
  int n = P.n;
  size_t nk = (size_t) n * P.K;
  std::vector<int> pos(n), rank(n);
  std::vector<double> w(n), y(nk), ex(nk);
  if (fread(pos.data(), 4, n, f) != (size_t) n || fread(rank.data(), 4, n, f) != (size_t) n ||
      fread(w.data(), 8, n, f) != (size_t) n || fread(y.data(), 8, nk, f) != nk ||
      fread(ex.data(), 8, nk, f) != nk) {
    fprintf(stderr, "short file\n"); exit(1);
  }
  fclose(f);
  P.rank.resize(n); P.w.resize(n); P.y.resize(nk); P.exact.resize(nk);
  for (int i = 0; i < n; i++) { P.rank[pos[i]] = rank[i]; P.w[pos[i]] = w[i]; }
  for (int k = 0; k < P.K; k++)
    for (int i = 0; i < n; i++) {
      P.y[(size_t) k * n + pos[i]] = y[(size_t) k * n + i];
      P.exact[(size_t) k * n + pos[i]] = ex[(size_t) k * n + i];
    }
}

// One thread's array: element q at p[q * s] (interleaved) or p[q].
template <class T, bool IL> struct Arr {
  T *p;
  size_t s;
  __host__ __device__ T &operator[](size_t q) const { return IL ? p[q * s] : p[q]; }
};

// What all thresholds share, and the shape of the bitset: level l has
// words off[l + 1] - off[l], the last one word.
struct Shared {
  int n, nrank, nlev, off[MAX_LEVELS + 1];
  const int *rank;
  const double *w;
};

// The bytes of one thread's workspace (the arrays of Work below).
static size_t ws_bytes(const Shared &S)
{
  return 4 * (4 * (size_t) S.n + 1) + 16 * ((size_t) S.n + 1) + 8 * (size_t) S.nrank +
         8 * (size_t) S.off[S.nlev];
}

template <bool IL> struct Work {
  Arr<int, IL> perm, tmp, reach, seg;  // nodes by segment; U scratch; reach; stack starts
  Arr<double, IL> ssw, sswy;           // the stack's weights and weighted sums
  Arr<double, IL> step;                // the staircase's steps over the ranks (zero between cuts)
  Arr<uint64_t, IL> bits;              // the bitset of the non-zero steps
  int cap;                             // stack entries (n + 1 but in shared memory)
  int *full;                           // set when the stack would pass cap (shared only)
};

__host__ __device__ inline int top_bit(uint64_t m)
{
#ifdef __CUDA_ARCH__
  return 63 - __clzll((long long) m);
#else
  return 63 - __builtin_clzll(m);
#endif
}

template <bool IL>
__host__ __device__ inline void bit_set(const Shared &S, const Arr<uint64_t, IL> &B, int x)
{
  for (int l = 0; l < S.nlev; l++) {
    size_t i = S.off[l] + (x >> 6);
    uint64_t was = B[i];
    B[i] = was | ((uint64_t) 1 << (x & 63));
    if (was != 0) return;  // the levels above know this word
    x >>= 6;
  }
}

template <bool IL>
__host__ __device__ inline void bit_clear(const Shared &S, const Arr<uint64_t, IL> &B, int x)
{
  for (int l = 0; l < S.nlev; l++) {
    size_t i = S.off[l] + (x >> 6);
    uint64_t v = B[i] & ~((uint64_t) 1 << (x & 63));
    B[i] = v;
    if (v != 0) return;
    x >>= 6;
  }
}

// The largest set position <= x, or -1.
template <bool IL>
__host__ __device__ inline int bit_pred(const Shared &S, const Arr<uint64_t, IL> &B, int x)
{
  for (int l = 0; l < S.nlev && x >= 0; l++) {
    int wi = x >> 6, b = x & 63;
    uint64_t m = B[S.off[l] + wi] & (b == 63 ? ~(uint64_t) 0 : (((uint64_t) 2 << b) - 1));
    if (m != 0) {
      x = (wi << 6) + top_bit(m);
      for (int d = l - 1; d >= 0; d--) x = (x << 6) + top_bit(B[S.off[d] + x]);
      return x;
    }
    x = wi - 1;  // the words before wi, one level up
  }
  return -1;
}

// The shape of the split trees, gathered by --cpu: per depth, the sets cut
// there (over all thresholds), their points and the largest. A GPU thread
// walks its threshold's sets one after another, so its time follows the
// points it visits; a schedule of one launch per depth would follow the sum
// over depths of the largest set (the critical path).
struct TreeStats {
  std::vector<long> sets, points, largest;
  std::vector<int> depth;  // of each stack entry
};

// One threshold: y[v * ys] the response of node v (lexicographic number),
// the fit written to fit[v * ys]. T: split-tree statistics (host only).
template <bool IL>
__host__ __device__ void solve_one(const Shared &S, const double *y, double *fit, size_t ys,
                                   const Work<IL> &W, TreeStats *T = nullptr)
{
  const int n = S.n;
  const int *rank = S.rank;
  const double *w = S.w;
  double sw = 0, swy = 0;
  for (int i = 0; i < n; i++) {
    W.perm[i] = i;
    sw += w[i];
    swy += w[i] * y[i * ys];
  }
  // the stack's segments tile [0, end): each ends where the one above starts
  int nseg = 1, end = n;
  W.seg[0] = 0; W.ssw[0] = sw; W.sswy[0] = swy;
#ifndef __CUDA_ARCH__
  if (T) T->depth[0] = 0;
#endif
  while (nseg > 0) {
    nseg--;
    const int a0 = W.seg[nseg], k = end - a0;
    const double m = W.sswy[nseg] / W.ssw[nseg];
#ifndef __CUDA_ARCH__
    if (T) {
      size_t d = T->depth[nseg];
      if (T->sets.size() <= d) {
        T->sets.resize(d + 1); T->points.resize(d + 1); T->largest.resize(d + 1);
      }
      T->sets[d]++; T->points[d] += k; T->largest[d] = std::max(T->largest[d], (long) k);
    }
#endif
    if (k == 1) {
      fit[W.perm[a0] * ys] = m;
      end = a0;
      continue;
    }
    // forward pass of the cut: the steps d(l) of the best value E(l)
    double csum = 0;
    for (int q = 0; q < k; q++) {
      int v = W.perm[a0 + q], r = rank[v];
      double c = w[v] * (y[v * ys] - m);
      csum += fabs(c);
      if (c >= 0) {
        if (c > 0) {
          if (W.step[r] == 0.0) bit_set(S, W.bits, r);
          W.step[r] += c;
        }
        W.reach[q] = r;
        continue;
      }
      double need = -c;
      int at = bit_pred(S, W.bits, r);
      while (at >= 0 && W.step[at] < need) {
        need -= W.step[at];
        W.step[at] = 0.0;
        bit_clear(S, W.bits, at);
        at = bit_pred(S, W.bits, at - 1);
      }
      if (at >= 0) {
        double s = W.step[at] - need;
        if (!(s > 0.0)) {
          s = 0.0;
          bit_clear(S, W.bits, at);
        }
        W.step[at] = s;
      }
      W.reach[q] = at;
    }
    // pass back: U, the steps emptied for the next cut, both parts' sums,
    // and the split (S \ U compacted upwards in place, positions >= q being
    // read already; U into tmp, last first)
    int b = 0, nu = 0, nl = 0;
    double value = 0, uw = 0, uwy = 0, lw = 0, lwy = 0;
    for (int q = k - 1; q >= 0; q--) {
      int v = W.perm[a0 + q], r = rank[v];
      if (W.step[r] != 0.0) {
        W.step[r] = 0.0;
        bit_clear(S, W.bits, r);
      }
      double wv = w[v], yv = y[v * ys];
      if (b <= W.reach[q]) {
        value += wv * (yv - m);
        uw += wv;
        uwy += wv * yv;
        W.tmp[nu++] = v;
      } else {
        if (b <= r) b = r + 1;
        lw += wv;
        lwy += wv * yv;
        W.perm[a0 + k - 1 - nl++] = v;
      }
    }
    if (nu == 0 || nu == k || !(value > 64.0 * DBL_EPSILON * csum)) {
      for (int q = 0; q < nu; q++) fit[W.tmp[q] * ys] = m;
      for (int q = nu; q < k; q++) fit[W.perm[a0 + q] * ys] = m;
      end = a0;
      continue;
    }
    for (int q = 0; q < nu; q++) W.perm[a0 + q] = W.tmp[nu - 1 - q];
#ifndef __CUDA_ARCH__
    if (T) T->depth[nseg + 1] = T->depth[nseg] + 1;  // both children, one deeper
    if (T) T->depth[nseg] = T->depth[nseg + 1];
#endif
    if (nseg + 2 > W.cap) {  // only a capped stack (shared memory) can get here
      *W.full = 1;
      return;
    }
    W.seg[nseg] = a0; W.ssw[nseg] = uw; W.sswy[nseg] = uwy; nseg++;
    W.seg[nseg] = a0 + nu; W.ssw[nseg] = lw; W.sswy[nseg] = lwy; nseg++;
  }
}

// Thread t's arrays in a workspace of `stride` threads, each array of
// `stride` times its length: thread t's elements interleaved, or together.
template <bool IL> struct Pool {
  int *perm, *tmp, *reach, *seg;
  double *ssw, *sswy, *step;
  uint64_t *bits;
};

template <bool IL>
__host__ __device__ inline Work<IL> work_of(const Shared &S, const Pool<IL> &P, size_t t,
                                            size_t stride)
{
  size_t n = S.n, n1 = n + 1, nr = S.nrank, nw = S.off[S.nlev];
  Work<IL> W;
  if (IL) {
    W.perm = {P.perm + t, stride}; W.tmp = {P.tmp + t, stride};
    W.reach = {P.reach + t, stride}; W.seg = {P.seg + t, stride};
    W.ssw = {P.ssw + t, stride}; W.sswy = {P.sswy + t, stride};
    W.step = {P.step + t, stride}; W.bits = {P.bits + t, stride};
  } else {
    W.perm = {P.perm + t * n, 1}; W.tmp = {P.tmp + t * n, 1};
    W.reach = {P.reach + t * n, 1}; W.seg = {P.seg + t * n1, 1};
    W.ssw = {P.ssw + t * n1, 1}; W.sswy = {P.sswy + t * n1, 1};
    W.step = {P.step + t * nr, 1}; W.bits = {P.bits + t * nw, 1};
  }
  W.cap = S.n + 1;
  W.full = nullptr;
  return W;
}

// Thresholds k0 .. k0 + T - 1, one a thread: threshold k's y at
// y + k * yk, node v's at stride yv.
template <bool IL>
__global__ void solve_kernel(Shared S, Pool<IL> P, size_t stride, const double *y, double *fit,
                             size_t yk, size_t yv, int k0, int T)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= T) return;
  size_t k = (size_t) k0 + t;
  solve_one<IL>(S, y + k * yk, fit + k * yk, yv, work_of<IL>(S, P, t, stride));
}

// The third layout, "shared": one threshold per block of one thread, its
// workspace in the SM's shared memory (latency of tens of cycles instead of
// hundreds), the stack capped at SHARED_CAP entries (the split trees are
// 8-11 deep, and a depth-first stack holds at most depth + 1), y and the
// fit in global memory threshold-major. Fits where 12 n + 8 (nrank + words)
// bytes and the stack fit one block's shared memory: n up to about 11,000.
#define SHARED_CAP 128

static size_t shared_bytes(const Shared &S)
{
  return 8 * (2 * (size_t) SHARED_CAP + S.nrank + S.off[S.nlev]) +
         4 * (3 * (size_t) S.n + SHARED_CAP);
}

__global__ void solve_kernel_shared(Shared S, const double *y, double *fit, int K, int *full)
{
  extern __shared__ double smem[];
  const size_t n = S.n, nr = S.nrank, nw = S.off[S.nlev];
  double *ssw = smem, *sswy = ssw + SHARED_CAP, *step = sswy + SHARED_CAP;
  uint64_t *bits = (uint64_t *) (step + nr);
  int *perm = (int *) (bits + nw), *tmp = perm + n, *reach = tmp + n, *seg = reach + n;
  for (size_t q = threadIdx.x; q < nr; q += blockDim.x) step[q] = 0.0;
  for (size_t q = threadIdx.x; q < nw; q += blockDim.x) bits[q] = 0;
  __syncthreads();
  if (threadIdx.x != 0) return;
  Work<false> W;
  W.perm = {perm, 1}; W.tmp = {tmp, 1}; W.reach = {reach, 1}; W.seg = {seg, 1};
  W.ssw = {ssw, 1}; W.sswy = {sswy, 1}; W.step = {step, 1}; W.bits = {bits, 1};
  W.cap = SHARED_CAP;
  W.full = full;
  for (int k = blockIdx.x; k < K; k += gridDim.x)  // the steps are empty again after each
    solve_one<false>(S, y + (size_t) k * n, fit + (size_t) k * n, 1, W);
}

static Shared make_shared(const Input &P, const int *rank, const double *w)
{
  Shared S;
  S.n = P.n; S.nrank = std::max(P.nrank, 1); S.rank = rank; S.w = w;
  S.nlev = 0; S.off[0] = 0;
  int words = S.nrank;
  do {
    words = (words + 63) / 64;
    if (S.nlev == MAX_LEVELS) { fprintf(stderr, "too many ranks\n"); exit(1); }
    S.off[S.nlev + 1] = S.off[S.nlev] + words;
    S.nlev++;
  } while (words > 1);
  return S;
}

template <bool IL> static Pool<IL> pool_alloc(const Shared &S, size_t T, bool dev)
{
  size_t n = S.n, n1 = n + 1, nr = S.nrank, nw = S.off[S.nlev];
  Pool<IL> P;
  void *p[8];
  size_t len[8] = {4 * n, 4 * n, 4 * n, 4 * n1, 8 * n1, 8 * n1, 8 * nr, 8 * nw};
  for (int a = 0; a < 8; a++) {
    if (dev) {
      CK(cudaMalloc(&p[a], len[a] * T));
      CK(cudaMemset(p[a], 0, len[a] * T));  // the steps and the bitset start empty
    } else {
      p[a] = calloc(len[a], T);
      if (!p[a]) { fprintf(stderr, "out of memory\n"); exit(1); }
    }
  }
  P.perm = (int *) p[0]; P.tmp = (int *) p[1]; P.reach = (int *) p[2]; P.seg = (int *) p[3];
  P.ssw = (double *) p[4]; P.sswy = (double *) p[5]; P.step = (double *) p[6];
  P.bits = (uint64_t *) p[7];
  return P;
}

// The largest |fit - exact| and the thresholds off by more than 1e-10; fit
// threshold-major (node_major: node-major).
static void check(const Input &P, const std::vector<double> &fit, bool node_major,
                  double *dmax, int *bad)
{
  *dmax = 0; *bad = 0;
  for (int k = 0; k < P.K; k++) {
    double d = 0;
    for (int i = 0; i < P.n; i++) {
      double f = node_major ? fit[(size_t) i * P.K + k] : fit[(size_t) k * P.n + i];
      d = std::max(d, fabs(f - P.exact[(size_t) k * P.n + i]));
    }
    if (!(d <= 1e-10)) (*bad)++;
    *dmax = std::max(*dmax, d);
  }
}

// y in the layout that suits the workspace's: node-major for the
// interleaved one (the K values of a node together), else as read.
template <bool IL> static std::vector<double> y_in_layout(const Input &P)
{
  if (!IL) return P.y;
  const int n = P.n, K = P.K;
  std::vector<double> yl((size_t) n * K);
  for (int k = 0; k < K; k++)
    for (int i = 0; i < n; i++) yl[(size_t) i * K + k] = P.y[(size_t) k * n + i];
  return yl;
}

// Six runs of launch(), each on a zeroed fit of nk values, timed by CUDA
// events: the last five in ms, sorted (the first run is untimed).
template <class F> static std::vector<float> time_runs(double *d_fit, size_t nk, F launch)
{
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0)); CK(cudaEventCreate(&t1));
  std::vector<float> ms(6);
  for (int rep = 0; rep < 6; rep++) {
    CK(cudaMemset(d_fit, 0, 8 * nk));
    CK(cudaEventRecord(t0));
    launch();
    CK(cudaGetLastError());
    CK(cudaEventRecord(t1)); CK(cudaEventSynchronize(t1));
    CK(cudaEventElapsedTime(&ms[rep], t0, t1));
  }
  CK(cudaEventDestroy(t0)); CK(cudaEventDestroy(t1));
  std::vector<float> timed(ms.begin() + 1, ms.end());
  std::sort(timed.begin(), timed.end());
  return timed;
}

template <bool IL>
static void run_gpu(const Input &P, const int *d_rank, const double *d_w, int block)
{
  const char *name = IL ? "interleaved" : "contiguous";
  const int n = P.n, K = P.K;
  const size_t nk = (size_t) n * K;
  Shared S = make_shared(P, d_rank, d_w);
  size_t per = ws_bytes(S), free_b, total_b;
  CK(cudaMemGetInfo(&free_b, &total_b));
  size_t budget = std::min((size_t) 8 << 30, free_b / 2);
  int T = (int) std::max((size_t) 1, std::min((size_t) K, budget / per));
  std::vector<double> yl = y_in_layout<IL>(P);
  size_t yk = IL ? 1 : n, yv = IL ? K : 1;
  double *d_y, *d_fit;
  CK(cudaMalloc(&d_y, 8 * nk)); CK(cudaMalloc(&d_fit, 8 * nk));
  CK(cudaMemcpy(d_y, yl.data(), 8 * nk, cudaMemcpyHostToDevice));
  Pool<IL> W = pool_alloc<IL>(S, T, true);
  std::vector<float> timed = time_runs(d_fit, nk, [&] {
    for (int k0 = 0; k0 < K; k0 += T) {
      int Tc = std::min(T, K - k0);
      solve_kernel<IL><<<(Tc + block - 1) / block, block>>>(S, W, (size_t) T, d_y, d_fit, yk,
                                                             yv, k0, Tc);
    }
  });
  std::vector<double> fit(nk);
  CK(cudaMemcpy(fit.data(), d_fit, 8 * nk, cudaMemcpyDeviceToHost));
  double dmax; int bad;
  check(P, fit, IL, &dmax, &bad);
  printf("n=%d K=%d layout=%s block=%d per_launch=%d launches=%d ws_MB=%.1f gpu_ms=%.3f"
         " (min %.3f max %.3f) max_diff=%.3e bad=%d\n", n, K, name, block, T, (K + T - 1) / T,
         per * (double) T / 1e6, timed[2], timed[0], timed[4], dmax, bad);
  fflush(stdout);
  CK(cudaFree(d_y)); CK(cudaFree(d_fit));
  void *p[8] = {W.perm, W.tmp, W.reach, W.seg, W.ssw, W.sswy, W.step, W.bits};
  for (void *q : p) CK(cudaFree(q));
}

static void run_gpu_shared(const Input &P, const int *d_rank, const double *d_w, int zero_threads)
{
  const int n = P.n, K = P.K;
  const size_t nk = (size_t) n * K;
  Shared S = make_shared(P, d_rank, d_w);
  size_t bytes = shared_bytes(S);
  int dev, optin, sms;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  if (bytes > (size_t) optin) {
    printf("n=%d K=%d layout=shared: needs %.1f KB of shared memory, a block has %.1f\n", n, K,
           bytes / 1024.0, optin / 1024.0);
    return;
  }
  CK(cudaFuncSetAttribute(solve_kernel_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          (int) bytes));
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, solve_kernel_shared, zero_threads,
                                                   bytes));
  double *d_y, *d_fit;
  int *d_full;
  CK(cudaMalloc(&d_y, 8 * nk)); CK(cudaMalloc(&d_fit, 8 * nk)); CK(cudaMalloc(&d_full, 4));
  CK(cudaMemcpy(d_y, P.y.data(), 8 * nk, cudaMemcpyHostToDevice));
  CK(cudaMemset(d_full, 0, 4));
  std::vector<float> timed = time_runs(d_fit, nk, [&] {
    solve_kernel_shared<<<K, zero_threads, bytes>>>(S, d_y, d_fit, K, d_full);
  });
  std::vector<double> fit(nk);
  int full = 0;
  CK(cudaMemcpy(fit.data(), d_fit, 8 * nk, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&full, d_full, 4, cudaMemcpyDeviceToHost));
  double dmax; int bad;
  check(P, fit, false, &dmax, &bad);
  printf("n=%d K=%d layout=shared smem_KB=%.1f blocks_per_SM=%d concurrent=%d gpu_ms=%.3f"
         " (min %.3f max %.3f) max_diff=%.3e bad=%d stack_full=%d\n", n, K, bytes / 1024.0,
         per_sm, per_sm * sms, timed[2], timed[0], timed[4], dmax, bad, full);
  fflush(stdout);
  CK(cudaFree(d_y)); CK(cudaFree(d_fit)); CK(cudaFree(d_full));
}

// The same solver on the host, one threshold after another (cold), in
// either layout (interleaved: a workspace of K threads, y node-major), to
// check the code that the GPU runs; the number of thresholds wrong.
template <bool IL> static int run_host(const Input &P)
{
  const int n = P.n, K = P.K;
  const size_t nk = (size_t) n * K, T = IL ? K : 1;
  Shared S = make_shared(P, P.rank.data(), P.w.data());
  Pool<IL> W = pool_alloc<IL>(S, T, false);
  std::vector<double> yl = y_in_layout<IL>(P), fit(nk);
  size_t yk = IL ? 1 : n, yv = IL ? K : 1;
  auto a = std::chrono::steady_clock::now();
  for (int k = 0; k < K; k++)
    solve_one<IL>(S, yl.data() + k * yk, fit.data() + k * yk, yv,
                  work_of<IL>(S, W, IL ? k : 0, T));
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
  if (!IL) {  // once more, untimed, for the shape of the split trees
    TreeStats st;
    st.depth.assign((size_t) n + 1, 0);
    for (int k = 0; k < K; k++)
      solve_one<IL>(S, yl.data() + k * yk, fit.data() + k * yk, yv, work_of<IL>(S, W, 0, T),
                    &st);
    long sets = 0, points = 0, crit = 0;
    for (size_t d = 0; d < st.sets.size(); d++) {
      sets += st.sets[d]; points += st.points[d]; crit += st.largest[d];
    }
    printf("n=%d K=%d split trees: depth %zu, %.1f sets and %.2f visits per point per threshold;"
           " critical path of one launch per depth %ld points (%.2f n)\n", n, K,
           st.sets.size(), (double) sets / K, (double) points / ((double) K * n), crit,
           (double) crit / n);
  }
  double dmax; int bad;
  check(P, fit, IL, &dmax, &bad);
  printf("n=%d K=%d layout=%s host_ms=%.3f per_threshold_us=%.2f max_diff=%.3e bad=%d\n", n,
         K, IL ? "cpu-interleaved" : "cpu", 1e3 * s, 1e6 * s / K, dmax, bad);
  void *p[8] = {W.perm, W.tmp, W.reach, W.seg, W.ssw, W.sswy, W.step, W.bits};
  for (void *q : p) free(q);
  return bad;
}

int main(int argc, char **argv)
{
  int cpu = argc > 1 && strcmp(argv[1], "--cpu") == 0;
  if (cpu) { argv++; argc--; }
  if (argc < 2) {
    fprintf(stderr, "usage: poset-exact [--cpu] FILE [contiguous|interleaved|both] [block]\n");
    return 2;
  }
  Input P;
  read_input(argv[1], P);
  const char *layout = argc > 2 ? argv[2] : "both";
  int block = argc > 3 ? atoi(argv[3]) : 32;
  printf("n = %d, K = %d, %d ranks\n", P.n, P.K, P.nrank);
  if (cpu) {
    int bad = 0;
    if (strcmp(layout, "interleaved") != 0) bad += run_host<false>(P);
    if (strcmp(layout, "contiguous") != 0) bad += run_host<true>(P);
    return bad != 0;
  }
  int *d_rank; double *d_w;
  CK(cudaMalloc(&d_rank, 4 * (size_t) P.n)); CK(cudaMalloc(&d_w, 8 * (size_t) P.n));
  CK(cudaMemcpy(d_rank, P.rank.data(), 4 * (size_t) P.n, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_w, P.w.data(), 8 * (size_t) P.n, cudaMemcpyHostToDevice));
  if (strcmp(layout, "interleaved") != 0 && strcmp(layout, "shared") != 0)
    run_gpu<false>(P, d_rank, d_w, block);
  if (strcmp(layout, "contiguous") != 0 && strcmp(layout, "shared") != 0)
    run_gpu<true>(P, d_rank, d_w, block);
  if (strcmp(layout, "both") == 0 || strcmp(layout, "shared") == 0)
    run_gpu_shared(P, d_rank, d_w, 32);
  return 0;
}

/*
 * gpuiso CUDA engine: what its files share. The plan of a batch as the
 * kernels see it and the kernels' launchers; the buffer carver, the host
 * transfers and the workspace's auxiliary buffer of the pipelines that
 * prepare their batch on the device. The host side's own declarations are
 * in host.cuh.
 *
 * The engine is CUDA C++. Of C++'s libraries it uses only CUB (header-only,
 * shipped with the toolkit: merge.cu, vjp.cu, calibrate.cu, idr.cu and
 * isoreg.cu), but its objects need the C++ runtime (exception handling,
 * guarded statics, and CUB's std::runtime_error and iostream set-up), so
 * configure links libstdc++ (-lstdc++) with libcudart, R linking the
 * package with the C compiler.
 *
 * A batch is laid out in lanes of GI_UNIT = 16 consecutive elements, one
 * thread of the chunk kernel each, 64 to a block. A problem of up to 1024
 * elements is one chunk and takes the smallest power of two of lanes that
 * holds it, aligned to that size, so that several short problems share a
 * block and the merge rounds inside a block never cross a problem. A
 * longer problem is cut into chunks of 1024 elements, a block each; their
 * hulls are written once to the vertex slots and merged as segment lists
 * (merge.cu).
 */
#ifndef GI_ENGINE_CUH
#define GI_ENGINE_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include "dd.cuh"
#include "../core/gi_core.h"

#define GI_CHUNK 1024
#define GI_SLOT (GI_CHUNK + 1)
#define GI_UNIT 16                         /* elements of a plan lane: one thread's */
#define GI_BLOCK_UNITS (GI_CHUNK / GI_UNIT) /* lanes of a block of the chunk kernel */

/* One chunk: elements [e0, e0 + cnt) of the batch, lanes [lane0, lane0 + L),
 * and its index among the chunks of long problems (-1 when it is a whole
 * problem). */
struct gi_chunk {
  int64_t e0, lane0, mid;
  int32_t cnt, L;
};

/* A chunk of a long problem: its elements, the index of its problem's first
 * such chunk, and how many chunks that problem has. */
struct gi_multi {
  int64_t e0, first;
  int32_t cnt, m;
};

/* A segment of a merged hull: vertices l..h of chunk j's slot. */
struct gi_seg {
  int64_t j;
  int32_t l, h;
};

/* Where everything is on the device for one solve. */
struct gi_plan {
  /* layout */
  int64_t nlanes;       /* lanes in use, a multiple of GI_BLOCK_UNITS */
  int64_t nchunk;       /* entries of chunks (0 in the uniform mode) */
  int64_t nmulti;       /* chunks of long problems */
  int32_t uniform_n;    /* > 0: every problem has this many (<= 1024)
                           elements and no table is needed */
  int32_t uniform_L;
  int64_t uniform_count; /* problems in the uniform mode */
  const gi_chunk *chunks;
  const gi_multi *multi;
  /* the data: T is float or double */
  const void *y, *w;
  void *fit;
  unsigned char *starts;
  int decreasing, single;
  /* the merge state of long problems */
  int16_t *slot_idx;    /* nmulti x GI_SLOT point numbers */
  dd *slot_y, *slot_x;  /* nmulti x GI_SLOT chunk-relative coordinates */
  dd *cstart;           /* nmulti x 2: the chunk's first point (x, y) */
  dd *ctotal;           /* nmulti x 2: the chunk's totals (x, y) */
  const int64_t *keys;  /* nmulti: the first chunk of the chunk's problem */
  gi_seg *desc;         /* nmulti descriptors */
  int32_t *count;       /* nmulti: segments of the list that starts here */
  int *flag;            /* set when sums leave double range */
};

/* The chunk that global lane `gl` works on; cnt = 0 when it has none. */
__device__ __forceinline__ gi_chunk lane_chunk(const gi_plan &p, int64_t gl)
{
  gi_chunk c;
  if (p.uniform_n > 0) {
    int64_t b = gl / p.uniform_L;
    c.lane0 = b * p.uniform_L;
    c.e0 = b * (int64_t) p.uniform_n;
    c.cnt = b < p.uniform_count ? p.uniform_n : 0;
    c.L = p.uniform_L;
    c.mid = -1;
    return c;
  }
  int64_t lo = 0, hi = p.nchunk - 1;
  while (lo < hi) { /* the last chunk with lane0 <= gl */
    int64_t mid = (lo + hi + 1) >> 1;
    if (p.chunks[mid].lane0 <= gl) lo = mid; else hi = mid - 1;
  }
  c = p.chunks[lo];
  if (gl < c.lane0 || gl >= c.lane0 + c.L) {
    c.lane0 = gl; c.L = 1; c.cnt = 0; c.mid = -1;
  }
  return c;
}

/* Launchers (stream-ordered, no synchronisation). */
void gi_launch_chunks(const gi_plan &p, cudaStream_t s);
size_t gi_chunk_starts_scratch(const gi_plan &p);
cudaError_t gi_launch_chunk_starts(const gi_plan &p, void *scratch,
                                   size_t scratch_bytes, cudaStream_t s);
void gi_launch_merge_level(const gi_plan &p, int level, int warp_per_merge,
                           cudaStream_t s);
void gi_launch_long_fit(const gi_plan &p, cudaStream_t s);

/* Bits of *flag. */
#define GI_FLAG_RANGE 1    /* sums left double range */
#define GI_FLAG_STEP 2     /* a fitted value stepped the wrong way */
/* Neighbouring slopes of the hull differ by more than the tie tolerance of
 * the predicates, so their rounded values should never step the wrong way.
 * The kernels that write the fit check that they do not, each value against
 * the one before it, and flag the batch if one does, so that the host
 * enforces monotone output (a cumulative maximum per problem) instead of
 * trusting the argument. */

/* The backward pass: dy = w G / W, dw = (y - fit) G / W over the blocks
 * that `starts` marks. Needs the scratch that gi_vjp_scratch_bytes says. */
size_t gi_vjp_scratch_bytes(int64_t n);
cudaError_t gi_launch_vjp(const double *y, const double *w, const double *fit,
                          const unsigned char *starts, const double *grad,
                          int64_t n, double *dy, double *dw, void *scratch,
                          size_t scratch_bytes, cudaStream_t s);

/* Carves one allocation into typed arrays, each aligned to 256 bytes;
 * with a NULL base it only counts the bytes (then every array is NULL).
 * A layout is written once, as a function that carves with a NULL base
 * for the bytes and then with the allocation for the arrays. */
struct gi_carver {
  char *base;
  size_t off;
  template <typename T> T *take(size_t count)
  {
    T *p = base ? (T *) (base + off) : NULL;
    off += (count * sizeof(T) + 255) & ~(size_t) 255;
    return p;
  }
  /* `count` elements for each array named, in order */
  template <typename... T> void take_each(size_t count, T *&...arrays)
  {
    ((arrays = take<T>(count)), ...);
  }
  /* a library's scratch of `bytes` (CUB's): where it starts and its size */
  void take_scratch(size_t bytes, void *&p, size_t &size)
  {
    p = take<char>(bytes);
    size = bytes;
  }
};

/* Host-data transfers through the pinned staging ring (transfer.cu), on
 * stream s: gi_put() returns when the host data have been read (the copies
 * may still be under way on s), gi_get() when `host` holds the data.
 * `conv` says how elements change on the way (gi_core.h). Either returns
 * GI_ERR_INTERRUPTED, outside CUDA's codes (below 1000 and from 10000),
 * when the user interrupted; s is then idle. */
#define GI_ERR_INTERRUPTED ((cudaError_t) 9000)
cudaError_t gi_put(void *dev, const void *host, int64_t n, gi_conv conv, cudaStream_t s);
cudaError_t gi_get(void *host, const void *dev, int64_t n, gi_conv conv, cudaStream_t s);
void gi_ring_release(void);
size_t gi_ring_bytes(void);
/* Pays a fresh host result's page faults (gi_prefault()) on the transfer
 * threads: called while the device works, before gi_get() fills it. */
void gi_host_ready(void *host, size_t bytes);
/* Every host-data entry point brackets its work with these (the stage
 * times of gi_cuda_last_times()). */
void gi_times_begin(void);
void gi_times_end(void);

/* Pipelines that prepare a batch on the device (calibrate.cu): one
 * auxiliary buffer of the workspace holds their data, at least `bytes`;
 * gi_fit_prepared() solves float64 data held there (weights > 0), and an
 * out-of-memory retry inside it keeps that buffer. gi_fail() turns a CUDA
 * error into a status and a message (freeing the workspace but after an
 * out-of-memory error). */
cudaError_t gi_aux_reserve(size_t bytes, void **p);
int gi_fit_prepared(const double *y, const double *w, const int64_t *off, int64_t nprob,
                    int decreasing, double *fit, unsigned char *starts, char *msg,
                    size_t len);
int gi_fail(cudaError_t err, const char *what, size_t need, char *msg, size_t len);

/* The host arrays of the blocks of an IDR fit (idr.cu, idr_plane.cu), that
 * gi_cuda_idr_result() gives: room for `need` blocks in all, and where they
 * are; GI_CUDA_NOMEM, with the message, when the host's memory runs out. */
int gi_idr_result_reserve(int64_t need, int32_t **start, double **value, char *msg,
                          size_t len);

#endif

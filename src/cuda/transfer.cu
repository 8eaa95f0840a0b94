/*
 * Transfers between R's memory and the device, and the stage times of the
 * last call.
 *
 * R's vectors live in pageable memory, which the DMA engines read at about
 * 9 GB/s and write at about 15 GB/s on the H200 host, against about 55 GB/s
 * each way for page-locked memory. So data cross in pieces through a ring
 * of pinned staging buffers: host threads fill (or drain) one buffer,
 * converting between R's doubles and the device's element type on the way,
 * while the bus moves the others. The ring is kept between calls, like the
 * device workspace; registering R's vectors instead (cudaHostRegister)
 * costs about as much as copying them, for every call.
 */
#include <string.h>
#include <time.h>
#include "engine.cuh"
#include "gi_cuda.h"
#include "../core/gi_memory.h"

#define GI_RING 4
/* The largest piece by default: big enough that waking the host threads
 * and the event waits cost little per byte, small enough that the first and
 * last pieces, which do not overlap, are short. */
#define GI_PIECE_MAX ((size_t) 8 << 20)
/* The smallest largest piece that gi_cuda_set_piece() takes (tests cut
 * transfers this fine to put piece boundaries everywhere). */
#define GI_PIECE_MIN ((size_t) 4 << 10)

struct stage {
  void *p;
  size_t cap;
  cudaEvent_t done; /* recorded after the last copy that used it */
};

static stage ring[GI_RING];
static int host_threads = 1;
static size_t piece_max = GI_PIECE_MAX;
static double times[GI_TIMES];
static double call_start;

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

extern "C" void gi_cuda_set_threads(int nthreads)
{
  host_threads = nthreads > 0 ? nthreads : 1;
}

extern "C" size_t gi_cuda_set_piece(size_t bytes)
{
  size_t old = piece_max;
  if (bytes == 0) bytes = GI_PIECE_MAX;
  bytes &= ~(size_t) 7; /* whole elements of every size */
  piece_max = bytes < GI_PIECE_MIN ? GI_PIECE_MIN : bytes;
  return old;
}

/* ---- the staging ring ------------------------------------------------------ */

static void ring_free(stage *b)
{
  if (b->done) {
    (void) cudaEventSynchronize(b->done);
    (void) cudaEventDestroy(b->done);
  }
  if (b->p) (void) cudaFreeHost(b->p);
  memset(b, 0, sizeof(*b));
}

void gi_ring_release(void)
{
  for (int i = 0; i < GI_RING; i++) ring_free(&ring[i]);
  (void) cudaGetLastError();
}

size_t gi_ring_bytes(void)
{
  size_t s = 0;
  for (int i = 0; i < GI_RING; i++) s += ring[i].cap;
  return s;
}

/* The first `count` buffers of the ring, each at least `bytes`. */
static cudaError_t ring_reserve(int count, size_t bytes)
{
  for (int i = 0; i < count; i++) {
    stage *b = &ring[i];
    if (b->cap >= bytes) continue;
    ring_free(b);
    cudaError_t err = cudaEventCreateWithFlags(&b->done, cudaEventDisableTiming);
    if (err == cudaSuccess) err = cudaHostAlloc(&b->p, bytes, cudaHostAllocDefault);
    if (err != cudaSuccess) {
      ring_free(b);
      return err;
    }
    b->cap = bytes;
  }
  return cudaSuccess;
}

/* Elements per piece for n elements of `es` bytes on the device side, with
 * the ring buffers that the pieces use reserved: about an eighth of the
 * transfer, so that filling and moving overlap for all but that eighth,
 * within [1 MiB, piece_max]: each piece costs some 20 us of waking threads
 * and waiting on events, too much for smaller ones. */
static cudaError_t ring_for(int64_t n, size_t es, int64_t *per)
{
  size_t total = (size_t) n * es, piece = (size_t) 1 << 20;
  while (8 * piece < total && 2 * piece <= piece_max) piece <<= 1;
  if (piece > piece_max) piece = piece_max;
  *per = (int64_t) (piece / es);
  int64_t pieces = (n + *per - 1) / *per;
  return ring_reserve(pieces < GI_RING ? (int) pieces : GI_RING, piece);
}

/* One transfer: its element sizes on the host and the device, its pieces,
 * and the clock. */
struct xfer {
  size_t hs, ds;
  int64_t per;
  double t0, busy;
};

static cudaError_t xfer_begin(xfer *x, int64_t n, gi_conv conv, int to_device)
{
  x->t0 = now_ms();
  x->busy = 0.0;
  if (to_device) gi_conv_sizes(conv, &x->hs, &x->ds);
  else gi_conv_sizes(conv, &x->ds, &x->hs);
  return ring_for(n, x->ds, &x->per);
}

static void xfer_end(const xfer *x, int64_t n, int to_device)
{
  times[to_device ? GI_T_COPY_IN : GI_T_COPY_OUT] += now_ms() - x->t0;
  times[GI_T_CONVERT] += x->busy;
  times[to_device ? GI_T_BYTES_IN : GI_T_BYTES_OUT] += (double) n * x->ds;
}

/* The host's part of a piece: converting it on the transfer threads, then a
 * look at interrupts (after which stream s is left idle). */
static cudaError_t host_part(xfer *x, void *dst, const void *src, int64_t cnt, gi_conv conv,
                             int stream_stores, cudaStream_t s)
{
  double t0 = now_ms();
  gi_convert(dst, src, cnt, conv, stream_stores, host_threads);
  x->busy += now_ms() - t0;
  if (!gi_interrupted(cnt)) return cudaSuccess;
  (void) cudaStreamSynchronize(s);
  return GI_ERR_INTERRUPTED;
}

/* ---- the copies ------------------------------------------------------------ */

cudaError_t gi_put(void *dev, const void *host, int64_t n, gi_conv conv, cudaStream_t s)
{
  if (n <= 0) return cudaSuccess;
  xfer x;
  cudaError_t err = xfer_begin(&x, n, conv, 1);
  for (int64_t i = 0, k = 0; err == cudaSuccess && i < n; i += x.per, k++) {
    stage *b = &ring[k % GI_RING];
    int64_t cnt = n - i < x.per ? n - i : x.per;
    err = cudaEventSynchronize(b->done); /* its last copy has left it */
    if (err == cudaSuccess)
      err = host_part(&x, b->p, (const char *) host + (size_t) i * x.hs, cnt, conv, 0, s);
    if (err == cudaSuccess)
      err = cudaMemcpyAsync((char *) dev + (size_t) i * x.ds, b->p, (size_t) cnt * x.ds,
                            cudaMemcpyHostToDevice, s);
    if (err == cudaSuccess) err = cudaEventRecord(b->done, s);
  }
  xfer_end(&x, n, 1);
  return err;
}

cudaError_t gi_get(void *host, const void *dev, int64_t n, gi_conv conv, cudaStream_t s)
{
  if (n <= 0) return cudaSuccess;
  xfer x;
  cudaError_t err = xfer_begin(&x, n, conv, 0);
  int64_t per = x.per, pieces = (n + per - 1) / per;
  /* huge pages for a fresh result: first touching 4 KiB pages costs more
   * than the copy itself */
  gi_hint_huge(host, (size_t) n * x.hs);
  /* piece k goes to buffer k % GI_RING once piece k - GI_RING is drained */
  int64_t issued = 0;
  for (int64_t k = 0; err == cudaSuccess && k < pieces; k++) {
    for (; err == cudaSuccess && issued < pieces && issued < k + GI_RING; issued++) {
      stage *b = &ring[issued % GI_RING];
      int64_t i = issued * per, cnt = n - i < per ? n - i : per;
      err = cudaStreamWaitEvent(s, b->done, 0);
      if (err == cudaSuccess)
        err = cudaMemcpyAsync(b->p, (const char *) dev + (size_t) i * x.ds,
                              (size_t) cnt * x.ds, cudaMemcpyDeviceToHost, s);
      if (err == cudaSuccess) err = cudaEventRecord(b->done, s);
    }
    stage *b = &ring[k % GI_RING];
    int64_t i = k * per, cnt = n - i < per ? n - i : per;
    if (err == cudaSuccess) err = cudaEventSynchronize(b->done);
    if (err == cudaSuccess)
      err = host_part(&x, (char *) host + (size_t) i * x.hs, b->p, cnt, conv, 1, s);
  }
  xfer_end(&x, n, 0);
  return err;
}

void gi_host_ready(void *host, size_t bytes)
{
  double t0 = now_ms();
  gi_prefault(host, bytes, host_threads);
  times[GI_T_PREFAULT] += now_ms() - t0;
}

/* ---- stage times ----------------------------------------------------------- */

void gi_times_begin(void)
{
  for (int i = 0; i < GI_TIMES; i++) times[i] = 0.0;
  call_start = now_ms();
}

void gi_times_end(void)
{
  times[GI_T_TOTAL] = now_ms() - call_start;
  double rest = times[GI_T_TOTAL] - times[GI_T_COPY_IN] - times[GI_T_COPY_OUT];
  rest -= times[GI_T_PREFAULT];
  times[GI_T_DEVICE] = rest > 0 ? rest : 0;
}

extern "C" void gi_cuda_last_times(double *out)
{
  memcpy(out, times, sizeof(times));
}

/*
 * gpuiso: the CUDA engine's C interface. Plain C types and no R headers, so
 * that the glue (C) and the engine (CUDA C++) meet only here. Built from
 * the .cu files of cuda/ when configure finds the CUDA toolkit, else from
 * cuda_stub.c, which answers every call with "not compiled".
 */
#ifndef GPUISO_CUDA_H
#define GPUISO_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Devices usable now (>= 0), or -1 with the reason in msg. Asks the CUDA
 * runtime on every call; gpuiso itself caches nothing. */
int gi_cuda_device_count(char *msg, size_t len);

/* Name, total memory in bytes and compute capability of device `dev`;
 * 0 on success, -1 with the reason in msg. */
int gi_cuda_device_props(int dev, char *name, size_t name_len,
                         double *mem_bytes, int *cc_major, int *cc_minor,
                         char *msg, size_t len);

/* Versions of the runtime linked in and of the driver, as CUDA encodes
 * them (1000 * major + 10 * minor); 0 when unknown. */
int gi_cuda_runtime_version(void);
int gi_cuda_driver_version(void);

/* What an engine call returns; anything but GI_CUDA_OK comes with the
 * reason, and advice, in msg. */
enum {
  GI_CUDA_OK = 0,
  GI_CUDA_NOMEM = 1,   /* device (or pinned host) memory ran out */
  GI_CUDA_FAILED = 2,  /* any other CUDA error */
  GI_CUDA_ABSENT = 3,  /* not compiled, or no usable device */
  GI_CUDA_RANGE = 4,   /* sums beyond double range: solve on the CPU */
  GI_CUDA_INTERRUPT = 5 /* the user interrupted (gi_interrupted()) */
};

/*
 * The forward pass of a batch in host memory: problem b is
 * y[off[b] .. off[b+1]), 0 = off[0] <= ... <= off[nprob]. w is NULL (unit
 * weights) or finite and >= 0 with no problem all zero (the glue checks);
 * values finite. single = 1 moves and stores the values as float32.
 * fit gets the fit; starts, when not NULL, one byte per element, 1 where
 * a block starts. The device workspace is kept for the next call.
 */
int gi_cuda_fit_host(const double *y, const double *w, const int64_t *off,
                     int64_t nprob, int decreasing, int single, double *fit,
                     unsigned char *starts, char *msg, size_t len);

/*
 * The same on data already on the device: y, w (or NULL) and fit are
 * device pointers to float (single = 1) or double, starts a device pointer
 * or NULL; off stays in host memory (the plan is made on the host). Weights
 * must be > 0. `stream` is a cudaStream_t or NULL for the default stream;
 * the call returns when the work on it is done.
 */
int gi_cuda_fit_device(const void *y, const void *w, const int64_t *off,
                       int64_t nprob, int decreasing, int single, void *fit,
                       unsigned char *starts, void *stream, char *msg,
                       size_t len);

/*
 * The backward pass from host memory: with the fit and the block starts of
 * the forward pass, dy = w G / W and, when dw is not NULL,
 * dw = (y - fit) G / W, G and W the block sums of grad and w.
 */
int gi_cuda_vjp_host(const double *y, const double *w, const double *fit,
                     const unsigned char *starts, const double *grad,
                     const int64_t *off, int64_t nprob, int single,
                     double *dy, double *dw, char *msg, size_t len);

/*
 * Kernel time of the forward pass: the batch is copied to the device once,
 * solved once to warm up through gi_cuda_fit_device() (its fit is copied
 * into `fit` unless that is NULL, so that tests can check the entry point
 * for device data; weights must be > 0), then `reps` times, each timed with CUDA events
 * into ms[]; stage_ms, when not NULL, gets the four stages (chunk hulls,
 * chunk starts, merge levels, fit of long problems) of one more run. For
 * benchmarks.
 */
int gi_cuda_bench(const double *y, const double *w, const int64_t *off,
                  int64_t nprob, int decreasing, int single, int reps,
                  double *ms, double *stage_ms, double *fit, char *msg,
                  size_t len);

/*
 * The backward pass on data copied to the device once (as
 * gi_cuda_vjp_host()'s, dw when w is not NULL): one warm-up, then `reps`
 * runs, each timed with CUDA events into ms[]. For benchmarks.
 */
int gi_cuda_bench_vjp(const double *y, const double *w, const double *fit,
                      const unsigned char *starts, const double *grad, int64_t n,
                      int reps, double *ms, char *msg, size_t len);

/*
 * Isotonic calibration prepared on the device: the scores are sorted within
 * groups, tied scores of a group pooled (weighted mean outcome, summed
 * weight) and the pooled points fitted, one non-decreasing curve per group.
 * group is NULL or codes 1..ngroups, each used at least once, in int32; w
 * is NULL or > 0; n < 2^31 (else GI_CUDA_RANGE). The outputs have room for
 * n points: the distinct scores in order, their calibrated values (in
 * [0, 1]) and pooled weights; offsets[0..ngroups] get where each group's
 * points start, offsets[ngroups] how many there are.
 */
int gi_cuda_calibrate_host(const double *score, const double *outcome,
                           const double *w, const int *group, int64_t n,
                           int64_t ngroups, double *score_out,
                           double *value_out, double *weight_out,
                           int64_t *offsets, char *msg, size_t len);

/*
 * The fit of isoreg() on the device: the n points (n < 2^31, else
 * GI_CUDA_RANGE) ordered by x and tied x by decreasing y (increasing y when
 * decreasing), stably; w NULL or > 0. ord gets the order (1-based), ys and
 * ws (when w is given) the values and weights in that order, same[k] 1
 * where point k's x equals point k-1's, fit the fit of ys in that order.
 */
int gi_cuda_isoreg_host(const double *x, const double *y, const double *w,
                        int64_t n, int decreasing, int32_t *ord, double *ys,
                        double *ws, unsigned char *same, double *fit,
                        char *msg, size_t len);

/*
 * Isotonic distributional regression on the device, for a batch of L
 * independent fits (levels): for each of level l's K[l] thresholds the
 * antitonic regression, over its m[l] distinct covariate values, of the
 * share of each value's weight switched on. Level l's observations are
 * lobs[l] .. lobs[l+1] - 1; observation i is at value xcode[i] (0-based,
 * within its level) and switches on at threshold kcode[i] <= K[l] (K[l]:
 * never); w is NULL or > 0, and every value has an observation. The
 * problems are the levels' thresholds in turn, P in all: ptr[0..P] gets
 * the running count of blocks, problem p's blocks being ptr[p] ..
 * ptr[p+1]-1 of the arrays that gi_cuda_idr_result() gives (first value
 * index within the level, CDF value; valid until the next call). The
 * observations and the values of all levels < 2^31, else GI_CUDA_RANGE,
 * as for a level whose weights spread beyond 2^30.
 */
int gi_cuda_idr_host(const int *xcode, const int *kcode, const double *w, int L,
                     const int64_t *lobs, const int64_t *m, const int64_t *K,
                     double *ptr, char *msg, size_t len);
void gi_cuda_idr_result(const int **start, const double **value);

/*
 * Isotonic distributional regression on two covariates (the componentwise
 * order of points in the plane), for a batch of L independent fits: as
 * gi_cuda_idr_host(), with node[i] the observation's point (0-based within
 * its level, each of the m[l] points with an observation) and the points
 * of all levels side by side in pos and rank (core/poset.c's gi_plane:
 * the lexicographic position of each point in its level and the rank of
 * its second coordinate; a point below another in the order has the
 * larger CDF). kcode[i] < K[l], w NULL or > 0. The blocks are those of the
 * CPU's gi_idr_po_begin() up to the rounding of the level sets' means.
 * GI_CUDA_RANGE where the device path does not take the fit: points of a
 * level beyond what a block's shared memory holds (about 18,000), or
 * observations of all levels from 2^31.
 */
int gi_cuda_idr_plane(int L, const int64_t *lobs, const int64_t *m, const int64_t *K,
                      const int *node, const int *kcode, const double *w, const int *pos,
                      const int *rank, double *ptr, char *msg, size_t len);

/*
 * The resampled bands of a CORP reliability curve with the resampling on
 * the device: as gi_corp_bands() (core/gi_core.h) defines them, the same
 * resamples for the same seed, the band equal to the CPU's up to the
 * rounding of the fits. n < 2^31, else GI_CUDA_RANGE.
 */
int gi_cuda_corp_bands(const double *u, const double *p0, const double *count,
                       int64_t m, int64_t n, int B, double plo, double phi,
                       uint64_t seed, double *lower, double *upper, double *mcb,
                       char *msg, size_t len);

/* Bytes of device memory the workspace holds now, bytes of pinned host
 * memory its staging buffers hold, and the device's free and total memory
 * (cudaMemGetInfo); -1 for these two until the engine has run in this
 * process, so that asking starts no CUDA context. */
int gi_cuda_memory(double *held, double *pinned, double *free_bytes,
                   double *total_bytes, char *msg, size_t len);

/* Give the workspace and the staging buffers back. */
void gi_cuda_release(void);

/* For the tests: the device looks full to the workspace (on = 1) or no
 * longer (on = 0). */
void gi_cuda_test_full_device(int on);

/* For the tests: at most `values` values a wave of gi_cuda_idr_plane()
 * (<= 0: the default). Returns the previous setting (0 for the default). */
int64_t gi_cuda_test_idr_plane_wave(int64_t values);

/* The host threads that fill and drain the staging buffers of the next
 * calls (copying, and converting to and from float32). */
void gi_cuda_set_threads(int nthreads);

/* The largest piece of a transfer, in bytes (0: the default, 8 MiB); for
 * tests and benchmarks. Returns the previous setting. */
size_t gi_cuda_set_piece(size_t bytes);

/* The stage times (ms) and bytes of the last host-data call, in this order:
 * the whole call; copying in (the host handing every piece to the bus);
 * the rest (kernels, planning and waiting for the device); copying out
 * (the last piece drained); the host threads' converting, part of both
 * copies; touching the result's fresh pages while the device works; the
 * bytes sent to the device and back. */
enum {
  GI_T_TOTAL, GI_T_COPY_IN, GI_T_DEVICE, GI_T_COPY_OUT, GI_T_CONVERT,
  GI_T_PREFAULT, GI_T_BYTES_IN, GI_T_BYTES_OUT, GI_TIMES
};
void gi_cuda_last_times(double *out);

#ifdef __cplusplus
}
#endif

#endif

/* The CUDA interface (cuda/gi_cuda.h) of a build without CUDA: every call
 * says so; none pretends to work. */
#include <stdio.h>
#include "cuda/gi_cuda.h"

static const char *why = "gpuiso was built without CUDA";

static int absent(char *msg, size_t len)
{
  if (msg != NULL && len > 0) snprintf(msg, len, "%s", why);
  return GI_CUDA_ABSENT;
}

int gi_cuda_device_count(char *msg, size_t len)
{
  absent(msg, len);
  return -1;
}

int gi_cuda_device_props(int dev, char *name, size_t name_len,
                         double *mem_bytes, int *cc_major, int *cc_minor,
                         char *msg, size_t len)
{
  (void) dev; (void) name; (void) name_len;
  (void) mem_bytes; (void) cc_major; (void) cc_minor;
  absent(msg, len);
  return -1;
}

int gi_cuda_runtime_version(void) { return 0; }
int gi_cuda_driver_version(void) { return 0; }

int gi_cuda_fit_host(const double *y, const double *w, const int64_t *off,
                     int64_t nprob, int decreasing, int single, double *fit,
                     unsigned char *starts, char *msg, size_t len)
{
  (void) y; (void) w; (void) off; (void) nprob; (void) decreasing;
  (void) single; (void) fit; (void) starts;
  return absent(msg, len);
}

int gi_cuda_fit_device(const void *y, const void *w, const int64_t *off,
                       int64_t nprob, int decreasing, int single, void *fit,
                       unsigned char *starts, void *stream, char *msg,
                       size_t len)
{
  (void) y; (void) w; (void) off; (void) nprob; (void) decreasing;
  (void) single; (void) fit; (void) starts; (void) stream;
  return absent(msg, len);
}

int gi_cuda_vjp_host(const double *y, const double *w, const double *fit,
                     const unsigned char *starts, const double *grad,
                     const int64_t *off, int64_t nprob, int single,
                     double *dy, double *dw, char *msg, size_t len)
{
  (void) y; (void) w; (void) fit; (void) starts; (void) grad; (void) off;
  (void) nprob; (void) single; (void) dy; (void) dw;
  return absent(msg, len);
}

int gi_cuda_bench(const double *y, const double *w, const int64_t *off,
                  int64_t nprob, int decreasing, int single, int reps,
                  double *ms, double *stage_ms, double *fit, char *msg,
                  size_t len)
{
  (void) y; (void) w; (void) off; (void) nprob; (void) decreasing;
  (void) single; (void) reps; (void) ms; (void) stage_ms; (void) fit;
  return absent(msg, len);
}

int gi_cuda_bench_vjp(const double *y, const double *w, const double *fit,
                      const unsigned char *starts, const double *grad, int64_t n,
                      int reps, double *ms, char *msg, size_t len)
{
  (void) y; (void) w; (void) fit; (void) starts; (void) grad; (void) n;
  (void) reps; (void) ms;
  return absent(msg, len);
}

int gi_cuda_calibrate_host(const double *score, const double *outcome,
                           const double *w, const int *group, int64_t n,
                           int64_t ngroups, double *score_out,
                           double *value_out, double *weight_out,
                           int64_t *offsets, char *msg, size_t len)
{
  (void) score; (void) outcome; (void) w; (void) group; (void) n;
  (void) ngroups; (void) score_out; (void) value_out; (void) weight_out;
  (void) offsets;
  return absent(msg, len);
}

int gi_cuda_isoreg_host(const double *x, const double *y, const double *w,
                        int64_t n, int decreasing, int32_t *ord, double *ys,
                        double *ws, unsigned char *same, double *fit,
                        char *msg, size_t len)
{
  (void) x; (void) y; (void) w; (void) n; (void) decreasing; (void) ord;
  (void) ys; (void) ws; (void) same; (void) fit;
  return absent(msg, len);
}

int gi_cuda_idr_host(const int *xcode, const int *kcode, const double *w, int L,
                     const int64_t *lobs, const int64_t *m, const int64_t *K,
                     double *ptr, char *msg, size_t len)
{
  (void) xcode; (void) kcode; (void) w; (void) L; (void) lobs; (void) m; (void) K;
  (void) ptr;
  return absent(msg, len);
}

int gi_cuda_idr_plane(int L, const int64_t *lobs, const int64_t *m, const int64_t *K,
                      const int *node, const int *kcode, const double *w, const int *pos,
                      const int *rank, double *ptr, char *msg, size_t len)
{
  (void) L; (void) lobs; (void) m; (void) K; (void) node; (void) kcode; (void) w;
  (void) pos; (void) rank; (void) ptr;
  return absent(msg, len);
}

void gi_cuda_idr_result(const int **start, const double **value)
{
  *start = NULL;
  *value = NULL;
}

int gi_cuda_corp_bands(const double *u, const double *p0, const double *count,
                       int64_t m, int64_t n, int B, double plo, double phi,
                       uint64_t seed, double *lower, double *upper, double *mcb,
                       char *msg, size_t len)
{
  (void) u; (void) p0; (void) count; (void) m; (void) n; (void) B; (void) plo;
  (void) phi; (void) seed; (void) lower; (void) upper; (void) mcb;
  return absent(msg, len);
}

int gi_cuda_memory(double *held, double *pinned, double *free_bytes,
                   double *total_bytes, char *msg, size_t len)
{
  *held = 0; *pinned = 0; *free_bytes = 0; *total_bytes = 0;
  return absent(msg, len);
}

void gi_cuda_release(void) {}

void gi_cuda_test_full_device(int on) { (void) on; }

int64_t gi_cuda_test_idr_plane_wave(int64_t values)
{
  (void) values;
  return 0;
}

void gi_cuda_set_threads(int nthreads) { (void) nthreads; }

size_t gi_cuda_set_piece(size_t bytes)
{
  (void) bytes;
  return 0;
}

void gi_cuda_last_times(double *out)
{
  for (int i = 0; i < GI_TIMES; i++) out[i] = 0.0;
}

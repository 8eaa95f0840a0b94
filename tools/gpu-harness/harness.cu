/*
 * The engine's forward kernels without R: gi_cuda_bench() on one synthetic
 * batch, float32 then float64, printing the median kernel time and the
 * stage split. Built with -DGI_PROFILE it also prints each phase's share of
 * the chunk kernel's clock cycles and the walk steps per block. See
 * README.md.
 *
 *     harness ROWS N noisy|increasing w|- [REPS]
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdint.h>
#include <vector>

extern "C" int gi_cuda_bench(const double *y, const double *w, const int64_t *off,
                             int64_t nprob, int decreasing, int single, int reps, double *ms,
                             double *stage_ms, double *fit, char *msg, size_t len);
#ifdef GI_PROFILE
extern "C" void gi_prof_read(unsigned long long *out, int reset);
#endif

int main(int argc, char **argv)
{
  if (argc < 5) {
    fprintf(stderr, "usage: harness ROWS N noisy|increasing w|- [REPS]\n");
    return 2;
  }
  const int64_t rows = (int64_t) atof(argv[1]), n = (int64_t) atof(argv[2]);
  const bool noisy = argv[3][0] == 'n', weighted = argv[4][0] == 'w';
  const int reps = argc > 5 ? atoi(argv[5]) : 20;
  /* as in bench/gpu/kernels.R: a ramp from 0 to 3 per row, N(0, 1) noise,
   * weights U(0.5, 2) */
  std::vector<double> y(rows * n), w(weighted ? rows * n : 0);
  std::mt19937_64 gen(1);
  std::normal_distribution<double> noise;
  std::uniform_real_distribution<double> unif(0.5, 2.0);
  for (int64_t r = 0; r < rows; r++) {
    for (int64_t i = 0; i < n; i++) {
      y[r * n + i] = (n > 1 ? 3.0 * i / (n - 1) : 0.0) + (noisy ? noise(gen) : 0.0);
      if (weighted) w[r * n + i] = unif(gen);
    }
  }
  std::vector<int64_t> off(rows + 1);
  for (int64_t r = 0; r <= rows; r++) off[r] = r * n;
  for (int single = 1; single >= 0; single--) {
    std::vector<double> ms(reps), st(4);
    char msg[512] = "";
#ifdef GI_PROFILE
    unsigned long long pr[8];
    gi_prof_read(pr, 1);
#endif
    int rc = gi_cuda_bench(y.data(), weighted ? w.data() : NULL, off.data(), rows, 1, single,
                           reps, ms.data(), st.data(), NULL, msg, sizeof msg);
    std::sort(ms.begin(), ms.end());
    printf("%gx%g %s %s %s rc=%d median %.3f ms, stages %.3f %.3f %.3f %.3f %s\n",
           (double) rows, (double) n, argv[3], weighted ? "weighted" : "-",
           single ? "f32" : "f64", rc, ms[reps / 2], st[0], st[1], st[2], st[3], msg);
#ifdef GI_PROFILE
    gi_prof_read(pr, 0);
    const char *phase[] = {"load", "sums", "hull", "merge", "out"};
    double total = 0;
    for (int k = 0; k < 5; k++) total += (double) pr[k];
    printf("  chunk kernel cycles:");
    for (int k = 0; k < 5; k++) printf(" %s %.2f", phase[k], pr[k] / total);
    printf(", %.0f a block, %.1f walk steps a block\n", total / (double) pr[7],
           pr[5] / (double) pr[7]);
#endif
  }
  return 0;
}

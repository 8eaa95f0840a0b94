# One row of 1e8 values without weights, increasing and noisy (bench/cpu.R's rows (a) and
# (b)), fitted on 1, 2 and more threads in a process that does nothing else: the median
# wall time of isotonic(y, device = "cpu") (3 runs on one thread, 5 on more, after one
# untimed), and the one-thread time over the last column's.
#
# Usage (from the repository root): Rscript bench/long-rows.R [LIB]
#   LIB  library that holds gpuiso (default: the normal library paths); run it once per
#        build, alternating, to compare builds on one machine
# Environment: GPUISO_BENCH_THREADS, three thread counts (default 1,2,16).
args <- commandArgs(trailingOnly = TRUE)
lib <- if (length(args) >= 1L && nzchar(args[1L])) args[1L] else NULL
suppressPackageStartupMessages(library(gpuiso, lib.loc = lib))
ks <- as.numeric(strsplit(Sys.getenv("GPUISO_BENCH_THREADS", "1,2,16"), ",")[[1L]])
median_s <- function(f, reps) {
  f()
  stats::median(replicate(reps, system.time(f())[["elapsed"]]))
}
n <- 1e8
inc <- seq(0, 3, length.out = n)
set.seed(1)
noisy <- inc + stats::rnorm(n)
for (case in c("increasing", "noisy")) {
  y <- if (case == "increasing") inc else noisy
  t <- vapply(ks, function(k) {
    options(gpuiso.threads = k)
    median_s(function() isotonic(y, device = "cpu"), if (k == 1) 3L else 5L)
  }, 0)
  cat(sprintf("%s %-10s %s: %.2fx on %g threads\n", if (is.null(lib)) "-" else basename(lib), case,
              paste(sprintf("%g thr %.1f ms", ks, 1e3 * t), collapse = ", "), t[1L] / t[length(t)],
              ks[length(ks)]))
}

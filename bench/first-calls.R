# The first calls of a fresh R process against its later ones: one weighted row of 1e7
# (bench/cpu.R's row (c)), fitted three times on one thread, then three times on two, six
# rounds alternating; each call's wall time in ms. The first calls of a process pay for the
# huge-page hint of R's glue (gi_hint_huge(), gi_prefault()) where the kernel compacts memory
# to find huge pages (bench/split-scaling-RESULTS.md).
#
# Usage (from the repository root): Rscript bench/first-calls.R [LIB]
#   LIB  library that holds gpuiso (default: the normal library paths)
# Environment: GPUISO_BENCH_TAG, a label printed before the times.
args <- commandArgs(trailingOnly = TRUE)
lib <- if (length(args) >= 1L && nzchar(args[1L])) args[1L] else NULL
suppressPackageStartupMessages(library(gpuiso, lib.loc = lib))
set.seed(20240101 + 1e7)
n <- 1e7
y <- seq(0, 3, length.out = n) + stats::rnorm(n)
w <- exp(stats::runif(n, 0, 8))
out <- character(0)
for (r in 1:6) for (k in 1:2) {
  options(gpuiso.threads = k)
  t <- replicate(3, system.time(isotonic(y, w, device = "cpu"))[["elapsed"]])
  out <- c(out, sprintf("%d thr %s", k, paste(sprintf("%.0f", 1e3 * t), collapse = "/")))
}
cat(Sys.getenv("GPUISO_BENCH_TAG", "-"), paste(out, collapse = ", "), "\n")

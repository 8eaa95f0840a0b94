# Repeated timings of one idr() fit on several covariates: the median of
# `reps` wall-clock runs (after one warm-up) at each thread count, for the
# targets of bench/idr-multi-RESULTS.md where one run is too noisy.
# Usage: Rscript bench/idr-repeat.R [n] [d] [reps] [threads, comma-separated]
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1L) as.numeric(args[1L]) else 1e4
d <- if (length(args) >= 2L) as.integer(args[2L]) else 2L
reps <- if (length(args) >= 3L) as.integer(args[3L]) else 5L
threads <- if (length(args) >= 4L) as.integer(strsplit(args[4L], ",")[[1L]]) else c(1L, 2L)
lib <- Sys.getenv("GPUISO_LIB", "")
.libPaths(c(if (nzchar(lib)) lib, .libPaths()))
suppressPackageStartupMessages(library(gpuiso))
set.seed(1)
X <- as.data.frame(matrix(stats::runif(n * d), n, d))
y <- rowSums(X) + stats::rnorm(n)
for (k in threads) {
  options(gpuiso.threads = k)
  invisible(idr(y[1:1000], X[1:1000, , drop = FALSE]))
  t <- vapply(seq_len(reps), function(i) system.time(idr(y, X))[["elapsed"]], 0)
  cat(sprintf("n = %g, %d covariates, all thresholds, %2d threads: median %.3f s (runs: %s)\n",
              n, d, k, stats::median(t), paste(sprintf("%.3f", t), collapse = ", ")))
}

# One thread, one problem, from R: gpuiso::isotonic() against monotone::monotone on the rows
# of bench/cpu.R that are closest (weighted and unweighted noisy, n = 1e3 and 1e5), in a
# small process that does nothing else, to tell the engine's speed from the state of a long
# benchmark process and of the machine. Prints one line per size.
#
# Usage (from the repository root): Rscript bench/onethread-r.R [LIB] [SEED]
#   LIB   library that holds gpuiso (default: the normal library paths); run it once per
#         build, alternating, to compare builds
#   SEED  seed of the data (default 20240101 + n, bench/cpu.R's)
# monotone comes from bench/.lib (bench/install-peers.sh).
args <- commandArgs(trailingOnly = TRUE)
lib <- if (length(args) >= 1L && nzchar(args[1L])) args[1L] else NULL
suppressPackageStartupMessages(library(gpuiso, lib.loc = lib))
library(monotone, lib.loc = "bench/.lib")
options(gpuiso.threads = 1)
# median seconds per call over 9 repetitions of k calls, k doubled until one lasts 50 ms
per_call <- function(f) {
  k <- 1
  repeat {
    t <- system.time(for (i in seq_len(k)) f())[["elapsed"]]
    if (t > 0.05) break
    k <- 2 * k
  }
  stats::median(replicate(9, system.time(for (i in seq_len(k)) f())[["elapsed"]] / k))
}
for (n in c(1e3, 1e5)) {
  set.seed(if (length(args) >= 2L) as.numeric(args[2L]) else 20240101 + n)
  y <- seq(0, 3, length.out = n) + stats::rnorm(n)
  w <- exp(stats::runif(n, 0, 8))
  for (i in 1:3) {
    isotonic(y, w, device = "cpu")
    monotone::monotone(y, w)
  }
  g <- per_call(function() isotonic(y, w, device = "cpu"))
  m <- per_call(function() monotone::monotone(y, w))
  gu <- per_call(function() isotonic(y, device = "cpu"))
  mu <- per_call(function() monotone::monotone(y))
  cat(sprintf("%s n=%g weighted: gpuiso %.3g us, monotone %.3g us (ratio %.2f) | unweighted: gpuiso %.3g us, monotone %.3g us (ratio %.2f)\n",
              if (is.null(lib)) "-" else basename(lib), n, g * 1e6, m * 1e6, g / m, gu * 1e6,
              mu * 1e6, gu / mu))
}

# What a fresh result of 10^8 doubles costs in one R process, call after call: bench/cpu.R's
# weighted row (c) of 10^8 fitted on one thread by gpuiso and by monotone::monotone, and R's
# own `y * 2` beside them, which also writes 800 MB of fresh memory and computes almost
# nothing. Each round calls the three in turn and keeps each result until the same call of
# the next round returns (as bench/cpu.R's timing loop does). Prints the wall time and the
# minor page faults of every call, then each method's first, median and best time.
#
# If `y * 2` moves from round to round as much as the fits do, the fits' times there are
# set by how fast the machine backs fresh memory, not by the fits (bench/split-scaling-RESULTS.md).
#
# Usage (from the repository root): Rscript bench/first-touch.R [LIB]
#   LIB  library that holds gpuiso (default: the normal library paths); monotone is looked
#        for in bench/.lib (bench/install-peers.sh), then in the normal paths
# Environment: GPUISO_BENCH_ROUNDS (default 6), GPUISO_BENCH_N (default 1e8).
args <- commandArgs(trailingOnly = TRUE)
lib <- if (length(args) >= 1L && nzchar(args[1L])) args[1L] else NULL
suppressPackageStartupMessages(library(gpuiso, lib.loc = lib))
bench_dir <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE),
                                                            value = TRUE))))
source(file.path(bench_dir, "common.R"))
rounds <- as.integer(env_num("GPUISO_BENCH_ROUNDS", 6))
n <- env_num("GPUISO_BENCH_N", 1e8)
options(gpuiso.threads = 1L)
peer_lib <- c(file.path(bench_dir, ".lib"), .libPaths())
has_monotone <- requireNamespace("monotone", lib.loc = peer_lib, quietly = TRUE)

set.seed(1)
y <- seq(0, 3, length.out = n) + stats::rnorm(n)
w <- exp(stats::runif(n, 0, 8))
calls <- list(
  gpuiso = function() isotonic(y, w, device = "cpu"),
  monotone = if (has_monotone) function() monotone::monotone(y, w),
  `y * 2` = function() y * 2
)
calls <- calls[!vapply(calls, is.null, NA)]
kept <- vector("list", length(calls))
times <- matrix(NA_real_, rounds, length(calls), dimnames = list(NULL, names(calls)))
faults <- times
cat(sprintf("n = %g, %d rounds, gpuiso %s on 1 thread%s\n", n, rounds,
            utils::packageVersion("gpuiso"),
            if (has_monotone) sprintf(", monotone %s", utils::packageVersion("monotone"))
            else " (monotone not installed)"))
for (r in seq_len(rounds)) {
  for (j in seq_along(calls)) {
    f0 <- minor_faults()
    t0 <- now()
    out <- calls[[j]]()
    times[r, j] <- now() - t0
    faults[r, j] <- minor_faults() - f0
    kept[[j]] <- out # the previous round's result is dropped only now
    rm(out)
  }
  cat(sprintf("round %d: %s\n", r, paste(sprintf("%s %.3f s (%.0f faults)", colnames(times),
                                                 times[r, ], faults[r, ]), collapse = " | ")))
}
cat("\n| call | first | median | best | faults a call (median) |\n| --- | ---: | ---: | ---: | ---: |\n")
for (j in seq_along(calls)) {
  cat(sprintf("| %s | %.3f s | %.3f s | %.3f s | %.0f |\n", colnames(times)[j], times[1L, j],
              stats::median(times[, j]), min(times[, j]), stats::median(faults[, j])))
}

# Where device = "auto" should switch to the GPU: wall-clock time of
# isotonic() from R on the CPU engine (the default threads, half the
# processors, and all of them) and on the GPU engine (host data: copies
# included), one problem of n noisy values and batches of problems of 16
# and of 1,000 elements.
#   Rscript bench/gpu/crossover.R LIB OUT.csv
args <- commandArgs(trailingOnly = TRUE)
if (length(args) >= 1L && nzchar(args[1])) .libPaths(c(args[1], .libPaths()))
out <- if (length(args) >= 2L) args[2] else "crossover.csv"
suppressPackageStartupMessages(library(gpuiso))
stopifnot(gpu_info()$available)

# Median ms per call; each of the `reps` timings runs enough calls to last
# about 20 ms, as the clock R reads ticks in milliseconds.
wall <- function(f, reps) {
  f() # warm-up
  t0 <- proc.time()[["elapsed"]]
  k <- 0L
  while (proc.time()[["elapsed"]] - t0 < 0.02) {
    f()
    k <- k + 1L
  }
  t <- vapply(seq_len(reps), function(i) {
    t0 <- proc.time()[["elapsed"]]
    for (j in seq_len(k)) f()
    (proc.time()[["elapsed"]] - t0) / k
  }, numeric(1))
  1e3 * median(t)
}

rows <- list()
add <- function(shape, n, engine, ms) {
  rows[[length(rows) + 1L]] <<- data.frame(shape = shape, n = n, engine = engine, ms = ms)
  cat(sprintf("%-12s n=%-9.0f %-18s %9.3f ms\n", shape, n, engine, ms))
}
threads <- unique(c(getOption("gpuiso.threads"), .Call(gpuiso:::ffi_build_info)$procs))
cpu <- function(shape, n, y) {
  for (th in threads) {
    old <- options(gpuiso.threads = th)
    add(shape, n, sprintf("cpu, %d threads", th), wall(function() isotonic(y, device = "cpu"), 5L))
    options(old)
  }
}
set.seed(1)
for (k in seq(12, 22, by = 2)) {
  n <- 2^k
  y <- 3 * seq_len(n) / n + rnorm(n)
  cpu("one problem", n, y)
  add("one problem", n, "gpu", wall(function() isotonic(y, device = "gpu"), 5L))
}
for (len in c(16, 1000)) {
  for (cols in 4^(2:9)) {
    n <- len * cols
    if (n > 2^24) next
    m <- matrix(rnorm(n), len, cols)
    shape <- sprintf("%d x cols", len)
    cpu(shape, n, m)
    add(shape, n, "gpu", wall(function() isotonic(m, device = "gpu"), 5L))
  }
}
write.csv(do.call(rbind, rows), out, row.names = FALSE)

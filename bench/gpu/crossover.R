# Where device = "auto" should switch to the GPU: wall-clock time of
# isotonic() from R on the CPU engine (the package's default threads and 16)
# and on the GPU engine (host data: copies included), one problem of n noisy
# values and batches of 1,000-element problems.
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
set.seed(1)
for (k in seq(8, 22, by = 2)) {
  n <- 2^k
  y <- 3 * seq_len(n) / n + rnorm(n)
  reps <- 5L
  add("one problem", n, "cpu, 2 threads", wall(function() isotonic(y, device = "cpu"), reps))
  add("one problem", n, "gpu", wall(function() isotonic(y, device = "gpu"), reps))
}
for (cols in c(4, 16, 64, 256, 1024, 4096)) {
  m <- matrix(rnorm(1000 * cols), 1000, cols)
  n <- length(m)
  reps <- 5L
  old <- options(gpuiso.threads = 2L)
  add("1000 x cols", n, "cpu, 2 threads", wall(function() isotonic(m, device = "cpu"), reps))
  options(gpuiso.threads = 16L)
  add("1000 x cols", n, "cpu, 16 threads", wall(function() isotonic(m, device = "cpu"), reps))
  options(old)
  add("1000 x cols", n, "gpu", wall(function() isotonic(m, device = "gpu"), reps))
}
write.csv(do.call(rbind, rows), out, row.names = FALSE)

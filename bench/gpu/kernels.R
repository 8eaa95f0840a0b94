# Kernel times of gpuiso's GPU engine, forward and backward, on the shapes of
# the paper's Table 1 (see kernels.sh, which runs this next to kernels_peers.py).
#
# Usage: Rscript bench/gpu/kernels.R LIB OUT.csv
#
# Data, as in kernels_peers.py (the same definitions, not the same numbers):
# "noisy" = a ramp from 0 to 3 over each row plus N(0, 1) noise, "increasing"
# = the ramp; weights U(0.5, 2) in weighted cells. Decreasing fits, as in
# Table 1. Forward: .Call(ffi_gpu_bench) copies the batch to the device once,
# solves it once, then times `reps` solves with CUDA events (medians, and the
# stage split of one more run). Backward: .Call(ffi_gpu_bench_vjp) times the
# device-data backward pass (dy, and dw when weighted) of that fit for a
# N(0, 1) upstream gradient; it computes in double for both precisions.
# Output: CSV rows impl, pass, shape, data, weights, precision, median_ms,
# q1_ms, q3_ms, stages (chunk hulls; chunk starts; merge levels; long fit).

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2L) stop("usage: Rscript kernels.R LIB OUT.csv")
suppressMessages(library(gpuiso, lib.loc = args[[1L]]))
out <- args[[2L]]
ns <- asNamespace("gpuiso")
shapes <- strsplit(Sys.getenv("GPUISO_BENCH_SHAPES",
                              "100x1e3,1e6x16,1e4x1e3,1e3x1e4,1x1e6,1x1e7,1x1e8"), ",")[[1L]]
reps <- 20L

cat("impl,pass,shape,data,weights,precision,median_ms,q1_ms,q3_ms,stages\n", file = out)
emit <- function(pass, shape, data, wt, prec, ms, stages = numeric()) {
  q <- stats::quantile(ms, c(0.5, 0.25, 0.75), names = FALSE)
  line <- sprintf("gpuiso,%s,%s,%s,%s,%s,%.4f,%.4f,%.4f,%s", pass, shape, data,
                  if (wt) "weighted" else "none", prec, q[1L], q[2L], q[3L],
                  paste(sprintf("%.4f", stages), collapse = ";"))
  cat(line, "\n", sep = "", file = out, append = TRUE)
  cat(line, "\n", sep = "")
}

set.seed(20261201)
for (sh in shapes) {
  p <- as.numeric(strsplit(sh, "x", fixed = TRUE)[[1L]])
  rows <- p[[1L]]; n <- p[[2L]]
  off <- seq(0, by = n, length.out = rows + 1)
  ramp <- seq(0, 3, length.out = n)
  for (data in c("noisy", "increasing")) {
    y <- rep(ramp, rows)
    if (data == "noisy") y <- y + stats::rnorm(rows * n)
    for (wt in c(FALSE, TRUE)) {
      w <- if (wt) stats::runif(rows * n, 0.5, 2)
      for (single in c(TRUE, FALSE)) {
        r <- .Call(ns$ffi_gpu_bench, y, w, off, TRUE, single, reps)
        emit("forward", sh, data, wt, if (single) "float32" else "float64", r$ms, r$stages)
      }
      f <- .Call(ns$ffi_gpu_fit, y, w, off, TRUE, TRUE, FALSE, 8L)
      g <- stats::rnorm(rows * n)
      b <- .Call(ns$ffi_gpu_bench_vjp, y, w, f$fit, f$starts, g, reps)
      emit("backward", sh, data, wt, "float64", b$ms)
      rm(f, g, b, w)
    }
    rm(y)
    invisible(gc(FALSE))
  }
}

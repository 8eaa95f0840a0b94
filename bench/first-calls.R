# The first calls of a fresh R process against its later ones: one row of bench/cpu.R's data,
# fitted three times on each thread count in turn, six rounds; each call's wall time in ms.
# On the 2-core VM the first calls of a process pay for the huge-page hint of R's glue
# (gi_hint_huge(), gi_prefault()): their faults cost ten times the later ones' system
# time, memory the guest had not touched (not compaction: bench/split-scaling-RESULTS.md).
#
# Usage (from the repository root): Rscript bench/first-calls.R [LIB]
#   LIB  library that holds gpuiso (default: the normal library paths)
# Environment: GPUISO_BENCH_N (default 1e7), GPUISO_BENCH_CASE (weighted, the default,
# noisy or increasing), GPUISO_BENCH_THREADS (default 1,2), GPUISO_BENCH_TAG (a label
# printed first).
args <- commandArgs(trailingOnly = TRUE)
lib <- if (length(args) >= 1L && nzchar(args[1L])) args[1L] else NULL
suppressPackageStartupMessages(library(gpuiso, lib.loc = lib))
n <- as.numeric(Sys.getenv("GPUISO_BENCH_N", "1e7"))
case <- Sys.getenv("GPUISO_BENCH_CASE", "weighted")
ks <- as.integer(strsplit(Sys.getenv("GPUISO_BENCH_THREADS", "1,2"), ",")[[1L]])
set.seed(20240101 + n)
y <- seq(0, 3, length.out = n)
if (case != "increasing") y <- y + stats::rnorm(n)
w <- if (case == "weighted") exp(stats::runif(n, 0, 8))
out <- character(0)
for (r in 1:6) for (k in ks) {
  options(gpuiso.threads = k)
  t <- replicate(3, system.time(isotonic(y, w, device = "cpu"))[["elapsed"]])
  out <- c(out, sprintf("%d thr %s", k, paste(sprintf("%.0f", 1e3 * t), collapse = "/")))
}
cat(Sys.getenv("GPUISO_BENCH_TAG", "-"), case, format(n), paste(out, collapse = ", "), "\n")

# Where idr(device = "auto") should switch to the GPU: the fit alone, CPU sweep
# (one thread) against the GPU path, over n continuous observations (n distinct
# x and n thresholds, the data of bench/idr.R). Median of 5 fits after a warm-up.
#
#     Rscript bench/idr-crossover.R OUT.csv [LIB]
args <- commandArgs(trailingOnly = TRUE)
out_csv <- if (length(args)) args[1] else "idr-crossover.csv"
lib <- if (length(args) > 1L) args[2] else NULL
suppressPackageStartupMessages(library(gpuiso, lib.loc = lib))
options(gpuiso.threads = 1L)
stopifnot(gpu_info()$available)
med <- function(f) {
  f()
  stats::median(vapply(1:5, function(i) system.time(f())[["elapsed"]], 0))
}
rows <- list()
for (n in c(250, 500, 1000, 2000, 5000, 10000, 20000)) {
  set.seed(n)
  x <- runif(n, 0, 10)
  y <- rgamma(n, shape = 1 + x / 2)
  cpu <- med(function() idr(y, x, device = "cpu"))
  gpu <- med(function() idr(y, x, device = "gpu"))
  rows[[length(rows) + 1L]] <- data.frame(n = n, cpu_s = cpu, gpu_s = gpu)
  cat(sprintf("n = %6.0f  cpu %8.4f s  gpu %8.4f s\n", n, cpu, gpu))
}
utils::write.csv(do.call(rbind, rows), out_csv, row.names = FALSE)

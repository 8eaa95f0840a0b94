# Where the time of one isotonic() call from R on the GPU goes, beyond the
# engine's own stages (gpu_timings()): the argument scan, the bare .Call,
# R's allocation and garbage collection. Medians over repeated calls. For
# the device machine:
#   Rscript bench/gpu/profile.R LIB [N ...]
args <- commandArgs(trailingOnly = TRUE)
if (length(args) >= 1L && nzchar(args[1])) .libPaths(c(args[1], .libPaths()))
sizes <- if (length(args) >= 2L) as.numeric(args[-1]) else c(1e6, 1e8)
suppressPackageStartupMessages(library(gpuiso))
th <- getOption("gpuiso.threads")
source(file.path(dirname(dirname(normalizePath(sub("^--file=", "", grep(
  "^--file=", commandArgs(FALSE), value = TRUE))))), "common.R")) # times_ms()
med <- function(f, reps) median(times_ms(f, reps))
stages <- function(f) {
  f()
  t <- gpu_timings()
  sprintf("engine %.2f = in %.2f + device %.2f + prefault %.2f + out %.2f", t$total,
          t$copy_in, t$device, t$prefault, t$copy_out)
}
set.seed(1)
for (n in sizes) {
  y <- rnorm(n) + seq(0, 3, length.out = n)
  reps <- if (n >= 1e8) 3L else if (n >= 1e7) 10L else 50L
  off <- c(0, n)
  cat(sprintf("n = %g, %d threads\n", n, th))
  cat(sprintf("  allocVector + touch (numeric(n)): %.3f ms\n", med(function() numeric(n), reps)))
  cat(sprintf("  R y + 0:                          %.3f ms\n", med(function() y + 0, reps)))
  cat(sprintf("  scan:                             %.3f ms\n",
              med(function() .Call(gpuiso:::ffi_first_invalid, y, FALSE, FALSE, th), reps)))
  cat(sprintf("  gpu_status(FALSE):                %.3f ms\n",
              med(function() gpuiso:::gpu_status(FALSE), reps)))
  for (single in c(FALSE, TRUE)) {
    bare <- function() .Call(gpuiso:::ffi_gpu_fit, y, NULL, off, FALSE, FALSE, single, th)
    full <- function() isotonic(y, device = "gpu", precision = if (single) "single" else "double")
    cat(sprintf("  %s: bare .Call %.3f ms (%s)\n", if (single) "single" else "double",
                med(bare, reps), stages(bare)))
    cat(sprintf("          isotonic() %.3f ms (%s)\n", med(full, reps), stages(full)))
  }
  rm(y)
  invisible(gc())
}

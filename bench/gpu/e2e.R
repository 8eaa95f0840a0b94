# End to end from R on host data (issue 12): isotonic() on the GPU engine,
# both precisions, with the stage times of gpu_timings(); R's own `y + 0`
# (allocating and filling a result of the same size) as the floor of any
# call that returns a new vector; the CPU engine on the default threads and
# on all of the host's. Run on the device machine by e2e.sh, beside e2e.py
# (torchisotonic from NumPy and the pinned copy bandwidth).
#   Rscript bench/gpu/e2e.R LIB OUT.csv [SHAPES]
args <- commandArgs(trailingOnly = TRUE)
if (length(args) >= 1L && nzchar(args[1])) .libPaths(c(args[1], .libPaths()))
out <- if (length(args) >= 2L) args[2] else "e2e.csv"
shapes <- if (length(args) >= 3L) strsplit(args[3], ",")[[1]] else
  c("1x1e5", "1x1e6", "1x1e7", "1x1e8", "1e4x1e3", "1e3x1e4", "1e6x16")
suppressPackageStartupMessages(library(gpuiso))
stopifnot(gpu_info()$available)
all_threads <- .Call(gpuiso:::ffi_build_info)$procs
default_threads <- getOption("gpuiso.threads")

source(file.path(dirname(dirname(normalizePath(sub("^--file=", "", grep(
  "^--file=", commandArgs(FALSE), value = TRUE))))), "common.R")) # times_ms()

rows <- list()
add <- function(shape, engine, precision, t, stages = NULL) {
  st <- if (is.null(stages)) rep(NA_real_, 6L) else
    unlist(stages[c("copy_in", "device", "copy_out", "convert", "prefault", "total")])
  rows[[length(rows) + 1L]] <<- data.frame(
    shape = shape, engine = engine, precision = precision,
    median_ms = median(t), min_ms = min(t), reps = length(t),
    copy_in = st[1], device = st[2], copy_out = st[3], convert = st[4],
    prefault = st[5], engine_total = st[6])
  cat(sprintf("%-9s %-22s %-6s median %9.2f ms  min %9.2f%s\n", shape, engine,
              precision, median(t), min(t),
              if (is.null(stages)) "" else
                sprintf("  [in %.1f, device %.1f, prefault %.1f, out %.1f, convert %.1f]",
                        st[1], st[2], st[5], st[3], st[4])))
  utils::flush.console()
}

set.seed(1)
for (shape in shapes) {
  d <- as.numeric(strsplit(shape, "x")[[1]])
  nprob <- d[1]; len <- d[2]
  total <- nprob * len
  ramp <- rep(seq(0, 3, length.out = len), nprob)
  y <- ramp + rnorm(total)
  rm(ramp)
  if (nprob > 1) dim(y) <- c(len, nprob) # one problem per column
  reps <- if (total >= 1e8) 3L else if (total >= 1e7) 5L else 15L
  add(shape, "R y + 0", "double", times_ms(function() y + 0, reps))
  for (prec in c("double", "single")) {
    t <- times_ms(function() isotonic(y, device = "gpu", precision = prec), reps)
    add(shape, "gpuiso gpu", prec, t, gpu_timings())
  }
  # the GPU fits against the CPU engine's (untimed)
  cpu <- isotonic(y, device = "cpu")
  dev <- max(abs(isotonic(y, device = "gpu") - cpu) / (1 + abs(cpu)))
  cat(sprintf("%-9s gpu vs cpu (double): max deviation %.3g\n", shape, dev))
  for (th in unique(c(default_threads, all_threads))) {
    old <- options(gpuiso.threads = th)
    t <- times_ms(function() isotonic(y, device = "cpu"), if (total >= 1e8) 2L else reps)
    options(old)
    add(shape, sprintf("gpuiso cpu %d threads", th), "double", t)
  }
  rm(y, cpu)
  invisible(gc())
}
res <- do.call(rbind, rows)
write.csv(res, out, row.names = FALSE)

# IDR on two covariates end to end from R: idr(device = "gpu")
# (cuda/idr_plane.cu) against idr(device = "cpu") on the threads, for one
# fit and for `by` batches, with the largest difference of their CDFs.
#
#     Rscript bench/gpu/idr-plane.R [THREADS] [SIZES]
#
# THREADS: the CPU's thread counts (default "2,16"); SIZES: "single",
# "batch" or "all" (default). Times are the median of three runs of
# idr() (one for fits over 5 s), including everything idr() does on the
# host (the order's covering pairs and the storage order of the points,
# on the CPU for both engines); "GPU engine alone" is the device's part
# (idr_po_engine(): the .Call of cuda/idr_plane.cu and the fits' lists),
# "its C entry" the time inside gi_cuda_idr_plane() (gpu_timings()).
suppressMessages(library(gpuiso))
args <- commandArgs(TRUE)
threads <- as.integer(strsplit(if (length(args) >= 1L) args[1L] else "2,16", ",")[[1L]])
what <- if (length(args) >= 2L) args[2L] else "all"

gen <- function(n, seed) {
  set.seed(seed)
  X <- data.frame(a = runif(n, 0, 10), b = runif(n, 0, 10))
  y <- rgamma(n, shape = 1 + (X$a + 10 - X$b) / 4)
  list(X = X, y = y)
}

dense <- function(fit) {
  .Call(gpuiso:::ffi_idr_cdf, fit$ptr, fit$start, fit$value, as.double(fit$npoints),
        seq_len(fit$npoints) - 1L, numeric(fit$npoints), seq_along(fit$thresholds) - 1L, FALSE)
}

timed <- function(f) {
  t1 <- system.time(r <- f())[["elapsed"]]
  if (t1 > 5) return(list(t = t1, r = r))
  t <- c(t1, replicate(2, system.time(f())[["elapsed"]]))
  list(t = median(t), r = r)
}

# the setups of idr()'s fit on the covariates a and b: one, or one per level
setups <- function(d, thr, st = NULL) {
  spec <- gpuiso:::idr_po_spec(c("a", "b"), NULL, c(comp = 1), FALSE, NULL)
  rows <- if (is.null(st)) list(seq_along(d$y)) else split(seq_along(d$y), st)
  inputs <- lapply(rows, function(r) {
    list(y = d$y[r], x = d$X[r, , drop = FALSE], w = NULL, yname = "y", xname = "X")
  })
  gpuiso:::idr_po_setups(inputs, spec, thr, "cpu", NULL)
}

row <- function(label, f_gpu, f_cpu, diff, s) {
  g <- timed(f_gpu)
  e <- timed(function() gpuiso:::idr_po_engine(s, "gpu"))
  # the C entry's own time, of the last of those runs
  cells <- sprintf("%.3f", c(g$t, e$t, gpu_timings()$total / 1000))
  d <- NA
  for (th in threads) {
    old <- options(gpuiso.threads = th)
    c <- timed(f_cpu)
    options(old)
    cells <- c(cells, sprintf("%.3f", c$t))
    d <- max(d, diff(g$r, c$r), na.rm = TRUE)
  }
  cat(sprintf("| %s | %s | %.1e |\n", label, paste(cells, collapse = " | "), d))
  flush.console()
}

gi <- gpu_info()
cat(sprintf("gpuiso %s; %s; CPU threads %s\n", packageVersion("gpuiso"),
            paste(c(gi$devices$name, "no GPU")[1L], collapse = ""),
            paste(threads, collapse = ", ")))
cat(sprintf(paste("| fit | GPU (s) | GPU engine alone (s) | its C entry (s) | %s |",
                  "max CDF difference |\n"),
            paste(sprintf("CPU %d thr (s)", threads), collapse = " | ")))
cat(sprintf("|---|---:|---:|---:|%s---:|\n", strrep("---:|", length(threads))))
# warm up the device and the package
invisible(idr(gen(200, 1)$y, gen(200, 1)$X, device = "gpu"))
one_diff <- function(g, c) max(abs(dense(g) - dense(c)))
if (what %in% c("all", "single")) {
  for (n in c(500, 1000, 2000, 5000, 10000)) {
    d <- gen(n, n)
    for (K in c(100, n)) {
      thr <- if (K < n) unname(quantile(d$y, seq(0, 1, length.out = K))) else NULL
      row(sprintf("n = %d, %s thresholds", n, if (K < n) "100" else "all"),
          function() idr(d$y, d$X, thresholds = thr, device = "gpu"),
          function() idr(d$y, d$X, thresholds = thr, device = "cpu"), one_diff,
          setups(d, thr))
    }
  }
}
if (what %in% c("all", "batch")) {
  by_diff <- function(g, c) max(mapply(one_diff, g$fits, c$fits))
  for (L in c(10, 100, 1000)) {
    d <- gen(1000 * L, L)
    st <- rep(seq_len(L), each = 1000)
    row(sprintf("by: %d levels x 1,000 observations, all thresholds", L),
        function() idr(d$y, d$X, by = st, device = "gpu"),
        function() idr(d$y, d$X, by = st, device = "cpu"), by_diff, setups(d, NULL, st))
  }
}
# the stage times of the last GPU engine call (the largest batch's)
if (what %in% c("all", "batch")) print(gpu_timings())

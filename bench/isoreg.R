# isoreg() end to end from R: gpuiso::isoreg(x, y) against stats::isoreg(x, y) and
# against the floor of the same work by hand, order(x) + isotonic(y[o]); predict() on
# 1e6 new x against as.stepfun(fit)(x). All in one R process, on the same data.
#
# Run from the repository root, after `R CMD INSTALL .`:
#     Rscript bench/isoreg.R
# Environment variables:
#     GPUISO_LIB          library that holds gpuiso (default: the normal library paths)
#     GPUISO_BENCH_MAX_N  largest n (default 1e7)
#     GPUISO_BENCH_LABEL  machine label for the CSV and the table (default "devvm")
#     GPUISO_BENCH_OUT    folder for the CSV (default bench/results)
# With a usable GPU, the device = "gpu" column is added.
#
# Data: y = 2 x + N(0, 1) noise, with x (a) sorted and distinct, (b) unsorted runif (a few
# accidental ties), (c) 1,000 distinct values, unsorted. Each cell is the median time of one
# call (wall clock, R's garbage collection included, as a user sees it); stats::isoreg()
# is O(n x knots) and is skipped where one call would exceed STATS_LIMIT_S.

suppressPackageStartupMessages(library(stats))
lib <- Sys.getenv("GPUISO_LIB", "")
suppressPackageStartupMessages(
  if (nzchar(lib)) library(gpuiso, lib.loc = lib) else library(gpuiso))

max_n <- as.numeric(Sys.getenv("GPUISO_BENCH_MAX_N", "1e7"))
label <- Sys.getenv("GPUISO_BENCH_LABEL", "devvm")
out_dir <- Sys.getenv("GPUISO_BENCH_OUT", file.path("bench", "results"))
STATS_LIMIT_S <- 60
has_gpu <- isTRUE(gpu_info()$available)

# Median wall-clock seconds of one evaluation of `expr`, after a warm-up: each of `reps`
# repetitions times a loop of k evaluations (k such that a repetition lasts at least
# 50 ms, so that fast calls are not limited by the clock) and divides by k.
time_median <- function(expr, reps = 5L, env = parent.frame()) {
  e <- substitute(expr)
  first <- system.time(eval(e, env), gcFirst = FALSE)[["elapsed"]]
  k <- max(1L, ceiling(0.05 / max(first, 1e-4)))
  t <- vapply(seq_len(reps), function(i) {
    system.time(for (j in seq_len(k)) eval(e, env), gcFirst = FALSE)[["elapsed"]] / k
  }, 0)
  median(t)
}

make_x <- function(kind, n) {
  switch(kind,
    "sorted distinct" = seq_len(n) / n,
    "unsorted runif" = runif(n),
    "1,000 distinct" = sample.int(1000L, n, replace = TRUE) / 1000)
}

rows <- list()
set.seed(20261201)
for (n in c(1e5, 1e6, 1e7)[c(1e5, 1e6, 1e7) <= max_n]) {
  reps <- if (n >= 1e7) 5L else 9L
  for (kind in c("sorted distinct", "unsorted runif", "1,000 distinct")) {
    x <- make_x(kind, n)
    y <- 2 * x + rnorm(n)
    t_gpuiso <- time_median(isoreg(x, y, device = "cpu"), reps)
    t_floor <- time_median({
      o <- order(x)
      isotonic(y[o], device = "cpu")
    }, reps)
    # stats::isoreg: one call first, to see whether more are affordable
    t_stats <- NA_real_
    f0 <- isoreg(x, y, device = "cpu")
    est <- if (n <= 1e5) 0 else {
      small <- system.time(stats::isoreg(x[1:1e5], y[1:1e5]))[["elapsed"]]
      small * (n / 1e5) * max(1, length(f0$iKnots) / length(isoreg(x[1:1e5], y[1:1e5])$iKnots))
    }
    if (est <= STATS_LIMIT_S) {
      s <- stats::isoreg(x, y)
      stopifnot(identical(s$iKnots, f0$iKnots), identical(s$ord, f0$ord),
                max(abs(s$yf - f0$yf)) <= 1e-9 * (1 + max(abs(s$yf))))
      t_stats <- if (n >= 1e7) system.time(stats::isoreg(x, y))[["elapsed"]]
                 else time_median(stats::isoreg(x, y), 3L)
    }
    t_gpu <- NA_real_
    if (has_gpu) {
      fg <- isoreg(x, y, device = "gpu")
      stopifnot(identical(fg$iKnots, f0$iKnots), identical(fg$ord, f0$ord),
                max(abs(fg$yf - f0$yf)) <= 1e-9 * (1 + max(abs(f0$yf))))
      t_gpu <- time_median(isoreg(x, y, device = "gpu"), reps)
    }
    # predict() on 1e6 new x against stats' step function of the same fit
    newx <- runif(1e6, min(x), max(x))
    sf <- as.stepfun(f0)
    stopifnot(identical(predict(f0, newx), sf(newx)))
    t_pred <- time_median(predict(f0, newx), 7L)
    t_stepfun <- time_median(as.stepfun(f0)(newx), 7L)
    rows[[length(rows) + 1L]] <- data.frame(
      n = n, x = kind, blocks = nrow(f0$blocks), gpuiso = t_gpuiso,
      floor = t_floor, stats = t_stats, gpu = t_gpu, predict = t_pred,
      stepfun = t_stepfun)
    message(sprintf("n = %g, %s: gpuiso %.3f s, order + isotonic %.3f s, stats %s",
                    n, kind, t_gpuiso, t_floor,
                    if (is.na(t_stats)) "skipped" else sprintf("%.3f s", t_stats)))
  }
}
res <- do.call(rbind, rows)
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
utils::write.csv(res, file.path(out_dir, sprintf("isoreg-%s.csv", label)),
                 row.names = FALSE)

ms <- function(s) ifelse(is.na(s), "skipped", sprintf("%.0f", 1000 * s))
cat(sprintf("Machine: %s; %s; gpuiso %s, %d threads; %s\n\n", label,
            R.version.string, utils::packageVersion("gpuiso"),
            gpu_info()$threads, format(Sys.Date())))
cat("| n | x | blocks | gpuiso::isoreg (ms) | order + isotonic (ms) | ratio | stats::isoreg (ms) |",
    if (has_gpu) " device = \"gpu\" (ms) |", " predict 1e6 (ms) | as.stepfun(fit)(x) (ms) |\n", sep = "")
cat("| ---: | --- | ---: | ---: | ---: | ---: | ---: |", if (has_gpu) " ---: |",
    " ---: | ---: |\n", sep = "")
for (i in seq_len(nrow(res))) {
  r <- res[i, ]
  cat(sprintf("| %s | %s | %d | %s | %s | %.2f | %s |%s %s | %s |\n",
              format(r$n, scientific = TRUE), r$x, r$blocks, ms(r$gpuiso),
              ms(r$floor), r$gpuiso / r$floor, ms(r$stats),
              if (has_gpu) paste0(" ", ms(r$gpu), " |") else "",
              ms(r$predict), ms(r$stepfun)))
}

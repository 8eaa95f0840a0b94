# Reliability diagrams with resampled bands: gpuiso::reliability_diagram()
# against reliabilitydiag (its "resampling" method) and against an R loop of
# refits, end to end from R.
#
# Usage (from the repository root, gpuiso installed):
#     Rscript bench/reliability-bands.R OUT.csv
# Environment variables:
#     GPUISO_LIB              library that holds gpuiso (default: the normal library paths)
#     GPUISO_BENCH_SIZES      comma-separated numbers of forecasts (default 1e5,1e6)
#     GPUISO_BENCH_THREADS    comma-separated gpuiso thread counts (default 1,2)
#     GPUISO_BENCH_PEER_LIMIT_S  a peer cell whose estimated time exceeds this is estimated
#                             from a few resamples instead of run (default 120)
#     GPUISO_BENCH_COMMIT     commit label (default: `git rev-parse --short HEAD`)
#
# Data: n forecasts p ~ U(0, 1), all distinct, outcomes Bernoulli(p^1.3) (miscalibrated).
# Rows: the CORP curve and decomposition alone (no band), and with a consistency band of
# 100 resamples at level 0.9 (reliabilitydiag's defaults for its resampling method).
# Columns:
#   gpuiso, k threads   reliability_diagram(p, y, band = "none" | "consistency"),
#                       options(gpuiso.threads = k).
#   gpuiso GPU          the same with device = "gpu" where a GPU is available: the CORP fit on
#                       the device, and the band's resamples drawn, fitted, read and reduced to
#                       their quantiles there (src/cuda/bands.cu); the tied forecasts are pooled
#                       on the host either way.
#   reliabilitydiag     reliabilitydiag(X = p, y = y, region.level = NA) without a band;
#                       region.method = "resampling", n.boot = 100 with one. Installed into
#                       bench/.lib from its fetched source for the measurement (never committed)
#                       with ggExtra and bde dropped from its Imports: only its plots and its
#                       asymptotic bands use them. It fits by monotone::monotone (bench/.lib).
#   R loop of refits    reliabilitydiag's resampling written in base R: per resample
#                       sample.int(), rbinom(), order(), monotone::monotone() (stats::isoreg()
#                       without it), approx() at the distinct forecasts, then quantile() per
#                       forecast; timed on a few resamples and scaled to 100 when long.
# Each cell is the median of up to 3 calls after a warm-up call (one call when it takes longer
# than 10 s). Agreement: the median band width of each implementation (different random draws,
# so equal only statistically).
# Output: a markdown table and notes on stdout, one CSV row per cell in OUT.csv.

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1L) stop("usage: Rscript bench/reliability-bands.R OUT.csv")
out_csv <- args[[1L]]
args_file <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
bench_dir <- if (length(args_file) == 1L) dirname(normalizePath(args_file)) else normalizePath("bench")
source(file.path(bench_dir, "common.R"))
lib <- Sys.getenv("GPUISO_LIB", "")
.libPaths(c(if (nzchar(lib)) lib, file.path(bench_dir, ".lib"), .libPaths()))
suppressPackageStartupMessages(library(gpuiso))
have_rd <- requireNamespace("reliabilitydiag", quietly = TRUE)
have_mono <- requireNamespace("monotone", quietly = TRUE)
sizes <- as.numeric(strsplit(Sys.getenv("GPUISO_BENCH_SIZES", "1e5,1e6"), ",")[[1L]])
threads <- as.integer(strsplit(Sys.getenv("GPUISO_BENCH_THREADS", "1,2"), ",")[[1L]])
limit <- env_num("GPUISO_BENCH_PEER_LIMIT_S", 120)
gpu <- isTRUE(gpu_info()$available)
commit <- Sys.getenv("GPUISO_BENCH_COMMIT", "")
if (!nzchar(commit)) {
  commit <- tryCatch(system2("git", c("-C", dirname(bench_dir), "rev-parse", "--short", "HEAD"),
                             stdout = TRUE), error = function(e) "?")
}
B <- 100L
level <- 0.9

timed <- function(f) {
  t0 <- now(); out <- f(); t1 <- now() - t0
  if (t1 > 10) return(list(t = t1, out = out))
  ts <- vapply(1:3, function(i) { t0 <- now(); f(); now() - t0 }, 0)
  list(t = stats::median(ts), out = out)
}

# reliabilitydiag's resampling in base R, for `nb` resamples: the bounds
# at the distinct forecasts.
r_loop <- function(p, y, nb) {
  u <- sort(unique(p))
  fit_fun <- if (have_mono) monotone::monotone else function(v) stats::isoreg(v)$yf
  vals <- vapply(seq_len(nb), function(b) {
    s <- sample.int(length(p), replace = TRUE)
    x <- p[s]
    yy <- stats::rbinom(length(p), 1L, x)
    o <- order(x, -yy)
    f <- fit_fun(as.numeric(yy[o]))
    keep <- !duplicated(x[o])
    stats::approx(x[o][keep], f[keep], xout = u, ties = "ordered")$y
  }, numeric(length(u)))
  q <- apply(vals, 1L, stats::quantile, probs = 0.5 + c(-0.5, 0.5) * level, na.rm = TRUE,
             names = FALSE)
  list(lower = q[1L, ], upper = q[2L, ])
}
width <- function(lo, hi) stats::median(hi - lo, na.rm = TRUE)

rows <- list()
add <- function(n, task, impl, t, note = "", w = NA_real_) {
  rows[[length(rows) + 1L]] <<- data.frame(n = n, task = task, impl = impl, seconds = t,
                                           note = note, width = w)
}
t_start <- now()
for (n in sizes) {
  set.seed(1)
  p <- stats::runif(n)
  y <- stats::rbinom(n, 1L, p^1.3)
  for (k in threads) {
    set_threads(k)
    r <- timed(function() reliability_diagram(p, y, band = "none", device = "cpu"))
    add(n, "CORP curve and decomposition", sprintf("gpuiso, %d thr", k), r$t)
    r <- timed(function() reliability_diagram(p, y, resamples = B, device = "cpu"))
    add(n, "with a consistency band", sprintf("gpuiso, %d thr", k), r$t,
        w = width(r$out$band$lower, r$out$band$upper))
  }
  set_threads(NA)
  if (gpu) {
    r <- timed(function() reliability_diagram(p, y, band = "none", device = "gpu"))
    add(n, "CORP curve and decomposition", "gpuiso GPU", r$t)
    r <- timed(function() reliability_diagram(p, y, resamples = B, device = "gpu"))
    add(n, "with a consistency band", "gpuiso GPU", r$t,
        w = width(r$out$band$lower, r$out$band$upper))
  }
  if (have_rd) {
    r <- timed(function() reliabilitydiag::reliabilitydiag(X = p, y = y, region.level = NA))
    add(n, "CORP curve and decomposition", "reliabilitydiag", r$t)
    # one call of 2 resamples says how long 100 take
    t0 <- now()
    reliabilitydiag::reliabilitydiag(X = p, y = y, region.method = "resampling", n.boot = 2L)
    est <- (now() - t0) * B / 2
    if (est <= limit) {
      t0 <- now()
      rr <- reliabilitydiag::reliabilitydiag(X = p, y = y, region.method = "resampling",
                                             n.boot = B)
      add(n, "with a consistency band", "reliabilitydiag", now() - t0, "1 run",
          width(rr$X$regions$lower, rr$X$regions$upper))
    } else {
      add(n, "with a consistency band", "reliabilitydiag", est, "est. from 2 resamples")
    }
  }
  t0 <- now()
  small <- r_loop(p, y, 3L)
  est <- (now() - t0) * B / 3
  if (est <= limit) {
    t0 <- now()
    full <- r_loop(p, y, B)
    add(n, "with a consistency band", "R loop of refits", now() - t0, "1 run",
        width(full$lower, full$upper))
  } else {
    add(n, "with a consistency band", "R loop of refits", est, "est. from 3 resamples")
  }
}
res <- do.call(rbind, rows)
utils::write.csv(res, out_csv, row.names = FALSE)

cat("# Reliability diagrams with resampled bands\n\n")
cat(sprintf("- date: %s\n", format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC")))
cat(sprintf("- machine: %s; %s CPU(s); load average at end: %s\n", lsget("Model name"),
            lsget("CPU\\(s\\)"), load_now()))
cat(sprintf("- %s; gpuiso %s, commit %s; GPU: %s\n", R.version.string,
            utils::packageVersion("gpuiso"), commit, if (gpu) paste(gpu_info()$devices$name, collapse = ", ") else "none"))
cat(sprintf("- peers: reliabilitydiag %s; monotone %s\n",
            if (have_rd) as.character(utils::packageVersion("reliabilitydiag")) else "not installed",
            if (have_mono) as.character(utils::packageVersion("monotone")) else "not installed"))
cat(sprintf("- total wall time: %.0f s\n\n", now() - t_start))
cat("| n | task | implementation | time | note | median band width |\n")
cat("| ---: | --- | --- | ---: | --- | ---: |\n")
for (i in seq_len(nrow(res))) {
  cat(sprintf("| %s | %s | %s | %s | %s | %s |\n", format(res$n[i], scientific = TRUE),
              res$task[i], res$impl[i], fmt_t(res$seconds[i]), res$note[i],
              if (is.na(res$width[i])) "" else sprintf("%.4f", res$width[i])))
}

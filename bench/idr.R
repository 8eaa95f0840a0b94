# IDR benchmark: gpuiso::idr() (fit) and predict() at the fitted points plus crps(),
# timed separately and together, for n = 1e3, 2e4, 1e5 continuous observations.
#
# Usage (from the repository root, gpuiso installed):
#     Rscript bench/idr.R OUT.csv [--device cpu|gpu] [--lib LIB] [--no-reference]
# Environment variables:
#     GPUISO_LIB            library that holds gpuiso (default: the normal library paths)
#     GPUISO_BENCH_N        comma-separated sizes (default 1e3,2e4,1e5)
#     GPUISO_BENCH_COMMIT   commit label (default: `git rev-parse --short HEAD`)
#     GPUISO_BENCH_PEER_PYTHON  a Python with isodistrreg (0.6.0 needs Python >= 3.13): adds
#                           its fit at each size up to GPUISO_BENCH_PEER_MAX (default 5e4;
#                           it stores an n x n CDF matrix and aborts at 1e5), timed by
#                           bench/idr_peer.py in its own process on the same data, with the
#                           largest difference of its CDFs at the quartiles of y from gpuiso's
#                           (at the training points, and at 1,000 new points with
#                           interpolation = "linear", the peer's rule)
#
# Data: x ~ U(0, 10), y ~ Gamma(shape = 1 + x / 2, rate = 1): all x and y distinct, so
# the fit has n distinct covariate values and n thresholds (the hardest case for IDR:
# a full pool-adjacent-violators pass per threshold would cost n^2 element steps).
# One CPU thread (options(gpuiso.threads = 1)); the sweep is sequential anyway.
# Times are the median of 3 runs (1 run at n >= 1e5), elapsed seconds.
#
# Reference row (unless --no-reference): at n = 2e4, the same fit as n antitonic fits,
# one per threshold, with gpuiso::isotonic() on the pooled indicator means (c / W),
# the counts c updated incrementally in R: what a straightforward implementation on a
# fast PAVA costs. It is checked against idr() at 50 thresholds.
#
# Output: a CSV with one row per (n, device, task) and a markdown table on stdout.

args <- commandArgs(trailingOnly = TRUE)
out_csv <- if (length(args) && !startsWith(args[1], "--")) args[1] else "idr-bench.csv"
opt <- function(name, default) {
  i <- match(name, args)
  if (is.na(i) || i == length(args)) default else args[i + 1L]
}
device <- opt("--device", "cpu")
lib_arg <- opt("--lib", Sys.getenv("GPUISO_LIB", ""))
reference <- !("--no-reference" %in% args)
lib_loc <- if (nzchar(lib_arg)) c(lib_arg, .libPaths()) else NULL
suppressPackageStartupMessages(library(gpuiso, lib.loc = lib_loc))
args_file <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
bench_dir <- if (length(args_file) == 1L) dirname(normalizePath(args_file)) else normalizePath("bench")
source(file.path(bench_dir, "common.R"))
peer_python <- Sys.getenv("GPUISO_BENCH_PEER_PYTHON", "")
peer_max <- env_num("GPUISO_BENCH_PEER_MAX", 5e4)
options(gpuiso.threads = 1L)

sizes <- as.numeric(strsplit(Sys.getenv("GPUISO_BENCH_N", "1e3,2e4,1e5"), ",")[[1]])
commit <- Sys.getenv("GPUISO_BENCH_COMMIT", "")
if (!nzchar(commit)) {
  commit <- tryCatch(system("git rev-parse --short HEAD", intern = TRUE,
                            ignore.stderr = TRUE), error = function(e) "unknown")
}

timed <- function(expr_fn, reps) {
  t <- numeric(reps)
  val <- NULL
  for (r in seq_len(reps)) {
    gc(FALSE)
    t[r] <- system.time(val <- expr_fn())[["elapsed"]]
  }
  list(seconds = stats::median(t), value = val)
}

rows <- list()
add <- function(n, task, seconds, blocks = NA, K = NA, dev = device, note = "") {
  rows[[length(rows) + 1L]] <<- data.frame(
    n = n, device = dev, task = task, seconds = seconds, blocks = blocks,
    thresholds = K, commit = commit, date = format(Sys.Date()), note = note)
}

for (n in sizes) {
  set.seed(1)
  x <- runif(n, 0, 10)
  y <- rgamma(n, shape = 1 + x / 2, rate = 1)
  reps <- if (n >= 1e5) 1L else 3L
  f <- timed(function() idr(y, x, device = device), reps)
  fit <- f$value
  p <- timed(function() crps(predict(fit), y), reps)
  nb <- length(fit$value)
  K <- length(fit$thresholds)
  add(n, "fit", f$seconds, nb, K)
  add(n, "predict + crps", p$seconds, nb, K)
  add(n, "total", f$seconds + p$seconds, nb, K)
  cat(sprintf("n = %g: fit %.3f s, predict + crps %.3f s, %.1f blocks per threshold\n",
              n, f$seconds, p$seconds, nb / K), file = stderr())
  if (nzchar(peer_python) && n <= peer_max) {
    at <- stats::quantile(y, c(0.25, 0.5, 0.75), names = FALSE, type = 1)
    new <- stats::runif(1000, 0, 10)
    r <- run_idr_peer(peer_python, y, x, new, at)
    note <- if (!is.null(r$error)) r$error else
      sprintf("isodistrreg %s; largest difference from gpuiso's CDF at the quartiles of y: %.1e at the training points, %.1e at 1,000 new points",
              r$version, max(abs(r$train - cdf(predict(fit), at))),
              max(abs(r$new - cdf(predict(fit, new, interpolation = "linear"), at))))
    add(n, "fit, isodistrreg", if (is.null(r$error)) r$fit_s else NA, NA, K, "isodistrreg", note)
    cat(sprintf("n = %g: isodistrreg: %s\n", n, note), file = stderr())
  }
}

# isotonic() once per threshold, at n = 2e4
if (reference) {
  n <- 2e4
  set.seed(1)
  x <- runif(n, 0, 10)
  y <- rgamma(n, shape = 1 + x / 2, rate = 1)
  per_threshold <- function(keep = NULL) {
    xu <- sort(unique(x))
    xc <- match(x, xu)
    W <- tabulate(xc, length(xu))
    t <- sort(unique(y))
    ord <- order(y)
    sw <- findInterval(y[ord], t, left.open = TRUE) + 1L # threshold that switches each on
    cnt <- numeric(length(xu))
    first <- 1L
    out <- list()
    for (k in seq_along(t)) {
      while (first <= n && sw[first] == k) {
        cnt[xc[ord[first]]] <- cnt[xc[ord[first]]] + 1
        first <- first + 1L
      }
      f <- isotonic(cnt / W, weights = W, decreasing = TRUE, device = "cpu")
      if (k %in% keep) out[[as.character(k)]] <- f
    }
    out
  }
  tr <- system.time(chk <- per_threshold(keep = round(seq(1, n, length.out = 50))))[["elapsed"]]
  fit <- idr(y, x, device = "cpu")
  dev <- max(vapply(names(chk), function(k) {
    k <- as.integer(k)
    b <- seq.int(fit$ptr[k] + 1, fit$ptr[k + 1])
    max(abs(fit$value[b][findInterval(seq_along(fit$x) - 1L, fit$start[b])] - chk[[as.character(k)]]))
  }, 0))
  if (dev > 1e-12) stop("reference and idr() disagree: ", dev)
  add(n, "fit, isotonic() per threshold (reference)", tr, NA, length(unique(y)), "cpu")
  cat(sprintf("reference at n = 2e4: %.2f s (max deviation from idr() %.1e)\n", tr, dev),
      file = stderr())
}

res <- do.call(rbind, rows)
utils::write.csv(res, out_csv, row.names = FALSE)

# markdown table
main <- res[!grepl("reference|isodistrreg", res$task), ]
cat("| n | device | fit (s) | predict + CRPS (s) | total (s) | blocks per threshold |\n")
cat("|---:|:---|---:|---:|---:|---:|\n")
for (key in unique(paste(main$n, main$device))) {
  r <- main[paste(main$n, main$device) == key, ]
  get <- function(task) r$seconds[r$task == task]
  cat(sprintf("| %s | %s | %.3f | %.3f | %.3f | %.1f |\n",
              format(r$n[1], big.mark = ",", scientific = FALSE), r$device[1],
              get("fit"), get("predict + crps"), get("total"), r$blocks[1] / r$thresholds[1]))
}
peer <- res[grepl("isodistrreg", res$task), ]
for (i in seq_len(nrow(peer))) {
  cat(sprintf("\nisodistrreg at n = %s: fit %.3f s (%s).", format(peer$n[i], big.mark = ","),
              peer$seconds[i], peer$note[i]))
}
if (nrow(peer)) cat("\n")
ref <- res[grepl("reference", res$task), ]
if (nrow(ref)) {
  cat(sprintf("\nReference: %s at n = %s: %.2f s.\n", ref$task,
              format(ref$n, big.mark = ","), ref$seconds))
}

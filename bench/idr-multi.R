# IDR with several covariates, ensembles and batches: gpuiso::idr() on
# partial orders (src/core/idr_poset.c) and idr(..., by =) batches, against
# quadprog per threshold.
#
# Usage (from the repository root, gpuiso installed):
#     Rscript bench/idr-multi.R OUT.csv
# Environment variables:
#     GPUISO_LIB              library that holds gpuiso (default: the normal library paths)
#     GPUISO_BENCH_SIZES      comma-separated n for the covariate rows (default 1e3,1e4)
#     GPUISO_BENCH_THREADS    comma-separated thread counts (default 1,2)
#     GPUISO_BENCH_ALL_MAX    the largest n fitted at all thresholds on two covariates (default
#                             1e4; three covariates and ensembles: at most 1e3); above, no row
#                             (at n = 1e5 all thresholds would store about 2e9 CDF blocks)
#     GPUISO_BENCH_D3_MAX     the largest n of the rows on three covariates (default 1e4)
#     GPUISO_BENCH_BATCH      levels x observations of the batch rows, comma-separated
#                             (default 1000x1000)
#     GPUISO_BENCH_DEVICES    engines of the batch rows, comma-separated (default cpu; gpu adds
#                             the one-call batch on the GPU and, for comparison, one GPU call per level)
#     GPUISO_BENCH_PARTS      which rows: covariates,ensembles,batch (default all three)
#     GPUISO_BENCH_PEER_PYTHON  a Python with isodistrreg (0.6.0 needs Python >= 3.13, e.g. a
#                             venv: python3.13 -m venv V && V/bin/pip install isodistrreg): adds
#                             its rows, timed by bench/idr_peer.py in its own process on the same
#                             data (default: none)
#     GPUISO_BENCH_PEER_MAX   the largest n given to isodistrreg (default 1e3: it took 12 s on two
#                             covariates there, and grows about as n^2.7)
#     GPUISO_BENCH_PEER_TIMEOUT  seconds before its run is stopped (default 600)
#
# Data: covariates X uniform on [0, 1]^d (all distinct), y = sum(X) + N(0, 1) (all
# distinct: n thresholds with "all"). Ensembles: a level mu ~ Gamma(2, 2) per case,
# members mu * exp(s Z) with s ~ U(0.1, 1.2) per case, y = mu * exp(s Z'). Tasks:
#   fit, 100 thr     idr(y, X, thresholds = 100 quantiles of y) (the covering pairs included)
#   fit, all thr     idr(y, X): every distinct y a threshold (each warm from the one before)
#   predict + CRPS   predict() at 1,000 new points and crps() there (the 100-threshold fit)
#   quadprog         quadprog::solve.QP on the covering pairs, one threshold, times 100 or n
#                    (est.); its largest difference from gpuiso's CDF in the note
#   isodistrreg      IDR(y, X) (every distinct y a threshold: it has no other choice), and
#                    cdf_at() at the same 1,000 new points; its note gives the largest
#                    difference from gpuiso's CDF at the quartiles of y, at the training
#                    points and at the new ones (the peer stores CDFs in single precision and
#                    solves several covariates iteratively, to a tolerance)
#   batch            idr(y, x, by = level): L levels of m observations, one covariate; on the
#                    GPU also "fit, a call per level": idr(device = "gpu") on each level in turn
# Wall clock around the R call, one run each; the thread count from options(gpuiso.threads).
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1L) stop("usage: Rscript bench/idr-multi.R OUT.csv")
args_file <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
bench_dir <- if (length(args_file) == 1L) dirname(normalizePath(args_file)) else normalizePath("bench")
source(file.path(bench_dir, "common.R"))
lib <- Sys.getenv("GPUISO_LIB", "")
.libPaths(c(if (nzchar(lib)) lib, .libPaths()))
suppressPackageStartupMessages(library(gpuiso))
sizes <- as.numeric(strsplit(Sys.getenv("GPUISO_BENCH_SIZES", "1e3,1e4"), ",")[[1L]])
threads <- as.integer(strsplit(Sys.getenv("GPUISO_BENCH_THREADS", "1,2"), ",")[[1L]])
all_max <- env_num("GPUISO_BENCH_ALL_MAX", 1e4)
batches <- lapply(strsplit(strsplit(Sys.getenv("GPUISO_BENCH_BATCH", "1000x1000"), ",")[[1L]], "x"),
                  as.numeric)
devices <- strsplit(Sys.getenv("GPUISO_BENCH_DEVICES", "cpu"), ",")[[1L]]
parts <- strsplit(Sys.getenv("GPUISO_BENCH_PARTS", "covariates,ensembles,batch"), ",")[[1L]]
have_qp <- requireNamespace("quadprog", quietly = TRUE)
rows <- list()
add <- function(case, n, task, thr, t, note = "", device = "cpu") {
  rows[[length(rows) + 1L]] <<- data.frame(case = case, n = n, task = task, device = device,
                                           threads = thr, seconds = t, note = note)
  cat(sprintf("%-28s n=%-6g %-26s %s %2d thr %10s  %s\n", case, n, task, device, thr, fmt_t(t),
              note))
}
tick <- function(expr) { t0 <- now(); force(expr); now() - t0 }
with_threads <- function(k, code) {
  old <- options(gpuiso.threads = k)
  on.exit(options(old))
  force(code)
}

quadprog_one <- function(fit, y, X, t) {
  m <- fit$npoints
  e <- fit$edges
  A <- matrix(0, length(e$from), m)
  A[cbind(seq_along(e$from), e$from)] <- 1
  A[cbind(seq_along(e$from), e$to)] <- -1
  node <- fit$data$node + 1L
  share <- tapply(y <= t, factor(node, seq_len(m)), mean)
  W <- fit$weight
  tm <- tick(sol <- quadprog::solve.QP(diag(W), W * share, t(A), rep(0, nrow(A)))$solution)
  got <- cdf(predict(fit, fit$x), t)[, 1]
  list(seconds = tm, diff = max(abs(sol - got)))
}

peer_python <- Sys.getenv("GPUISO_BENCH_PEER_PYTHON", "")
peer_max <- env_num("GPUISO_BENCH_PEER_MAX", 1e3)

# isodistrreg on the same data (bench/idr_peer.py, in its own process): its fit and
# its prediction at `new`, and the largest differences from gpuiso's fit `f` at the
# quartiles of y.
peer_case <- function(case, y, X, new, kind, n, f) {
  at <- stats::quantile(y, c(0.25, 0.5, 0.75), names = FALSE, type = 1)
  r <- run_idr_peer(peer_python, y, X, new, at, kind,
                    timeout = env_num("GPUISO_BENCH_PEER_TIMEOUT", 600))
  if (!is.null(r$error)) return(add(case, n, "isodistrreg, fit", 1L, NA, r$error, "isodistrreg"))
  dn <- max(abs(r$train - cdf(predict(f, X), at)))
  dp <- max(abs(r$new - cdf(predict(f, new), at)))
  add(case, n, "isodistrreg, fit", 1L, r$fit_s,
      sprintf("isodistrreg %s, all thresholds; largest difference from gpuiso's CDF at the quartiles of y: %.1e at the training points, %.1e at the new ones",
              r$version, dn, dp), "isodistrreg")
  add(case, n, "isodistrreg, predict", 1L, r$predict_s, "cdf_at() at 1,000 new points, 3 thresholds",
      "isodistrreg")
}

run_case <- function(case, y, X, orders, n, all_upto) {
  thr100 <- unique(stats::quantile(y, seq(0.01, 1, by = 0.01), names = FALSE, type = 1))
  for (k in threads) {
    t100 <- with_threads(k, tick(f100 <- idr(y, X, thresholds = thr100, orders = orders)))
    add(case, n, "fit, 100 thr", k, t100, sprintf("%d points, %d covering pairs, %.0f blocks",
                                                   f100$npoints, length(f100$edges$from),
                                                   f100$ptr[length(f100$ptr)]))
    if (n <= all_upto) {
      tall <- with_threads(k, tick(fall <- idr(y, X, orders = orders)))
      add(case, n, "fit, all thr", k, tall, sprintf("%d thresholds, %.0f blocks",
                                                    length(fall$thresholds),
                                                    fall$ptr[length(fall$ptr)]))
    }
    new <- X[sample(nrow(X), 1000L, replace = nrow(X) < 1000L), , drop = FALSE]
    new[] <- lapply(new, function(v) v * stats::runif(length(v), 0.95, 1.05))
    tp <- with_threads(k, tick(s <- crps(predict(f100, new), rep_len(y, 1000L))))
    add(case, n, "predict + CRPS", k, tp, "1,000 new points")
  }
  if (nzchar(peer_python) && n <= peer_max)
    peer_case(case, y, X, new, names(orders)[1L], n, if (n <= all_upto) fall else f100)
  if (have_qp && n <= 1000 && !is.null(f100$edges)) {
    q <- quadprog_one(f100, y, X, stats::median(y))
    add(case, n, "quadprog, 100 thr", 1L, 100 * q$seconds,
        sprintf("est.: one threshold %s times 100; largest difference %.1e",
                fmt_t(q$seconds), q$diff))
    add(case, n, "quadprog, all thr", 1L, n * q$seconds, "est.: one threshold times n")
  }
}

set.seed(1)
if ("covariates" %in% parts) for (d in 2:3) for (n in sizes) {
  if (d == 3 && n > env_num("GPUISO_BENCH_D3_MAX", 1e4)) next
  X <- as.data.frame(matrix(stats::runif(n * d), n, d))
  y <- rowSums(X) + stats::rnorm(n)
  run_case(sprintf("%d covariates (comp)", d), y, X, c(comp = 1), n,
           if (d == 2) all_max else min(all_max, 1000))
}
if ("ensembles" %in% parts) for (members in c(10L, 50L)) for (n in sizes) for (ord in c("sd", "icx")) {
  mu <- stats::rgamma(n, 2, scale = 2)
  s <- stats::runif(n, 0.1, 1.2)
  X <- as.data.frame(mu * exp(s * matrix(stats::rnorm(n * members), n, members)))
  y <- mu * exp(s * stats::rnorm(n))
  run_case(sprintf("ensemble of %d (%s)", members, ord), y, X, stats::setNames(1, ord), n,
           min(all_max, 1000))
}
if ("batch" %in% parts) for (b in batches) {
  L <- b[1L]
  m <- b[2L]
  case <- sprintf("batch %g x %g", L, m)
  note <- sprintf("%g fits of %g observations, one covariate", L, m)
  lev <- rep(seq_len(L), each = m)
  x <- stats::runif(L * m)
  y <- stats::rgamma(L * m, 1 + 2 * x)
  ref <- NULL
  for (dev in devices) for (k in if (dev == "cpu") unique(threads) else max(threads)) {
    if (dev == "gpu") invisible(idr(y[1:1000], x[1:1000], device = "gpu")) # warm-up
    t <- with_threads(k, tick(fb <- idr(y, x, by = lev, device = dev)))
    got <- unique(vapply(fb$fits, `[[`, "", "device"))
    if (is.null(ref)) ref <- fb
    d <- max(abs(unlist(lapply(fb$fits, `[[`, "value")) -
                 unlist(lapply(ref$fits, `[[`, "value"))))
    add(case, L * m, "fit, all thr", k, t, sprintf("%s; largest difference from the first row %.1e",
                                                   note, d), got)
    if (dev == "gpu") {
      rl <- split(seq_along(lev), lev)
      t1 <- with_threads(k, tick(for (r in rl) idr(y[r], x[r], device = "gpu")))
      add(case, L * m, "fit, a call per level", k, t1, "idr(device = \"gpu\") on each level", dev)
    }
    tp <- with_threads(k, tick(s <- crps(fb)))
    add(case, L * m, "in-sample CRPS", k, tp, "", got)
  }
}
out <- do.call(rbind, rows)
out$commit <- Sys.getenv("GPUISO_BENCH_COMMIT", "")
out$date <- format(Sys.Date())
utils::write.csv(out, args[1L], row.names = FALSE)
cat("\n| case | n | task | device | threads | time | note |\n| --- | ---: | --- | --- | ---: | ---: | --- |\n")
for (i in seq_len(nrow(out))) {
  cat(sprintf("| %s | %s | %s | %s | %d | %s | %s |\n", out$case[i],
              format(out$n[i], big.mark = ","), out$task[i], out$device[i], out$threads[i],
              fmt_t(out$seconds[i]), out$note[i]))
}

# Isotonic regression on the componentwise order of two and three covariates
# (src/core/poset.c, the solver that IDR with several covariates will use):
# the covering edges once, then one fit per threshold, against quadprog.
#
# Usage (from the repository root, gpuiso installed):
#     Rscript bench/poset.R OUT.csv
# Environment variables:
#     GPUISO_LIB            library that holds gpuiso (default: the normal library paths)
#     GPUISO_BENCH_SIZES    comma-separated n (default 1e3,1e4)
#     GPUISO_BENCH_QP_MAX   the largest n quadprog is run for (default 1000)
#     GPUISO_BENCH_THREADS_MAX  the most threads for the batch rows (default 2)
#
# Data: X uniform on [0, 1]^d (distinct rows), y = sum(X) + N(0, 1). Rows:
#   covering edges     gpuiso:::comp_edges(X): the transitive reduction, once per data set.
#   fit, y             gpuiso:::poset_fit() of y itself (many level sets).
#   fit, 100 thresholds  the IDR problems of 100 thresholds (quantiles of y): 1{y <= t}, one
#                      call each on one thread, then as one batch (a matrix) on 1, 2, ... threads
#                      (nothing is reused between thresholds yet).
#   quadprog, y        quadprog::solve.QP on the covering edges (dense, n x n), one fit;
#                      the largest difference from gpuiso's fit in the note.
# One call each (the fits take long enough); wall clock around the R call.
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1L) stop("usage: Rscript bench/poset.R OUT.csv")
args_file <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
bench_dir <- if (length(args_file) == 1L) dirname(normalizePath(args_file)) else normalizePath("bench")
source(file.path(bench_dir, "common.R"))
lib <- Sys.getenv("GPUISO_LIB", "")
.libPaths(c(if (nzchar(lib)) lib, .libPaths()))
suppressPackageStartupMessages(library(gpuiso))
sizes <- as.numeric(strsplit(Sys.getenv("GPUISO_BENCH_SIZES", "1e3,1e4"), ",")[[1L]])
qp_max <- env_num("GPUISO_BENCH_QP_MAX", 1000)
threads_max <- as.integer(env_num("GPUISO_BENCH_THREADS_MAX", 2))
have_qp <- requireNamespace("quadprog", quietly = TRUE)
rows <- list()
add <- function(n, d, task, t, note = "") {
  rows[[length(rows) + 1L]] <<- data.frame(n = n, d = d, task = task, seconds = t, note = note)
}
tick <- function(expr) { t0 <- now(); force(expr); now() - t0 }
for (d in 2:3) for (n in sizes) {
  set.seed(1)
  X <- matrix(stats::runif(n * d), n, d)
  y <- rowSums(X) + stats::rnorm(n)
  w <- rep(1, n)
  t0 <- now(); e <- gpuiso:::comp_edges(X); te <- now() - t0
  add(n, d, "covering edges", te, sprintf("%d edges", length(e$from)))
  t0 <- now(); f <- gpuiso:::poset_fit(y, w, e$from, e$to); tf <- now() - t0
  add(n, d, "fit, y", tf, sprintf("%d level sets", length(unique(f))))
  th <- stats::quantile(y, seq(0.005, 0.995, length.out = 100), names = FALSE)
  Y <- outer(y, th, "<=") + 0
  set_threads(1)
  t0 <- now()
  for (k in seq_along(th)) gpuiso:::poset_fit(Y[, k], w, e$from, e$to)
  add(n, d, "fit, 100 thresholds, one by one", now() - t0)
  for (k in c(1L, 2L, threads_max)[!duplicated(c(1L, 2L, threads_max))]) {
    set_threads(k)
    t0 <- now(); gpuiso:::poset_fit(Y, w, e$from, e$to)
    add(n, d, sprintf("fit, 100 thresholds as one batch, %d thr", k), now() - t0)
  }
  set_threads(NA)
  if (have_qp && n <= qp_max) {
    A <- matrix(0, n, length(e$from))
    A[cbind(e$from, seq_along(e$from))] <- -1
    A[cbind(e$to, seq_along(e$from))] <- 1
    t0 <- now(); q <- quadprog::solve.QP(diag(w), w * y, A, rep(0, ncol(A)))$solution
    add(n, d, "quadprog, y", now() - t0, sprintf("largest difference %.1e", max(abs(q - f))))
  }
}
res <- do.call(rbind, rows)
utils::write.csv(res, args[[1L]], row.names = FALSE)
cat("# Isotonic regression on a partial order\n\n")
cat(sprintf("- date: %s\n", format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC")))
cat(sprintf("- machine: %s; %s CPU(s); load average at end: %s\n", lsget("Model name"),
            lsget("CPU\\(s\\)"), load_now()))
cat(sprintf("- %s; gpuiso %s; quadprog %s\n\n", R.version.string, utils::packageVersion("gpuiso"),
            if (have_qp) as.character(utils::packageVersion("quadprog")) else "not installed"))
cat("| covariates | n | task | time | note |\n| ---: | ---: | --- | ---: | --- |\n")
for (i in seq_len(nrow(res))) {
  cat(sprintf("| %d | %s | %s | %s | %s |\n", res$d[i], format(res$n[i], scientific = TRUE),
              res$task[i], fmt_t(res$seconds[i]), res$note[i]))
}

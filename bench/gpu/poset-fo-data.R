# Inputs for bench/gpu/poset-fo.cu: the threshold problems of IDR on D
# covariates (default 2; n points uniform on the unit cube, y = the sum of
# the covariates + N(0, 0.5^2), K thresholds at the quantiles of y), their
# covering pairs, and the exact fits of the CPU engine (gpuiso:::poset_fit,
# warm-started across thresholds; staircase cuts for two covariates, maximum
# flows for more).
#
#     Rscript bench/gpu/poset-fo-data.R N K FILE [D]
#
# FILE (little-endian): int32 n, E, K; int32 from[E], to[E] (0-based, the fit
# must satisfy f[from] <= f[to]); double w[n]; double y[n * K] and the exact
# fit[n * K], both node-major (the K values of node i together).
args <- commandArgs(TRUE)
n <- as.integer(args[1]); K <- as.integer(args[2]); file <- args[3]
d <- if (length(args) > 3) as.integer(args[4]) else 2L
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE),
                                                   value = TRUE)[1L])), "poset-problems.R"))
pp <- poset_problems(n, K, d)
y <- pp$y; thr <- pp$thr; K <- pp$K; Z <- pp$Z; from <- pp$from; to <- pp$to
Y <- outer(y, thr, "<=") + 0
w <- rep(1, n)
Fx <- gpuiso:::poset_fit(Y, w, from, to, warm = TRUE, points = if (d == 2L) Z)
cat(sprintf("d = %d, n = %d, E = %d, K = %d, max degree %d\n", d, n, length(from), K,
            max(tabulate(c(from, to), n))))
# the CPU engine on the same problems, median of 3, warm-started across the
# thresholds (as idr() solves them) and each threshold cold
for (th in as.integer(strsplit(Sys.getenv("GPUISO_FO_THREADS", "1,2"), ",")[[1]])) {
  old <- options(gpuiso.threads = th)
  for (warm in c(TRUE, FALSE)) {
    t <- median(replicate(3, system.time(
      gpuiso:::poset_fit(Y, w, from, to, warm = warm, points = if (d == 2L) Z))[[3]]))
    cat(sprintf("  CPU exact, %2d threads, %s: %.1f ms\n", th,
                if (warm) "warm" else "cold", 1000 * t))
  }
  options(old)
}
con <- file(file, "wb")
writeBin(c(n, length(from), K), con, size = 4L)
writeBin(c(from - 1L, to - 1L), con, size = 4L)
writeBin(w, con)
writeBin(as.vector(t(Y)), con)
writeBin(as.vector(t(Fx)), con)
close(con)

# Inputs for bench/gpu/poset-exact.cu: the threshold problems of IDR on two
# covariates, generated exactly as poset-fo-data.R does (the same seed, the
# same points and thresholds, the order of Z = -X), with the plane data of
# the staircase cut instead of the covering pairs, and the exact fits of the
# CPU engine (gpuiso:::poset_fit, warm-started across thresholds).
#
#     Rscript bench/gpu/poset-exact-data.R N K FILE
#
# (K >= N: every threshold, at the sorted y.) GPUISO_FO_THREADS: the thread
# counts of the CPU timings (default 1,2); GPUISO_FO_WARM_ONLY set: time
# the warm-started solve only.
#
# FILE (little-endian): int32 n, K, nrank; int32 pos[n], rank[n] (0-based:
# node i's position in the lexicographic order of Z and the rank of its
# second coordinate, as gpuiso:::plane_points(Z) gives them; the fit must
# satisfy f[a] <= f[b] when pos[a] < pos[b] and rank[a] <= rank[b]);
# double w[n]; double y[n * K] and the exact fit[n * K], both
# threshold-major (the n values of threshold k together, nodes in input
# order).
args <- commandArgs(TRUE)
n <- as.integer(args[1]); K <- as.integer(args[2]); file <- args[3]
d <- 2L
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE),
                                                   value = TRUE)[1L])), "poset-problems.R"))
pp <- poset_problems(n, K, d)
y <- pp$y; thr <- pp$thr; K <- pp$K; Z <- pp$Z; from <- pp$from; to <- pp$to
pl <- gpuiso:::plane_points(Z)
Y <- outer(y, thr, "<=") + 0
w <- rep(1, n)
Fx <- gpuiso:::poset_fit(Y, w, from, to, warm = TRUE, points = Z)
cat(sprintf("d = %d, n = %d, E = %d, K = %d, max degree %d, %d ranks\n", d, n, length(from), K,
            max(tabulate(c(from, to), n)), max(pl[, 2L]) + 1L))
# the CPU engine on the same problems, median of 3, warm-started across the
# thresholds (as idr() solves them) and each threshold cold
for (th in as.integer(strsplit(Sys.getenv("GPUISO_FO_THREADS", "1,2"), ",")[[1]])) {
  old <- options(gpuiso.threads = th)
  for (warm in if (nzchar(Sys.getenv("GPUISO_FO_WARM_ONLY"))) TRUE else c(TRUE, FALSE)) {
    t <- median(replicate(3, system.time(
      gpuiso:::poset_fit(Y, w, from, to, warm = warm, points = Z))[[3]]))
    cat(sprintf("  CPU exact, %2d threads, %s: %.1f ms\n", th,
                if (warm) "warm" else "cold", 1000 * t))
  }
  options(old)
}
con <- file(file, "wb")
writeBin(c(n, K, max(pl[, 2L]) + 1L), con, size = 4L)
writeBin(c(pl[, 1L], pl[, 2L]), con, size = 4L)
writeBin(w, con)
# an n x K matrix in column-major order is already threshold-major
writeBin(as.vector(Y), con)
writeBin(as.vector(Fx), con)
close(con)

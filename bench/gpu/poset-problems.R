# The threshold problems of IDR on d covariates shared by poset-fo-data.R
# and poset-exact-data.R, so that both measure the same problems: n points
# uniform on the unit cube, y = the sum of the covariates + N(0, 0.5^2), K
# thresholds at the quantiles of y (K >= n: every y), the order of Z = -X
# (the CDFs fall as the covariates rise) and its covering pairs.
poset_problems <- function(n, K, d) {
  set.seed(20261205)
  X <- matrix(runif(d * n), n, d)
  y <- rowSums(X) + rnorm(n, sd = 0.5)
  thr <- if (K >= n) sort(y) else unname(quantile(y, (seq_len(K) - 0.5) / K, type = 1))
  Z <- -X
  e <- gpuiso:::comp_edges(Z)
  list(y = y, thr = thr, K = length(thr), Z = Z, from = e$from, to = e$to)
}

# The pooling of tied scores (R/calibrate-pool.R): exact sums and correctly
# rounded means for any weights.

test_that("pooled tied scores: exact sums and correctly rounded means for any weights", {
  skip_if_not_installed("gmp")
  pool <- function(s, y, w) gpuiso:::pool_scores(as.double(s), as.double(y), w, NULL)
  check <- function(s, y, w, info) {
    p <- pool(s, y, w)
    for (r in seq_along(p$score)) {
      i <- which(s == p$score[r])
      wq <- if (is.null(w)) lapply(rep(1, length(i)), gmp::as.bigq) else lapply(w[i], gmp::as.bigq)
      W <- Reduce(`+`, wq)
      S <- Reduce(`+`, Map(function(a, b) a * gmp::as.bigq(b), wq, y[i]))
      expect_identical(p$weight[r], q1_to_double(W), info = info)
      expect_identical(p$value[r], if (W > 0) q1_to_double(S / W) else 0, info = info)
    }
  }
  # a midpoint broken by a weight 2^-1100 of the others (fixed point)
  y <- c(0.5, 0.5 + 2^-53, 1)
  p <- pool(c(1, 1, 1), y, c(2^1000, 2^1000, 2^-100))
  expect_identical(p$value, 0.5 + 2^-53)
  p <- pool(c(1, 1), y[1:2], c(2^1000, 2^1000))
  expect_identical(p$value, 0.5) # the tie, to even
  check(c(1, 1, 1), y, c(2^1000, 2^1000, 2^-100), "midpoint")
  # random runs across the range
  wpool <- c(tiny, 1e-310, 1e-300, 1e-200, 0.1, 1, 3, 1e100, 1e300, 1e307)
  ypool <- c(0, tiny, 1e-310, 1e-300, 2^-60, 0.1, 1 / 3, 0.5, 1)
  for (seed in 1:60) {
    set.seed(seed)
    n <- sample(2:12, 1)
    s <- sample(1:3, n, replace = TRUE)
    y <- sample(ypool, n, replace = TRUE)
    w <- switch(seed %% 3 + 1, sample(wpool, n, replace = TRUE), NULL,
                runif(n) * sample(wpool, 1))
    check(s, y, w, paste("seed", seed))
  }
  # summed weights beyond DBL_MAX: a classed error from iso_calibrate()
  expect_error(iso_calibrate(c(0.1, 0.1, 0.2), c(0, 1, 1), weights = c(big, big, 1)),
               class = "gpuiso_error_overflow")
})

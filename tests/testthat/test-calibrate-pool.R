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

test_that("the package's radix order of scores is R's order(code, scores, method = \"radix\")", {
  set.seed(23)
  draws <- list(
    function(n) runif(n), function(n) round(runif(n), 2),
    function(n) rnorm(n) * 10^sample(-300:300, 1),
    function(n) sample(c(-0, 0, 1, -1, Inf, -Inf, .Machine$double.xmin, -5e-324, 5e-324,
                         .Machine$double.xmax), n, TRUE),
    function(n) round(rnorm(n), 1), function(n) rep(0.25, n))
  for (it in 1:60) {
    n <- sample(c(1:40, 4096, 5000, 70000, 140001), 1)
    x <- draws[[1 + it %% length(draws)]](n)
    code <- if (it %% 3 == 0) NULL else sample.int(sample(c(1, 3, 3000, 2^21), 1), n, TRUE)
    ref <- if (is.null(code)) order(x, method = "radix") else order(code, x, method = "radix")
    for (k in thread_counts()) {
      o <- with_threads(k, .Call(gpuiso:::ffi_order_scores, x, code, getOption("gpuiso.threads")))
      expect_identical(o, ref, info = sprintf("case %d, %d threads", it, k))
    }
    expect_identical(gpuiso:::order_scores(x, code), ref)
  }
  skip_unless_many_threads()
})

test_that("pooling on several threads gives the one-thread points, runs across pieces included", {
  set.seed(29)
  n <- 2e5
  cases <- list(
    list(s = round(runif(n), 3), w = NULL, g = NULL),
    list(s = runif(n), w = rexp(n), g = NULL),
    list(s = rep(c(0.1, 0.9), c(n - 3, 3)), w = NULL, g = NULL), # one run over all pieces
    list(s = round(runif(n), 2), w = sample(c(0, 1, 1e300, 1e-300), n, TRUE),
         g = list(code = sample.int(3, n, TRUE), labels = c("a", "b", "c"))))
  for (k in seq_along(cases)) {
    cs <- cases[[k]]
    y <- as.double(rbinom(n, 1, 0.4))
    ref <- with_threads(1L, gpuiso:::pool_scores(cs$s, y, cs$w, cs$g, run_of = TRUE))
    expect_equal(sum(ref$weight), if (is.null(cs$w)) n else sum(cs$w), info = k)
    expect_identical(ref$score[ref$run_of], cs$s, info = k)
    for (th in thread_counts()) {
      got <- with_threads(th, gpuiso:::pool_scores(cs$s, y, cs$w, cs$g, run_of = TRUE))
      expect_identical(got, ref, info = sprintf("case %d, %d threads", k, th))
    }
  }
  # the decomposition's sums: the same on any number of threads
  p <- runif(n)
  yy <- as.double(rbinom(n, 1, p))
  r1 <- with_threads(1L, reliability_diagram(p, yy, band = "none", device = "cpu"))
  for (th in thread_counts()) {
    r <- with_threads(th, reliability_diagram(p, yy, band = "none", device = "cpu"))
    expect_identical(r[c("score", "mcb", "dsc", "unc", "calibrated", "curve")],
                     r1[c("score", "mcb", "dsc", "unc", "calibrated", "curve")], info = th)
  }
  expect_equal(r1$score, mean((p - yy)^2), tolerance = 1e-14)
  skip_unless_many_threads()
})

# idr() (R/idr.R): the threshold sweep against per-threshold antitonic fits
# and against exact rational arithmetic over the whole range of doubles, the
# representation, zero weights, bad input, and the devices.

# The fit at every threshold, one column per threshold, one row per distinct
# x, built independently: per threshold, the pooled indicators c / W and an
# antitonic fit by isotonic().
idr_reference <- function(y, x, w = NULL, thresholds) {
  if (is.null(w)) w <- rep(1, length(y))
  keep <- w > 0
  y <- y[keep]; x <- x[keep]; w <- w[keep]
  f <- factor(x, sort(unique(x)))
  W <- as.vector(tapply(w, f, sum))
  vapply(thresholds, function(t) {
    cnt <- as.vector(tapply(w * (y <= t), f, sum))
    isotonic(cnt / W, weights = W, decreasing = TRUE, device = "cpu")
  }, numeric(nlevels(f)))
}

# The exact IDR fit, rounded: one row per distinct x of positive weight, one
# column per distinct y, and the exact summed weight per x (bigq list).
idr_exact <- function(y, x, w) {
  keep <- w > 0
  y <- y[keep]; x <- x[keep]; w <- w[keep]
  xu <- sort(unique(x)); t <- sort(unique(y))
  wq <- lapply(w, gmp::as.bigq)
  qsum <- function(idx) Reduce(`+`, wq[idx], gmp::as.bigq(0))
  W <- lapply(xu, function(v) qsum(which(x == v)))
  vals <- vapply(t, function(tk) {
    c_ <- lapply(xu, function(v) qsum(which(x == v & y <= tk)))
    fit <- antitonic_q(Map(`/`, c_, W), W)
    q_to_double(do.call(c, fit))
  }, numeric(length(xu)))
  list(F = matrix(vals, nrow = length(xu)), W = W, x = xu, t = t)
}

# The fit's CDFs at its own covariate values and thresholds.
idr_matrix_of <- function(fit) {
  unname(cdf(predict(fit, fit$x), fit$thresholds))
}

test_that("the sweep agrees with an antitonic fit per threshold", {
  for (seed in 1:3) {
    d <- random_idr_data(400, seed)
    fit <- idr(d$y, d$x, device = "cpu")
    expect_identical(fit$thresholds, sort(unique(d$y)))
    expect_identical(fit$x, sort(unique(d$x)))
    expect_close(idr_dense(fit), idr_reference(d$y, d$x, NULL, fit$thresholds),
                 label = "unweighted")
    fitw <- idr(d$y, d$x, weights = d$w)
    expect_close(idr_dense(fitw), idr_reference(d$y, d$x, d$w, fitw$thresholds),
                 label = "weighted")
    expect_equal(fitw$weight, as.vector(tapply(d$w, d$x, sum)))
    # a user grid, partly outside the data: max(y) is appended
    grid <- c(5, -1, 2.5, 1, 2.5)
    fitg <- idr(d$y, d$x, weights = d$w, thresholds = grid)
    expect_identical(fitg$thresholds, c(-1, 1, 2.5, 5, max(d$y)))
    expect_close(idr_dense(fitg), idr_reference(d$y, d$x, d$w, fitg$thresholds),
                 label = "grid")
  }
  # continuous data, no ties; a grid above max(y) keeps its thresholds
  set.seed(9)
  x <- runif(300); y <- rnorm(300, 2 * x)
  fit <- idr(y, x, thresholds = c(0, 10))
  expect_identical(fit$thresholds, c(0, 10))
  expect_close(idr_dense(fit), idr_reference(y, x, NULL, c(0, 10)))
  fit <- idr(y, x)
  expect_close(idr_dense(fit), idr_reference(y, x, NULL, fit$thresholds))
})

test_that("hand-checked small fits", {
  # x = 1, 2, 3 with y = 3, 1, 2: at t = 1 the indicators (0, 1, 0) pool to
  # (1/2, 1/2, 0); at t = 2, (0, 1, 1) must not increase: one block of 2/3
  fit <- idr(c(3, 1, 2), c(1, 2, 3))
  expect_equal(fit$thresholds, c(1, 2, 3))
  expect_equal(idr_dense(fit), cbind(c(0.5, 0.5, 0), c(2, 2, 2) / 3, c(1, 1, 1)))
  expect_equal(fit$ptr, c(0, 2, 3, 4))
  expect_identical(fit$start, c(0L, 2L, 0L, 0L))
  # a monotone sample: each CDF a step at its own y
  fit <- idr(c(1, 2, 3), c(1, 2, 3))
  expect_equal(idr_dense(fit), cbind(c(1, 0, 0), c(1, 1, 0), c(1, 1, 1)))
  # tied x are pooled; weights count as repetitions
  fit <- idr(c(1, 3, 2, 2), c(1, 1, 2, 2), weights = c(1, 3, 1, 1))
  expect_equal(fit$weight, c(4, 2))
  # at t = 2, (1/4 with weight 4, 1 with weight 2) pools to (1 + 2) / 6
  expect_equal(idr_dense(fit), cbind(c(1 / 4, 0), c(1 / 2, 1 / 2), c(1, 1)))
  fit2 <- idr(c(1, 3, 2, 2, 3, 3), c(1, 1, 2, 2, 1, 1))
  expect_equal(idr_dense(fit2), idr_dense(fit))
  # one distinct x: the empirical CDF
  fit <- idr(c(2, 1, 2, 5), rep(7, 4))
  expect_equal(as.vector(idr_dense(fit)), c(1, 3, 4) / 4)
  # one observation
  fit <- idr(3, 1)
  expect_equal(fit$value, 1)
  expect_equal(cdf(predict(fit, 0), c(2, 3)),
               matrix(c(0, 1), 1, dimnames = list(NULL, c("2", "3"))))
})

test_that("CDFs are non-decreasing in the threshold, non-increasing in x, and reach 1", {
  d <- random_idr_data(2000, 4)
  for (w in list(NULL, d$w)) {
    fit <- idr(d$y, d$x, weights = w)
    D <- idr_dense(fit)
    expect_true(all(D[, -1] - D[, -ncol(D)] >= -1e-14))
    expect_true(all(D[-1, ] - D[-nrow(D), ] <= 0))
    expect_true(all(D[, ncol(D)] == 1))
    expect_true(all(D >= 0 & D <= 1))
    # blocks within a threshold: starts increasing from 0, values decreasing
    for (k in seq_along(fit$thresholds)) {
      b <- seq.int(fit$ptr[k] + 1, fit$ptr[k + 1])
      expect_identical(fit$start[b[1]], 0L)
      expect_false(is.unsorted(fit$start[b], strictly = TRUE))
      expect_true(all(diff(fit$value[b]) < 0))
    }
  }
  expect_type(fit$start, "integer")
  expect_type(fit$ptr, "double")
  expect_s3_class(fit, "gpuiso_idr")
})

test_that("zero weights leave observations out of the fit", {
  d <- random_idr_data(300, 5)
  w <- d$w
  w[c(3, 50, 51)] <- 0
  fit <- idr(d$y, d$x, weights = w)
  keep <- w > 0
  ref <- idr(d$y[keep], d$x[keep], weights = w[keep])
  expect_equal(fit[c("x", "thresholds", "ptr", "start", "value")],
               ref[c("x", "thresholds", "ptr", "start", "value")])
  expect_equal(fit$n, 300)
  expect_length(predict(fit), 300)
})

test_that("inputs are not modified", {
  d <- random_idr_data(200, 12)
  y <- d$y; x <- d$x; w <- d$w
  y0 <- y + 0; x0 <- x + 0; w0 <- w + 0
  fit <- idr(y, x, weights = w, thresholds = c(3, 1, 2))
  p <- predict(fit, x)
  invisible(crps(p, y)); invisible(pit(p, y)); invisible(qpred(p, 0.5))
  expect_identical(y, y0)
  expect_identical(x, x0)
  expect_identical(w, w0)
})

test_that("bad input is a classed error naming the argument and position", {
  e <- function(expr, re) expect_error(expr, re, class = "gpuiso_error_input")
  # missing values are an error with na.fail (na.omit drops them: test-idr-input.R)
  e(idr(c(1, NA, 3), 1:3, na.action = na.fail), "`y` has missing values \\(element 2 is NA\\)")
  e(idr(c(1, 2, Inf), 1:3), "`y`.*element 3 is Inf")
  e(idr(1:3, c(1, NaN, 3), na.action = na.fail), "`X`.*element 2 is NaN")
  e(idr(1:3, data.frame(a = c(1, 2, NA)), na.action = "na.fail"), "`X`.*element 3 is NA")
  e(idr(c(1, Inf, NA), 1:3), "`y` must be finite: element 2 is Inf")
  e(idr(c(1, 2, NA), 1:3, na.action = na.pass), "`y` must be finite: element 3 is NA")
  e(idr(1:3, 1:4), "`y` and `X` must have the same length")
  # several columns are several covariates (test-idr-poset.R); none is an error
  e(idr(1:3, data.frame(a = 1:3)[0]), "`X` must have at least one column")
  e(idr(1:3, cbind(1:3, c(1, NA, 3)), na.action = na.fail), "`V2` has missing values")
  e(idr(1:3, c("a", "b", "c")), "`X`.*numeric.*character")
  e(idr(letters[1:3], 1:3), "`y`.*numeric.*character")
  e(idr(1:3, factor(1:3)), "`X` must be numeric, not a factor")
  e(idr(numeric(), numeric()), "`y` must not be empty")
  e(idr(1:3, 1:3, weights = c(1, -1, 1)), "`weights`.*non-negative.*element 2")
  e(idr(1:3, 1:3, weights = c(1, 1, NA), na.action = na.fail), "`weights`.*element 3 is NA")
  e(idr(1:3, 1:3, weights = c(NA, -1, 1)), "`weights`.*non-negative.*element 2")
  e(idr(1:3, 1:3, weights = c(0, 0, 0)), "`weights` must not all be zero")
  e(idr(1:3, 1:3, weights = 1:2), "`weights` and `y` must have the same length")
  e(idr(1:3, 1:3, thresholds = c(1, NA)), "`thresholds`.*element 2 is NA")
  e(idr(1:3, 1:3, thresholds = numeric()), "`thresholds` must not be empty")
  e(idr(1:3, 1:3, thresholds = "a"), "`thresholds`.*numeric")
  e(idr(1:3, 1:3, device = "tpu"), "`device`")
  fit <- idr(c(3, 1, 2), c(1, 2, 3))
  p <- predict(fit, 1:2)
  e(predict(fit, data.frame(a = 1, b = 2)), "`newdata` must have a column `x`")
  e(cdf(1:3, 1), "`predictions`")
  e(cdf(p, c(1, NA)), "`thresholds`.*element 2 is NA")
  e(qpred(p, c(0.5, 1.5)), "`quantiles`.*\\[0, 1\\].*element 2 is 1.5")
  e(qpred(p, NA), "`quantiles`.*element 1 is NA")
  e(crps(p, 1:3), "`y` must have length 1 or the same length as the predictions \\(2\\)")
  e(crps(p, c(1, Inf)), "`y`.*element 2 is Inf")
  e(crps(p), "`y` is missing")
  e(pit(p, 1), "`y` must have the same length as the predictions")
  e(pit(p, 1:2, randomize = NA), "`randomize`")
  e(bscore(p, 1, c(1, 2, 3)), "`y`")
  e(qscore(p, 2, 1), "`quantiles`")
  e(p[[5]], "index")
  e(pit_hist(c(0.5, 2)), "`pit`")
})

test_that("device = 'auto' fits small data on the CPU; 'gpu' without a GPU is a classed error", {
  expect_identical(idr(c(3, 1, 2), 1:3, device = "auto")$device, "cpu")
  skip_if(gpu_available())
  expect_error(idr(c(3, 1, 2), 1:3, device = "gpu"), class = "gpuiso_error_device",
               regexp = "not available")
})

test_that("idr() on the GPU equals the CPU sweep and the per-threshold reference", {
  skip_if_not(gpu_available())
  set.seed(21)
  cases <- list(
    list(n = 300, xties = TRUE, yties = TRUE, w = FALSE, grid = NULL),
    list(n = 300, xties = TRUE, yties = FALSE, w = TRUE, grid = NULL),
    list(n = 500, xties = FALSE, yties = TRUE, w = TRUE, grid = seq(0, 8, by = 0.5)),
    list(n = 1, xties = FALSE, yties = FALSE, w = FALSE, grid = NULL),
    list(n = 50, xties = TRUE, yties = TRUE, w = FALSE, grid = NULL, onex = TRUE))
  for (cs in cases) {
    x <- if (cs$xties) sample(round(runif(cs$n, 0, 10), 1)) else runif(cs$n, 0, 10)
    if (isTRUE(cs$onex)) x <- rep(2, cs$n)
    y <- rgamma(cs$n, shape = 1 + x / 3)
    if (cs$yties) y <- round(y, 1)
    # weights in quarters: their plain double sums are exact, which the
    # GPU path needs (others are fitted on the CPU: below)
    w <- if (cs$w) sample(1:8, cs$n, replace = TRUE) / 4 else NULL
    x0 <- x; y0 <- y; w0 <- w
    g <- idr(y, x, weights = w, thresholds = cs$grid, device = "gpu")
    c <- idr(y, x, weights = w, thresholds = cs$grid, device = "cpu")
    expect_identical(g$device, "gpu")
    expect_identical(g$ptr, c$ptr)
    expect_identical(g$start, c$start)
    expect_identical(g$value, c$value)
    for (k in seq_along(g$thresholds)) {
      b <- seq.int(g$ptr[k] + 1, g$ptr[k + 1])
      expect_identical(g$start[b[1]], 0L)
      expect_false(is.unsorted(g$start[b], strictly = TRUE))
      expect_true(all(diff(g$value[b]) < 0))
    }
    expect_equal(idr_dense(g), idr_dense(c), tolerance = 1e-12)
    expect_true(all(idr_dense(g)[, length(g$thresholds)] == 1))
    expect_equal(idr_dense(g), idr_reference(y, x, w, g$thresholds),
                 tolerance = 1e-12, ignore_attr = TRUE)
    expect_identical(x, x0); expect_identical(y, y0); expect_identical(w, w0)
  }
  # weights whose sums are not exact in doubles go to the CPU, whatever
  # device was asked for, and give the CPU's fit
  x <- runif(300, 0, 10)
  y <- rgamma(300, shape = 1 + x / 3)
  w <- runif(300, 0.2, 2)
  g <- idr(y, x, weights = w, device = "gpu")
  expect_identical(g$device, "cpu")
  expect_identical(g[c("ptr", "start", "value")],
                   idr(y, x, weights = w, device = "cpu")[c("ptr", "start", "value")])
  # continuous data over several slabs of thresholds, and in-sample scores
  n <- 20000
  x <- runif(n, 0, 10)
  y <- rgamma(n, shape = 1 + x / 3)
  g <- idr(y, x, device = "gpu")
  c <- idr(y, x, device = "cpu")
  expect_identical(g$ptr, c$ptr)
  expect_identical(g$start, c$start)
  expect_identical(g$value, c$value)
  expect_identical(crps(predict(g), y), crps(predict(c), y))
  # a decreasing covariate: the sweep on its negation, on the GPU too
  g <- idr(y, -x, device = "gpu", decreasing = TRUE)
  expect_identical(g$device, "gpu")
  expect_identical(g[c("x", "ptr", "start", "value")],
                   idr(y, -x, device = "cpu", decreasing = TRUE)[c("x", "ptr", "start", "value")])
  on.exit(full_device(FALSE), add = TRUE)
  full_device(TRUE)
  expect_error(idr(y, x, device = "gpu"), class = "gpuiso_error_device",
               regexp = "out of memory")
  expect_identical(gpu_info()$workspace, 0)
})

test_that("the reference rounding is correct to the last bit", {
  skip_if_not_installed("gmp")
  for (v in c(0.1, 1 / 3, tiny, 3 * tiny, 2^-1022, big, 1e308, 0.5 + 2^-53, 1)) {
    expect_identical(q1_to_double(gmp::as.bigq(v)), v)
  }
  # halfway cases: ties to even
  expect_identical(q1_to_double(gmp::as.bigq(1) + gmp::as.bigq(1, 2)^53), 1)
  expect_identical(q1_to_double(gmp::as.bigq(1) + 3 * gmp::as.bigq(1, 2)^53), 1 + 2^-51)
  expect_identical(q1_to_double(gmp::as.bigq(tiny) / 2), 0)
  expect_identical(q1_to_double(gmp::as.bigq(tiny) * 3 / 2), 2 * tiny)
  expect_identical(q1_to_double(gmp::as.bigq(big) * 2), Inf)
})

test_that("idr() with weights at the ends of the range: the known failures", {
  # weights of 1e308: the fit of unit weights (their sums overflowed before)
  f <- idr(1:4, 1:4, weights = rep(1e308, 4))
  f1 <- idr(1:4, 1:4)
  expect_identical(f$value, f1$value)
  expect_identical(f$weight, rep(1e308, 4))
  # weights of 1e-200 (cross products underflowed) and of 5e-324
  set.seed(11)
  y <- round(rnorm(40), 1); x <- sample(1:8, 40, replace = TRUE)
  ref <- idr(y, x)
  for (w0 in c(1e-200, tiny, 1e306, big / 40)) {
    f <- idr(y, x, weights = rep(w0, 40))
    expect_identical(f$value, ref$value, info = format(w0))
    expect_identical(f$start, ref$start, info = format(w0))
  }
  # equal weights at one x summing beyond DBL_MAX: a classed overflow error
  expect_error(idr(c(1, 2, 3), c(1, 1, 2), weights = rep(1e308, 3)),
               class = "gpuiso_error_overflow")
})

test_that("idr() equals exact rational arithmetic for weights, covariates and outcomes across the range", {
  skip_if_not_installed("gmp")
  wpool <- c(tiny, 3 * tiny, 1e-310, 2^-1022, 1e-300, 1e-200, 2^-600, 0.1, 1, 3, 7,
             1e100, 2^600, 1e300, 1e308, big / 4, big)
  vpool <- c(-big, -1e308, -1e300, -1, -tiny, 0, tiny, 0.5, 1, 1e300, 1e308, big)
  checked <- 0L
  errors <- 0L
  for (seed in 1:150) {
    set.seed(seed)
    n <- sample(2:8, 1)
    x <- sample(vpool, n, replace = TRUE)
    y <- sample(vpool, n, replace = TRUE)
    # a mix of weights: from the pool, integers (the double sweep), or
    # scaled copies of one value
    w <- switch(seed %% 3 + 1,
                sample(wpool, n, replace = TRUE),
                sample(1:5, n, replace = TRUE) * sample(wpool, 1),
                runif(n) * sample(wpool, 1))
    w[w == 0] <- tiny
    w[w > big] <- big
    ex <- idr_exact(y, x, w)
    overflow <- any(is.infinite(q_to_double(do.call(c, ex$W))))
    if (overflow) {
      expect_error(idr(y, x, weights = w), class = "gpuiso_error_overflow",
                   info = paste("seed", seed))
      errors <- errors + 1L
      next
    }
    fit <- idr(y, x, weights = w)
    expect_identical(fit$x, ex$x)
    expect_identical(fit$thresholds, ex$t)
    expect_identical(idr_matrix_of(fit), ex$F, info = paste("seed", seed))
    expect_identical(fit$weight, q_to_double(do.call(c, ex$W)), info = paste("seed", seed))
    # the blocks are the runs of equal values, and the CDFs are monotone
    v <- split(fit$value, rep(seq_along(ex$t), diff(fit$ptr)))
    expect_true(all(vapply(v, function(z) all(diff(z) < 0), NA)))
    checked <- checked + 1L
  }
  expect_gt(checked, 100L)
})

test_that("idr() is exact for weights spread over 60 to 2000 bits (each width of its sums)", {
  skip_if_not_installed("gmp")
  # 53-bit mantissas times powers of two: sums of 2, 4, 8, 16 and 34 limbs
  for (spread in c(20, 70, 150, 400, 900, 2000)) {
    for (seed in 1:6) {
      set.seed(1000 * spread + seed)
      n <- sample(4:9, 1)
      x <- sample(1:4, n, replace = TRUE)
      y <- sample(1:5, n, replace = TRUE)
      k <- sample(c(0, spread), n, replace = TRUE) - spread %/% 2
      w <- (1 + runif(n)) * (1 + runif(n) * 2^-30) * 2^pmax(k, -1073)
      ex <- idr_exact(y, x, w)
      fit <- idr(y, x, weights = w)
      expect_identical(idr_matrix_of(fit), ex$F, info = paste(spread, seed))
      expect_identical(fit$weight, q_to_double(do.call(c, ex$W)), info = paste(spread, seed))
    }
  }
})

test_that("scaling every weight by a power of two leaves the fit unchanged", {
  set.seed(5)
  n <- 300
  x <- sample(round(runif(60), 2), n, replace = TRUE)
  y <- round(rgamma(n, 2 + 4 * x), 1)
  w <- runif(n, 0.5, 2) * 2^sample(-40:40, n, replace = TRUE)
  ref <- idr(y, x, weights = w)
  # (w within 2^-41 .. 2^41: w 2^k stays a normal double, exactly)
  for (k in c(-980, -500, 500, 980)) {
    f <- idr(y, x, weights = w * 2^k)
    expect_identical(f$value, ref$value, info = k)
    expect_identical(f$ptr, ref$ptr, info = k)
  }
  # the same, with weights of full 53-bit mantissas (the double-double sweep)
  w <- w * (1 + runif(n) * 2^-30)
  ref <- idr(y, x, weights = w)
  for (k in c(-980, 980)) {
    expect_identical(idr(y, x, weights = w * 2^k)$value, ref$value, info = k)
  }
})

test_that("a tiny weight alone in a block keeps its own value", {
  skip_if_not_installed("gmp")
  # x = 2 weighs 2^-1000 of x = 1: at y <= 1 the indicators are 0, 1, 0
  # (x = 1, 2, 3): x = 1 and 2 pool to a share of about 2^-1000, which is
  # a double; x = 3 stays 0
  w <- c(1, 2^-1000, 1)
  f <- idr(c(2, 1, 2), 1:3, weights = w)
  expect_identical(idr_matrix_of(f)[, 1], c(2^-1000 / (1 + 2^-1000), 2^-1000 / (1 + 2^-1000), 0))
  # weights whose cross products underflow
  w <- c(1e-160, 1e-170, 1e-160)
  share <- q1_to_double(gmp::as.bigq(w[2]) / (gmp::as.bigq(w[1]) + gmp::as.bigq(w[2])))
  f <- idr(c(2, 1, 2), 1:3, weights = w)
  expect_identical(idr_matrix_of(f)[, 1], c(share, share, 0))
  # a subnormal share rounds to the nearest subnormal
  f <- idr(c(2, 1, 2), 1:3, weights = c(1, 3 * tiny, 1))
  expect_identical(idr_matrix_of(f)[, 1], c(3 * tiny, 3 * tiny, 0))
  f <- idr(c(2, 1, 2), 1:3, weights = c(4, 3 * tiny, 1))
  expect_identical(idr_matrix_of(f)[, 1], c(tiny, tiny, 0)) # 3/4 of 2^-1074
  # DBL_MAX beside 5e-324: the share of the tiny weight is below every double
  f <- idr(c(1, 3, 2, 4), 1:4, weights = c(tiny, big, tiny, 1))
  expect_identical(idr_matrix_of(f), rbind(c(1, 1, 1, 1), c(0, 0, 1, 1),
                                           c(0, 0, 1, 1), c(0, 0, 0, 1)))
})

test_that("the GPU paths: equal extreme weights stay on the device, spread ones go to the CPU", {
  skip_if_not(gpu_available())
  set.seed(9)
  n <- 3000
  x <- sample(round(runif(300), 3), n, replace = TRUE)
  y <- round(rgamma(n, 2 + 3 * x), 1)
  ref <- idr(y, x, device = "cpu")
  dense <- function(f) unname(cdf(predict(f, f$x), f$thresholds))
  for (w0 in c(2^-700, 2^-1070, 2^1010)) {
    # the host scales the weights by a power of two: the unweighted fit
    g <- idr(y, x, weights = rep(w0, n), device = "gpu")
    expect_identical(g$device, "gpu")
    expect_identical(g[c("ptr", "start", "value")], ref[c("ptr", "start", "value")])
  }
  # equal weights whose sums round in plain doubles: the CPU
  expect_identical(idr(y, x, weights = rep(1e-200, n), device = "gpu")$device, "cpu")
  # weights spread over more than 2^30: fitted on the CPU, exactly
  for (e in c(-1000, -40)) {
    w <- (1 + runif(n)) * 2^sample(c(e, 0), n, replace = TRUE)
    g <- idr(y, x, weights = w, device = "gpu")
    expect_identical(g$device, "cpu")
    expect_identical(g$value, idr(y, x, weights = w, device = "cpu")$value)
  }
  # whole-number weights stay on the device, others (sums not exact in
  # plain doubles) go to the CPU
  expect_identical(idr(y, x, weights = sample(1:5, n, TRUE), device = "gpu")$device, "gpu")
  w <- (1 + runif(n)) * 2^sample(c(-20, 0), n, replace = TRUE)
  expect_identical(idr(y, x, weights = w, device = "gpu")$device, "cpu")
  # calibration: such weights are pooled on the CPU, exactly (the fit runs
  # on the GPU)
  s <- round(runif(n), 2)
  o <- rbinom(n, 1, s)
  cg <- iso_calibrate(s, o, weights = w, device = "gpu")$curves[[1]]
  cc <- iso_calibrate(s, o, weights = w, device = "cpu")$curves[[1]]
  expect_identical(cg$score, cc$score)
  expect_identical(cg$weight, cc$weight)
  expect_equal(cg$value, cc$value, tolerance = 1e-12)
  # and weights of 1e308 on tied scores: an overflow error, not Inf
  expect_error(iso_calibrate(c(0.1, 0.1, 0.2, 0.3), c(0, 1, 1, 1), weights = rep(1e308, 4),
                             device = "gpu"), class = "gpuiso_error_overflow")
})

# predict() of an isoreg() fit (R/isoreg-predict.R): step function
# (as.stepfun convention) and linear interpolation, clipping or NA outside
# the range, NA in, monotone out.

# A random fit for a trial: continuous x on odd trials, else x drawn from
# 1..ties (tied x); weights on every third trial, some of them zero when
# `zeros`.
random_fit <- function(trial, ties, zeros, dec) {
  n <- sample(1:100, 1L)
  x <- if (trial %% 2L) runif(n) else as.double(sample(seq_len(ties), n, TRUE))
  y <- rnorm(n)
  w <- NULL
  if (trial %% 3L == 0L) {
    w <- if (zeros) runif(n) * (runif(n) < 0.7) else runif(n, 0.1, 2)
    if (!any(w > 0)) w[1] <- 1
  }
  list(x = x, fit = isoreg(x, y, weights = w, decreasing = dec))
}

test_that("constant interpolation is the as.stepfun step function (right-closed)", {
  set.seed(51)
  for (trial in 1:40) {
    r <- random_fit(trial, ties = 20L, zeros = FALSE, dec = trial %% 4L == 0L)
    x <- r$x
    f <- r$fit
    ux <- sort(unique(x))
    t <- c(ux, runif(50, min(x) - 1, max(x) + 1), -Inf, Inf)
    expect_identical(predict(f, t), as.stepfun(f)(t))
    # at the data, the fitted values
    expect_identical(predict(f, x), fitted(f))
    expect_identical(predict(f), fitted(f))
    # between two distinct x, the value at the next one
    if (length(ux) > 1L) {
      mids <- (ux[-1L] + ux[-length(ux)]) / 2
      expect_identical(predict(f, mids), predict(f, ux[-1L]))
    }
  }
  # stats' convention on stats' own fit
  set.seed(52)
  x <- runif(50); y <- rnorm(50)
  t <- seq(-0.5, 1.5, length.out = 301)
  expect_close(predict(isoreg(x, y), t),
               stats:::as.stepfun.isoreg(stats::isoreg(x, y))(t), 1e-12, "stats stepfun")
})

test_that("by hand: constant and linear, clip and na", {
  f <- isoreg(c(1, 2, 3, 4), c(1, 3, 2, 4)) # fit 1, 2.5, 2.5, 4
  t <- c(0, 1, 1.5, 2, 2.5, 3, 3.5, 4, 5)
  expect_identical(predict(f, t), c(1, 1, 2.5, 2.5, 2.5, 2.5, 4, 4, 4))
  expect_identical(predict(f, t, out_of_bounds = "na"),
                   c(NA, 1, 2.5, 2.5, 2.5, 2.5, 4, 4, NA))
  expect_equal(predict(f, t, interpolation = "linear"),
               c(1, 1, 1.75, 2.5, 2.5, 2.5, 3.25, 4, 4))
  expect_equal(predict(f, t, interpolation = "linear", out_of_bounds = "na"),
               c(NA, 1, 1.75, 2.5, 2.5, 2.5, 3.25, 4, NA))
  expect_identical(predict(f, c(-Inf, Inf)), c(1, 4))
  expect_identical(predict(f, c(-Inf, Inf), out_of_bounds = "na"), c(NA_real_, NA_real_))
  expect_identical(predict(f, c(NA, 2, NaN)), c(NA, 2.5, NA))
  expect_identical(predict(f, c(NA, 2, NaN), interpolation = "linear"), c(NA, 2.5, NA))
  expect_identical(predict(f, NA), NA_real_)
  expect_identical(predict(f, numeric(0)), numeric(0))
  expect_identical(predict(f, 2L), 2.5)
  expect_identical(predict(f, TRUE), 1)
  # decreasing
  fd <- isoreg(c(1, 2, 3, 4), c(4, 2, 3, 1), decreasing = TRUE) # 4, 2.5, 2.5, 1
  expect_identical(predict(fd, c(0, 1.5, 3.5, 9)), c(4, 2.5, 1, 1))
  expect_equal(predict(fd, c(0, 1.5, 3.5, 9), interpolation = "linear"),
               c(4, 3.25, 1.75, 1))
})

test_that("linear interpolation between the fitted values at distinct x", {
  set.seed(53)
  for (trial in 1:40) {
    n <- sample(2:80, 1L)
    x <- as.double(sample(1:40, n, TRUE))
    y <- rnorm(n)
    f <- isoreg(x, y, decreasing = trial %% 2L == 0L)
    ux <- sort(unique(x))
    fx <- predict(f, ux)
    expect_identical(predict(f, ux, interpolation = "linear"), fx)
    t <- runif(60, min(ux), max(ux))
    expect_equal(predict(f, t, interpolation = "linear"),
                 stats::approx(ux, fx, xout = t)$y, tolerance = 1e-14)
    # outside: clip to the ends, or NA
    out <- c(min(ux) - runif(5), max(ux) + runif(5))
    expect_identical(predict(f, out, interpolation = "linear"),
                     c(rep(fx[1], 5), rep(fx[length(fx)], 5)))
    expect_true(all(is.na(predict(f, out, interpolation = "linear", out_of_bounds = "na"))))
    expect_true(all(is.na(predict(f, out, out_of_bounds = "na"))))
    expect_false(anyNA(predict(f, c(min(ux), max(ux)), out_of_bounds = "na")))
  }
})

test_that("predictions are monotone in the direction of the fit", {
  set.seed(54)
  for (trial in 1:60) {
    dec <- trial %% 4L < 2L
    r <- random_fit(trial, ties = 10L, zeros = TRUE, dec = dec)
    x <- r$x
    f <- r$fit
    t <- sort(c(runif(200, min(x) - 0.5, max(x) + 0.5), x))
    for (interp in c("constant", "linear")) {
      p <- predict(f, t, interpolation = interp)
      expect_false(anyNA(p))
      expect_true(is_monotone(p, dec), label = paste(trial, interp))
      pn <- predict(f, t, interpolation = interp, out_of_bounds = "na")
      expect_true(is_monotone(pn[!is.na(pn)], dec))
    }
  }
})

test_that("a zero-weight point's value is the one predict() gives there", {
  # the point at x = 4 has zero weight: its value is the fit's value at
  # x = 4 when it is left out, i.e. the next positive-weight x (5)
  x <- c(1, 2, 3, 4, 5); y <- c(1, 3, 2, 10, 4); w <- c(1, 1, 1, 0, 1)
  f <- isoreg(x, y, weights = w)
  g <- isoreg(x[-4], y[-4])
  expect_identical(fitted(f)[4], predict(g, 4))
  expect_identical(predict(f, 4), predict(g, 4))
  # trailing zero weight: the last positive-weight point's value
  f2 <- isoreg(x, c(1, 3, 2, 4, -5), weights = c(1, 1, 1, 1, 0))
  g2 <- isoreg(x[-5], c(1, 3, 2, 4))
  expect_identical(fitted(f2)[5], predict(g2, 5))
})

test_that("one-point and empty fits predict", {
  f <- isoreg(2, 7)
  expect_identical(predict(f, c(0, 2, 5)), c(7, 7, 7))
  expect_identical(predict(f, c(0, 2, 5), interpolation = "linear"), c(7, 7, 7))
  expect_identical(predict(f, c(0, 2, 5), out_of_bounds = "na"), c(NA, 7, NA))
  f0 <- isoreg(numeric(0))
  expect_identical(predict(f0, c(1, 2)), c(NA_real_, NA_real_))
})

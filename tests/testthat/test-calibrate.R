# iso_calibrate(), its predict() and methods.

test_that("a hand-computed curve, with tied scores pooled", {
  cal <- iso_calibrate(c(0.1, 0.2, 0.3, 0.4), c(0, 1, 0, 1))
  expect_equal(cal$curves[[1]]$value, c(0, 0.5, 0.5, 1))
  # ties: s = 1 pools to 0.5 (weight 2), s = 2 to 1 (weight 2), s = 3 to 0;
  # the last two violate and pool to 2/3
  cal <- iso_calibrate(c(2, 1, 3, 1, 2), c(1, 0, 0, 1, 1))
  expect_equal(cal$curves[[1]]$score, c(1, 2, 3))
  expect_equal(cal$curves[[1]]$weight, c(2, 2, 1))
  expect_equal(cal$curves[[1]]$value, c(0.5, 2 / 3, 2 / 3))
  expect_equal(predict(cal, c(1, 1, 2)), c(0.5, 0.5, 2 / 3))
})

test_that("the curve is isoreg() of the tie-pooled data", {
  set.seed(3)
  s <- round(runif(3000), 2) # many ties
  y <- rbinom(3000, 1, s^2)
  w <- runif(3000, 0.5, 2)
  cal <- iso_calibrate(s, y, weights = w)
  cv <- cal$curves[[1]]
  u <- sort(unique(s))
  sw <- tapply(w, s, sum)
  m <- tapply(w * y, s, sum) / sw
  expect_equal(cv$score, u)
  expect_equal(cv$weight, as.vector(sw))
  ref <- isoreg(u, as.vector(m), weights = as.vector(sw), device = "cpu")$yf
  expect_equal(cv$value, ref, tolerance = 1e-12)
  # integer weights are repeated observations
  k <- sample(1:3, 3000, replace = TRUE)
  expect_equal(iso_calibrate(s, y, weights = k)$curves[[1]]$value,
               iso_calibrate(rep(s, k), rep(y, k))$curves[[1]]$value, tolerance = 1e-12)
})

test_that("predictions are monotone in the score, in [0, 1], clipped and tie-consistent", {
  set.seed(4)
  s <- rnorm(2000)
  y <- rbinom(2000, 1, plogis(2 * s))
  cal <- iso_calibrate(s, y)
  grid <- seq(-5, 5, length.out = 1001)
  for (interp in c("linear", "constant")) {
    p <- predict(cal, grid, interpolation = interp)
    expect_true(all(diff(p) >= 0))
    expect_true(all(p >= 0 & p <= 1))
    cv <- cal$curves[[1]]
    expect_equal(predict(cal, c(-100, 100), interpolation = interp),
                 cv$value[c(1, nrow(cv))])
    expect_equal(predict(cal, cv$score, interpolation = interp), cv$value)
  }
  # constant (the default): the value at the next fitted score, as
  # as.stepfun() has it; linear: in between
  cv <- cal$curves[[1]]
  mid <- (cv$score[10] + cv$score[11]) / 2
  expect_equal(predict(cal, mid, interpolation = "constant"), cv$value[11])
  expect_equal(predict(cal, mid), cv$value[11])
  expect_equal(predict(cal, mid, interpolation = "linear"), (cv$value[10] + cv$value[11]) / 2)
  expect_identical(predict(cal, c(NA, 0))[1], NA_real_)
  # logical outcomes and probabilities are accepted
  expect_equal(iso_calibrate(s, y == 1)$curves, cal$curves)
  expect_silent(iso_calibrate(s, runif(2000)))
})

test_that("one call with groups equals one call per group", {
  set.seed(5)
  n <- 5000
  g <- sample(sprintf("seg%02d", 1:30), n, replace = TRUE)
  s <- runif(n)
  y <- rbinom(n, 1, s)
  cal <- iso_calibrate(s, y, groups = g)
  expect_setequal(cal$groups, unique(g))
  for (lab in c("seg01", "seg17", "seg30")) {
    one <- iso_calibrate(s[g == lab], y[g == lab])
    expect_equal(cal$curves[[lab]], one$curves[[1]], ignore_attr = TRUE)
  }
  newg <- sample(unique(g), 200, replace = TRUE)
  news <- runif(200)
  p <- predict(cal, news, groups = newg)
  for (lab in unique(newg)) {
    one <- iso_calibrate(s[g == lab], y[g == lab])
    expect_equal(p[newg == lab], predict(one, news[newg == lab]))
  }
  expect_equal(predict(cal, c(0.2, 0.7), groups = "seg03"),
               predict(cal, c(0.2, 0.7), groups = c("seg03", "seg03")))
  expect_equal(iso_calibrate(s, y, groups = factor(g))$curves, cal$curves)
})

test_that("bad input is a classed error that names the argument", {
  s <- c(0.1, 0.5, 0.9)
  y <- c(0, 1, 1)
  e <- function(expr, re) expect_error(expr, re, class = "gpuiso_error_input")
  # missing values go through na.action (tests in test-calibrate-interface.R);
  # other non-finite values are errors
  e(iso_calibrate(c(0.1, Inf, 0.9), y), "`scores` must be finite: element 2 is Inf")
  e(iso_calibrate(c(0.1, NA, 0.9), y, na.action = na.pass),
    "`scores` must be finite: element 2 is NA")
  e(iso_calibrate(s, c(0, NA, 1), na.action = na.pass),
    "`outcomes` must be finite: element 2 is NA")
  e(iso_calibrate(s, c(0, 2, 1)), "`outcomes` must lie in \\[0, 1\\]: element 2 is 2")
  e(iso_calibrate(s, c(-0.1, 0, 1)), "`outcomes` must lie in \\[0, 1\\]: element 1")
  e(iso_calibrate(s, c(0, 1)), "`scores` and `outcomes` must have the same length")
  e(iso_calibrate(s, y, weights = c(1, 1)), "`scores` and `weights` must have the same length")
  e(iso_calibrate(s, y, weights = c(1, -1, 1)), "`weights` must be non-negative")
  e(iso_calibrate(s, y, weights = c(0, 0, 0)), "`weights` must not all be zero")
  e(iso_calibrate("a", 1), "`scores` must be a numeric vector")
  e(iso_calibrate(numeric(0), numeric(0)), "`scores` must not be empty")
  e(iso_calibrate(c(1, 1, 1), y), "at least two distinct values")
  e(iso_calibrate(s, y, groups = c("a", "a", "b")),
    "at least two distinct values in group \"b\"")
  e(iso_calibrate(s, y, groups = c("a", NA, "b"), na.action = na.pass),
    "`groups` must not be missing: element 2")
  e(iso_calibrate(s, y, groups = c("a", "b")), "`groups` must have one label per score")
  cal <- iso_calibrate(c(s, s), c(y, y), groups = rep(c("a", "b"), each = 3))
  e(predict(cal, 0.3, groups = "z"), "`groups` must be groups seen in the fit: \"z\"")
  e(predict(cal, 0.3), "`groups` must give the group of each new score")
  e(predict(cal, c(0.3, 0.4), groups = c("a", "b", "a")), "one label per new score")
  e(predict(iso_calibrate(s, y), 0.3, groups = "a"), "fitted without groups")
  e(predict(cal, "x", groups = "a"), "`newdata` must be numeric")
  e(predict(cal, newscores = "x", groups = "a"), "`newscores` must be numeric")
  e(predict(cal, 0.3, groups = "a", interpolation = "cubic"), "`interpolation` must be one of")
})

test_that("inputs are not modified, and the methods print and plot", {
  s <- c(0.3, 0.1, 0.2, 0.2)
  y <- c(1, 0, 1, 0)
  s0 <- s
  y0 <- y
  cal <- iso_calibrate(s, y)
  expect_identical(s, s0)
  expect_identical(y, y0)
  expect_output(print(cal), "Isotonic calibration of y on s\n  4 scores \\(3 distinct\\)")
  expect_output(print(summary(cal)), "distinct")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(cal), cal)
  cal_g <- iso_calibrate(c(s, s), c(y, y), groups = rep(c("u", "v"), each = 4))
  expect_output(print(cal_g), "one curve per group\n  8 scores \\(6 distinct\\) in 2 groups")
  expect_identical(plot(cal_g, group = "v"), cal_g)
  expect_error(plot(cal_g, group = "w"), class = "gpuiso_error_input")
})

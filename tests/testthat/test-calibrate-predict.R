# predict() of a calibration (R/calibrate-predict.R) follows the package's
# one rule (?prediction): the same as predict() of an isoreg() fit of the
# pooled data, as as.stepfun() of a stats::isoreg() fit, and as a
# brute-force reading of the rule; monotone, within [0, 1]; in-sample
# predictions.

# The rule written out, one point at a time: knots u (sorted, distinct) with
# values v at point t.
brute_predict <- function(u, v, t, interpolation, out_of_bounds) {
  vapply(t, function(ti) {
    if (is.na(ti)) return(NA_real_)
    if (ti < u[1] || ti > u[length(u)]) {
      if (out_of_bounds == "na") return(NA_real_)
      return(if (ti < u[1]) v[1] else v[length(v)])
    }
    r <- min(which(u >= ti))                # the first knot at or after t
    if (interpolation == "constant" || u[r] == ti) return(v[r])
    lam <- (ti - u[r - 1]) / (u[r] - u[r - 1])
    (1 - lam) * v[r - 1] + lam * v[r]
  }, 0)
}

# Tied scores pooled by hand: the distinct scores, their summed weights and
# weighted mean outcomes.
pool_by_hand <- function(s, y, w = rep(1, length(s))) {
  sw <- tapply(w, s, sum)
  list(u = sort(unique(s)), w = as.vector(sw), m = as.vector(tapply(w * y, s, sum) / sw))
}

test_that("the step is that of isoreg() and as.stepfun(): the issue's example", {
  s <- c(0.1, 0.2, 0.3, 0.4)
  o <- c(0, 1, 0, 1)
  t <- c(0.15, 0.25, 0.35)
  cal <- iso_calibrate(s, o)
  expect_identical(predict(cal, t), c(0.5, 0.5, 1))
  expect_identical(predict(cal, t), predict(isoreg(s, o), t))
  expect_identical(predict(cal, t), stats::as.stepfun(stats::isoreg(s, o))(t))
  expect_equal(predict(cal, t, interpolation = "linear"), c(0.25, 0.5, 0.75))
})

test_that("constant and linear equal predict() of isoreg() on the pooled data", {
  set.seed(31)
  for (rep in 1:40) {
    n <- sample(c(5, 20, 200), 1)
    s <- round(rnorm(n), sample(1:3, 1))           # ties, more or fewer
    y <- if (rep %% 2) rbinom(n, 1, plogis(s)) else runif(n)
    w <- if (rep %% 3 == 0) runif(n, 0.2, 3) else rep(1, n)
    if (length(unique(s)) < 2) next
    cal <- iso_calibrate(s, y, weights = w)
    p <- pool_by_hand(s, y, w)
    fit <- isoreg(p$u, p$m, weights = p$w, device = "cpu")
    expect_equal(cal$curves[[1]]$value, fit$yf, tolerance = 1e-12)
    t <- c(sort(runif(50, min(s) - 1, max(s) + 1)), p$u, NA, -Inf, Inf)
    t <- sample(t)
    for (interp in c("constant", "linear")) {
      ours <- predict(cal, t, interpolation = interp)
      expect_equal(ours, predict(fit, t, interpolation = interp), tolerance = 1e-12,
                   label = sprintf("rep %d, %s, against isoreg()", rep, interp))
      expect_equal(ours, brute_predict(p$u, cal$curves[[1]]$value, t, interp, "clip"),
                   tolerance = 1e-12, label = sprintf("rep %d, %s, brute force", rep, interp))
    }
    # the default is the constant rule
    expect_identical(predict(cal, t), predict(cal, t, interpolation = "constant"))
    # unweighted distinct scores: the step function of stats::isoreg()
    if (all(w == 1) && !anyDuplicated(s)) {
      ok <- is.finite(t)
      expect_equal(predict(cal, t[ok]), stats::as.stepfun(stats::isoreg(s, y))(t[ok]),
                   tolerance = 1e-12)
    }
  }
})

test_that("out_of_bounds: clip, na and error", {
  s <- c(0.2, 0.4, 0.6, 0.8)
  y <- c(0, 1, 0, 1)
  cal <- iso_calibrate(s, y)
  v <- cal$curves[[1]]$value
  t <- c(0.1, 0.2, 0.5, 0.8, 0.9, NA)
  expect_identical(predict(cal, t), c(v[1], v[1], v[3], v[4], v[4], NA))
  expect_identical(predict(cal, t, out_of_bounds = "clip"), predict(cal, t))
  expect_identical(predict(cal, t, out_of_bounds = "na"), c(NA, v[1], v[3], v[4], NA, NA))
  for (interp in c("constant", "linear")) for (oob in c("clip", "na")) {
    expect_equal(predict(cal, t, interpolation = interp, out_of_bounds = oob),
                 brute_predict(s, v, t, interp, oob))
  }
  expect_identical(predict(cal, c(0.2, 0.5, NA), out_of_bounds = "error"), c(v[1], v[3], NA))
  expect_error(predict(cal, c(0.5, 0.1, 0.9), out_of_bounds = "error"),
               "`newdata` must lie within the range of the fit, \\[0.2, 0.8\\].*element 2 is 0.1",
               class = "gpuiso_error_input")
  expect_error(predict(cal, newscores = 1, out_of_bounds = "error"),
               "`newscores` must lie within", class = "gpuiso_error_input")
  expect_error(predict(cal, 0.5, out_of_bounds = "extrapolate"), "`out_of_bounds` must be one of",
               class = "gpuiso_error_input")
  expect_error(predict(cal, 0.5, interpolation = "cubic"), "`interpolation` must be one of",
               class = "gpuiso_error_input")
  # with groups: the range of each group's curve; the first bad point overall
  cal_g <- iso_calibrate(c(s, s + 1), c(y, y), groups = rep(c("a", "b"), each = 4))
  expect_identical(predict(cal_g, c(0.1, 1.2), groups = c("a", "b"), out_of_bounds = "na"),
                   c(NA, v[1]))
  expect_identical(predict(cal_g, c(0.1, 1.1), groups = c("b", "a")), c(v[1], v[4]))
  expect_error(predict(cal_g, c(0.5, 1.5, 0.5, 0.1), groups = c("a", "b", "b", "a"),
                       out_of_bounds = "error"),
               "element 3 is 0.5, outside \\[1.2, 1.8\\], the range of group \"b\"",
               class = "gpuiso_error_input")
})

test_that("NA scores and NA group labels give NA", {
  set.seed(32)
  s <- runif(300)
  y <- rbinom(300, 1, s)
  g <- sample(c("x", "y", "z"), 300, replace = TRUE)
  cal <- iso_calibrate(s, y, groups = g)
  t <- c(0.3, NA, 0.5, 0.7, NaN)
  gr <- c("x", "y", NA, "z", "z")
  p <- predict(cal, t, groups = gr)
  expect_identical(is.na(p), c(FALSE, TRUE, TRUE, FALSE, TRUE))
  expect_identical(p[c(1, 4)], c(predict(cal, 0.3, groups = "x"), predict(cal, 0.7, groups = "z")))
  expect_identical(predict(cal, c(NA, NA), groups = "x"), c(NA_real_, NA_real_))
  expect_identical(predict(cal, NA, groups = "x"), NA_real_)
  expect_identical(predict(cal, 0.5, groups = NA), NA_real_)
  expect_identical(predict(cal, numeric(0), groups = character(0)), numeric(0))
  expect_identical(predict(cal, data.frame(s = c(0.5, NA), g = c(NA, "x"))), c(NA_real_, NA_real_))
  one <- iso_calibrate(s, y)
  expect_identical(predict(one, c(NA, 0.5, NA))[c(1, 3)], c(NA_real_, NA_real_))
  expect_identical(predict(one, data.frame(s = c(0.5, NA))),
                   c(predict(one, 0.5), NA_real_))
  # labels not seen in the fit remain an error
  expect_error(predict(cal, 0.5, groups = "w"), "\"w\" \\(element 1\\) is not one",
               class = "gpuiso_error_input")
})

test_that("grouped predictions are each group's curve, in one pass", {
  set.seed(33)
  n <- 4000
  g <- sample(sprintf("g%02d", 1:12), n, replace = TRUE)
  s <- round(runif(n), 2)
  y <- rbinom(n, 1, s^1.5)
  cal <- iso_calibrate(s, y, groups = g)
  t <- runif(500, -0.1, 1.1)
  tg <- sample(unique(g), 500, replace = TRUE)
  for (interp in c("constant", "linear")) for (oob in c("clip", "na")) {
    p <- predict(cal, t, groups = tg, interpolation = interp, out_of_bounds = oob)
    for (lab in unique(tg)) {
      cv <- cal$curves[[lab]]
      i <- tg == lab
      expect_equal(p[i], brute_predict(cv$score, cv$value, t[i], interp, oob))
      pp <- pool_by_hand(s[g == lab], y[g == lab])
      fit <- isoreg(pp$u, pp$m, weights = pp$w, device = "cpu")
      if (oob == "clip") {
        expect_equal(p[i], predict(fit, t[i], interpolation = interp), tolerance = 1e-12)
      }
    }
  }
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

test_that("in-sample predict() and fitted() are the curves at the fit's scores", {
  d <- calibration_data(3000, seed = 24)
  cal <- iso_calibrate(clicked ~ score | country, data = d)
  expect_length(fitted(cal), nrow(d))
  ref <- numeric(nrow(d))
  for (k in seq_along(cal$curves)) {
    i <- which(d$country == cal$groups[k])
    cv <- cal$curves[[k]]
    ref[i] <- cv$value[match(d$score[i], cv$score)]
  }
  expect_identical(fitted(cal), ref)
  expect_identical(predict(cal), ref)
  expect_identical(predict(cal, d), ref)
  expect_identical(predict(cal, d, interpolation = "linear"), ref)
  expect_identical(residuals(cal), d$clicked - ref)
  one <- iso_calibrate(d$score, d$clicked)
  expect_identical(fitted(one), one$curves[[1]]$value[match(d$score, one$curves[[1]]$score)])
  expect_error(predict(cal, groups = "DE"), "`groups` must be NULL without `newdata`",
               class = "gpuiso_error_input")
  # nobs() counts the observations of non-zero weight, as for lm()
  w <- rep(1, nrow(d))
  w[1:10] <- 0
  expect_identical(nobs(iso_calibrate(d$score, d$clicked, weights = w)), nrow(d) - 10L)
  expect_identical(nobs(one), nrow(d))
  # the fit keeps the data it was given, not copies
  s <- d$score
  fit <- iso_calibrate(s, d$clicked)
  expect_identical(fit$data$scores, s)
  expect_identical(fit$data$outcomes, d$clicked)
})

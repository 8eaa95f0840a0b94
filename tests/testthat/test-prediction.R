# The one prediction rule (R/prediction.R, ?prediction) that isoreg(),
# iso_calibrate() and idr() share: the same values, and `newdata` the
# argument of every predict method.

test_that("the three fit classes predict by one rule", {
  set.seed(401)
  for (trial in 1:30) {
    n <- sample(5:60, 1L)
    s <- sort(sample(seq(0.01, 0.99, by = 0.01), n))
    o <- rbinom(n, 1, s)
    if (length(unique(o)) < 2L) o[c(1L, n)] <- c(0L, 1L)
    t <- c(runif(40, -0.1, 1.1), s, NA)
    fi <- isoreg(s, o)
    fc <- iso_calibrate(s, o)
    fd <- idr(o, s)
    for (interp in c("constant", "linear")) for (oob in c("clip", "na")) {
      lab <- sprintf("trial %d, %s, %s", trial, interp, oob)
      pi <- predict(fi, t, interpolation = interp, out_of_bounds = oob)
      pc <- predict(fc, t, interpolation = interp, out_of_bounds = oob)
      pd <- 1 - cdf(predict(fd, t, interpolation = interp, out_of_bounds = oob), 0)[, 1]
      expect_identical(is.na(pi), is.na(t) | oob == "na" & (t < s[1] | t > s[n]),
                       label = lab)
      expect_equal(pc, pi, tolerance = 1e-12, label = lab)
      expect_equal(unname(pd), pi, tolerance = 1e-12, label = lab)
    }
    # the default is the step of as.stepfun(), the same for all three
    expect_identical(predict(fi, t[!is.na(t)]), as.stepfun(fi)(t[!is.na(t)]))
    expect_equal(predict(fc, t), predict(fi, t), tolerance = 1e-12)
    # out_of_bounds = "error" names the first point outside, in every class
    bad <- c(0.5, 2, -1)
    for (f in list(fi, fc, fd)) {
      expect_error(predict(f, bad, out_of_bounds = "error"), "element 2 is 2",
                   class = "gpuiso_error_input")
    }
  }
  s <- c(0.1, 0.2, 0.3, 0.4)
  o <- c(0, 1, 0, 1)
  expect_identical(predict(isoreg(s, o), c(0.15, 0.25, 0.35)), c(0.5, 0.5, 1))
  expect_identical(predict(iso_calibrate(s, o), c(0.15, 0.25, 0.35)), c(0.5, 0.5, 1))
})

test_that("newdata is the argument of every predict method", {
  fi <- isoreg(c(1, 2, 3, 4), c(1, 3, 2, 4))
  fc <- iso_calibrate(c(0.1, 0.4, 0.35, 0.8), c(0, 1, 0, 1))
  fd <- idr(c(1, 2, 2, 4, 3, 5), c(1, 1, 2, 2, 3, 3))
  expect_identical(predict(fi, newdata = c(1.5, 3)), predict(fi, c(1.5, 3)))
  expect_identical(predict(fc, newdata = c(0.2, 0.5)), predict(fc, c(0.2, 0.5)))
  expect_identical(cdf(predict(fd, newdata = c(1.5, 3)), 2),
                   cdf(predict(fd, c(1.5, 3)), 2))
  # peers' spellings mean the same; misspellings are errors
  expect_identical(predict(fc, newscores = c(0.2, 0.5)), predict(fc, c(0.2, 0.5)))
  expect_identical(cdf(predict(fd, data = data.frame(x = c(1.5, 3))), 2),
                   cdf(predict(fd, c(1.5, 3)), 2))
  expect_error(predict(fi, newx = 2.5), "`newx`.*Did you mean `newdata`",
               class = "gpuiso_error_input")
  expect_error(predict(fi, 2.5, extrapolate = "na"), "Did you mean `out_of_bounds`",
               class = "gpuiso_error_input")
  expect_error(predict(fd, dta = data.frame(x = 1)), "`dta`",
               class = "gpuiso_error_input")
  # NA in, NA out; a data frame is searched for the variable
  expect_identical(predict(fi, c(NA, 2)), c(NA, predict(fi, 2)))
  expect_identical(predict(fi, data.frame(u = 9, x = c(1.5, 3))), predict(fi, c(1.5, 3)))
})

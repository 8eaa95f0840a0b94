# reliability_diagram() and calibration_error().

test_that("the CORP curve is the PAV fit and the decomposition adds up", {
  set.seed(6)
  p <- round(runif(4000), 3)
  y <- rbinom(4000, 1, p^1.7)
  r <- reliability_diagram(p, y)
  u <- sort(unique(p))
  cnt <- as.vector(table(p))
  m <- as.vector(tapply(y, p, mean))
  ref <- isoreg(u, m, weights = cnt, device = "cpu")$yf
  expect_equal(r$curve$forecast, u)
  expect_equal(r$curve$count, cnt)
  expect_equal(r$curve$calibrated, ref, tolerance = 1e-12)
  expect_equal(r$calibrated, ref[match(p, u)], tolerance = 1e-12)
  expect_equal(r$score, mean((p - y)^2))
  expect_equal(r$score, r$mcb - r$dsc + r$unc, tolerance = 1e-14)
  expect_equal(r$unc, mean(y) * (1 - mean(y)))
  expect_true(r$mcb >= 0 && r$dsc >= 0)
})

test_that("calibrated forecasts have no miscalibration; a constant one no discrimination", {
  y <- c(0, 0, 1, 0, 1, 1)
  p <- c(0.1, 0.1, 0.5, 0.5, 0.9, 0.9)
  # the PAV fit of y on p: 0, 0, 0.5, 0.5, 1, 1; forecasts equal to it
  r <- reliability_diagram(c(0, 0, 0.5, 0.5, 1, 1), y)
  expect_equal(r$mcb, 0)
  r0 <- reliability_diagram(rep(mean(y), 6), y)
  expect_equal(r0$dsc, 0)
  expect_equal(r0$mcb, 0)
  r1 <- reliability_diagram(p, y)
  expect_equal(r1$calibrated, c(0, 0, 0.5, 0.5, 1, 1))
  expect_equal(r1$mcb, mean((p - y)^2) - 0.5 * 2 / 6 * 0.5)
  expect_output(print(r1), "miscalibration \\(MCB\\)")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(r1), r1)
})

test_that("calibration_error() by hand, both binnings", {
  p <- c(0.1, 0.15, 0.2, 0.9)
  y <- c(0, 0, 1, 1)
  # equal width, 2 bins: {0.1, 0.15, 0.2}: |1 - 0.45|; {0.9}: |1 - 0.9|
  expect_equal(calibration_error(p, y, bins = 2), (0.55 + 0.1) / 4)
  # equal mass, 2 bins: {0.1, 0.15}: |0 - 0.25|; {0.2, 0.9}: |2 - 1.1|
  expect_equal(calibration_error(p, y, bins = 2, binning = "equal_mass"), (0.25 + 0.9) / 4)
  expect_equal(calibration_error(p, y, bins = 1), abs(sum(y) - sum(p)) / 4)
  expect_equal(calibration_error(c(0, 1), c(0, 1)), 0) # 1 falls in the last bin
  expect_equal(calibration_error(p, as.logical(y), bins = 2), (0.55 + 0.1) / 4)
})

test_that("bad input to the diagnostics is a classed error", {
  e <- function(expr, re) expect_error(expr, re, class = "gpuiso_error_input")
  e(reliability_diagram(c(0.1, 1.2), c(0, 1)), "`forecasts` must lie in \\[0, 1\\]: element 2")
  e(reliability_diagram(c(0.1, 0.2), c(0, NA)), "`outcomes` must be finite: element 2 is NA")
  e(reliability_diagram(c(0.1, 0.2), c(0, 1, 1)), "must have the same length")
  e(reliability_diagram(numeric(0), numeric(0)), "must not be empty")
  e(calibration_error(c(0.1, 0.2), c(0, 1), bins = 0), "`bins` must be a whole number")
  e(calibration_error(c(0.1, 0.2), c(0, 1), bins = 2.5), "`bins` must be a whole number")
  e(calibration_error(c(0.1, 0.2), c(0, 1), binning = "quantile"), "`binning` must be one of")
  e(calibration_error(c(0.1, 0.2), c(0, 3)), "`outcomes` must lie in \\[0, 1\\]")
})

test_that("print() and plot() read well and name unknown arguments", {
  p <- c(0.1, 0.4, 0.6, 0.9)
  y <- c(0, 1, 0, 1)
  r <- reliability_diagram(p, y)
  expect_identical(r$variables, c(forecast = "p", outcome = "y"))
  expect_output(print(r), "CORP reliability diagram of p for y: 4 forecasts \\(4 distinct\\)")
  expect_output(print(reliability_diagram(0.5, 1)),
                "CORP reliability diagram of 1 forecast \\(1 distinct\\)")
  expect_output(print(reliability_diagram(c(p, p), c(y, y))), "of 8 forecasts \\(4 distinct\\)")
  expect_error(print(r, digitz = 3), "`digitz` is not an argument of `print\\(\\)`. Did you mean `digits`",
               class = "gpuiso_error_input")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_error(plot(r, mian = "x"), "`mian` is not an argument of `plot\\(\\)`. Did you mean `main`",
               class = "gpuiso_error_input")
  expect_error(plot(r, "x", "y", "main", "extra"), "takes no further unnamed arguments", class = "gpuiso_error_input")
  expect_identical(plot(r, lwd = 2, main = "m"), r)
})

test_that("reliability_diagram() pools forecasts with correctly rounded means", {
  skip_if_not_installed("gmp")
  # outcomes that are probabilities across the range, tied forecasts in
  # increasing order of their mean outcome (the fit keeps them)
  y <- c(0, tiny, 2^-60, 0.1, 1 / 3, 0.7, 0.2, 1, 1e-300, 0.9)
  x <- c(0.1, 0.1, 0.1, 0.3, 0.3, 0.3, 0.3, 0.8, 0.8, 0.8)
  r <- reliability_diagram(x, y)
  exact <- vapply(split(y, x), function(v) {
    q1_to_double(Reduce(`+`, lapply(v, gmp::as.bigq)) / length(v))
  }, 0)
  expect_identical(r$curve$calibrated, unname(exact))
  expect_identical(r$curve$count, c(3, 4, 3))
  # a long run: 1000 outcomes of 0.1 average to 0.1 exactly (a running
  # sum in doubles drifts to 0.0999999999999986)
  r <- reliability_diagram(rep(c(0.2, 0.6), c(1000, 10)), c(rep(0.1, 1000), rep(0.7, 10)))
  expect_identical(r$curve$calibrated, c(0.1, 0.7))
})

test_that("reliability_diagram() prints as before", {
  s <- snap$s
  o <- snap$o
  expect_snapshot(cran = TRUE, print(reliability_diagram(s, o, band = "none", device = "cpu")))
  set.seed(1)
  expect_snapshot(cran = TRUE, print(reliability_diagram(s, o, resamples = 20, level = 0.8,
                                                         device = "cpu")))
})

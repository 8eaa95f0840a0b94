# Printed output and messages, as snapshots (tests/testthat/_snaps/): what
# users read, on small fixed data, CPU engine. They run under R CMD check
# too (cran = TRUE): plain text of fixed data, the same on every platform.

x <- c(1, 2, 2, 3, 4, 5, 6, 7, 8, 9)
y <- c(2.1, 1.0, 3.5, 2.5, 4.0, 3.0, 6.0, 5.5, 7.2, 8.0)
s <- c(0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9)
o <- c(0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1)

test_that("isoreg() prints and summarises as before", {
  fit <- isoreg(x, y, device = "cpu")
  expect_snapshot(cran = TRUE, print(fit))
  expect_snapshot(cran = TRUE, print(summary(fit)))
  expect_snapshot(cran = TRUE, print(isoreg(x, y, decreasing = TRUE, weights = rep(1:2, 5), device = "cpu")))
})

test_that("iso_calibrate() and reliability_diagram() print as before", {
  cal <- iso_calibrate(s, o, device = "cpu")
  expect_snapshot(cran = TRUE, print(cal))
  expect_snapshot(cran = TRUE, print(summary(cal)))
  expect_snapshot(cran = TRUE, print(iso_calibrate(s, o, groups = rep(c("a", "b"), 6), device = "cpu")))
  expect_snapshot(cran = TRUE, print(reliability_diagram(s, o, device = "cpu")))
})

test_that("idr() and its predictions print as before", {
  fit <- idr(y, x, device = "cpu")
  expect_snapshot(cran = TRUE, print(fit))
  expect_snapshot(cran = TRUE, print(summary(fit)))
  expect_snapshot(cran = TRUE, print(predict(fit, data.frame(X = c(1.5, 4, 10)))))
})

test_that("error messages read as before", {
  expect_snapshot(cran = TRUE, error = TRUE, isotonic(c(1, NA, 3)))
  expect_snapshot(cran = TRUE, error = TRUE, isotonic(c(1, 2), weights = c(1, -1)))
  expect_snapshot(cran = TRUE, error = TRUE, isotonic(1:3, weights = c(0, 0, 0)))
  expect_snapshot(cran = TRUE, error = TRUE, isotonic(matrix(1:6, 2), weights = matrix(1, 3, 2)))
  expect_snapshot(cran = TRUE, error = TRUE, isotonic(1e39, precision = "single"))
  expect_snapshot(cran = TRUE, error = TRUE, isotonic(1:3, decreasng = TRUE))
  expect_snapshot(cran = TRUE, error = TRUE, isotonic(1:3, device = "tpu"))
  expect_snapshot(cran = TRUE, error = TRUE, isoreg(1:3, 1:4))
  expect_snapshot(cran = TRUE, error = TRUE, iso_calibrate(s, o + 1))
  expect_snapshot(cran = TRUE, error = TRUE, idr(y, cbind(x, x)))
  expect_snapshot(cran = TRUE, error = TRUE, isotonic_vjp(1:3, 1:2))
})

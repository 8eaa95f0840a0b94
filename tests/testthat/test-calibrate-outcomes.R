# Factor outcomes (R/calibrate-outcomes.R) and multiclass calibration
# (R/calibrate-multiclass.R).

test_that("a two-level factor is its event level's 0/1, either level", {
  set.seed(12)
  s <- runif(300)
  f <- factor(ifelse(rbinom(300, 1, s) == 1, "yes", "no"))
  yes <- as.numeric(f == "yes")
  expect_identical(fitted(iso_calibrate(s, f)), fitted(iso_calibrate(s, yes)))
  expect_identical(fitted(iso_calibrate(s, f, event_level = "first")),
                   fitted(iso_calibrate(s, 1 - yes)))
  d <- data.frame(score = s, y = f)
  expect_identical(fitted(iso_calibrate(y ~ score, d)), fitted(iso_calibrate(s, yes)))
  # levels count, not the values that occur
  g <- factor(rep("b", 300), levels = c("a", "b"))
  expect_identical(fitted(iso_calibrate(s, g)), rep(1, 300))
  r <- reliability_diagram(s, f, band = "none")
  expect_identical(r$curve, reliability_diagram(s, yes, band = "none")$curve)
  expect_identical(reliability_diagram(s, f, band = "none", event_level = "first")$mcb,
                   reliability_diagram(s, 1 - yes, band = "none")$mcb)
  # missing outcomes go through na.action as numbers do
  f2 <- f
  f2[c(3, 9)] <- NA
  expect_identical(nobs(iso_calibrate(s, f2)), 298L)
  expect_error(iso_calibrate(s, factor(sample(letters[1:3], 300, TRUE))),
               "factor of two levels .* not of 3; for several classes",
               class = "gpuiso_error_input")
  expect_error(iso_calibrate(s, factor(rep("a", 300))), "not of 1\\.",
               class = "gpuiso_error_input")
  expect_error(iso_calibrate(s, f, event_level = "last"), "`event_level` must be one of",
               class = "gpuiso_error_input")
  expect_error(reliability_diagram(s, f, event_level = 2), "`event_level` must be one of",
               class = "gpuiso_error_input")
})

# Class probabilities of K classes whose raw scores are miscalibrated.
multiclass_data <- function(n, k = 3, seed = 1) {
  set.seed(seed)
  lev <- letters[seq_len(k)]
  cls <- factor(sample(lev, n, TRUE), levels = lev)
  raw <- matrix(runif(k * n), n, dimnames = list(NULL, lev))
  at <- cbind(seq_len(n), as.integer(cls))
  raw[at] <- raw[at] + 0.6
  list(cls = cls, p = raw / rowSums(raw))
}

test_that("multiclass calibration is one-vs-rest binary curves, renormalised", {
  d <- multiclass_data(2000)
  cal <- iso_calibrate(d$p, d$cls)
  expect_s3_class(cal, "gpuiso_calibration_multiclass")
  expect_identical(nobs(cal), 2000L)
  fit <- fitted(cal)
  expect_identical(dim(fit), c(2000L, 3L))
  expect_identical(colnames(fit), c("a", "b", "c"))
  # each class's curve is the binary calibration of its own column
  ovr <- sapply(levels(d$cls), function(l) fitted(iso_calibrate(d$p[, l], d$cls == l)))
  expect_equal(fit, ovr / rowSums(ovr), tolerance = 1e-15, ignore_attr = TRUE)
  expect_equal(rowSums(fit), rep(1, 2000), tolerance = 1e-14)
  expect_true(all(fit >= 0 & fit <= 1))
  # new data: columns by name, in any order; a data frame; one row
  new <- multiclass_data(50, seed = 2)$p
  pr <- predict(cal, new)
  ref <- sapply(levels(d$cls), function(l) {
    predict(iso_calibrate(d$p[, l], d$cls == l), new[, l])
  })
  expect_equal(pr, ref / rowSums(ref), tolerance = 1e-15, ignore_attr = TRUE)
  expect_identical(predict(cal, new[, c("c", "a", "b")]), pr)
  expect_identical(predict(cal, as.data.frame(new)), pr)
  expect_identical(predict(cal, new[7, ]), pr[7, , drop = FALSE])
  expect_identical(predict(cal, unname(new)), pr)
  # rows whose curves are all 0 get 1 / K each
  zero <- predict(cal, matrix(0, 2, 3, dimnames = list(NULL, c("a", "b", "c"))))
  expect_true(all(zero[rowSums(zero) > 0, ] >= 0))
  expect_equal(rowSums(zero), c(1, 1))
  expect_output(print(cal), "one-vs-rest.*\\n.*2000 rows, 3 classes: a, b, c")
  # calibration improves the log loss of the miscalibrated raw scores
  test <- multiclass_data(4000, seed = 3)
  ll <- function(p) -mean(log(pmax(p[cbind(seq_along(test$cls), as.integer(test$cls))], 1e-12)))
  expect_lt(ll(predict(iso_calibrate(d$p, d$cls, y_min = 0.001), test$p)), ll(test$p))
  # weights are the rows'
  w <- rexp(2000)
  cw <- iso_calibrate(d$p, d$cls, weights = w)
  ow <- sapply(levels(d$cls), function(l) fitted(iso_calibrate(d$p[, l], d$cls == l, weights = w)))
  expect_equal(fitted(cw), ow / rowSums(ow), tolerance = 1e-15, ignore_attr = TRUE)
})

test_that("multiclass errors name what is wrong", {
  d <- multiclass_data(100)
  expect_error(iso_calibrate(d$p, as.integer(d$cls)), "must be a factor of the classes",
               class = "gpuiso_error_input")
  expect_error(iso_calibrate(d$p[, 1:2], d$cls), "one column per level of `outcomes`: it has 2 columns for 3 levels",
               class = "gpuiso_error_input")
  bad <- d$p
  colnames(bad) <- c("a", "b", "x")
  expect_error(iso_calibrate(bad, d$cls), "must be named by the classes",
               class = "gpuiso_error_input")
  expect_error(iso_calibrate(d$p[1:50, ], d$cls), "one row per outcome",
               class = "gpuiso_error_input")
  na <- d$cls
  na[4] <- NA
  expect_error(iso_calibrate(d$p, na), "element 4 is NA", class = "gpuiso_error_input")
  nap <- d$p
  nap[5, 2] <- NaN
  expect_error(iso_calibrate(nap, d$cls), "`scores` must be finite", class = "gpuiso_error_input")
  expect_error(iso_calibrate(d$p, d$cls, groups = rep(1, 100)), "`groups` must be NULL",
               class = "gpuiso_error_input")
  cal <- iso_calibrate(d$p, d$cls)
  expect_error(predict(cal, d$p[, 1:2]), "one column per class \\(3\\), not 2",
               class = "gpuiso_error_input")
  expect_error(predict(cal, d$p, interpolation = "cubic"), class = "gpuiso_error_input")
  expect_error(fitted(cal, 1), class = "gpuiso_error_input")
  expect_error(print(cal, digits = 2), "`digits` is not an argument", class = "gpuiso_error_input")
})

test_that("bounds = c(lo, hi) is y_min and y_max", {
  set.seed(13)
  s <- runif(400)
  y <- rbinom(400, 1, s^3)
  a <- iso_calibrate(s, y, bounds = c(0.02, 0.9))
  b <- iso_calibrate(s, y, y_min = 0.02, y_max = 0.9)
  expect_identical(fitted(a), fitted(b))
  expect_identical(range(fitted(a)), c(0.02, 0.9))
  expect_identical(predict(a, c(-1, 2)), c(0.02, 0.9))
  expect_true(is.finite(-mean(y * log(fitted(a)) + (1 - y) * log1p(-fitted(a)))))
  expect_error(iso_calibrate(s, y, bounds = c(0.1, 0.9), y_min = 0.2), "must not both be given",
               class = "gpuiso_error_input")
  expect_error(iso_calibrate(s, y, bounds = 0.1), "`bounds` must be two numbers",
               class = "gpuiso_error_input")
  expect_error(iso_calibrate(s, y, bounds = c(0.9, 0.1)), class = "gpuiso_error_input")
  expect_error(iso_calibrate(s, y, bounds = c(-0.1, 0.5)), "`y_min` must be one number in \\[0, 1\\]",
               class = "gpuiso_error_input")
})

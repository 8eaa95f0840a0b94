# The methods of a calibration (R/calibrate-methods.R): print() and
# summary() (snapshots of their output), plot(), coef() and logLik(), and
# unknown arguments of every method.

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

test_that("the plot's axes are labelled with the variables' names", {
  d <- calibration_data()
  cal <- iso_calibrate(clicked ~ score | country, data = d)
  # the labels that plot.default() gives title(), recorded by a trace
  rec <- new.env()
  suppressMessages(trace("title", where = asNamespace("graphics"), print = FALSE,
                         tracer = bquote(assign("seen", list(xlab = xlab, ylab = ylab,
                                                             main = main),
                                                envir = .(rec)))))
  on.exit(suppressMessages(untrace("title", where = asNamespace("graphics"))), add = TRUE)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  plot(cal, group = "IT")
  expect_identical(rec$seen, list(xlab = "score", ylab = "calibrated probability (clicked)",
                                  main = "Isotonic calibration, country IT"))
  plot(cal, xlab = "my x")
  expect_identical(rec$seen$xlab, "my x")
  r <- reliability_diagram(d$score, d$clicked)
  expect_identical(r$variables, c(forecast = "score", outcome = "clicked"))
  plot(r)
  expect_identical(rec$seen[c("xlab", "ylab")],
                   list(xlab = "forecast probability (score)",
                        ylab = "conditional event probability (clicked)"))
})

test_that("coef() and logLik() are errors that say what to use instead", {
  cal <- iso_calibrate(c(0.1, 0.2, 0.3, 0.4), c(0, 1, 0, 1))
  expect_error(coef(cal), "`coef\\(\\)` does not apply.*`x\\$curves`.*`predict\\(\\)`",
               class = "gpuiso_error_input")
  expect_error(logLik(cal), "`logLik\\(\\)` does not apply.*reliability_diagram",
               class = "gpuiso_error_input")
})

test_that("every calibration and reliability method names an unknown argument", {
  cal <- iso_calibrate(c(0.1, 0.2, 0.3, 0.4), c(0, 1, 0, 1))
  r <- reliability_diagram(c(0.1, 0.2, 0.3, 0.4), c(0, 1, 0, 1))
  e <- function(expr, re) expect_error(expr, re, class = "gpuiso_error_input")
  e(predict(cal, 0.2, newx = 0.3), "`newx` is not an argument of `predict\\(\\)`. Did you mean `newdata`")
  e(predict(cal, 0.2, extrapolate = "na"), "`extrapolate` is not an argument.*Did you mean `out_of_bounds`")
  e(predict(cal, 0.2, intrpolation = "linear"), "`intrpolation` is not an argument.*Did you mean `interpolation`")
  e(predict(cal, 0.2, NULL, "linear", "clip", 0.5, 7), "takes no further unnamed arguments")
  e(print(cal, foo = 1), "`foo` is not an argument of `print\\(\\)`")
  e(summary(cal, digits = 3), "`digits` is not an argument of `summary\\(\\)`")
  e(print(summary(cal), foo = 1), "`foo` is not an argument of `print\\(\\)`")
  e(fitted(cal, type = "x"), "`type` is not an argument of `fitted\\(\\)`")
  e(residuals(cal, type = "pearson"), "`type` is not an argument of `residuals\\(\\)`")
  e(nobs(cal, use.fallback = TRUE), "`use.fallback` is not an argument of `nobs\\(\\)`")
  e(print(r, foo = 1), "`foo` is not an argument of `print\\(\\)`")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  e(plot(cal, grp = 1), "`grp` is not an argument of `plot\\(\\)`. Did you mean `group`")
  e(plot(cal, colour = "red"), "`colour` is not an argument of `plot\\(\\)`")
  e(plot(r, foo = 1), "`foo` is not an argument of `plot\\(\\)`")
  # graphical parameters pass
  expect_silent(plot(cal, lty = 2, xlim = c(0, 1)))
  expect_silent(plot(r, xlim = c(0, 0.5), cex.lab = 0.8))
  expect_output(print(cal, digits = 3), "calibrated values from 0 to 1")
  expect_output(print(r, digits = 2), "Brier score")
})

test_that("iso_calibrate() prints and summarises as before", {
  s <- snap$s
  o <- snap$o
  cal <- iso_calibrate(s, o, device = "cpu")
  expect_snapshot(cran = TRUE, print(cal))
  expect_snapshot(cran = TRUE, print(summary(cal)))
  expect_snapshot(cran = TRUE, print(iso_calibrate(s, o, groups = rep(c("a", "b"), 6), device = "cpu")))
})

test_that("multiclass fits have summary(), plot(), nobs() and clear errors", {
  set.seed(4)
  n <- 300
  cls <- factor(sample(c("a", "b", "c"), n, TRUE))
  raw <- matrix(runif(3 * n), n, dimnames = list(NULL, levels(cls)))
  w <- c(0, 0, rep(1, n - 2))
  cm <- iso_calibrate(raw, cls, weights = w)
  # rows of non-zero weight, as for a binary fit
  expect_equal(nobs(cm), n - 2)
  expect_equal(nobs(iso_calibrate(raw, cls)), n)
  s <- summary(cm)
  expect_identical(s, summary(cm$binary))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_invisible(plot(cm))
  expect_identical(plot(cm, class = c("c", "a"), lwd = 2), cm)
  expect_identical(plot(cm, class = 2, interpolation = "linear"), cm)
  e <- function(expr, pattern) expect_error(expr, pattern, class = "gpuiso_error_input")
  e(plot(cm, class = "z"), "`class` must name classes of the fit")
  e(plot(cm, class = 4), "`class` must name classes")
  e(plot(cm, type = "p"), "`type` is not an argument")
  e(coef(cm), "`coef\\(\\)` does not apply")
  e(residuals(cm), "`residuals\\(\\)` does not apply to a multiclass")
  e(logLik(cm), "`logLik\\(\\)` does not apply")
  e(summary(cm, digits = 3), "digits")
})

test_that("reliability_diagram() checks event_level whatever the outcomes", {
  set.seed(1)
  p <- runif(50)
  y <- rbinom(50, 1, p)
  for (ev in list("x", c("first", "second"), NA, 1)) {
    expect_error(reliability_diagram(p, y, event_level = ev, band = "none"),
                 "`event_level` must be one of", class = "gpuiso_error_input")
  }
  expect_identical(reliability_diagram(p, y, event_level = "first", band = "none")$curve,
                   reliability_diagram(p, y, band = "none")$curve)
  m <- cbind(a = runif(30), b = runif(30))
  err <- expect_error(reliability_diagram(m, factor(sample(c("a", "b", "c"), 30, TRUE)),
                                          band = "none"), class = "gpuiso_error_input")
  expect_match(conditionMessage(err), "factor of two levels .* not of 3\\.$")
  expect_identical(err$arg, "outcomes")
  # the hint about class matrices is iso_calibrate()'s
  expect_error(iso_calibrate(p[1:30], factor(sample(c("a", "b", "c"), 30, TRUE))),
               "for several classes give `scores` as a matrix", class = "gpuiso_error_input")
})

test_that("groups come in the order of a factor's levels, else of first appearance", {
  set.seed(2)
  s <- runif(200)
  y <- rbinom(200, 1, s)
  g <- sample(1:5, 200, TRUE)
  a <- iso_calibrate(s, y, groups = factor(g, levels = c(6, 5:1)))
  b <- iso_calibrate(s, y, groups = g)
  expect_identical(a$groups, as.character(5:1))
  expect_identical(b$groups, as.character(unique(g)))
  expect_identical(rownames(summary(a)$table), as.character(5:1))
  # the same curves either way
  expect_identical(fitted(a), fitted(b))
  for (k in 1:5) {
    expect_identical(predict(a, c(0.2, 0.7), groups = k), predict(b, c(0.2, 0.7), groups = k))
  }
})

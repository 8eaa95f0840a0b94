# The methods of an IDR fit (R/idr-methods.R): print() and summary()
# (snapshots of their output), plot(), the stats generics, and unknown
# arguments of every IDR method.

test_that("print, summary and plot methods run", {
  d <- random_idr_data(200, 13)
  fit <- idr(d$y, data.frame(temp = d$x))
  expect_output(print(fit), "200 observations")
  s <- summary(fit)
  expect_identical(s$K, length(fit$thresholds))
  expect_equal(s$blocks, length(fit$value))
  expect_output(print(s), "per threshold: min")
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(fit), fit)
  expect_identical(plot(fit, type = "surface"), fit)
  p <- predict(fit, c(2, 5))
  expect_identical(plot(p, index = 1:2), p)
  h <- pit_hist(pit(fit, seed = 1))
  expect_s3_class(h, "histogram")
  expect_equal(sum(h$density * diff(h$breaks)), 1)
})

test_that("unknown arguments are errors that name them, for every IDR method", {
  fit <- idr(Ozone ~ Temp, data = aq)
  p <- predict(fit, c(60, 90))
  s <- summary(fit)
  pdf(NULL)
  on.exit(grDevices::dev.off())
  cases <- list(
    list(quote(print(fit, foo = 1)), "print()"),
    list(quote(summary(fit, foo = 1)), "summary()"),
    list(quote(print(s, foo = 1)), "print()"),
    list(quote(predict(fit, foo = 1)), "predict()"),
    list(quote(plot(fit, foo = 1)), "plot()"),
    list(quote(plot(fit, type = "surface", foo = 1)), "plot()"),
    list(quote(print(p, foo = 1)), "print()"),
    list(quote(plot(p, foo = 1)), "plot()"),
    list(quote(nobs(fit, foo = 1)), "nobs()"),
    list(quote(fitted(fit, foo = 1)), "fitted()"),
    list(quote(knots(fit, foo = 1)), "knots()"),
    list(quote(pit_hist(c(0.2, 0.7), foo = 1)), "pit_hist()"))
  for (cs in cases) {
    expect_input_error(eval(cs[[1]]),
                       sprintf("`foo` is not an argument of `%s`",
                               gsub("([()])", "\\\\\\1", cs[[2]])))
  }
  # peers' and misspelled names get a hint; unnamed extras are errors too
  expect_input_error(predict(fit, newx = 70), "`newx` is not an argument.*Did you mean `newdata`")
  expect_input_error(predict(fit, c(60, 90), extrapolate = "na"), "Did you mean `out_of_bounds`")
  expect_input_error(predict(fit, c(60, 90), "constant", "clip", NULL, 3), "no further unnamed")
  expect_input_error(predict(fit, interpolaton = "linear"), "Did you mean `interpolation`")
  # graphical parameters pass
  expect_identical(plot(fit, lwd = 1, cex.main = 0.8), fit)
  expect_identical(plot(fit, type = "surface", las = 1), fit)
  expect_identical(plot(p, index = 1:2, lty = 2), p)
  expect_s3_class(pit_hist(c(0.2, 0.7), border = "red"), "histogram")
})

test_that("print(), summary() and plot() use the names of the variables", {
  fit <- idr(Ozone ~ Temp, data = aq)
  out <- capture.output(print(fit))
  expect_identical(out[1], "Isotonic distributional regression of Ozone on Temp")
  expect_match(out[2], "Call: idr(y = Ozone ~ Temp, data = aq)", fixed = TRUE)
  expect_true(any(grepl("39 distinct values of Temp, 67 thresholds of Ozone", out, fixed = TRUE)))
  out <- capture.output(print(summary(fit)))
  expect_identical(out[1], "Isotonic distributional regression of Ozone on Temp")
  expect_true(any(grepl("In-sample CRPS: ", out, fixed = TRUE)))
  expect_false(any(grepl("0.0 MiB", out, fixed = TRUE)))
  # one of a kind: no "1 blocks", "1 thresholds"
  one <- idr(c(2, 2), c(1, 1))
  out <- capture.output(print(one))
  expect_true(any(grepl("2 observations", out, fixed = TRUE)))
  expect_true(any(grepl("1 distinct value of x, 1 threshold of y", out, fixed = TRUE)))
  expect_true(any(grepl("^1 block ", out)))
  expect_false(any(grepl("1 blocks|1 thresholds|1 distinct values", out)))
  expect_output(print(predict(one, 1)), "1 predictive CDF of y given x, on 1 threshold\nThe first")
  expect_true(any(grepl("^Blocks: +1 in all \\(28 bytes\\)", capture.output(print(summary(one))))))
  # the weighted mean CRPS for a weighted fit
  fw <- idr(Ozone ~ Temp, data = aq, weights = Wind)
  expect_equal(summary(fw)$crps, stats::weighted.mean(crps(fw), aq$Wind[!ozone_na]))
  expect_output(print(summary(fw)), "weighted mean")
  # the surface plot leaves the graphical parameters as they were
  pdf(NULL)
  on.exit(grDevices::dev.off())
  old <- par(mfrow = c(1, 2), mar = c(4, 4, 2, 1))
  expect_identical(plot(fit, type = "surface"), fit)
  expect_identical(par("mfrow"), c(1L, 2L))
  expect_identical(par("mar"), c(4, 4, 2, 1))
  expect_identical(plot(fit, type = "surface", key = FALSE, col = grey.colors(5)), fit)
  expect_identical(plot(one, type = "surface"), one)
  par(old)
  expect_input_error(plot(fit, type = "surface", key = NA), "`key`")
})

test_that("stats generics: nobs, fitted and knots work; coef, logLik and residuals explain", {
  fit <- idr(Ozone ~ Temp, data = aq)
  expect_identical(nobs(fit), 116L)
  expect_identical(fitted(fit), predict(fit))
  expect_identical(knots(fit), as.double(sort(unique(aq$Temp[!ozone_na]))))
  fz <- idr(c(1, 2, 3, 4), c(1, 2, 3, 4), weights = c(1, 0, 2, 1))
  expect_identical(nobs(fz), 3L)
  expect_input_error(coef(fit), "no coefficients.*Use `predict\\(\\)`")
  expect_input_error(logLik(fit), "no likelihood.*Use `crps\\(\\)`")
  expect_input_error(residuals(fit), "no residuals.*`crps\\(\\)`.*`pit\\(\\)`")
  expect_input_error(resid(fit), "no residuals")
})

test_that("fits and predictions at the ends of the doubles plot", {
  big <- .Machine$double.xmax
  fit <- idr(c(big, -big, 1e-300, 5e-324, 1e300, 0), c(1e308, -1e308, 5e-324, 0, 1, -5e-324),
             weights = c(1e308, 5e-324, 1, 1e-300, 1e300, 1))
  pred <- predict(fit, c(-1e308, 0, 1e308, NA))
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(fit), fit)
  expect_identical(plot(fit, type = "cdf", at = c(-1e308, 1e300)), fit)
  expect_identical(plot(pred), pred)
  expect_identical(plot(pred, index = 1:4), pred)
  expect_identical(plot(pred[c(1, 9, NA)]), pred[c(1, 9, NA)])
  usr <- par("usr")
  expect_true(all(is.finite(usr)))
})

test_that("summary() and plots of fits at the ends of the range", {
  fit <- idr(c(-big, 1e308, 0, big), c(-big, 1, 2, big), weights = c(1e308, 1e308, 1, tiny))
  s <- summary(fit)
  expect_true(is.finite(s$crps))
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(fit))
  expect_silent(plot(fit, type = "surface"))
  expect_silent(plot(predict(fit, c(0, 1)), index = 1:2))
})

test_that("idr() prints and summarises as before", {
  x <- snap$x
  y <- snap$y
  fit <- idr(y, x, device = "cpu")
  expect_snapshot(cran = TRUE, print(fit))
  expect_snapshot(cran = TRUE, print(summary(fit)))
})

test_that("update() refits with changed arguments or a changed formula", {
  fit <- idr(Ozone ~ Temp, data = aq)
  both <- update(fit, . ~ . + Wind, decreasing = c(FALSE, TRUE))
  expect_identical(both$value,
                   idr(Ozone ~ Temp + Wind, data = aq, decreasing = c(FALSE, TRUE))$value)
  expect_identical(update(fit, . ~ Wind, decreasing = TRUE)$value,
                   idr(Ozone ~ Wind, data = aq, decreasing = TRUE)$value)
  expect_identical(update(fit, thresholds = c(20, 60))$thresholds, c(20, 60, max(fit$data$y)))
  cl <- update(fit, . ~ Wind, evaluate = FALSE)
  expect_true(is.call(cl))
  expect_identical(deparse(cl$y), "Ozone ~ Wind")
  # a fit from vectors changes its arguments by name
  f2 <- idr(aq$Ozone, aq$Temp)
  expect_identical(update(f2, thresholds = 50)$thresholds, c(50, max(aq$Ozone, na.rm = TRUE)))
  err <- expect_error(update(f2, . ~ Wind), class = "gpuiso_error_input")
  expect_match(conditionMessage(err), "`formula.` updates a fit from a formula")
  expect_error(update(fit, . ~ Wind, 3), "takes no further unnamed arguments",
               class = "gpuiso_error_input")
  expect_error(update(fit, thresh = 50), "`thresh` is not an argument of `update\\(\\)`. Did you mean `thresholds`",
               class = "gpuiso_error_input")
  # batches too
  st <- rep(1:2, length.out = nrow(aq))
  fb <- idr(Ozone ~ Temp, data = cbind(aq, st = st), by = st)
  fb2 <- update(fb, . ~ Wind)
  expect_identical(fb2$fits[[1]]$value,
                   idr(Ozone ~ Wind, data = cbind(aq, st = st), by = st)$fits[[1]]$value)
})

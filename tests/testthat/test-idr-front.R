# The front of idr(): the formula interface, missing values (na.action and
# missing predictions), the prediction rule of ?prediction, names and
# dimnames, arguments that are not used, and the stats generics.

aq <- airquality
ozone_na <- is.na(aq$Ozone)

fit_fields <- c("x", "weight", "thresholds", "ptr", "start", "value", "n",
                "data", "na.action")

# Per threshold, the antitonic fit of the pooled indicators (isotonic() on
# the distinct covariate values): an m x K matrix built without the blocks.
dense_reference <- function(y, x, thresholds) {
  f <- factor(x, sort(unique(x)))
  W <- as.vector(table(f))
  vapply(thresholds, function(t) {
    isotonic(as.vector(tapply(y <= t, f, sum)) / W, weights = W,
             decreasing = TRUE, device = "cpu")
  }, numeric(nlevels(f)))
}

expect_input_error <- function(expr, regexp) {
  expect_error(expr, regexp, class = "gpuiso_error_input")
}

test_that("the formula and the default interface give identical fits", {
  f1 <- idr(Ozone ~ Temp, data = aq)
  ok <- !ozone_na
  f2 <- idr(aq$Ozone, aq$Temp)
  f3 <- idr(aq$Ozone[ok], aq$Temp[ok])
  expect_identical(f1[fit_fields], f2[fit_fields])
  expect_identical(f1[fit_fields[-9]], f3[fit_fields[-9]])
  expect_null(f3$na.action)
  expect_identical(f1$yname, "Ozone")
  expect_identical(f1$xname, "Temp")
  expect_identical(f2$yname, "Ozone")
  expect_identical(f2$xname, "Temp")
  expect_s3_class(f1$terms, "terms")
  expect_null(f2$terms)
  # data by position, as in lm(); the call records it as `data`
  f4 <- idr(Ozone ~ Temp, aq)
  expect_identical(f4[fit_fields], f1[fit_fields])
  expect_identical(names(f4$call), c("", "y", "data"))
  expect_identical(eval(f4$call)[fit_fields], f1[fit_fields])
  # weights are evaluated in data, as lm() does
  f5 <- idr(Ozone ~ Temp, data = aq, weights = Wind)
  f6 <- idr(aq$Ozone, aq$Temp, weights = aq$Wind)
  expect_identical(f5[fit_fields], f6[fit_fields])
  expect_false(identical(f5$value, f1$value))
  # variables from the formula's environment, and a transformed covariate
  oz <- aq$Ozone[ok]
  tt <- aq$Temp[ok]
  f7 <- idr(oz ~ tt)
  expect_identical(f7[fit_fields[-9]], f3[fit_fields[-9]])
  f8 <- idr(log(Ozone) ~ I(Temp - 32), data = aq)
  expect_identical(f8$yname, "log(Ozone)")
  expect_identical(f8$xname, "I(Temp - 32)")
  expect_equal(f8$x, f1$x - 32)
  # and the names of one-column data frames and of symbols
  temp <- aq$Temp
  expect_identical(idr(aq$Ozone, temp)$xname, "temp")
  expect_identical(idr(aq$Ozone, aq[, "Temp", drop = FALSE])$xname, "Temp")
  expect_identical(idr(c(1, 2, 3), c(3, 2, 1))$xname, "x")
  expect_identical(idr(c(1, 2, 3), c(3, 2, 1))$yname, "y")
})

test_that("formulas that idr() cannot fit are errors", {
  expect_input_error(idr(Ozone ~ Temp + Wind, data = aq),
                     "one covariate.*`Temp`, `Wind`")
  expect_input_error(idr(Ozone ~ Temp:Wind, data = aq), "one covariate")
  expect_input_error(idr(~ Temp, data = aq), "must have a response")
  expect_input_error(idr(Ozone ~ Tmp, data = aq), "could not be evaluated.*Tmp")
  expect_input_error(idr(Ozone ~ Temp, aq, data = aq), "`X` is not used with a formula")
  expect_input_error(idr(Ozone ~ Month, data = transform(aq, Month = factor(Month))),
                     "`Month` must be numeric, not a factor")
  expect_input_error(idr(aq$Ozone, aq$Temp, data = aq), "`data` is used with a formula only")
  expect_input_error(idr(aq$Ozone), "`X` is missing")
})

test_that("na.omit (the default) drops incomplete rows and records them as lm() does", {
  fit <- idr(Ozone ~ Temp, data = aq)
  ref <- lm(Ozone ~ Temp, data = aq)
  expect_identical(fit$na.action, ref$na.action)
  expect_s3_class(fit$na.action, "omit")
  expect_identical(unname(as.integer(fit$na.action)), which(ozone_na))
  expect_identical(fit$n, sum(!ozone_na))
  expect_identical(nobs(fit), nobs(ref))
  expect_length(predict(fit), sum(!ozone_na))
  expect_length(crps(fit), sum(!ozone_na))
  expect_output(print(fit), "37 observations deleted due to missingness")
  # missing covariates and weights are dropped too
  x <- c(1, 2, NA, 4, 5, 6)
  y <- c(2, NA, 3, 1, 5, 4)
  w <- c(1, 2, 1, NA, 1, 1)
  fit <- idr(y, x, weights = w)
  expect_identical(as.vector(fit$na.action), c(2L, 3L, 4L))
  expect_identical(fit$data$y, c(2, 5, 4))
  expect_identical(fit[fit_fields[1:6]],
                   idr(c(2, 5, 4), c(1, 5, 6), weights = c(1, 1, 1))[fit_fields[1:6]])
  expect_identical(idr(y, x, weights = w, na.action = "na.omit")$value, fit$value)
  expect_input_error(idr(c(NA, NA), c(1, 2)), "No observations are left")
  expect_input_error(idr(1:3, 1:3, na.action = "no_such_function"), "`na.action` must be a function")
  expect_input_error(idr(1:3, 1:3, na.action = 3), "`na.action` must be a function")
})

test_that("na.fail stops at the first missing value, naming it", {
  expect_input_error(idr(Ozone ~ Temp, data = aq, na.action = na.fail),
                     "`Ozone` has missing values \\(element 5 is NA\\)")
  expect_input_error(idr(aq$Ozone, aq$Temp, na.action = "na.fail"),
                     "`y` has missing values \\(element 5 is NA\\).*refuses")
  expect_input_error(idr(1:3, c(1, NaN, 3), na.action = na.fail),
                     "`X` has missing values \\(element 2 is NaN\\)")
  expect_input_error(idr(Ozone ~ Temp, data = aq, weights = ifelse(Day == 3, NA, 1),
                         na.action = na.fail), "`weights` has missing values \\(element 3 is NA\\)")
  # without missing values na.fail is no obstacle
  ok <- !ozone_na
  expect_identical(idr(aq$Ozone[ok], aq$Temp[ok], na.action = na.fail)$value,
                   idr(Ozone ~ Temp, data = aq)$value)
})

test_that("na.exclude pads the in-sample results back with NA, as naresid() does", {
  fo <- idr(Ozone ~ Temp, data = aq)
  fx <- idr(Ozone ~ Temp, data = aq, na.action = na.exclude)
  expect_s3_class(fx$na.action, "exclude")
  expect_identical(fx[fit_fields[1:7]], fo[fit_fields[1:7]])
  n <- nrow(aq)
  p <- predict(fx)
  expect_length(p, n)
  expect_identical(is.na(p$j), ozone_na)
  expect_identical(fitted(fx), p)
  s <- crps(fx)
  expect_length(s, n)
  expect_identical(is.na(s), ozone_na)
  expect_identical(s[!ozone_na], crps(fo))
  expect_identical(s, naresid(fx$na.action, crps(fo)))
  expect_identical(crps(predict(fx), aq$Ozone), s)
  expect_identical(pit(fx, seed = 3)[!ozone_na], pit(fo, seed = 3))
  expect_identical(is.na(pit(fx, randomize = FALSE)), ozone_na)
  G <- cdf(fx, c(20, 60))
  expect_identical(dim(G), c(n, 2L))
  expect_identical(G[!ozone_na, ], cdf(fo, c(20, 60)))
  expect_true(all(is.na(G[ozone_na, ])))
  expect_identical(is.na(qpred(fx, 0.5)[, 1]), ozone_na)
  expect_identical(is.na(bscore(fx, 50)[, 1]), ozone_na)
  expect_identical(is.na(qscore(fx, 0.5)[, 1]), ozone_na)
  expect_equal(summary(fx)$crps, mean(crps(fo)))
  # names: rows named in the data keep their names, padding included
  d <- aq[1:12, c("Ozone", "Temp")]
  rownames(d) <- month.abb
  fn <- idr(Ozone ~ Temp, data = d, na.action = na.exclude)
  expect_named(crps(fn), month.abb)
  expect_identical(rownames(cdf(fn, 30)), month.abb)
  expect_identical(unname(is.na(crps(fn))), is.na(d$Ozone))
  expect_named(crps(idr(Ozone ~ Temp, data = d)), month.abb[!is.na(d$Ozone)])
  # names of the vectors; duplicated names are kept, not used as row names
  y <- c(a = 1, d = 2, b = NA, c = 4)
  expect_named(crps(idr(y, 1:4, na.action = na.exclude)), c("a", "d", "b", "c"))
  expect_named(crps(idr(y, 1:4)), c("a", "d", "c"))
  names(y)[2] <- "a"
  expect_named(crps(idr(y, 1:4)), c("a", "a", "c"))
  expect_length(crps(idr(y, 1:4, na.action = na.exclude)), 4)
  # the default interface
  fd <- idr(aq$Ozone, aq$Temp, na.action = na.exclude)
  expect_identical(crps(fd), s)
  # pit_hist leaves missing PIT values out
  pdf(NULL)
  on.exit(grDevices::dev.off())
  h <- pit_hist(pit(fx, seed = 1))
  expect_identical(sum(h$counts), sum(!ozone_na))
})

test_that("predict() takes isodistrreg's `data =`, but not together with `newdata`", {
  fit <- idr(Ozone ~ Temp, data = aq)
  nd <- data.frame(Temp = c(60, 75, 90))
  expect_identical(predict(fit, data = nd), predict(fit, nd))
  expect_identical(predict(fit, data = c(60, 75, 90), interpolation = "linear"),
                   predict(fit, c(60, 75, 90), interpolation = "linear"))
  expect_false(identical(predict(fit, data = nd)$x, predict(fit)$x))
  expect_input_error(predict(fit, newdata = nd, data = nd), "not both")
  expect_input_error(predict(fit, data = c(50, 100), out_of_bounds = "error"),
                     "`data` must lie within the range of the fit.*element 1 is 50")
  # the covariate found by name in a data frame, evaluated through the
  # formula's terms, or the one column of a one-column data frame
  f8 <- idr(Ozone ~ I(Temp - 32), data = aq)
  expect_identical(predict(f8, data.frame(Wind = 1, Temp = c(60, 90)))$j,
                   predict(f8, c(28, 58))$j)
  expect_identical(predict(f8, data.frame(a = c(28, 58)))$j, predict(f8, c(28, 58))$j)
  expect_input_error(predict(f8, data.frame(a = 1, b = 2)), "must have a column `Temp`")
  f2 <- idr(aq$Ozone, aq$Temp)
  expect_identical(predict(f2, data.frame(Wind = 1, Temp = c(60, 90)))$j,
                   predict(f2, c(60, 90))$j)
  expect_identical(predict(f2, list(Temp = c(60, 90)))$j, predict(f2, c(60, 90))$j)
  expect_input_error(predict(f2, data.frame(a = 1, b = 2)),
                     "`newdata` must have a column `Temp`")
  expect_input_error(predict(f2, "60"), "`newdata` must be numeric")
  expect_input_error(predict(f2, factor(60)), "`newdata` must be numeric, not a factor")
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

test_that("missing new data give missing predictions, NA in every evaluation function", {
  fit <- idr(Ozone ~ Temp, data = aq)
  x <- c(60, NA, 90, NaN)
  p <- predict(fit, x)
  expect_length(p, 4)
  expect_identical(is.na(p$j), c(FALSE, TRUE, FALSE, TRUE))
  miss <- c(2, 4)
  full <- predict(fit, c(60, 90))
  y <- c(30, 30, 80, 80)
  expect_true(all(is.na(cdf(p, c(20, 50))[miss, ])))
  expect_identical(unname(cdf(p, c(20, 50))[-miss, ]), unname(cdf(full, c(20, 50))))
  expect_true(all(is.na(qpred(p, c(0.1, 0.9))[miss, ])))
  expect_identical(qpred(p, c(0.1, 0.9))[-miss, ], qpred(full, c(0.1, 0.9)))
  expect_identical(crps(p, y)[miss], c(NA_real_, NA_real_))
  expect_identical(crps(p, y)[-miss], crps(full, c(30, 80)))
  expect_identical(crps(p, 50)[-miss], crps(full, 50))
  expect_identical(pit(p, y, randomize = FALSE)[miss], c(NA_real_, NA_real_))
  expect_identical(pit(p, y, seed = 1)[-miss], pit(full, c(30, 80), seed = 1))
  expect_true(all(is.na(bscore(p, c(20, 50), y)[miss, ])))
  expect_true(all(is.na(qscore(p, c(0.1, 0.9), y)[miss, ])))
  expect_false(anyNA(qscore(p, c(0.1, 0.9), y)[-miss, ]))
  expect_identical(p[[2]], data.frame(points = NA_real_, cdf = NA_real_))
  expect_identical(p[[3]], full[[2]])
  expect_output(print(p), "4 predictive CDFs of Ozone given Temp.*\\(2 missing\\)")
  expect_output(print(p[2]), "1 predictive CDF of Ozone given Temp, on 67 thresholds \\(1 missing\\)")
  expect_output(print(p[c(2, 3)]), "first not missing \\(number 2\\), at Temp = 90")
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(p, index = 1:4), p)
  expect_identical(plot(p, index = 2), p)
  # a missing observation gives a missing score; infinite ones are errors
  expect_identical(is.na(crps(full, c(NA, 80))), c(TRUE, FALSE))
  expect_identical(is.na(pit(full, c(NA, 80))), c(TRUE, FALSE))
  expect_input_error(crps(full, c(Inf, 80)), "`y` must be finite: element 1 is Inf")
  expect_input_error(crps(full, c(NA, 80, 90)), "`y` must have length 1 or the same length")
})

test_that("an index beyond the last gives a missing prediction (it crashed R before)", {
  pred <- predict(idr(c(1, 2, 3, 4, 5), 1:5), c(1.5, 3))
  expect_identical(crps(pred[5], 2), NA_real_)
  expect_identical(pit(pred[5], 2), NA_real_)
  expect_identical(unname(cdf(pred[5], c(1, 2))), matrix(NA_real_, 1, 2))
  expect_identical(unname(qpred(pred[5], 0.5)), matrix(NA_real_, 1, 1))
  q <- pred[c(2, 5, 1)]
  expect_length(q, 3)
  expect_identical(is.na(crps(q, 2)), c(FALSE, TRUE, FALSE))
  expect_identical(crps(q, 2)[c(1, 3)], crps(pred, 2)[c(2, 1)])
  expect_identical(crps(pred[NA_integer_], 2), NA_real_)
  expect_length(pred[-1], 1)
  expect_length(pred[c(TRUE, FALSE)], 1)
  expect_input_error(pred[[5]], "index")
})

test_that("out_of_bounds: clip (the default), na or error", {
  fit <- idr(Ozone ~ Temp, data = aq)
  lo <- min(fit$x)
  hi <- max(fit$x)
  x <- c(lo - 10, lo, 80, hi, hi + 10)
  for (interpolation in c("constant", "linear")) {
    pc <- predict(fit, x, interpolation = interpolation)
    expect_identical(pc$j, predict(fit, c(lo, lo, 80, hi, hi), interpolation = interpolation)$j)
    expect_identical(pc$j[c(1, 5)], c(0L, length(fit$x) - 1L))
    pn <- predict(fit, x, interpolation = interpolation, out_of_bounds = "na")
    expect_identical(is.na(pn$j), c(TRUE, FALSE, FALSE, FALSE, TRUE))
    expect_identical(pn$j[2:4], pc$j[2:4])
    expect_true(all(is.na(crps(pn, 50)[c(1, 5)])))
    expect_input_error(predict(fit, x, interpolation = interpolation, out_of_bounds = "error"),
                       "`newdata` must lie within the range of the fit, \\[57, 97\\].*element 1 is 47")
    expect_identical(predict(fit, x[2:4], interpolation = interpolation, out_of_bounds = "error")$j,
                     pc$j[2:4])
    # NA is a missing prediction whatever out_of_bounds
    expect_true(is.na(predict(fit, NA, interpolation = interpolation, out_of_bounds = "error")$j))
  }
  expect_input_error(predict(fit, 70, out_of_bounds = "extrapolate"), "`out_of_bounds` must be one of")
  expect_input_error(predict(fit, 70, interpolation = "spline"), "`interpolation` must be one of")
})

test_that("constant interpolation is the CDF at the first fitted x at or above the new x", {
  set.seed(31)
  for (rep in 1:3) {
    n <- 300
    x <- sample(round(runif(60, 0, 10), 1), n, replace = TRUE)
    y <- round(rgamma(n, shape = 1 + x / 3), 1)
    fit <- idr(y, x)
    ref <- dense_reference(y, x, fit$thresholds) # one row per distinct x
    xu <- sort(unique(x))
    xnew <- c(xu, runif(200, -1, 11), xu[1] - 1, xu[length(xu)] + 1,
              (xu[-1] + xu[-length(xu)]) / 2)
    # brute force: the first fitted x at or above x0, the last one above all
    first_at_or_above <- vapply(xnew, function(x0) {
      i <- which(xu >= x0)
      if (length(i)) min(i) else length(xu)
    }, 1L)
    G <- cdf(predict(fit, xnew), fit$thresholds)
    expect_close(G, ref[first_at_or_above, ], tol = 1e-12,
                 label = "constant interpolation")
    expect_identical(cdf(predict(fit, xnew, interpolation = "constant"), fit$thresholds), G)
    # threshold by threshold, as.stepfun's right-continuous step in x
    for (k in c(1, 5, length(fit$thresholds) %/% 2)) {
      # (xu[i-1], xu[i]] -> ref[i, k]; beyond the last knot, the last value
      step <- stats::stepfun(xu, c(ref[, k], ref[length(xu), k]), right = TRUE)
      expect_close(G[, k], step(xnew), tol = 1e-12, label = "stepfun")
    }
    expect_true(all(predict(fit, xnew)$lambda == 0))
  }
})

# Predictions with (j, lambda) set by hand: the object of an earlier
# version, to compare scores on.
new_pred_like <- function(p, at) {
  p <- unclass(p)
  p$j <- at$j
  p$lambda <- at$lambda
  p$names <- NULL
  structure(p, class = "gpuiso_idr_pred")
}

test_that("linear interpolation is the rule of earlier versions, unchanged", {
  # the former predict(): findInterval() for the lower neighbour, lambda
  # from the distances, the nearest end outside
  old_rule <- function(fit, x) {
    xu <- fit$x
    m <- length(xu)
    pos <- findInterval(x, xu)
    inside <- pos > 0L & pos < m
    lam <- numeric(length(x))
    lam[inside] <- (x[inside] - xu[pos[inside]]) / (xu[pos[inside] + 1L] - xu[pos[inside]])
    list(j = as.integer(pmax(pos, 1L) - 1L), lambda = lam)
  }
  set.seed(32)
  for (rep in 1:3) {
    n <- 400
    x <- sample(round(runif(80, 0, 10), 2), n, replace = TRUE)
    y <- rgamma(n, shape = 1 + x / 3)
    fit <- idr(y, x, weights = runif(n, 0.5, 2))
    xu <- fit$x
    xnew <- c(xu, runif(300, -1, 11), xu[1] - 1, xu[length(xu)] + 1,
              xu[-1] - 1e-9 * diff(xu))
    p <- predict(fit, xnew, interpolation = "linear")
    old <- old_rule(fit, xnew)
    expect_identical(p$j, old$j)
    expect_equal(p$lambda, old$lambda, tolerance = 1e-14)
    # the CDFs: (1 - lambda) F(x_j) + lambda F(x_{j+1}) from the fitted CDFs
    Fu <- cdf(predict(fit, xu), fit$thresholds)
    ref <- (1 - old$lambda) * Fu[old$j + 1L, ] +
      old$lambda * Fu[pmin(old$j + 2L, length(xu)), ]
    expect_close(cdf(p, fit$thresholds), ref, tol = 1e-12, label = "linear")
    yy <- rgamma(length(xnew), 3)
    expect_equal(unname(crps(p, yy)),
                 crps(new_pred_like(p, old), yy), tolerance = 1e-12)
  }
})

test_that("cdf(), qpred(), bscore() and qscore() have dimnames; crps() and pit() names", {
  fit <- idr(Ozone ~ Temp, data = aq)
  z <- c(20, 50.5, 100)
  a <- c(0.1, 0.5, 0.9)
  # names from a named vector
  p <- predict(fit, c(cool = 60, mild = 75, hot = 90))
  expect_identical(dimnames(cdf(p, z)), list(c("cool", "mild", "hot"), c("20", "50.5", "100")))
  expect_identical(dimnames(qpred(p, a)), list(c("cool", "mild", "hot"), c("0.1", "0.5", "0.9")))
  expect_identical(dimnames(bscore(p, z, 40)), dimnames(cdf(p, z)))
  expect_identical(dimnames(qscore(p, a, 40)), dimnames(qpred(p, a)))
  expect_named(crps(p, 40), c("cool", "mild", "hot"))
  expect_named(pit(p, c(10, 40, 90)), c("cool", "mild", "hot"))
  expect_identical(colnames(cdf(p, c(low = 20, high = 100))), c("low", "high"))
  expect_identical(colnames(qpred(p, c(lower = 0.05, upper = 0.95))), c("lower", "upper"))
  # subsets keep the names; names index predictions
  expect_identical(rownames(cdf(p[c("hot", "cool")], 50)), c("hot", "cool"))
  expect_identical(p[["mild"]], p[[2]])
  # a data frame's row names, unless automatic
  nd <- data.frame(Temp = c(60, 90), row.names = c("d1", "d2"))
  expect_identical(rownames(cdf(predict(fit, nd), 50)), c("d1", "d2"))
  expect_named(crps(predict(fit, nd), 50), c("d1", "d2"))
  expect_null(rownames(cdf(predict(fit, data.frame(Temp = c(60, 90))), 50)))
  expect_null(names(crps(predict(fit, c(60, 90)), 50)))
  expect_identical(rownames(qpred(predict(fit, aq[c(3, 1), ]), 0.5)), c("3", "1"))
  # in sample: the names of the observations, if they have any
  expect_null(rownames(cdf(fit, 50)))
  fm <- idr(mpg ~ hp, data = mtcars)
  expect_named(crps(fm), rownames(mtcars))
  expect_identical(rownames(qpred(fm, 0.5)), rownames(mtcars))
  # numbers, not rounded away
  expect_identical(colnames(cdf(p, 1 / 3)), as.character(1 / 3))
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

test_that("thresholds, quantiles, seed and the index `i` of bad types are errors naming them", {
  fit <- idr(c(1, 3, 2, 5, 4, 6), c(1, 2, 2, 3, 4, 5))
  p <- predict(fit, c(0, 1.5, 3, 9))
  # a function was coerced to labels before it was checked
  expect_input_error(cdf(p, thresholds = sum), "`thresholds` must be numeric, not a function")
  expect_input_error(qpred(p, quantiles = sum), "`quantiles` must be numeric, not a function")
  expect_input_error(bscore(p, thresholds = sum, y = 2), "`thresholds` must be numeric")
  # the seed: NULL or a whole number that an integer holds
  for (s in list(NA, NaN, Inf, -Inf, .Machine$double.xmax, -.Machine$double.xmax,
                 numeric(0), c(1, 2), list(1), "3", 1i, 2.5, 2^31, TRUE, factor(3))) {
    expect_input_error(pit(p, rep(2, 4), seed = s), "`seed` must be NULL or a whole number")
  }
  expect_identical(pit(p, rep(2, 4), seed = 3), pit(p, rep(2, 4), seed = 3L))
  expect_identical(pit(p, rep(2, 4), seed = -2147483647), pit(p, rep(2, 4), seed = -2147483647L))
  # subsetting: lists and factors are not indices, and R's own errors are ours
  e <- expect_input_error(p[list(1)], "The index `i` must be numbers.*not a list")
  expect_identical(e$arg, "i")
  expect_input_error(p[factor(1)], "The index `i`.*factor")
  expect_input_error(p[sum], "The index `i`.*function")
  expect_input_error(p[c(-1, 1)], "The index `i` is not valid")
  expect_identical(p[], p)
  expect_identical(unclass(p[NULL])$x, numeric(0))
  expect_identical(unclass(p[2:3])$x, c(1.5, 3))
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

# predict() of an IDR fit and its predictions (R/idr-predict.R): the
# prediction rule of ?prediction (interpolation, out_of_bounds), missing new
# data, isodistrreg's `data =`, indexing, printing.

# The predictive CDF of each prediction at the thresholds, by the documented
# interpolation rule, from the dense matrix (rows: predictions).
idr_pred_dense <- function(fit, xnew) {
  D <- idr_dense(fit)
  t(vapply(xnew, function(x0) {
    xu <- fit$x
    if (x0 <= xu[1]) return(D[1, ])
    if (x0 >= xu[length(xu)]) return(D[length(xu), ])
    j <- max(which(xu <= x0))
    if (xu[j] == x0) return(D[j, ])
    lam <- (x0 - xu[j]) / (xu[j + 1] - xu[j])
    (1 - lam) * D[j, ] + lam * D[j + 1, ]
  }, numeric(length(fit$thresholds))))
}

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

# Predictions with (j, lambda) set by hand: the object of an earlier
# version, to compare scores on.
new_pred_like <- function(p, at) {
  p <- unclass(p)
  p$j <- at$j
  p$lambda <- at$lambda
  p$names <- NULL
  structure(p, class = "gpuiso_idr_pred")
}

test_that("predict(interpolation = 'linear') interpolates linearly in x and takes the nearest end outside", {
  d <- random_idr_data(300, 6)
  fit <- idr(d$y, d$x)
  xu <- fit$x
  xnew <- c(xu[1] - 5, xu[1], (xu[3] + xu[4]) / 2, xu[3] + 0.25 * (xu[4] - xu[3]),
            xu[length(xu)], xu[length(xu)] + 1, runif(20, -1, 11))
  p <- predict(fit, xnew, interpolation = "linear")
  expect_s3_class(p, "gpuiso_idr_pred")
  expect_length(p, length(xnew))
  ref <- idr_pred_dense(fit, xnew)
  expect_close(cdf(p, fit$thresholds), ref)
  expect_equal(p$lambda[3], 0.5)
  expect_equal(p$lambda[4], 0.25)
  expect_identical(p$lambda[c(1, 2, 5, 6)], c(0, 0, 0, 0))
  # a data frame with the covariate's name, or one column of any name
  fitdf <- idr(d$y, data.frame(temp = d$x))
  expect_identical(fitdf$xname, "temp")
  expect_equal(unname(cdf(predict(fitdf, data.frame(a = 1, temp = xnew),
                                  interpolation = "linear"), fit$thresholds)), ref)
  expect_equal(unname(cdf(predict(fitdf, data.frame(other = xnew),
                                  interpolation = "linear"), fit$thresholds)), ref)
  xx <- d$x
  expect_identical(idr(d$y, xx)$xname, "xx")
  expect_identical(idr(d$y, cbind(u = d$x))$xname, "u")
  # in-sample predictions: one per observation, the fitted CDF at its x
  pin <- predict(fit)
  expect_length(pin, 300)
  expect_close(cdf(pin, fit$thresholds), idr_dense(fit)[match(d$x, fit$x), ])
  # [[ gives the jumps of one CDF; [ subsets
  one <- p[[3]]
  expect_named(one, c("points", "cdf"))
  g <- ref[3, ]
  expect_equal(one$points, fit$thresholds[c(g[1] > 0, diff(g) > 0)])
  expect_equal(one$cdf, g[c(g[1] > 0, diff(g) > 0)])
  expect_equal(cdf(p[2:3], 4), cdf(p, 4)[2:3, , drop = FALSE])
  expect_output(print(p), "IDR predictions: 26 predictive CDFs")
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

test_that("covariates at +-DBL_MAX interpolate without overflow", {
  fit <- idr(c(1, 2, 3, 4), c(-big, -1e308, 1e308, big))
  t <- c(0, big / 2, -big / 2, 1.5e308)
  p <- predict(fit, t, interpolation = "linear")
  up <- unclass(p)
  expect_identical(up$j, c(1L, 1L, 1L, 2L))
  a <- c(-1e308, -1e308, -1e308, 1e308); b <- c(1e308, 1e308, 1e308, big)
  expect_equal(up$lambda, (t / 2 - a / 2) / (b / 2 - a / 2), tolerance = 1e-15)
  expect_identical(up$lambda[1], 0.5)
  G <- cdf(p, fit$thresholds)
  expect_true(all(is.finite(G)) && all(G >= 0 & G <= 1))
  expect_equal(unname(G[1, ]), c(0, 0.5, 1, 1))
})

test_that("predictions of idr() print as before", {
  x <- snap$x
  y <- snap$y
  fit <- idr(y, x, device = "cpu")
  expect_snapshot(cran = TRUE, print(predict(fit, data.frame(X = c(1.5, 4, 10)))))
})

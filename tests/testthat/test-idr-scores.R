# The evaluation functions of IDR predictions (R/idr-scores.R): cdf(),
# qpred(), crps(), pit(), bscore() and qscore() against their definitions,
# at the ends of the doubles, their dimnames and bad arguments.

# CRPS of a step CDF (value g[k] on [t_k, t_{k+1}), 0 below t_1, 1 from t_K)
# at y: the integral, one interval at a time.
crps_brute <- function(t, g, y) {
  K <- length(t)
  s <- if (y < t[1]) t[1] - y else 0
  if (y > t[K]) s <- s + y - t[K]
  for (k in seq_len(K - 1L)) {
    a <- t[k]; b <- t[k + 1L]
    cut <- max(a, min(b, y)) # the indicator 1{z >= y} is 1 on [cut, b)
    s <- s + (cut - a) * g[k]^2 + (b - cut) * (1 - g[k])^2
  }
  s
}

# The CRPS of the step CDF (g[k] on [t_k, t_{k+1}), 0 below, 1 from t_K) at
# y, in bigq: the exact integral of the doubles as they are.
crps_q <- function(t, g, y) {
  tq <- lapply(t, gmp::as.bigq); gq <- lapply(g, gmp::as.bigq); yq <- gmp::as.bigq(y)
  K <- length(t)
  s <- gmp::as.bigq(0)
  if (y < t[1]) s <- s + tq[[1]] - yq
  if (y > t[K]) s <- s + yq - tq[[K]]
  for (k in seq_len(K - 1L)) {
    a <- tq[[k]]; b <- tq[[k + 1L]]
    cut <- if (yq <= a) a else if (yq >= b) b else yq
    s <- s + (cut - a) * gq[[k]]^2 + (b - cut) * (1 - gq[[k]])^2
  }
  s
}

test_that("cdf() is the step function between thresholds", {
  fit <- idr(c(3, 1, 2), c(1, 2, 3))
  p <- predict(fit, c(1, 3))
  expect_equal(unname(cdf(p, c(-Inf, 0.5, 1, 1.5, 2, 2.99, 3, 10, Inf))),
               rbind(c(0, 0, 0.5, 0.5, 2 / 3, 2 / 3, 1, 1, 1),
                     c(0, 0, 0, 0, 2 / 3, 2 / 3, 1, 1, 1)))
})

test_that("crps() equals the integral of the squared difference", {
  d <- random_idr_data(500, 7)
  for (w in list(NULL, d$w)) {
    fit <- idr(d$y, d$x, weights = w)
    t <- fit$thresholds
    set.seed(8)
    xnew <- c(runif(60, -1, 11), fit$x[1:5])
    ynew <- c(round(rgamma(60, 3), 1), t[1] - 1, t[length(t)] + 2, t[2],
              (t[2] + t[3]) / 2, t[length(t)])
    p <- predict(fit, xnew)
    G <- cdf(p, t)
    brute <- vapply(seq_along(ynew), function(i) crps_brute(t, G[i, ], ynew[i]), 0)
    expect_close(crps(p, ynew), brute, tol = 1e-10)
    # y recycled
    expect_close(crps(p, 2), vapply(seq_along(ynew), function(i) crps_brute(t, G[i, ], 2), 0),
                 tol = 1e-10)
  }
  # against numerical integration of the predictive CDF, independently
  fit <- idr(c(3, 1, 2, 5, 4), c(1, 2, 3, 4, 4))
  p <- predict(fit, 2.3)
  Fz <- function(z) cdf(p, z)[1, ]
  for (y0 in c(0.5, 1, 2.5, 4.2, 7)) {
    brk <- sort(unique(c(0, fit$thresholds, y0, 8)))
    num <- sum(vapply(seq_len(length(brk) - 1), function(i) {
      stats::integrate(function(z) (Fz(z) - (z >= y0))^2, brk[i], brk[i + 1],
                       rel.tol = 1e-12, subdivisions = 200L)$value
    }, 0))
    expect_equal(crps(p, y0), num, tolerance = 1e-8)
  }
  # in-sample: crps(fit) uses the fit's observations
  expect_equal(crps(fit), crps(predict(fit), c(3, 1, 2, 5, 4)))
})

test_that("qpred() is the generalised inverse of cdf()", {
  d <- random_idr_data(400, 10)
  fit <- idr(d$y, d$x, weights = d$w)
  t <- fit$thresholds
  p <- predict(fit, c(-1, 0.33, 4, 7.77, 20))
  a <- c(0, 0.001, 0.1, 0.25, 0.5, 0.9, 0.999, 1)
  q <- qpred(p, a)
  G <- cdf(p, t)
  ref <- t(vapply(seq_len(nrow(G)), function(i) {
    vapply(a, function(al) t[which(if (al > 0) G[i, ] >= al else G[i, ] > 0)[1]], 0)
  }, numeric(length(a))))
  expect_identical(unname(q), ref)
  # F(q(a)) >= a, and F just below q(a) is < a
  Fq <- t(vapply(seq_len(nrow(q)), function(i) cdf(p[i], q[i, ])[1, ], numeric(length(a))))
  expect_true(all(Fq >= matrix(a, nrow(q), length(a), byrow = TRUE)))
  # qscore from its definition
  y0 <- c(1, 2, 3, 4, 5)
  expect_equal(qscore(p, a, y0),
               2 * ((q > y0) - matrix(a, 5, length(a), byrow = TRUE)) * (q - y0))
})

test_that("pit() and bscore() follow their definitions", {
  d <- random_idr_data(400, 11)
  fit <- idr(d$y, d$x)
  t <- fit$thresholds
  p <- predict(fit, c(0.5, 3, 6, 9))
  g1 <- cdf(p[1], t)[1, ]
  jump <- t[which(diff(g1) > 0)[1] + 1] # a threshold where the first CDF jumps
  y0 <- c(jump, (t[7] + t[8]) / 2, t[1] - 1, t[length(t)] + 1)
  Fy <- diag(cdf(p, y0))
  expect_equal(pit(p, y0, randomize = FALSE), Fy)
  # randomised: between the left limit and the value, reproducible by seed
  Fl <- diag(cdf(p, y0 - 1e-9))
  r1 <- pit(p, y0, seed = 42)
  expect_identical(r1, pit(p, y0, seed = 42))
  expect_true(all(r1 >= Fl & r1 <= Fy))
  set.seed(42)
  u <- runif(1)
  expect_equal(r1[1], Fl[1] + u * (Fy[1] - Fl[1])) # only the first is at a jump
  expect_equal(r1[2:4], Fy[2:4])
  # in-sample randomised PIT is roughly uniform
  pv <- pit(fit, seed = 1)
  expect_length(pv, 400)
  expect_true(abs(mean(pv) - 0.5) < 0.05)
  z <- c(1, 2.5, 4)
  expect_equal(bscore(p, z, y0), (cdf(p, z) - outer(y0, z, "<="))^2)
  expect_equal(bscore(p, z, 2), (cdf(p, z) - outer(rep(2, 4), z, "<="))^2)
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

test_that("scores with outcomes and thresholds at +-DBL_MAX: finite, right, or a classed overflow error", {
  skip_if_not_installed("gmp")
  fit <- idr(c(-big, 1e308, -1.7e308, 1.79e308, 0, tiny), c(1, 2, 3, 4, 5, 6),
             weights = c(1e-300, 1, tiny, 1e308, 3, 1e-10))
  t <- fit$thresholds
  xnew <- c(1, 2.5, 3.7, 5, 6, 4)
  p <- predict(fit, xnew, interpolation = "linear")
  G <- unname(cdf(p, t))
  for (yv in list(c(0, -1e308, 1e307, tiny, 5, 1.79e308), rep(-1e307, 6), rep(1e300, 6))) {
    ref <- do.call(c, lapply(seq_along(xnew), function(i) crps_q(t, G[i, ], yv[i])))
    spread <- max(t, yv) - min(t, yv)
    if (is.infinite(spread)) spread <- big
    ref_d <- q_to_double(ref)
    if (any(is.infinite(ref_d))) {
      expect_error(crps(p, yv), class = "gpuiso_error_overflow")
      next
    }
    s <- crps(p, yv)
    expect_true(all(is.finite(s)) && all(s >= 0))
    expect_lte(max(abs(s - ref_d)), 1e-12 * spread)
  }
  # a CRPS beyond DBL_MAX: a point mass at DBL_MAX scored at -DBL_MAX
  pm <- predict(idr(c(-big, big), c(1, 2)), 2)
  expect_error(crps(pm, -big), class = "gpuiso_error_overflow")
  expect_identical(crps(pm, big), 0)
  expect_identical(crps(pm, 0), big)
  # cdf, qpred, pit and the Brier score at the ends
  expect_identical(unname(cdf(pm, c(-big, 0, big))), matrix(c(0, 0, 1), 1))
  expect_identical(unname(qpred(pm, c(0, 0.5, 1))), matrix(c(big, big, big), 1))
  expect_identical(unname(pit(pm, big, randomize = FALSE)), 1)
  expect_identical(unname(bscore(pm, big, -big)), matrix(0, 1))
  # quantile scores whose q - y overflows, and one beyond DBL_MAX
  p2 <- predict(idr(c(-big, big), c(1, 2)), c(1, 2)) # point masses at -+DBL_MAX
  expect_identical(unname(qscore(p2[1], 0.25, big)), matrix(big, 1))
  expect_equal(unname(qscore(p2[1], 0.1, big)), matrix(0.4 * big, 1), tolerance = 1e-15)
  expect_equal(unname(qscore(p2[2], 0.9, -big)), matrix(0.4 * big, 1), tolerance = 1e-15)
  expect_identical(unname(qscore(p2, 0.5, c(0, 0))), matrix(c(big, big), 2))
  expect_error(qscore(p2[1], 0.5, big), class = "gpuiso_error_overflow")
})

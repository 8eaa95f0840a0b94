# idr(): the threshold sweep against per-threshold antitonic fits, the
# representation, predict() and the evaluation functions against their
# definitions.

# The fit at every threshold, one column per threshold, one row per distinct
# x, built independently: per threshold, the pooled indicators c / W and an
# antitonic fit by isotonic().
idr_reference <- function(y, x, w = NULL, thresholds) {
  if (is.null(w)) w <- rep(1, length(y))
  keep <- w > 0
  y <- y[keep]; x <- x[keep]; w <- w[keep]
  f <- factor(x, sort(unique(x)))
  W <- as.vector(tapply(w, f, sum))
  vapply(thresholds, function(t) {
    cnt <- as.vector(tapply(w * (y <= t), f, sum))
    isotonic(cnt / W, weights = W, decreasing = TRUE, device = "cpu")
  }, numeric(nlevels(f)))
}

# The blocks expanded into an m x K matrix (for small fits only).
idr_dense <- function(fit) {
  m <- length(fit$x)
  matrix(vapply(seq_along(fit$thresholds), function(k) {
    b <- seq.int(fit$ptr[k] + 1, fit$ptr[k + 1])
    fit$value[b][findInterval(seq_len(m) - 1L, fit$start[b])]
  }, numeric(m)), nrow = m)
}

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

random_idr_data <- function(n, seed) {
  set.seed(seed)
  x <- sample(round(runif(n %/% 4, 0, 10), 1), n, replace = TRUE) # ties in x
  y <- round(rgamma(n, shape = 1 + x / 3), 1)                     # ties in y
  list(x = x, y = y, w = runif(n, 0.2, 3))
}

test_that("the sweep agrees with an antitonic fit per threshold", {
  for (seed in 1:3) {
    d <- random_idr_data(400, seed)
    fit <- idr(d$y, d$x, device = "cpu")
    expect_identical(fit$thresholds, sort(unique(d$y)))
    expect_identical(fit$x, sort(unique(d$x)))
    expect_close(idr_dense(fit), idr_reference(d$y, d$x, NULL, fit$thresholds),
                 label = "unweighted")
    fitw <- idr(d$y, d$x, weights = d$w)
    expect_close(idr_dense(fitw), idr_reference(d$y, d$x, d$w, fitw$thresholds),
                 label = "weighted")
    expect_equal(fitw$weight, as.vector(tapply(d$w, d$x, sum)))
    # a user grid, partly outside the data: max(y) is appended
    grid <- c(5, -1, 2.5, 1, 2.5)
    fitg <- idr(d$y, d$x, weights = d$w, thresholds = grid)
    expect_identical(fitg$thresholds, c(-1, 1, 2.5, 5, max(d$y)))
    expect_close(idr_dense(fitg), idr_reference(d$y, d$x, d$w, fitg$thresholds),
                 label = "grid")
  }
  # continuous data, no ties; a grid above max(y) keeps its thresholds
  set.seed(9)
  x <- runif(300); y <- rnorm(300, 2 * x)
  fit <- idr(y, x, thresholds = c(0, 10))
  expect_identical(fit$thresholds, c(0, 10))
  expect_close(idr_dense(fit), idr_reference(y, x, NULL, c(0, 10)))
  fit <- idr(y, x)
  expect_close(idr_dense(fit), idr_reference(y, x, NULL, fit$thresholds))
})

test_that("hand-checked small fits", {
  # x = 1, 2, 3 with y = 3, 1, 2: at t = 1 the indicators (0, 1, 0) pool to
  # (1/2, 1/2, 0); at t = 2, (0, 1, 1) must not increase: one block of 2/3
  fit <- idr(c(3, 1, 2), c(1, 2, 3))
  expect_equal(fit$thresholds, c(1, 2, 3))
  expect_equal(idr_dense(fit), cbind(c(0.5, 0.5, 0), c(2, 2, 2) / 3, c(1, 1, 1)))
  expect_equal(fit$ptr, c(0, 2, 3, 4))
  expect_identical(fit$start, c(0L, 2L, 0L, 0L))
  # a monotone sample: each CDF a step at its own y
  fit <- idr(c(1, 2, 3), c(1, 2, 3))
  expect_equal(idr_dense(fit), cbind(c(1, 0, 0), c(1, 1, 0), c(1, 1, 1)))
  # tied x are pooled; weights count as repetitions
  fit <- idr(c(1, 3, 2, 2), c(1, 1, 2, 2), weights = c(1, 3, 1, 1))
  expect_equal(fit$weight, c(4, 2))
  # at t = 2, (1/4 with weight 4, 1 with weight 2) pools to (1 + 2) / 6
  expect_equal(idr_dense(fit), cbind(c(1 / 4, 0), c(1 / 2, 1 / 2), c(1, 1)))
  fit2 <- idr(c(1, 3, 2, 2, 3, 3), c(1, 1, 2, 2, 1, 1))
  expect_equal(idr_dense(fit2), idr_dense(fit))
  # one distinct x: the empirical CDF
  fit <- idr(c(2, 1, 2, 5), rep(7, 4))
  expect_equal(as.vector(idr_dense(fit)), c(1, 3, 4) / 4)
  # one observation
  fit <- idr(3, 1)
  expect_equal(fit$value, 1)
  expect_equal(cdf(predict(fit, 0), c(2, 3)),
               matrix(c(0, 1), 1, dimnames = list(NULL, c("2", "3"))))
})

test_that("CDFs are non-decreasing in the threshold, non-increasing in x, and reach 1", {
  d <- random_idr_data(2000, 4)
  for (w in list(NULL, d$w)) {
    fit <- idr(d$y, d$x, weights = w)
    D <- idr_dense(fit)
    expect_true(all(D[, -1] - D[, -ncol(D)] >= -1e-14))
    expect_true(all(D[-1, ] - D[-nrow(D), ] <= 0))
    expect_true(all(D[, ncol(D)] == 1))
    expect_true(all(D >= 0 & D <= 1))
    # blocks within a threshold: starts increasing from 0, values decreasing
    for (k in seq_along(fit$thresholds)) {
      b <- seq.int(fit$ptr[k] + 1, fit$ptr[k + 1])
      expect_identical(fit$start[b[1]], 0L)
      expect_false(is.unsorted(fit$start[b], strictly = TRUE))
      expect_true(all(diff(fit$value[b]) < 0))
    }
  }
  expect_type(fit$start, "integer")
  expect_type(fit$ptr, "double")
  expect_s3_class(fit, "gpuiso_idr")
})

test_that("zero weights leave observations out of the fit", {
  d <- random_idr_data(300, 5)
  w <- d$w
  w[c(3, 50, 51)] <- 0
  fit <- idr(d$y, d$x, weights = w)
  keep <- w > 0
  ref <- idr(d$y[keep], d$x[keep], weights = w[keep])
  expect_equal(fit[c("x", "thresholds", "ptr", "start", "value")],
               ref[c("x", "thresholds", "ptr", "start", "value")])
  expect_equal(fit$n, 300)
  expect_length(predict(fit), 300)
})

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

test_that("inputs are not modified", {
  d <- random_idr_data(200, 12)
  y <- d$y; x <- d$x; w <- d$w
  y0 <- y + 0; x0 <- x + 0; w0 <- w + 0
  fit <- idr(y, x, weights = w, thresholds = c(3, 1, 2))
  p <- predict(fit, x)
  invisible(crps(p, y)); invisible(pit(p, y)); invisible(qpred(p, 0.5))
  expect_identical(y, y0)
  expect_identical(x, x0)
  expect_identical(w, w0)
})

test_that("bad input is a classed error naming the argument and position", {
  e <- function(expr, re) expect_error(expr, re, class = "gpuiso_error_input")
  # missing values are an error with na.fail (na.omit drops them: test-idr-front.R)
  e(idr(c(1, NA, 3), 1:3, na.action = na.fail), "`y` has missing values \\(element 2 is NA\\)")
  e(idr(c(1, 2, Inf), 1:3), "`y`.*element 3 is Inf")
  e(idr(1:3, c(1, NaN, 3), na.action = na.fail), "`X`.*element 2 is NaN")
  e(idr(1:3, data.frame(a = c(1, 2, NA)), na.action = "na.fail"), "`X`.*element 3 is NA")
  e(idr(c(1, Inf, NA), 1:3), "`y` must be finite: element 2 is Inf")
  e(idr(c(1, 2, NA), 1:3, na.action = na.pass), "`y` must be finite: element 3 is NA")
  e(idr(1:3, 1:4), "`y` and `X` must have the same length")
  e(idr(1:3, data.frame(a = 1:3, b = 1:3)), "`X` must have one column: it has 2")
  e(idr(1:3, cbind(1:3, 1:3)), "`X` must have one column")
  e(idr(1:3, c("a", "b", "c")), "`X`.*numeric.*character")
  e(idr(letters[1:3], 1:3), "`y`.*numeric.*character")
  e(idr(1:3, factor(1:3)), "`X` must be numeric, not a factor")
  e(idr(numeric(), numeric()), "`y` must not be empty")
  e(idr(1:3, 1:3, weights = c(1, -1, 1)), "`weights`.*non-negative.*element 2")
  e(idr(1:3, 1:3, weights = c(1, 1, NA), na.action = na.fail), "`weights`.*element 3 is NA")
  e(idr(1:3, 1:3, weights = c(NA, -1, 1)), "`weights`.*non-negative.*element 2")
  e(idr(1:3, 1:3, weights = c(0, 0, 0)), "`weights` must not all be zero")
  e(idr(1:3, 1:3, weights = 1:2), "`weights` and `y` must have the same length")
  e(idr(1:3, 1:3, thresholds = c(1, NA)), "`thresholds`.*element 2 is NA")
  e(idr(1:3, 1:3, thresholds = numeric()), "`thresholds` must not be empty")
  e(idr(1:3, 1:3, thresholds = "a"), "`thresholds`.*numeric")
  e(idr(1:3, 1:3, device = "tpu"), "`device`")
  fit <- idr(c(3, 1, 2), c(1, 2, 3))
  p <- predict(fit, 1:2)
  e(predict(fit, data.frame(a = 1, b = 2)), "`newdata` must have a column `x`")
  e(cdf(1:3, 1), "`predictions`")
  e(cdf(p, c(1, NA)), "`thresholds`.*element 2 is NA")
  e(qpred(p, c(0.5, 1.5)), "`quantiles`.*\\[0, 1\\].*element 2 is 1.5")
  e(qpred(p, NA), "`quantiles`.*element 1 is NA")
  e(crps(p, 1:3), "`y` must have length 1 or the same length as the predictions \\(2\\)")
  e(crps(p, c(1, Inf)), "`y`.*element 2 is Inf")
  e(crps(p), "`y` is missing")
  e(pit(p, 1), "`y` must have the same length as the predictions")
  e(pit(p, 1:2, randomize = NA), "`randomize`")
  e(bscore(p, 1, c(1, 2, 3)), "`y`")
  e(qscore(p, 2, 1), "`quantiles`")
  e(p[[5]], "index")
  e(pit_hist(c(0.5, 2)), "`pit`")
})

test_that("device = 'auto' fits small data on the CPU; 'gpu' without a GPU is a classed error", {
  expect_identical(idr(c(3, 1, 2), 1:3, device = "auto")$device, "cpu")
  skip_if(gpu_available())
  expect_error(idr(c(3, 1, 2), 1:3, device = "gpu"), class = "gpuiso_error_device",
               regexp = "not available")
})

test_that("idr() on the GPU equals the CPU sweep and the per-threshold reference", {
  skip_if_not(gpu_available())
  set.seed(21)
  cases <- list(
    list(n = 300, xties = TRUE, yties = TRUE, w = FALSE, grid = NULL),
    list(n = 300, xties = TRUE, yties = FALSE, w = TRUE, grid = NULL),
    list(n = 500, xties = FALSE, yties = TRUE, w = TRUE, grid = seq(0, 8, by = 0.5)),
    list(n = 1, xties = FALSE, yties = FALSE, w = FALSE, grid = NULL),
    list(n = 50, xties = TRUE, yties = TRUE, w = FALSE, grid = NULL, onex = TRUE))
  for (cs in cases) {
    x <- if (cs$xties) sample(round(runif(cs$n, 0, 10), 1)) else runif(cs$n, 0, 10)
    if (isTRUE(cs$onex)) x <- rep(2, cs$n)
    y <- rgamma(cs$n, shape = 1 + x / 3)
    if (cs$yties) y <- round(y, 1)
    # weights in quarters: their plain double sums are exact, which the
    # GPU path needs (others are fitted on the CPU: below)
    w <- if (cs$w) sample(1:8, cs$n, replace = TRUE) / 4 else NULL
    x0 <- x; y0 <- y; w0 <- w
    g <- idr(y, x, weights = w, thresholds = cs$grid, device = "gpu")
    c <- idr(y, x, weights = w, thresholds = cs$grid, device = "cpu")
    expect_identical(g$device, "gpu")
    expect_identical(g$ptr, c$ptr)
    expect_identical(g$start, c$start)
    expect_equal(g$value, c$value, tolerance = 1e-12)
    for (k in seq_along(g$thresholds)) {
      b <- seq.int(g$ptr[k] + 1, g$ptr[k + 1])
      expect_identical(g$start[b[1]], 0L)
      expect_false(is.unsorted(g$start[b], strictly = TRUE))
      expect_true(all(diff(g$value[b]) < 0))
    }
    expect_equal(idr_dense(g), idr_dense(c), tolerance = 1e-12)
    expect_true(all(idr_dense(g)[, length(g$thresholds)] == 1))
    expect_equal(idr_dense(g), idr_reference(y, x, w, g$thresholds),
                 tolerance = 1e-12, ignore_attr = TRUE)
    expect_identical(x, x0); expect_identical(y, y0); expect_identical(w, w0)
  }
  # weights whose sums are not exact in doubles go to the CPU, whatever
  # device was asked for, and give the CPU's fit
  x <- runif(300, 0, 10)
  y <- rgamma(300, shape = 1 + x / 3)
  w <- runif(300, 0.2, 2)
  g <- idr(y, x, weights = w, device = "gpu")
  expect_identical(g$device, "cpu")
  expect_identical(g[c("ptr", "start", "value")],
                   idr(y, x, weights = w, device = "cpu")[c("ptr", "start", "value")])
  # continuous data over several slabs of thresholds, and in-sample scores
  n <- 20000
  x <- runif(n, 0, 10)
  y <- rgamma(n, shape = 1 + x / 3)
  g <- idr(y, x, device = "gpu")
  c <- idr(y, x, device = "cpu")
  expect_identical(g$ptr, c$ptr)
  expect_identical(g$start, c$start)
  expect_equal(g$value, c$value, tolerance = 1e-12)
  expect_equal(crps(predict(g), y), crps(predict(c), y), tolerance = 1e-12)
  on.exit(full_device(FALSE), add = TRUE)
  full_device(TRUE)
  expect_error(idr(y, x, device = "gpu"), class = "gpuiso_error_device",
               regexp = "out of memory")
  expect_identical(gpu_info()$workspace, 0)
})

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

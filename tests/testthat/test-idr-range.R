# idr(), its scores, iso_calibrate() and reliability_diagram() over the
# whole range of doubles: weights from the smallest subnormal to DBL_MAX in
# any mix, covariates, outcomes and thresholds at +-DBL_MAX. References in
# exact rational arithmetic ('gmp'), rounded to the nearest double.

big <- .Machine$double.xmax
tiny <- 2^-1074 # 5e-324

# The double nearest to each element of a bigq vector (ties to even), +-Inf
# beyond the range: independent of C's and gmp's own conversions (mpq_get_d
# truncates).
q_to_double <- function(q) {
  vapply(seq_along(q), function(i) q1_to_double(q[i]), 0)
}
q1_to_double <- function(q) {
  if (q == 0) return(0)
  neg <- q < 0
  if (neg) q <- -q
  two <- gmp::as.bigq(2)
  e <- gmp::sizeinbase(gmp::numerator(q), 2) - gmp::sizeinbase(gmp::denominator(q), 2)
  while (q >= two^e) e <- e + 1
  while (q < two^(e - 1)) e <- e - 1 # now 2^(e-1) <= q < 2^e
  t <- max(e - 53, -1074)            # the spacing of the doubles there
  N <- q / two^t
  K <- gmp::as.bigz(floor(N))
  r <- N - K
  half <- gmp::as.bigq(1, 2)
  if (r > half || (r == half && as.integer(K %% 2) == 1L)) K <- K + 1
  v <- as.double(K) * 2^t # exact: K <= 2^53, the product on the grid
  if (neg) -v else v
}

# Antitonic (non-increasing) weighted least squares in bigq: pool adjacent
# violators on values v with weights w (lists of bigq scalars).
antitonic_q <- function(v, w) {
  num <- list(); den <- list(); len <- integer(0)
  for (i in seq_along(v)) {
    num[[length(num) + 1L]] <- v[[i]] * w[[i]]
    den[[length(den) + 1L]] <- w[[i]]
    len <- c(len, 1L)
    while (length(len) >= 2L) {
      b <- length(len)
      if (num[[b - 1L]] / den[[b - 1L]] >= num[[b]] / den[[b]]) break
      num[[b - 1L]] <- num[[b - 1L]] + num[[b]]
      den[[b - 1L]] <- den[[b - 1L]] + den[[b]]
      len[b - 1L] <- len[b - 1L] + len[b]
      num[[b]] <- NULL; den[[b]] <- NULL; len <- len[-b]
    }
  }
  rep(lapply(seq_along(len), function(b) num[[b]] / den[[b]]), len)
}

# The exact IDR fit, rounded: one row per distinct x of positive weight, one
# column per distinct y, and the exact summed weight per x (bigq list).
idr_exact <- function(y, x, w) {
  keep <- w > 0
  y <- y[keep]; x <- x[keep]; w <- w[keep]
  xu <- sort(unique(x)); t <- sort(unique(y))
  wq <- lapply(w, gmp::as.bigq)
  qsum <- function(idx) Reduce(`+`, wq[idx], gmp::as.bigq(0))
  W <- lapply(xu, function(v) qsum(which(x == v)))
  vals <- vapply(t, function(tk) {
    c_ <- lapply(xu, function(v) qsum(which(x == v & y <= tk)))
    fit <- antitonic_q(Map(`/`, c_, W), W)
    q_to_double(do.call(c, fit))
  }, numeric(length(xu)))
  list(F = matrix(vals, nrow = length(xu)), W = W, x = xu, t = t)
}

# The fit's CDFs at its own covariate values and thresholds.
idr_matrix_of <- function(fit) {
  unname(cdf(predict(fit, fit$x), fit$thresholds))
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

test_that("the reference rounding is correct to the last bit", {
  skip_if_not_installed("gmp")
  for (v in c(0.1, 1 / 3, tiny, 3 * tiny, 2^-1022, big, 1e308, 0.5 + 2^-53, 1)) {
    expect_identical(q1_to_double(gmp::as.bigq(v)), v)
  }
  # halfway cases: ties to even
  expect_identical(q1_to_double(gmp::as.bigq(1) + gmp::as.bigq(1, 2)^53), 1)
  expect_identical(q1_to_double(gmp::as.bigq(1) + 3 * gmp::as.bigq(1, 2)^53), 1 + 2^-51)
  expect_identical(q1_to_double(gmp::as.bigq(tiny) / 2), 0)
  expect_identical(q1_to_double(gmp::as.bigq(tiny) * 3 / 2), 2 * tiny)
  expect_identical(q1_to_double(gmp::as.bigq(big) * 2), Inf)
})

test_that("idr() with weights at the ends of the range: the known failures", {
  # weights of 1e308: the fit of unit weights (their sums overflowed before)
  f <- idr(1:4, 1:4, weights = rep(1e308, 4))
  f1 <- idr(1:4, 1:4)
  expect_identical(f$value, f1$value)
  expect_identical(f$weight, rep(1e308, 4))
  # weights of 1e-200 (cross products underflowed) and of 5e-324
  set.seed(11)
  y <- round(rnorm(40), 1); x <- sample(1:8, 40, replace = TRUE)
  ref <- idr(y, x)
  for (w0 in c(1e-200, tiny, 1e306, big / 40)) {
    f <- idr(y, x, weights = rep(w0, 40))
    expect_identical(f$value, ref$value, info = format(w0))
    expect_identical(f$start, ref$start, info = format(w0))
  }
  # equal weights at one x summing beyond DBL_MAX: a classed overflow error
  expect_error(idr(c(1, 2, 3), c(1, 1, 2), weights = rep(1e308, 3)),
               class = "gpuiso_error_overflow")
})

test_that("idr() equals exact rational arithmetic for weights, covariates and outcomes across the range", {
  skip_if_not_installed("gmp")
  wpool <- c(tiny, 3 * tiny, 1e-310, 2^-1022, 1e-300, 1e-200, 2^-600, 0.1, 1, 3, 7,
             1e100, 2^600, 1e300, 1e308, big / 4, big)
  vpool <- c(-big, -1e308, -1e300, -1, -tiny, 0, tiny, 0.5, 1, 1e300, 1e308, big)
  checked <- 0L
  errors <- 0L
  for (seed in 1:150) {
    set.seed(seed)
    n <- sample(2:8, 1)
    x <- sample(vpool, n, replace = TRUE)
    y <- sample(vpool, n, replace = TRUE)
    # a mix of weights: from the pool, integers (the double sweep), or
    # scaled copies of one value
    w <- switch(seed %% 3 + 1,
                sample(wpool, n, replace = TRUE),
                sample(1:5, n, replace = TRUE) * sample(wpool, 1),
                runif(n) * sample(wpool, 1))
    w[w == 0] <- tiny
    w[w > big] <- big
    ex <- idr_exact(y, x, w)
    overflow <- any(is.infinite(q_to_double(do.call(c, ex$W))))
    if (overflow) {
      expect_error(idr(y, x, weights = w), class = "gpuiso_error_overflow",
                   info = paste("seed", seed))
      errors <- errors + 1L
      next
    }
    fit <- idr(y, x, weights = w)
    expect_identical(fit$x, ex$x)
    expect_identical(fit$thresholds, ex$t)
    expect_identical(idr_matrix_of(fit), ex$F, info = paste("seed", seed))
    expect_identical(fit$weight, q_to_double(do.call(c, ex$W)), info = paste("seed", seed))
    # the blocks are the runs of equal values, and the CDFs are monotone
    v <- split(fit$value, rep(seq_along(ex$t), diff(fit$ptr)))
    expect_true(all(vapply(v, function(z) all(diff(z) < 0), NA)))
    checked <- checked + 1L
  }
  expect_gt(checked, 100L)
})

test_that("idr() is exact for weights spread over 60 to 2000 bits (each width of its sums)", {
  skip_if_not_installed("gmp")
  # 53-bit mantissas times powers of two: sums of 2, 4, 8, 16 and 34 limbs
  for (spread in c(20, 70, 150, 400, 900, 2000)) {
    for (seed in 1:6) {
      set.seed(1000 * spread + seed)
      n <- sample(4:9, 1)
      x <- sample(1:4, n, replace = TRUE)
      y <- sample(1:5, n, replace = TRUE)
      k <- sample(c(0, spread), n, replace = TRUE) - spread %/% 2
      w <- (1 + runif(n)) * (1 + runif(n) * 2^-30) * 2^pmax(k, -1073)
      ex <- idr_exact(y, x, w)
      fit <- idr(y, x, weights = w)
      expect_identical(idr_matrix_of(fit), ex$F, info = paste(spread, seed))
      expect_identical(fit$weight, q_to_double(do.call(c, ex$W)), info = paste(spread, seed))
    }
  }
})

test_that("scaling every weight by a power of two leaves the fit unchanged", {
  set.seed(5)
  n <- 300
  x <- sample(round(runif(60), 2), n, replace = TRUE)
  y <- round(rgamma(n, 2 + 4 * x), 1)
  w <- runif(n, 0.5, 2) * 2^sample(-40:40, n, replace = TRUE)
  ref <- idr(y, x, weights = w)
  # (w within 2^-41 .. 2^41: w 2^k stays a normal double, exactly)
  for (k in c(-980, -500, 500, 980)) {
    f <- idr(y, x, weights = w * 2^k)
    expect_identical(f$value, ref$value, info = k)
    expect_identical(f$ptr, ref$ptr, info = k)
  }
  # the same, with weights of full 53-bit mantissas (the double-double sweep)
  w <- w * (1 + runif(n) * 2^-30)
  ref <- idr(y, x, weights = w)
  for (k in c(-980, 980)) {
    expect_identical(idr(y, x, weights = w * 2^k)$value, ref$value, info = k)
  }
})

test_that("a tiny weight alone in a block keeps its own value", {
  skip_if_not_installed("gmp")
  # x = 2 weighs 2^-1000 of x = 1: at y <= 1 the indicators are 0, 1, 0
  # (x = 1, 2, 3): x = 1 and 2 pool to a share of about 2^-1000, which is
  # a double; x = 3 stays 0
  w <- c(1, 2^-1000, 1)
  f <- idr(c(2, 1, 2), 1:3, weights = w)
  expect_identical(idr_matrix_of(f)[, 1], c(2^-1000 / (1 + 2^-1000), 2^-1000 / (1 + 2^-1000), 0))
  # weights whose cross products underflow
  w <- c(1e-160, 1e-170, 1e-160)
  share <- q1_to_double(gmp::as.bigq(w[2]) / (gmp::as.bigq(w[1]) + gmp::as.bigq(w[2])))
  f <- idr(c(2, 1, 2), 1:3, weights = w)
  expect_identical(idr_matrix_of(f)[, 1], c(share, share, 0))
  # a subnormal share rounds to the nearest subnormal
  f <- idr(c(2, 1, 2), 1:3, weights = c(1, 3 * tiny, 1))
  expect_identical(idr_matrix_of(f)[, 1], c(3 * tiny, 3 * tiny, 0))
  f <- idr(c(2, 1, 2), 1:3, weights = c(4, 3 * tiny, 1))
  expect_identical(idr_matrix_of(f)[, 1], c(tiny, tiny, 0)) # 3/4 of 2^-1074
  # DBL_MAX beside 5e-324: the share of the tiny weight is below every double
  f <- idr(c(1, 3, 2, 4), 1:4, weights = c(tiny, big, tiny, 1))
  expect_identical(idr_matrix_of(f), rbind(c(1, 1, 1, 1), c(0, 0, 1, 1),
                                           c(0, 0, 1, 1), c(0, 0, 0, 1)))
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

test_that("pooled tied scores: exact sums and correctly rounded means for any weights", {
  skip_if_not_installed("gmp")
  pool <- function(s, y, w) gpuiso:::pool_scores(as.double(s), as.double(y), w, NULL)
  check <- function(s, y, w, info) {
    p <- pool(s, y, w)
    for (r in seq_along(p$score)) {
      i <- which(s == p$score[r])
      wq <- if (is.null(w)) lapply(rep(1, length(i)), gmp::as.bigq) else lapply(w[i], gmp::as.bigq)
      W <- Reduce(`+`, wq)
      S <- Reduce(`+`, Map(function(a, b) a * gmp::as.bigq(b), wq, y[i]))
      expect_identical(p$weight[r], q1_to_double(W), info = info)
      expect_identical(p$value[r], if (W > 0) q1_to_double(S / W) else 0, info = info)
    }
  }
  # a midpoint broken by a weight 2^-1100 of the others (fixed point)
  y <- c(0.5, 0.5 + 2^-53, 1)
  p <- pool(c(1, 1, 1), y, c(2^1000, 2^1000, 2^-100))
  expect_identical(p$value, 0.5 + 2^-53)
  p <- pool(c(1, 1), y[1:2], c(2^1000, 2^1000))
  expect_identical(p$value, 0.5) # the tie, to even
  check(c(1, 1, 1), y, c(2^1000, 2^1000, 2^-100), "midpoint")
  # random runs across the range
  wpool <- c(tiny, 1e-310, 1e-300, 1e-200, 0.1, 1, 3, 1e100, 1e300, 1e307)
  ypool <- c(0, tiny, 1e-310, 1e-300, 2^-60, 0.1, 1 / 3, 0.5, 1)
  for (seed in 1:60) {
    set.seed(seed)
    n <- sample(2:12, 1)
    s <- sample(1:3, n, replace = TRUE)
    y <- sample(ypool, n, replace = TRUE)
    w <- switch(seed %% 3 + 1, sample(wpool, n, replace = TRUE), NULL,
                runif(n) * sample(wpool, 1))
    check(s, y, w, paste("seed", seed))
  }
  # summed weights beyond DBL_MAX: a classed error from iso_calibrate()
  expect_error(iso_calibrate(c(0.1, 0.1, 0.2), c(0, 1, 1), weights = c(big, big, 1)),
               class = "gpuiso_error_overflow")
})

test_that("iso_calibrate() with extreme weights equals the same fit with weights scaled by a power of two", {
  set.seed(3)
  n <- 200
  s <- round(runif(n), 2)
  y <- rbinom(n, 1, s)
  w <- runif(n, 0.5, 2)
  ref <- iso_calibrate(s, y, weights = w, device = "cpu")$curves[[1]]
  # the isotonic engine takes the pooled points; weights at the ends of the
  # range need its exact arithmetic (issue 11): probe it
  probe <- function(fit, ref) isTRUE(tryCatch(all(fit() == ref), error = function(e) FALSE))
  engine_exact <- probe(function() isotonic(c(1, 2), weights = c(1e-162, 1e-162)), c(1, 2)) &&
    probe(function() isotonic(c(4, 2) * tiny, weights = c(1e308, 1e308)), 3 * tiny) &&
    probe(function() isotonic(c(1, 0, 2), weights = c(1e308, 1e308, 1e-300)), c(0.5, 0.5, 2))
  for (k in c(-1000, -600, -400, 400, 600, 1000)) {
    if (!engine_exact && abs(k) > 500) next
    cv <- iso_calibrate(s, y, weights = w * 2^k, device = "cpu")$curves[[1]]
    expect_identical(cv$value, ref$value, info = k)
    expect_identical(cv$weight, ref$weight * 2^k, info = k)
  }
  skip_if_not(engine_exact, "the isotonic engine is not exact at the ends of the range yet")
  skip_if_not_installed("gmp")
  # against exact arithmetic: the isotonic fit of the pooled points (exact
  # means, correctly rounded, as data), for weights across the range
  wpool <- c(tiny, 1e-300, 1e-200, 0.1, 1, 3, 1e100, 1e300, 1e308)
  for (seed in 1:40) {
    set.seed(seed)
    n <- sample(3:10, 1)
    s <- sample(1:5, n, replace = TRUE) / 10
    y <- sample(c(0, 1, 0.5, 0.1), n, replace = TRUE)
    w <- sample(wpool, n, replace = TRUE)
    if (length(unique(s)) < 2) next
    p <- gpuiso:::pool_scores(s, y, w, NULL)
    if (any(is.infinite(p$weight))) next
    fitq <- antitonic_q(rev(lapply(p$value, gmp::as.bigq)), rev(lapply(p$weight, gmp::as.bigq)))
    cv <- iso_calibrate(s, y, weights = w, device = "cpu")$curves[[1]]
    expect_identical(cv$value, rev(q_to_double(do.call(c, fitq))), info = paste("seed", seed))
  }
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

test_that("the GPU paths: equal extreme weights stay on the device, spread ones go to the CPU", {
  skip_if_not(gpu_available())
  set.seed(9)
  n <- 3000
  x <- sample(round(runif(300), 3), n, replace = TRUE)
  y <- round(rgamma(n, 2 + 3 * x), 1)
  ref <- idr(y, x, device = "cpu")
  dense <- function(f) unname(cdf(predict(f, f$x), f$thresholds))
  for (w0 in c(2^-700, 2^-1070, 2^1010)) {
    # the host scales the weights by a power of two: the unweighted fit
    g <- idr(y, x, weights = rep(w0, n), device = "gpu")
    expect_identical(g$device, "gpu")
    expect_equal(dense(g), dense(ref), tolerance = 1e-12)
  }
  # equal weights whose sums round in plain doubles: the CPU
  expect_identical(idr(y, x, weights = rep(1e-200, n), device = "gpu")$device, "cpu")
  # weights spread over more than 2^30: fitted on the CPU, exactly
  for (e in c(-1000, -40)) {
    w <- (1 + runif(n)) * 2^sample(c(e, 0), n, replace = TRUE)
    g <- idr(y, x, weights = w, device = "gpu")
    expect_identical(g$device, "cpu")
    expect_identical(g$value, idr(y, x, weights = w, device = "cpu")$value)
  }
  # whole-number weights stay on the device, others (sums not exact in
  # plain doubles) go to the CPU
  expect_identical(idr(y, x, weights = sample(1:5, n, TRUE), device = "gpu")$device, "gpu")
  w <- (1 + runif(n)) * 2^sample(c(-20, 0), n, replace = TRUE)
  expect_identical(idr(y, x, weights = w, device = "gpu")$device, "cpu")
  # calibration: such weights are pooled on the CPU, exactly (the fit runs
  # on the GPU)
  s <- round(runif(n), 2)
  o <- rbinom(n, 1, s)
  cg <- iso_calibrate(s, o, weights = w, device = "gpu")$curves[[1]]
  cc <- iso_calibrate(s, o, weights = w, device = "cpu")$curves[[1]]
  expect_identical(cg$score, cc$score)
  expect_identical(cg$weight, cc$weight)
  expect_equal(cg$value, cc$value, tolerance = 1e-12)
  # and weights of 1e308 on tied scores: an overflow error, not Inf
  expect_error(iso_calibrate(c(0.1, 0.1, 0.2, 0.3), c(0, 1, 1, 1), weights = rep(1e308, 4),
                             device = "gpu"), class = "gpuiso_error_overflow")
})

test_that("the GPU takes weights only where its plain double sums are exact", {
  exact <- gpuiso:::sums_exact_in_doubles
  expect_true(exact())
  expect_true(exact(weights = c(1, 2, 3)))
  expect_true(exact(weights = c(2^52, 2^52)))
  expect_true(exact(weights = c(5e-324, 1e-323, 0)))
  expect_true(exact(weights = rep(2^-700, 1000)))
  expect_false(exact(weights = rep(1e-200, 5)))   # full significands: 5 of them round
  expect_false(exact(weights = c(0.1, 0.2)))
  expect_false(exact(weights = c(1, 2^-60)))
  expect_false(exact(weights = c(2^52, 2^52, 1))) # the total needs 54 bits
  expect_true(exact(c(0, 1, 1)))
  expect_false(exact(c(0, 0.5)))
  expect_true(exact(c(0, 1), c(0.5, 0.25)))
  # what those sums are for: a plain double sum of the first is exact
  expect_identical(sum(rep(2^-700, 1000)), 1000 * 2^-700)
})

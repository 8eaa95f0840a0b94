# The resampled bands of reliability_diagram() (src/core/bands.c).

# The band by an R loop on the same resamples: each resample's draws from
# the C generator, its CORP fit by Iso::pava(), read at every forecast by
# stats::approx() and summarised by quantile(), as reliabilitydiag does.
band_reference <- function(p, y, band, level, resamples, seed) {
  r0 <- reliability_diagram(p, y, band = "none", device = "cpu")
  u <- r0$curve$forecast
  cnt <- r0$curve$count
  p0 <- if (band == "consistency") u else r0$curve$calibrated
  vals <- matrix(NA_real_, length(u), resamples)
  mcb <- numeric(resamples)
  for (b in seq_len(resamples)) {
    d <- .Call(gpuiso:::ffi_corp_resample, p0, cnt, length(p), seed, b - 1, FALSE)
    drawn <- d$count > 0
    f <- Iso::pava(d$events[drawn] / d$count[drawn], d$count[drawn])
    f <- pmin(pmax(f, 0), 1)
    vals[, b] <- if (sum(drawn) == 1L) ifelse(drawn, f, NA)
                 else stats::approx(u[drawn], f, xout = u)$y
    e <- d$events[drawn]
    c <- d$count[drawn]
    ud <- u[drawn]
    mcb[b] <- (sum(e * (1 - ud)^2 + (c - e) * ud^2) -
                 sum(e * (1 - f)^2 + (c - e) * f^2)) / length(p)
  }
  probs <- 0.5 + c(-0.5, 0.5) * level
  q <- apply(vals, 1L, stats::quantile, probs = probs, na.rm = TRUE, names = FALSE)
  list(lower = q[1L, ], upper = q[2L, ], mcb = mcb)
}

test_that("bands equal an R loop of refits on the same resamples", {
  skip_if_not_installed("Iso")
  set.seed(11)
  cases <- list(list(p = round(runif(300), 2), band = "consistency", level = 0.9, B = 40),
                list(p = runif(200), band = "consistency", level = 0.5, B = 25),
                list(p = round(runif(500)^2, 3), band = "confidence", level = 0.8, B = 33),
                list(p = c(0.2, 0.2, 0.7, 0.7, 0.7, 0.9), band = "confidence", level = 0.9, B = 7))
  for (k in seq_along(cases)) {
    cs <- cases[[k]]
    y <- rbinom(length(cs$p), 1, cs$p^1.3)
    set.seed(100 + k)
    seed <- runif(2)
    set.seed(100 + k)
    r <- reliability_diagram(cs$p, y, band = cs$band, level = cs$level,
                             resamples = cs$B, device = "cpu")
    ref <- band_reference(cs$p, y, cs$band, cs$level, cs$B, seed)
    expect_equal(r$band$forecast, r$curve$forecast)
    expect_equal(r$band$lower, ref$lower, tolerance = 1e-12, info = k)
    expect_equal(r$band$upper, ref$upper, tolerance = 1e-12, info = k)
    expect_true(all(r$band$lower <= r$band$upper, na.rm = TRUE), info = k)
    if (cs$band == "consistency") {
      expect_equal(r$p_value, mean(ref$mcb >= r$mcb - 1e-12), info = k)
    } else {
      expect_identical(r$p_value, NA_real_)
    }
  }
})

test_that("the draws are a bootstrap of the pairs with Bernoulli outcomes", {
  p0 <- c(0.1, 0.5, 0.9)
  cnt <- c(2, 5, 3)
  tot <- numeric(3)
  ev <- numeric(3)
  for (b in 0:1999) {
    d <- .Call(gpuiso:::ffi_corp_resample, p0, cnt, 10, c(0.25, 0.5), b, FALSE)
    expect_equal(sum(d$count), 10)
    expect_true(all(d$events <= d$count & d$events >= 0))
    tot <- tot + d$count
    ev <- ev + d$events
  }
  # each forecast is drawn in proportion to its count, each draw an event
  # with its probability (20,000 draws: within 5 standard errors)
  expect_lt(max(abs(tot / 20000 - cnt / 10) / sqrt(cnt / 10 * (1 - cnt / 10) / 20000)), 5)
  expect_lt(max(abs(ev / tot - p0) / sqrt(p0 * (1 - p0) / tot)), 5)
  # and a resample depends on its seed and index alone
  expect_identical(.Call(gpuiso:::ffi_corp_resample, p0, cnt, 10, c(0.25, 0.5), 7, FALSE),
                   .Call(gpuiso:::ffi_corp_resample, p0, cnt, 10, c(0.25, 0.5), 7, FALSE))
  expect_false(identical(.Call(gpuiso:::ffi_corp_resample, p0, cnt, 10, c(0.25, 0.5), 7, FALSE),
                         .Call(gpuiso:::ffi_corp_resample, p0, cnt, 10, c(0.25, 0.5), 8, FALSE)))
  # long resamples sort their draws into buckets before counting: the same
  # counts as counting in the order of the draws, ties or none, and
  # whatever the last bucket's size
  for (n in c(32769, 50000, 123457)) {
    for (m in c(n, n %/% 7)) {
      cn <- if (m == n) rep(1, n) else as.numeric(tabulate(sample.int(m, n, TRUE), m))
      keep <- cn > 0
      cn <- cn[keep]
      pr <- runif(length(cn))
      for (b in c(0, 3)) {
        a <- .Call(gpuiso:::ffi_corp_resample, pr, cn, n, c(0.6, 0.1), b, FALSE)
        expect_identical(a, .Call(gpuiso:::ffi_corp_resample, pr, cn, n, c(0.6, 0.1), b, TRUE),
                         info = paste(n, m, b))
        expect_identical(sum(a$count), n)
      }
    }
  }
})

test_that("a band is reproducible under set.seed() and the same on any threads", {
  set.seed(3)
  p <- runif(3000)
  y <- rbinom(3000, 1, p)
  fits <- lapply(c(1L, 2L, 5L), function(t) {
    old <- options(gpuiso.threads = t)
    on.exit(options(old))
    gpuiso:::test_threads_uncapped(TRUE)
    on.exit(gpuiso:::test_threads_uncapped(FALSE), add = TRUE)
    set.seed(9)
    reliability_diagram(p, y, resamples = 50)
  })
  expect_identical(fits[[1L]]$band, fits[[2L]]$band)
  expect_identical(fits[[1L]]$band, fits[[3L]]$band)
  expect_identical(fits[[1L]]$p_value, fits[[3L]]$p_value)
  set.seed(10)
  other <- reliability_diagram(p, y, resamples = 50)
  expect_false(identical(other$band, fits[[1L]]$band))
})

test_that("bands cover near their level on simulated forecasts", {
  set.seed(21)
  cover_cons <- cover_conf <- pv <- numeric(0)
  for (k in 1:6) {
    p <- runif(1500)
    y <- rbinom(1500, 1, p)
    r <- reliability_diagram(p, y, resamples = 200, device = "cpu")
    ok <- !is.na(r$band$lower)
    cover_cons <- c(cover_cons, mean(r$curve$calibrated[ok] >= r$band$lower[ok] &
                                       r$curve$calibrated[ok] <= r$band$upper[ok]))
    pv <- c(pv, r$p_value)
    # the confidence band of miscalibrated forecasts covers their true curve
    y2 <- rbinom(1500, 1, p^2)
    r2 <- reliability_diagram(p, y2, band = "confidence", resamples = 200, device = "cpu")
    ok <- !is.na(r2$band$lower)
    truth <- r2$band$forecast[ok]^2
    cover_conf <- c(cover_conf, mean(truth >= r2$band$lower[ok] & truth <= r2$band$upper[ok]))
  }
  # pointwise coverage of a 90% band, averaged over the forecasts of six
  # data sets: near 0.9 (the bootstrap of the forecasts widens it a little)
  expect_gt(mean(cover_cons), 0.8)
  expect_lt(mean(cover_cons), 0.99)
  expect_gt(mean(cover_conf), 0.7)
  expect_lt(mean(cover_conf), 0.99)
  # calibrated forecasts are not rejected as a rule; badly calibrated ones are
  expect_gt(max(pv), 0.1)
  r3 <- reliability_diagram(p, rbinom(1500, 1, p^3), resamples = 100)
  expect_identical(r3$p_value, 0)
})

test_that("summary() is a data frame of the decomposition and the test", {
  set.seed(4)
  fc <- runif(800)
  ev <- rbinom(800, 1, fc^1.2)
  r <- reliability_diagram(fc, ev, resamples = 40)
  s <- summary(r)
  expect_s3_class(s, "data.frame")
  expect_named(s, c("forecast", "n", "score", "mcb", "dsc", "unc", "p_value"))
  expect_identical(s$forecast, "fc")
  expect_identical(c(s$n, s$score, s$mcb, s$dsc, s$unc, s$p_value),
                   c(800, r$score, r$mcb, r$dsc, r$unc, r$p_value))
  expect_equal(s$p_value * 40, round(s$p_value * 40))
  expect_identical(summary(reliability_diagram(runif(5), c(0, 1, 0, 1, 1)))$forecast, "forecast")
  expect_error(summary(r, digits = 3), class = "gpuiso_error_input")
  expect_output(print(r), "90% consistency band from 40 resamples; miscalibration test p = ")
  n <- reliability_diagram(fc, ev, band = "none")
  expect_null(n$band)
  expect_identical(n$p_value, NA_real_)
  expect_identical(summary(n)$p_value, NA_real_)
  expect_false(any(grepl("band", capture.output(print(n)))))
  expect_identical(n$curve, r$curve)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(r), r)
  expect_identical(plot(n), n)
  # the axes stay on [0, 1] on a wide device
  expect_equal(graphics::par("usr")[1:2], c(-0.04, 1.04))
})

test_that("bad band arguments are errors that name them", {
  p <- c(0.1, 0.4, 0.8)
  y <- c(0, 1, 1)
  expect_error(reliability_diagram(p, y, band = "bootstrap"), "`band` must be one of",
               class = "gpuiso_error_input")
  for (bad in list(0, 1, -0.5, NA, "0.9", c(0.5, 0.9), Inf)) {
    expect_error(reliability_diagram(p, y, level = bad), "`level` must be a number strictly",
                 class = "gpuiso_error_input")
  }
  for (bad in list(0, 1.5, -3, NA, "100", 2e6, c(10, 20))) {
    expect_error(reliability_diagram(p, y, resamples = bad), "`resamples` must be a whole",
                 class = "gpuiso_error_input")
  }
  expect_error(reliability_diagram(p, y, nboot = 10), "unused argument")
})

# The band of one forecast on `device` (the internal corp_band(), so that
# the engine that drew it can be checked), seeded with `seed`.
band_on <- function(p, y, band, level, resamples, device, seed) {
  r0 <- reliability_diagram(p, y, band = "none", device = "cpu")
  pooled <- list(score = r0$curve$forecast, weight = r0$curve$count,
                 run_of = seq_along(p))
  set.seed(seed)
  gpuiso:::corp_band(pooled, r0$curve$calibrated, band, level, resamples, device)
}

test_that("the GPU draws the CPU's resamples: its band equals the CPU's", {
  skip_if_not(gpu_available(), "no usable GPU")
  set.seed(41)
  cases <- list(
    list(p = runif(3000), band = "consistency", level = 0.9, B = 100),
    list(p = round(runif(5000), 2), band = "consistency", level = 0.5, B = 37),
    list(p = round(rbeta(4000, 2, 5), 3), band = "confidence", level = 0.95, B = 64),
    list(p = c(0.2, 0.2, 0.7, 0.7, 0.7, 0.9), band = "confidence", level = 0.9, B = 9),
    list(p = 0.5, band = "consistency", level = 0.9, B = 3),
    # more slots than one group of resamples holds: several groups
    list(p = runif(3e5), band = "consistency", level = 0.9, B = 120),
    list(p = round(runif(2e6), 5), band = "confidence", level = 0.8, B = 30))
  for (k in seq_along(cases)) {
    cs <- cases[[k]]
    y <- rbinom(length(cs$p), 1, cs$p^1.2)
    g <- band_on(cs$p, y, cs$band, cs$level, cs$B, "gpu", 500 + k)
    c <- band_on(cs$p, y, cs$band, cs$level, cs$B, "cpu", 500 + k)
    expect_identical(g$device, "gpu", info = k)
    expect_identical(is.na(g$lower), is.na(c$lower), info = k)
    expect_identical(is.na(g$upper), is.na(c$upper), info = k)
    expect_equal(g$lower, c$lower, tolerance = 1e-12, info = k)
    expect_equal(g$upper, c$upper, tolerance = 1e-12, info = k)
    expect_equal(g$mcb, c$mcb, tolerance = 1e-10, info = k)
  }
  # reliability_diagram() itself, and an R loop of refits on the same draws
  skip_if_not_installed("Iso")
  p <- round(runif(2000), 3)
  y <- rbinom(2000, 1, p)
  set.seed(7)
  seed <- runif(2)
  set.seed(7)
  r <- reliability_diagram(p, y, resamples = 50, device = "gpu")
  ref <- band_reference(p, y, "consistency", 0.9, 50, seed)
  expect_equal(r$band$lower, ref$lower, tolerance = 1e-12)
  expect_equal(r$band$upper, ref$upper, tolerance = 1e-12)
  expect_equal(r$p_value, mean(ref$mcb >= r$mcb - 1e-12))
})

test_that("device = \"auto\" resamples on the GPU from band_gpu_min_draws draws", {
  expect_identical(gpuiso:::band_device("cpu", 1e6, 100, NULL), "cpu")
  expect_identical(gpuiso:::band_device("auto", 10, 100, NULL), "cpu")
  withr_opt <- options(gpuiso.band_gpu_min_draws = Inf)
  on.exit(options(withr_opt))
  expect_identical(gpuiso:::band_device("auto", 1e7, 1000, NULL), "cpu")
  options(gpuiso.band_gpu_min_draws = "many")
  expect_error(gpuiso:::band_device("auto", 10, 10, NULL), "gpuiso.band_gpu_min_draws",
               class = "gpuiso_error_input")
  options(gpuiso.band_gpu_min_draws = 0)
  expect_identical(gpuiso:::band_device("auto", 10, 10, NULL),
                   if (gpu_available()) "gpu" else "cpu")
})

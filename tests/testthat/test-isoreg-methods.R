# The methods of an isoreg() fit (R/isoreg-methods.R): stats' methods on
# our fits, fitted() and residuals(), print() and summary() (snapshots of
# their output), the stats generics.

stats_fitted <- function(f) stats:::fitted.isoreg(f)

stats_residuals <- function(f) stats:::residuals.isoreg(f)

stats_stepfun <- function(f) stats:::as.stepfun.isoreg(f)

# points at, between and beyond the distinct x
probe_points <- function(x) {
  ux <- sort(unique(x))
  mids <- if (length(ux) > 1L) (ux[-1L] + ux[-length(ux)]) / 2 else numeric(0)
  c(ux, mids, min(ux) - 1, max(ux) + 1, ux + 1e-9, ux - 1e-9)
}

test_that("stats' methods read our fits and agree with ours (ties, unsorted x)", {
  set.seed(42)
  for (trial in 1:60) {
    n <- sample(1:200, 1L)
    x <- switch(trial %% 4L + 1L,
      sort(runif(n)),                          # sorted, tie-free
      runif(n),                                # unsorted, tie-free
      as.double(sample(1:max(1L, n %/% 3L), n, TRUE)),  # many ties, unsorted
      sort(round(runif(n), 1)))                # sorted with ties
    y <- if (trial %% 2L) rnorm(n) else as.double(sample(0:4, n, TRUE))
    f <- isoreg(x, y)
    lab <- sprintf("trial %d", trial)
    expect_identical(stats_fitted(f), fitted(f), label = lab)
    expect_identical(stats_residuals(f), residuals(f), label = lab)
    t <- probe_points(x)
    expect_identical(stats_stepfun(f)(t), as.stepfun(f)(t), label = lab)
    # and with stats' own fit (which does not pool ties but sorts them by -y,
    # so they end up in one block): same fitted values
    s <- stats::isoreg(x, y)
    expect_close(fitted(f), stats_fitted(s), 1e-10, lab)
    expect_close(as.stepfun(f)(t), stats_stepfun(s)(t), 1e-10, lab)
  }
})

test_that("fitted() and residuals() are in input order; weights and direction are used", {
  set.seed(44)
  for (trial in 1:60) {
    n <- sample(1:200, 1L)
    x <- runif(n)
    y <- rnorm(n)
    w <- if (trial %% 2L) exp(runif(n, 0, 5)) else NULL
    dec <- trial %% 3L == 0L
    f <- isoreg(x, y, weights = w, decreasing = dec)
    o <- order(x)
    z <- numeric(n)
    z[o] <- isotonic(y[o], w[o], decreasing = dec)
    expect_identical(fitted(f), z)
    expect_identical(residuals(f), y - z)
    expect_identical(f$decreasing, dec)
    expect_identical(f$weights, w)
    expect_identical(nobs(f), n)
  }
})

test_that("print() and summary() run and report the fit", {
  set.seed(45)
  x <- sample(1:8, 20, TRUE); y <- rnorm(20)
  f <- isoreg(x, y)
  expect_output(print(f), "Isotonic regression \\(increasing, cpu\\)")
  expect_output(print(f), "20 points, 8 distinct x, [0-9]+ blocks")
  expect_output(print(f), "fitted values from")
  capture.output(v <- withVisible(print(f)))
  expect_false(v$visible)
  expect_identical(v$value, f)
  fw <- isoreg(x, y, weights = runif(20), decreasing = TRUE)
  expect_output(print(fw), "decreasing, weighted")
  s <- summary(f)
  expect_s3_class(s, "summary.gpuiso_isoreg")
  expect_equal(s$rss, sum(residuals(f)^2))
  expect_identical(s$n, 20L)
  expect_identical(s$n_blocks, length(f$iKnots))
  expect_identical(s$n_blocks, n_blocks(f$yf))
  expect_equal(sum(s$blocks$weight), 20)
  expect_output(print(s), "Residual sum of squares")
  expect_output(print(s), "Blocks")
  sw <- summary(fw)
  expect_equal(sw$rss, sum(fw$weights * residuals(fw)^2))
  expect_output(print(sw), "Weighted residual sum of squares")
  # many blocks: the table is cut at 10
  fl <- isoreg(1:30, as.double(1:30))
  expect_output(print(summary(fl)), "first 10")
})

test_that("stats generics work on a fit or say what to use", {
  set.seed(306)
  x <- runif(50); y <- x + rnorm(50, sd = 0.2)
  f <- isoreg(x, y)
  expect_identical(knots(f), knots(as.stepfun(f)))
  expect_identical(nobs(f), 50L)
  expect_equal(deviance(f), sum(residuals(f)^2))
  ll <- logLik(f)
  rss <- sum(residuals(f)^2)
  expect_equal(as.numeric(ll), -25 * (log(2 * pi) + 1 - log(50) + log(rss)))
  expect_identical(attr(ll, "df"), length(knots(f)) + 1)
  expect_equal(AIC(f), -2 * as.numeric(ll) + 2 * attr(ll, "df"))
  # weighted: lm's likelihood with the same weights and fitted values
  w <- runif(50, 0.5, 2)
  fw <- isoreg(x, y, weights = w)
  r <- residuals(fw)
  ref <- 0.5 * (sum(log(w)) - 50 * (log(2 * pi) + 1 - log(50) + log(sum(w * r^2))))
  expect_equal(as.numeric(logLik(fw)), ref)
  expect_identical(nobs(isoreg(x, y, weights = c(0, w[-1]))), 49L)
  expect_error(coef(f), "no coefficients.*fitted", class = "gpuiso_error_input")
})

test_that("isoreg() prints and summarises as before", {
  x <- snap$x
  y <- snap$y
  fit <- isoreg(x, y, device = "cpu")
  expect_snapshot(cran = TRUE, print(fit))
  expect_snapshot(cran = TRUE, print(summary(fit)))
  expect_snapshot(cran = TRUE, print(isoreg(x, y, decreasing = TRUE, weights = rep(1:2, 5), device = "cpu")))
})

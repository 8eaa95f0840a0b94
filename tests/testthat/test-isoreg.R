# isoreg(): compatibility with stats::isoreg and its methods, tied x,
# weights, fitted/residuals, print/summary/plot.

stats_fitted <- function(f) stats:::fitted.isoreg(f)
stats_residuals <- function(f) stats:::residuals.isoreg(f)
stats_stepfun <- function(f) stats:::as.stepfun.isoreg(f)

# points at, between and beyond the distinct x
probe_points <- function(x) {
  ux <- sort(unique(x))
  mids <- if (length(ux) > 1L) (ux[-1L] + ux[-length(ux)]) / 2 else numeric(0)
  c(ux, mids, min(ux) - 1, max(ux) + 1, ux + 1e-9, ux - 1e-9)
}

test_that("the fit has the fields and classes of stats::isoreg", {
  f <- isoreg(c(1, 2, 2, 3, 5, 6), c(1, 3, 2, 2, 6, 5))
  expect_s3_class(f, "gpuiso_isoreg")
  expect_s3_class(f, "isoreg")
  expect_identical(class(f), c("gpuiso_isoreg", "isoreg"))
  expect_true(all(c("x", "y", "yf", "yc", "iKnots", "isOrd", "ord", "call",
                    "weights", "decreasing", "device") %in% names(f)))
  s <- stats::isoreg(c(1, 2, 2, 3, 5, 6), c(1, 3, 2, 2, 6, 5))
  for (nm in c("x", "y", "yf", "yc", "iKnots", "isOrd", "ord")) {
    expect_equal(f[[nm]], s[[nm]], label = nm)
  }
  expect_true(is.call(f$call))
  expect_identical(f$decreasing, FALSE)
  expect_null(f$weights)
})

test_that("yf, yc, ord, isOrd and iKnots agree with stats::isoreg on tie-free data", {
  set.seed(41)
  for (trial in 1:60) {
    n <- sample(1:300, 1L)
    x <- if (trial %% 2L) sort(runif(n)) else runif(n)  # sorted or not
    y <- if (trial %% 3L) rnorm(n) else cumsum(rnorm(n))
    f <- isoreg(x, y)
    s <- stats::isoreg(x, y)
    lab <- sprintf("trial %d", trial)
    expect_close(f$yf, s$yf, 1e-10, lab)
    expect_equal(f$yc, s$yc, tolerance = 1e-12, label = lab)
    expect_identical(f$isOrd, s$isOrd, label = lab)
    expect_equal(f$ord, s$ord, label = lab)
    # continuous data: no two blocks share a mean, so the knots are the same
    expect_equal(f$iKnots, s$iKnots, label = lab)
    expect_identical(f$x, x)
    expect_identical(f$y, y)
  }
  # y alone: x is the index
  y <- c(5, 1, 4, 2, 6)
  f <- isoreg(y)
  expect_equal(f$yf, stats::isoreg(y)$yf)
  expect_equal(f$x, 1:5)
  expect_true(f$isOrd)
  expect_null(f$ord)
})

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

test_that("tied x are pooled: weighted mean, summed weights", {
  set.seed(43)
  for (trial in 1:60) {
    n <- sample(1:150, 1L)
    x <- as.double(sample(1:max(1L, n %/% 2L), n, TRUE))
    y <- rnorm(n)
    w <- if (trial %% 3L == 0L) NULL else runif(n, 0.1, 2)
    dec <- trial %% 2L == 0L
    f <- isoreg(x, y, weights = w, decreasing = dec)
    # hand pooling
    wf <- if (is.null(w)) rep(1, n) else w
    ux <- sort(unique(x))
    sw <- as.vector(tapply(wf, factor(x, ux), sum))
    py <- as.vector(tapply(wf * y, factor(x, ux), sum)) / sw
    z <- isotonic(py, sw, decreasing = dec)
    lab <- sprintf("trial %d", trial)
    expect_close(fitted(f), z[match(x, ux)], 1e-12, lab)
    expect_close(f$yf, z[match(sort(x), ux)], 1e-12, lab)
    expect_true(is_monotone(f$yf, dec), label = lab)
    # every group of tied x has one fitted value
    expect_true(all(tapply(fitted(f), x, function(v) length(unique(v))) == 1L),
                label = lab)
    # iKnots: last index (in sorted order) of each block
    expect_identical(f$iKnots, as.integer(which(c(diff(f$yf) != 0, TRUE))), label = lab)
  }
  f <- isoreg(c(1, 1, 2), c(4, 0, 1), weights = c(1, 3, 1))
  expect_identical(fitted(f), c(1, 1, 1))
  f <- isoreg(c(1, 1, 2), c(4, 0, 3), weights = c(1, 3, 1))
  expect_identical(fitted(f), c(1, 1, 3))
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

test_that("zero weights in isoreg follow the rule of isotonic()", {
  x <- c(3, 1, 4, 2, 5)
  y <- c(2, 1, 9, 5, 3)
  w <- c(1, 1, 0, 1, 1)
  f <- isoreg(x, y, weights = w)
  o <- order(x)
  expect_identical(f$yf, isotonic(y[o], w[o]))
  # the zero-weight point at x = 4 takes the value at x = 5
  expect_identical(fitted(f)[3], fitted(f)[5])
})

test_that("the list and matrix forms of x work as in xy.coords", {
  x <- c(3, 1, 2, 5); y <- c(2, 1, 4, 3)
  ref <- fitted(isoreg(x, y))
  expect_identical(fitted(isoreg(list(x = x, y = y))), ref)
  expect_identical(fitted(isoreg(cbind(x, y))), ref)
})

test_that("n = 0, 1, 2 work", {
  f0 <- isoreg(numeric(0))
  expect_identical(f0$yf, numeric(0))
  expect_identical(fitted(f0), numeric(0))
  expect_length(f0$iKnots, 0L)
  expect_output(print(f0), "0 points")
  expect_output(print(summary(f0)), "0 points")
  f1 <- isoreg(5)
  expect_identical(f1$yf, 5)
  expect_identical(f1$iKnots, 1L)
  f2 <- isoreg(c(2, 1), c(3, 4))
  expect_identical(fitted(f2), c(3.5, 3.5))
  expect_identical(f2$ord, c(2L, 1L))
  expect_identical(f2$iKnots, 2L)
  f2d <- isoreg(c(2, 1), c(3, 4), decreasing = TRUE)
  expect_identical(fitted(f2d), c(3, 4))
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

test_that("plot() and lines() draw without error, also with stats' plot method", {
  set.seed(46)
  x <- runif(40); y <- x + rnorm(40, sd = 0.3)
  f <- isoreg(x, y)
  fd <- isoreg(x, -y, weights = runif(40), decreasing = TRUE)
  pdf(NULL)
  on.exit(dev.off(), add = TRUE)
  expect_invisible(plot(f))
  expect_no_error(plot(f, plot.type = "row"))
  expect_no_error(plot(f, plot.type = "col", main = "m", xlab = "a", ylab = "b"))
  expect_no_error(plot(fd, plot.type = "row"))
  expect_no_error(lines(f))
  expect_no_error(lines(fd, do.points = TRUE, col = "blue"))
  expect_no_error(plot(isoreg(5)))
  expect_no_error(stats:::plot.isoreg(isoreg(x, y), plot.type = "row.wise"))
  expect_no_error(stats:::lines.isoreg(isoreg(x, y)))
})

test_that("isoreg() does not modify its inputs", {
  set.seed(47)
  x <- runif(30); y <- rnorm(30); w <- runif(30)
  x0 <- x + 0; y0 <- y + 0; w0 <- w + 0
  f <- isoreg(x, y, weights = w)
  f <- isoreg(y)
  expect_identical(x, x0)
  expect_identical(y, y0)
  expect_identical(w, w0)
})

test_that("an empty fit plots an empty frame", {
  pdf(NULL)
  on.exit(dev.off())
  f <- isoreg(numeric(0))
  expect_invisible(plot(f))
  expect_identical(plot(f), f)
})

test_that("a bad plot.type is a classed error naming it; abbreviations still work", {
  f <- isoreg(c(1, 2, 2, 3, 5), c(1, 3, 2, 2, 6))
  pdf(NULL)
  on.exit(dev.off())
  for (p in list("bogus", NA, NA_character_, "", 1, c("col.wise", "row.wise", "single"),
                 "SINGLE", TRUE, list("single"), NULL)) {
    expect_error(plot(f, plot.type = p), "`plot.type` must be one of",
                 class = "gpuiso_error_input")
  }
  expect_no_error(plot(f, plot.type = "si"))
  expect_no_error(plot(f, plot.type = "col.wise"))
})

test_that("fits at the ends of the doubles plot both panels, the sums scaled", {
  big <- .Machine$double.xmax
  fx <- isoreg(1:5, c(big, -big, big, 5e-324, -1e300),
               weights = c(1e-300, 1, 1e300, 5e-324, 1))
  fu <- isoreg(1:4, c(big, big, -big, big))
  fw <- isoreg(c(big, -big, 5e-324, -5e-324, 0), c(3, 1, 2, 5, 4))
  pdf(NULL)
  on.exit(dev.off())
  for (f in list(fx, fu, fw)) {
    for (pt in c("single", "row.wise", "col.wise")) expect_no_error(plot(f, plot.type = pt))
  }
  # the diagram of the scaled sums: finite, and the axis says the scale
  o <- seq_along(fx$y)
  cs <- gpuiso:::cumulative_sums(fx, o)
  expect_true(all(is.finite(c(cs$cy, cs$cf))))
  expect_gt(cs$scale, 0)
  expect_equal(cs$cf[length(cs$cf)], cs$cy[length(cs$cy)])
  # sums within the doubles are not scaled
  f <- isoreg(c(1, 2, 2, 3, 5), c(1, 3, 2, 2, 6))
  expect_identical(gpuiso:::cumulative_sums(f, f$ord)$scale, 0)
  expect_identical(gpuiso:::cumulative_sums(f, f$ord)$cy, f$yc)
  # the origin of the diagram stays within the doubles
  expect_identical(gpuiso:::point_before(c(-big, big)), -big)
  expect_identical(gpuiso:::point_before(c(1, 2, 4)), -0.5)
})

test_that("x that cannot be coordinates is an error naming `x`", {
  expect_error(isoreg(x = globalenv()), "`x` must be numeric, not an environment",
               class = "gpuiso_error_input")
  expect_error(isoreg(x = quote(a + b)), "`x`", class = "gpuiso_error_input")
  f <- local({
    no_such_y ~ no_such_x
  })
  expect_error(isoreg(x = f),
               "`x` is the formula `no_such_y ~ no_such_x`, whose variables could not be found",
               class = "gpuiso_error_input")
  # a formula whose variables exist is read as stats::isoreg() reads it
  d <- local({ u <- c(1, 2, 3); v <- c(1, 3, 2); v ~ u })
  expect_identical(isoreg(x = d)$yf, isoreg(c(1, 2, 3), c(1, 3, 2))$yf)
})

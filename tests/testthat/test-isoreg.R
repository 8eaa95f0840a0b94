# isoreg() (R/isoreg.R) as a superset of stats::isoreg(): the same reading
# of x and y, the same components in type and value on every input stats
# accepts; tied x, weights, zero weights, na.rm, bounds.

stats_components <- c("x", "y", "yf", "yc", "iKnots", "isOrd", "ord")

# Every component of stats' fit, identical in type and value (yf to
# rounding: gpuiso sums more carefully).
expect_stats_fit <- function(g, s, label) {
  expect_identical(names(unclass(g))[1:8], names(unclass(s)), label = label)
  for (nm in setdiff(stats_components, "yf")) {
    expect_identical(g[[nm]], s[[nm]], label = paste(label, nm))
  }
  expect_identical(typeof(g$yf), typeof(s$yf), label = paste(label, "yf type"))
  expect_close(g$yf, s$yf, 1e-12, paste(label, "yf"))
  expect_identical(g$call[-1L], s$call[-1L], label = paste(label, "call"))
}

# Random data of the kinds that trip exact comparisons: ties in x and y,
# decimal fractions, 0/1 outcomes, constant stretches, big offsets.
random_xy <- function(kind, n) {
  y <- switch(kind,
    rnorm(n),
    as.double(sample(0:4, n, TRUE)),
    round(rnorm(n), 1),
    as.double(rbinom(n, 1, 0.4)),
    sample(c(0.1, 0.2, 0.3), n, TRUE),
    rep(c(0.1, 0.2, 0.7), length.out = n)[sample.int(n)],
    round(runif(n), 2) * 10^sample(-3:3, 1L),
    rnorm(n) * 1e6 + 1e9,
    cumsum(round(rnorm(n), 1)))
  x <- switch(sample.int(5L, 1L),
    runif(n),                               # unsorted, untied
    sort(runif(n)),                         # sorted
    as.double(sample.int(max(1L, n %/% 3L), n, TRUE)), # many ties
    sort(round(runif(n), 1)),               # sorted with ties
    seq_len(n) + 0)                         # the index
  list(x = x, y = y)
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

test_that("every component equals stats::isoreg()'s on thousands of inputs", {
  set.seed(301)
  for (trial in 1:2500) {
    n <- sample(c(1:12, 20, 50, 120), 1L)
    d <- random_xy(trial %% 9L + 1L, n)
    lab <- sprintf("trial %d (kind %d, n %d)", trial, trial %% 9L + 1L, n)
    x <- d$x
    y <- d$y
    expect_stats_fit(isoreg(x, y), stats::isoreg(x, y), lab)
    if (trial %% 5L == 0L) {
      expect_stats_fit(isoreg(y), stats::isoreg(y), paste(lab, "y only"))
    }
  }
})

test_that("long inputs keep stats' knots (decimal ties, 0/1, constant runs)", {
  set.seed(302)
  for (trial in 1:40) {
    n <- sample(c(500, 2000, 5000), 1L)
    d <- random_xy(trial %% 9L + 1L, n)
    lab <- sprintf("long trial %d", trial)
    expect_stats_fit(isoreg(d$x, d$y), stats::isoreg(d$x, d$y), lab)
  }
  # a constant stretch: every point touches the minorant
  y <- rep(0.1, 300)
  expect_identical(isoreg(y)$iKnots, stats::isoreg(y)$iKnots)
  expect_identical(isoreg(c(1, 3, 2, 2.5, 2.5, 5))$iKnots, c(1L, 3L, 4L, 5L, 6L))
})

test_that("data frames, lists, matrices and complex numbers are read as stats reads them", {
  inputs <- list(
    data.frame(x = 1:3, y = c(2, 1, 3)),
    data.frame(u = c(3, 1, 2, 2), v = c(1, 4, 2, 0)),
    data.frame(y = c(3, 1, 2)),
    list(x = c(2, 1, 3), y = c(5, 4, 6)),
    cbind(1:3, 3:1, 1:3),
    cbind(c(1, 1, 2), c(3, 1, 2)),
    matrix(c(4, 2, 3, 1), ncol = 1),
    complex(real = c(1, 3, 2), imaginary = c(2, 1, 3)),
    c(a = 3, b = 1, c = 2),
    1:5,
    c(TRUE, FALSE, TRUE))
  for (k in seq_along(inputs)) {
    expect_stats_fit(isoreg(inputs[[k]]), stats::isoreg(inputs[[k]]),
                     sprintf("input %d", k))
  }
  expect_length(fitted(isoreg(cbind(1:3, 3:1, 1:3))), 3L)
  expect_identical(typeof(isoreg(c(3, 1, 2))$x), "double")
  expect_identical(isoreg(c(3, 1, 2))$x, c(1, 2, 3))
  # variables' names are kept for labels
  d <- data.frame(temp = c(1, 3, 2), ozone = c(2, 5, 1))
  expect_identical(isoreg(d)$xname, "temp")
  expect_identical(isoreg(d)$yname, "ozone")
  temp <- d$temp
  ozone <- d$ozone
  expect_identical(isoreg(temp, ozone)$xname, "temp")
  expect_identical(isoreg(temp, ozone)$yname, "ozone")
})

test_that("weighted and decreasing fits have stats' knots on their own diagram", {
  set.seed(303)
  for (trial in 1:600) {
    n <- sample(1:40, 1L)
    d <- random_xy(trial %% 9L + 1L, n)
    w <- switch(trial %% 4L + 1L,
      NULL,
      runif(n, 0.1, 2),
      as.double(sample(1:3, n, TRUE)),
      { v <- as.double(sample(0:2, n, TRUE)); v[sample.int(n, 1L)] <- 1; v })
    dec <- trial %% 3L == 0L
    f <- isoreg(d$x, d$y, weights = w, decreasing = dec)
    o <- if (f$isOrd) seq_len(n) else order(d$x, if (dec) d$y else -d$y)
    expect_identical(f$ord, if (!f$isOrd) o)
    ww <- if (is.null(w)) rep(1, n) else w[o]
    Y <- double_cumsum(ww * d$y[o]) * (if (dec) -1 else 1)
    X <- if (is.null(w)) seq(0, n) else double_cumsum(ww)
    ref <- ref_stats_knots(Y, X)
    # a zero-weight point is pooled with its tied x: a knot followed by such
    # points of its own x moves to the last of them, where the fit steps
    xs <- d$x[o]
    for (q in seq_along(ref)) {
      k <- ref[q]
      while (k < n && ww[k + 1L] == 0 && xs[k + 1L] == xs[k]) k <- k + 1L
      ref[q] <- k
    }
    expect_identical(f$iKnots, ref, label = sprintf("trial %d", trial))
    # the fit is constant between knots, and every block ends at one
    expect_true(all(which(diff(f$yf) != 0) %in% f$iKnots), label = sprintf("trial %d ends", trial))
  }
})

test_that("na.rm drops incomplete points and records them; without it NA is an error", {
  x <- c(1, 2, NA, 4, 5, 6)
  y <- c(1, 3, 2, NA, 4, 0)
  expect_error(isoreg(x, y), "`x` must be finite: element 3 is NA",
               class = "gpuiso_error_input")
  f <- isoreg(x, y, na.rm = TRUE)
  g <- isoreg(x[c(1, 2, 5, 6)], y[c(1, 2, 5, 6)])
  expect_identical(f$yf, g$yf)
  expect_identical(f$x, c(1, 2, 5, 6))
  expect_identical(as.vector(f$na.action), c(3L, 4L))
  expect_s3_class(f$na.action, "omit")
  expect_output(print(f), "2 points with missing values dropped")
  w <- c(1, NA, 1, 1, 2, 1)
  fw <- isoreg(x, y, weights = w, na.rm = TRUE)
  expect_identical(fw$x, c(1, 5, 6))
  expect_identical(as.vector(fw$na.action), 2:4)
  expect_error(isoreg(c(1, NA), na.rm = NA), "`na.rm` must be TRUE or FALSE")
  # y alone: the index of the points kept
  fy <- isoreg(c(3, NA, 1, 2), na.rm = TRUE)
  expect_identical(fy$y, c(3, 1, 2))
})

test_that("y_min and y_max clip the fit exactly, and decreasing = \"auto\" reads the data", {
  set.seed(305)
  for (trial in 1:100) {
    n <- sample(1:60, 1L)
    x <- runif(n); y <- rnorm(n)
    w <- if (trial %% 2L) runif(n, 0.1, 2)
    lo <- -0.3; hi <- 0.4
    f <- isoreg(x, y, weights = w, y_min = lo, y_max = hi)
    u <- isoreg(x, y, weights = w)
    expect_identical(f$yf, pmin(pmax(u$yf, lo), hi))
    expect_true(all(f$blocks$value >= lo & f$blocks$value <= hi))
    expect_identical(f$blocks$value, unique(f$yf))
    # the bounded fit minimises the (weighted) squared error among bounded
    # monotone fits: no better one by a brute-force check of perturbations
    ww <- if (is.null(w)) rep(1, n) else w
    loss <- function(z) sum(ww * (y - z)^2)
    zf <- fitted(f)
    for (k in 1:5) {
      z <- fitted(u) + rnorm(n, sd = 0.05)
      z <- pmin(pmax(z, lo), hi)
      o <- order(x); z[o] <- cummax(z[o])
      expect_true(loss(zf) <= loss(z) + 1e-12)
    }
    # the knots of a bounded fit: every block end of the clipped fit is one
    expect_true(all(which(diff(f$yf) != 0) %in% f$iKnots))
  }
  expect_error(isoreg(1:3, y_min = 2, y_max = 1), "`y_min` must not exceed `y_max`")
  expect_error(isoreg(1:3, y_min = "a"), "`y_min` must be one number")
  expect_error(isoreg(1:3, y_max = c(1, 2)), "`y_max` must be one number")
  expect_output(print(isoreg(1:3, y_min = 2)), "bounded below by 2")
  x <- 1:20 + 0
  expect_false(isoreg(x, x + rnorm(20, sd = 0.1), decreasing = "auto")$decreasing)
  expect_true(isoreg(x, -x + rnorm(20, sd = 0.1), decreasing = "auto")$decreasing)
  expect_false(isoreg(x, rep(1, 20), decreasing = "auto")$decreasing)
  expect_error(isoreg(x, decreasing = "up"), "`decreasing` must be TRUE, FALSE or \"auto\"")
})

test_that("runs of tied x of every length are ordered as order(x, -y) orders them", {
  set.seed(307)
  for (k in c(2L, 5L, 40L, 400L)) {
    n <- 20000L
    x <- sample.int(k, n, replace = TRUE) / k
    y <- switch(k %% 3L + 1L, rnorm(n), round(rnorm(n), 1), as.double(sample(-2:2, n, TRUE)))
    y[sample.int(n, 50L)] <- -0
    for (dec in c(FALSE, TRUE)) {
      f <- isoreg(x, y, decreasing = dec)
      expect_identical(f$ord, order(x, if (dec) y else -y), label = sprintf("k = %d", k))
      if (!dec) expect_identical(f$iKnots, stats::isoreg(x, y)$iKnots)
      w <- runif(n, 0.5, 2)
      fw <- isoreg(x, y, weights = w, decreasing = dec)
      expect_identical(fw$ord, f$ord)
    }
  }
})

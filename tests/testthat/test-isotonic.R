# Properties of the operator isotonic() (R/isotonic.R): small sizes,
# symmetry, idempotence, equivariance, zero weights, missing values
# (na.rm), threads, inputs left alone, long vectors.

test_that("n = 0, 1, 2 work", {
  expect_identical(isotonic(numeric(0)), numeric(0))
  expect_identical(isotonic(numeric(0), weights = numeric(0)), numeric(0))
  expect_identical(isotonic(numeric(0), decreasing = TRUE), numeric(0))
  expect_identical(isotonic(3.5), 3.5)
  expect_identical(isotonic(3.5, weights = 2), 3.5)
  expect_identical(isotonic(-2, decreasing = TRUE), -2)
  expect_identical(isotonic(c(1, 2)), c(1, 2))
  expect_identical(isotonic(c(2, 1)), c(1.5, 1.5))
  expect_identical(isotonic(c(2, 1), decreasing = TRUE), c(2, 1))
  expect_identical(isotonic(c(1, 2), decreasing = TRUE), c(1.5, 1.5))
  expect_identical(isotonic(c(2, 1), weights = c(1, 3)), c(1.25, 1.25))
  expect_identical(isotonic(c(7, 7)), c(7, 7))
  expect_identical(isotonic(c(2, 1), weights = c(0, 1)), c(1, 1))
  expect_identical(isotonic(c(2, 1), weights = c(1, 0)), c(2, 2))
  # empty batches
  m0 <- matrix(numeric(0), 0, 3)
  expect_identical(isotonic(m0), m0)
  m1 <- matrix(numeric(0), 4, 0)
  expect_identical(isotonic(m1), m1)
  expect_identical(isotonic(numeric(0), groups = character(0)), numeric(0))
})

test_that("output is exactly monotone on random inputs", {
  set.seed(1)
  for (trial in 1:300) {
    p <- random_problem(200L)
    z <- isotonic(p$y, p$w, decreasing = p$decreasing)
    expect_true(is_monotone(z, p$decreasing))
    expect_identical(length(z), length(p$y))
  }
})

test_that("decreasing(y) equals -increasing(-y)", {
  set.seed(2)
  for (trial in 1:200) {
    p <- random_problem(200L)
    expect_identical(isotonic(p$y, p$w, decreasing = TRUE),
                     -isotonic(-p$y, p$w))
    expect_identical(isotonic(p$y, p$w), -isotonic(-p$y, p$w, decreasing = TRUE))
  }
  for (nm in names(adversarial_inputs())) {
    y <- as.double(adversarial_inputs()[[nm]])
    expect_identical(isotonic(y, decreasing = TRUE), -isotonic(-y), label = nm)
  }
})

test_that("constant input is returned unchanged, as one block", {
  # every value is its own weighted mean; any drift splits the run
  for (v in c(0.37, 0.05, 0.1, 1 / 3, 0.15000000000000002, 1e6 + 0.1)) {
    for (n in c(2, 3, 4, 8, 10, 1000)) {
      y <- rep(v, n)
      expect_identical(isotonic(y), y, label = sprintf("rep(%.17g, %d)", v, n))
      expect_identical(isotonic(y, decreasing = TRUE), y,
                       label = sprintf("decreasing rep(%.17g, %d)", v, n))
    }
  }
  set.seed(3)
  for (n in c(3, 10, 100)) {
    w <- exp(runif(n, 0, 8))
    expect_identical(isotonic(rep(0.1, n), w), rep(0.1, n),
                     label = sprintf("weighted rep(0.1, %d)", n))
  }
  big <- .Machine$double.xmax
  expect_identical(isotonic(c(big, big), weights = c(0.1, 13 / 30)), c(big, big))
  expect_identical(isotonic(c(-big, -big), weights = c(0.1, 13 / 30)), c(-big, -big))
})

test_that("sorted input is a fixed point (idempotence)", {
  set.seed(4)
  for (trial in 1:200) {
    p <- random_problem(200L)
    ys <- sort(p$y, decreasing = p$decreasing)
    w <- p$w
    if (!is.null(w)) w[w == 0] <- 1 # zero weights copy a neighbour's value
    lab <- sprintf("trial %d", trial)
    expect_identical(isotonic(ys, w, decreasing = p$decreasing), ys, label = lab)
    z <- isotonic(p$y, p$w, decreasing = p$decreasing)
    expect_identical(isotonic(z, p$w, decreasing = p$decreasing), z, label = lab)
  }
})

test_that("affine equivariance in y and invariance to scaling the weights", {
  set.seed(5)
  for (trial in 1:200) {
    p <- random_problem(150L)
    y <- p$y / max(1, max(abs(p$y))) # keep a * y + b well inside range
    w <- p$w
    dec <- p$decreasing
    z <- isotonic(y, w, decreasing = dec)
    # powers of two: exact
    k <- sample(-20:20, 1L)
    expect_identical(isotonic(2^k * y, w, decreasing = dec), 2^k * z)
    if (!is.null(w)) expect_identical(isotonic(y, 2^k * w, decreasing = dec), z)
    # general a, b: up to rounding of a * y + b
    a <- runif(1, 0.1, 10) * sample(c(-1, 1), 1L)
    b <- runif(1, -10, 10)
    za <- isotonic(a * y + b, w, decreasing = if (a > 0) dec else !dec)
    d <- max(abs(za - (a * z + b)) / (1 + abs(a * z) + abs(b)))
    expect_lte(d, 1e-12, label = sprintf("affine, trial %d", trial))
    if (!is.null(w)) {
      c <- runif(1, 1e-3, 1e3)
      expect_close(isotonic(y, c * w, decreasing = dec), z, 1e-12,
                   sprintf("weight scaling, trial %d", trial))
    }
  }
})

test_that("zero-weight points take the value of the nearest positive-weight point to their right", {
  expect_identical(isotonic(c(1, 9, 2, 5), weights = c(1, 0, 1, 1)), c(1, 2, 2, 5))
  expect_identical(isotonic(c(9, 0, 1), weights = c(0, 1, 1)), c(0, 0, 1))
  expect_identical(isotonic(c(1, 5, 3, 0), weights = c(1, 1, 1, 0)), c(1, 4, 4, 4))
  expect_identical(isotonic(c(1, 5, -7, 0), weights = c(1, 1, 0, 0)), c(1, 5, 5, 5))
  expect_identical(isotonic(c(0, 8, 3, 1, 6), weights = c(1, 0, 0, 1, 1)),
                   c(0, 1, 1, 1, 6))
  expect_identical(isotonic(c(9, 1, 5, 2), weights = c(1, 0, 1, 1), decreasing = TRUE),
                   c(9, 5, 5, 2))
  expect_identical(isotonic(c(5, 1, 9, 2), weights = c(1, 0, 1, 1), decreasing = TRUE),
                   c(7, 7, 7, 2))
  expect_identical(isotonic(c(3, 100), weights = c(1, 0)), c(3, 3))
  expect_identical(isotonic(c(100, 3), weights = c(0, 1)), c(3, 3))
  # random: positive-weight points are fitted as if the others were absent
  set.seed(6)
  for (trial in 1:200) {
    n <- sample(2:60, 1L)
    y <- rnorm(n)
    w <- runif(n) * (runif(n) < 0.6)
    if (!any(w > 0)) w[sample.int(n, 1L)] <- 1
    dec <- trial %% 2L == 0L
    z <- isotonic(y, w, decreasing = dec)
    pos <- which(w > 0)
    expect_identical(z[pos], isotonic(y[pos], w[pos], decreasing = dec))
    expect_identical(z, fill_right(z[pos], pos, n))
    expect_close(z, ref_fit(y, w, dec), 1e-12, sprintf("trial %d", trial))
    expect_true(is_monotone(z, dec))
  }
})

test_that("options(gpuiso.threads) 1 and 2 give identical results", {
  set.seed(10)
  y <- matrix(rnorm(2e5), 20, 1e4)
  w <- matrix(runif(2e5, 0.1, 1.1), 20, 1e4)
  g <- sample.int(500L, 2e5, TRUE)
  yv <- as.vector(y)
  # on the CPU engine: 2e5 elements would take "auto" to a GPU
  one <- with_opts(list(gpuiso.threads = 1L, gpuiso.device = "cpu"),
                   list(isotonic(y), isotonic(y, w, decreasing = TRUE),
                        isotonic(yv, groups = g)))
  two <- with_opts(list(gpuiso.threads = 2L, gpuiso.device = "cpu"),
                   list(isotonic(y), isotonic(y, w, decreasing = TRUE),
                        isotonic(yv, groups = g)))
  expect_identical(one, two)
})

test_that("inputs are never modified", {
  set.seed(11)
  y <- rnorm(50); w <- runif(50); g <- sample(c("a", "b"), 50, TRUE)
  y0 <- y + 0; w0 <- w + 0; g0 <- paste0(g, "")
  m <- matrix(rnorm(60), 10); m0 <- m + 0
  mw <- matrix(runif(60), 10); mw0 <- mw + 0
  z <- isotonic(y, w)
  z <- isotonic(y, w, decreasing = TRUE)
  z <- isotonic(y, w, groups = g)
  z <- isotonic(m, mw)
  z <- isotonic(m, mw[, 1])
  z <- isotonic_vjp(y, grad = w, weights = w, groups = g)
  expect_identical(y, y0)
  expect_identical(w, w0)
  expect_identical(g, g0)
  expect_identical(m, m0)
  expect_identical(mw, mw0)
  # the result is a new vector, not the input
  s <- sort(rnorm(20)); s0 <- s + 0
  zs <- isotonic(s)
  zs[1] <- 100
  expect_identical(s, s0)
})

test_that("device = 'cpu' and 'auto' give the same fit", {
  set.seed(12)
  y <- rnorm(300); w <- runif(300)
  expect_identical(isotonic(y, w, device = "cpu"), isotonic(y, w, device = "auto"))
  expect_identical(with_opts(list(gpuiso.device = "cpu"), isotonic(y, w)),
                   isotonic(y, w, device = "auto"))
})

test_that("long vectors (length > 2^31 - 1) are fitted", {
  # 2 x 17 GB: run by hand on a machine with 48 GB or more.
  skip_if_not(identical(Sys.getenv("GPUISO_TEST_LONG"), "true"),
              "set GPUISO_TEST_LONG=true to fit a vector longer than 2^31 - 1")
  n <- 2^31 + 5
  y <- rep_len(c(1, 0), n) # pairs pool to 0.5; the odd last 1 stays alone
  z <- isotonic(y)
  expect_identical(length(z), n)
  expect_identical(z[c(1, 2, n - 1)], c(0.5, 0.5, 0.5))
  expect_identical(z[n], 1)
  expect_false(is.unsorted(z[seq(1, n, by = 2^20)]))
})

test_that("na.rm = TRUE leaves missing elements out of their problems", {
  set.seed(502)
  y <- c(3, NA, 1, 2, NaN, 5)
  expect_error(isotonic(y), "`y` must be finite: element 2 is NA",
               class = "gpuiso_error_input")
  z <- isotonic(y, na.rm = TRUE)
  expect_identical(z, c(2, NA, 2, 2, NA, 5))
  w <- c(1, 1, NA, 1, 1, 1)
  zw <- isotonic(y, w, na.rm = TRUE)
  expect_identical(zw, c(2.5, NA, NA, 2.5, NA, 5))
  # matrices: per column; names and dims kept
  m <- matrix(c(3, NA, 1, 2, 1, NA), 3, dimnames = list(NULL, c("a", "b")))
  zm <- isotonic(m, na.rm = TRUE)
  expect_identical(dimnames(zm), dimnames(m))
  expect_identical(zm[, "a"], c(2, NA, 2))
  expect_identical(zm[, "b"], c(1.5, 1.5, NA))
  # groups
  g <- c("u", "u", "v", "v", "v", "u")
  zg <- isotonic(y, groups = g, na.rm = TRUE)
  expect_identical(zg[!is.na(y)], isotonic(y[!is.na(y)], groups = g[!is.na(y)]))
  expect_identical(names(isotonic(c(a = 1, b = NA), na.rm = TRUE)), c("a", "b"))
  # random: equal to the fit of the elements present
  for (trial in 1:100) {
    p <- random_problem(50L)
    yy <- p$y
    yy[sample.int(length(yy), max(1L, length(yy) %/% 5L))] <- NA
    keep <- !is.na(yy)
    if (!any(keep) || !is.null(p$w) && !any(p$w[keep] > 0)) next
    zz <- isotonic(yy, p$w, p$decreasing, na.rm = TRUE)
    expect_identical(zz[keep], isotonic(yy[keep], p$w[keep], p$decreasing))
    expect_true(all(is.na(zz[!keep])))
  }
  expect_error(isotonic(y, na.rm = "yes"), "`na.rm` must be TRUE or FALSE")
})

test_that("a bad na.rm is an error on the fast path too", {
  y <- c(3, 1, 2, 5, 4)
  w <- c(1, 2, 1, 1, 3)
  for (v in list(NA, "yes", c(TRUE, FALSE), NULL, list(TRUE), logical(0), NaN,
                 "auto", factor("TRUE"))) {
    # a plain vector with device = "cpu" takes the fast path in C
    expect_error(isotonic(y, w, na.rm = v), "`na.rm` must be TRUE or FALSE",
                 class = "gpuiso_error_input")
    expect_error(isotonic(y, na.rm = v, device = "cpu"), "`na.rm` must be TRUE or FALSE",
                 class = "gpuiso_error_input")
  }
  expect_identical(isotonic(y, w, na.rm = TRUE), isotonic(y, w))
})

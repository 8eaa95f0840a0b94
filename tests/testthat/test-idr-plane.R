# IDR on two covariates on the GPU (cuda/idr_plane.cu): the same CDFs as the
# CPU's partial-order engine, to 1e-10, for single fits and `by` batches.

# The CDFs of a fit on several covariates as a points x thresholds matrix.
po_dense <- function(fit) {
  .Call(gpuiso:::ffi_idr_cdf, fit$ptr, fit$start, fit$value, as.double(fit$npoints),
        seq_len(fit$npoints) - 1L, numeric(fit$npoints), seq_along(fit$thresholds) - 1L, FALSE)
}

# A fit's points in lexicographic order (its storage order comes from fits
# at a few thresholds on the fit's engine, so two engines may store tied
# points in other orders): their covariates, weights, CDFs and covering
# pairs.
po_lex <- function(fit) {
  to_lex <- order(fit$lex)
  e <- cbind(to_lex[fit$edges$from], to_lex[fit$edges$to])
  list(x = `row.names<-`(fit$x[fit$lex, , drop = FALSE], NULL), weight = fit$weight[fit$lex],
       F = po_dense(fit)[fit$lex, , drop = FALSE], edges = e[order(e[, 1L], e[, 2L]), ])
}

# The largest difference of two fits' CDFs, point by point.
po_diff <- function(a, b) max(abs(po_lex(a)$F - po_lex(b)$F))

# What every fit's blocks must be: a first block at point 0, starts
# increasing, values in [0, 1], each point's CDF not decreasing over the
# thresholds and 1 at the last, and not increasing up the order.
expect_po_blocks <- function(fit) {
  K <- length(fit$thresholds)
  for (k in seq_len(K)) {
    b <- seq.int(fit$ptr[k] + 1, fit$ptr[k + 1])
    expect_identical(fit$start[b[1]], 0L)
    expect_false(is.unsorted(fit$start[b], strictly = TRUE))
  }
  F <- po_dense(fit)
  expect_true(all(F >= 0 & F <= 1))
  expect_true(all(F[, K] == 1))
  if (K > 1) expect_true(all(F[, -1L] >= F[, -K]))
  e <- fit$edges
  expect_true(all(F[e$from, , drop = FALSE] >= F[e$to, , drop = FALSE] - 1e-12))
}

test_that("device = 'gpu' on two covariates without a GPU is a classed error", {
  skip_if(gpu_available())
  X <- data.frame(a = c(1, 2, 3, 1), b = c(2, 1, 3, 3))
  expect_error(idr(c(1, 2, 3, 4), X, device = "gpu"), class = "gpuiso_error_device",
               regexp = "not available")
  expect_identical(idr(c(1, 2, 3, 4), X, device = "auto")$device, "cpu")
  X$c <- 1:4
  expect_error(idr(c(1, 2, 3, 4), X, device = "gpu"), class = "gpuiso_error_input",
               regexp = "one covariate or on two .*with 3")
})

test_that("IDR on two covariates on the GPU equals the CPU's fit", {
  skip_if_not(gpu_available())
  set.seed(71)
  cases <- list(
    list(n = 400, ties = TRUE, w = FALSE, grid = NULL, dec = FALSE),
    list(n = 400, ties = TRUE, w = TRUE, grid = NULL, dec = c(FALSE, TRUE)),
    list(n = 600, ties = FALSE, w = TRUE, grid = seq(0, 10, by = 0.25), dec = FALSE),
    list(n = 1, ties = FALSE, w = FALSE, grid = NULL, dec = FALSE),
    list(n = 30, ties = TRUE, w = FALSE, grid = NULL, dec = TRUE, same = TRUE),
    list(n = 2500, ties = FALSE, w = FALSE, grid = NULL, dec = FALSE))
  for (cs in cases) {
    a <- runif(cs$n, 0, 5)
    b <- runif(cs$n, 0, 5)
    if (cs$ties) {
      a <- round(a)
      b <- round(b, 1)
    }
    if (isTRUE(cs$same)) a <- b <- rep(2, cs$n)
    X <- data.frame(a = a, b = b)
    y <- rgamma(cs$n, shape = 1 + (a + 5 - b) / 3)
    if (cs$ties) y <- round(y, 1)
    # any positive weights: the device forms the shares as the CPU does
    w <- if (cs$w) runif(cs$n, 0.1, 3) else NULL
    X0 <- X; y0 <- y; w0 <- w
    g <- idr(y, X, weights = w, thresholds = cs$grid, decreasing = cs$dec, device = "gpu")
    c <- idr(y, X, weights = w, thresholds = cs$grid, decreasing = cs$dec, device = "cpu")
    expect_identical(g$device, "gpu")
    expect_identical(c$device, "cpu")
    expect_identical(g$thresholds, c$thresholds)
    expect_identical(po_lex(g)[c("x", "weight", "edges")], po_lex(c)[c("x", "weight", "edges")])
    expect_lte(po_diff(g, c), 1e-10)
    expect_po_blocks(g)
    expect_lte(max(abs(crps(predict(g), y) - crps(predict(c), y))), 1e-10)
    nd <- data.frame(a = c(0, 2.5, 6), b = c(1, 2.5, -1))
    expect_lte(max(abs(cdf(predict(g, nd), 1:4) - cdf(predict(c, nd), 1:4))), 1e-10)
    expect_identical(X, X0); expect_identical(y, y0); expect_identical(w, w0)
  }
})

test_that("ensembles of two members and `by` batches on the GPU equal the CPU's", {
  skip_if_not(gpu_available())
  set.seed(72)
  n <- 900
  st <- sample(c("north", "south", "east"), n, replace = TRUE)
  E <- data.frame(m1 = rnorm(n), m2 = rnorm(n))
  y <- round(E$m1 + E$m2 + rnorm(n), 1)
  for (ord in c("sd", "icx")) {
    o <- stats::setNames(1, ord)
    g <- idr(y, E, orders = o, device = "gpu")
    c <- idr(y, E, orders = o, device = "cpu")
    expect_identical(g$device, "gpu")
    expect_lte(po_diff(g, c), 1e-10)
  }
  X <- data.frame(a = round(runif(n, 0, 4), 1), b = round(runif(n, 0, 4), 1))
  w <- runif(n, 0.5, 2)
  g <- idr(y, X, weights = w, by = st, device = "gpu")
  c <- idr(y, X, weights = w, by = st, device = "cpu")
  expect_identical(names(g$fits), names(c$fits))
  for (l in names(g$fits)) {
    expect_identical(g$fits[[l]]$device, "gpu")
    expect_lte(po_diff(g$fits[[l]], c$fits[[l]]), 1e-10)
    expect_po_blocks(g$fits[[l]])
    # each level of the batch is the fit of its own data
    one <- idr(y[st == l], X[st == l, ], weights = w[st == l], device = "cpu")
    expect_lte(po_diff(g$fits[[l]], one), 1e-10)
  }
  nd <- data.frame(a = c(1, 2), b = c(3, 0.5))
  expect_equal(cdf(predict(g, nd, by = c("east", "south")), 0:2),
               cdf(predict(c, nd, by = c("east", "south")), 0:2), tolerance = 1e-10)
})

test_that("device = 'auto' on two covariates takes the GPU for many small fits", {
  skip_if_not(gpu_available())
  set.seed(74)
  gen <- function(n) {
    X <- data.frame(a = runif(n), b = runif(n))
    list(X = X, y = rnorm(n, X$a - X$b))
  }
  d <- gen(12000)
  st <- rep(1:10, length.out = 12000)
  b <- idr(d$y, d$X, by = st, device = "auto")
  expect_true(all(vapply(b$fits, `[[`, "", "device") == "gpu"))
  # levels above 3,000 observations, or fewer than 10,000 in all: the CPU
  expect_true(all(vapply(idr(d$y, d$X, by = st %% 3, device = "auto")$fits, `[[`, "",
                         "device") == "cpu"))
  s <- gen(2000)
  expect_identical(idr(s$y, s$X, device = "auto")$device, "cpu")
  old <- options(gpuiso.idr_po_gpu_min_n = 0)
  on.exit(options(old))
  expect_identical(idr(s$y, s$X, device = "auto")$device, "gpu")
  d$X$c <- d$X$a
  expect_identical(idr(d$y[1:500], d$X[1:500, ], device = "auto")$device, "cpu")
})

test_that("the GPU's waves, its limits and its memory on two covariates", {
  skip_if_not(gpu_available())
  set.seed(73)
  n <- 700
  X <- data.frame(a = runif(n), b = runif(n))
  y <- rnorm(n, X$a - X$b)
  st <- rep(1:4, length.out = n)
  c1 <- idr(y, X, device = "cpu")
  cb <- idr(y, X, by = st, device = "cpu")
  # waves of a few thresholds each: the clamp carried across them, and
  # waves that start inside a level
  for (cap in c(1, 700, 5000)) {
    old <- .Call(gpuiso:::ffi_gpu_test_idr_plane_wave, cap)
    g1 <- idr(y, X, device = "gpu")
    gb <- idr(y, X, by = st, device = "gpu")
    .Call(gpuiso:::ffi_gpu_test_idr_plane_wave, old)
    expect_lte(po_diff(g1, c1), 1e-10)
    for (l in names(gb$fits)) {
      expect_lte(po_diff(gb$fits[[l]], cb$fits[[l]]), 1e-10)
    }
  }
  # more distinct points than a block's shared memory holds: the CPU fits
  n <- 25000
  X <- data.frame(a = runif(n), b = runif(n))
  y <- rnorm(n, X$a - X$b)
  g <- idr(y, X, thresholds = c(-1, 0, 1), device = "gpu")
  expect_identical(g$device, "cpu")
  expect_identical(g[c("ptr", "start", "value")],
                   idr(y, X, thresholds = c(-1, 0, 1), device = "cpu")[c("ptr", "start", "value")])
  on.exit(full_device(FALSE), add = TRUE)
  full_device(TRUE)
  expect_error(idr(y[1:500], X[1:500, ], device = "gpu"), class = "gpuiso_error_device",
               regexp = "out of memory")
  full_device(FALSE)
  expect_identical(gpu_info()$workspace, 0)
})

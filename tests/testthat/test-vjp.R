# isotonic_vjp(): the closed form of the api, finite differences in y and in
# the weights, shapes, batches and groups.

# Central differences of L(y, w) = sum(grad * isotonic(y, w)).
fd_grad <- function(y, grad, w, decreasing = FALSE, eps = 1e-6) {
  n <- length(y)
  wf <- if (is.null(w)) rep(1, n) else w
  L <- function(yy, ww) sum(grad * isotonic(yy, ww, decreasing = decreasing))
  dy <- dw <- numeric(n)
  for (i in seq_len(n)) {
    e <- replace(numeric(n), i, eps)
    dy[i] <- (L(y + e, wf) - L(y - e, wf)) / (2 * eps)
    dw[i] <- (L(y, wf + e) - L(y, wf - e)) / (2 * eps)
  }
  list(y = dy, weights = dw)
}

test_that("the vjp agrees with finite differences in y and in the weights", {
  set.seed(31)
  for (trial in 1:40) {
    n <- sample(2:30, 1L)
    y <- switch(trial %% 3L + 1L, rnorm(n), cumsum(rnorm(n)), rnorm(n) + seq_len(n) / n)
    grad <- rnorm(n)
    w <- switch(trial %% 4L + 1L, NULL, runif(n, 0.1, 1.1), exp(runif(n, 0, 3)),
                runif(n, 0.5, 2))
    dec <- trial %% 2L == 0L
    v <- isotonic_vjp(y, grad, w, decreasing = dec)
    fd <- fd_grad(y, grad, w, decreasing = dec)
    lab <- sprintf("trial %d", trial)
    expect_lte(max(abs(v$y - fd$y)), 1e-6, label = paste(lab, "d/dy"))
    expect_lte(max(abs(v$weights - fd$weights)), 1e-6, label = paste(lab, "d/dw"))
  }
})

test_that("the vjp equals the closed form w G / W and (y - z) G / W", {
  set.seed(32)
  for (trial in 1:300) {
    p <- random_problem(150L)
    n <- length(p$y)
    grad <- rnorm(n)
    v <- isotonic_vjp(p$y, grad, p$w, decreasing = p$decreasing)
    f <- vjp_on_partition(p$y, isotonic(p$y, p$w, decreasing = p$decreasing), grad,
                          p$w, ref_pava(p$y, p$w, p$decreasing)$starts)
    s <- 1 + max(abs(p$y))
    lab <- sprintf("trial %d", trial)
    expect_lte(max(abs(v$y - f$y)), 1e-12 * (1 + max(abs(grad))) * n, label = lab)
    expect_lte(max(abs(v$weights - f$weights) / s), 1e-12 * (1 + max(abs(grad))) * n,
               label = lab)
  }
  # by hand: the block {3, 2} of c(1, 3, 2, 4)
  v <- isotonic_vjp(c(1, 3, 2, 4), grad = c(0, 1, 0, 0))
  expect_equal(v$y, c(0, 0.5, 0.5, 0))
  expect_equal(v$weights, c(0, 0.25, -0.25, 0))
  v <- isotonic_vjp(c(1, 3, 2, 4), grad = c(1, 1, 1, 1), weights = c(1, 1, 3, 1))
  # block {3, 2}: W = 4, G = 2, z = 2.25
  expect_equal(v$y, c(1, 0.5, 1.5, 1))
  expect_equal(v$weights, c(0, 0.75 * 2 / 4, -0.25 * 2 / 4, 0))
})

test_that("zero-weight points: no gradient in y, d/dw from their assigned block", {
  y <- c(1, 9, 2, 5); w <- c(1, 0, 1, 1); grad <- c(1, 2, 3, 4)
  v <- isotonic_vjp(y, grad, w)
  z <- isotonic(y, w) # 1 2 2 5: point 2 joins point 3's block
  expect_identical(v$y[2], 0)
  expect_equal(v$y, c(1, 0, 5, 4))
  expect_equal(v$weights, c(0, (9 - 2) * 5 / 1, 0, 0))
  # trailing zero weight: the last block
  v <- isotonic_vjp(c(1, 5, 3, 0), c(1, 1, 1, 1), c(1, 1, 1, 0))
  expect_equal(v$y, c(1, 1.5, 1.5, 0))
  expect_equal(v$weights, c(0, (5 - 4) * 3 / 2, (3 - 4) * 3 / 2, (0 - 4) * 3 / 2))
})

test_that("n = 0, 1, 2 work", {
  expect_identical(isotonic_vjp(numeric(0), numeric(0)),
                   list(y = numeric(0), weights = numeric(0)))
  expect_equal(isotonic_vjp(5, 2), list(y = 2, weights = 0))
  expect_equal(isotonic_vjp(c(2, 1), c(1, 3)), list(y = c(2, 2), weights = c(1, -1)))
  expect_equal(isotonic_vjp(c(1, 2), c(1, 3)), list(y = c(1, 3), weights = c(0, 0)))
})

test_that("shapes: matrices are batches, groups are separate problems", {
  set.seed(33)
  y <- matrix(rnorm(60), 12, 5, dimnames = list(NULL, letters[1:5]))
  g <- matrix(rnorm(60), 12, 5)
  wr <- runif(12, 0.1, 1)
  for (dec in c(FALSE, TRUE)) {
    v <- isotonic_vjp(y, g, wr, decreasing = dec)
    expect_identical(dim(v$y), dim(y))
    expect_identical(dim(v$weights), dim(y))
    expect_identical(dimnames(v$y), dimnames(y))
    for (j in 1:5) {
      vj <- isotonic_vjp(y[, j], g[, j], wr, decreasing = dec)
      expect_identical(unname(v$y[, j]), vj$y)
      expect_identical(unname(v$weights[, j]), vj$weights)
    }
  }
  n <- 100
  yy <- rnorm(n); gg <- rnorm(n); ww <- runif(n); lab <- sample(c("p", "q", "r"), n, TRUE)
  v <- isotonic_vjp(yy, gg, ww, groups = lab, decreasing = TRUE)
  for (l in unique(lab)) {
    i <- which(lab == l)
    vl <- isotonic_vjp(yy[i], gg[i], ww[i], decreasing = TRUE)
    expect_identical(v$y[i], vl$y)
    expect_identical(v$weights[i], vl$weights)
  }
  names(yy) <- paste0("e", seq_len(n))
  expect_identical(names(isotonic_vjp(yy, gg)$y), names(yy))
})

test_that("the vjp does not depend on the thread count", {
  set.seed(34)
  y <- matrix(rnorm(5e4), 50, 1e3); g <- matrix(rnorm(5e4), 50, 1e3)
  a <- with_opts(list(gpuiso.threads = 1L), isotonic_vjp(y, g))
  b <- with_opts(list(gpuiso.threads = 2L), isotonic_vjp(y, g))
  expect_identical(a, b)
})

# Isotonic regression on a partial order (src/core/poset.c).

# The fit by quadprog: minimise sum w (f - y)^2 with f[to] - f[from] >= 0.
qp_fit <- function(y, w, from, to) {
  n <- length(y)
  A <- matrix(0, n, length(from))
  A[cbind(from, seq_along(from))] <- -1
  A[cbind(to, seq_along(from))] <- A[cbind(to, seq_along(from))] + 1
  quadprog::solve.QP(diag(w, n), w * y, A, rep(0, length(from)))$solution
}

# The transitive closure of a graph as a logical matrix (i reaches j).
closure <- function(n, from, to) {
  R <- diag(n) > 0
  R[cbind(from, to)] <- TRUE
  repeat {
    R2 <- (R %*% R) > 0
    if (identical(R2, R)) return(R)
    R <- R2
  }
}

test_that("the partial-order fit equals quadprog on random graphs", {
  skip_if_not_installed("quadprog")
  set.seed(71)
  for (it in 1:150) {
    n <- sample(2:14, 1)
    pairs <- t(combn(n, 2))
    keep <- runif(nrow(pairs)) < runif(1, 0.05, 0.6)
    from <- pairs[keep, 1]
    to <- pairs[keep, 2]
    y <- if (it %% 3 == 0) round(rnorm(n), 1) else rnorm(n)
    w <- if (it %% 2 == 0) rep(1, n) else rexp(n) + 0.01
    got <- gpuiso:::poset_fit(y, w, from, to)
    ref <- if (length(from)) qp_fit(y, w, from, to) else y
    expect_equal(got, ref, tolerance = 1e-8, info = it)
    expect_true(all(got[from] <= got[to] + 1e-12), info = it)
  }
})

test_that("on a chain the fit is the isotonic regression; a cycle ties its nodes", {
  set.seed(72)
  y <- rnorm(500)
  w <- rexp(500)
  # the chain in a shuffled node numbering
  p <- sample(500)
  got <- gpuiso:::poset_fit(y[p], w[p], order(p)[1:499], order(p)[2:500])
  expect_equal(got[order(p)], isotonic(y, weights = w), tolerance = 1e-12)
  expect_equal(gpuiso:::poset_fit(c(3, 1, 5), c(1, 3, 1), c(1, 2), c(2, 1)), c(1.5, 1.5, 5))
  # no edges: the data; one node
  expect_identical(gpuiso:::poset_fit(c(2, -1), c(1, 1), integer(), integer()), c(2, -1))
  expect_identical(gpuiso:::poset_fit(4, 2, integer(), integer()), 4)
})

test_that("the fit on the componentwise order of points: quadprog, and KKT block means", {
  skip_if_not_installed("quadprog")
  set.seed(73)
  for (d in 2:3) {
    n <- 150
    X <- matrix(runif(n * d), n, d)
    y <- rowSums(X) + rnorm(n, sd = 0.5)
    w <- sample(1:4, n, TRUE)
    e <- gpuiso:::comp_edges(X)
    got <- gpuiso:::poset_fit(y, w, e$from, e$to)
    expect_equal(got, qp_fit(y, w, e$from, e$to), tolerance = 1e-8, info = d)
    # every pair in the order, not only the covering edges, holds
    le <- outer(seq_len(n), seq_len(n), Vectorize(function(i, j) all(X[i, ] <= X[j, ])))
    expect_true(all(outer(got, got, "<=")[le] | abs(outer(got, got, "-"))[le] < 1e-12))
    # each level set's value is its weighted mean
    lv <- split(seq_len(n), round(got, 10))
    for (b in lv) expect_equal(sum(w[b] * y[b]) / sum(w[b]), got[b[1]], tolerance = 1e-10)
  }
})

test_that("the cuts of points in the plane give the fits of the network's cuts and quadprog", {
  skip_if_not_installed("quadprog")
  set.seed(79)
  for (it in 1:120) {
    n <- sample(c(2:14, 60, 300), 1)
    # continuous points, and grids with ties in either coordinate
    X <- switch(it %% 4 + 1, matrix(runif(2 * n), n), matrix(sample(0:3, 2 * n, TRUE), n),
                cbind(sample(1:4, n, TRUE), runif(n)), matrix(sample(1:40, 2 * n, TRUE), n))
    X <- unique(X)
    n <- nrow(X)
    e <- gpuiso:::comp_edges(X)
    y <- switch(it %% 3 + 1, rnorm(n), sample(0:1, n, TRUE), round(rnorm(n)))
    w <- if (it %% 2) rexp(n) + 0.01 else rep(1, n)
    got <- gpuiso:::poset_fit(y, w, e$from, e$to, points = X)
    expect_equal(got, gpuiso:::poset_fit(y, w, e$from, e$to), tolerance = 1e-12, info = it)
    if (n <= 60 && length(e$from)) {
      expect_equal(got, qp_fit(y, w, e$from, e$to), tolerance = 1e-8, info = it)
    }
    expect_true(all(got[e$from] <= got[e$to]), info = it)
    lv <- split(seq_len(n), round(got, 10))
    for (b in lv) expect_equal(sum(w[b] * y[b]) / sum(w[b]), got[b[1]], tolerance = 1e-10)
  }
})

test_that("warm sequences and batches with points in the plane equal cold fits", {
  set.seed(80)
  for (it in 1:10) {
    n <- sample(c(30, 200, 500), 1)
    X <- unique(if (it %% 2) matrix(runif(2 * n), n) else matrix(sample(1:12, 2 * n, TRUE), n))
    n <- nrow(X)
    e <- gpuiso:::comp_edges(X)
    # IDR-like columns: shares that switch on a few nodes at a time
    Y <- matrix(0, n, 30)
    for (k in 2:30) {
      Y[, k] <- Y[, k - 1]
      at <- sample(which(Y[, k] < 1), min(sum(Y[, k] < 1), sample(1:8, 1)))
      Y[at, k] <- 1
    }
    w <- if (it %% 3 == 0) rexp(n) + 0.05 else rep(1, n)
    cold <- gpuiso:::poset_fit(Y, w, e$from, e$to)
    for (k in thread_counts()) {
      for (warm in c(FALSE, TRUE)) {
        got <- with_threads(k, gpuiso:::poset_fit(Y, w, e$from, e$to, warm = warm, points = X))
        expect_equal(got, cold, tolerance = 1e-12, info = sprintf("%d, %d threads", it, k))
      }
    }
  }
})

test_that("points in the plane that contradict the edges are refused", {
  X <- cbind(c(1, 2, 3), c(1, 3, 2))
  e <- gpuiso:::comp_edges(X)
  expect_error(gpuiso:::poset_fit(c(3, 2, 1), rep(1, 3), e$from, e$to, points = -X),
               "do not fit the edges")
  expect_error(gpuiso:::poset_fit(c(3, 2, 1), rep(1, 3), e$from, e$to, points = X[1:2, ]),
               "two columns, a row per node")
})

test_that("comp_edges() is the transitive reduction of the componentwise order", {
  set.seed(74)
  for (it in 1:30) {
    d <- sample(1:3, 1)
    n <- sample(1:60, 1)
    X <- unique(matrix(sample(0:6, n * d, TRUE), ncol = d))
    n <- nrow(X)
    e <- gpuiso:::comp_edges(X)
    le <- outer(seq_len(n), seq_len(n), Vectorize(function(i, j) all(X[i, ] <= X[j, ])))
    expect_identical(closure(n, e$from, e$to), le, info = it)
    # no edge is implied by the others
    for (k in seq_along(e$from)) {
      i <- e$from[k]
      j <- e$to[k]
      between <- le[i, ] & le[, j]
      between[c(i, j)] <- FALSE
      expect_false(any(between), info = it)
    }
  }
})

test_that("the covering pairs of points in the plane (a sweep) are those of the general scan", {
  # a constant third coordinate leaves the order as it is but takes the
  # scan for any dimension
  set.seed(81)
  for (it in 1:16) {
    n <- sample(c(1, 2, 3, 10, 200, 1500), 1)
    X <- unique(switch(it %% 4 + 1, matrix(runif(2 * n), n), matrix(sample(0:4, 2 * n, TRUE), n),
                       cbind(sample(1:3, n, TRUE), -runif(n)),
                       cbind(runif(n), sample(c(-1, 0, 1), n, TRUE))))
    expect_identical(gpuiso:::comp_edges(X), gpuiso:::comp_edges(cbind(X, 0)), info = it)
  }
})

test_that("comp_edges() gives the same pairs in the same order on any threads", {
  # sizes around the runs of 64 points that the threads share out
  set.seed(76)
  for (n in c(1, 63, 64, 65, 200, 700)) {
    X <- matrix(runif(n * 3), n, 3)
    one <- with_threads(1, gpuiso:::comp_edges(X))
    le <- outer(seq_len(n), seq_len(n), Vectorize(function(i, j) all(X[i, ] <= X[j, ])))
    if (n <= 200) expect_identical(closure(n, one$from, one$to), le, info = n)
    for (k in thread_counts()) {
      expect_identical(with_threads(k, gpuiso:::comp_edges(X)), one, info = sprintf("%d, %d", n, k))
    }
  }
})

test_that("a warm-started sequence equals cold fits of every column, whatever changes", {
  # columns that differ at a few nodes, up or down, to values at, below or
  # above the extremes of the column before (where level sets may be taken
  # apart node by node), on random graphs and componentwise orders
  set.seed(77)
  for (it in 1:24) {
    if (it %% 3 == 0) {
      n <- sample(3:30, 1)
      pairs <- t(combn(n, 2))
      keep <- runif(nrow(pairs)) < runif(1, 0.1, 0.7)
      from <- pairs[keep, 1]
      to <- pairs[keep, 2]
    } else {
      n <- sample(c(50, 200, 400), 1)
      e <- gpuiso:::comp_edges(matrix(runif(n * (2 + it %% 2)), n))
      from <- e$from
      to <- e$to
    }
    K <- 40
    Y <- matrix(0, n, K)
    Y[, 1] <- if (it %% 2) sample(c(0, 0, 0.5, 1, 1), n, TRUE) else round(rnorm(n), 1)
    for (k in 2:K) {
      y <- Y[, k - 1]
      at <- sample(n, sample(1:5, 1))
      y[at] <- switch(k %% 4 + 1, min(y), max(y), y[at] + sample(c(-1, 1), length(at), TRUE),
                      runif(length(at), min(y) - 1, max(y) + 1))
      Y[, k] <- y
    }
    w <- if (it %% 4 < 2) rep(1, n) else rexp(n) + 0.05
    cold <- gpuiso:::poset_fit(Y, w, from, to)
    for (k in thread_counts()) {
      warm <- with_threads(k, gpuiso:::poset_fit(Y, w, from, to, warm = TRUE))
      expect_equal(warm, cold, tolerance = 1e-12, info = sprintf("graph %d, %d threads", it, k))
      expect_true(all(warm[from, ] <= warm[to, ] + 1e-12), info = it)
    }
  }
})

test_that("warm steps where most nodes change (solved in full) equal cold fits", {
  set.seed(76)
  for (d in 2:3) {
    n <- 300
    X <- matrix(runif(d * n), n, d)
    e <- gpuiso:::comp_edges(X)
    y <- rowSums(X) + rnorm(n)
    # steps that change every node, most nodes, a few, then most again
    th <- quantile(y, c(0.2, 0.8, 0.81, 0.82, 0.3), names = FALSE)
    Y <- cbind(rnorm(n), outer(y, th, "<=") + 0, round(rnorm(n), 1))
    w <- rexp(n) + 0.1
    cold <- gpuiso:::poset_fit(Y, w, e$from, e$to, points = if (d == 2L) X)
    for (k in thread_counts()) {
      warm <- with_threads(k, gpuiso:::poset_fit(Y, w, e$from, e$to, warm = TRUE,
                                                  points = if (d == 2L) X))
      expect_equal(warm, cold, tolerance = 1e-12, info = sprintf("d = %d, %d threads", d, k))
    }
  }
})

test_that("a batch of problems on one graph equals its columns fitted one by one, on any threads", {
  set.seed(75)
  n <- 400
  X <- matrix(runif(2 * n), n, 2)
  y <- rowSums(X) + rnorm(n)
  e <- gpuiso:::comp_edges(X)
  th <- quantile(y, seq(0.05, 0.95, length.out = 13), names = FALSE)
  Y <- outer(y, th, "<=") + 0
  w <- rexp(n) + 0.1
  one <- vapply(seq_along(th), function(k) gpuiso:::poset_fit(Y[, k], w, e$from, e$to),
                numeric(n))
  for (k in thread_counts()) {
    expect_identical(with_threads(k, gpuiso:::poset_fit(Y, w, e$from, e$to)), one, info = k)
  }
  # the CDFs of IDR: within [0, 1], not decreasing in the threshold
  expect_true(all(one >= -1e-15 & one <= 1 + 1e-15))
  expect_true(all(one[, -1] >= one[, -ncol(one)] - 1e-12))
  skip_unless_many_threads()
})

# Batches (R/problems.R): matrices and ragged groups laid out as problems,
# equal to the loop of single fits; the user's shape, names and type
# restored; groups that do not match.

test_that("integer and logical input give doubles; names and dimnames are kept", {
  expect_identical(isotonic(c(5L, 3L, 4L)), c(4, 4, 4))
  expect_identical(isotonic(c(TRUE, FALSE, TRUE)), c(0.5, 0.5, 1))
  y <- c(a = 3, b = 1, c = 2)
  expect_identical(names(isotonic(y)), c("a", "b", "c"))
  expect_identical(names(isotonic(y, groups = c(1, 2, 1))), c("a", "b", "c"))
  m <- matrix(c(3, 1, 2, 1, 3, 2), 3, dimnames = list(c("r1", "r2", "r3"), c("u", "v")))
  z <- isotonic(m)
  expect_identical(dim(z), c(3L, 2L))
  expect_identical(dimnames(z), dimnames(m))
  expect_identical(unname(z[, "u"]), c(2, 2, 2))
  expect_identical(unname(z[, "v"]), c(1, 2.5, 2.5))
  zi <- isotonic(matrix(c(3L, 1L, 2L, 1L), 2))
  expect_identical(zi, matrix(c(2, 2, 1.5, 1.5), 2))
})

test_that("a matrix is a batch: it equals the loop of single fits", {
  set.seed(7)
  for (trial in 1:60) {
    nr <- sample(0:40, 1L)
    nc <- sample(1:12, 1L)
    y <- matrix(round(rnorm(nr * nc), sample(0:2, 1L)), nr, nc)
    dec <- trial %% 2L == 0L
    loop <- function(wcol) {
      out <- y
      for (j in seq_len(nc)) out[, j] <- isotonic(y[, j], wcol(j), decreasing = dec)
      out
    }
    expect_identical(isotonic(y, decreasing = dec), loop(function(j) NULL))
    if (nr > 0L) {
      wm <- matrix(runif(nr * nc, 0.1, 2), nr, nc)
      expect_identical(isotonic(y, wm, decreasing = dec), loop(function(j) wm[, j]))
      wr <- exp(runif(nr, 0, 8))
      expect_identical(isotonic(y, wr, decreasing = dec), loop(function(j) wr))
      # a weights vector as long as y (not nrow) is taken elementwise
      if (nc > 1L) {
        wv <- as.vector(wm)
        expect_identical(isotonic(y, wv, decreasing = dec), loop(function(j) wm[, j]))
      }
    }
  }
})

test_that("a batch of 10,000 problems of 10 (and 10 of 10,000) equals the loop", {
  set.seed(8)
  y <- matrix(rnorm(1e5), 10, 1e4)
  w <- matrix(exp(runif(1e5, 0, 8)), 10, 1e4)
  z <- isotonic(y, w)
  zw <- isotonic(y)
  loop <- loopw <- y
  for (j in seq_len(ncol(y))) {
    loop[, j] <- isotonic(y[, j])
    loopw[, j] <- isotonic(y[, j], w[, j])
  }
  expect_identical(zw, loop)
  expect_identical(z, loopw)
  y2 <- matrix(cumsum(rnorm(1e5)), 1e4, 10)
  z2 <- isotonic(y2, decreasing = TRUE)
  for (j in 1:10) expect_identical(z2[, j], isotonic(y2[, j], decreasing = TRUE))
})

test_that("ragged groups equal separate fits, contiguous or not", {
  set.seed(9)
  for (trial in 1:100) {
    n <- sample(1:200, 1L)
    ng <- sample(1:8, 1L)
    labels <- switch(trial %% 4L + 1L,
      sample(letters[1:ng], n, TRUE),                 # character, interleaved
      sort(sample(1:ng, n, TRUE)),                    # integer, contiguous
      factor(sample(c("x", "y", "z")[seq_len(min(ng, 3L))], n, TRUE),
             levels = c("z", "y", "x", "unused")),    # factor
      sample(c(2.5, -1, 10)[seq_len(min(ng, 3L))], n, TRUE)) # double labels
    y <- rnorm(n)
    w <- if (trial %% 3L == 0L) NULL else exp(runif(n, 0, 4))
    dec <- trial %% 2L == 0L
    z <- isotonic(y, w, decreasing = dec, groups = labels)
    expected <- numeric(n)
    for (g in unique(as.character(labels))) {
      i <- which(as.character(labels) == g)
      expected[i] <- isotonic(y[i], w[i], decreasing = dec)
    }
    expect_identical(z, expected, label = sprintf("trial %d", trial))
  }
  # a fit never crosses group boundaries
  expect_identical(isotonic(c(2, 1, 5, 4, 3), groups = c("u", "u", "v", "v", "v")),
                   c(1.5, 1.5, 4, 4, 4))
  expect_identical(isotonic(c(5, 1, 4, 2), groups = c(1, 2, 1, 2)), c(4.5, 1, 4.5, 2))
  expect_identical(isotonic(c(3, 1), groups = c("a", "b")), c(3, 1))
  # zero weights inside a group follow the rule within that group
  expect_identical(isotonic(c(1, 9, 7, 2, 0, 4), weights = c(1, 0, 1, 1, 1, 0),
                            groups = c("a", "a", "b", "a", "b", "b")),
                   c(1, 2, 3.5, 2, 3.5, 3.5))
})

test_that("groups that do not match are errors", {
  expect_input_error(isotonic(1:3, groups = c("a", "b")), "`groups`.*one label per element")
  expect_input_error(isotonic(1:3, groups = c("a", NA, "b")), "`groups`.*element 2 is NA")
  expect_input_error(isotonic(1:3, groups = factor(c("a", "b", NA))), "`groups`.*element 3 is NA")
  expect_input_error(isotonic(1:3, groups = list(1, 2, 3)), "`groups`.*list")
  expect_input_error(isotonic(matrix(1:4, 2), groups = 1:4), "`groups`.*matrix")
  expect_input_error(isotonic_vjp(1:3, c(1, 1, 1), groups = 1:2), "`groups`.*length 2")
})

# The options of the fits (R/fit-options.R), through isotonic(): the bounds
# y_min and y_max, and decreasing = "auto".

test_that("y_min and y_max give the bounded least-squares fit: the clipped one", {
  set.seed(501)
  for (trial in 1:200) {
    p <- random_problem(40L)
    lo <- -abs(rnorm(1)) / 2
    hi <- abs(rnorm(1)) / 2
    z <- isotonic(p$y, p$w, p$decreasing, y_min = lo, y_max = hi)
    u <- isotonic(p$y, p$w, p$decreasing)
    expect_identical(z, pmin(pmax(u, lo), hi))
    # the KKT conditions of the bounded problem, by brute force on small n:
    # no bounded monotone fit nearby does better
    w <- if (is.null(p$w)) rep(1, length(p$y)) else p$w
    loss <- function(v) sum(w * (p$y - v)^2)
    for (k in 1:3) {
      v <- pmin(pmax(u + rnorm(length(u), sd = 0.1), lo), hi)
      v <- if (p$decreasing) rev(cummax(rev(v))) else cummax(v)
      expect_true(loss(z) <= loss(v) + 1e-9 * (1 + loss(v)))
    }
  }
  m <- cbind(c(3, 1, 2), c(1, 5, 4))
  expect_identical(isotonic(m, y_min = 2), pmax(isotonic(m), 2))
  expect_identical(isotonic(1:5 + 0, y_max = Inf), 1:5 + 0)
  expect_error(isotonic(1:3, y_min = 3, y_max = 1), "`y_min` must not exceed `y_max`",
               class = "gpuiso_error_input")
  expect_error(isotonic(1:3, y_min = NA_real_), "`y_min` must be one number",
               class = "gpuiso_error_input")
})

test_that("decreasing = \"auto\" takes the direction of Spearman's correlation", {
  set.seed(503)
  up <- cumsum(rnorm(50)) + 1:50
  down <- -up
  zu <- isotonic(up, decreasing = "auto")
  expect_identical(attr(zu, "decreasing"), FALSE)
  expect_identical(as.vector(zu), isotonic(up))
  zd <- isotonic(down, decreasing = "auto")
  expect_identical(attr(zd, "decreasing"), TRUE)
  expect_identical(as.vector(zd), isotonic(down, decreasing = TRUE))
  # per problem: columns go their own ways, in one call
  m <- cbind(up, down, rev(up))
  zm <- isotonic(m, decreasing = "auto")
  expect_identical(attr(zm, "decreasing"), c(FALSE, TRUE, TRUE))
  expect_identical(zm[, 2], isotonic(down, decreasing = TRUE))
  expect_identical(zm[, 1], isotonic(up))
  g <- rep(c("a", "b"), each = 50)
  zg <- isotonic(c(up, down), groups = g, decreasing = "auto")
  expect_identical(attr(zg, "decreasing"), c(FALSE, TRUE))
  # constant data: increasing
  expect_identical(attr(isotonic(rep(1, 5), decreasing = "auto"), "decreasing"), FALSE)
  expect_error(isotonic(up, decreasing = "down"), "TRUE, FALSE or \"auto\"",
               class = "gpuiso_error_input")
})

test_that("infinite bounds: -Inf below and Inf above are no bound, the others errors", {
  y <- c(3, 1, 2, 5, 4)
  expect_identical(isotonic(y, y_min = -Inf), isotonic(y))
  expect_identical(isotonic(y, y_min = -Inf, y_max = Inf), isotonic(y))
  expect_identical(isotonic(y, y_min = 2, y_max = Inf), pmax(isotonic(y), 2))
  for (f in list(isotonic, function(y, ...) isoreg(seq_along(y), y, ...))) {
    expect_error(f(y, y_min = Inf), "`y_min` must be finite.*not Inf",
                 class = "gpuiso_error_input")
    expect_error(f(y, y_max = -Inf), "`y_max` must be finite.*not -Inf",
                 class = "gpuiso_error_input")
    expect_error(f(y, y_min = Inf, y_max = Inf), "`y_min`", class = "gpuiso_error_input")
  }
  expect_error(isotonic(c(1, NA, 2), y_min = Inf, na.rm = TRUE), "`y_min` must be finite",
               class = "gpuiso_error_input")
  fit <- isoreg(1:5, y, y_min = -Inf, y_max = Inf)
  expect_null(fit$y_min)
  expect_null(fit$y_max)
  expect_identical(fit$yf, isoreg(1:5, y)$yf)
  expect_identical(isoreg(1:5, y, y_min = -Inf, y_max = 4)$y_max, 4)
})

test_that("na.rm keeps one direction per problem, in order, and the layout rules", {
  y <- matrix(c(3, 2, 1, NA, NA, NA, 1, 2, 3), 3)
  f <- isotonic(y, decreasing = "auto", na.rm = TRUE)
  expect_identical(attr(f, "decreasing"), c(TRUE, NA, FALSE))
  expect_equal(f[, 1], c(3, 2, 1))
  expect_true(all(is.na(f[, 2])))
  g <- c("b", "a", "a", "b", "b")
  full <- attr(isotonic(c(1, 3, 1, 2, 5), groups = g, decreasing = "auto"), "decreasing")
  expect_identical(attr(isotonic(c(1, 3, 1, 2, 5), groups = g, decreasing = "auto",
                                 na.rm = TRUE), "decreasing"), full)
  # a missing first value of group "b" leaves the order of the problems as it was
  expect_identical(attr(isotonic(c(NA, 3, 1, 2, 5), groups = g, decreasing = "auto",
                                 na.rm = TRUE), "decreasing"), full)
  expect_identical(attr(isotonic(c(NA, 3, 1, NA, NA), groups = g, decreasing = "auto",
                                 na.rm = TRUE), "decreasing"), c(NA, TRUE))
  # groups with a matrix are an error whether or not values are missing
  for (m in list(matrix(c(2, NA, 1, 4), 2), matrix(c(2, 3, 1, 4), 2))) {
    expect_input_error(isotonic(m, groups = rep(1, 4), na.rm = TRUE),
                       "`groups` can only be used with a vector `y`")
  }
})

test_that("an array of more than two dimensions is an error, not one problem", {
  a <- array(c(3, 1, 2, 4, 5, 6, 7, 8), c(2, 2, 2))
  expect_input_error(isotonic(a), "`y` must be a vector or a matrix, not an array of 3 dimensions")
  expect_input_error(isotonic(a, na.rm = TRUE), "not an array of 3 dimensions")
  # a one-dimensional array is a vector
  expect_identical(as.vector(isotonic(array(c(3, 1, 2)))), c(2, 2, 2))
})

test_that("na.rm names a column of zero weights as the full path does", {
  y <- matrix(c(NA, NA, NA, 1, NA, 3, 4, 5, 6), 3)
  w <- matrix(c(1, 1, 1, 0, 1, 0, 1, 1, 1), 3)
  e <- expect_error(isotonic(y, w, na.rm = TRUE), class = "gpuiso_error_input")
  expect_match(conditionMessage(e), "those of column 2 are all zero", fixed = TRUE)
  expect_equal(e$position, 2)
  y[2, 2] <- 2
  w[2, 2] <- 0
  e2 <- expect_error(isotonic(y[, 2:3], w[, 2:3]), class = "gpuiso_error_input")
  expect_match(conditionMessage(e2), "those of column 1 are all zero", fixed = TRUE)
})

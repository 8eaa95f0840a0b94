# idr(..., by =) (R/idr-by.R): a batch equals the separate fits, in sample
# and at new points, on one and several covariates, on any number of
# threads; and its bad input.

test_that("a batch equals the separate fits of its levels", {
  set.seed(21)
  L <- 7
  n <- 900
  st <- sample(c(letters[1:L]), n, replace = TRUE)
  x <- round(runif(n, 0, 10), 1)
  y <- round(rgamma(n, 1 + x / 3 + match(st, letters) / 4), 1)
  w <- runif(n, 0.2, 2)
  w[sample(n, 30)] <- 0
  fit <- idr(y, x, weights = w, by = st)
  expect_s3_class(fit, "gpuiso_idr_by")
  expect_identical(names(fit$fits), letters[1:L])
  new_x <- c(-1, 0.5, 5, 9.9, 20, 3)
  new_by <- c("a", "b", "g", "a", "c", NA)
  p <- predict(fit, new_x, by = new_by)
  t <- c(0, 1, 2.5, 4, 8)
  for (l in letters[1:L]) {
    r <- st == l
    one <- idr(y[r], x[r], weights = w[r])
    f <- fit$fits[[l]]
    expect_identical(f$ptr, one$ptr)
    expect_identical(f$start, one$start)
    expect_identical(f$value, one$value)
    expect_identical(f$thresholds, one$thresholds)
    expect_equal(crps(fit)[r], unname(crps(one)))
    at <- which(new_by == l)
    if (length(at)) {
      expect_equal(unname(cdf(p, t)[at, , drop = FALSE]),
                   unname(cdf(predict(one, new_x[at]), t)))
      expect_equal(unname(qpred(p, c(0.2, 0.7))[at, , drop = FALSE]),
                   unname(qpred(predict(one, new_x[at]), c(0.2, 0.7))))
    }
  }
  expect_true(all(is.na(cdf(p, t)[6, ])))
  expect_true(is.na(crps(p, rep(3, 6))[6]))
  expect_length(p, 6L)
  expect_s3_class(p[2:3], "gpuiso_idr_pred")
  expect_equal(cdf(p[2:3], t), cdf(p, t)[2:3, ])
  expect_equal(p[[3]], predict(fit$fits[["g"]], 5)[[1]])
  expect_equal(nobs(fit), sum(w > 0))
  # linear interpolation passes through to every level
  pl <- predict(fit, new_x[1:4], by = new_by[1:4], interpolation = "linear")
  expect_equal(unname(cdf(pl, t)[2, ]),
               unname(cdf(predict(idr(y[st == "b"], x[st == "b"], weights = w[st == "b"]),
                                  0.5, interpolation = "linear"), t)[1, ]))
  # a grid of thresholds, below the largest y of some levels (which then
  # get it appended), and integer covariates with -0 and 0 in one level
  grid <- c(0.5, 1, 2, 3)
  xi <- as.integer(round(x))
  fg <- idr(y, xi, weights = w, by = st, thresholds = grid)
  for (l in letters[1:L]) {
    r <- st == l
    one <- idr(y[r], xi[r], weights = w[r], thresholds = grid)
    expect_identical(fg$fits[[l]][c("x", "weight", "thresholds", "ptr", "start", "value")],
                     one[c("x", "weight", "thresholds", "ptr", "start", "value")])
  }
  xz <- c(0, -0, 1, 2, 0, 1)
  fz <- idr(c(1, 2, 3, 4, 5, 6), xz, by = c(1, 1, 1, 2, 2, 2))
  expect_identical(fz$fits[["1"]]$x, c(0, 1))
  expect_identical(fz$fits[["1"]]$weight, c(2, 1))
  u <- pit(fit, seed = 4)
  expect_true(all(u >= 0 & u <= 1))
  expect_output(print(fit), "7 fits of st")
  expect_output(print(p), "from 4 fits of a batch \\(1 missing\\)")
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(fit, level = "c"))
  expect_invisible(plot(p, index = 1:5))
})

test_that("batches on the threads, with formulas and several covariates", {
  set.seed(22)
  n <- 2000
  st <- sample(1:40, n, replace = TRUE)
  x <- runif(n)
  y <- rnorm(n, x + st / 40)
  f <- function() {
    fit <- idr(y, x, by = st)
    lapply(fit$fits, function(g) list(g$ptr, g$start, g$value))
  }
  same_on_threads(f, "an IDR batch of 40 levels")
  d <- data.frame(y = y, x = x, z = runif(n), st = st)
  fb <- idr(y ~ x + z, data = d, by = st)
  expect_s3_class(fb$fits[[1]], "gpuiso_idr_po")
  r <- d$st == 3
  one <- idr(d$y[r], d[r, c("x", "z")])
  expect_identical(fb$fits[["3"]]$value, one$value)
  nd <- data.frame(x = c(0.5, 0.2), z = c(0.5, 0.9), st = c(3, 3))
  expect_equal(cdf(predict(fb, nd), c(0, 1)), cdf(predict(one, nd), c(0, 1)))
  # the formula's `by` is evaluated in data, and na.exclude pads
  d$st[1:3] <- NA
  fe <- idr(y ~ x, data = d, by = st, na.action = na.exclude)
  expect_length(crps(fe), n)
  expect_true(all(is.na(crps(fe)[1:3])))
})

test_that("bad batches are clear errors", {
  e <- function(expr, pattern) expect_error(expr, pattern, class = "gpuiso_error_input")
  fit <- idr(c(1, 2, 3, 4), c(1, 2, 3, 4), by = c("a", "a", "b", "b"))
  e(predict(fit, c(1, 2)), "`by` is missing")
  e(predict(fit, c(1, 2), by = "a"), "one level per new point \\(2\\)")
  e(predict(fit, c(1, 2), by = c("a", "z")), "level that the fit does not know: element 2 is \"z\"")
  e(predict(fit, by = "a"), "`by` goes with `newdata`")
  # isodistrreg's spelling `data` works as `newdata`, not both
  expect_equal(cdf(predict(fit, data = data.frame(x = c(1, 3)), by = c("a", "b")), 2),
               cdf(predict(fit, c(1, 3), by = c("a", "b")), 2))
  e(predict(fit, c(1, 2), data = c(1, 2), by = c("a", "b")), "not both")
  e(idr(c(1, 2, 3), c(1, 2, 3), by = c("a", "b")), "one level per observation \\(3\\)")
  e(idr(c(1, 2, 3), c(1, 2, 3), by = list(1, 2, 3)), "one level per observation")
  e(idr(c(1, 2, 3, 4), c(1, 2, 3, 4), weights = c(1, 1, 0, 0), by = c(1, 1, 2, 2)),
    "level \"2\" of `by` has no observation of positive weight")
  e(idr(c(1, 2, 3), c(1, 2, 3), by = c(1, NA, 2), na.action = na.fail), "`by` has missing values")
  e(idr(c(1, 2, 3), c(1, 2, 3), by = c(1, NaN, 2), na.action = na.pass),
    "`by` must not be missing: element 2 is NaN\\.")
  e(idr(c(1, 2, 3), c(1, 2, 3), by = c(1, 2, NA), na.action = na.pass),
    "`by` must not be missing: element 3 is NA\\.")
  e(plot(fit, level = "q"), "`level` must be one level")
  # points of no known level: missing predictions, quietly
  none <- expect_silent(predict(fit, c(1, 2), by = c(NA, NA)))
  expect_true(all(is.na(cdf(none, 1:3))))
  expect_output(print(none), "2 missing")
})

test_that("a batch on the GPU equals the CPU's batch, over slabs that cut levels", {
  skip_if_not(gpu_available())
  set.seed(23)
  blocks <- function(fit) lapply(fit$fits, function(g) list(g$ptr, g$start))
  values <- function(fit) lapply(fit$fits, function(g) g$value)
  check <- function(y, x, by, w = NULL, thresholds = NULL, device = "gpu",
                    decreasing = FALSE) {
    x0 <- x; y0 <- y
    g <- idr(y, x, weights = w, by = by, thresholds = thresholds, device = "gpu",
             decreasing = decreasing)
    c <- idr(y, x, weights = w, by = by, thresholds = thresholds, device = "cpu",
             decreasing = decreasing)
    expect_identical(unique(vapply(g$fits, `[[`, "", "device")), device)
    # the GPU's blocks get their exact means: the CPU's fit, bit for bit
    expect_identical(blocks(g), blocks(c))
    expect_identical(values(g), values(c))
    expect_identical(x, x0); expect_identical(y, y0)
    invisible(g)
  }
  # levels of 1 to 300 observations, ties in x and y, weights in quarters
  # (their sums are exact in doubles), a grid
  L <- 60
  size <- c(1, 2, sample(1:300, L - 2, replace = TRUE))
  st <- rep(sprintf("s%02d", seq_len(L)), size)
  n <- length(st)
  x <- round(runif(n, 0, 10), 1)
  y <- round(rgamma(n, 1 + x / 3), 1)
  w <- sample(1:8, n, replace = TRUE) / 4
  check(y, x, st)
  check(y, x, st, w)
  check(y, x, st, thresholds = seq(0, 6, by = 0.25))
  # a decreasing covariate: the batch on its negation, turned back
  check(y, -x, st, w, decreasing = TRUE)
  # one level of 1.2e8 CDF values: its thresholds take two slabs, the
  # first shared with the small levels before it, the second with those after
  n1 <- 11000
  st2 <- c(rep("a", 40), rep("b", n1), rep("c", 50), rep("d", 3))
  x2 <- runif(length(st2), 0, 10)
  y2 <- rgamma(length(st2), 1 + x2 / 3)
  g <- check(y2, x2, st2)
  expect_identical(crps(g), crps(idr(y2, x2, by = st2, device = "cpu")))
  # weights whose sums doubles round, or spread beyond 2^30 in one level:
  # the whole batch on the CPU, as the CPU fits it
  check(y, x, st, runif(n, 0.2, 2), device = "cpu")
  w2 <- rep(1, n)
  w2[st == "s05"][1] <- 2^-40
  check(y, x, st, w2, device = "cpu")
  # many tiny levels in one slab
  st3 <- sample(1:3000, 20000, replace = TRUE)
  x3 <- sample(1:5, 20000, replace = TRUE)
  y3 <- rpois(20000, x3)
  check(y3, x3, st3)
  on.exit(full_device(FALSE), add = TRUE)
  full_device(TRUE)
  expect_error(idr(y3, x3, by = st3, device = "gpu"), class = "gpuiso_error_device",
               regexp = "out of memory")
  expect_identical(gpu_info()$workspace, 0)
})

test_that("new points find their level by value, not by its printed form", {
  y <- c(1, 2, 3, 10, 20, 30)
  x <- c(1, 2, 3, 1, 2, 3)
  # 0.3 and 0.1 + 0.2 print alike with 15 digits: two levels all the same
  by <- rep(c(0.3, 0.1 + 0.2), each = 3)
  for (X in list(x, data.frame(a = x, b = x))) {
    fit <- idr(y, X, by = by)
    expect_false(anyDuplicated(fit$levels) > 0)
    nd <- if (is.data.frame(X)) data.frame(a = 2, b = 2) else 2
    low <- if (is.data.frame(X)) data.frame(a = x[1:3], b = x[1:3]) else x[1:3]
    high <- if (is.data.frame(X)) data.frame(a = x[4:6], b = x[4:6]) else x[4:6]
    expect_equal(cdf(predict(fit, nd, by = 0.1 + 0.2), c(2, 20)),
                 cdf(predict(idr(y[4:6], high), nd), c(2, 20)))
    expect_equal(cdf(predict(fit, nd, by = 0.3), c(2, 20)),
                 cdf(predict(idr(y[1:3], low), nd), c(2, 20)))
  }
  # an integer level finds the double level of the same value, and back
  fd <- idr(y, x, by = rep(c(1e5, 123456), 3))
  fi <- idr(y, x, by = rep(c(100000L, 123456L), 3))
  ref <- cdf(predict(idr(y[c(1, 3, 5)], x[c(1, 3, 5)]), 2), c(2, 20))
  expect_equal(cdf(predict(fd, 2, by = 100000L), c(2, 20)), ref)
  expect_equal(cdf(predict(fi, 2, by = 1e5), c(2, 20)), ref)
  expect_equal(cdf(predict(fi, 2, by = "100000"), c(2, 20)), ref)
  expect_input_error(predict(fi, 2, by = 100001), "element 1 is \"100001\"")
  # dates by value, and by their labels
  days <- as.Date(c("2020-01-01", "2021-01-01"))
  ft <- idr(y, x, by = rep(days, 3))
  expect_equal(cdf(predict(ft, 2, by = days[1]), c(2, 20)), ref)
  expect_equal(cdf(predict(ft, 2, by = "2020-01-01"), c(2, 20)), ref)
})

test_that("a batch predicts at a list of columns, and names the new point at fault", {
  y <- c(1, 2, 3, 10, 20, 30)
  x <- c(1, 2, 3, 1, 2, 3)
  st <- rep(c("A", "B"), 3)
  fit <- idr(y, data.frame(a = x, b = x), by = st)
  nd <- data.frame(a = c(1, 2, 3), b = c(1, 2, 3))
  ref <- cdf(predict(fit, nd, by = c("A", "B", "A")), 2)
  expect_equal(cdf(predict(fit, as.list(nd), by = c("A", "B", "A")), 2), ref)
  expect_equal(cdf(predict(fit, c(as.list(nd), list(st = c("A", "B", "A")))), 2), ref)
  expect_input_error(predict(fit, list(a = 1:2, b = 1:3), by = "A"),
                     "`newdata` must be a data frame, a list of columns of equal length")
  f1 <- idr(y, x, by = st)
  e <- tryCatch(predict(f1, c(1, 2, 99), by = c("B", "B", "A"), out_of_bounds = "error"),
                error = identity)
  expect_s3_class(e, "gpuiso_error_input")
  expect_match(conditionMessage(e), "element 3 is 99", fixed = TRUE)
  expect_equal(e$position, 3)
  expect_identical(deparse(conditionCall(e)[[1L]]), deparse(quote(predict.gpuiso_idr_by)))
})

test_that("summary() of a batch gives each level's figures, as its own fit's", {
  set.seed(9)
  st <- sample(c("north", "south", "east"), 120, TRUE)
  x <- runif(120)
  y <- rnorm(120, 2 * x)
  w <- runif(120, 0.5, 2)
  fit <- idr(y, x, weights = w, by = st)
  s <- summary(fit)
  expect_s3_class(s, "summary.gpuiso_idr_by")
  expect_identical(s$levels$st, c("east", "north", "south"))
  for (k in seq_along(s$levels$st)) {
    r <- st == s$levels$st[k]
    one <- summary(idr(y[r], x[r], weights = w[r]))
    expect_equal(s$levels$observations[k], one$n)
    expect_equal(s$levels$thresholds[k], one$K)
    expect_equal(s$levels$blocks[k], one$blocks)
    expect_equal(s$levels$crps[k], one$crps)
  }
  expect_output(print(s), "3 fits of st, 120 observations")
  expect_output(print(s), "weighted mean")
  expect_input_error(summary(fit, digits = 3), "`digits` is not an argument of `summary\\(\\)`")
})

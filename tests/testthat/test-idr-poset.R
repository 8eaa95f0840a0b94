# idr() on several covariates (R/idr-poset.R): the fit against quadprog on
# the order built from the definitions of "comp", "sd" and "icx" (not from
# the package's transforms), the prediction rule against a brute-force
# version, the one-covariate sweep, threads, and every bad input.

# Whether raw covariate row a lies below row b in the order of spec (a
# list of groups: columns, kind, sign), straight from the definitions: a
# decreasing covariate of a "comp" group counts negated, a decreasing "sd"
# or "icx" group reverses its order.
po_below <- function(a, b, groups) {
  for (g in groups) {
    u <- a[g$cols]
    v <- b[g$cols]
    if (g$kind == "comp") {
      u <- g$sign * u
      v <- g$sign * v
    } else if (all(g$sign < 0)) {
      w <- u
      u <- v
      v <- w
    }
    if (g$kind == "comp") {
      if (any(u > v)) return(FALSE)
    } else {
      pts <- sort(unique(c(u, v)))
      if (g$kind == "sd") {
        # u <=sd v: P(U > t) <= P(V > t) at every t
        if (any(vapply(pts, function(t) mean(u > t) > mean(v > t) + 1e-12, NA))) return(FALSE)
      } else {
        # u <=icx v: E(U - t)+ <= E(V - t)+ at every t (kinks at the values)
        s <- function(z, t) sum(pmax(z - t, 0))
        if (any(vapply(pts, function(t) s(u, t) > s(v, t) + 1e-9 * (1 + abs(s(v, t))), NA)))
          return(FALSE)
      }
    }
  }
  TRUE
}

# The fitted CDFs at the distinct rows of X by quadprog: antitonic in the
# order, equivalent rows (each below the other) pooled first. Returns the
# rows' CDF matrix (one row per observation's point, in the order of X).
po_quadprog <- function(y, X, w, thresholds, groups) {
  X <- as.matrix(X)
  key <- apply(X, 1, paste, collapse = "\r")
  u <- !duplicated(key)
  R <- X[u, , drop = FALSE]
  r <- nrow(R)
  B <- matrix(FALSE, r, r)
  for (i in seq_len(r)) for (j in seq_len(r)) B[i, j] <- po_below(R[i, ], R[j, ], groups)
  # classes of equivalent rows
  cls <- integer(r)
  for (i in seq_len(r)) if (!cls[i]) cls[B[i, ] & B[, i] & !cls] <- i
  cl <- match(cls, unique(cls))
  m <- max(cl)
  obs <- cl[match(key, key[u])]
  W <- as.vector(tapply(w, factor(obs, seq_len(m)), sum))
  A <- NULL
  for (a in seq_len(m)) for (b in seq_len(m)) {
    if (a != b && B[which(cl == a)[1L], which(cl == b)[1L]]) {
      v <- numeric(m); v[a] <- 1; v[b] <- -1; A <- rbind(A, v)
    }
  }
  out <- vapply(thresholds, function(t) {
    share <- as.vector(tapply(w * (y <= t), factor(obs, seq_len(m)), sum)) / W
    if (is.null(A)) return(share[obs])
    quadprog::solve.QP(diag(W, m), W * share, t(A), rep(0, nrow(A)))$solution[obs]
  }, numeric(length(y)))
  matrix(out, nrow = length(y))
}

po_case <- function(seed, n, kind, d, decreasing = FALSE, weights = FALSE) {
  set.seed(seed)
  X <- as.data.frame(matrix(sample(0:4, n * d, replace = TRUE), n, d))
  names(X) <- paste0("m", seq_len(d))
  lvl <- rowMeans(X)
  y <- round(lvl + rnorm(n), 1)
  if (decreasing) y <- -y
  w <- if (weights) round(runif(n, 0.2, 3), 2) else rep(1, n)
  list(X = X, y = y, w = w)
}

test_that("the fit is quadprog's on the orders of the definitions", {
  skip_if_not_installed("quadprog")
  cases <- list(
    list(kind = "comp", d = 2), list(kind = "comp", d = 3), list(kind = "sd", d = 3),
    list(kind = "icx", d = 3), list(kind = "sd", d = 4), list(kind = "icx", d = 4))
  for (ci in seq_along(cases)) for (seed in 1:4) {
    cs <- cases[[ci]]
    dec <- seed %% 2 == 0
    dat <- po_case(100 * ci + seed, n = 35, cs$kind, cs$d, decreasing = dec,
                   weights = seed > 2)
    cols <- names(dat$X)
    fit <- idr(dat$y, dat$X, weights = if (seed > 2) dat$w,
               orders = stats::setNames(1, cs$kind), decreasing = dec)
    ref <- po_quadprog(dat$y, dat$X, dat$w, fit$thresholds,
                       list(list(cols = cols, kind = cs$kind, sign = if (dec) -1 else 1)))
    got <- cdf(fit, fit$thresholds)
    expect_equal(unname(got), ref, tolerance = 1e-7,
                 label = sprintf("%s, d = %d, seed %d", cs$kind, cs$d, seed))
    # the stored points are observations' covariates: predicted there, their fit
    expect_equal(unname(cdf(predict(fit, fit$x), fit$thresholds)), idr_dense(fit),
                 tolerance = 0)
  }
})

test_that("groups with different orders and directions match quadprog", {
  skip_if_not_installed("quadprog")
  for (seed in 1:4) {
    set.seed(seed)
    n <- 40
    X <- data.frame(h = sample(0:3, n, TRUE), c = sample(0:3, n, TRUE),
                    e1 = sample(0:3, n, TRUE), e2 = sample(0:3, n, TRUE),
                    e3 = sample(0:3, n, TRUE))
    y <- round(X$h - X$c + rowMeans(X[3:5]) + rnorm(n), 1)
    kind <- c("sd", "icx")[1 + seed %% 2]
    groups <- c(h = 1, c = 1, e1 = 2, e2 = 2, e3 = 2)
    orders <- stats::setNames(c(1, 2), c("comp", kind))
    dec <- c(h = FALSE, c = TRUE, e1 = FALSE, e2 = FALSE, e3 = FALSE)
    fit <- idr(y, X, groups = groups, orders = orders, decreasing = dec)
    ref <- po_quadprog(y, X, rep(1, n), fit$thresholds, list(
      list(cols = c("h", "c"), kind = "comp", sign = c(1, -1)),
      list(cols = c("e1", "e2", "e3"), kind = kind, sign = 1)))
    expect_equal(unname(cdf(fit, fit$thresholds)), ref, tolerance = 1e-7,
                 label = sprintf("comp x %s, seed %d", kind, seed))
  }
})

test_that("a chain of points gives the one-covariate sweep", {
  d <- random_idr_data(300, 11)
  one <- idr(d$y, d$x, weights = d$w)
  two <- idr(d$y, data.frame(a = d$x, b = 2 * d$x), weights = d$w)
  expect_s3_class(two, "gpuiso_idr_po")
  t <- one$thresholds
  expect_equal(cdf(two, t), cdf(one, t), tolerance = 1e-12)
  expect_equal(crps(two), crps(one), tolerance = 1e-12)
  # a decreasing covariate is the increasing fit on its negation
  dec <- idr(d$y, d$x, weights = d$w, decreasing = TRUE)
  neg <- idr(d$y, -d$x, weights = d$w)
  expect_equal(cdf(dec, t), cdf(neg, t), tolerance = 1e-12)
  expect_equal(unname(cdf(predict(dec, data.frame(x = c(-1, 2.5, 99))), t)),
               unname(cdf(predict(neg, c(1, -2.5, -99)), t)), tolerance = 1e-12)
  # one covariate with `orders` or `groups` is still the sweep
  expect_identical(idr(d$y, d$x, orders = c(sd = 1))$value, idr(d$y, d$x)$value)
  expect_false(inherits(idr(d$y, matrix(d$x), groups = 1), "gpuiso_idr_po"))
})

test_that("larger fits meet the constraints and the block means", {
  set.seed(5)
  n <- 1500
  X <- data.frame(a = runif(n), b = runif(n), c = round(runif(n), 1))
  y <- rgamma(n, 1 + 2 * X$a + X$b + X$c)
  w <- runif(n, 0.5, 2)
  thr <- quantile(y, seq(0.05, 0.95, by = 0.15), names = FALSE)
  fit <- idr(y, X, weights = w, thresholds = thr)
  F <- idr_dense(fit)
  e <- fit$edges
  # antitonic on every covering pair, non-decreasing over thresholds, in [0, 1]
  expect_true(all(F[e$from, ] >= F[e$to, ]))
  expect_true(all(t(apply(F, 1, diff)) >= 0))
  expect_true(all(F >= 0 & F <= 1))
  expect_true(all(F[, ncol(F)] == 1))
  # each level set's value is the weighted mean of its shares
  node <- fit$data$node + 1L
  for (k in seq_along(fit$thresholds)) {
    share <- tapply(w * (y <= fit$thresholds[k]), node, sum) / fit$weight
    lev <- F[, k]
    means <- tapply(share * fit$weight, lev, sum) / tapply(fit$weight, lev, sum)
    expect_equal(as.vector(means), as.numeric(names(means)), tolerance = 1e-10)
  }
})

test_that("the warm-started threshold sweep equals cold fits of every threshold", {
  for (seed in 1:3) {
    set.seed(40 + seed)
    n <- 700
    d <- 1 + seed
    X <- as.data.frame(matrix(round(runif(n * d), 2), n, d))
    y <- round(rowSums(X) + rnorm(n), 2)
    w <- if (seed == 2) runif(n, 0.5, 2) else rep(1, n)
    grid <- if (seed == 3) quantile(y, seq(0.02, 1, by = 0.02), names = FALSE)
    fit <- idr(y, X, weights = if (seed == 2) w, thresholds = grid)
    node <- fit$data$node + 1L
    Y <- vapply(fit$thresholds, function(t) {
      as.vector(tapply(w * (y <= t), factor(node, seq_len(fit$npoints)), sum)) / fit$weight
    }, numeric(fit$npoints))
    cold <- gpuiso:::poset_fit(Y, fit$weight, fit$edges$to, fit$edges$from)
    expect_equal(idr_dense(fit), pmin(pmax(cold, 0), 1), tolerance = 1e-12,
                 label = sprintf("%d covariates, seed %d", d, seed))
  }
})

test_that("two covariates (cut as points in the plane) fit as three with a constant one", {
  # a constant third covariate leaves the order as it is but takes the
  # general cuts (maximum flows) instead of plane_cut.c's staircases
  set.seed(48)
  for (it in 1:4) {
    n <- c(60, 400, 900, 1500)[it]
    X <- data.frame(a = if (it %% 2) runif(n) else sample(1:6, n, TRUE),
                    b = sample(1:(3 * it), n, TRUE))
    y <- X$a + X$b / 4 + rnorm(n)
    if (it == 3) y <- round(y)
    w <- if (it %% 2 == 0) rexp(n) + 0.1
    dec <- c(it == 4, FALSE)
    f2 <- idr(y, X, weights = w, decreasing = dec)
    f3 <- idr(y, cbind(X, c = 1), weights = w, decreasing = c(dec, FALSE))
    expect_equal(idr_dense(f2), idr_dense(f3), tolerance = 1e-12, info = it)
    expect_equal(f2$thresholds, f3$thresholds)
  }
})

test_that("the fit is the same on 1 to 8 threads", {
  set.seed(6)
  n <- 600
  X <- data.frame(a = runif(n), b = runif(n))
  y <- rnorm(n, X$a + X$b)
  new <- data.frame(a = runif(50), b = runif(50))
  f <- function() {
    fit <- idr(y, X)
    list(fit$ptr, fit$start, fit$value, cdf(predict(fit, new), c(0, 1)))
  }
  same_on_threads(f, "IDR on two covariates")
})

test_that("ranges of thresholds split for idle threads give the same fit", {
  # Each thread solves a range of thresholds warm, and one out of work
  # splits the largest range left, its upper half solved cold from its
  # first threshold; the ranges' fits are then joined. Splitting at two
  # thresholds left makes every fit here split often, at places that vary
  # from run to run: the fit must not change.
  was <- gpuiso:::test_idr_po_min_split(2L)
  on.exit(gpuiso:::test_idr_po_min_split(was), add = TRUE)
  set.seed(16)
  n <- 400
  X <- data.frame(a = runif(n), b = runif(n), c = sample(1:5, n, TRUE))
  yc <- rnorm(n, X$a + X$b)
  yt <- round(yc)                       # many observations per threshold
  w <- runif(n, 0.1, 3)
  cases <- list(
    list("two covariates", function() idr(yc, X[1:2])),
    list("ties and weights on three", function() idr(yt, X, weights = w)),
    list("thresholds where none switches on",
         function() idr(yc, X[1:2], thresholds = seq(-3, 4, by = 0.01)))
  )
  for (cs in cases) {
    f <- function() {
      fit <- cs[[2]]()
      list(fit$ptr, fit$start, fit$value)
    }
    ref <- local({
      gpuiso:::test_idr_po_min_split(NA)
      on.exit(gpuiso:::test_idr_po_min_split(2L))
      with_threads(1L, f())
    })
    for (k in thread_counts()) {
      for (rep in 1:2) {
        expect_same_bits(with_threads(k, f()), ref,
                         label = sprintf("%s, split on %d threads", cs[[1]], k),
                         expected.label = "the unsplit fit on 1 thread")
      }
    }
  }
  skip_unless_many_threads()
})

test_that("predictions follow isodistrreg's rule", {
  set.seed(7)
  n <- 80
  X <- data.frame(a = sample(1:6, n, TRUE), b = sample(1:6, n, TRUE))
  y <- round(X$a + X$b + rnorm(n), 1)
  w <- runif(n, 0.5, 2)
  fit <- idr(y, X, weights = w)
  Fd <- idr_dense(fit)
  new <- data.frame(a = c(0, 7, 3.5, 2, 0, 7, 3, 1.5),
                    b = c(0, 7, 3.5, 2, 9, -1, 3, 6.5))
  t <- fit$thresholds
  clim <- vapply(t, function(z) sum(w[y <= z]) / sum(w), 0)
  pts <- as.matrix(fit$x)
  ref <- t(vapply(seq_len(nrow(new)), function(i) {
    x <- unlist(new[i, ])
    below <- which(pts[, 1] <= x[1] & pts[, 2] <= x[2])
    above <- which(pts[, 1] >= x[1] & pts[, 2] >= x[2])
    up <- if (length(below)) apply(Fd[below, , drop = FALSE], 2, min)
    lo <- if (length(above)) apply(Fd[above, , drop = FALSE], 2, max)
    if (!length(below) && !length(above)) clim
    else if (!length(above)) up
    else if (!length(below)) lo
    else (up + lo) / 2
  }, numeric(length(t))))
  p <- predict(fit, new)
  expect_equal(unname(cdf(p, t)), ref, tolerance = 1e-14)
  # at the fitted points themselves: their fit
  expect_equal(unname(cdf(predict(fit, fit$x), t)), Fd, tolerance = 0)
  # a matrix works as newdata, a missing value gives a missing prediction
  p2 <- predict(fit, rbind(as.matrix(new[1:2, ]), c(NA, 1)))
  expect_equal(unname(cdf(p2, t))[1:2, ], ref[1:2, ])
  expect_true(all(is.na(cdf(p2, t)[3, ])))
  expect_true(is.na(crps(p2, c(1, 2, 3))[3]))
  # the scores work unchanged: quantiles, CRPS against the CDF at every
  # threshold, PIT within the CDF's jump
  q <- qpred(p, c(0.1, 0.5, 0.9))
  for (i in seq_len(nrow(new))) {
    for (a in 1:3) {
      alpha <- c(0.1, 0.5, 0.9)[a]
      expect_identical(unname(q[i, a]), t[which(ref[i, ] >= alpha)[1L]])
    }
  }
  yo <- seq(2, 10, length.out = nrow(new))
  s <- crps(p, yo)
  grid <- sort(unique(c(t, yo)))
  for (i in seq_len(nrow(new))) {
    Fi <- c(0, ref[i, ])[findInterval(grid, t) + 1L]
    ref_s <- sum(diff(grid) * (Fi[-length(grid)] - (grid[-length(grid)] >= yo[i]))^2)
    expect_equal(s[i], ref_s, tolerance = 1e-10)
  }
  expect_equal(mean(crps(fit)), weighted.mean(crps(fit), rep(1, n)))
  u <- pit(p, yo, seed = 3)
  expect_true(all(u >= 0 & u <= 1))
  print_out <- capture.output(print(p))
  expect_match(print_out[2], "a = 0, b = 0", fixed = TRUE)
})

test_that("formula, zero weights, na.exclude and constant covariates", {
  aqc <- aq[complete.cases(aq[c("Ozone", "Temp", "Wind")]), ]
  f1 <- idr(Ozone ~ Temp + Wind, data = aq, decreasing = c(FALSE, TRUE))
  f2 <- idr(aqc$Ozone, aqc[c("Temp", "Wind")], decreasing = c(Wind = TRUE, Temp = FALSE))
  expect_equal(f1$value, f2$value)
  expect_identical(f1$xname, "Temp, Wind")
  nd <- data.frame(Temp = c(60, 95), Wind = c(15, 3))
  expect_equal(cdf(predict(f1, nd), 50), cdf(predict(f2, nd), 50))
  # na.exclude pads the in-sample scores
  f3 <- idr(Ozone ~ Temp + Wind, data = aq, na.action = na.exclude)
  expect_length(crps(f3), nrow(aq))
  expect_identical(is.na(crps(f3)), ozone_na)
  # zero weights take no part, and their rows are still predicted
  w <- rep(1, nrow(aqc))
  w[1:5] <- 0
  f4 <- idr(aqc$Ozone, aqc[c("Temp", "Wind")], weights = w)
  f5 <- idr(aqc$Ozone[-(1:5)], aqc[-(1:5), c("Temp", "Wind")])
  expect_equal(cdf(predict(f4, nd), c(30, 60)), cdf(predict(f5, nd), c(30, 60)))
  expect_equal(cdf(predict(f4), 50)[1:5, ], cdf(predict(f5, aqc[1:5, c("Temp", "Wind")]), 50)[, 1],
               ignore_attr = TRUE)
  # constant covariates: one point, the weighted empirical CDF
  y <- c(3, 1, 2, 2, 5)
  wc <- c(1, 2, 1, 1, 3)
  fc <- idr(y, data.frame(a = rep(1, 5), b = rep(2, 5)), weights = wc)
  expect_identical(fc$npoints, 1L)
  expect_equal(unname(cdf(fc, 1:5)[1, ]), cumsum(tapply(wc, factor(y, 1:5), sum, default = 0)) / 8,
               ignore_attr = TRUE)
  # an "sd" group of one member is the plain order of that covariate
  X <- data.frame(a = aqc$Temp, b = aqc$Wind)
  g1 <- idr(aqc$Ozone, X, groups = c(1, 2), orders = c(comp = 1, sd = 2))
  g2 <- idr(aqc$Ozone, X)
  expect_equal(g1$value, g2$value)
  # members permuted are one point under "sd": (1, 2) and (2, 1), (3, 1) and (1, 3)
  E <- data.frame(e1 = c(1, 2, 3, 1), e2 = c(2, 1, 1, 3))
  fe <- idr(c(1, 2, 3, 4), E, orders = c(sd = 1))
  expect_identical(fe$npoints, 2L)
  # a matrix without column names gets V1, V2
  fm <- idr(aqc$Ozone, unname(as.matrix(X)))
  expect_identical(fm$xname, "V1, V2")
  # an unnamed matrix as wide as the covariates is taken in their order
  expect_identical(cdf(predict(fm, unname(as.matrix(X))[1:5, ]), 50),
                   cdf(predict(fm, data.frame(V1 = X[1:5, 1], V2 = X[1:5, 2])), 50))
  expect_input_error(predict(fm, unname(as.matrix(X))[1:5, 1, drop = FALSE]), "V2")
  expect_s3_class(summary(fm), "summary.gpuiso_idr")
  expect_output(print(summary(fm)), "distinct points under the order comp\\(V1, V2\\)")
  expect_s3_class(knots(fm), "data.frame")
})

test_that("bad orders, directions and new data are clear errors", {
  X <- data.frame(a = 1:6, b = c(2, 1, 4, 3, 6, 5), c = 6:1)
  y <- c(1, 3, 2, 5, 4, 6)
  e <- function(expr, pattern, arg = NULL) {
    err <- expect_error(expr, class = "gpuiso_error_input")
    expect_match(conditionMessage(err), pattern)
    if (!is.null(arg)) expect_identical(err$arg, arg)
  }
  e(idr(y, X, groups = c(1, 1)), "group label .* for each of the 3 .*of length 2", "groups")
  e(idr(y, X, groups = list(1, 1, 2)), "group label .*it is a list", "groups")
  e(idr(y, X, groups = c(1, NA, 2), orders = c(comp = 1, sd = 2)), "missing for some", "groups")
  # a factor of labels is its labels
  ff <- idr(y, X, groups = factor(c("u", "u", "v")), orders = c(comp = "u", sd = "v"))
  expect_identical(crps(ff), crps(idr(y, X, groups = c("u", "u", "v"),
                                      orders = c(comp = "u", sd = "v"))))
  fit <- idr(y, X)
  e(predict(fit, X, interpolation = "linear"), "`interpolation` applies to fits on one covariate",
    "interpolation")
  e(predict(fit, X, out_of_bounds = "na"), "`out_of_bounds` applies to fits on one covariate",
    "out_of_bounds")
  e(idr(y, X, groups = c(a = 1, b = 1, d = 2)), "names of `groups`", "groups")
  e(idr(y, X, orders = c(lex = 1)), "named vector", "orders")
  e(idr(y, X, orders = 1), "named vector", "orders")
  e(idr(y, X, groups = c(1, 1, 2)), "one order for each group", "orders")
  e(idr(y, X, orders = c(comp = 1, sd = 2)), "one order for each group", "orders")
  e(idr(y, X, decreasing = NA), "TRUE or FALSE", "decreasing")
  e(idr(y, X, decreasing = c(TRUE, FALSE)),
    "TRUE or FALSE, or one of them for each of the 3 covariates \\(`a`, `b`, `c`\\)", "decreasing")
  # a name alone is not recycled to every covariate, nor a partial set
  e(idr(y, X, decreasing = c(b = TRUE)), "names of `decreasing` must be the covariates \\(`a`, `b`, `c`\\)",
    "decreasing")
  e(idr(y, X, decreasing = c(a = TRUE, b = FALSE, b = TRUE)), "names of `decreasing`", "decreasing")
  e(idr(y, X$a, decreasing = c(TRUE, FALSE)), "^`decreasing` must be TRUE or FALSE\\.$", "decreasing")
  expect_identical(idr(y, X, decreasing = c(c = FALSE, a = FALSE, b = TRUE))$value,
                   idr(y, X, decreasing = c(FALSE, TRUE, FALSE))$value)
  e(idr(y, X, groups = c(1, 2, 2), orders = c(comp = 1, icx = 2),
        decreasing = c(FALSE, TRUE, FALSE)), "all increasing or all decreasing",
    "decreasing")
  e(idr(y, data.frame(a = 1:6, b = factor(1:6))), "must be numeric")
  e(idr(y, data.frame(a = 1:6, b = as.Date("2026-01-01") + 1:6)),
    "`b` must be numeric, not an object of class \"Date\"")
  e(idr(y, X, device = "gpu"), "GPU engine fits IDR on one covariate", "device")
  e(idr(y, X[0]), "at least one column")
  e(idr(y[-1], X), "6 rows")
  Xn <- X
  Xn$b[3] <- NA
  e(idr(y, Xn, na.action = na.fail), "`b` has missing values \\(element 3")
  e(idr(y, data.frame(a = 1:6, b = c(1, 2, Inf, 4, 5, 6))), "`b`")
  fit <- idr(y, X)
  e(predict(fit, data.frame(a = 1, b = 2)), "`c` is missing")
  e(predict(fit, data.frame(a = 1, b = "x", c = 3)), "column `b` of `newdata` must be numbers")
  e(predict(fit, 1:3), "data frame or a matrix")
  e(predict(fit, X, interpolation = "linear"), "interpolation")
  e(plot(fit, type = "surface"), "several", "type")
  e(idr(y, data.frame(a = 1:6, a = 1:6, check.names = FALSE)), "different names: `a` names 2")
  e(idr(y, stats::setNames(data.frame(1:6, 1:6), c("a", NA))), "some have none")
})

test_that("plots and printing of a fit on several covariates", {
  fit <- idr(Ozone ~ Temp + Wind + Solar.R, data = aq, decreasing = c(FALSE, TRUE, FALSE))
  expect_output(print(fit), "under the order comp\\(Temp, Wind, Solar.R\\) \\(decreasing in Wind\\)")
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(fit), fit)
  expect_invisible(plot(fit, at = aq[1:3, ]))
  expect_s3_class(fitted(fit), "gpuiso_idr_pred")
  expect_identical(nobs(fit), fit$n)
})

test_that("idrbag() averages the subsample fits' CDFs on the grid", {
  aqc <- aq[complete.cases(aq[c("Ozone", "Temp", "Wind")]), ]
  X <- aqc[c("Temp", "Wind")]
  new <- data.frame(Temp = c(60, 75, 90, NA), Wind = c(15, 9, 4, 3))
  grid <- sort(unique(aqc$Ozone))
  set.seed(42)
  p <- idrbag(aqc$Ozone, X, newdata = new, b = 6, p = 0.6, decreasing = c(FALSE, TRUE))
  # the same draws by hand
  set.seed(42)
  n <- nrow(aqc)
  G <- 0
  for (r in 1:6) {
    s <- sample.int(n, ceiling(0.6 * n))
    f <- idr(aqc$Ozone[s], X[s, ], decreasing = c(FALSE, TRUE))
    G <- G + cdf(predict(f, new), grid)
  }
  expect_equal(cdf(p, grid), G / 6, tolerance = 1e-15)
  expect_true(all(is.na(cdf(p, 50)[4, ])))
  expect_equal(unname(qpred(p, 0.5)[1:3, 1]),
               vapply(1:3, function(i) grid[which(G[i, ] / 6 >= 0.5)[1L]], 0))
  expect_length(crps(p, c(10, 40, 90, 20)), 4L)
  # one covariate, with replacement and linear interpolation
  set.seed(3)
  p1 <- idrbag(aqc$Ozone, aqc$Temp, newdata = c(65, 80), b = 3, p = 1, replace = TRUE,
               interpolation = "linear", grid = c(20, 50, 100))
  set.seed(3)
  G1 <- 0
  for (r in 1:3) {
    s <- sample.int(n, n, replace = TRUE)
    G1 <- G1 + cdf(predict(idr(aqc$Ozone[s], aqc$Temp[s]), c(65, 80),
                           interpolation = "linear"), c(20, 50, 100, max(aqc$Ozone)))
  }
  expect_equal(unname(cdf(p1, c(20, 50, 100, max(aqc$Ozone)))), unname(G1 / 3))
  e <- function(expr, pattern) expect_error(expr, pattern, class = "gpuiso_error_input")
  e(idrbag(aqc$Ozone, X, b = 2, p = 0.5), "`newdata` is missing")
  e(idrbag(aqc$Ozone, X, newdata = new, b = 0, p = 0.5), "`b`")
  e(idrbag(aqc$Ozone, X, newdata = new, b = 2, p = 1.5), "`p` must be one number in \\(0, 1\\]")
  e(idrbag(aqc$Ozone, X, newdata = new, b = 2, p = 0.001), "too small")
  e(idrbag(aqc$Ozone, X, newdata = new, b = 2, p = 0.5, replace = NA), "`replace`")
  err <- expect_error(idrbag(aqc$Ozone, X, newdata = new, b = 2, p = 0.5, grid = c(1, NA)),
                      class = "gpuiso_error_input")
  expect_match(conditionMessage(err), "`grid` must be finite: element 2 is NA")
  e(idrbag(aqc$Ozone, X, newdata = new, b = 2, p = 0.5, grid = numeric()),
    "`grid` must not be empty")
  # an error of the new points is idrbag()'s, naming the data's covariates
  err <- expect_error(idrbag(aqc$Ozone, X, newdata = data.frame(Temp = 1), b = 2, p = 0.5),
                      class = "gpuiso_error_input")
  expect_identical(err$call[[1L]], quote(idrbag))
  expect_match(conditionMessage(err), "`Wind` is missing")
})

test_that("idrbag() leaves subsamples of weight zero out of the mean", {
  set.seed(4)
  n <- 40
  D <- data.frame(a = sample(1:5, n, TRUE), b = round(rnorm(n), 1))
  y <- round(D$a + D$b + rnorm(n), 1)
  w <- c(1, 1, rep(0, 38))
  for (X in list(D, D$a)) {
    set.seed(1)
    p <- idrbag(y, X, weights = w, newdata = if (is.data.frame(X)) D[1:3, ] else 1:3,
                b = 20, p = 0.1)
    # by hand: the mean over the subsamples that hold a positive weight
    set.seed(1)
    G <- 0
    used <- 0
    for (r in 1:20) {
      s <- sample.int(n, 4)
      if (!any(w[s] > 0)) next
      used <- used + 1
      xs <- if (is.data.frame(X)) X[s, ] else X[s]
      G <- G + cdf(predict(idr(y[s], xs, weights = w[s]),
                           if (is.data.frame(X)) D[1:3, ] else 1:3), sort(unique(y)))
    }
    expect_gt(used, 0)
    expect_lt(used, 20)
    expect_equal(unname(cdf(p, sort(unique(y)))), unname(G / used), tolerance = 1e-15)
    expect_equal(unname(cdf(p, max(y))[, 1]), rep(1, 3))
  }
  set.seed(1)
  expect_error(idrbag(y, D, weights = c(rep(0, 39), 1), newdata = D[1:2, ], b = 3, p = 0.05),
               "Every subsample had only observations of weight zero",
               class = "gpuiso_error_input")
})

test_that("one decreasing covariate is the sweep on its negation, turned back", {
  d <- random_idr_data(400, 21)
  x <- round(d$x, 1) # ties
  for (w in list(NULL, d$w)) {
    dec <- idr(d$y, x, weights = w, decreasing = TRUE)
    neg <- idr(d$y, -x, weights = w)
    expect_false(inherits(dec, "gpuiso_idr_po"))
    expect_true(dec$decreasing)
    expect_identical(dec$x, rev(-neg$x))
    expect_identical(dec$weight, rev(neg$weight))
    expect_identical(dec$data$x, x)
    expect_identical(dec$ptr, neg$ptr)
    t <- dec$thresholds
    expect_identical(cdf(dec, t), cdf(neg, t))
    # each threshold's blocks: starts increasing from 0, values increasing
    for (k in seq_along(t)) {
      b <- seq.int(dec$ptr[k] + 1, dec$ptr[k + 1])
      expect_identical(dec$start[b[1L]], 0L)
      expect_false(is.unsorted(dec$start[b], strictly = TRUE))
      expect_true(all(diff(dec$value[b]) > 0))
    }
    # the dense CDFs are those of the negated fit with the points reversed
    expect_identical(idr_dense(dec), idr_dense(neg)[rev(seq_along(neg$x)), , drop = FALSE])
    # at the knots, outside them, and linearly between them: the mirror
    new <- c(dec$x[c(1, 7, 20)], min(x) - 1, max(x) + 1, 0.123, 0.456)
    expect_identical(cdf(predict(dec, new), t)[1:5, ], cdf(predict(neg, -new), t)[1:5, ])
    expect_equal(cdf(predict(dec, new, interpolation = "linear"), t),
                 cdf(predict(neg, -new, interpolation = "linear"), t), tolerance = 1e-14)
  }
  # between two knots the step takes the next knot above, as for every fit
  # (see ?prediction); linearly, the value of 'isodistrreg'
  f <- idr(c(3, 2, 1), c(1, 2, 3), decreasing = TRUE)
  expect_equal(unname(cdf(predict(f, 1.25), 1:3)), matrix(c(0, 1, 1), 1))
  expect_equal(unname(cdf(predict(f, 1.25, interpolation = "linear"), 1:3)),
               matrix(c(0, 0.25, 1), 1))
  expect_output(print(f), "3 distinct values of x \\(decreasing\\)")
  expect_output(print(summary(f)), "from 1 to 3, decreasing")
})

test_that("a fit on one decreasing covariate takes new points as one increasing does", {
  aqc <- aq[complete.cases(aq[c("Ozone", "Wind")]), ]
  t <- c(20, 50, 100)
  ref <- cdf(predict(idr(aqc$Ozone, aqc["Wind"], decreasing = TRUE),
                     data.frame(Wind = c(5, 10, NA))), t)
  fits <- list(idr(aqc$Ozone, aqc$Wind, decreasing = TRUE),
               idr(Ozone ~ Wind, aqc, decreasing = TRUE),
               idr(aqc$Ozone, aqc["Wind"], decreasing = TRUE))
  for (f in fits) {
    expect_false(inherits(f, "gpuiso_idr_po"))
    expect_equal(cdf(predict(f, c(5, 10, NA)), t), ref, ignore_attr = TRUE)
    expect_equal(cdf(predict(f, data.frame(Wind = c(5, 10, NA))), t), ref, ignore_attr = TRUE)
    # a one-column data frame may name it otherwise
    expect_equal(cdf(predict(f, data.frame(z = c(5, 10, NA))), t), ref, ignore_attr = TRUE)
    expect_identical(rownames(cdf(predict(f, c(a = 5, b = 10)), t)), c("a", "b"))
    # as for an increasing covariate, Inf lies beyond the last knot
    expect_identical(cdf(predict(f, c(5, Inf)), t), cdf(predict(f, c(5, max(aqc$Wind))), t))
    expect_error(predict(f, "a"), "`newdata` must be numeric", class = "gpuiso_error_input")
  }
  expect_error(predict(fits[[3]], data.frame(z = 5, u = 3)), "must have a column `Wind`",
               class = "gpuiso_error_input")
  # in batches, and in idrbag(), where the covariate keeps the data's name
  st <- rep(1:2, length.out = nrow(aqc))
  fb <- idr(aqc$Ozone, aqc$Wind, decreasing = TRUE, by = st)
  expect_equal(cdf(predict(fb, c(5, 10), by = c(1, 2)), t),
               rbind(cdf(predict(fb$fits[[1]], 5), t), cdf(predict(fb$fits[[2]], 10), t)),
               ignore_attr = TRUE)
  set.seed(2)
  p <- idrbag(aqc$Ozone, aqc$Wind, newdata = c(5, 10), b = 3, p = 0.5, decreasing = TRUE)
  expect_length(p, 2L)
  # idrbag() knows the covariate by its own name (it checked against `xs`)
  bag <- list(
    function(...) idrbag(aqc$Ozone, aqc$Wind, newdata = c(5, 10), b = 3, p = 0.5, ...),
    function(...) idrbag(aqc$Ozone, aqc["Wind"], newdata = c(5, 10), b = 3, p = 0.5, ...))
  for (f in bag) {
    set.seed(2)
    expect_identical(cdf(f(decreasing = c(Wind = TRUE)), t), cdf(p, t))
    set.seed(2)
    expect_identical(cdf(f(decreasing = TRUE, groups = c(Wind = 1)), t), cdf(p, t))
    err <- expect_error(f(decreasing = c(xs = TRUE)), class = "gpuiso_error_input")
    expect_match(conditionMessage(err), "names of `decreasing` must be the covariates \\(`Wind`\\)")
  }
  expect_output(print(fb), "of Ozone on Wind \\(decreasing\\), by st")
  err <- expect_error(idrbag(aqc$Ozone, aqc$Wind, newdata = data.frame(q = 1, r = 2), b = 2,
                             p = 0.5, decreasing = TRUE), class = "gpuiso_error_input")
  expect_match(conditionMessage(err), "must have a column `Wind`, the covariate")
})

test_that("\"icx\" compares the exact partial sums, rounded once", {
  # exactly, the partial sums are (0.5, 1, 0.9) and (1, 1.4, 0.9): row 1
  # lies below row 2 (as after scaling by 10); summed step by step in
  # doubles, 1 + 0.4 - 0.5 fell below 0.9 and the rows were incomparable
  X <- data.frame(m1 = c(0.5, 1), m2 = c(0.5, 0.4), m3 = c(-0.1, -0.5))
  y <- c(2, 1)
  for (s in c(1, 10)) {
    f <- idr(y, X * s, orders = c(icx = 1))
    expect_equal(unname(cdf(f, 1:2)), matrix(c(0.5, 0.5, 1, 1), 2))
  }
  # sums beyond a double-double: (1e300, 1, -1e300) lies above
  # (1e300, 0.5, -1e300) (last partial sums 1 and 0.5, both 0 in doubles)
  X <- data.frame(m1 = c(1e300, 1e300), m2 = c(1, 0.5), m3 = c(-1e300, -1e300))
  f <- idr(c(2, 1), X, orders = c(icx = 1))
  expect_equal(f$npoints, 2)
  expect_equal(unname(cdf(f, 1)[, 1]), c(0, 1))
  # and the sums themselves: exact, then rounded once
  S <- rbind(c(1, 2^-60, 2^-120, -1, -2^-60), c(3, 2^-1074, -3, 5e-324, 1e-320),
             c(1e308, 1e308, -1e308, -1e308, 1))
  expect_identical(.Call(gpuiso:::ffi_partial_sums, S),
                   rbind(c(1, 1, 1, 2^-60, 2^-120),
                         c(3, 3, 2^-1074, 2^-1073, 1e-320 + 2^-1073),
                         c(1e308, Inf, 1e308, 0, 1)))
})

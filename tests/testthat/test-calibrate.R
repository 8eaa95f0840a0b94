# iso_calibrate() (R/calibrate.R): the curves against hand computations and
# isoreg() of the pooled data, groups, the formula interface, missing values
# and na.action, the variables' names, y_min and y_max, bad input, and the
# data the GPU takes.

# A fit's components that do not depend on how the model was written.
fit_core <- function(cal) cal[c("curves", "groups", "n", "y_min", "y_max", "device")]

test_that("a hand-computed curve, with tied scores pooled", {
  cal <- iso_calibrate(c(0.1, 0.2, 0.3, 0.4), c(0, 1, 0, 1))
  expect_equal(cal$curves[[1]]$value, c(0, 0.5, 0.5, 1))
  # ties: s = 1 pools to 0.5 (weight 2), s = 2 to 1 (weight 2), s = 3 to 0;
  # the last two violate and pool to 2/3
  cal <- iso_calibrate(c(2, 1, 3, 1, 2), c(1, 0, 0, 1, 1))
  expect_equal(cal$curves[[1]]$score, c(1, 2, 3))
  expect_equal(cal$curves[[1]]$weight, c(2, 2, 1))
  expect_equal(cal$curves[[1]]$value, c(0.5, 2 / 3, 2 / 3))
  expect_equal(predict(cal, c(1, 1, 2)), c(0.5, 0.5, 2 / 3))
})

test_that("the curve is isoreg() of the tie-pooled data", {
  set.seed(3)
  s <- round(runif(3000), 2) # many ties
  y <- rbinom(3000, 1, s^2)
  w <- runif(3000, 0.5, 2)
  cal <- iso_calibrate(s, y, weights = w)
  cv <- cal$curves[[1]]
  u <- sort(unique(s))
  sw <- tapply(w, s, sum)
  m <- tapply(w * y, s, sum) / sw
  expect_equal(cv$score, u)
  expect_equal(cv$weight, as.vector(sw))
  ref <- isoreg(u, as.vector(m), weights = as.vector(sw), device = "cpu")$yf
  expect_equal(cv$value, ref, tolerance = 1e-12)
  # integer weights are repeated observations
  k <- sample(1:3, 3000, replace = TRUE)
  expect_equal(iso_calibrate(s, y, weights = k)$curves[[1]]$value,
               iso_calibrate(rep(s, k), rep(y, k))$curves[[1]]$value, tolerance = 1e-12)
})

test_that("one call with groups equals one call per group", {
  set.seed(5)
  n <- 5000
  g <- sample(sprintf("seg%02d", 1:30), n, replace = TRUE)
  s <- runif(n)
  y <- rbinom(n, 1, s)
  cal <- iso_calibrate(s, y, groups = g)
  expect_setequal(cal$groups, unique(g))
  for (lab in c("seg01", "seg17", "seg30")) {
    one <- iso_calibrate(s[g == lab], y[g == lab])
    expect_equal(cal$curves[[lab]], one$curves[[1]], ignore_attr = TRUE)
  }
  newg <- sample(unique(g), 200, replace = TRUE)
  news <- runif(200)
  p <- predict(cal, news, groups = newg)
  for (lab in unique(newg)) {
    one <- iso_calibrate(s[g == lab], y[g == lab])
    expect_equal(p[newg == lab], predict(one, news[newg == lab]))
  }
  expect_equal(predict(cal, c(0.2, 0.7), groups = "seg03"),
               predict(cal, c(0.2, 0.7), groups = c("seg03", "seg03")))
  # a factor's curves come in the order of its levels, the same curves
  fc <- iso_calibrate(s, y, groups = factor(g))$curves
  expect_identical(names(fc), levels(factor(g)))
  expect_equal(fc, cal$curves[names(fc)])
})

test_that("bad input is a classed error that names the argument", {
  s <- c(0.1, 0.5, 0.9)
  y <- c(0, 1, 1)
  e <- function(expr, re) expect_error(expr, re, class = "gpuiso_error_input")
  # missing values go through na.action (tested below);
  # other non-finite values are errors
  e(iso_calibrate(c(0.1, Inf, 0.9), y), "`scores` must be finite: element 2 is Inf")
  e(iso_calibrate(c(0.1, NA, 0.9), y, na.action = na.pass),
    "`scores` must be finite: element 2 is NA")
  e(iso_calibrate(s, c(0, NA, 1), na.action = na.pass),
    "`outcomes` must be finite: element 2 is NA")
  e(iso_calibrate(s, c(0, 2, 1)), "`outcomes` must lie in \\[0, 1\\]: element 2 is 2")
  e(iso_calibrate(s, c(-0.1, 0, 1)), "`outcomes` must lie in \\[0, 1\\]: element 1")
  e(iso_calibrate(s, c(0, 1)), "`scores` and `outcomes` must have the same length")
  e(iso_calibrate(s, y, weights = c(1, 1)), "`scores` and `weights` must have the same length")
  e(iso_calibrate(s, y, weights = c(1, -1, 1)), "`weights` must be non-negative")
  e(iso_calibrate(s, y, weights = c(0, 0, 0)), "`weights` must not all be zero")
  e(iso_calibrate("a", 1), "`scores` must be a numeric vector")
  e(iso_calibrate(numeric(0), numeric(0)), "`scores` must not be empty")
  e(iso_calibrate(c(1, 1, 1), y), "at least two distinct values")
  e(iso_calibrate(s, y, groups = c("a", "a", "b")),
    "at least two distinct values in group \"b\"")
  e(iso_calibrate(s, y, groups = c("a", NA, "b"), na.action = na.pass),
    "`groups` must not be missing: element 2")
  e(iso_calibrate(s, y, groups = c("a", "b")), "`groups` must have one label per score")
  cal <- iso_calibrate(c(s, s), c(y, y), groups = rep(c("a", "b"), each = 3))
  e(predict(cal, 0.3, groups = "z"), "`groups` must be groups seen in the fit: \"z\"")
  e(predict(cal, 0.3), "`groups` must give the group of each new score")
  e(predict(cal, c(0.3, 0.4), groups = c("a", "b", "a")), "one label per new score")
  e(predict(iso_calibrate(s, y), 0.3, groups = "a"), "fitted without groups")
  e(predict(cal, "x", groups = "a"), "`newdata` must be numeric")
  e(predict(cal, newscores = "x", groups = "a"), "`newscores` must be numeric")
  e(predict(cal, 0.3, groups = "a", interpolation = "cubic"), "`interpolation` must be one of")
})

test_that("the formula interface gives the fit of the default interface", {
  d <- calibration_data()
  f <- iso_calibrate(clicked ~ score, data = d)
  v <- iso_calibrate(d$score, d$clicked)
  expect_identical(fit_core(f), fit_core(v))
  expect_identical(f$variables, c(outcome = "clicked", score = "score", group = NA))
  expect_identical(v$variables, f$variables)
  expect_null(f$na.action)
  expect_identical(f$call[[1]], as.name("iso_calibrate"))
  # groups after `|`
  fg <- iso_calibrate(clicked ~ score | country, data = d)
  vg <- iso_calibrate(d$score, d$clicked, groups = d$country)
  expect_identical(fit_core(fg), fit_core(vg))
  expect_identical(fg$groups, unique(d$country))
  expect_identical(fg$variables[["group"]], "country")
  # weights are evaluated in data first, then where the formula was made
  fw <- iso_calibrate(clicked ~ score | country, data = d, weights = w)
  vw <- iso_calibrate(d$score, d$clicked, weights = d$w, groups = d$country)
  expect_identical(fit_core(fw), fit_core(vw))
  expect_false(isTRUE(all.equal(fw$curves, fg$curves)))
  ww <- d$w
  expect_identical(fit_core(iso_calibrate(clicked ~ score | country, data = d, weights = ww)),
                   fit_core(fw))
  # the arguments of earlier versions keep their places
  expect_identical(fit_core(iso_calibrate(d$score, d$clicked, NULL, d$country, "cpu")),
                   fit_core(vg))
  # data in second place, as lm(y ~ x, d); variables from the environment
  expect_identical(fit_core(iso_calibrate(clicked ~ score | country, d)), fit_core(fg))
  score <- d$score
  clicked <- d$clicked
  expect_identical(fit_core(iso_calibrate(clicked ~ score)), fit_core(f))
  # expressions of variables
  fl <- iso_calibrate(I(clicked == 1) ~ qlogis(pmin(pmax(score, 0.001), 0.999)), data = d)
  expect_identical(fl$curves[[1]]$value, f$curves[[1]]$value)
  expect_identical(fl$variables[["outcome"]], "I(clicked == 1)")
  # a formula made in a function finds that function's variables
  make <- function() {
    s_local <- d$score
    y_local <- d$clicked
    y_local ~ s_local
  }
  expect_identical(fit_core(iso_calibrate(make())), fit_core(f))
})

test_that("the names of the variables label output and find new data", {
  d <- calibration_data()
  cal <- iso_calibrate(clicked ~ score | country, data = d)
  expect_output(print(cal), "Isotonic calibration of clicked on score, one curve per country")
  expect_output(print(summary(cal)), "clicked on score, one curve per country")
  # default interface: names of variables and of extracted columns
  s <- d$score
  expect_identical(iso_calibrate(s, d$clicked)$variables,
                   c(outcome = "clicked", score = "s", group = NA))
  expect_identical(iso_calibrate(d[["score"]], d$clicked, groups = d$country)$variables,
                   c(outcome = "clicked", score = "score", group = "country"))
  expect_identical(iso_calibrate(d$score + 0, d$clicked > 0)$variables,
                   c(outcome = "outcome", score = "score", group = NA))
  # a data frame of new data is searched by name, in any column order
  nd <- data.frame(other = 1:4, country = c("IT", "DE", "FR", "DE"),
                   score = c(0.2, 0.5, 0.7, 0.95))
  expect_identical(predict(cal, nd), predict(cal, nd$score, groups = nd$country))
  expect_identical(predict(cal, nd, groups = "FR"), predict(cal, nd$score, groups = "FR"))
  expect_identical(predict(cal, nd[c("score", "other")], groups = nd$country),
                   predict(cal, nd$score, groups = nd$country))
  one <- iso_calibrate(clicked ~ score, data = d)
  expect_identical(predict(one, data.frame(x = c(0.3, 0.6))), predict(one, c(0.3, 0.6)))
  expect_error(predict(one, data.frame(x = 0.3, y = 0.4)),
               "`newdata` must have a column `score`", class = "gpuiso_error_input")
  expect_error(predict(cal, nd[c("score", "other")]),
               "or `newdata` a column `country`", class = "gpuiso_error_input")
  expect_error(predict(cal, data.frame(score = "a", country = "DE")),
               "`newdata\\$score` must be numeric", class = "gpuiso_error_input")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(cal, group = "FR"), cal)
  expect_silent(plot(cal, group = 2, interpolation = "linear", xlim = c(0, 1), col.lab = 2))
})

test_that("missing values: na.omit (the default), na.exclude, na.fail", {
  d <- calibration_data()
  d$score[c(3, 40)] <- NA
  d$clicked[7] <- NA
  d$country[11] <- NA
  d$w[90] <- NA
  keep <- stats::complete.cases(d)
  dc <- d[keep, ]
  ref <- iso_calibrate(dc$score, dc$clicked, weights = dc$w, groups = dc$country)
  f <- iso_calibrate(clicked ~ score | country, data = d, weights = w)
  expect_identical(fit_core(f), fit_core(ref))
  expect_s3_class(f$na.action, "omit")
  expect_identical(unname(unclass(f$na.action)), which(!keep))
  expect_identical(names(f$na.action), rownames(d)[!keep])
  expect_identical(f$n, sum(keep))
  expect_identical(nobs(f), sum(keep))
  expect_output(print(f), "5 observations deleted due to missingness")
  # the same through the default interface, and with na.omit named
  v <- iso_calibrate(d$score, d$clicked, weights = d$w, groups = d$country)
  expect_identical(fit_core(v), fit_core(ref))
  expect_identical(unclass(v$na.action), unclass(f$na.action))
  expect_identical(fit_core(iso_calibrate(d$score, d$clicked, weights = d$w,
                                          groups = d$country, na.action = "na.omit")),
                   fit_core(ref))
  # in-sample results: omitted rows dropped (na.omit) or NA (na.exclude)
  expect_identical(fitted(f), fitted(ref))
  expect_length(fitted(f), sum(keep))
  fx <- iso_calibrate(clicked ~ score | country, data = d, weights = w,
                      na.action = na.exclude)
  expect_s3_class(fx$na.action, "exclude")
  expect_identical(fit_core(fx), fit_core(ref))
  fit_x <- fitted(fx)
  expect_length(fit_x, nrow(d))
  expect_identical(which(is.na(fit_x)), which(!keep))
  expect_identical(unname(fit_x[keep]), unname(fitted(ref)))
  expect_identical(predict(fx), fit_x)
  res_x <- residuals(fx)
  expect_identical(which(is.na(res_x)), which(!keep))
  expect_equal(unname(res_x[keep]), dc$clicked - unname(fitted(ref)))
  vx <- iso_calibrate(d$score, d$clicked, weights = d$w, groups = d$country,
                      na.action = "na.exclude")
  expect_identical(unname(fitted(vx)), unname(fit_x))
  # na.fail: an error that says so
  expect_error(iso_calibrate(clicked ~ score, data = d, na.action = na.fail),
               "missing values", class = "gpuiso_error_input")
  expect_error(iso_calibrate(d$score, d$clicked, na.action = na.fail),
               "missing values", class = "gpuiso_error_input")
  # the message names the argument that holds the first missing value
  s <- c(0.1, 0.4, 0.35, 0.8, 0.9, 0.2)
  o <- c(0, 1, 0, 1, 1, 0)
  e <- expect_error(iso_calibrate(c(s, NA), c(o, 1), na.action = na.fail),
                    "`scores` has missing values \\(element 7 is NA\\).*na.action",
                    class = "gpuiso_error_input")
  expect_identical(e$arg, "scores")
  expect_identical(e$position, 7L)
  expect_error(iso_calibrate(c(s, 0.5), c(o, NA), na.action = "na.fail"),
               "`outcomes` has missing values \\(element 7", class = "gpuiso_error_input")
  expect_error(iso_calibrate(s, o, weights = c(1, 1, NaN, 1, 1, 1), na.action = na.fail),
               "`weights` has missing values \\(element 3 is NaN", class = "gpuiso_error_input")
  expect_error(iso_calibrate(s, o, groups = c("a", NA, "a", "b", "b", "b"), na.action = na.fail),
               "`groups` has missing values \\(element 2", class = "gpuiso_error_input")
  expect_error(iso_calibrate(clicked ~ score, data = d, na.action = na.fail),
               "`scores` has missing values \\(element 3", class = "gpuiso_error_input")
  expect_error(iso_calibrate(d$score, d$clicked, na.action = "no_such_function"),
               "`na.action` must be a function", class = "gpuiso_error_input")
  # without missing values na.fail passes and nothing is recorded
  expect_null(iso_calibrate(dc$score, dc$clicked, na.action = na.fail)$na.action)
  # NaN is missing too; everything missing is an error
  expect_identical(iso_calibrate(c(NaN, 1, 2, 3), c(1, 0, 0, 1))$n, 3L)
  expect_error(iso_calibrate(c(NA, NA), c(0, 1)), "every observation has a missing value",
               class = "gpuiso_error_input")
})

test_that("a custom na.action is applied to the variables of the fit", {
  d <- calibration_data(200)
  d$score[5] <- NA
  seen <- NULL
  my_na <- function(frame) {
    seen <<- names(frame)
    stats::na.omit(frame)
  }
  f <- iso_calibrate(clicked ~ score | country, data = d, weights = w, na.action = my_na)
  expect_identical(seen, c("clicked", "score", "country", "(weights)"))
  expect_identical(f$n, 199L)
  # a custom na.action is called even when nothing is missing
  seen <- NULL
  iso_calibrate(clicked ~ score, data = d[-5, ], na.action = my_na)
  expect_identical(seen, c("clicked", "score"))
})

test_that("y_min and y_max clip the unbounded fit, exactly", {
  d <- calibration_data(2000, seed = 22)
  for (b in list(c(0.1, 0.9), c(0.3, 0.3), c(0, 0.5), c(0.25, 1))) {
    free <- iso_calibrate(clicked ~ score | country, data = d, weights = w)
    bound <- iso_calibrate(clicked ~ score | country, data = d, weights = w,
                           y_min = b[1], y_max = b[2])
    expect_identical(c(bound$y_min, bound$y_max), b)
    for (k in seq_along(free$curves)) {
      expect_identical(bound$curves[[k]]$value,
                       pmin(pmax(free$curves[[k]]$value, b[1]), b[2]))
      expect_identical(bound$curves[[k]]$score, free$curves[[k]]$score)
    }
    p <- predict(bound, runif(500, -0.5, 1.5), groups = "DE", interpolation = "linear")
    expect_true(all(p >= b[1] & p <= b[2]))
    expect_equal(fitted(bound), pmin(pmax(fitted(free), b[1]), b[2]))
  }
  # the clipped fit is the least-squares fit under the bounds: no monotone
  # vector within them does better (checked against random competitors)
  y <- c(0, 0, 1, 0, 1, 1, 1, 0, 1, 1)
  s <- 1:10
  cal <- iso_calibrate(s, y, y_min = 0.2, y_max = 0.7)
  z <- cal$curves[[1]]$value
  loss <- function(v) sum((y - v)^2)
  set.seed(23)
  for (i in 1:500) {
    v <- sort(runif(10, 0.2, 0.7))
    expect_lte(loss(z), loss(v) + 1e-12)
  }
  # summary() reports the mean outcome, not the mean of clipped values
  expect_equal(summary(cal)$table$mean_outcome, mean(y))
  expect_output(print(cal), "bounded to \\[0.2, 0.7\\]")
  # NULL is no bound; bad bounds are errors naming the argument
  expect_identical(iso_calibrate(s, y, y_min = NULL, y_max = NULL)$curves,
                   iso_calibrate(s, y)$curves)
  e <- function(expr, re) expect_error(expr, re, class = "gpuiso_error_input")
  e(iso_calibrate(s, y, y_min = 0.8, y_max = 0.2), "`y_min` must not exceed `y_max`: 0.8 > 0.2")
  e(iso_calibrate(s, y, y_min = -0.1), "`y_min` must be one number in \\[0, 1\\]")
  e(iso_calibrate(s, y, y_max = 2), "`y_max` must be one number in \\[0, 1\\]")
  e(iso_calibrate(s, y, y_max = NA), "`y_max` must be one number")
  e(iso_calibrate(s, y, y_min = c(0.1, 0.2)), "`y_min` must be one number")
  e(iso_calibrate(s, y, y_min = "0.1"), "`y_min` must be one number")
})

test_that("bad formulas and arguments are errors that name them", {
  d <- calibration_data(100)
  e <- function(expr, re) expect_error(expr, re, class = "gpuiso_error_input")
  e(iso_calibrate(~ score, data = d), "`scores` must be a two-sided formula")
  e(iso_calibrate(clicked ~ score + w, data = d), "one score variable, not `score \\+ w`")
  e(iso_calibrate(clicked ~ ., data = d), "one score variable")
  e(iso_calibrate(clicked ~ score | country + w, data = d), "one group variable")
  e(iso_calibrate(clicked ~ nothing, data = d), "The score of the formula, `nothing`, could not be evaluated")
  e(iso_calibrate(clicked ~ score, d$clicked), "`outcomes` must not be given with a formula")
  e(iso_calibrate(clicked ~ score, data = d, groups = d$country), "`groups` must not be given with a formula")
  e(iso_calibrate(clicked ~ score, data = 3), "`data` must be a data frame")
  e(iso_calibrate(d$score, d$clicked, data = d), "`data` is used with a formula only")
  e(iso_calibrate(d$score), "`outcomes` must be given")
  e(iso_calibrate(), "`scores` must be given")
  e(iso_calibrate(country ~ score, data = d), "`outcomes` must be a numeric vector")
  e(iso_calibrate(clicked ~ score, data = d[1:3, ], weights = w[1:2]),
    "`scores` and `weights` must have the same length")
  # newscores is the former name of newdata
  cal <- iso_calibrate(clicked ~ score, data = d)
  expect_identical(predict(cal, newscores = c(0.2, 0.6)), predict(cal, c(0.2, 0.6)))
  expect_identical(predict(cal, newscores = c(0.2, 0.6), interpolation = "linear"),
                   predict(cal, newdata = c(0.2, 0.6), interpolation = "linear"))
  e(predict(cal, c(0.2, 0.6), newscores = c(0.2, 0.6)),
    "`newdata` and `newscores` must not both be given")
  e(predict(cal, newdata = 0.1, newscores = 0.2), "must not both be given")
})

test_that("iso_calibrate() with extreme weights equals the same fit with weights scaled by a power of two", {
  set.seed(3)
  n <- 200
  s <- round(runif(n), 2)
  y <- rbinom(n, 1, s)
  w <- runif(n, 0.5, 2)
  ref <- iso_calibrate(s, y, weights = w, device = "cpu")$curves[[1]]
  # the isotonic engine takes the pooled points; weights at the ends of the
  # range need its exact arithmetic (issue 11): probe it
  probe <- function(fit, ref) isTRUE(tryCatch(all(fit() == ref), error = function(e) FALSE))
  engine_exact <- probe(function() isotonic(c(1, 2), weights = c(1e-162, 1e-162)), c(1, 2)) &&
    probe(function() isotonic(c(4, 2) * tiny, weights = c(1e308, 1e308)), 3 * tiny) &&
    probe(function() isotonic(c(1, 0, 2), weights = c(1e308, 1e308, 1e-300)), c(0.5, 0.5, 2))
  for (k in c(-1000, -600, -400, 400, 600, 1000)) {
    if (!engine_exact && abs(k) > 500) next
    cv <- iso_calibrate(s, y, weights = w * 2^k, device = "cpu")$curves[[1]]
    expect_identical(cv$value, ref$value, info = k)
    expect_identical(cv$weight, ref$weight * 2^k, info = k)
  }
  skip_if_not(engine_exact, "the isotonic engine is not exact at the ends of the range yet")
  skip_if_not_installed("gmp")
  # against exact arithmetic: the isotonic fit of the pooled points (exact
  # means, correctly rounded, as data), for weights across the range
  wpool <- c(tiny, 1e-300, 1e-200, 0.1, 1, 3, 1e100, 1e300, 1e308)
  for (seed in 1:40) {
    set.seed(seed)
    n <- sample(3:10, 1)
    s <- sample(1:5, n, replace = TRUE) / 10
    y <- sample(c(0, 1, 0.5, 0.1), n, replace = TRUE)
    w <- sample(wpool, n, replace = TRUE)
    if (length(unique(s)) < 2) next
    p <- gpuiso:::pool_scores(s, y, w, NULL)
    if (any(is.infinite(p$weight))) next
    fitq <- antitonic_q(rev(lapply(p$value, gmp::as.bigq)), rev(lapply(p$weight, gmp::as.bigq)))
    cv <- iso_calibrate(s, y, weights = w, device = "cpu")$curves[[1]]
    expect_identical(cv$value, rev(q_to_double(do.call(c, fitq))), info = paste("seed", seed))
  }
})

test_that("the GPU takes weights only where its plain double sums are exact", {
  exact <- gpuiso:::sums_exact_in_doubles
  expect_true(exact())
  expect_true(exact(weights = c(1, 2, 3)))
  expect_true(exact(weights = c(2^52, 2^52)))
  expect_true(exact(weights = c(5e-324, 1e-323, 0)))
  expect_true(exact(weights = rep(2^-700, 1000)))
  expect_false(exact(weights = rep(1e-200, 5)))   # full significands: 5 of them round
  expect_false(exact(weights = c(0.1, 0.2)))
  expect_false(exact(weights = c(1, 2^-60)))
  expect_false(exact(weights = c(2^52, 2^52, 1))) # the total needs 54 bits
  expect_true(exact(c(0, 1, 1)))
  expect_false(exact(c(0, 0.5)))
  expect_true(exact(c(0, 1), c(0.5, 0.25)))
  # what those sums are for: a plain double sum of the first is exact
  expect_identical(sum(rep(2^-700, 1000)), 1000 * 2^-700)
})

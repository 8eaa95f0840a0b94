# iso_calibrate()'s front end: the formula interface, missing values and
# na.action, the variables' names, y_min/y_max, unknown arguments, and the
# stats generics.

# A fit's components that do not depend on how the model was written.
fit_core <- function(cal) cal[c("curves", "groups", "n", "y_min", "y_max", "device")]

calibration_data <- function(n = 600, seed = 21) {
  set.seed(seed)
  d <- data.frame(score = round(runif(n), 2),
                  country = sample(c("DE", "FR", "IT"), n, replace = TRUE),
                  w = runif(n, 0.5, 2))
  d$clicked <- rbinom(n, 1, d$score^2)
  d
}

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

test_that("the plot's axes are labelled with the variables' names", {
  d <- calibration_data()
  cal <- iso_calibrate(clicked ~ score | country, data = d)
  # the labels that plot.default() gives title(), recorded by a trace
  rec <- new.env()
  suppressMessages(trace("title", where = asNamespace("graphics"), print = FALSE,
                         tracer = bquote(assign("seen", list(xlab = xlab, ylab = ylab,
                                                             main = main),
                                                envir = .(rec)))))
  on.exit(suppressMessages(untrace("title", where = asNamespace("graphics"))), add = TRUE)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  plot(cal, group = "IT")
  expect_identical(rec$seen, list(xlab = "score", ylab = "calibrated probability (clicked)",
                                  main = "Isotonic calibration, country IT"))
  plot(cal, xlab = "my x")
  expect_identical(rec$seen$xlab, "my x")
  r <- reliability_diagram(d$score, d$clicked)
  expect_identical(r$variables, c(forecast = "score", outcome = "clicked"))
  plot(r)
  expect_identical(rec$seen[c("xlab", "ylab")],
                   list(xlab = "forecast probability (score)",
                        ylab = "conditional event probability (clicked)"))
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

test_that("in-sample predict() and fitted() are the curves at the fit's scores", {
  d <- calibration_data(3000, seed = 24)
  cal <- iso_calibrate(clicked ~ score | country, data = d)
  expect_length(fitted(cal), nrow(d))
  ref <- numeric(nrow(d))
  for (k in seq_along(cal$curves)) {
    i <- which(d$country == cal$groups[k])
    cv <- cal$curves[[k]]
    ref[i] <- cv$value[match(d$score[i], cv$score)]
  }
  expect_identical(fitted(cal), ref)
  expect_identical(predict(cal), ref)
  expect_identical(predict(cal, d), ref)
  expect_identical(predict(cal, d, interpolation = "linear"), ref)
  expect_identical(residuals(cal), d$clicked - ref)
  one <- iso_calibrate(d$score, d$clicked)
  expect_identical(fitted(one), one$curves[[1]]$value[match(d$score, one$curves[[1]]$score)])
  expect_error(predict(cal, groups = "DE"), "`groups` must be NULL without `newdata`",
               class = "gpuiso_error_input")
  # nobs() counts the observations of non-zero weight, as for lm()
  w <- rep(1, nrow(d))
  w[1:10] <- 0
  expect_identical(nobs(iso_calibrate(d$score, d$clicked, weights = w)), nrow(d) - 10L)
  expect_identical(nobs(one), nrow(d))
  # the fit keeps the data it was given, not copies
  s <- d$score
  fit <- iso_calibrate(s, d$clicked)
  expect_identical(fit$data$scores, s)
  expect_identical(fit$data$outcomes, d$clicked)
})

test_that("coef() and logLik() are errors that say what to use instead", {
  cal <- iso_calibrate(c(0.1, 0.2, 0.3, 0.4), c(0, 1, 0, 1))
  expect_error(coef(cal), "`coef\\(\\)` does not apply.*`x\\$curves`.*`predict\\(\\)`",
               class = "gpuiso_error_input")
  expect_error(logLik(cal), "`logLik\\(\\)` does not apply.*reliability_diagram",
               class = "gpuiso_error_input")
})

test_that("every calibration and reliability method names an unknown argument", {
  cal <- iso_calibrate(c(0.1, 0.2, 0.3, 0.4), c(0, 1, 0, 1))
  r <- reliability_diagram(c(0.1, 0.2, 0.3, 0.4), c(0, 1, 0, 1))
  e <- function(expr, re) expect_error(expr, re, class = "gpuiso_error_input")
  e(predict(cal, 0.2, newx = 0.3), "`newx` is not an argument of `predict\\(\\)`. Did you mean `newdata`")
  e(predict(cal, 0.2, extrapolate = "na"), "`extrapolate` is not an argument.*Did you mean `out_of_bounds`")
  e(predict(cal, 0.2, intrpolation = "linear"), "`intrpolation` is not an argument.*Did you mean `interpolation`")
  e(predict(cal, 0.2, NULL, "linear", "clip", 0.5, 7), "takes no further unnamed arguments")
  e(print(cal, foo = 1), "`foo` is not an argument of `print\\(\\)`")
  e(summary(cal, digits = 3), "`digits` is not an argument of `summary\\(\\)`")
  e(print(summary(cal), foo = 1), "`foo` is not an argument of `print\\(\\)`")
  e(fitted(cal, type = "x"), "`type` is not an argument of `fitted\\(\\)`")
  e(residuals(cal, type = "pearson"), "`type` is not an argument of `residuals\\(\\)`")
  e(nobs(cal, use.fallback = TRUE), "`use.fallback` is not an argument of `nobs\\(\\)`")
  e(print(r, foo = 1), "`foo` is not an argument of `print\\(\\)`")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  e(plot(cal, grp = 1), "`grp` is not an argument of `plot\\(\\)`. Did you mean `group`")
  e(plot(cal, colour = "red"), "`colour` is not an argument of `plot\\(\\)`")
  e(plot(r, foo = 1), "`foo` is not an argument of `plot\\(\\)`")
  # graphical parameters pass
  expect_silent(plot(cal, lty = 2, xlim = c(0, 1)))
  expect_silent(plot(r, xlim = c(0, 0.5), cex.lab = 0.8))
  expect_output(print(cal, digits = 3), "calibrated values from 0 to 1")
  expect_output(print(r, digits = 2), "Brier score")
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

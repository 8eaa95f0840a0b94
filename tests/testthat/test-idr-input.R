# The inputs of idr() (R/idr-input.R): the formula and the default
# interface, missing values and na.action.

fit_fields <- c("x", "weight", "thresholds", "ptr", "start", "value", "n",
                "data", "na.action")

test_that("the formula and the default interface give identical fits", {
  f1 <- idr(Ozone ~ Temp, data = aq)
  ok <- !ozone_na
  f2 <- idr(aq$Ozone, aq$Temp)
  f3 <- idr(aq$Ozone[ok], aq$Temp[ok])
  expect_identical(f1[fit_fields], f2[fit_fields])
  expect_identical(f1[fit_fields[-9]], f3[fit_fields[-9]])
  expect_null(f3$na.action)
  expect_identical(f1$yname, "Ozone")
  expect_identical(f1$xname, "Temp")
  expect_identical(f2$yname, "Ozone")
  expect_identical(f2$xname, "Temp")
  expect_s3_class(f1$terms, "terms")
  expect_null(f2$terms)
  # data by position, as in lm(); the call records it as `data`
  f4 <- idr(Ozone ~ Temp, aq)
  expect_identical(f4[fit_fields], f1[fit_fields])
  expect_identical(names(f4$call), c("", "y", "data"))
  expect_identical(eval(f4$call)[fit_fields], f1[fit_fields])
  # weights are evaluated in data, as lm() does
  f5 <- idr(Ozone ~ Temp, data = aq, weights = Wind)
  f6 <- idr(aq$Ozone, aq$Temp, weights = aq$Wind)
  expect_identical(f5[fit_fields], f6[fit_fields])
  expect_false(identical(f5$value, f1$value))
  # variables from the formula's environment, and a transformed covariate
  oz <- aq$Ozone[ok]
  tt <- aq$Temp[ok]
  f7 <- idr(oz ~ tt)
  expect_identical(f7[fit_fields[-9]], f3[fit_fields[-9]])
  f8 <- idr(log(Ozone) ~ I(Temp - 32), data = aq)
  expect_identical(f8$yname, "log(Ozone)")
  expect_identical(f8$xname, "I(Temp - 32)")
  expect_equal(f8$x, f1$x - 32)
  # and the names of one-column data frames and of symbols
  temp <- aq$Temp
  expect_identical(idr(aq$Ozone, temp)$xname, "temp")
  expect_identical(idr(aq$Ozone, aq[, "Temp", drop = FALSE])$xname, "Temp")
  expect_identical(idr(c(1, 2, 3), c(3, 2, 1))$xname, "x")
  expect_identical(idr(c(1, 2, 3), c(3, 2, 1))$yname, "y")
})

test_that("formulas that idr() cannot fit are errors", {
  # several covariates are fitted (test-idr-poset.R); interactions are not
  expect_input_error(idr(Ozone ~ Temp:Wind, data = aq),
                     "covariates on its right-hand side.*joined by `\\+`.*`Temp:Wind`")
  expect_input_error(idr(Ozone ~ Temp * Wind, data = aq), "`Temp`, `Wind`, `Temp:Wind`")
  expect_input_error(idr(~ Temp, data = aq), "must have a response")
  expect_input_error(idr(Ozone ~ Tmp, data = aq), "could not be evaluated.*Tmp")
  expect_input_error(idr(Ozone ~ Temp, aq, data = aq), "`X` is not used with a formula")
  expect_input_error(idr(Ozone ~ Month, data = transform(aq, Month = factor(Month))),
                     "`Month` must be numeric, not a factor")
  expect_input_error(idr(aq$Ozone, aq$Temp, data = aq), "`data` is used with a formula only")
  expect_input_error(idr(aq$Ozone), "`X` is missing")
})

test_that("na.omit (the default) drops incomplete rows and records them as lm() does", {
  fit <- idr(Ozone ~ Temp, data = aq)
  ref <- lm(Ozone ~ Temp, data = aq)
  expect_identical(fit$na.action, ref$na.action)
  expect_s3_class(fit$na.action, "omit")
  expect_identical(unname(as.integer(fit$na.action)), which(ozone_na))
  expect_identical(fit$n, sum(!ozone_na))
  expect_identical(nobs(fit), nobs(ref))
  expect_length(predict(fit), sum(!ozone_na))
  expect_length(crps(fit), sum(!ozone_na))
  expect_output(print(fit), "37 observations deleted due to missingness")
  # missing covariates and weights are dropped too
  x <- c(1, 2, NA, 4, 5, 6)
  y <- c(2, NA, 3, 1, 5, 4)
  w <- c(1, 2, 1, NA, 1, 1)
  fit <- idr(y, x, weights = w)
  expect_identical(as.vector(fit$na.action), c(2L, 3L, 4L))
  expect_identical(fit$data$y, c(2, 5, 4))
  expect_identical(fit[fit_fields[1:6]],
                   idr(c(2, 5, 4), c(1, 5, 6), weights = c(1, 1, 1))[fit_fields[1:6]])
  expect_identical(idr(y, x, weights = w, na.action = "na.omit")$value, fit$value)
  expect_input_error(idr(c(NA, NA), c(1, 2)), "No observations are left")
  expect_input_error(idr(1:3, 1:3, na.action = "no_such_function"), "`na.action` must be a function")
  expect_input_error(idr(1:3, 1:3, na.action = 3), "`na.action` must be a function")
})

test_that("na.fail stops at the first missing value, naming it", {
  expect_input_error(idr(Ozone ~ Temp, data = aq, na.action = na.fail),
                     "`Ozone` has missing values \\(element 5 is NA\\)")
  expect_input_error(idr(aq$Ozone, aq$Temp, na.action = "na.fail"),
                     "`y` has missing values \\(element 5 is NA\\).*refuses")
  expect_input_error(idr(1:3, c(1, NaN, 3), na.action = na.fail),
                     "`X` has missing values \\(element 2 is NaN\\)")
  expect_input_error(idr(Ozone ~ Temp, data = aq, weights = ifelse(Day == 3, NA, 1),
                         na.action = na.fail), "`weights` has missing values \\(element 3 is NA\\)")
  # without missing values na.fail is no obstacle
  ok <- !ozone_na
  expect_identical(idr(aq$Ozone[ok], aq$Temp[ok], na.action = na.fail)$value,
                   idr(Ozone ~ Temp, data = aq)$value)
})

test_that("na.exclude pads the in-sample results back with NA, as naresid() does", {
  fo <- idr(Ozone ~ Temp, data = aq)
  fx <- idr(Ozone ~ Temp, data = aq, na.action = na.exclude)
  expect_s3_class(fx$na.action, "exclude")
  expect_identical(fx[fit_fields[1:7]], fo[fit_fields[1:7]])
  n <- nrow(aq)
  p <- predict(fx)
  expect_length(p, n)
  expect_identical(is.na(p$j), ozone_na)
  expect_identical(fitted(fx), p)
  s <- crps(fx)
  expect_length(s, n)
  expect_identical(is.na(s), ozone_na)
  expect_identical(s[!ozone_na], crps(fo))
  expect_identical(s, naresid(fx$na.action, crps(fo)))
  expect_identical(crps(predict(fx), aq$Ozone), s)
  expect_identical(pit(fx, seed = 3)[!ozone_na], pit(fo, seed = 3))
  expect_identical(is.na(pit(fx, randomize = FALSE)), ozone_na)
  G <- cdf(fx, c(20, 60))
  expect_identical(dim(G), c(n, 2L))
  expect_identical(G[!ozone_na, ], cdf(fo, c(20, 60)))
  expect_true(all(is.na(G[ozone_na, ])))
  expect_identical(is.na(qpred(fx, 0.5)[, 1]), ozone_na)
  expect_identical(is.na(bscore(fx, 50)[, 1]), ozone_na)
  expect_identical(is.na(qscore(fx, 0.5)[, 1]), ozone_na)
  expect_equal(summary(fx)$crps, mean(crps(fo)))
  # names: rows named in the data keep their names, padding included
  d <- aq[1:12, c("Ozone", "Temp")]
  rownames(d) <- month.abb
  fn <- idr(Ozone ~ Temp, data = d, na.action = na.exclude)
  expect_named(crps(fn), month.abb)
  expect_identical(rownames(cdf(fn, 30)), month.abb)
  expect_identical(unname(is.na(crps(fn))), is.na(d$Ozone))
  expect_named(crps(idr(Ozone ~ Temp, data = d)), month.abb[!is.na(d$Ozone)])
  # names of the vectors; duplicated names are kept, not used as row names
  y <- c(a = 1, d = 2, b = NA, c = 4)
  expect_named(crps(idr(y, 1:4, na.action = na.exclude)), c("a", "d", "b", "c"))
  expect_named(crps(idr(y, 1:4)), c("a", "d", "c"))
  names(y)[2] <- "a"
  expect_named(crps(idr(y, 1:4)), c("a", "a", "c"))
  expect_length(crps(idr(y, 1:4, na.action = na.exclude)), 4)
  # the default interface
  fd <- idr(aq$Ozone, aq$Temp, na.action = na.exclude)
  expect_identical(crps(fd), s)
  # pit_hist leaves missing PIT values out
  pdf(NULL)
  on.exit(grDevices::dev.off())
  h <- pit_hist(pit(fx, seed = 1))
  expect_identical(sum(h$counts), sum(!ozone_na))
})

test_that("a formula takes columns with non-syntactic names in backquotes", {
  set.seed(4)
  d <- data.frame(y = rnorm(40), "t 2m" = runif(40), b = runif(40), check.names = FALSE)
  one <- idr(y ~ `t 2m`, data = d)
  expect_equal(crps(one), crps(idr(d$y, d[["t 2m"]])), ignore_attr = TRUE)
  two <- idr(y ~ `t 2m` + b, data = d)
  expect_equal(crps(two), crps(idr(d$y, d[c("t 2m", "b")])), ignore_attr = TRUE)
  expect_equal(cdf(predict(two, d[1:5, ], ), 0), cdf(predict(idr(d$y, d[c("t 2m", "b")]), d[1:5, c("t 2m", "b")]), 0),
               ignore_attr = TRUE)
})

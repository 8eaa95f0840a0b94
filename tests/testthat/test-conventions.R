# What every fit class shares: one prediction rule (?prediction) for
# isoreg(), iso_calibrate() and idr(); no argument silently dropped by any
# method with `...`.

test_that("the three fit classes predict by one rule", {
  set.seed(401)
  for (trial in 1:30) {
    n <- sample(5:60, 1L)
    s <- sort(sample(seq(0.01, 0.99, by = 0.01), n))
    o <- rbinom(n, 1, s)
    if (length(unique(o)) < 2L) o[c(1L, n)] <- c(0L, 1L)
    t <- c(runif(40, -0.1, 1.1), s, NA)
    fi <- isoreg(s, o)
    fc <- iso_calibrate(s, o)
    fd <- idr(o, s)
    for (interp in c("constant", "linear")) for (oob in c("clip", "na")) {
      lab <- sprintf("trial %d, %s, %s", trial, interp, oob)
      pi <- predict(fi, t, interpolation = interp, out_of_bounds = oob)
      pc <- predict(fc, t, interpolation = interp, out_of_bounds = oob)
      pd <- 1 - cdf(predict(fd, t, interpolation = interp, out_of_bounds = oob), 0)[, 1]
      expect_identical(is.na(pi), is.na(t) | oob == "na" & (t < s[1] | t > s[n]),
                       label = lab)
      expect_equal(pc, pi, tolerance = 1e-12, label = lab)
      expect_equal(unname(pd), pi, tolerance = 1e-12, label = lab)
    }
    # the default is the step of as.stepfun(), the same for all three
    expect_identical(predict(fi, t[!is.na(t)]), as.stepfun(fi)(t[!is.na(t)]))
    expect_equal(predict(fc, t), predict(fi, t), tolerance = 1e-12)
    # out_of_bounds = "error" names the first point outside, in every class
    bad <- c(0.5, 2, -1)
    for (f in list(fi, fc, fd)) {
      expect_error(predict(f, bad, out_of_bounds = "error"), "element 2 is 2",
                   class = "gpuiso_error_input")
    }
  }
  s <- c(0.1, 0.2, 0.3, 0.4)
  o <- c(0, 1, 0, 1)
  expect_identical(predict(isoreg(s, o), c(0.15, 0.25, 0.35)), c(0.5, 0.5, 1))
  expect_identical(predict(iso_calibrate(s, o), c(0.15, 0.25, 0.35)), c(0.5, 0.5, 1))
})

test_that("newdata is the argument of every predict method", {
  fi <- isoreg(c(1, 2, 3, 4), c(1, 3, 2, 4))
  fc <- iso_calibrate(c(0.1, 0.4, 0.35, 0.8), c(0, 1, 0, 1))
  fd <- idr(c(1, 2, 2, 4, 3, 5), c(1, 1, 2, 2, 3, 3))
  expect_identical(predict(fi, newdata = c(1.5, 3)), predict(fi, c(1.5, 3)))
  expect_identical(predict(fc, newdata = c(0.2, 0.5)), predict(fc, c(0.2, 0.5)))
  expect_identical(cdf(predict(fd, newdata = c(1.5, 3)), 2),
                   cdf(predict(fd, c(1.5, 3)), 2))
  # peers' spellings mean the same; misspellings are errors
  expect_identical(predict(fc, newscores = c(0.2, 0.5)), predict(fc, c(0.2, 0.5)))
  expect_identical(cdf(predict(fd, data = data.frame(x = c(1.5, 3))), 2),
                   cdf(predict(fd, c(1.5, 3)), 2))
  expect_error(predict(fi, newx = 2.5), "`newx`.*Did you mean `newdata`",
               class = "gpuiso_error_input")
  expect_error(predict(fi, 2.5, extrapolate = "na"), "Did you mean `out_of_bounds`",
               class = "gpuiso_error_input")
  expect_error(predict(fd, dta = data.frame(x = 1)), "`dta`",
               class = "gpuiso_error_input")
  # NA in, NA out; a data frame is searched for the variable
  expect_identical(predict(fi, c(NA, 2)), c(NA, predict(fi, 2)))
  expect_identical(predict(fi, data.frame(u = 9, x = c(1.5, 3))), predict(fi, c(1.5, 3)))
})

# One object of each class the package defines, for the methods below.
objects_by_class <- function() {
  set.seed(402)
  x <- runif(50); y <- x + rnorm(50, sd = 0.3)
  fi <- isoreg(x, y)
  fc <- iso_calibrate(x, rbinom(50, 1, x))
  fd <- idr(y, x)
  list(gpuiso_isoreg = fi, summary.gpuiso_isoreg = summary(fi),
       gpuiso_calibration = fc, summary.gpuiso_calibration = summary(fc),
       gpuiso_idr = fd, summary.gpuiso_idr = summary(fd),
       gpuiso_idr_pred = predict(fd, c(0.2, 0.5)),
       gpuiso_reliability = reliability_diagram(x, rbinom(50, 1, x)),
       gpuiso_gpu_info = gpu_info())
}

test_that("every method with ... names an argument it does not use", {
  ns <- asNamespace("gpuiso")
  info <- getNamespaceInfo("gpuiso", "S3methods")
  objs <- objects_by_class()
  pdf(NULL)
  on.exit(dev.off(), add = TRUE)
  checked <- 0L
  for (i in seq_len(nrow(info))) {
    generic <- info[i, 1L]
    cls <- info[i, 2L]
    method <- get(info[i, 3L], envir = ns)
    if (!"..." %in% names(formals(method)) || is.null(objs[[cls]])) next
    lab <- paste0(generic, "() of ", cls)
    f <- get(generic, mode = "function")
    expect_error(capture.output(f(objs[[cls]], bogus_arg = 1)),
                 class = "gpuiso_error_input", label = lab)
    e <- tryCatch(capture.output(f(objs[[cls]], bogus_arg = 1)), error = identity)
    # methods that are errors whatever their arguments (coef() of a step
    # function, ...) say what to use instead; the others name the argument
    always <- inherits(tryCatch(capture.output(f(objs[[cls]])), error = identity),
                       "error")
    if (!always) expect_match(conditionMessage(e), "bogus_arg", label = lab)
    checked <- checked + 1L
  }
  # the methods of every class were reached
  expect_gt(checked, 30L)
})

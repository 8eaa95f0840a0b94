# The argument checks (R/checks.R), through the functions that use them:
# classed errors whose message names the argument and the first bad
# position; the thread option and its default; `digits`, `bins`, `breaks`.

test_that("non-finite values in y are errors naming `y` and the position", {
  expect_input_error(isotonic(c(1, NA, 3)), "`y`.*finite.*element 2 is NA")
  expect_input_error(isotonic(c(1, 2, NaN)), "`y`.*finite.*element 3 is NaN")
  expect_input_error(isotonic(c(Inf, 2, 3)), "`y`.*finite.*element 1 is Inf")
  expect_input_error(isotonic(c(1, -Inf, 3)), "`y`.*finite.*element 2 is -Inf")
  expect_input_error(isotonic(c(1L, NA_integer_)), "`y`.*element 2 is NA")
  expect_input_error(isotonic(c(TRUE, NA)), "`y`.*element 2 is NA")
  # the first bad one is reported
  expect_input_error(isotonic(c(0, 1, Inf, NA, NaN)), "element 3 is Inf")
  expect_input_error(isotonic(c(rep(0, 1e5), NA)), "element 100001 is NA")
  # a long row without weights is checked piece by piece by the threads that
  # fit it: a bad value in any piece (first, middle, last, a piece's first
  # or last element) is still found and named, on 1 or 2 threads, both ways
  n <- 3 * 2^15 + 7 # three pieces
  for (at in c(1, 32769, 65540, n - 1, n)) for (bad in c(NA, NaN, Inf, -Inf)) {
    y <- seq_len(n) / n
    y[at] <- bad
    for (k in 1:2) for (dec in c(FALSE, TRUE)) {
      with_threads(k, expect_input_error(isotonic(y, decreasing = dec, device = "cpu"),
                                          sprintf("element %d is %s", at, format(bad))))
    }
  }
  # and its fits are those of the path that scans first (groups = takes it),
  # also where a piece holds values outside the window of the fast pass
  set.seed(3)
  y <- cumsum(rnorm(n))
  for (yy in list(y, replace(y, c(5, 40000), c(1e300, -1e-300)), -abs(y) * 2^-600)) {
    for (k in 1:2) for (dec in c(FALSE, TRUE)) {
      with_threads(k, expect_identical(
        isotonic(yy, decreasing = dec, device = "cpu"),
        isotonic(yy, decreasing = dec, groups = rep(1L, n), device = "cpu")))
    }
  }
  # matrices: the element as [row, column]
  m <- matrix(1, 3, 4); m[2, 3] <- NaN
  expect_input_error(isotonic(m), "`y`.*element \\[2, 3\\] is NaN")
  expect_input_error(isotonic(c(1, NA), groups = c(1, 2)), "`y`.*element 2 is NA")
  expect_input_error(isotonic_vjp(c(1, NA), grad = c(1, 1)), "`y`.*element 2 is NA")
  # a missing group label is named as what it is
  expect_input_error(isotonic(1:4, groups = c(1, NaN, 2, 2)),
                     "`groups` must not be missing: element 2 is NaN\\.")
  expect_input_error(isotonic(1:4, groups = c(1, 1, NA, 2)),
                     "`groups` must not be missing: element 3 is NA\\.")
})

test_that("non-finite values in x and y of isoreg() are errors", {
  # R 4.2's stats::isoreg(c(1, -Inf, 3)) crashes the session; this is an error
  expect_input_error(isoreg(c(1, -Inf, 3)), "`x`.*finite.*element 2 is -Inf")
  expect_input_error(isoreg(c(1, NA, 3)), "`x`.*element 2 is NA")
  expect_input_error(isoreg(c(1, 2, 3), c(1, 2, NaN)), "`y`.*element 3 is NaN")
  expect_input_error(isoreg(c(1, Inf, 3), c(1, 2, 3)), "`x`.*element 2 is Inf")
  expect_input_error(isoreg(c(NA, 2, 3), c(1, 2, 3)), "`x`.*element 1 is NA")
  expect_input_error(isoreg(1:3, c(1, 2, -Inf)), "`y`.*element 3 is -Inf")
})

test_that("non-finite or negative weights are errors naming `weights`", {
  for (f in list(function(w) isotonic(c(1, 2, 3), w),
                 function(w) isoreg(1:3, c(1, 2, 3), weights = w),
                 function(w) isotonic_vjp(c(1, 2, 3), c(1, 1, 1), weights = w))) {
    expect_input_error(f(c(1, NA, 1)), "`weights`.*finite.*element 2 is NA")
    expect_input_error(f(c(1, 1, NaN)), "`weights`.*finite.*element 3 is NaN")
    expect_input_error(f(c(Inf, 1, 1)), "`weights`.*finite.*element 1 is Inf")
    expect_input_error(f(c(1, -Inf, 1)), "`weights`.*finite.*element 2 is -Inf")
    expect_input_error(f(c(1, 1, -0.5)), "`weights`.*non-negative.*element 3 is -0.5")
    expect_input_error(f(c(-1, 1, -2)), "`weights`.*non-negative.*element 1 is -1")
  }
  m <- matrix(1, 2, 3); wm <- matrix(1, 2, 3); wm[1, 3] <- -1
  expect_input_error(isotonic(m, wm), "`weights`.*non-negative.*element \\[1, 3\\]")
  expect_input_error(isotonic(m, c(1, -1)), "`weights`.*non-negative.*element 2")
})

test_that("the quick path's vector scan finds a bad or extreme value at every lane position", {
  # isotonic() on a plain vector scans y and weights two or four values at a
  # time (scan.c) and, where all lie in the fast passes' window, fits
  # without rescaling; a value the scan missed would be fitted, not
  # reported, and one outside the window fitted unscaled would overflow.
  # groups = 1 takes the R path, whose pass scans for itself.
  for (n in 1:11) for (j in seq_len(n)) {
    y <- seq_len(n) / 2; w <- rep(1.5, n)
    for (bad in list(NA, NaN, Inf, -Inf)) {
      yb <- y; yb[j] <- bad
      expect_input_error(isotonic(yb), sprintf("`y`.*element %d is", j))
      wb <- w; wb[j] <- bad
      expect_input_error(isotonic(y, wb), sprintf("`weights`.*element %d is", j))
    }
    wb <- w; wb[j] <- -2^-300
    expect_input_error(isotonic(y, wb), sprintf("`weights`.*non-negative.*element %d", j))
    # values and weights outside [2^-200, 2^200]: the same fit as the R path
    for (big in c(1e300, 2^201, 2^-201, -1e300)) {
      yb <- rev(y); yb[j] <- big
      wb <- w; wb[j] <- abs(big)
      quick <- isotonic(yb, wb)
      expect_true(all(is.finite(quick)))
      expect_identical(quick, isotonic(yb, wb, groups = rep(1L, n)))
      expect_identical(isotonic(yb), isotonic(yb, groups = rep(1L, n)))
    }
    # weights that are all zero but one tiny positive one
    wb <- rep(0, n); wb[j] <- 2^-300
    expect_identical(isotonic(y, wb), isotonic(y, wb, groups = rep(1L, n)))
  }
})

test_that("all-zero weights in a problem are errors", {
  expect_input_error(isotonic(c(1, 2), weights = c(0, 0)), "`weights`.*all.*zero")
  expect_input_error(isotonic(1, weights = 0), "`weights`.*all.*zero")
  expect_input_error(isoreg(1:2, c(1, 2), weights = c(0, 0)), "`weights`.*all.*zero")
  expect_input_error(isotonic_vjp(c(1, 2), c(1, 1), weights = c(0, 0)), "`weights`.*all.*zero")
  m <- matrix(1:6, 3)
  expect_input_error(isotonic(m, weights = matrix(c(1, 1, 1, 0, 0, 0), 3)),
                     "`weights`.*all.*zero.*column 2")
  expect_input_error(isotonic(1:5, weights = c(1, 0, 1, 0, 0), groups = c("a", "b", "a", "b", "c")),
                     "`weights`.*all.*zero.*group \"b\"")
  # zero weights elsewhere are fine
  expect_identical(isotonic(c(2, 1), weights = c(0, 1)), c(1, 1))
})

test_that("lengths that differ are errors naming both arguments", {
  expect_input_error(isotonic(1:3, weights = c(1, 1)),
                     "`weights`.*same length.*`y` has length 3.*`weights` has length 2")
  expect_input_error(isotonic(matrix(1:6, 3), weights = c(1, 1)),
                     "`weights`.*same length.*one per row")
  expect_input_error(isoreg(1:3, c(1, 2)),
                     "`x` and `y`.*same length.*`x` has length 3.*`y` has length 2")
  expect_input_error(isoreg(1:3, c(1, 2, 3), weights = 1:4), "`weights`.*length 4")
  expect_input_error(isotonic_vjp(1:3, grad = c(1, 1)),
                     "`grad`.*length.*`y` has length 3.*`grad` has length 2")
  expect_input_error(isotonic(1:3, groups = c(1, 1)),
                     "`groups`.*`y` has length 3.*`groups` has length 2")
})

test_that("non-numeric input is an error naming the argument", {
  expect_input_error(isotonic("a"), "`y`.*numeric.*character")
  expect_input_error(isotonic(list(1, 2)), "`y`.*numeric.*list")
  expect_input_error(isotonic(factor(c("a", "b"))), "`y`.*numeric.*factor")
  expect_input_error(isotonic(data.frame(a = 1:3)), "`y`.*numeric.*data frame")
  expect_input_error(isotonic(c(1i, 2i)), "`y`.*numeric.*complex")
  expect_input_error(isotonic(NULL), "`y`.*numeric.*NULL")
  expect_input_error(isotonic(1:3, weights = c("1", "1", "1")), "`weights`.*numeric.*character")
  expect_input_error(isoreg(c("a", "b")), "`x`.*numeric")
  expect_input_error(isoreg(c("a", "b"), c(1, 2)), "`x`.*numeric")
  expect_input_error(isoreg(c(1, 2), c("a", "b")), "`y`.*numeric")
  expect_input_error(isotonic_vjp(1:3, grad = c("a", "b", "c")), "`grad`.*numeric")
  expect_input_error(isotonic(1:3, decreasing = NA), "`decreasing`.*TRUE, FALSE")
  expect_input_error(isotonic(1:3, decreasing = "yes"), "`decreasing`")
  expect_input_error(isotonic(1:3, decreasing = c(TRUE, FALSE)), "`decreasing`")
  expect_input_error(isotonic(1:3, device = "tpu"), "`device`.*\"tpu\"")
  expect_input_error(isotonic(1:3, device = 1), "`device`")
  expect_input_error(isoreg(1:3, device = "nope"), "`device`")
  fit <- isoreg(1:3, c(1, 3, 2))
  expect_input_error(predict(fit, "a"), "`newdata`.*numeric")
})

test_that("a bad thread option is a classed error of the user's call", {
  expect_input_error(with_opts(list(gpuiso.threads = 0L), isotonic(1:3)), "gpuiso.threads")
  expect_input_error(with_opts(list(gpuiso.threads = "two"), isotonic(1:3)), "gpuiso.threads")
  expect_input_error(with_opts(list(gpuiso.threads = 2.5), isotonic(1:3)),
                     "must be a positive whole number, not 2.5")
  expect_input_error(with_opts(list(gpuiso.threads = 1:2), isotonic(1:3)),
                     "must be a positive whole number, not an integer vector of length 2")
  long <- as.double(rep(3:1, 30000))
  for (bad in list(0, -1, 1.5, "abc", NA, c(1, 2), TRUE)) {
    calls <- list(quote(isotonic(long)), quote(isotonic(c(3, 1, 2), groups = c(1, 1, 2))),
                  quote(isotonic(matrix(c(3, 1, 2, 4), 2))), quote(isoreg(c(3, 1, 2))))
    for (cl in calls) {
      err <- expect_error(with_opts(list(gpuiso.threads = bad), eval(cl)),
                          "`options\\(gpuiso.threads\\)` must be a positive whole number",
                          class = "gpuiso_error_input")
      expect_identical(conditionCall(err)[[1L]], cl[[1L]])
    }
    # one short vector runs on one thread and does not read it (documented)
    expect_identical(with_opts(list(gpuiso.threads = bad), isotonic(c(3, 1, 2))), c(2, 2, 2))
    expect_identical(with_opts(list(gpuiso.threads = bad), isotonic(c(3, 1, 2), c(1, 1, 2))),
                     c(2, 2, 2))
  }
  # unset, the engine takes the default of the package's loading
  expect_identical(with_opts(list(gpuiso.threads = NULL), gpuiso:::resolve_threads()),
                   gpuiso:::default_threads())
  expect_identical(with_opts(list(gpuiso.threads = NULL), isotonic(long, device = "cpu")),
                   isotonic(long, device = "cpu"))
})

test_that("bins and breaks are whole numbers; an empty PIT sample is an error", {
  p <- c(0.1, 0.2, 0.8, 0.9)
  y <- c(0, 1, 1, 1)
  expect_error(calibration_error(p, y, bins = Inf), "`bins` must be a whole number.*Inf",
               class = "gpuiso_error_input")
  expect_error(calibration_error(p, y, bins = 2.5), "`bins`", class = "gpuiso_error_input")
  expect_error(pit_hist(numeric(0)), "`pit` must hold at least one value",
               class = "gpuiso_error_input")
  expect_error(pit_hist(c(NA_real_, NA_real_)), "`pit` must hold", class = "gpuiso_error_input")
  err <- expect_error(pit_hist(c(0.2, NA, 1.5, -1)), "`pit` must lie in \\[0, 1\\]: element 3 is 1.5",
                      class = "gpuiso_error_input")
  expect_identical(err$position, 3)
  # hist()'s freq, probability and plot are the function's own choice
  for (a in c("freq", "probability", "plot")) {
    expect_error(do.call(pit_hist, stats::setNames(list(c(0.2, 0.5), TRUE), c("pit", a))),
                 sprintf("`%s` is not an argument of `pit_hist\\(\\)`", a),
                 class = "gpuiso_error_input")
  }
  expect_error(pit_hist(p, breaks = -1), "`breaks` must be a whole number",
               class = "gpuiso_error_input")
  expect_error(pit_hist(p, breaks = Inf), "`breaks`", class = "gpuiso_error_input")
  # at most 1e5 bins: more would only exhaust memory (1e9 took 7.5 GB)
  expect_error(pit_hist(p, breaks = .Machine$double.xmax), "`breaks`.*from 1 to 100000",
               class = "gpuiso_error_input")
  expect_error(pit_hist(p, breaks = 1e9), "`breaks`.*from 1 to 100000",
               class = "gpuiso_error_input")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_length(pit_hist(p, breaks = 1e5)$counts, 1e5)
})

test_that("weights of another shape than a matrix y are an error naming `weights`", {
  m <- matrix(c(3, 1, 2, 5, 4, 6), 3)
  expect_input_error(isotonic(m, weights = matrix(1, 2, 3)),
                     "`weights` must have the dimensions of `y` \\(3 x 2\\).*2 x 3")
  expect_input_error(isotonic(m, weights = matrix(1, 6, 1)), "`weights` must have the dimensions")
  expect_input_error(isotonic(m, weights = matrix(c(1, NA, 1, 1, 1, 1), 2, 3), na.rm = TRUE),
                     "`weights` must have the dimensions")
  expect_input_error(isotonic_vjp(m, grad = m, weights = matrix(1, 2, 3)),
                     "`weights` must have the dimensions")
  # the shapes that are fine: the same dimensions, or one weight per row
  expect_identical(isotonic(m, weights = matrix(1, 3, 2)), isotonic(m))
  expect_identical(isotonic(m, weights = c(1, 1, 1)), isotonic(m))
})

test_that("print() methods take digits from 1 to 22, anything else is an error naming it", {
  fit <- isoreg(c(1, 2, 2, 3, 5), c(1, 3, 2, 2, 6))
  cal <- iso_calibrate(c(0.1, 0.4, 0.35, 0.8, 0.9, 0.2), c(0, 1, 0, 1, 1, 0))
  r <- reliability_diagram(c(0.1, 0.4, 0.35, 0.8, 0.9, 0.2), c(0, 1, 0, 1, 1, 0))
  fi <- idr(c(1, 3, 2, 5, 4, 6), c(1, 2, 2, 3, 4, 5))
  objects <- list(fit, summary(fit), cal, summary(cal), r, summary(fi))
  bad <- list(NA, NaN, Inf, -Inf, .Machine$double.xmax, -.Machine$double.xmax, 0, -1,
              0.5, 23, 1e9, numeric(0), c(3, 4), list(1), 1i, "3", TRUE, factor(3))
  for (o in objects) {
    for (d in bad) {
      expect_error(print(o, digits = d), "`digits` must be a whole number from 1 to 22",
                   class = "gpuiso_error_input")
    }
    for (d in list(1, 3L, 22, NULL)) expect_output(print(o, digits = d))
  }
  expect_output(print(fit, digits = 2), "fitted values from 1 to 6")
})

test_that("the default threads are half the processors, 2 under R CMD check, or GPUISO_THREADS", {
  dt <- gpuiso:::default_threads
  expect_identical(dt(c("", ""), procs = 16L), 8L)
  expect_identical(dt(c("", ""), procs = 3L), 1L)
  expect_identical(dt(c("", ""), procs = 1L), 1L)
  expect_identical(dt(c("", "TRUE"), procs = 16L), 2L)
  expect_identical(dt(c("", "true"), procs = 16L), 2L)
  expect_identical(dt(c("", "false"), procs = 16L), 8L)
  expect_identical(dt(c("12", ""), procs = 16L), 12L)
  expect_identical(dt(c("12", "TRUE"), procs = 16L), 2L)
  expect_identical(dt(c("1", "TRUE"), procs = 16L), 1L)
  expect_identical(dt(c(" 12 ", ""), procs = 16L), 12L)
  for (bad in c("0", "-2", "2.5", "two", "NA", "Inf", "0x10", "1e3", "4abc")) {
    expect_warning(t <- dt(c(bad, ""), procs = 16L), "GPUISO_THREADS must be a positive whole number")
    expect_identical(t, 8L)
  }
  # what the package set when it loaded, under this test run
  expect_true(is.integer(getOption("gpuiso.threads")))
})

# plot() and lines() of an isoreg() fit (R/isoreg-plot.R): stats'
# arguments with stats' meaning, empty fits, plot.type, fits at the ends of
# the doubles.

test_that("plot() and lines() draw without error, also with stats' plot method", {
  set.seed(46)
  x <- runif(40); y <- x + rnorm(40, sd = 0.3)
  f <- isoreg(x, y)
  fd <- isoreg(x, -y, weights = runif(40), decreasing = TRUE)
  pdf(NULL)
  on.exit(dev.off(), add = TRUE)
  expect_invisible(plot(f))
  expect_no_error(plot(f, plot.type = "row"))
  expect_no_error(plot(f, plot.type = "col", main = "m", xlab = "a", ylab = "b"))
  expect_no_error(plot(fd, plot.type = "row"))
  expect_no_error(lines(f))
  expect_no_error(lines(fd, do.points = TRUE, col = "blue"))
  expect_no_error(plot(isoreg(5)))
  expect_no_error(stats:::plot.isoreg(isoreg(x, y), plot.type = "row.wise"))
  expect_no_error(stats:::lines.isoreg(isoreg(x, y)))
})

test_that("an empty fit plots an empty frame", {
  pdf(NULL)
  on.exit(dev.off())
  f <- isoreg(numeric(0))
  expect_invisible(plot(f))
  expect_identical(plot(f), f)
})

test_that("a bad plot.type is a classed error naming it; abbreviations still work", {
  f <- isoreg(c(1, 2, 2, 3, 5), c(1, 3, 2, 2, 6))
  pdf(NULL)
  on.exit(dev.off())
  for (p in list("bogus", NA, NA_character_, "", 1, c("col.wise", "row.wise", "single"),
                 "SINGLE", TRUE, list("single"), NULL)) {
    expect_error(plot(f, plot.type = p), "`plot.type` must be one of",
                 class = "gpuiso_error_input")
  }
  expect_no_error(plot(f, plot.type = "si"))
  expect_no_error(plot(f, plot.type = "col.wise"))
  for (g in list(NA, "yes", c(TRUE, FALSE), NULL)) {
    expect_input_error(plot(f, grid = g), "`grid` must be TRUE or FALSE")
  }
  expect_input_error(plot(f, par.fit = "x"), "`par.fit` must be a list")
  expect_no_error(plot(f, par.fit = list(lty = 3), grid = TRUE))
})

test_that("fits at the ends of the doubles plot both panels, the sums scaled", {
  big <- .Machine$double.xmax
  fx <- isoreg(1:5, c(big, -big, big, 5e-324, -1e300),
               weights = c(1e-300, 1, 1e300, 5e-324, 1))
  fu <- isoreg(1:4, c(big, big, -big, big))
  fw <- isoreg(c(big, -big, 5e-324, -5e-324, 0), c(3, 1, 2, 5, 4))
  pdf(NULL)
  on.exit(dev.off())
  for (f in list(fx, fu, fw)) {
    for (pt in c("single", "row.wise", "col.wise")) expect_no_error(plot(f, plot.type = pt))
  }
  # the diagram of the scaled sums: finite, and the axis says the scale
  o <- seq_along(fx$y)
  cs <- gpuiso:::cumulative_sums(fx, o)
  expect_true(all(is.finite(c(cs$cy, cs$cf))))
  expect_gt(cs$scale, 0)
  expect_equal(cs$cf[length(cs$cf)], cs$cy[length(cs$cy)])
  # sums within the doubles are not scaled
  f <- isoreg(c(1, 2, 2, 3, 5), c(1, 3, 2, 2, 6))
  expect_identical(gpuiso:::cumulative_sums(f, f$ord)$scale, 0)
  expect_identical(gpuiso:::cumulative_sums(f, f$ord)$cy, f$yc)
  # the origin of the diagram stays within the doubles
  expect_identical(gpuiso:::point_before(c(-big, big)), -big)
  expect_identical(gpuiso:::point_before(c(1, 2, 4)), -0.5)
})

test_that("plot() takes stats' arguments with stats' meaning", {
  set.seed(304)
  x <- runif(30); y <- x + rnorm(30, sd = 0.3)
  f <- isoreg(x, y)
  fw <- isoreg(x, y, weights = runif(30), decreasing = TRUE)
  pdf(NULL)
  on.exit(dev.off(), add = TRUE)
  for (type in c("single", "row.wise", "col.wise", "row", "col")) {
    expect_silent(plot(f, plot.type = type))
    expect_silent(plot(fw, plot.type = type))
  }
  expect_silent(plot(f, plot.type = "row.wise", main = "m", main2 = "m2",
                     xlab = "a", ylab = "b", par.fit = list(col = "blue", pch = 3),
                     mar = c(4, 4, 1, 1), mgp = c(2, 1, 0), grid = TRUE))
  expect_silent(plot(f, main2 = NULL, main = NULL, plot.type = "col.wise"))
  expect_silent(plot(f, col = "grey", cex = 0.5, xlim = c(0, 1)))
  expect_silent(lines(f, col = "green", lwd = 2, do.points = TRUE, cex = 1, pch = 2))
  # par() is restored
  op <- par("mfrow", "mar")
  plot(f, plot.type = "row.wise")
  expect_identical(par("mfrow", "mar"), op)
  # what is not a graphical parameter is an error naming it
  expect_error(plot(f, par.fitt = list()), "`par.fitt`.*Did you mean `par.fit`",
               class = "gpuiso_error_input")
  expect_error(plot(f, bogus = 1), "`bogus`", class = "gpuiso_error_input")
  expect_error(lines(f, bogus = 1), "`bogus`", class = "gpuiso_error_input")
  expect_error(plot(f, plot.type = "diagonal"), "`plot.type` must be one of", class = "gpuiso_error_input")
  # stats' own methods read the fit
  expect_silent(stats:::plot.isoreg(f, plot.type = "row.wise"))
  expect_silent(stats:::lines.isoreg(f))
  expect_output(stats:::print.isoreg(f), "Isotonic regression from")
})

# reliability_diagram() of several forecasts, and the ggplot2 methods.

test_that("a set of forecasts equals separate calls, in every form", {
  set.seed(8)
  p <- runif(600)
  y <- rbinom(600, 1, p^1.4)
  fc <- data.frame(raw = p, squashed = 0.2 + 0.6 * p, tied = round(p, 1))
  set.seed(1)
  r <- reliability_diagram(fc, y, resamples = 30, device = "cpu")
  expect_s3_class(r, "gpuiso_reliability_set")
  expect_named(r, names(fc))
  set.seed(1)
  sep <- lapply(fc, function(f) reliability_diagram(f, y, resamples = 30, device = "cpu"))
  for (k in names(fc)) {
    a <- r[[k]]
    b <- sep[[k]]
    b$variables <- c(forecast = k, outcome = "y")
    expect_identical(unclass(a), unclass(b), info = k)
  }
  # a matrix and a list give the same set
  set.seed(1)
  expect_identical(reliability_diagram(as.matrix(fc), y, resamples = 30), r)
  set.seed(1)
  expect_identical(reliability_diagram(as.list(fc), y, resamples = 30), r)
  # names made where there are none, unique
  m <- reliability_diagram(unname(as.matrix(fc)), y, band = "none")
  expect_named(m, c("forecast 1", "forecast 2", "forecast 3"))
  expect_named(reliability_diagram(list(a = p, a = p), y, band = "none"), c("a", "a 1"))
  # a one-column matrix is one forecast; a one-column data frame a set of one
  expect_s3_class(reliability_diagram(matrix(p), y, band = "none"), "gpuiso_reliability")
  expect_s3_class(reliability_diagram(fc["raw"], y, band = "none"), "gpuiso_reliability_set")
  expect_s3_class(r[2:3], "gpuiso_reliability_set")
  expect_named(r[2:3], c("squashed", "tied"))
})

test_that("summary(), print() and plot() of a set", {
  set.seed(5)
  p <- runif(400)
  y <- rbinom(400, 1, p)
  r <- reliability_diagram(data.frame(a = p, b = sqrt(p)), y, resamples = 20)
  s <- summary(r)
  expect_s3_class(s, "data.frame")
  expect_identical(s$forecast, c("a", "b"))
  expect_identical(s, rbind(summary(r[["a"]]), summary(r[["b"]])))
  expect_true(s$mcb[2] > s$mcb[1])
  expect_output(print(r), "CORP reliability diagrams of 2 forecasts for y: 400 forecasts each")
  expect_output(print(r), "90% consistency bands from 20 resamples")
  expect_error(print(r, digitz = 2), "Did you mean `digits`", class = "gpuiso_error_input")
  expect_error(summary(r, 1), class = "gpuiso_error_input")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  old <- graphics::par("mfrow")
  expect_identical(plot(r), r)
  expect_identical(graphics::par("mfrow"), old)
  expect_identical(plot(r, main = "m", lwd = 2, mfrow = c(2, 1)), r)
  expect_error(plot(r, mian = "m"), "Did you mean `main`", class = "gpuiso_error_input")
})

test_that("`[` keeps diagrams by name, position or logical, and nothing else", {
  set.seed(1)
  p <- runif(50)
  y <- rbinom(50, 1, p)
  rs <- reliability_diagram(data.frame(a = p, b = p^2), y, band = "none")
  expect_identical(names(rs["b"]), "b")
  expect_identical(names(rs[c(2, 1)]), c("b", "a"))
  expect_identical(names(rs[-1]), "b")
  expect_identical(names(rs[c(TRUE, FALSE)]), "a")
  expect_identical(names(rs[factor("a")]), "a")
  expect_s3_class(rs["a"], "gpuiso_reliability_set")
  for (i in list("zz", 5, 0, NA, c(TRUE, FALSE, TRUE), c(FALSE, FALSE), -(1:2), list(1),
                 c("a", "zz"))) {
    err <- expect_error(rs[i], "`i` must select at least one of the 2 diagrams",
                        class = "gpuiso_error_input")
    expect_identical(err$arg, "i")
  }
})

test_that("bad sets are errors that name the forecast", {
  y <- c(0, 1, 1)
  expect_error(reliability_diagram(data.frame(a = c(0.1, 0.5, 0.9), b = c(0.2, 1.5, 0.3)), y),
               "`forecasts\\[\\[\"b\"\\]\\]` must lie in \\[0, 1\\]: element 2 is 1.5",
               class = "gpuiso_error_input")
  expect_error(reliability_diagram(list(a = c(0.1, 0.5)), y), "same length|length",
               class = "gpuiso_error_input")
  expect_error(reliability_diagram(list(a = c("x", "y", "z")), y), "must be a numeric",
               class = "gpuiso_error_input")
  expect_error(reliability_diagram(data.frame(), y), "at least one forecast",
               class = "gpuiso_error_input")
  expect_error(reliability_diagram(list(a = numeric(0)), numeric(0)), "must not be empty",
               class = "gpuiso_error_input")
})

test_that("autoplot() draws the diagram with ggplot2", {
  skip_if_not_installed("ggplot2")
  set.seed(6)
  p <- runif(300)
  y <- rbinom(300, 1, p)
  r <- reliability_diagram(p, y, resamples = 20)
  g <- ggplot2::autoplot(r)
  expect_s3_class(g, "ggplot")
  built <- ggplot2::ggplot_build(g)
  # the histogram, the band, the diagonal and the curve
  expect_length(built$data, 4L)
  expect_equal(nrow(built$data[[4L]]), nrow(r$curve))
  expect_match(levels(built$layout$layout$panel)[1L], "MCB")
  gs <- ggplot2::autoplot(reliability_diagram(data.frame(a = p, b = p^2), y, band = "none"))
  built <- ggplot2::ggplot_build(gs)
  expect_length(built$data, 3L)
  expect_identical(nrow(built$layout$layout), 2L)
  expect_match(as.character(built$layout$layout$panel), "^(a|b): MCB")
  expect_error(ggplot2::autoplot(r, bins = 3), "`bins` is not an argument",
               class = "gpuiso_error_input")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(print(g))
})

# Arguments a method does not use (R/dots.R): every method with `...`
# names them.

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
       gpuiso_calibration_multiclass = iso_calibrate(cbind(a = x, b = 1 - x),
                                                     factor(rbinom(50, 1, x), labels = c("a", "b"))),
       gpuiso_reliability = reliability_diagram(x, rbinom(50, 1, x)),
       gpuiso_reliability_set = reliability_diagram(data.frame(a = x, b = x^2),
                                                    rbinom(50, 1, x), resamples = 10),
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
    # generics of suggested packages (ggplot2's autoplot()) when installed
    f <- tryCatch(get(generic, mode = "function"), error = function(e) NULL)
    if (is.null(f) && generic == "autoplot" && requireNamespace("ggplot2", quietly = TRUE)) {
      f <- ggplot2::autoplot
    }
    if (is.null(f)) next
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

#' CORP reliability diagram and the decomposition of the Brier score
#'
#' The CORP approach of Dimitriadis, Gneiting and Jordan (2021): the
#' forecasts are recalibrated by isotonic regression of the outcomes on them
#' (pool adjacent violators, tied forecasts pooled), which gives a
#' reliability curve that is consistent, optimally binned and reproducible.
#' The mean Brier score \eqn{S} of the forecasts then decomposes as
#' \deqn{S = \mathrm{MCB} - \mathrm{DSC} + \mathrm{UNC},}{S = MCB - DSC + UNC,}
#' where, with \eqn{S_C} the score of the recalibrated forecasts and
#' \eqn{S_R} that of the constant forecast \eqn{\bar y}, miscalibration is
#' \eqn{\mathrm{MCB} = S - S_C}, discrimination \eqn{\mathrm{DSC} = S_R - S_C}
#' and uncertainty \eqn{\mathrm{UNC} = S_R}.
#'
#' @param forecasts Probability forecasts in \[0, 1\].
#' @param outcomes The outcomes, one per forecast: logical, 0/1, or
#'   probabilities in \[0, 1\].
#' @inheritParams isotonic
#' @return An object of class `"gpuiso_reliability"`: a list with
#'   `calibrated` (the recalibrated forecasts, in the order of the input),
#'   `curve` (a data frame of the distinct `forecast`s, their recalibrated
#'   values `calibrated` and the `count` of forecasts at each), `score`,
#'   `mcb`, `dsc` and `unc`, `n` (the number of forecasts) and `variables`
#'   (the names of the forecast and outcome variables, where they were
#'   passed as variables, else `NA`). It has [print()] and
#'   [plot()][plot.gpuiso_reliability] methods.
#' @references
#' Dimitriadis, T., Gneiting, T. and Jordan, A. I. (2021). Stable reliability
#' diagrams for probabilistic classifiers. *Proceedings of the National
#' Academy of Sciences*, 118(8), e2016191118. \doi{10.1073/pnas.2016191118}
#' @seealso [calibration_error()] for the binned expected calibration error;
#'   [iso_calibrate()] to recalibrate new forecasts.
#' @export
#' @examples
#' set.seed(2)
#' p <- runif(5000)
#' y <- rbinom(5000, 1, p^1.5)
#' r <- reliability_diagram(p, y)
#' r
#' plot(r)
reliability_diagram <- function(forecasts, outcomes,
                                device = getOption("gpuiso.device", "auto")) {
  call <- sys.call()
  fo <- check_forecasts(forecasts, outcomes, call)
  x <- fo$x
  y <- fo$y
  pooled <- pool_scores(x, y, NULL, NULL, run_of = TRUE)
  device <- resolve_device(device, length(pooled$score), call,
                           min_n = gpu_min_n(default = gpu_sort_min_n_default))
  fit <- engine_fit(pooled$value, pooled$weight, pooled$offsets,
                    decreasing = FALSE, device = device)$fit
  fit <- pmin(pmax(fit, 0), 1)
  cal <- fit[pooled$run_of]
  score <- mean((x - y)^2)
  s_c <- mean((cal - y)^2)
  s_r <- mean((mean(y) - y)^2)
  structure(list(calibrated = cal,
                 curve = data.frame(forecast = pooled$score, calibrated = fit,
                                    count = pooled$weight),
                 score = score, mcb = score - s_c, dsc = s_r - s_c, unc = s_r,
                 n = length(x),
                 variables = c(forecast = variable_name(substitute(forecasts), NA_character_),
                               outcome = variable_name(substitute(outcomes), NA_character_))),
            class = "gpuiso_reliability")
}

#' @rdname plot.gpuiso_reliability
#' @export
print.gpuiso_reliability <- function(x, digits = 4L, ...) {
  check_dots(..., fn = "print()")
  digits <- check_digits(digits, sys.call(), 4L)
  cat("CORP reliability diagram of ", reliability_of(x), count_noun(x$n, "forecast"),
      " (", format(nrow(x$curve), scientific = FALSE), " distinct)\n", sep = "")
  tab <- data.frame(row.names = c("Brier score", "miscalibration (MCB)",
                                  "discrimination (DSC)", "uncertainty (UNC)"),
                    value = c(x$score, x$mcb, x$dsc, x$unc))
  print(tab, digits = digits)
  cat("score = MCB - DSC + UNC\n")
  invisible(x)
}

# "p for y: " where the variables' names are known.
reliability_of <- function(x) {
  v <- x$variables
  if (is.null(v) || anyNA(v)) return("")
  sprintf("%s for %s: ", v[["forecast"]], v[["outcome"]])
}

#' Print and plot a CORP reliability diagram
#'
#' `plot()` draws the CORP reliability curve of [reliability_diagram()] (the
#' recalibrated forecasts against the forecasts) over a histogram of the
#' forecasts, with the diagonal of perfect calibration and the MCB, DSC and
#' UNC components in a legend; `print()` gives the decomposition of the
#' Brier score.
#'
#' @param x A `"gpuiso_reliability"` object.
#' @param xlab,ylab,main Axis labels and title; `NULL` for ones made from
#'   the names of the forecast and outcome variables.
#' @param digits Significant digits to print: a whole number from 1 to 22
#'   (`NULL` for the default).
#' @param ... For `plot()`, graphical parameters and arguments of
#'   [plot.default()] (such as `xlim`); anything else, and any argument to
#'   `print()`, is an error that names it.
#' @return `x`, invisibly.
#' @export
#' @examples
#' set.seed(2)
#' p <- runif(1000)
#' y <- rbinom(1000, 1, p^1.5)
#' r <- reliability_diagram(p, y)
#' print(r, digits = 3)
#' plot(r)
plot.gpuiso_reliability <- function(x, xlab = NULL, ylab = NULL,
                                    main = "CORP reliability diagram", ...) {
  check_graphics_dots(..., fn = "plot()")
  v <- x$variables
  if (is.null(v)) v <- c(forecast = NA_character_, outcome = NA_character_)
  if (is.null(xlab)) {
    xlab <- if (is.na(v[["forecast"]])) "forecast probability"
            else sprintf("forecast probability (%s)", v[["forecast"]])
  }
  if (is.null(ylab)) {
    ylab <- if (is.na(v[["outcome"]])) "conditional event probability"
            else sprintf("conditional event probability (%s)", v[["outcome"]])
  }
  graphics::plot(c(0, 1), c(0, 1), type = "n", xlab = xlab, ylab = ylab,
                 main = main, asp = 1, ...)
  br <- seq(0, 1, by = 0.05)
  h <- graphics::hist(rep(x$curve$forecast, x$curve$count), breaks = br, plot = FALSE)$counts
  graphics::rect(br[-length(br)], 0, br[-1L], 0.2 * h / max(1, h), col = "grey90",
                 border = "grey75")
  graphics::abline(0, 1, lty = 2, col = "grey40")
  graphics::lines(x$curve$forecast, x$curve$calibrated, type = "s", lwd = 2,
                  col = "firebrick3")
  graphics::legend("topleft", bty = "n", cex = 0.85,
                   legend = sprintf(c("MCB %.4f", "DSC %.4f", "UNC %.4f"),
                                    c(x$mcb, x$dsc, x$unc)))
  invisible(x)
}

#' Expected calibration error
#'
#' The binned expected calibration error
#' \eqn{\sum_b (n_b / n) |\bar y_b - \bar p_b|}{sum_b (n_b / n) |mean(y_b) - mean(p_b)|},
#' the mean absolute gap between the event rate and the mean forecast in
#' each bin, weighted by the bin's share of the forecasts.
#'
#' Binning: `"equal_width"` cuts \[0, 1\] into `bins` intervals of equal
#' width, closed on the left (the last one also on the right); empty bins
#' count for nothing. `"equal_mass"` sorts the forecasts and cuts them into
#' `bins` groups of equal size (sizes differ by at most one; tied forecasts
#' may fall into neighbouring bins, in the order of the input). The value
#' depends on the binning, which is why [reliability_diagram()]'s MCB, free
#' of it, is the better measure; the binned one is what much of the
#' literature reports.
#'
#' @inheritParams reliability_diagram
#' @param bins The number of bins, a whole number of at least 1.
#' @param binning `"equal_width"` or `"equal_mass"`.
#' @return The expected calibration error, a number in \[0, 1\].
#' @export
#' @examples
#' p <- c(0.1, 0.2, 0.8, 0.9)
#' y <- c(0, 1, 1, 1)
#' calibration_error(p, y, bins = 2)
calibration_error <- function(forecasts, outcomes, bins = 10,
                              binning = c("equal_width", "equal_mass")) {
  call <- sys.call()
  fo <- check_forecasts(forecasts, outcomes, call)
  x <- fo$x
  y <- fo$y
  if (!is.numeric(bins) || length(bins) != 1L || !is.finite(bins) || bins < 1 ||
      bins != round(bins)) {
    abort_input(sprintf("`bins` must be a whole number of at least 1, not %s.",
                        if (is.numeric(bins) && length(bins) == 1L) describe_value(bins)
                        else describe_type(bins)), call)
  }
  binning <- check_choice(binning, c("equal_width", "equal_mass"), "binning", call)
  n <- length(x)
  bin <- if (binning == "equal_width") {
    pmin(floor(x * bins), bins - 1) + 1
  } else {
    b <- integer(n)
    b[order(x, method = "radix")] <- floor((seq_len(n) - 1) * bins / n) + 1
    b
  }
  gap <- abs(rowsum(y, bin) - rowsum(x, bin))
  sum(gap) / n
}

# Probability forecasts and their outcomes: both in [0, 1], of one length,
# not empty.
check_forecasts <- function(forecasts, outcomes, call) {
  x <- check_unit_interval(forecasts, "forecasts", call)
  y <- check_unit_interval(outcomes, "outcomes", call)
  check_same_length(x, y, "forecasts", "outcomes", call)
  if (!length(x)) abort_input("`forecasts` must not be empty.", call)
  list(x = x, y = y)
}

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
#' @param forecasts Probability forecasts in \[0, 1\]; or several, as a
#'   data frame, a list or a matrix of one column each, all for the same
#'   outcomes (see [summary.gpuiso_reliability_set()]).
#' @param outcomes The outcomes, one per forecast: logical, 0/1,
#'   probabilities in \[0, 1\], or a factor of two levels (see
#'   `event_level`).
#' @param band The resampled band to compute: `"consistency"` (the band
#'   that CORP curves of calibrated forecasts fall in: outcomes drawn from
#'   the forecasts themselves), `"confidence"` (a band for the curve:
#'   outcomes drawn from the CORP curve), or `"none"`.
#' @param level The level of the band, strictly between 0 and 1.
#' @param resamples The number of resamples, a whole number from 1 to 1e6.
#' @param event_level For factor outcomes, which level is the event:
#'   `"second"` (as [glm()] has it) or `"first"` (as yardstick has it).
#' @inheritParams isotonic
#' @details
#' Bands are computed as reliabilitydiag's `"resampling"` method defines
#' them: each resample draws the forecast-outcome pairs with replacement,
#' gives each drawn pair a new outcome (an event with the probability of
#' its forecast for consistency bands, of its CORP value for confidence
#' bands), fits the CORP curve of the resample and reads it at every
#' distinct forecast by linear interpolation between the resample's own
#' forecasts (nothing outside their range); the band at a forecast is the
#' pair of quantiles (R's type 7) of those values at
#' \eqn{(1 \mp \mathrm{level}) / 2}{(1 -+ level) / 2}. The resamples' fits are
#' batches for the engine: on the GPU, where `device` resolves to it (with
#' `"auto"`, from `getOption("gpuiso.band_gpu_min_draws")` draws in all,
#' forecasts times resamples), the resampling is done on the device too
#' and only the band comes back; on the CPU, on
#' `getOption("gpuiso.threads")` threads.
#' The draws come from a counter-based generator seeded by two uniforms of
#' R's generator, so `set.seed()` makes the band reproducible, and it is
#' the same on any number of threads. The GPU draws the same resamples as
#' the CPU for the same seed, so the two bands agree up to the rounding of
#' the fits (in the last digits); the resamples' miscalibrations are sums
#' taken in another order, so `p_value` can differ where one of them ties
#' with the forecasts' own to rounding. With a consistency band,
#' `p_value` is the share of resamples whose miscalibration is at least
#' that of the forecasts (the test of reliabilitydiag's
#' `miscalibration_test()`), so it is a multiple of `1 / resamples`.
#' As there, the resamples draw the forecasts with replacement, and the
#' ties this makes are pooled, which lowers the resampled miscalibration:
#' the test rejects calibrated forecasts somewhat more often than its
#' nominal rate (in 60 simulated data sets of 500 calibrated forecasts, 5
#' had p <= 0.05 with 100 resamples).
#' @return An object of class `"gpuiso_reliability"`: a list with
#'   `calibrated` (the recalibrated forecasts, in the order of the input),
#'   `curve` (a data frame of the distinct `forecast`s, their recalibrated
#'   values `calibrated` and the `count` of forecasts at each), `score`,
#'   `mcb`, `dsc` and `unc`, `n` (the number of forecasts) and `variables`
#'   (the names of the forecast and outcome variables, where they were
#'   passed as variables, else `NA`); with a band, `band` (a data frame of
#'   the distinct `forecast`s and the band's `lower` and `upper` bounds,
#'   `NA` where no resample reaches a forecast), `band_type`, `level`,
#'   `resamples` and `p_value` (`NA` unless the band is a consistency
#'   band). It has [print()], [summary()][summary.gpuiso_reliability] and
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
#' summary(r)
#' plot(r)
#' # a confidence band for the curve instead
#' plot(reliability_diagram(p, y, band = "confidence", resamples = 200))
reliability_diagram <- function(forecasts, outcomes,
                                band = c("consistency", "confidence", "none"),
                                level = 0.9, resamples = 100,
                                device = getOption("gpuiso.device", "auto"),
                                event_level = c("second", "first")) {
  call <- sys.call()
  outcome_name <- variable_name(substitute(outcomes), NA_character_)
  forecast_name <- variable_name(substitute(forecasts), NA_character_)
  # checked before use: event_outcomes() reads it for factors only
  event_level <- check_event_level(event_level, call)
  outcomes <- event_outcomes(outcomes, event_level, call)
  cols <- forecast_columns(forecasts, call)
  several <- !is.null(cols)
  if (!several) cols <- stats::setNames(list(forecasts), forecast_name)
  args <- if (several) sprintf("forecasts[[\"%s\"]]", names(cols)) else "forecasts"
  for (k in seq_along(cols)) cols[[k]] <- check_unit_interval(cols[[k]], args[[k]], call)
  y <- check_unit_interval(outcomes, "outcomes", call)
  for (k in seq_along(cols)) check_same_length(cols[[k]], y, args[[k]], "outcomes", call)
  if (!length(y)) abort_input("`forecasts` must not be empty.", call)
  band <- check_choice(band, c("consistency", "confidence", "none"), "band", call)
  level <- check_level(level, call)
  resamples <- as.integer(check_whole_number(resamples, "resamples", call, 1, 1e6,
                                             "a whole number from 1 to 1e6"))
  fits <- lapply(seq_along(cols), function(k) {
    reliability_fit(cols[[k]], y, band, level, resamples, device, call,
                    c(forecast = names(cols)[[k]], outcome = outcome_name))
  })
  if (!several) return(fits[[1L]])
  names(fits) <- names(cols)
  structure(fits, class = "gpuiso_reliability_set")
}

# The columns of several forecasts (a data frame, a list, or a matrix of
# more than one column), named; NULL for one vector of forecasts.
forecast_columns <- function(forecasts, call) {
  several <- is.data.frame(forecasts) ||
    is.list(forecasts) && !is.object(forecasts) ||
    is.matrix(forecasts) && ncol(forecasts) > 1L
  if (!several) return(NULL)
  cols <- if (is.matrix(forecasts)) {
    lapply(seq_len(ncol(forecasts)), function(k) forecasts[, k])
  } else {
    as.list(forecasts)
  }
  if (!length(cols)) abort_input("`forecasts` must hold at least one forecast.", call)
  nm <- if (is.matrix(forecasts)) colnames(forecasts) else names(forecasts)
  if (is.null(nm)) nm <- rep("", length(cols))
  nm[is.na(nm) | !nzchar(nm)] <- sprintf("forecast %d", which(is.na(nm) | !nzchar(nm)))
  names(cols) <- make.unique(nm, sep = " ")
  cols
}

# The CORP diagram of one forecast: x and y checked, of one length.
reliability_fit <- function(x, y, band, level, resamples, device, call, variables) {
  pooled <- pool_scores(x, y, NULL, NULL, run_of = TRUE)
  fit_device <- resolve_device(device, length(pooled$score), call,
                               min_n = gpu_min_n(default = gpu_sort_min_n_default))
  fit <- engine_fit(pooled$value, pooled$weight, pooled$offsets,
                    decreasing = FALSE, device = fit_device)$fit
  # the fit in [0, 1], the CORP values of the forecasts and the three mean
  # scores, in C
  bp <- .Call(ffi_brier_parts, x, y, fit, pooled$run_of, resolve_threads())
  fit <- bp$fit
  cal <- bp$calibrated
  score <- bp$parts[[1L]]
  s_c <- bp$parts[[2L]]
  s_r <- bp$parts[[3L]]
  mcb <- score - s_c
  b <- if (band == "none") NULL
       else corp_band(pooled, fit, band, level, resamples,
                      band_device(device, length(x), resamples, call))
  structure(list(calibrated = cal,
                 curve = data.frame(forecast = pooled$score, calibrated = fit,
                                    count = pooled$weight),
                 score = score, mcb = mcb, dsc = s_r - s_c, unc = s_r,
                 n = length(x),
                 band = if (!is.null(b)) data.frame(forecast = pooled$score,
                                                    lower = b$lower, upper = b$upper),
                 band_type = band, level = if (band != "none") level,
                 resamples = if (band != "none") resamples,
                 p_value = if (band == "consistency") mean(b$mcb >= mcb) else NA_real_,
                 variables = variables),
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
  if (!is.null(x$band)) {
    cat(sprintf("%s%% %s band from %s", format(100 * x$level), x$band_type,
                count_noun(x$resamples, "resample")))
    if (!is.na(x$p_value)) {
      cat(sprintf("; miscalibration test p = %s", format(x$p_value, digits = digits)))
    }
    cat("\n")
  }
  invisible(x)
}

#' @rdname plot.gpuiso_reliability
#' @param object A `"gpuiso_reliability"` object.
#' @export
summary.gpuiso_reliability <- function(object, ...) {
  check_dots(..., fn = "summary()")
  v <- object$variables[["forecast"]]
  data.frame(forecast = if (is.null(v) || is.na(v)) "forecast" else v,
             n = object$n, score = object$score, mcb = object$mcb,
             dsc = object$dsc, unc = object$unc,
             p_value = if (is.null(object$p_value)) NA_real_ else object$p_value)
}

# "p for y: " where the variables' names are known.
reliability_of <- function(x) {
  v <- x$variables
  if (is.null(v) || anyNA(v)) return("")
  sprintf("%s for %s: ", v[["forecast"]], v[["outcome"]])
}

#' Print, summarise and plot a CORP reliability diagram
#'
#' `plot()` draws the CORP reliability curve of [reliability_diagram()] (the
#' recalibrated forecasts against the forecasts) over a histogram of the
#' forecasts, with its resampled band (shaded), the diagonal of perfect
#' calibration and the MCB, DSC and UNC components in a legend; `print()`
#' gives the decomposition of the Brier score and the band. `summary()`
#' returns a data frame of one row: the forecast's name (`forecast`), the
#' number of forecasts `n`, the mean Brier `score`, `mcb`, `dsc`, `unc`
#' and `p_value`, the miscalibration test of the consistency band (`NA`
#' without one).
#'
#' @param x A `"gpuiso_reliability"` object.
#' @param xlab,ylab,main Axis labels and title; `NULL` for ones made from
#'   the names of the forecast and outcome variables.
#' @param xlim,ylim The ranges of the axes (the unit square by default).
#' @param digits Significant digits to print: a whole number from 1 to 22
#'   (`NULL` for the default).
#' @param ... For `plot()`, graphical parameters and arguments of
#'   [plot.default()] (such as `lwd`); anything else, and any argument to
#'   `print()`, is an error that names it.
#' @return `print()` and `plot()`: `x`, invisibly. `summary()`: the data
#'   frame.
#' @export
#' @examples
#' set.seed(2)
#' p <- runif(1000)
#' y <- rbinom(1000, 1, p^1.5)
#' r <- reliability_diagram(p, y)
#' print(r, digits = 3)
#' summary(r)
#' plot(r)
plot.gpuiso_reliability <- function(x, xlab = NULL, ylab = NULL,
                                    main = "CORP reliability diagram", ...,
                                    xlim = c(0, 1), ylim = c(0, 1)) {
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
  # no asp = 1: on a wide device it would stretch the axes beyond [0, 1]
  graphics::plot(c(0, 1), c(0, 1), type = "n", xlab = xlab, ylab = ylab,
                 main = main, xlim = xlim, ylim = ylim, ...)
  br <- seq(0, 1, by = 0.05)
  h <- reliability_histogram(x$curve, br)
  graphics::rect(br[-length(br)], 0, br[-1L], 0.2 * h / max(1, h), col = "grey90",
                 border = "grey75")
  b <- x$band
  if (!is.null(b)) {
    ok <- !is.na(b$lower) & !is.na(b$upper)
    graphics::polygon(c(b$forecast[ok], rev(b$forecast[ok])),
                      c(b$lower[ok], rev(b$upper[ok])),
                      col = grDevices::adjustcolor("steelblue", alpha.f = 0.3),
                      border = NA)
  }
  graphics::abline(0, 1, lty = 2, col = "grey40")
  graphics::lines(x$curve$forecast, x$curve$calibrated, type = "s", lwd = 2,
                  col = "firebrick3")
  lab <- sprintf(c("MCB %.4f", "DSC %.4f", "UNC %.4f"), c(x$mcb, x$dsc, x$unc))
  if (!is.null(b)) {
    lab <- c(lab, sprintf("%s%% %s band", format(100 * x$level), x$band_type))
    if (!is.na(x$p_value)) lab <- c(lab, sprintf("p = %.3f", x$p_value))
  }
  graphics::legend("topleft", bty = "n", cex = 0.85, legend = lab)
  invisible(x)
}

# Counts of the forecasts in the bins of breaks `br`, from the curve's
# distinct forecasts and their counts (no expansion to every forecast).
reliability_histogram <- function(curve, br) {
  bin <- findInterval(curve$forecast, br, rightmost.closed = TRUE, all.inside = TRUE)
  out <- numeric(length(br) - 1L)
  out[sort(unique(bin))] <- rowsum(curve$count, bin)[, 1L]
  out
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
#' @param forecasts Probability forecasts in \[0, 1\].
#' @param outcomes The outcomes, one per forecast: logical, 0/1, or
#'   probabilities in \[0, 1\].
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
                        describe_scalar(bins)), call, arg = "bins")
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

#' Methods for isotonic calibrations
#'
#' `print()` and `summary()` describe a fit of [iso_calibrate()]: its
#' variables, the number of scores and distinct scores, the steps of the
#' curves and their range (`summary()` one row per group). `fitted()` gives
#' the calibrated values of the fit's own scores and `residuals()` the
#' outcomes minus them, in the order of the data (with `NA` for the
#' observations that [na.exclude()] left out); `nobs()` the number of
#' observations fitted (of non-zero weight).
#'
#' A calibration curve is a monotone step function fitted by least squares,
#' not a parametric model: `coef()` and `logLik()` are errors that say what
#' to use instead (the curves in `x$curves`, [predict()] to evaluate them,
#' [reliability_diagram()] for the Brier score and its decomposition).
#'
#' @param x,object A `"gpuiso_calibration"` object (for
#'   `print.summary.gpuiso_calibration()`, its summary).
#' @param digits Significant digits to print: a whole number from 1 to 22
#'   (`NULL` for the default).
#' @param ... No further arguments: an argument that the method does not
#'   know is an error that names it.
#' @return `print()`: `x`, invisibly. `summary()`: an object of class
#'   `"summary.gpuiso_calibration"`, a list whose `table` has one row per
#'   group with the number of `distinct` scores, of `steps`, the score range
#'   (`min_score`, `max_score`), the weighted `mean_outcome` and the range of
#'   the calibrated values (`min_value`, `max_value`). `fitted()`,
#'   `residuals()`: numeric vectors. `nobs()`: a number.
#' @seealso [iso_calibrate()], [predict.gpuiso_calibration()],
#'   [plot.gpuiso_calibration()].
#' @name gpuiso_calibration-methods
#' @importFrom stats coef logLik na.omit
#' @examples
#' d <- data.frame(score = c(0.1, 0.2, 0.3, 0.4, NA, 0.6),
#'                 clicked = c(0, 1, 0, 1, 1, 1))
#' cal <- iso_calibrate(clicked ~ score, data = d, na.action = na.exclude)
#' cal
#' summary(cal)
#' fitted(cal)
#' residuals(cal)
#' nobs(cal)
NULL

#' @rdname gpuiso_calibration-methods
#' @export
print.gpuiso_calibration <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  check_dots(..., fn = "print()")
  digits <- check_digits(digits, sys.call(), max(3L, getOption("digits") - 3L))
  k <- length(x$curves)
  pts <- sum(vapply(x$curves, nrow, 1L))
  steps <- sum(vapply(x$curves, function(cv) count_runs(cv$value), 1))
  lo <- min(vapply(x$curves, function(cv) min(cv$value), 0))
  hi <- max(vapply(x$curves, function(cv) max(cv$value), 0))
  cat(calibration_title(x), "\n", sep = "")
  cat("  ", count_noun(x$n, "score"), " (", format(pts, scientific = FALSE), " distinct)",
      if (!is.null(x$groups)) paste(" in", count_noun(k, "group")),
      ", fitted on the ", toupper(x$device), "\n", sep = "")
  cat("  ", count_noun(steps, "step"), if (k > 1L) " in all",
      "; calibrated values from ", format(lo, digits = digits), " to ",
      format(hi, digits = digits), bounds_note(x, digits), "\n", sep = "")
  if (!is.null(x$na.action)) cat("  (", stats::naprint(x$na.action), ")\n", sep = "")
  invisible(x)
}

# "Isotonic calibration of clicked on score, one curve per country"
calibration_title <- function(x) {
  v <- x$variables
  paste0("Isotonic calibration of ", v[["outcome"]], " on ", v[["score"]],
         if (!is.null(x$groups)) {
           paste(", one curve per", if (is.na(v[["group"]])) "group" else v[["group"]])
         })
}

# " (bounded to [0.01, 0.99])" where y_min or y_max bind.
bounds_note <- function(x, digits) {
  if (x$y_min <= 0 && x$y_max >= 1) return("")
  sprintf(" (bounded to [%s, %s])", format(x$y_min, digits = digits),
          format(x$y_max, digits = digits))
}

count_runs <- function(v) if (length(v)) 1 + sum(diff(v) != 0) else 0

#' @rdname gpuiso_calibration-methods
#' @export
summary.gpuiso_calibration <- function(object, ...) {
  check_dots(..., fn = "summary()")
  mean_outcome <- calibration_mean_outcome(object)
  rows <- lapply(seq_along(object$curves), function(b) {
    cv <- object$curves[[b]]
    data.frame(distinct = nrow(cv), steps = count_runs(cv$value),
               min_score = min(cv$score), max_score = max(cv$score),
               mean_outcome = mean_outcome[b],
               min_value = min(cv$value), max_value = max(cv$value))
  })
  tab <- do.call(rbind, rows)
  rownames(tab) <- if (is.null(object$groups)) "all" else object$groups
  structure(list(table = tab, n = object$n, device = object$device,
                 variables = object$variables, groups = object$groups,
                 y_min = object$y_min, y_max = object$y_max,
                 na.action = object$na.action, call = object$call),
            class = "summary.gpuiso_calibration")
}

# The weighted mean outcome of each group: the weighted mean of the curve's
# values (isotonic regression keeps the mean), unless bounds clipped them.
calibration_mean_outcome <- function(object) {
  if (object$y_min <= 0 && object$y_max >= 1) {
    return(vapply(object$curves, function(cv) weighted_mean_scaled(cv$value, cv$weight), 0))
  }
  d <- object$data
  w <- if (is.null(d$weights)) rep(1, length(d$outcomes)) else d$weights
  code <- if (is.null(d$code)) rep(1L, length(w)) else d$code
  vapply(split(seq_along(w), code), function(i) weighted_mean_scaled(d$outcomes[i], w[i]), 0,
         USE.NAMES = FALSE)
}

# The weighted mean of values v in [0, 1] with weights w (not all zero)
# anywhere in the finite range: the weights scaled by a power of two, the
# largest into [1, 2), so that their sum cannot overflow.
weighted_mean_scaled <- function(v, w) {
  w <- scale_weights(w)
  sum(w * v) / sum(w)
}

# Weights (finite, not all zero) times the power of two that brings the
# largest into [1, 2): exact but for subnormal results; in two steps, as
# 2^1074 itself overflows.
scale_weights <- function(w) {
  k <- -floor(log2(max(w)))
  h <- k %/% 2
  (w * 2^h) * 2^(k - h)
}

#' @rdname gpuiso_calibration-methods
#' @export
print.summary.gpuiso_calibration <- function(x, digits = max(3L, getOption("digits") - 3L),
                                             ...) {
  check_dots(..., fn = "print()")
  digits <- check_digits(digits, sys.call(), max(3L, getOption("digits") - 3L))
  cat(calibration_title(x), "\n", sep = "")
  cat(count_noun(x$n, "score"), ", fitted on the ", toupper(x$device),
      bounds_note(x, digits), "\n", sep = "")
  if (!is.null(x$na.action)) cat("(", stats::naprint(x$na.action), ")\n", sep = "")
  cat("\n")
  print(x$table, digits = digits)
  invisible(x)
}

#' @rdname gpuiso_calibration-methods
#' @export
fitted.gpuiso_calibration <- function(object, ...) {
  check_dots(..., fn = "fitted()")
  stats::naresid(object$na.action, calibrated_in_sample(object))
}

#' @rdname gpuiso_calibration-methods
#' @export
residuals.gpuiso_calibration <- function(object, ...) {
  check_dots(..., fn = "residuals()")
  stats::naresid(object$na.action,
                 object$data$outcomes - calibrated_in_sample(object))
}

#' @rdname gpuiso_calibration-methods
#' @export
coef.gpuiso_calibration <- function(object, ...) not_applicable(
  "`coef()` does not apply to an isotonic calibration: its curves have no coefficients. ",
  "Use `x$curves` for the fitted scores and calibrated values, or `predict()` to evaluate ",
  "the curves.")

#' @rdname gpuiso_calibration-methods
#' @export
nobs.gpuiso_calibration <- function(object, ...) {
  check_dots(..., fn = "nobs()")
  w <- object$data$weights
  if (is.null(w)) object$n else sum(w != 0)
}

#' @rdname gpuiso_calibration-methods
#' @export
logLik.gpuiso_calibration <- function(object, ...) not_applicable(
  "`logLik()` does not apply to an isotonic calibration: its curves are least-squares step ",
  "functions, with no likelihood and no count of parameters. Assess them with ",
  "`reliability_diagram()` (the Brier score and its decomposition) or with a proper score ",
  "of `predict()` on new data.")

#' Plot an isotonic calibration curve
#'
#' Draws the calibration curve of one group over a histogram of the fitted
#' scores (scaled to the lower quarter of the panel), as the step function
#' that [predict()][predict.gpuiso_calibration] evaluates (or its linear
#' interpolation). The axes are labelled with the names of the score and
#' the outcome.
#'
#' @param x A `"gpuiso_calibration"` object.
#' @param group For a fit with groups, the group to draw: its label, or its
#'   number among `x$groups`.
#' @param interpolation `"constant"` (the left-continuous step, the
#'   default of [prediction]) or `"linear"`.
#' @param xlab,ylab,main Axis labels and title; `NULL` for ones made from the
#'   fit's variables.
#' @param ... Graphical parameters and arguments of [plot.default()] (such
#'   as `xlim`, `ylim`); anything else is an error that names it.
#' @return `x`, invisibly.
#' @export
#' @examples
#' set.seed(1)
#' d <- data.frame(score = runif(500))
#' d$clicked <- rbinom(500, 1, d$score^2)
#' plot(iso_calibrate(clicked ~ score, data = d))
plot.gpuiso_calibration <- function(x, group = 1L,
                                    interpolation = c("constant", "linear"),
                                    xlab = NULL, ylab = NULL, main = NULL, ...) {
  check_graphics_dots(..., fn = "plot()")
  call <- sys.call()
  interpolation <- check_choice(interpolation, prediction_choices$interpolation,
                                "interpolation", call)
  b <- if (is.character(group)) match(group, x$groups)
       else if (is.numeric(group)) suppressWarnings(as.integer(group)) else NA
  if (length(b) != 1L || is.na(b) || b < 1L || b > length(x$curves)) {
    abort_input(sprintf("`group` must name or number one group of the calibration%s.",
                        if (is.null(x$groups)) " (it has one curve: 1)"
                        else sprintf(" (1 to %d)", length(x$curves))), call)
  }
  v <- x$variables
  cv <- x$curves[[b]]
  if (is.null(xlab)) xlab <- v[["score"]]
  if (is.null(ylab)) ylab <- sprintf("calibrated probability (%s)", v[["outcome"]])
  if (is.null(main)) {
    main <- if (is.null(x$groups)) "Isotonic calibration"
            else sprintf("Isotonic calibration, %s %s",
                         if (is.na(v[["group"]])) "group" else v[["group"]], x$groups[b])
  }
  graphics::plot(range(cv$score), c(0, 1), type = "n", xlab = xlab, ylab = ylab,
                 main = main, ...)
  # the scores' histogram, scaled to the lower quarter of the panel
  br <- pretty(range(cv$score), 30)
  bin <- findInterval(cv$score, br, rightmost.closed = TRUE)
  h <- as.vector(rowsum(scale_weights(cv$weight), bin, reorder = TRUE))
  bins <- sort(unique(bin))
  graphics::rect(br[bins], 0, br[bins + 1L], 0.25 * h / max(h), col = "grey90",
                 border = "grey75")
  if (x$y_min > 0 || x$y_max < 1) {
    graphics::abline(h = c(x$y_min, x$y_max), lty = 3, col = "grey40")
  }
  # "S": between two scores the value of the next, as predict() has it
  graphics::lines(cv$score, cv$value, type = if (interpolation == "linear") "l" else "S",
                  lwd = 2, col = "steelblue4")
  invisible(x)
}

#' How gpuiso predicts
#'
#' Every fit of the package that can be evaluated at new points -- [isoreg()],
#' [iso_calibrate()] and [idr()] -- follows one rule, with the same
#' arguments and the same defaults in its `predict()` method.
#'
#' A fit is known at its *knots*: the sorted distinct abscissae of the data
#' (the distinct `x` of [isoreg()], the distinct scores of
#' [iso_calibrate()], the distinct covariate values of [idr()]), with one
#' fitted value (or fitted distribution) at each.
#'
#' * `interpolation = "constant"` (the default): between two knots the fit
#'   takes its value at the next knot, so that at \eqn{t} with
#'   \eqn{x_{i-1} < t \le x_i} the prediction is the fitted value at
#'   \eqn{x_i}. This is the left-continuous step function of
#'   [stats::as.stepfun()] on a [stats::isoreg()] fit (steps closed on the
#'   right), and `predict(fit, t)` equals `as.stepfun(fit)(t)`.
#' * `interpolation = "linear"`: between two knots the fit is interpolated
#'   linearly, \eqn{(1 - \lambda) f(x_{i-1}) + \lambda f(x_i)} with
#'   \eqn{\lambda = (t - x_{i-1}) / (x_i - x_{i-1})}: the rule of
#'   scikit-learn's `IsotonicRegression.predict()` and, for distributions,
#'   of the 'isodistrreg' package. Both rules are monotone in `t` in the
#'   direction of the fit.
#' * `out_of_bounds` says what happens below the first knot or above the
#'   last one (the `out_of_bounds` of scikit-learn): `"clip"` (the default)
#'   gives the fit at the nearer end, `"na"` gives `NA`, and `"error"` stops
#'   with an error that names the first such point.
#' * A missing (`NA`) new point gives a missing prediction, whatever the
#'   options.
#' * The new points are `newdata`, the name of every `predict()` method of R;
#'   the spellings of the peers are accepted too (`newscores` for
#'   calibration, `data` as in 'isodistrreg'). Without them, `predict()`
#'   returns the in-sample predictions, at the points of the fit.
#' * An argument that `predict()` does not know is an error that names it,
#'   never silently ignored.
#'
#' @param interpolation `"constant"` (a left-continuous step function) or
#'   `"linear"`; see [prediction].
#' @param out_of_bounds Below the first knot or above the last: `"clip"`
#'   (the fit at the nearer end), `"na"` (`NA`) or `"error"`; see
#'   [prediction].
#' @name prediction
#' @aliases gpuiso-prediction
#' @seealso [predict.gpuiso_isoreg()], [predict.gpuiso_calibration()],
#'   [predict.gpuiso_idr()].
#' @examples
#' fit <- isoreg(c(1, 2, 3, 4), c(1, 3, 2, 4)) # fitted 1, 2.5, 2.5, 4
#' t <- c(0, 1.5, 3.5, 5)
#' predict(fit, t)                             # the step: 1, 2.5, 4, 4
#' all.equal(predict(fit, t), as.stepfun(fit)(t))
#' predict(fit, t, interpolation = "linear")   # 1, 1.75, 3.25, 4
#' predict(fit, t, out_of_bounds = "na")       # NA, 2.5, 4, NA
NULL

prediction_choices <- list(interpolation = c("constant", "linear"),
                           out_of_bounds = c("clip", "na", "error"))

# The two options of the rule, checked: list(linear, clip, error).
check_prediction_rule <- function(interpolation, out_of_bounds, call) {
  interpolation <- check_choice(interpolation, prediction_choices$interpolation,
                                "interpolation", call)
  out_of_bounds <- check_choice(out_of_bounds, prediction_choices$out_of_bounds,
                                "out_of_bounds", call)
  list(linear = interpolation == "linear", clip = out_of_bounds == "clip",
       error = out_of_bounds == "error")
}

# New points: numeric (or all-NA logical), as plain doubles; NA allowed.
check_newdata <- function(x, arg, call) {
  if (!(is.numeric(x) || is.logical(x)) || is.object(x) && !is.numeric(x) ||
      is.list(x)) {
    abort_input(sprintf("`%s` must be numeric, not %s.", arg, describe_type(x)),
                call)
  }
  as.double(x)
}

# The value of a fit known at sorted distinct `knots` (values `values`) at
# points t, by `rule` (check_prediction_rule()). `lo`: where the fit's range
# starts when that is before the first knot (a step function given by the
# right ends of its steps).
interpolate_values <- function(knots, values, t, rule, arg, call, lo = NULL) {
  out <- .Call(ffi_interpolate, knots, values, t, rule$linear, rule$clip, lo)
  stop_outside(attr(out, "outside"), t, c(lo, knots), rule, arg, call)
  attr(out, "outside") <- NULL
  out
}

# The places of points t among sorted distinct `knots`: list(j, lambda) with
# j the 0-based index of the knot (NA for no prediction) and lambda the
# weight of the next knot.
locate_points <- function(knots, t, rule, arg, call) {
  p <- .Call(ffi_locate, knots, t, rule$linear, rule$clip)
  stop_outside(p$outside, t, knots, rule, arg, call)
  p[c("j", "lambda")]
}

stop_outside <- function(pos, t, knots, rule, arg, call) {
  if (!rule$error || pos == 0) return(invisible())
  abort_input(sprintf(paste0("`%s` must lie within the range of the fit, ",
                             "[%s, %s], with `out_of_bounds = \"error\"`: ",
                             "%s is %s."),
                      arg, format(knots[1L]), format(knots[length(knots)]),
                      describe_position(pos, t), describe_value(t[[pos]])),
              call, arg = arg, position = pos)
}

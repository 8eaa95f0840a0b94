#' Predict from an isotonic regression fit
#'
#' Evaluates the fitted monotone function at new `x`, by the rule that every
#' fit of the package follows (see [prediction]): by default the
#' left-continuous step function of `as.stepfun()` (steps closed on the
#' right), so that `predict(fit, t)` equals `as.stepfun(fit)(t)`.
#'
#' @param object A fit from [isoreg()].
#' @param newdata Numeric values of `x` at which to predict, or a data frame
#'   with a column named like the fit's `x` (or a single column). If
#'   missing or `NULL`, the fitted values are returned, in the order of the
#'   data. `NA` gives `NA`.
#' @inheritParams prediction
#' @param ... Not used: an argument that `predict()` does not take is an
#'   error.
#' @return A numeric vector as long as `newdata` (with its names).
#' @seealso [prediction], [isoreg()].
#' @export
#' @examples
#' fit <- isoreg(c(1, 2, 3, 4), c(1, 3, 2, 4))
#' predict(fit, c(0, 1.5, 2.5, 5))
#' predict(fit, c(0, 1.5, 2.5, 5), interpolation = "linear")
#' predict(fit, c(0, 5), out_of_bounds = "na")
predict.gpuiso_isoreg <- function(object, newdata = NULL,
                                  interpolation = c("constant", "linear"),
                                  out_of_bounds = c("clip", "na", "error"),
                                  ...) {
  check_dots(..., fn = "predict()")
  call <- sys.call()
  rule <- check_prediction_rule(interpolation, out_of_bounds, call)
  if (is.null(newdata)) return(fitted(object))
  if (is.data.frame(newdata)) newdata <- newdata_column(newdata, object$xname, call)
  t <- check_newdata(newdata, "newdata", call)
  b <- object$blocks
  out <- if (rule$linear) {
    k <- linear_knots(b)
    interpolate_values(k$x, k$value, t, rule, "newdata", call)
  } else {
    # the value at the first x at or after t is that of t's block, whose
    # last x is the first block end at or after t
    interpolate_values(b$to, b$value, t, rule, "newdata", call,
                       lo = if (nrow(b)) b$from[1L])
  }
  if (!is.null(names(newdata))) names(out) <- names(newdata)
  out
}

# The column of a data frame of new points that holds the variable `name`:
# the one of that name, or the only one.
newdata_column <- function(newdata, name, call) {
  if (!is.null(name) && name %in% names(newdata)) return(newdata[[name]])
  if (ncol(newdata) == 1L) return(newdata[[1L]])
  abort_input(sprintf("`newdata` must have a column `%s`, the `x` of the fit.",
                      if (is.null(name)) "x" else name), call)
}

# The points where a linear interpolation of the fit bends: each block's
# first and last x, where the fit leaves one value for the next.
linear_knots <- function(b) {
  x <- as.vector(rbind(b$from, b$to))
  v <- rep(b$value, each = 2L)
  keep <- c(TRUE, x[-1L] != x[-length(x)])
  list(x = x[keep], value = v[keep])
}

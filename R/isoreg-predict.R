#' Predict from an isotonic regression fit
#'
#' Evaluates the fitted monotone function at new `x`.
#'
#' With `interpolation = "constant"` the fit is a step function whose steps
#' are closed on the right, the convention of `as.stepfun()` on a [stats::isoreg()] fit:
#' at a fitted `x` it is the fitted value there, and between two fitted `x`
#' it is the value at the next one. With `"linear"` it interpolates linearly
#' between the fitted values at neighbouring distinct `x`. Both are monotone
#' in the same direction as the fit.
#'
#' @param object A fit from [isoreg()].
#' @param newdata Numeric values of `x` at which to predict. If missing, the
#'   fitted values are returned. `NA` gives `NA`.
#' @param interpolation `"constant"` (step function) or `"linear"`.
#' @param extrapolate Outside the range of the fitted `x`: `"clip"` returns
#'   the fit at the nearest end, `"na"` returns `NA`.
#' @param ... Unused.
#' @return A numeric vector as long as `newdata`.
#' @export
#' @examples
#' fit <- isoreg(c(1, 2, 3, 4), c(1, 3, 2, 4))
#' predict(fit, c(0, 1.5, 2.5, 5))
#' predict(fit, c(0, 1.5, 2.5, 5), interpolation = "linear")
#' predict(fit, c(0, 5), extrapolate = "na")
predict.gpuiso_isoreg <- function(object, newdata,
                                  interpolation = c("constant", "linear"),
                                  extrapolate = c("clip", "na"), ...) {
  interpolation <- match.arg(interpolation)
  extrapolate <- match.arg(extrapolate)
  if (missing(newdata)) return(fitted(object))
  call <- sys.call()
  if (!(is.numeric(newdata) || is.logical(newdata)) || is.object(newdata) &&
      !is.numeric(newdata)) {
    abort_input(sprintf("`newdata` must be numeric, not %s.",
                        describe_type(newdata)), call)
  }
  t <- as.double(newdata)
  kx <- object$knots$x
  kf <- object$knots$fit
  m <- length(kx)
  if (m == 0L) return(rep(NA_real_, length(t)))
  if (interpolation == "linear" && m > 1L) {
    out <- stats::approx(kx, kf, xout = t, rule = 2, ties = "ordered")$y
  } else {
    # the first distinct x at or after t; beyond the last, the last
    i <- findInterval(t, kx, left.open = TRUE) + 1L
    out <- kf[pmin(i, m)]
  }
  out[is.na(t)] <- NA_real_
  if (extrapolate == "na") out[!is.na(t) & (t < kx[1L] | t > kx[m])] <- NA_real_
  out
}

#' Isotonic regression of vectors, matrices and ragged batches
#'
#' Solves the weighted least-squares problem
#' \deqn{\min_z \sum_i w_i (y_i - z_i)^2 \quad\textrm{subject to}\quad
#'   z_1 \le z_2 \le \dots \le z_n}{min sum w_i (y_i - z_i)^2 s.t. z_1 <= ... <= z_n}
#' (or \eqn{\ge} with `decreasing = TRUE`) for each problem, by pool
#' adjacent violators in linear time.
#'
#' The fit is constant on blocks of consecutive elements, each block's value
#' the weighted mean of `y` over it. Neighbouring blocks with equal values
#' are pooled into one. Block sums are carried in twice the working
#' precision, so long blocks lose no digits, and the output is exactly
#' monotone.
#'
#' @section Zero weights:
#' Zero weights are allowed. A point of zero weight does not influence the
#' fit; it takes the fitted value of the nearest positive-weight point to its
#' right in its problem (of the last one when there is none to its right).
#' That is the value `predict()` gives at such a point, and the convention of
#' `as.stepfun()` on a [stats::isoreg()] fit. A problem whose weights are all zero has no
#' fit and is an error.
#'
#' @param y The values: a numeric vector (one problem), or a numeric matrix
#'   whose columns are the problems. Integer and logical values are
#'   converted to double. Every value must be finite.
#' @param weights `NULL` (all weights one), or non-negative finite weights
#'   of the same shape as `y`; for a matrix `y`, also a vector with one
#'   weight per row, shared by all columns.
#' @param decreasing `FALSE` for a non-decreasing fit, `TRUE` for a
#'   non-increasing one.
#' @param device `"auto"`, `"cpu"` or `"gpu"`: which engine solves the
#'   problems. `"auto"` uses the GPU when one is available and the work is
#'   large enough; `"gpu"` is an error when no GPU engine can be used (see
#'   [gpu_info()]). Defaults to `getOption("gpuiso.device", "auto")`.
#' @param groups `NULL`, or a vector with one label per element of a vector
#'   `y`: each distinct label is one problem (a ragged batch). The elements
#'   of a group keep their order; groups need not be contiguous.
#' @return The fitted values, with the shape, names and dimnames of `y`.
#' @seealso [isoreg()] for the model with `x`, prediction and plots;
#'   [isotonic_vjp()] for gradients.
#' @export
#' @examples
#' y <- c(1, 3, 2, 4, 3.5, 5)
#' isotonic(y)
#' isotonic(y, weights = c(1, 1, 5, 1, 1, 1))
#' isotonic(y, decreasing = TRUE)
#'
#' # one problem per column
#' m <- cbind(a = c(3, 1, 2), b = c(1, 3, 2))
#' isotonic(m)
#'
#' # ragged problems
#' isotonic(c(2, 1, 5, 4, 3), groups = c("u", "u", "v", "v", "v"))
isotonic <- function(y, weights = NULL, decreasing = FALSE,
                     device = getOption("gpuiso.device", "auto"),
                     groups = NULL) {
  # One plain vector, the commonest call: validated and fitted in C at once,
  # the full path below only when something needs preparing or is wrong.
  if (is.null(groups) && is.null(attributes(y)) && is.null(attributes(weights)) &&
      (identical(decreasing, FALSE) || identical(decreasing, TRUE)) &&
      (identical(device, "auto") || identical(device, "cpu"))) {
    fit <- .Call(ffi_isotonic_quick, y, weights, decreasing)
    if (!is.null(fit)) return(fit)
  }
  call <- sys.call()
  layout <- layout_problems(y, weights, groups, call)
  check_flag(decreasing, "decreasing", call)
  resolve_device(device, call)
  res <- engine_fit(layout$y, layout$w, layout$offsets, decreasing)
  restore_shape(res[[1L]], layout, y)
}

#' Gradient of the isotonic fit (vector-Jacobian product)
#'
#' Back-propagates an upstream gradient through [isotonic()]. The fit is
#' constant on blocks, each the weighted mean of `y` over the block; with
#' \eqn{G} and \eqn{W} the sums of `grad` and of the weights over an
#' element's block,
#' \deqn{\partial/\partial y_i = w_i G / W, \qquad
#'       \partial/\partial w_i = (y_i - z_i) G / W.}{d/dy_i = w_i G / W,
#'       d/dw_i = (y_i - z_i) G / W.}
#' The blocks are those of the forward pass, recorded as it runs, not
#' guessed from equal fitted values. Where two neighbouring blocks have equal
#' means (a point where the fit is not differentiable) they count as one
#' block. A zero-weight point's `d/dw` assumes it stays in the block it was
#' assigned to (see [isotonic()]).
#'
#' @inheritParams isotonic
#' @param decreasing `FALSE` for a non-decreasing fit, `TRUE` for a
#'   non-increasing one.
#' @param grad The upstream gradient: finite values of the same shape as `y`.
#'   With `precision = "single"` it is rounded to float32 too.
#' @return A list with elements `y` and `weights`, the gradients with respect
#'   to `y` and to the weights (all ones when `weights` is `NULL`), each of
#'   the shape of `y`. With `precision = "single"`, both are rounded to
#'   float32, and computed from the float32 fit.
#' @export
#' @examples
#' y <- c(1, 3, 2, 4)
#' isotonic(y)
#' # the loss sum(z) has gradient 1 in each z; within the block {3, 2}
#' isotonic_vjp(y, grad = c(1, 1, 1, 1))
#' isotonic_vjp(y, grad = c(0, 1, 0, 0))
isotonic_vjp <- function(y, grad, weights = NULL, decreasing = FALSE,
                         groups = NULL,
                         device = getOption("gpuiso.device", "auto"),
                         precision = c("double", "single")) {
  call <- sys.call()
  precision <- check_precision(precision, call)
  single <- precision == "single"
  layout <- layout_problems(y, weights, groups, call, single = single)
  g <- check_values(grad, "grad", call, single = single)
  check_same_length(y, grad, "y", "grad", call)
  if (!is.null(layout$perm)) g <- g[layout$perm]
  check_flag(decreasing, "decreasing", call)
  device <- resolve_device(device, length(layout$y), call,
                           nprob = length(layout$offsets) - 1L)
  fwd <- engine_fit(layout$y, layout$w, layout$offsets, decreasing,
                    starts = TRUE, device = device, precision = precision)
  # on the engine that did the forward pass, which may have been the CPU
  res <- engine_vjp(layout$y, layout$w, fwd$fit, fwd$starts, g,
                    layout$offsets, device = fwd$device,
                    precision = precision)
  list(y = restore_shape(res$y, layout, y),
       weights = restore_shape(res$weights, layout, y))
}

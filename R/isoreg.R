#' Isotonic regression of y on x
#'
#' Fits a monotone step function of `x` to `y` by weighted least squares: a
#' superset of [stats::isoreg()] with weights, decreasing fits, prediction
#' and summaries, in linear time after sorting.
#'
#' The points are ordered by `x`. Points with equal `x` are pooled first
#' into one point whose value is their weighted mean and whose weight is the
#' sum of theirs, so tied `x` always get one fitted value. Zero weights are
#' allowed and follow the rule of [isotonic()]. With `precision = "single"`
#' the values and weights are rounded to float32 first, then pooled, and the
#' pooled values rounded again.
#'
#' The result can be read by code written for [stats::isoreg()]: it has the
#' fields `x`, `y`, `yf`, `yc`, `iKnots`, `isOrd`, `ord` and `call` with the
#' same meaning, and inherits from class `"isoreg"`. One difference: `iKnots`
#' marks the ends of the blocks of the fit, and neighbouring blocks with equal
#' values are one block here, so a constant stretch has one knot where
#' `stats::isoreg()` may have several. The fitted step function is the same.
#'
#' @param x,y Coordinates of the points. If `y` is `NULL`, `x` is taken as
#'   the response and the abscissae are `seq_along(x)`; a list with
#'   components `x` and `y` or a two-column matrix also works, as in
#'   [grDevices::xy.coords()]. Both must be finite.
#' @inheritParams isotonic
#' @param weights `NULL` or non-negative finite weights, one per point.
#' @return An object of class `c("gpuiso_isoreg", "isoreg")`: a list with
#'   \describe{
#'   \item{x, y}{the data, in the original order.}
#'   \item{yf}{the fitted values, in the order of increasing `x`.}
#'   \item{yc}{the cumulative sums of `y` in that order, starting at 0.}
#'   \item{iKnots}{indices (in that order) of the last point of each block.}
#'   \item{isOrd}{`TRUE` when `x` was strictly increasing already.}
#'   \item{ord}{the ordering of the points (`NULL` when `isOrd`).}
#'   \item{call}{the call.}
#'   \item{weights}{the weights, in the original order, or `NULL`.}
#'   \item{decreasing, device}{the direction and the engine used (`"cpu"`
#'     or `"gpu"`).}
#'   \item{precision}{`"double"` or `"single"`.}
#'   \item{knots}{a data frame of the distinct `x` (column `x`), their
#'     pooled value `y` and weight `w`, and the fit `fit` there.}
#'   }
#' @seealso [predict.gpuiso_isoreg()], [plot.gpuiso_isoreg()],
#'   [isotonic()] for the plain operator.
#' @export
#' @examples
#' x <- c(1, 2, 2, 3, 5, 6)
#' y <- c(1, 3, 2, 2, 6, 5)
#' fit <- isoreg(x, y)
#' fit
#' fitted(fit)
#' predict(fit, c(0, 2.5, 4, 7))
#' predict(fit, c(0, 2.5, 4, 7), interpolation = "linear", extrapolate = "na")
#' plot(fit)
#'
#' # weighted and decreasing
#' isoreg(x, -y, weights = c(1, 1, 2, 1, 1, 3), decreasing = TRUE)
isoreg <- function(x, y = NULL, weights = NULL, decreasing = FALSE,
                   device = getOption("gpuiso.device", "auto"),
                   precision = c("double", "single")) {
  call <- match.call()
  ecall <- sys.call()
  precision <- check_precision(precision, ecall)
  single <- precision == "single"
  index <- FALSE
  if (is.null(y)) {
    if (is.list(x) && !is.data.frame(x) && all(c("x", "y") %in% names(x)) ||
        is.matrix(x) && ncol(x) == 2L) {
      y <- if (is.list(x)) x$y else x[, 2L]
      x <- if (is.list(x)) x$x else x[, 1L]
    } else {
      y <- x
      index <- TRUE
    }
  }
  y <- as_plain(check_values(y, if (index) "x" else "y", ecall, single = single))
  x <- if (index) seq_along(y) else as_plain(check_values(x, "x", ecall))
  check_same_length(x, y, "x", "y", ecall)
  w <- NULL
  if (!is.null(weights)) {
    w <- as_plain(check_values(weights, "weights", ecall, nonneg = TRUE,
                               single = single))
    check_same_length(w, y, "weights", "y", ecall)
    if (length(w) > 0L && !any(w > 0)) {
      abort_input("`weights` must not all be zero.", ecall)
    }
  }
  check_flag(decreasing, "decreasing", ecall)
  device <- resolve_device(device, length(y), ecall)

  n <- length(y)
  is_ord <- index || !is.unsorted(x, strictly = TRUE)
  ord <- if (!is_ord) order(x, if (decreasing) y else -y)
  xs <- if (is_ord) x else x[ord]
  ys <- if (is_ord) y else y[ord]
  ws <- if (is.null(w) || is_ord) w else w[ord]

  # "single": tied x are pooled from the rounded data, and the engine
  # rounds the pooled values again.
  pooled <- if (single) pool_ties(xs, as_single(ys), as_single(ws))
            else pool_ties(xs, ys, ws)
  if (single && length(pooled$w) && max(pooled$w) > float32_max) {
    abort_input(paste0("`weights` of tied `x` must sum to at most 3.4e38 for ",
                       "`precision = \"single\"`."), ecall)
  }
  res <- engine_fit(pooled$y, pooled$w, c(0, length(pooled$y)), decreasing,
                    starts = TRUE, device = device, precision = precision,
                    call = ecall)
  fit_u <- res$fit
  yf <- if (is.null(pooled$run)) fit_u else fit_u[pooled$run]
  block_end_u <- c(which(as.logical(res$starts))[-1L] - 1, length(fit_u))
  ends <- if (is.null(pooled$run)) block_end_u else pooled$last[block_end_u]
  if (n == 0L) ends <- integer()
  if (n < .Machine$integer.max) ends <- as.integer(ends)

  new_gpuiso_isoreg(list(
    x = x, y = y, yf = yf, yc = cumsum(c(0, ys)), iKnots = ends,
    isOrd = is_ord, ord = ord, call = call, weights = w,
    decreasing = decreasing, device = res$device, precision = precision,
    knots = data.frame(x = pooled$x, y = pooled$y,
                       w = if (is.null(pooled$w)) rep(1, length(pooled$y)) else pooled$w,
                       fit = fit_u)))
}

new_gpuiso_isoreg <- function(fields) {
  structure(fields, class = c("gpuiso_isoreg", "isoreg"))
}

# Drop names and dims: the fit works on plain vectors.
as_plain <- function(x) {
  if (!is.null(attributes(x))) attributes(x) <- NULL
  x
}

# Pool points with equal (sorted) x into one: the weighted mean of y, the
# sum of the weights. Returns the distinct x with pooled y and w (w NULL
# when unweighted and untied), `run` mapping each point to its distinct x
# and `last` the index of each distinct x's last point (both NULL if untied).
pool_ties <- function(xs, ys, ws) {
  n <- length(xs)
  new <- if (n > 0L) c(TRUE, xs[-1L] != xs[-n]) else logical()
  if (all(new)) {
    return(list(x = xs, y = ys, w = ws, run = NULL, last = NULL))
  }
  run <- cumsum(new)
  wt <- if (is.null(ws)) rep(1, n) else ws
  sw <- rowsum(wt, run, reorder = FALSE)[, 1L]
  swy <- rowsum(wt * ys, run, reorder = FALSE)[, 1L]
  # A run whose weights are all zero keeps its plain mean; it has no
  # influence on the fit, and its value is never read.
  py <- ifelse(sw > 0, swy / sw, rowsum(ys, run, reorder = FALSE)[, 1L] /
                 tabulate(run))
  names(sw) <- names(py) <- NULL
  list(x = xs[new], y = py, w = sw, run = run,
       last = c(which(new)[-1L] - 1, n))
}

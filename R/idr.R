#' Isotonic distributional regression
#'
#' Estimates the conditional distribution of `y` given one numeric covariate
#' under the sole assumption that `y` tends to be larger when the covariate
#' is larger (Henzi, Ziegel and Gneiting, 2021). For every threshold
#' \eqn{t}, the conditional CDF \eqn{F(t \mid x)} is the antitonic
#' (non-increasing in \eqn{x}) weighted least-squares regression of the
#' indicators \eqn{1\{y_i \le t\}} on \eqn{x_i}. Observations with equal
#' covariate values are pooled first: each distinct value \eqn{x_j} gets the
#' summed weight \eqn{W_j} of its observations, and the problem at threshold
#' \eqn{t} is the antitonic regression of \eqn{c_j(t) / W_j} with weights
#' \eqn{W_j}, \eqn{c_j(t)} being the weight of the observations at \eqn{x_j}
#' with \eqn{y \le t}.
#'
#' @section Algorithm:
#' The thresholds are swept in increasing order. Between two thresholds the
#' observations whose `y` lies in between switch on one at a time, which only
#' raises one \eqn{c_j}; the antitonic fit is updated in place by re-pooling
#' the block that holds \eqn{x_j} and the neighbouring blocks it pools with,
#' instead of running pool adjacent violators again over all points. The
#' update is exact (it gives the solution of each threshold's problem, up to
#' rounding), and one fit costs far less than one full pass per threshold.
#'
#' On the GPU (`device = "gpu"`, or `"auto"` from
#' `r format(idr_gpu_min_n_default, scientific = FALSE)` observations when
#' one is available; see [gpuiso-package] for the option) the thresholds are
#' instead solved as batches of antitonic problems by the GPU engine, in
#' slabs of at most 120 million CDF values (fewer when the device has less
#' free memory: a slab needs about 80 bytes of device memory per value). The
#' problems of a slab are built on the device from the observations, and
#' each solved slab is reduced there to its blocks: only the observations go
#' to the device and only the blocks come back, in the representation
#' below. Both engines give the same blocks up to rounding.
#'
#' @section The representation:
#' The fit at threshold \eqn{k} is a step function of the covariate index
#' with few steps, stored as blocks: `start[b]` (the 0-based index into `x`
#' of the block's first point) and `value[b]` (the estimated
#' \eqn{F(t_k \mid x)} on the block). The blocks of threshold \eqn{k}
#' (1-based) are `ptr[k] + 1` to `ptr[k + 1]` (0-based offsets: `ptr[1]` is
#' 0 and `ptr[K + 1]` the number of blocks in all). Within a threshold the
#' values do not increase with the index; at a fixed point they do not
#' decrease from one threshold to the next, and at the last threshold all
#' are 1. Memory is the total number of blocks, typically tens to hundreds
#' per threshold and never more than \eqn{K m} for \eqn{K} thresholds and
#' \eqn{m} distinct covariate values: no \eqn{m \times K}{m x K} matrix is
#' formed. Passing a coarser `thresholds` grid bounds \eqn{K}, and with it
#' time and memory.
#'
#' @param y The response: a finite numeric vector.
#' @param X The covariate: a finite numeric vector, a one-column matrix or a
#'   one-column data frame, one value per element of `y`. Its name (the
#'   column name, or the variable passed) is kept, so that [predict()] can
#'   find the covariate in a data frame.
#' @param weights `NULL` or non-negative finite weights, one per
#'   observation, not all zero. Observations of weight zero take no part in
#'   the fit.
#' @param thresholds `NULL` to estimate the CDFs at every distinct value of
#'   `y` (of positive weight), where they may jump; or a numeric grid, which
#'   is sorted and freed of duplicates. When the grid lies below the largest
#'   `y`, that value is appended, so that every estimated CDF reaches 1.
#'   Between thresholds the CDFs are constant (right-continuous steps).
#' @inheritParams isotonic
#' @return An object of class `"gpuiso_idr"`: a list with
#'   \describe{
#'   \item{x}{the sorted distinct covariate values (of positive weight),
#'     length \eqn{m}.}
#'   \item{weight}{the summed weight at each of them.}
#'   \item{thresholds}{the \eqn{K} thresholds, increasing.}
#'   \item{ptr, start, value}{the blocks, as described above (`ptr` double of
#'     length \eqn{K + 1}, `start` integer, `value` double).}
#'   \item{n}{the number of observations.}
#'   \item{xname}{the covariate's name.}
#'   \item{device}{the engine used, `"cpu"` or `"gpu"`.}
#'   \item{call}{the call.}
#'   \item{data}{the observations (`x`, `y`, `weights`), for in-sample
#'     predictions.}
#'   }
#'   It has methods for [print()], [summary()], [plot()][plot.gpuiso_idr] and
#'   [predict()][predict.gpuiso_idr].
#' @references
#' Henzi, A., Ziegel, J. F. and Gneiting, T. (2021). Isotonic distributional
#' regression. *Journal of the Royal Statistical Society Series B*, 83(5),
#' 963--993. \doi{10.1111/rssb.12450}
#' @seealso [predict.gpuiso_idr()] and the evaluation functions [cdf()],
#'   [qpred()], [crps()], [pit()], [bscore()], [qscore()].
#' @export
#' @examples
#' aq <- na.omit(airquality[, c("Ozone", "Temp")])
#' fit <- idr(aq$Ozone, aq[, "Temp", drop = FALSE])
#' fit
#' pred <- predict(fit, data.frame(Temp = c(65, 80, 90)))
#' cdf(pred, thresholds = c(50, 100))   # P(Ozone <= 50), P(Ozone <= 100)
#' qpred(pred, quantiles = c(0.1, 0.5, 0.9))
#' mean(crps(predict(fit), aq$Ozone))   # in-sample CRPS
#' plot(fit)
idr <- function(y, X, weights = NULL, thresholds = NULL,
                device = getOption("gpuiso.device", "auto")) {
  call <- match.call()
  ecall <- sys.call()
  xname <- covariate_name(X, substitute(X))
  x <- idr_covariate(X, "X", ecall)
  y <- check_values(y, "y", ecall)
  if (!is.null(dim(y)) && !(length(dim(y)) == 2L && ncol(y) == 1L)) {
    abort_input(sprintf("`y` must be a vector, not a matrix with %.0f columns.",
                        ncol(y)), ecall)
  }
  y <- as_plain(y)
  if (!length(y)) abort_input("`y` must not be empty.", ecall)
  check_same_length(y, x, "y", "X", ecall)
  w <- NULL
  if (!is.null(weights)) {
    w <- as_plain(check_values(weights, "weights", ecall, nonneg = TRUE))
    check_same_length(w, y, "weights", "y", ecall)
    if (!any(w > 0)) abort_input("`weights` must not all be zero.", ecall)
  }
  keep <- if (!is.null(w) && any(w == 0)) which(w > 0)
  xk <- if (is.null(keep)) x else x[keep]
  yk <- if (is.null(keep)) y else y[keep]
  wk <- if (is.null(keep)) w else w[keep]
  thresholds <- idr_thresholds(thresholds, yk, ecall)
  device <- resolve_device(device, length(yk), ecall,
                           min_n = gpu_min_n("gpuiso.idr_gpu_min_n",
                                             idr_gpu_min_n_default))

  xu <- sort(unique(xk))
  xcode <- match(xk, xu) - 1L
  # 0-based index of the first threshold >= y: when the observation switches on
  kcode <- findInterval(yk, thresholds, left.open = TRUE)
  res <- idr_engine(xcode, kcode, wk, length(xu), length(thresholds), device,
                    ecall)
  weight <- if (is.null(wk)) as.double(tabulate(xcode + 1L, length(xu)))
            else as.vector(rowsum(wk, xcode, reorder = TRUE))
  new_gpuiso_idr(list(
    x = xu, weight = weight, thresholds = thresholds,
    ptr = res$ptr, start = res$start, value = res$value,
    n = length(y), xname = xname,
    device = if (is.null(res$device)) device else res$device, call = call,
    data = list(x = x, y = y, weights = w)))
}

new_gpuiso_idr <- function(fields) structure(fields, class = "gpuiso_idr")

# The one place where the engines of idr() part. Arguments: xcode (integer,
# 0-based index into the sorted distinct covariate values, one per
# observation of positive weight), kcode (integer, 0-based index of the
# first threshold >= y, the threshold at which the observation switches on),
# w (NULL for unit weights, else positive doubles, one per observation), m
# (the number of distinct covariate values, each with positive weight), K
# (the number of thresholds; the last is >= every y, so every kcode < K).
# Returns list(ptr = double K + 1, start = integer, value = double): the
# blocks of every threshold as documented in ?idr; with `device` ("cpu")
# when the GPU handed the fit to the CPU.
idr_engine <- function(xcode, kcode, w, m, K, device, call) {
  if (device == "gpu") {
    idr_fit_gpu(xcode, kcode, w, m, K, call)
  } else {
    .Call(ffi_idr_fit, xcode, kcode, w, as.double(m), as.double(K))
  }
}

# The GPU engine of idr(): same arguments and result as idr_engine(). The
# threshold problems are built on the device from xcode and kcode, solved in
# slabs, and only their blocks come back; beyond what the device path takes
# (2^31 observations) the CPU fits.
idr_fit_gpu <- function(xcode, kcode, w, m, K, call) {
  res <- .Call(ffi_gpu_idr, xcode, kcode, w, as.double(m), as.double(K))
  if (is.null(res$error)) return(res[c("ptr", "start", "value")])
  if (identical(res$status, gpu_status_range)) {
    res <- .Call(ffi_idr_fit, xcode, kcode, w, as.double(m), as.double(K))
    return(c(res, list(device = "cpu")))
  }
  abort_gpu(res$error, call)
}

# From how many observations device = "auto" fits IDR on the GPU (when one
# is available); options(gpuiso.idr_gpu_min_n =) overrides it.
idr_gpu_min_n_default <- 2000

# The covariate's name: a column name, the variable passed, or "x".
covariate_name <- function(X, expr) {
  nm <- if (is.data.frame(X) || is.matrix(X)) colnames(X)
  if (length(nm) == 1L && !is.na(nm) && nzchar(nm)) return(nm)
  if (is.name(expr)) return(as.character(expr))
  "x"
}

# A numeric vector from a vector, one-column matrix or one-column data frame.
idr_covariate <- function(X, arg, call) {
  if (is.data.frame(X) || is.matrix(X)) {
    if (ncol(X) != 1L) {
      abort_input(sprintf("`%s` must have one column: it has %.0f.", arg,
                          ncol(X)), call)
    }
    X <- if (is.data.frame(X)) X[[1L]] else X[, 1L]
  }
  if (is.factor(X)) {
    abort_input(sprintf("`%s` must be numeric, not a factor.", arg), call)
  }
  as_plain(check_values(X, arg, call))
}

idr_thresholds <- function(thresholds, y, call) {
  top <- max(y)
  if (is.null(thresholds)) return(sort(unique(y)))
  if (!length(thresholds)) abort_input("`thresholds` must not be empty.", call)
  t <- sort(unique(as_plain(check_values(thresholds, "thresholds", call))))
  if (t[length(t)] < top) t <- c(t, top)
  t
}

# Blocks per threshold.
idr_nblocks <- function(fit) diff(fit$ptr)

#' @export
print.gpuiso_idr <- function(x, ...) {
  cat("Isotonic distributional regression of y on", x$xname, "\n")
  cat(sprintf("  observations: %.0f, distinct %s: %.0f, thresholds: %.0f\n",
              x$n, x$xname, length(x$x), length(x$thresholds)))
  nb <- idr_nblocks(x)
  cat(sprintf("  blocks: %.0f in all, %.1f per threshold on average; engine: %s\n",
              sum(nb), mean(nb), x$device))
  invisible(x)
}

#' @rdname plot.gpuiso_idr
#' @param object A fit from [idr()].
#' @export
summary.gpuiso_idr <- function(object, ...) {
  nb <- idr_nblocks(object)
  structure(list(
    n = object$n, m = length(object$x), K = length(object$thresholds),
    xname = object$xname, xrange = range(object$x),
    trange = range(object$thresholds), blocks = sum(nb),
    blocks_per_threshold = stats::quantile(nb, c(0, 0.5, 1), names = FALSE),
    bytes = 12 * sum(nb) + 8 * length(object$ptr), device = object$device),
    class = "summary.gpuiso_idr")
}

#' @export
print.summary.gpuiso_idr <- function(x, ...) {
  cat("Isotonic distributional regression of y on", x$xname, "\n")
  cat(sprintf("  observations:       %.0f\n", x$n))
  cat(sprintf("  distinct %s: %.0f, from %s to %s\n", x$xname, x$m,
              format(x$xrange[1L]), format(x$xrange[2L])))
  cat(sprintf("  thresholds:         %.0f, from %s to %s\n", x$K,
              format(x$trange[1L]), format(x$trange[2L])))
  cat(sprintf("  blocks per threshold: min %.0f, median %.0f, max %.0f (%.0f in all, %.1f MiB)\n",
              x$blocks_per_threshold[1L], x$blocks_per_threshold[2L],
              x$blocks_per_threshold[3L], x$blocks, x$bytes / 2^20))
  cat("  engine:            ", x$device, "\n")
  invisible(x)
}

#' Plot an IDR fit
#'
#' `plot()` draws the estimated conditional CDFs at a few covariate values
#' (`type = "cdf"`), or the fitted CDF as a surface over the covariate and
#' the thresholds (`type = "surface"`, an [graphics::image()] of
#' \eqn{F(t \mid x)}). `summary()` gives the sizes of the fit.
#'
#' @param x A fit from [idr()].
#' @param type `"cdf"` or `"surface"`.
#' @param at For `"cdf"`: the covariate values (default: five quantiles of
#'   the observed ones).
#' @param col Colours, one per CDF (for `"cdf"`) or a palette (for
#'   `"surface"`).
#' @param main,xlab,ylab Titles and axis labels.
#' @param ... Passed to [graphics::plot.default()] or [graphics::image()].
#' @return `plot()`: `x`, invisibly. `summary()`: an object of class
#'   `"summary.gpuiso_idr"` with the number of observations `n`, of distinct
#'   covariate values `m` and of thresholds `K`, the total number of blocks
#'   and their quantiles per threshold, and the approximate memory in bytes.
#' @export
#' @examples
#' aq <- na.omit(airquality[, c("Ozone", "Temp")])
#' fit <- idr(aq$Ozone, aq$Temp)
#' plot(fit)
#' plot(fit, type = "surface")
#' summary(fit)
plot.gpuiso_idr <- function(x, type = c("cdf", "surface"), at = NULL,
                            col = NULL, main = NULL, xlab = NULL, ylab = NULL,
                            ...) {
  type <- check_choice(type, c("cdf", "surface"), "type", sys.call())
  if (type == "surface") {
    xs <- if (length(x$x) > 200L) x$x[unique(round(seq(1, length(x$x), length.out = 200L)))] else x$x
    ts <- x$thresholds
    if (length(ts) > 200L) ts <- ts[unique(round(seq(1, length(ts), length.out = 200L)))]
    p <- predict(x, xs)
    z <- cdf(p, ts)
    if (length(xs) < 2L || length(ts) < 2L) {
      graphics::plot.new()
      return(invisible(x))
    }
    graphics::image(xs, ts, z, col = if (is.null(col)) grDevices::hcl.colors(24, "YlOrRd", rev = TRUE) else col,
                    main = if (is.null(main)) "Fitted conditional CDF" else main,
                    xlab = if (is.null(xlab)) x$xname else xlab,
                    ylab = if (is.null(ylab)) "threshold" else ylab, ...)
    graphics::contour(xs, ts, z, levels = c(0.1, 0.5, 0.9), add = TRUE,
                      drawlabels = TRUE, col = "grey20")
    return(invisible(x))
  }
  if (is.null(at)) {
    at <- unique(stats::quantile(x$data$x, c(0.1, 0.3, 0.5, 0.7, 0.9),
                                 names = FALSE, type = 1))
  }
  p <- predict(x, at)
  plot.gpuiso_idr_pred(p, index = seq_along(at), col = col,
                       main = if (is.null(main)) "IDR predictive CDFs" else main,
                       xlab = if (is.null(xlab)) "threshold" else xlab,
                       ylab = if (is.null(ylab)) "CDF" else ylab,
                       legend_title = x$xname, ...)
  invisible(x)
}

#' Isotonic regression of y on x
#'
#' Fits a monotone step function of `x` to `y` by weighted least squares: a
#' superset of [stats::isoreg()] with weights, decreasing fits, bounds,
#' prediction and summaries, in linear time after sorting.
#'
#' The points are ordered by `x`, and tied `x` by decreasing `y` (by
#' increasing `y` for decreasing fits), as [stats::isoreg()] orders them.
#' Points with equal `x` are pooled into one point whose value is their
#' weighted mean and whose weight is the sum of theirs, so tied `x` always
#' get one fitted value (for unweighted increasing fits this is what
#' [stats::isoreg()]'s ordering gives too). The sort and the pooling run in
#' C, in one pass over the order. Zero weights are allowed and follow the
#' rule of [isotonic()]. With `precision = "single"` the values and weights
#' are rounded to float32 first, then pooled, and the pooled values rounded
#' again.
#'
#' @section Compatibility with stats::isoreg():
#' `x` and `y` are read by [grDevices::xy.coords()], as [stats::isoreg()]
#' reads them: two vectors, `y` alone (then `x` is the index), a list with
#' components `x` and `y`, a data frame or a matrix (the first two
#' columns). The result has the components of [stats::isoreg()]'s, with the
#' same types and values: `x`, `y`, `yf` (equal to rounding: gpuiso sums
#' more carefully), `yc`, `iKnots` (the same knots, found in linear time
#' instead of stats' quadratic walk: the points where the cumulative sum
#' diagram touches its greatest convex minorant, so a constant stretch of
#' the fit may hold several), `isOrd`, `ord` and `call`; it inherits from
#' class `"isoreg"`, so code written for stats' fits reads it. For weighted
#' fits `iKnots` is the same rule on the diagram of the cumulative weights
#' and weighted values; for decreasing fits, on the least concave majorant.
#'
#' @section On the GPU:
#' With `device = "gpu"` (or `"auto"` on large calls, see [isotonic()]) the
#' points are sorted by `x` and tied `x` by `y` on the device (two stable
#' radix sorts) and fitted there; the host adds stats' running sums and
#' knots. When `x` is in order already there is no sort to take over, and
#' `"auto"` fits on the CPU. Fits in float32 and fits with zero weights run
#' on the CPU (the `device` of the result says which engine fitted).
#'
#' @param x,y Coordinates of the points, as [stats::isoreg()] takes them:
#'   if `y` is `NULL`, `x` is the response and the abscissae are its index;
#'   a list with components `x` and `y`, a data frame or a matrix also
#'   works. Values must be finite (see `na.rm`).
#' @inheritParams isotonic
#' @param weights `NULL` or non-negative finite weights, one per point.
#' @param decreasing `FALSE` for a non-decreasing fit, `TRUE` for a
#'   non-increasing one, or `"auto"`: the direction of the sign of
#'   Spearman's rank correlation of `x` and `y` (non-decreasing when it is
#'   zero or undefined), as scikit-learn's `increasing = "auto"`.
#' @param na.rm `FALSE` (the default): a missing `x`, `y` or weight is an
#'   error. `TRUE`: such points are dropped before the fit (the result
#'   records which in `na.action`).
#' @return An object of class `c("gpuiso_isoreg", "isoreg")`: a list with
#'   \describe{
#'   \item{x, y}{the data, in the original order.}
#'   \item{yf}{the fitted values, in the order of increasing `x`.}
#'   \item{yc}{the cumulative sums of `y` in that order, starting at 0.}
#'   \item{iKnots}{the knots of the fit, as [stats::isoreg()] gives them:
#'     indices (in that order) of the points where the cumulative sum
#'     diagram touches its convex minorant; the last point of every block
#'     of the fit is one.}
#'   \item{isOrd}{`TRUE` when `x` was strictly increasing already (or was
#'     the index).}
#'   \item{ord}{the ordering of the points (`NULL` when `isOrd`).}
#'   \item{call}{the call.}
#'   \item{weights}{the weights, in the original order, or `NULL`.}
#'   \item{decreasing, device}{the direction and the engine used (`"cpu"`
#'     or `"gpu"`).}
#'   \item{precision}{`"double"` or `"single"`.}
#'   \item{y_min, y_max}{the bounds, or `NULL`.}
#'   \item{xname, yname}{the names of the variables, for labels.}
#'   \item{na.action}{the indices of the points dropped by `na.rm = TRUE`
#'     (class `"omit"`), or `NULL`.}
#'   \item{n_distinct}{the number of distinct `x`.}
#'   \item{blocks}{a data frame with one row per block of the fit (a
#'     maximal run of points with one fitted value, in the order of `x`):
#'     its first and last `x` (`from`, `to`), its fitted `value` and its
#'     total `weight` (its number of points when unweighted).}
#'   }
#' @seealso [predict.gpuiso_isoreg()] and [prediction] for evaluating the fit,
#'   [plot.gpuiso_isoreg()], [gpuiso_isoreg-methods];
#'   [isotonic()] for the plain operator.
#' @export
#' @examples
#' x <- c(1, 2, 2, 3, 5, 6)
#' y <- c(1, 3, 2, 2, 6, 5)
#' fit <- isoreg(x, y)
#' fit
#' fitted(fit)
#' predict(fit, c(0, 2.5, 4, 7))
#' predict(fit, c(0, 2.5, 4, 7), interpolation = "linear", out_of_bounds = "na")
#' plot(fit)
#'
#' # the components of stats::isoreg()
#' all.equal(unclass(fit)[1:7], unclass(stats::isoreg(x, y))[1:7])
#'
#' # weighted, decreasing, bounded
#' isoreg(x, -y, weights = c(1, 1, 2, 1, 1, 3), decreasing = TRUE)
#' isoreg(x, y, y_min = 2, y_max = 5)
#' isoreg(x, -y, decreasing = "auto")$decreasing
isoreg <- function(x, y = NULL, weights = NULL, decreasing = FALSE,
                   device = getOption("gpuiso.device", "auto"),
                   precision = c("double", "single"), y_min = NULL,
                   y_max = NULL, na.rm = FALSE) {
  call <- match.call()
  ecall <- sys.call()
  precision <- check_precision(precision, ecall)
  single <- precision == "single"
  check_flag(na.rm, "na.rm", ecall)
  bounds <- check_bounds(y_min, y_max, ecall)
  labels <- isoreg_labels(substitute(x), substitute(y), is.null(y))
  xy <- isoreg_coords(x, y, ecall)
  index <- !is.null(xy$xlab) && identical(xy$xlab, "Index")
  if (!is.null(xy$xlab) && !index && is_label(xy$xlab)) labels$x <- xy$xlab
  if (!is.null(xy$ylab) && is_label(xy$ylab)) labels$y <- xy$ylab
  yarg <- if (is.null(y)) "x" else "y"
  x <- xy$x
  y <- xy$y
  if (!is.null(weights)) {
    weights <- check_obs_weights(weights, y, yarg, ecall, na_ok = TRUE)
  }
  na_action <- NULL
  if (na.rm) {
    drop <- is.na(x) | is.na(y)
    if (!is.null(weights)) drop <- drop | is.na(weights)
    if (any(drop)) {
      keep <- which(!drop)
      na_action <- structure(which(drop), class = "omit")
      x <- x[keep]
      y <- y[keep]
      if (!is.null(weights)) weights <- weights[keep]
    }
  }
  if (!index) check_values(x, "x", ecall)
  check_values(y, yarg, ecall, single = single)
  w <- NULL
  if (!is.null(weights)) {
    w <- as_plain(check_values(weights, "weights", ecall, nonneg = TRUE,
                               single = single))
    check_some_weight(w, ecall)
  }
  decreasing <- resolve_direction(decreasing, x, y, ecall)
  is_ord <- index || !is.unsorted(x, strictly = TRUE)
  # x in order already leaves the GPU no sort to take over: "auto" stays on
  # the CPU (bench/isoreg-RESULTS.md)
  device <- resolve_device(if (is_ord && identical(device, "auto")) "cpu" else device,
                           length(y), ecall,
                           min_n = gpu_min_n(default = gpu_sort_min_n_default))

  res <- on_device(device,
    gpu = gpu_isoreg(x, y, w, decreasing, single),
    cpu = {
      # stats' order: by x, tied x by decreasing y (increasing y for
      # decreasing fits), so that tied x are pooled by the fit itself; the
      # C code orders the tied x of this fresh order(x) in place
      ord <- if (!is_ord) order(x, method = "radix")
      .Call(ffi_isoreg_fit, x, if (single) as_single(y) else y,
            if (single) as_single(w) else w, ord, decreasing, single,
            resolve_threads())
    })
  if (single && length(res$blocks$weight) && max(res$blocks$weight) > float32_max) {
    abort_input(paste0("`weights` of tied `x` must sum to at most 3.4e38 for ",
                       "`precision = \"single\"`."), ecall)
  }
  yf <- res$yf
  iknots <- res$iKnots
  blocks <- res$blocks
  if (!is.null(bounds)) {
    clipped <- clip_values(yf, bounds)
    iknots <- clip_knots(iknots, yf, clipped)
    yf <- clipped
    blocks <- merge_blocks(blocks, clip_values(blocks$value, bounds))
  }
  new_gpuiso_isoreg(list(
    x = x, y = y, yf = yf, yc = res$yc, iKnots = iknots, isOrd = is_ord,
    ord = if (!is_ord) res$ord, call = call, weights = w,
    decreasing = decreasing, device = res$device, precision = precision,
    y_min = bounds$y_min, y_max = bounds$y_max,
    xname = labels$x, yname = labels$y, na.action = na_action,
    n_distinct = res$distinct, blocks = new_frame(blocks)))
}

new_gpuiso_isoreg <- function(fields) {
  structure(fields, class = c("gpuiso_isoreg", "isoreg"))
}

# A data frame of fresh, valid columns of one length (data.frame() would
# check and copy them).
new_frame <- function(cols) {
  structure(cols, class = "data.frame",
            row.names = c(NA_integer_, -length(cols[[1L]])))
}

# Drop names and dims: the fit works on plain vectors.
as_plain <- function(x) {
  if (!is.null(attributes(x))) attributes(x) <- NULL
  x
}

# x and y as stats::isoreg() reads them (grDevices::xy.coords()), with the
# errors of this package for what cannot be numbers.
isoreg_coords <- function(x, y, call) {
  for (a in list(list(x, "x"), list(y, "y"))) {
    v <- a[[1L]]
    formula <- a[[2L]] == "x" && inherits(v, "formula")
    if (is.character(v) || is.factor(v) || is.function(v) ||
        is.list(v) && !is.data.frame(v) && a[[2L]] == "y" ||
        !(is.null(v) || is.atomic(v) || is.list(v) || formula)) {
      abort_input(sprintf("`%s` must be numeric, not %s.", a[[2L]],
                          describe_type(v)), call, arg = a[[2L]])
    }
  }
  if (!is.null(y) && is.atomic(x) && is.null(dim(x)) && is.atomic(y) &&
      is.null(dim(y))) {
    check_same_length(x, y, "x", "y", call)
  }
  # xy.coords() reads a formula `x` in its environment
  what <- if (inherits(x, "formula")) {
    sprintf(paste0("`x` is the formula `%s`, whose variables could not be ",
                   "found in its environment (`isoreg()` takes no `data`)"),
            deparse1(x))
  } else {
    sprintf("`x`%s could not be read as coordinates", if (is.null(y)) "" else " and `y`")
  }
  fail <- function(e) abort_input(paste0(what, ": ", conditionMessage(e)), call, arg = "x")
  tryCatch(grDevices::xy.coords(x, y, setLab = TRUE), error = fail, warning = fail)
}

# The variables' names, for printing and plotting (see variable_name()),
# "Index" for the abscissae of y alone.
isoreg_labels <- function(xexpr, yexpr, y_only) {
  if (y_only) list(x = "Index", y = variable_name(xexpr, "y"))
  else list(x = variable_name(xexpr, "x"), y = variable_name(yexpr, "y"))
}

# A label from xy.coords() that reads as a variable's name (not "$x", "[,1]").
is_label <- function(s) {
  is.character(s) && length(s) == 1L && !is.na(s) && nzchar(s) &&
    !grepl("^[[$]", s)
}

# The blocks of a fit (from, to, value, weight) with new values: the
# neighbours that became equal are merged.
merge_blocks <- function(b, value) {
  nb <- length(value)
  if (nb < 2L) return(list(from = b$from, to = b$to, value = value, weight = b$weight))
  first <- c(TRUE, value[-1L] != value[-nb])
  id <- cumsum(first)
  last <- c(first[-1L], TRUE)
  list(from = b$from[first], to = b$to[last], value = value[first],
       weight = as.vector(rowsum(b$weight, id, reorder = FALSE)))
}

# Knots of a clipped fit: a knot between two points that clipping made
# equal goes (the blocks pressed onto a bound are one block).
clip_knots <- function(iknots, yf, clipped) {
  n <- length(yf)
  k <- iknots[iknots < n]
  merged <- clipped[k] == clipped[k + 1L] &
    (yf[k] != clipped[k] | yf[k + 1L] != clipped[k + 1L])
  if (!any(merged)) return(iknots)
  iknots[!iknots %in% k[merged]]
}

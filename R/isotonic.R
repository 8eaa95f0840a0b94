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
#' @section Accuracy over the whole range of doubles:
#' Every fitted value is its block's exact weighted mean rounded to a
#' nearest double, to within \eqn{2^{-100}} of the block's
#' \eqn{\sum w_i |y_i| / \sum w_i} (which matters only where the block's sum
#' nearly cancels), for every finite `y` and every weight from the smallest
#' subnormal (5e-324) to the largest double, in any mix. Blocks are decided
#' by comparing their means on those sums, two means closer than
#' \eqn{2^{-80}} relative counting as equal (and pooled): exactly, except
#' where a block's sum nearly cancels, when means that differ by less than
#' the sums' own error (about \eqn{2^{-100}} of \eqn{\sum w_i |y_i| / \sum
#' w_i}) may be decided either way. Problems whose
#' nonzero values or weights all lie in \eqn{[2^{-200}, 2^{200}]} (about
#' 1e-60 to 1e60) take the fast pass; others are solved on values and
#' weights scaled by powers of two (exact) or, when they span more than
#' \eqn{2^{300}}, in wide-exponent arithmetic, several times slower. A mean
#' never overflows; a gradient of [isotonic_vjp()] beyond the range of
#' doubles is an error of class `gpuiso_error_overflow`.
#'
#' @section The GPU engine:
#' With `device = "gpu"`, or `"auto"` on large work where a GPU can be
#' used, the problems are solved on an NVIDIA GPU by merging lower convex
#' hulls of the cumulative sums in parallel (see [gpu_info()]). It follows
#' the same rules as the CPU engine: the same errors for bad input, the same
#' convention for zero weights, an exactly monotone fit, and in double
#' precision the same fit to about \eqn{10^{-10}} relative to \eqn{1 + |z|}.
#' Its sums are prefix sums of whole problems, exact to their rule only
#' inside \eqn{[2^{-200}, 2^{200}]}: a call with values or weights outside
#' that range is solved by the CPU engine instead.
#'
#' @param y The values: a numeric vector (one problem), or a numeric matrix
#'   whose columns are the problems. Integer and logical values are
#'   converted to double. Every value must be finite.
#' @param weights `NULL` (all weights one), or non-negative finite weights
#'   of the same shape as `y`; for a matrix `y`, also a vector with one
#'   weight per row, shared by all columns (a matrix of weights must have
#'   the dimensions of `y`).
#' @param device `"auto"`, `"cpu"` or `"gpu"`: which engine solves the
#'   problems. `"auto"` uses the GPU when one can be used and the call has
#'   at least `getOption("gpuiso.gpu_min_n")` elements in all, the CPU
#'   otherwise; `"gpu"` is an error when no GPU engine can be used (see
#'   [gpu_info()]). Defaults to `getOption("gpuiso.device", "auto")`.
#' @param groups `NULL`, or a vector with one label per element of a vector
#'   `y`: each distinct label is one problem (a ragged batch). The elements
#'   of a group keep their order; groups need not be contiguous.
#' @param precision `"double"` (the default) or `"single"`. With `"single"`
#'   the values and weights are rounded to float32 before the fit and the
#'   fitted values (and gradients) after it, on either device: about 7
#'   significant digits instead of 16, and half the data to move to and from
#'   a GPU. Values must then be at most 3.4e38 in magnitude, and positive
#'   weights above 7e-46 (smaller ones would round to zero). The CPU and the
#'   GPU solve the same rounded problem.
#' @param decreasing `FALSE` for a non-decreasing fit, `TRUE` for a
#'   non-increasing one, or `"auto"`: for each problem, the direction of the
#'   sign of Spearman's rank correlation of its values with their positions
#'   (non-decreasing when it is zero or undefined), as scikit-learn's
#'   `increasing = "auto"`. The directions chosen are returned as the
#'   attribute `"decreasing"` (one per problem, in the order of the
#'   problems; `NA` for a problem whose values `na.rm = TRUE` all left
#'   out).
#' @param y_min,y_max `NULL` (no bound) or a finite number: bounds on the
#'   fitted values. The least-squares fit under bounds is the unbounded fit
#'   clipped to them, exactly, and that is what is returned. `y_min = -Inf`
#'   and `y_max = Inf` are no bound; `y_min = Inf` and `y_max = -Inf` are
#'   errors.
#' @param na.rm `FALSE` (the default): a missing value in `y` or `weights`
#'   is an error. `TRUE`: the elements where either is missing are left out
#'   of their problems, and their fitted value is `NA`.
#' @return The fitted values, with the shape, names and dimnames of `y`.
#' @seealso [isoreg()] for the model with `x`, prediction and plots;
#'   [isotonic_vjp()] for gradients.
#' @export
#' @examples
#' y <- c(1, 3, 2, 4, 3.5, 5)
#' isotonic(y)
#' isotonic(y, weights = c(1, 1, 5, 1, 1, 1))
#' isotonic(y, decreasing = TRUE)
#' isotonic(y / 3, precision = "single") # float32: about 7 digits
#'
#' # one problem per column
#' m <- cbind(a = c(3, 1, 2), b = c(1, 3, 2))
#' isotonic(m)
#'
#' # ragged problems
#' isotonic(c(2, 1, 5, 4, 3), groups = c("u", "u", "v", "v", "v"))
#'
#' # bounds, missing values, the direction from the data
#' isotonic(y, y_min = 2, y_max = 4)
#' isotonic(c(1, NA, 3, 2), na.rm = TRUE)
#' isotonic(rev(y), decreasing = "auto")
isotonic <- function(y, weights = NULL, decreasing = FALSE,
                     device = getOption("gpuiso.device", "auto"),
                     groups = NULL, precision = c("double", "single"),
                     y_min = NULL, y_max = NULL, na.rm = FALSE) {
  # One plain vector in double on the CPU, the commonest call: validated and
  # fitted in C at once (every argument checked there, see
  # ffi_isotonic_quick(): a test in R costs as much as a short fit), the full
  # path below only when something needs preparing or is wrong. A missing
  # precision is passed as "double", its default's first choice, without
  # evaluating c("double", "single") (0.16 us of a 7 us call); a missing
  # device unevaluated, for C to read options(gpuiso.device) (getOption()
  # costs 0.85 us in R).
  fit <- .Call(ffi_isotonic_quick, y, weights, decreasing,
               if (missing(precision)) "double" else precision, na.rm,
               if (missing(device)) NULL else device, missing(device),
               groups, y_min, y_max)
  if (is.double(fit)) return(fit)
  if (!is.null(fit)) gpu_min_n() # FALSE: device "auto", an invalid option
  call <- sys.call()
  if (length(dim(y)) > 2L) {
    abort_input(sprintf("`y` must be a vector or a matrix, not an array of %.0f dimensions.",
                        length(dim(y))), call, arg = "y")
  }
  precision <- check_precision(precision, call)
  check_flag(na.rm, "na.rm", call)
  bounds <- check_bounds(y_min, y_max, call)
  if (na.rm && has_missing(y, weights)) {
    return(isotonic_present(y, weights, decreasing, device, groups, precision,
                            bounds, call))
  }
  layout <- layout_problems(y, weights, groups, call,
                            single = precision == "single")
  auto <- identical(decreasing, "auto")
  dirs <- if (!auto) resolve_direction(decreasing, NULL, NULL, call)
  device <- resolve_device(device, length(layout$y), call,
                           nprob = length(layout$offsets) - 1L)
  if (auto) dirs <- problem_directions(layout)
  fit <- if (length(unique(dirs)) <= 1L) {
    engine_fit(layout$y, layout$w, layout$offsets, isTRUE(dirs[1L]),
               device = device, precision = precision)$fit
  } else {
    fit_both_directions(layout, dirs, device, precision)
  }
  out <- restore_shape(clip_values(fit, bounds), layout, y)
  if (auto) attr(out, "decreasing") <- dirs
  out
}

# decreasing = "auto": the direction of each problem of a layout, the sign
# of Spearman's correlation of its values with their positions.
problem_directions <- function(layout) {
  off <- layout$offsets
  vapply(seq_len(length(off) - 1L), function(b) {
    v <- layout$y[seq.int(off[b] + 1, length.out = off[b + 1L] - off[b])]
    spearman_negative(seq_along(v), v)
  }, logical(1))
}

# A batch whose problems go both ways: two engine calls, one per direction.
fit_both_directions <- function(layout, dirs, device, precision) {
  off <- layout$offsets
  fit <- numeric(length(layout$y))
  for (d in c(FALSE, TRUE)) {
    b <- which(dirs == d)
    len <- off[b + 1L] - off[b]
    idx <- sequence(len, from = off[b] + 1)
    res <- engine_fit(layout$y[idx], if (!is.null(layout$w)) layout$w[idx],
                      c(0, cumsum(len)), d, device = device,
                      precision = precision)
    fit[idx] <- res$fit
  }
  fit
}

has_missing <- function(y, weights) {
  (is.numeric(y) || is.logical(y)) && anyNA(y) ||
    (is.numeric(weights) || is.logical(weights)) && anyNA(weights)
}

# na.rm = TRUE with missing values: the fit of the elements present (with
# their weights, in their problems), NA where y or its weight is missing.
isotonic_present <- function(y, weights, decreasing, device, groups,
                             precision, bounds, call) {
  check_values_or_na(y, "y", call)
  n <- length(y)
  w <- if (!is.null(weights)) check_values_or_na(weights, "weights", call, nonneg = TRUE)
  if (is.matrix(y) && !is.null(w) && !is.matrix(weights) && length(w) == nrow(y) &&
      length(w) != n) {
    w <- rep.int(as.vector(w), ncol(y))
  }
  check_weights_shape(weights, y, call)
  if (!is.null(w) && length(w) != n) check_weights(weights, y, call)
  keep <- !is.na(y)
  if (!is.null(w)) keep <- keep & !is.na(w)
  refuse_groups_of_matrix(y, groups, call)
  if (is.matrix(y) && !is.null(w)) {
    # a column whose kept weights are all zero, named as the full path names it
    kk <- matrix(keep, nrow(y))
    bad <- which(colSums(kk) > 0 & colSums(kk & matrix(w > 0, nrow(y))) == 0)
    if (length(bad)) {
      abort_input(sprintf(paste0("`weights` must not all be zero within a problem: ",
                                 "those of column %.0f are all zero."), bad[1L]),
                  call, arg = "weights", position = bad[1L])
    }
  }
  g <- if (!is.null(groups)) {
    check_label_vector(groups, n, "y", "element of `y`", call)
  } else if (is.matrix(y)) {
    paste("column", col(y))
  }
  fit <- isotonic(as.vector(y)[keep], if (!is.null(w)) as.vector(w)[keep],
                  decreasing = decreasing, device = device,
                  groups = if (!is.null(g)) g[keep], precision = precision,
                  y_min = bounds$y_min, y_max = bounds$y_max)
  out <- rep(NA_real_, n)
  out[keep] <- fit
  out <- restore_shape(out, list(perm = NULL), y)
  dirs <- attr(fit, "decreasing")
  if (!is.null(dirs) && !is.null(g)) {
    # one direction per problem of y, in the order of y's problems: NA for
    # a problem whose values are all missing
    all <- unique(g)
    d <- rep(NA, length(all))
    d[match(unique(g[keep]), all)] <- dirs
    dirs <- d
  }
  if (!is.null(dirs)) attr(out, "decreasing") <- dirs
  out
}

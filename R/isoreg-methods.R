#' Methods for isotonic regression fits
#'
#' `fitted()` and `residuals()` return values in the order of the data.
#' `summary()` reports the size of the fit, its blocks and its weighted
#' residual sum of squares. `as.stepfun()` returns the fitted step function
#' with the convention of `as.stepfun()` on a [stats::isoreg()] fit: between two distinct
#' `x` the value is that of the next one (steps are closed on the right).
#'
#' @param object,x A fit from [isoreg()].
#' @param digits Significant digits to print.
#' @param ... Unused.
#' @return `fitted()`, `residuals()`: numeric vectors. `summary()`: an object
#'   of class `"summary.gpuiso_isoreg"`. `as.stepfun()`: a `"stepfun"`.
#' @name gpuiso_isoreg-methods
#' @examples
#' fit <- isoreg(c(1, 2, 3, 4, 5), c(1, 3, 2, 5, 4))
#' summary(fit)
#' residuals(fit)
#' f <- as.stepfun(fit)
#' f(c(1, 2.5, 5))
NULL

#' @rdname gpuiso_isoreg-methods
#' @export
fitted.gpuiso_isoreg <- function(object, ...) {
  if (object$isOrd) return(object$yf)
  out <- numeric(length(object$yf))
  out[object$ord] <- object$yf
  out
}

#' @rdname gpuiso_isoreg-methods
#' @export
residuals.gpuiso_isoreg <- function(object, ...) {
  object$y - fitted(object)
}

#' @rdname gpuiso_isoreg-methods
#' @export
print.gpuiso_isoreg <- function(x, digits = getOption("digits"), ...) {
  cat("Isotonic regression (", describe_fit(x), ") from ",
      paste(deparse(x$call), collapse = " "), "\n", sep = "")
  cat("  ", format(length(x$y)), " points, ", format(nrow(x$knots)),
      " distinct x, ", format(length(x$iKnots)), " blocks\n", sep = "")
  if (length(x$yf) > 0L) {
    rng <- range(x$yf)
    cat("  fitted values from ", format(rng[1L], digits = digits), " to ",
        format(rng[2L], digits = digits), "\n", sep = "")
  }
  invisible(x)
}

describe_fit <- function(x) {
  paste0(if (x$decreasing) "decreasing" else "increasing",
         if (!is.null(x$weights)) ", weighted", ", ", x$device,
         if (identical(x$precision, "single")) ", float32")
}

#' @rdname gpuiso_isoreg-methods
#' @export
summary.gpuiso_isoreg <- function(object, ...) {
  w <- if (is.null(object$weights)) rep(1, length(object$y)) else object$weights
  r <- residuals(object)
  blocks <- block_table(object$knots)
  structure(list(call = object$call, n = length(object$y),
                 n_distinct = nrow(object$knots), n_blocks = nrow(blocks),
                 rss = sum(w * r^2), weighted = !is.null(object$weights),
                 decreasing = object$decreasing, device = object$device,
                 precision = object$precision,
                 residuals = if (length(r)) stats::quantile(r, names = TRUE),
                 blocks = blocks),
            class = "summary.gpuiso_isoreg")
}

#' @rdname gpuiso_isoreg-methods
#' @export
print.summary.gpuiso_isoreg <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  cat("Isotonic regression (", if (x$decreasing) "decreasing" else "increasing",
      if (x$weighted) ", weighted", ") on the ", x$device,
      if (identical(x$precision, "single")) " in float32", "\n", sep = "")
  cat("Call: ", paste(deparse(x$call), collapse = " "), "\n\n", sep = "")
  cat(format(x$n), " points, ", format(x$n_distinct), " distinct x, ",
      format(x$n_blocks), " blocks\n", sep = "")
  cat(if (x$weighted) "Weighted residual" else "Residual",
      " sum of squares: ", format(x$rss, digits = digits), "\n", sep = "")
  if (x$n > 0L) {
    cat("\nResiduals:\n")
    print(x$residuals, digits = digits)
    cat("\nBlocks", if (nrow(x$blocks) > 10L) " (first 10)", ":\n", sep = "")
    print(utils::head(x$blocks, 10L), digits = digits, row.names = FALSE)
  }
  invisible(x)
}

#' @rdname gpuiso_isoreg-methods
#' @export
as.stepfun.gpuiso_isoreg <- function(x, ...) {
  k <- x$knots
  if (nrow(k) == 0L) stop("cannot make a step function of an empty fit")
  end <- block_ends(k)
  sf <- stats::stepfun(k$x[end], c(k$fit[end], k$fit[nrow(k)]), right = TRUE)
  attr(sf, "call") <- x$call
  sf
}

#' @rdname gpuiso_isoreg-methods
#' @export
nobs.gpuiso_isoreg <- function(object, ...) length(object$y)

# Rows of the table of distinct x (`knots`) where a block of the fit ends:
# neighbouring distinct x with equal fitted values are one block.
block_ends <- function(k) {
  if (nrow(k) == 0L) return(integer())
  c(which(diff(k$fit) != 0), nrow(k))
}

# One row per block of the fit: its x range, value and total weight.
block_table <- function(k) {
  end <- block_ends(k)
  first <- utils::head(c(1L, end + 1L), length(end))
  id <- rep.int(seq_along(end), end - first + 1L)
  data.frame(from = k$x[first], to = k$x[end], value = k$fit[end],
             weight = as.vector(rowsum(k$w, id, reorder = FALSE)))
}

#' Methods for isotonic regression fits
#'
#' `fitted()` and `residuals()` return values in the order of the data.
#' `summary()` reports the size of the fit, its blocks and its weighted
#' residual sum of squares. `as.stepfun()` returns the fitted step function
#' with the convention of `as.stepfun()` on a [stats::isoreg()] fit: between
#' two distinct `x` the value is that of the next one (steps are closed on
#' the right); `knots()` gives the `x` where it may step. `logLik()` is the
#' Gaussian log-likelihood of the fit as [stats::lm()] defines it (weights
#' as precisions), with the number of blocks of the fit (the number of
#' distinct fitted values, which estimates the degrees of freedom of an
#' isotonic fit) plus one for the variance as its `df`, so that [AIC()] and
#' [BIC()] work. `deviance()` is the weighted residual sum of squares,
#' `nobs()` the number of points of positive weight. An isotonic fit has no
#' coefficients: `coef()` is an error that says what to use.
#'
#' @param object,x,Fn A fit from [isoreg()].
#' @param digits Significant digits to print: a whole number from 1 to 22
#'   (`NULL` for the default).
#' @param ... Not used: an argument a method does not take is an error.
#' @return `fitted()`, `residuals()`, `knots()`: numeric vectors.
#'   `summary()`: an object of class `"summary.gpuiso_isoreg"`.
#'   `as.stepfun()`: a `"stepfun"`. `logLik()`: a `"logLik"` object.
#'   `deviance()`, `nobs()`: numbers.
#' @name gpuiso_isoreg-methods
#' @examples
#' fit <- isoreg(c(1, 2, 3, 4, 5), c(1, 3, 2, 5, 4))
#' summary(fit)
#' residuals(fit)
#' f <- as.stepfun(fit)
#' f(c(1, 2.5, 5))
#' knots(fit)
#' logLik(fit)
#' AIC(fit)
NULL

#' @rdname gpuiso_isoreg-methods
#' @export
fitted.gpuiso_isoreg <- function(object, ...) {
  check_dots(..., fn = "fitted()")
  if (object$isOrd) return(object$yf)
  out <- numeric(length(object$yf))
  out[object$ord] <- object$yf
  out
}

#' @rdname gpuiso_isoreg-methods
#' @export
residuals.gpuiso_isoreg <- function(object, ...) {
  check_dots(..., fn = "residuals()")
  object$y - fitted(object)
}

#' @rdname gpuiso_isoreg-methods
#' @export
print.gpuiso_isoreg <- function(x, digits = getOption("digits"), ...) {
  check_dots(..., fn = "print()")
  digits <- check_digits(digits, sys.call(), getOption("digits"))
  cat("Isotonic regression (", describe_fit(x), ") from ",
      format_call(x$call), "\n", sep = "")
  cat("  ", count_noun(length(x$y), "point"), ", ",
      format(x$n_distinct), " distinct ", x$xname %||% "x", ", ",
      count_noun(nrow(x$blocks), "block"), "\n", sep = "")
  if (length(x$yf) > 0L) {
    rng <- range(x$yf)
    cat("  fitted values from ", format(rng[1L], digits = digits), " to ",
        format(rng[2L], digits = digits), describe_bounds(x, digits), "\n",
        sep = "")
  }
  if (length(x$na.action)) {
    cat("  (", count_noun(length(x$na.action), "point"),
        " with missing values dropped)\n", sep = "")
  }
  invisible(x)
}

describe_fit <- function(x) {
  paste0(if (x$decreasing) "decreasing" else "increasing",
         if (!is.null(x$weights)) ", weighted", ", ", x$device,
         if (identical(x$precision, "single")) ", float32")
}

describe_bounds <- function(x, digits) {
  lo <- x$y_min
  hi <- x$y_max
  if (is.null(lo) && is.null(hi)) return("")
  fmt <- function(v) format(v, digits = digits)
  paste0(" (bounded ",
         if (!is.null(lo) && !is.null(hi)) paste0("to [", fmt(lo), ", ", fmt(hi), "]")
         else if (!is.null(lo)) paste0("below by ", fmt(lo))
         else paste0("above by ", fmt(hi)), ")")
}

#' @rdname gpuiso_isoreg-methods
#' @export
summary.gpuiso_isoreg <- function(object, ...) {
  check_dots(..., fn = "summary()")
  w <- if (is.null(object$weights)) rep(1, length(object$y)) else object$weights
  r <- residuals(object)
  blocks <- object$blocks
  structure(list(call = object$call, n = length(object$y),
                 n_distinct = object$n_distinct, n_blocks = nrow(blocks),
                 rss = sum(w * r^2), weighted = !is.null(object$weights),
                 decreasing = object$decreasing, device = object$device,
                 precision = object$precision, xname = object$xname %||% "x",
                 residuals = if (length(r)) stats::quantile(r, names = TRUE),
                 blocks = blocks),
            class = "summary.gpuiso_isoreg")
}

#' @rdname gpuiso_isoreg-methods
#' @export
print.summary.gpuiso_isoreg <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  check_dots(..., fn = "print()")
  digits <- check_digits(digits, sys.call(), max(3L, getOption("digits") - 3L))
  cat("Isotonic regression (", if (x$decreasing) "decreasing" else "increasing",
      if (x$weighted) ", weighted", ") on the ", x$device,
      if (identical(x$precision, "single")) " in float32", "\n", sep = "")
  cat("Call: ", format_call(x$call), "\n\n", sep = "")
  cat(count_noun(x$n, "point"), ", ", format(x$n_distinct), " distinct ",
      x$xname %||% "x", ", ", count_noun(x$n_blocks, "block"), "\n", sep = "")
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
  check_dots(..., fn = "as.stepfun()")
  b <- x$blocks
  nb <- nrow(b)
  if (nb == 0L) {
    abort_input("An empty fit has no step function.", sys.call())
  }
  sf <- stats::stepfun(b$to, c(b$value, b$value[nb]), right = TRUE)
  attr(sf, "call") <- x$call
  sf
}

#' @rdname gpuiso_isoreg-methods
#' @export
knots.gpuiso_isoreg <- function(Fn, ...) {
  check_dots(..., fn = "knots()")
  Fn$blocks$to
}

#' @rdname gpuiso_isoreg-methods
#' @export
nobs.gpuiso_isoreg <- function(object, ...) {
  check_dots(..., fn = "nobs()")
  if (is.null(object$weights)) length(object$y) else sum(object$weights != 0)
}

#' @rdname gpuiso_isoreg-methods
#' @export
deviance.gpuiso_isoreg <- function(object, ...) {
  check_dots(..., fn = "deviance()")
  r <- residuals(object)
  if (is.null(object$weights)) sum(r^2) else sum(object$weights * r^2)
}

#' @rdname gpuiso_isoreg-methods
#' @export
logLik.gpuiso_isoreg <- function(object, ...) {
  check_dots(..., fn = "logLik()")
  r <- residuals(object)
  w <- if (is.null(object$weights)) rep(1, length(r)) else object$weights
  pos <- w > 0
  n <- sum(pos)
  ll <- 0.5 * (sum(log(w[pos])) -
                 n * (log(2 * pi) + 1 - log(n) + log(sum(w[pos] * r[pos]^2))))
  structure(ll, df = nrow(object$blocks) + 1, nobs = n,
            class = "logLik")
}

#' @rdname gpuiso_isoreg-methods
#' @export
coef.gpuiso_isoreg <- function(object, ...) not_applicable(
  "An isotonic regression has no coefficients: its fit is a step function. Use `fitted()`, ",
  "`knots()`, `as.stepfun()` or `predict()`.")

# Multiclass calibration: iso_calibrate() of a matrix of class scores and a
# factor of the classes fits one curve per class, one-vs-rest, as one
# grouped calibration, and renormalises the calibrated probabilities.

calibrate_multiclass <- function(scores, outcomes, weights, device, y_min, y_max,
                                 names, call, ecall) {
  s <- check_values(if (is.data.frame(scores)) as.matrix(scores) else scores, "scores", ecall)
  if (!is.factor(outcomes)) {
    abort_input(paste0("`outcomes` must be a factor of the classes when `scores` has ",
                       "one column per class, not ", describe_type(outcomes), "."), ecall)
  }
  lev <- levels(outcomes)
  if (ncol(s) != length(lev) || length(lev) < 2L) {
    abort_input(sprintf(paste0("`scores` must have one column per level of `outcomes`: ",
                               "it has %d columns for %d levels."), ncol(s), length(lev)),
                ecall)
  }
  s <- class_columns(s, lev, "scores", ecall)
  if (nrow(s) != length(outcomes)) {
    abort_input(sprintf(paste0("`scores` must have one row per outcome: it has %.0f rows, ",
                               "`outcomes` has length %.0f."), nrow(s), length(outcomes)),
                ecall)
  }
  if (anyNA(outcomes)) {
    pos <- which(is.na(outcomes))[1L]
    abort_input(sprintf("`outcomes` must not be missing here: element %.0f is %s.", pos,
                        describe_value(outcomes[[pos]])), ecall, arg = "outcomes")
  }
  n <- nrow(s)
  k <- length(lev)
  if (!is.null(weights)) weights <- check_obs_weights(weights, s[, 1L], "scores", ecall)
  v <- list(outcomes = as.numeric(rep(unclass(outcomes), k) == rep(seq_len(k), each = n)),
            scores = as.vector(s), weights = if (!is.null(weights)) rep(weights, k),
            groups = factor(rep(lev, each = n), levels = lev),
            names = c(outcome = names[["outcome"]], score = names[["score"]], group = "class"),
            row_names = NULL)
  fit <- fit_calibration(v, stats::na.fail, y_min, y_max, device, call, ecall)
  structure(list(binary = fit, levels = lev, n = n,
                 nobs = if (is.null(weights)) n else sum(weights != 0),
                 variables = names, call = call),
            class = "gpuiso_calibration_multiclass")
}

# The columns of a score matrix in the order of the classes: by name where
# the columns are named, else as they stand.
class_columns <- function(s, lev, arg, call) {
  cn <- colnames(s)
  if (is.null(cn)) return(s)
  if (!setequal(cn, lev) || anyDuplicated(cn)) {
    abort_input(sprintf("The columns of `%s` must be named by the classes (%s), or not named.",
                        arg, paste(encodeString(lev, quote = "\""), collapse = ", ")), call)
  }
  s[, lev, drop = FALSE]
}

#' Multiclass isotonic calibration
#'
#' What [iso_calibrate()] returns for a matrix (or data frame) of class
#' scores and a factor of the classes: one isotonic curve per class for the
#' event "this class" on its own column (one-vs-rest), the calibrated
#' probabilities of a row its curves' values divided by their sum (`1 / K`
#' each where all are zero).
#'
#' @param object,x A `"gpuiso_calibration_multiclass"` object.
#' @param newdata New scores: a matrix or data frame of one column per
#'   class (named by the classes, or in their order); omitted, the scores
#'   of the fit.
#' @param ... Arguments of [predict.gpuiso_calibration()] for the curves
#'   (`interpolation`, `out_of_bounds`); for `plot()`, graphical parameters
#'   and arguments of [plot.gpuiso_calibration()] (`interpolation`), given
#'   to every panel; for `print()`, `summary()`, `fitted()` and `nobs()`
#'   nothing: an argument is an error that names it.
#' @param class For `plot()`, the classes to draw (labels or numbers; all
#'   by default), a panel each.
#' @param mfrow For `plot()`, the panels' layout as [par()] takes it;
#'   `NULL` for a near-square grid.
#' @return `predict()` and `fitted()`: a matrix of calibrated probabilities,
#'   one row per score row and one column per class, rows summing to 1.
#'   `nobs()`: the number of rows of non-zero weight. `summary()`: the
#'   summary of the one-vs-rest curves, a group per class (see
#'   [summary.gpuiso_calibration()]). `print()` and `plot()`: `x`,
#'   invisibly. `coef()`, `residuals()` and `logLik()` do not apply: each is
#'   an error that says what to use instead.
#' @export
#' @examples
#' set.seed(4)
#' n <- 3000
#' cls <- factor(sample(c("a", "b", "c"), n, TRUE))
#' raw <- matrix(runif(3 * n), n, dimnames = list(NULL, levels(cls)))
#' raw[cbind(seq_len(n), as.integer(cls))] <- raw[cbind(seq_len(n), as.integer(cls))] + 0.5
#' raw <- raw / rowSums(raw)
#' cal <- iso_calibrate(raw, cls)
#' cal
#' head(predict(cal, raw[1:5, ]))
#' rowSums(head(fitted(cal)))
predict.gpuiso_calibration_multiclass <- function(object, newdata, ...) {
  call <- sys.call()
  lev <- object$levels
  k <- length(lev)
  if (missing(newdata) || is.null(newdata)) {
    check_dots(..., fn = "predict()")
    p <- matrix(stats::fitted(object$binary), object$n, k)
  } else {
    nd <- if (is.data.frame(newdata)) as.matrix(newdata) else newdata
    if (!is.matrix(nd)) nd <- matrix(nd, nrow = 1L, dimnames = list(NULL, names(nd)))
    if (ncol(nd) != k) {
      abort_input(sprintf("`newdata` must have one column per class (%d), not %d.",
                          k, ncol(nd)), call)
    }
    nd <- class_columns(nd, lev, "newdata", call)
    p <- vapply(seq_len(k), function(j) {
      stats::predict(object$binary, as.vector(nd[, j]), groups = lev[[j]], ...)
    }, numeric(nrow(nd)))
    if (!is.matrix(p)) p <- matrix(p, nrow = nrow(nd))
  }
  tot <- rowSums(p)
  p <- p / tot
  p[!is.na(tot) & tot == 0, ] <- 1 / k
  colnames(p) <- lev
  p
}

#' @rdname predict.gpuiso_calibration_multiclass
#' @export
fitted.gpuiso_calibration_multiclass <- function(object, ...) {
  check_dots(..., fn = "fitted()")
  stats::predict(object)
}

#' @rdname predict.gpuiso_calibration_multiclass
#' @export
nobs.gpuiso_calibration_multiclass <- function(object, ...) {
  check_dots(..., fn = "nobs()")
  if (is.null(object$nobs)) object$n else object$nobs
}

#' @rdname predict.gpuiso_calibration_multiclass
#' @export
summary.gpuiso_calibration_multiclass <- function(object, ...) {
  check_dots(..., fn = "summary()")
  summary(object$binary)
}

#' @rdname predict.gpuiso_calibration_multiclass
#' @export
plot.gpuiso_calibration_multiclass <- function(x, class = NULL, ..., mfrow = NULL) {
  call <- sys.call()
  lev <- x$levels
  if (is.null(class)) class <- lev
  k <- if (is.numeric(class)) class else match(as.character(class), lev)
  if (!length(k) || anyNA(k) || any(k < 1 | k > length(lev) | k != trunc(k))) {
    abort_input(sprintf("`class` must name classes of the fit (%s), by label or number.",
                        paste(encodeString(lev, quote = "\""), collapse = ", ")),
                call, arg = "class")
  }
  if (is.null(mfrow)) mfrow <- grDevices::n2mfrow(length(k))
  op <- graphics::par(mfrow = mfrow)
  on.exit(graphics::par(op))
  for (j in k) {
    graphics::plot(x$binary, group = lev[[j]], main = sprintf("class %s", lev[[j]]), ...)
  }
  invisible(x)
}

#' @rdname predict.gpuiso_calibration_multiclass
#' @export
coef.gpuiso_calibration_multiclass <- function(object, ...) not_applicable(
  "`coef()` does not apply to an isotonic calibration: its curves have no coefficients. ",
  "Use `x$binary$curves` for the fitted scores and calibrated values of each class, or ",
  "`predict()` to evaluate them.")

#' @rdname predict.gpuiso_calibration_multiclass
#' @export
residuals.gpuiso_calibration_multiclass <- function(object, ...) not_applicable(
  "`residuals()` does not apply to a multiclass calibration: its fit is a matrix of class ",
  "probabilities. Compare `fitted()` with the classes' indicators, or use the one-vs-rest ",
  "curves' residuals, `residuals(x$binary)`.")

#' @rdname predict.gpuiso_calibration_multiclass
#' @export
logLik.gpuiso_calibration_multiclass <- function(object, ...) not_applicable(
  "`logLik()` does not apply to an isotonic calibration: its curves are least-squares step ",
  "functions, with no likelihood and no count of parameters. Score `predict()` on new data ",
  "with a proper score instead.")

#' @rdname predict.gpuiso_calibration_multiclass
#' @export
print.gpuiso_calibration_multiclass <- function(x, ...) {
  check_dots(..., fn = "print()")
  cat(sprintf("Isotonic multiclass calibration (one-vs-rest) of %s on %s\n",
              x$variables[["outcome"]], x$variables[["score"]]))
  cat(sprintf("  %s, %s: %s\n", count_noun(x$n, "row"), count_noun(length(x$levels), "class", "classes"),
              paste(x$levels, collapse = ", ")))
  steps <- vapply(x$binary$curves, function(cv) length(unique(cv$value)), 0)
  cat(sprintf("  steps per class: %s\n", paste(steps, collapse = ", ")))
  invisible(x)
}

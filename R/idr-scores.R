#' Evaluate IDR predictions: CDF, quantiles and scores
#'
#' The functions of the 'isodistrreg' package, with the same names and
#' meanings, for predictions from [predict.gpuiso_idr()] (or a fit from
#' [idr()], which stands for its in-sample predictions; then `y` may be
#' left out and defaults to the observations of the fit).
#'
#' A predictive CDF is a right-continuous step function: 0 below the first
#' threshold \eqn{t_1}, \eqn{G_k} on \eqn{[t_k, t_{k+1})} and 1 from the
#' last threshold on.
#' * `cdf()`: \eqn{G} at the given thresholds.
#' * `qpred()`: the lower quantiles \eqn{q(\alpha) = \min\{t_k : G_k \ge
#'   \alpha\}}{q(a) = min(t_k : G_k >= a)}; for \eqn{\alpha = 0}, the
#'   smallest threshold of positive probability.
#' * `crps()`: the continuous ranked probability score
#'   \eqn{\int (G(z) - 1\{z \ge y\})^2 dz}, computed for the step
#'   function in \eqn{O((B + n) \log m)} for \eqn{B} blocks and \eqn{n}
#'   predictions (not one pass over the thresholds per prediction), to
#'   within a few units of rounding of the spread of the thresholds and
#'   observations. Thresholds and observations may lie anywhere in the
#'   finite range: where they spread over more than the range of doubles,
#'   the score is computed on them scaled by a power of two. A CRPS larger
#'   than the largest double is an error of class
#'   `"gpuiso_error_overflow"`.
#' * `pit()`: the probability integral transform \eqn{G(y)}; with
#'   `randomize = TRUE`, at a jump of the CDF a uniform draw between the left
#'   limit \eqn{G(y-)} and \eqn{G(y)}.
#' * `bscore()`: the Brier score \eqn{(G(z) - 1\{y \le z\})^2} of the
#'   probability \eqn{G(z)} of not exceeding each threshold \eqn{z}.
#' * `qscore()`: the quantile score \eqn{2 (1\{q > y\} - \alpha)(q - y)} of
#'   each quantile forecast \eqn{q = q(\alpha)} (also where \eqn{q - y}
#'   exceeds the largest double; a score that does is an error of class
#'   `"gpuiso_error_overflow"`).
#'
#' Missing predictions (from missing covariate values, `out_of_bounds =
#' "na"`, an index beyond the last in `pred[i]`, or rows left out by
#' [na.exclude()]) give `NA` rows and values, and so does a missing
#' observation in `y`.
#'
#' @param predictions Predictions from [predict.gpuiso_idr()], or a fit from
#'   [idr()] for its in-sample predictions.
#' @param thresholds Numeric thresholds (not `NA`).
#' @param quantiles Probabilities in \[0, 1\].
#' @param y Observations: numbers (finite, or `NA` for a missing one), one
#'   per prediction or one for all (for `pit()`, one per prediction).
#' @param randomize For `pit()`: randomise at jumps of the CDF?
#' @param seed For `pit()`: `NULL`, or a seed passed to [set.seed()] before
#'   the draws (a whole number that an integer holds).
#' @return `cdf()`, `qpred()`, `bscore()` and `qscore()`: a matrix with one
#'   row per prediction and one column per threshold or quantile, whose
#'   column names are the thresholds or quantiles (or their names) and
#'   whose row names are the names of the predictions (those of the new
#'   data, see [predict.gpuiso_idr()]), or `NULL`. `crps()` and `pit()`: a
#'   vector, one value per prediction, with the names of the predictions.
#' @references
#' Gneiting, T. and Raftery, A. E. (2007). Strictly proper scoring rules,
#' prediction, and estimation. *Journal of the American Statistical
#' Association*, 102(477), 359--378. \doi{10.1198/016214506000001437}
#' @seealso [pit_hist()] to draw PIT values.
#' @name idr-evaluation
#' @examples
#' fit <- idr(Ozone ~ Temp, data = airquality)
#' pred <- predict(fit, c(cool = 60, mild = 75, hot = 90))
#' cdf(pred, c(25, 50, 100))
#' qpred(pred, c(0.1, 0.5, 0.9))
#' crps(pred, c(10, 40, 90))
#' bscore(pred, 50, c(10, 40, 90))
#' qscore(pred, 0.5, c(10, 40, 90))
#' mean(crps(fit))                     # in-sample
#' pit_hist(pit(fit, seed = 1))
NULL

#' @rdname idr-evaluation
#' @export
cdf <- function(predictions, thresholds) {
  call <- sys.call()
  p <- as_idr_pred(predictions, call)
  z <- idr_numbers(thresholds, "thresholds", call)
  idr_cdf_matrix(p, z, idr_labels(thresholds))
}

# The CDFs of predictions p (unclassed) at thresholds z: a matrix, NA rows
# for missing predictions.
idr_cdf_matrix <- function(p, z, labels) {
  out <- idr_matrix(p, labels)
  if (!length(z)) return(out)
  for (part in idr_pred_parts(p)) {
    ok <- part$rows[!is.na(p$j[part$rows])]
    if (!length(ok)) next
    f <- part$fit
    kz <- findInterval(z, f$thresholds) - 1L
    out[ok, ] <- .Call(ffi_idr_cdf, f$ptr, f$start, f$value, idr_npoints(f), p$j[ok],
                       p$lambda[ok], as.integer(kz), FALSE)
  }
  out
}

# An NA matrix, one row per prediction (named as they are), one column per
# label.
idr_matrix <- function(p, labels) {
  matrix(NA_real_, length(p$j), length(labels),
         dimnames = list(p$names, labels))
}

# Column labels: the names of the thresholds or quantiles, else their
# values.
idr_labels <- function(v) {
  if (!is.null(names(v))) return(names(v))
  as.character(v)
}

#' @rdname idr-evaluation
#' @export
qpred <- function(predictions, quantiles) {
  call <- sys.call()
  p <- as_idr_pred(predictions, call)
  a <- idr_probabilities(quantiles, call)
  idr_quantile_matrix(p, a, idr_labels(quantiles))
}

idr_quantile_matrix <- function(p, a, labels) {
  out <- idr_matrix(p, labels)
  if (!length(a)) return(out)
  for (part in idr_pred_parts(p)) {
    ok <- part$rows[!is.na(p$j[part$rows])]
    if (!length(ok)) next
    f <- part$fit
    out[ok, ] <- .Call(ffi_idr_qpred, f$ptr, f$start, f$value, idr_npoints(f),
                       f$thresholds, p$j[ok], p$lambda[ok], a)
  }
  out
}

#' @rdname idr-evaluation
#' @export
crps <- function(predictions, y) {
  call <- sys.call()
  if (missing(y)) y <- idr_default_y(predictions, call)
  p <- as_idr_pred(predictions, call)
  y <- idr_observations(y, length(p$j), call)
  out <- rep.int(NA_real_, length(y))
  for (part in idr_pred_parts(p)) {
    r <- part$rows
    ok <- r[!is.na(p$j[r]) & !is.na(y[r])]
    if (!length(ok)) next
    f <- part$fit
    t <- f$thresholds
    yo <- y[ok]
    kappa <- findInterval(yo, t, left.open = TRUE)
    out[ok] <- .Call(ffi_idr_crps, f$ptr, f$start, f$value, idr_npoints(f), t, p$j[ok],
                     p$lambda[ok], yo, as.integer(kappa))
  }
  # the engine gives +Inf for a CRPS beyond the largest double
  big <- which(is.infinite(out))
  if (length(big)) {
    abort_overflow(sprintf(paste0("The CRPS of prediction %.0f at y = %s is larger than ",
                                  "the largest double (%s): the thresholds and `y` ",
                                  "spread over more than the range of doubles."),
                           big[1L], format(y[big[1L]]), format(.Machine$double.xmax)),
                   call)
  }
  names(out) <- p$names
  out
}

#' @rdname idr-evaluation
#' @export
pit <- function(predictions, y, randomize = TRUE, seed = NULL) {
  call <- sys.call()
  if (missing(y)) y <- idr_default_y(predictions, call)
  p <- as_idr_pred(predictions, call)
  y <- idr_observations(y, length(p$j), call, recycle = FALSE)
  check_flag(randomize, "randomize", call)
  seed <- check_seed(seed, call)
  out <- rep.int(NA_real_, length(y))
  names(out) <- p$names
  lower <- out
  for (part in idr_pred_parts(p)) {
    r <- part$rows
    ok <- r[!is.na(p$j[r]) & !is.na(y[r])]
    if (!length(ok)) next
    t <- part$fit$thresholds
    yo <- y[ok]
    out[ok] <- idr_eval(part$fit, p$j[ok], p$lambda[ok], findInterval(yo, t) - 1L)
    if (randomize) {
      lower[ok] <- idr_eval(part$fit, p$j[ok], p$lambda[ok],
                            findInterval(yo, t, left.open = TRUE) - 1L)
    }
  }
  if (randomize) {
    # one draw per jump, in the order of the predictions
    if (!is.null(seed)) set.seed(seed)
    jump <- which(!is.na(out) & lower < out)
    if (length(jump)) out[jump] <- stats::runif(length(jump), lower[jump], out[jump])
  }
  out
}

#' @rdname idr-evaluation
#' @export
bscore <- function(predictions, thresholds, y) {
  call <- sys.call()
  if (missing(y)) y <- idr_default_y(predictions, call)
  p <- as_idr_pred(predictions, call)
  y <- idr_observations(y, length(p$j), call)
  z <- idr_numbers(thresholds, "thresholds", call)
  (idr_cdf_matrix(p, z, idr_labels(thresholds)) - outer(y, z, "<="))^2
}

#' @rdname idr-evaluation
#' @export
qscore <- function(predictions, quantiles, y) {
  call <- sys.call()
  if (missing(y)) y <- idr_default_y(predictions, call)
  p <- as_idr_pred(predictions, call)
  y <- idr_observations(y, length(p$j), call)
  a <- idr_probabilities(quantiles, call)
  q <- idr_quantile_matrix(p, a, idr_labels(quantiles))
  a <- matrix(a, nrow(q), ncol(q), byrow = TRUE)
  qscore_values(q, y, a, call)
}

# 2 (1{q > y} - a)(q - y), also where q - y or the product overflows:
# there from halves (exact for such large values), and an error where the
# score itself is beyond the largest double.
qscore_values <- function(q, y, a, call) {
  y <- matrix(y, nrow(q), ncol(q))
  s <- (q > y) - a
  d <- q - y
  out <- 2 * s * d
  # q - y, or twice its share, beyond the largest double
  big <- which(is.infinite(d) | is.infinite(out))
  if (length(big)) {
    out[big] <- 4 * s[big] * (q[big] / 2 - y[big] / 2)
    bad <- big[is.infinite(out[big])]
    if (length(bad)) {
      abort_overflow(sprintf(paste0("The quantile score of prediction %.0f at y = %s is ",
                                    "larger than the largest double (%s)."),
                             (bad[1L] - 1L) %% nrow(q) + 1L, format(y[bad[1L]]),
                             format(.Machine$double.xmax)), call)
    }
  }
  out
}

#' Histogram of PIT values
#'
#' Draws a histogram of probability integral transform values on \[0, 1\]
#' with a reference line at density 1: a calibrated forecast has uniform
#' PIT values (Gneiting, Balabdaoui and Raftery, 2007).
#'
#' @param pit PIT values, for example from [pit()]. Missing values are left
#'   out, as [graphics::hist()] does.
#' @param breaks The number of bins: a whole number from 1 to 100000 (more
#'   bins than that would be wider than any plot device shows, and their
#'   breaks alone would take memory without bound).
#' @param main,xlab,ylab Titles and axis labels.
#' @param col Fill colour of the bars.
#' @param ... Passed to [graphics::hist()]: its arguments (`border`,
#'   `labels`, ...) but `freq`, `probability` and `plot` (the histogram is
#'   always drawn, as densities, so that a calibrated forecast's bars lie
#'   on the line at 1), and graphical parameters; any other argument is an
#'   error.
#' @return The `"histogram"` object, invisibly.
#' @references
#' Gneiting, T., Balabdaoui, F. and Raftery, A. E. (2007). Probabilistic
#' forecasts, calibration and sharpness. *Journal of the Royal Statistical
#' Society Series B*, 69(2), 243--268. \doi{10.1111/j.1467-9868.2007.00587.x}
#' @export
#' @examples
#' fit <- idr(Ozone ~ Temp, data = airquality)
#' pit_hist(pit(fit, seed = 1))
pit_hist <- function(pit, breaks = 10, main = "PIT histogram",
                     xlab = "PIT", ylab = "density", col = "grey85", ...) {
  call <- sys.call()
  check_hist_dots(...)
  v <- check_values_or_na(pit, "pit", call)
  out <- which(v < 0 | v > 1)
  if (length(out)) {
    abort_input(sprintf("`pit` must lie in [0, 1]: element %.0f is %s.", out[1L],
                        format(v[out[1L]], digits = 15L)), call, arg = "pit",
                position = as.double(out[1L]))
  }
  v <- v[!is.na(v)]
  if (!length(v)) abort_input("`pit` must hold at least one value that is not NA.", call)
  check_whole_number(breaks, "breaks", call, 1, pit_hist_max_bins,
                     sprintf("a whole number of bins from 1 to %.0f", pit_hist_max_bins))
  h <- graphics::hist(v, breaks = seq(0, 1, length.out = breaks + 1L),
                      freq = FALSE, main = main, xlab = xlab, ylab = ylab,
                      col = col, ...)
  graphics::abline(h = 1, lty = 2, col = "grey30")
  invisible(h)
}

# Predictions from predictions, or from a fit (its in-sample ones).
as_idr_pred <- function(predictions, call) {
  if (inherits(predictions, "gpuiso_idr_pred")) return(unclass(predictions))
  if (inherits(predictions, c("gpuiso_idr", "gpuiso_idr_by"))) {
    return(unclass(predict(predictions)))
  }
  abort_input(sprintf(paste0("`predictions` must be predictions from ",
                             "`predict()` of an `idr()` fit, not %s."),
                      describe_type(predictions)), call)
}

# The observations of a fit, padded like its in-sample predictions.
idr_default_y <- function(predictions, call) {
  if (inherits(predictions, c("gpuiso_idr", "gpuiso_idr_by"))) {
    return(stats::naresid(predictions$na.action, predictions$data$y))
  }
  abort_input("`y` is missing: give one observation per prediction.", call)
}

# Observations, finite or NA, one per prediction (or, with `recycle`, one
# for all).
idr_observations <- function(y, n, call, recycle = TRUE) {
  y <- check_values_or_na(y, "y", call)
  if (length(y) == n) return(y)
  if (recycle && length(y) == 1L) return(rep.int(y, n))
  abort_input(sprintf("`y` must have %sthe same length as the predictions (%.0f), not %.0f.",
                      if (recycle) "length 1 or " else "", n, length(y)), call)
}

# Numbers without NA (infinite allowed).
idr_numbers <- function(x, arg, call) {
  if (!(is.numeric(x) || is.logical(x)) || is.object(x) || is.list(x)) {
    abort_input(sprintf("`%s` must be numeric, not %s.", arg, describe_type(x)), call)
  }
  x <- as.double(x)
  bad <- which(is.na(x))
  if (length(bad)) {
    abort_input(sprintf("`%s` must not be NA: %s is %s.", arg,
                        describe_position(bad[1L], x), describe_value(x[bad[1L]])), call)
  }
  x
}

idr_probabilities <- function(a, call) {
  a <- idr_numbers(a, "quantiles", call)
  pos <- .Call(ffi_first_outside_unit, a)
  if (pos > 0) {
    abort_input(sprintf("`quantiles` must lie in [0, 1]: %s is %s.",
                        describe_position(pos, a), describe_value(a[pos])), call)
  }
  a
}

# The arguments of pit_hist() that may pass to hist(): its own and the
# graphical parameters; anything else is an error that names it.
check_hist_dots <- function(...) {
  n <- ...length()
  if (n == 0L) return(invisible())
  nm <- ...names()
  if (is.null(nm)) nm <- character(n)
  known <- c(setdiff(names(formals(graphics::hist.default)),
                     c("...", "x", "freq", "probability", "plot")),
             graphics_args)
  bad <- !nzchar(nm) | !nm %in% known
  if (any(bad)) {
    abort_unused(nm[bad], c(setdiff(names(formals(pit_hist)), "..."), known),
                 "pit_hist()", sys.call(-1L))
  }
  invisible()
}

#' Predictive distributions from an IDR fit
#'
#' The predictive CDF at a new covariate value. At a fitted value it is the
#' fitted CDF there. Between two neighbouring fitted values \eqn{x_j <
#' x_{j+1}} it is the linear interpolation in \eqn{x} of their CDFs,
#' \eqn{(1 - \lambda) F(\cdot \mid x_j) + \lambda F(\cdot \mid x_{j+1})}
#' with \eqn{\lambda = (x - x_j) / (x_{j+1} - x_j)}, and outside the fitted
#' range it is the CDF at the nearest end: the rule of `predict.idrfit()` in
#' the 'isodistrreg' package with `interpolation = "linear"` (without its
#' rounding of the CDF values to `digits`).
#'
#' Nothing is evaluated here: the result keeps the fit and, per prediction,
#' the index \eqn{j} and the weight \eqn{\lambda}, and the evaluation
#' functions [cdf()], [qpred()], [crps()], [pit()], [bscore()] and
#' [qscore()] work from that. `pred[[i]]` gives one prediction's CDF as a
#' data frame, `pred[i]` a subset of the predictions.
#'
#' @param object A fit from [idr()].
#' @param newdata `NULL` for the in-sample predictions (one per observation of
#'   the fit, in its order), a numeric vector of covariate values, or a data
#'   frame (or matrix) with a column named like the covariate of the fit (a
#'   one-column data frame may name it otherwise). Values must be finite.
#' @param ... Unused.
#' @return An object of class `"gpuiso_idr_pred"`: a list with `fit` (the
#'   fit), `x` (the covariate values), `j` (integer, the 0-based index into
#'   `fit$x` of the lower neighbour) and `lambda` (the interpolation weight,
#'   in \[0, 1), 0 at fitted values and outside the range). It has methods for
#'   [print()], [length()], `[[` (one prediction's CDF: a data frame with the
#'   `points` where it jumps and its value `cdf` there), `[` and
#'   [plot()][plot.gpuiso_idr_pred].
#' @seealso [idr()], [cdf()], [crps()].
#' @export
#' @examples
#' fit <- idr(c(1, 2, 2, 4, 3, 5), c(1, 1, 2, 2, 3, 3))
#' pred <- predict(fit, c(0, 1.5, 2, 10))
#' pred
#' pred[[2]]           # halfway between the CDFs at x = 1 and x = 2
#' cdf(pred, c(1, 2, 3))
predict.gpuiso_idr <- function(object, newdata = NULL, ...) {
  call <- sys.call()
  x <- if (is.null(newdata)) object$data$x else idr_newdata(newdata, object$xname, call)
  new_idr_pred(object, x)
}

new_idr_pred <- function(fit, x) {
  xu <- fit$x
  m <- length(xu)
  pos <- findInterval(x, xu)
  inside <- pos > 0L & pos < m
  j <- pmax(pos, 1L)
  lam <- numeric(length(x))
  lam[inside] <- (x[inside] - xu[pos[inside]]) / (xu[pos[inside] + 1L] - xu[pos[inside]])
  structure(list(fit = fit, x = x, j = as.integer(j - 1L), lambda = lam),
            class = "gpuiso_idr_pred")
}

idr_newdata <- function(newdata, xname, call) {
  if (is.data.frame(newdata) || is.matrix(newdata)) {
    nm <- colnames(newdata)
    if (!is.null(nm) && xname %in% nm) {
      newdata <- if (is.data.frame(newdata)) newdata[[xname]] else newdata[, xname]
    } else if (ncol(newdata) == 1L) {
      newdata <- if (is.data.frame(newdata)) newdata[[1L]] else newdata[, 1L]
    } else {
      abort_input(sprintf("`newdata` must have a column `%s`, the covariate of the fit.",
                          xname), call)
    }
  }
  if (is.factor(newdata)) abort_input("`newdata` must be numeric, not a factor.", call)
  as_plain(check_values(newdata, "newdata", call))
}

#' @export
length.gpuiso_idr_pred <- function(x) length(unclass(x)$x)

#' @export
`[[.gpuiso_idr_pred` <- function(x, i) {
  x <- unclass(x)
  if (!is.numeric(i) || length(i) != 1L || is.na(i) || i < 1 || i > length(x$x)) {
    abort_input(sprintf("The index must be one number from 1 to %.0f.", length(x$x)),
                sys.call())
  }
  fit <- x$fit
  K <- length(fit$thresholds)
  g <- idr_eval(fit, rep(x$j[i], K), rep(x$lambda[i], K), seq_len(K) - 1L)
  jump <- c(g[1L] > 0, diff(g) > 0)
  data.frame(points = fit$thresholds[jump], cdf = g[jump])
}

#' @export
`[.gpuiso_idr_pred` <- function(x, i) {
  x <- unclass(x)
  idx <- seq_along(x$x)[i]
  structure(list(fit = x$fit, x = x$x[idx], j = x$j[idx], lambda = x$lambda[idx]),
            class = "gpuiso_idr_pred")
}

#' @export
print.gpuiso_idr_pred <- function(x, ...) {
  n <- length(x)
  cat(sprintf("IDR predictions: %.0f predictive CDF%s of y given %s, on %.0f thresholds\n",
              n, if (n == 1L) "" else "s", unclass(x)$fit$xname,
              length(unclass(x)$fit$thresholds)))
  if (n > 0L) {
    cat(sprintf("The first, at %s = %s:\n", unclass(x)$fit$xname,
                format(unclass(x)$x[1L])))
    print(utils::head(x[[1L]]))
    if (nrow(x[[1L]]) > 6L) cat("...\n")
  }
  invisible(x)
}

#' Plot IDR predictive CDFs
#'
#' Draws the predictive CDFs of some predictions as step functions.
#'
#' @param x Predictions from [predict.gpuiso_idr()].
#' @param index Which predictions to draw (default the first).
#' @param col Colours, one per CDF.
#' @param main,xlab,ylab Titles and axis labels.
#' @param legend_title Title of the legend (the covariate's name); `NA` for
#'   no legend.
#' @param ... Passed to [graphics::plot.default()].
#' @return `x`, invisibly.
#' @export
#' @examples
#' aq <- na.omit(airquality[, c("Ozone", "Temp")])
#' fit <- idr(aq$Ozone, aq$Temp)
#' plot(predict(fit, c(65, 80, 90)), index = 1:3)
plot.gpuiso_idr_pred <- function(x, index = 1L, col = NULL,
                                 main = "IDR predictive CDF",
                                 xlab = "threshold", ylab = "CDF",
                                 legend_title = NULL, ...) {
  ux <- unclass(x)
  idx <- seq_along(ux$x)[index]
  t <- ux$fit$thresholds
  if (is.null(col)) col <- grDevices::hcl.colors(max(2L, length(idx)), "Dark 3")[seq_along(idx)]
  col <- rep_len(col, length(idx))
  pad <- if (length(t) > 1L) 0.04 * diff(range(t)) else 1
  xlim <- c(t[1L] - pad, t[length(t)] + pad)
  graphics::plot(xlim, c(0, 1), type = "n", main = main, xlab = xlab, ylab = ylab, ...)
  graphics::abline(h = c(0, 1), col = "grey80", lty = 3)
  K <- length(t)
  for (a in seq_along(idx)) {
    i <- idx[a]
    g <- idr_eval(ux$fit, rep(ux$j[i], K), rep(ux$lambda[i], K), seq_len(K) - 1L)
    graphics::lines(c(xlim[1L], t, xlim[2L]), c(0, g, 1), type = "s",
                    col = col[a], lwd = 2)
  }
  if (is.null(legend_title)) legend_title <- ux$fit$xname
  if (!identical(legend_title, NA) && length(idx) > 1L) {
    graphics::legend("bottomright", legend = format(ux$x[idx], digits = 4),
                     col = col, lwd = 2, title = legend_title, bty = "n")
  }
  invisible(x)
}

# G at threshold indices k (0-based, -1: below the first), paired with
# predictions (j, lam).
idr_eval <- function(fit, j, lam, k) {
  .Call(ffi_idr_cdf, fit$ptr, fit$start, fit$value, as.double(length(fit$x)),
        as.integer(j), as.double(lam), as.integer(k), TRUE)
}

#' Predictive distributions from an IDR fit
#'
#' The predictive CDF at new covariate values, by the prediction rule of
#' the package ([prediction]) applied to the fitted CDFs: the fit is known
#' at its distinct covariate values \eqn{x_1 < \dots < x_m}, and
#' * with `interpolation = "constant"` (the default), the prediction at
#'   \eqn{x} with \eqn{x_{j-1} < x \le x_j} is the fitted CDF at
#'   \eqn{x_j}, the first fitted value at or above \eqn{x} (the
#'   left-continuous step of [stats::as.stepfun()] in \eqn{x});
#' * with `interpolation = "linear"`, it is the mixture
#'   \eqn{(1 - \lambda) F(\cdot \mid x_{j-1}) + \lambda F(\cdot \mid x_j)}
#'   with \eqn{\lambda = (x - x_{j-1}) / (x_j - x_{j-1})}: the rule of
#'   `predict.idrfit()` in the 'isodistrreg' package (without its rounding
#'   of the CDF values to `digits`);
#' * outside \eqn{[x_1, x_m]} it is the CDF at the nearer end
#'   (`out_of_bounds = "clip"`), a missing prediction (`"na"`) or an error
#'   (`"error"`);
#' * a missing covariate value gives a missing prediction, whose CDF,
#'   quantiles and scores are `NA`.
#'
#' For a fit on several covariates, new points are predicted by the bounds
#' rule of 'isodistrreg' (see *Several covariates* in [idr()]);
#' `interpolation` and `out_of_bounds` do not apply there. For a batch fit
#' (`idr(..., by = )`), each point is predicted by the fit of its level, by
#' that fit's rule.
#'
#' Nothing is evaluated here: the result keeps the fit and, per prediction,
#' the index \eqn{j} and the weight \eqn{\lambda}, and the evaluation
#' functions [cdf()], [qpred()], [crps()], [pit()], [bscore()] and
#' [qscore()] work from that. `pred[[i]]` gives one prediction's CDF as a
#' data frame, `pred[i]` a subset of the predictions (an index beyond the
#' last gives a missing prediction, as `[` does on vectors).
#'
#' @param object A fit from [idr()].
#' @param newdata `NULL` for the in-sample predictions (one per observation
#'   of the fit, in its order; under [na.exclude()], one per row of the data,
#'   missing where the row was left out), a numeric vector of covariate
#'   values, or a data frame (or matrix, or list) that holds the covariate:
#'   for a fit from a formula, the variables of the covariate's term, which
#'   is evaluated as in the fit; otherwise a column named like the covariate
#'   (a one-column data frame may name it otherwise). Missing values give
#'   missing predictions. The names of a vector, or the row names of a data
#'   frame that has some (not the automatic `1, 2, ...`), name the
#'   predictions: they become the row names of [cdf()] and the names of
#'   [crps()], for example.
#' @param data The spelling of `newdata` in the 'isodistrreg' package: give
#'   one of them, not both.
#' @param ... Unused: an argument that `predict()` does not take is an
#'   error.
#' @inheritParams prediction
#' @return An object of class `"gpuiso_idr_pred"`: a list with `fit` (the
#'   fit), `x` (the covariate values), `j` (integer, the 0-based index into
#'   `fit$x` of the fitted CDF, the lower of the two with linear
#'   interpolation; `NA` for a missing prediction), `lambda` (the weight of
#'   the next fitted CDF, in \[0, 1), 0 with constant interpolation) and
#'   `names` (of the predictions, or `NULL`). It has methods for [print()],
#'   [length()], `[[` (one prediction's CDF: a data frame with the `points`
#'   where it jumps and its value `cdf` there), `[` and
#'   [plot()][plot.gpuiso_idr_pred].
#' @seealso [prediction] for the rule shared by every fit of the package;
#'   [idr()], [cdf()], [crps()].
#' @export
#' @examples
#' fit <- idr(c(1, 2, 2, 4, 3, 5), c(1, 1, 2, 2, 3, 3))
#' pred <- predict(fit, c(a = 0, b = 1.5, c = 2, d = 10))
#' pred
#' pred[[2]]           # the CDF at x = 2, the next fitted value
#' cdf(pred, c(1, 2, 3))
#' # halfway between the CDFs at x = 1 and x = 2, as 'isodistrreg' predicts
#' cdf(predict(fit, 1.5, interpolation = "linear"), c(1, 2, 3))
#' predict(fit, c(0, NA, 10), out_of_bounds = "na") # three missing predictions
#'
#' fit <- idr(Ozone ~ Temp, data = airquality)
#' qpred(predict(fit, data = data.frame(Temp = c(60, 90))), c(0.1, 0.9))
predict.gpuiso_idr <- function(object, newdata = NULL,
                               interpolation = c("constant", "linear"),
                               out_of_bounds = c("clip", "na", "error"),
                               data = NULL, ...) {
  check_dots(..., fn = "predict()")
  call <- sys.call()
  rule <- check_prediction_rule(interpolation, out_of_bounds, call)
  nd <- idr_newdata_arg(newdata, data, call)
  newdata <- nd$newdata
  arg <- nd$arg
  if (is.null(newdata)) {
    x <- object$data$x
    names <- object$data$names
  } else {
    nd <- idr_newdata(newdata, object, arg, call)
    x <- nd$x
    names <- nd$names
  }
  at <- locate_points(object$x, x, rule, arg, call)
  p <- new_idr_pred(object, x, at$j, at$lambda, names)
  if (is.null(newdata) && inherits(object$na.action, "exclude")) {
    p <- idr_pad(p, object$na.action)
  }
  p
}

# The new points of predict(): `newdata`, or `data` (the spelling of
# 'isodistrreg'), not both; list(newdata, arg, the name of the one given).
idr_newdata_arg <- function(newdata, data, call) {
  if (is.null(data)) return(list(newdata = newdata, arg = "newdata"))
  if (!is.null(newdata)) {
    abort_input(paste0("Give the new covariate values as `newdata` or as ",
                       "`data` (the spelling of 'isodistrreg'), not both."),
                call)
  }
  list(newdata = data, arg = "data")
}

# A list of columns given as new covariate values, as a data frame (other
# values unchanged); `arg` names the argument in the error.
idr_list_as_frame <- function(newdata, arg, call,
                              what = "a data frame, a list of columns of equal length or a numeric vector") {
  if (!is.list(newdata) || is.data.frame(newdata)) return(newdata)
  tryCatch(as.data.frame(newdata, optional = TRUE), error = function(e) {
    abort_input(sprintf("`%s` must be %s.", arg, what), call)
  })
}

# Predictions: each the fitted CDF at 0-based point j of `fit` (mixed with
# the next point's by lambda), or, for a batch (idr(..., by =)), of fit
# parts[[part]]; j NA for a missing prediction.
new_idr_pred <- function(fit, x, j, lambda, names, parts = NULL, part = NULL) {
  p <- list(fit = fit, x = x, j = j, lambda = lambda, names = names)
  if (!is.null(parts)) {
    p$parts <- parts
    p$part <- part
  }
  structure(p, class = "gpuiso_idr_pred")
}

# The fits of predictions p (unclassed) with the predictions of each:
# list(list(fit, rows)), one for predictions of one fit, one per fit of a
# batch.
idr_pred_parts <- function(p) {
  if (is.null(p$parts)) return(list(list(fit = p$fit, rows = seq_along(p$j))))
  # the predictions of each part by one radix order (a scan per part would
  # cost parts x predictions)
  o <- order(p$part, na.last = NA, method = "radix")
  rows <- idr_slices(o, p$part[o], length(p$parts))
  lapply(seq_along(p$parts), function(k) list(fit = p$parts[[k]], rows = rows[[k]]))
}

# The fit of prediction i.
idr_pred_fit <- function(p, i) if (is.null(p$parts)) p$fit else p$parts[[p$part[i]]]

# Rows i of covariate values: a vector, or a data frame of several
# covariates (an NA index gives a row of NA).
idr_x_rows <- function(x, i) {
  if (is.data.frame(x)) {
    out <- x[i, , drop = FALSE]
    row.names(out) <- NULL
    return(out)
  }
  x[i]
}

# "Temp = 80" for one covariate (the value alone without a name), or
# "Temp = 80, Wind = 7.4" for a row of several (the values alone when
# `names` is NULL: "80, 7.4").
idr_x_label <- function(names, x, digits = NULL) {
  if (!is.data.frame(x)) {
    v <- format(x, digits = digits)
    return(if (is.null(names)) v else paste(names, "=", v))
  }
  cols <- lapply(x, format, digits = digits, trim = TRUE)
  if (!is.null(names)) cols <- Map(function(n, v) paste(n, "=", v), names(x), cols)
  do.call(paste, c(unname(cols), sep = ", "))
}

# The number of points over which a fit (or a table of predictions) stores
# its blocks.
idr_npoints <- function(fit) {
  as.double(if (is.null(fit$npoints)) length(fit$x) else fit$npoints)
}

# Predictions i of p (unclassed): an NA index gives a missing prediction.
idr_pred_rows <- function(p, i) {
  new_idr_pred(p$fit, idr_x_rows(p$x, i), p$j[i], p$lambda[i],
               if (!is.null(p$names)) p$names[i], p$parts, p$part[i])
}

# The in-sample predictions padded back to one per row of the data, with
# missing predictions at the rows that na.exclude left out (naresid()'s
# rule: those rows are named by the record when the predictions have
# names).
idr_pad <- function(p, omit) {
  p <- unclass(p)
  idx <- rep.int(NA_integer_, length(p$j) + length(omit))
  idx[-omit] <- seq_along(p$j)
  names <- p$names
  if (!is.null(names)) {
    names <- names[idx]
    names[omit] <- names(omit)
  }
  new_idr_pred(p$fit, idr_x_rows(p$x, idx), p$j[idx], p$lambda[idx], names, p$parts,
               p$part[idx])
}

#' @export
length.gpuiso_idr_pred <- function(x) length(unclass(x)$j)

#' @export
`[[.gpuiso_idr_pred` <- function(x, i) {
  ux <- unclass(x)
  n <- length(ux$j)
  if (is.character(i) && length(i) == 1L && !is.na(i) && !is.null(ux$names)) {
    i <- match(i, ux$names)
  }
  if (!is.numeric(i) || length(i) != 1L || is.na(i) || i < 1 || i > n) {
    abort_input(sprintf("The index must be one number from 1 to %.0f%s.", n,
                        if (is.null(ux$names)) "" else ", or the name of a prediction"),
                sys.call())
  }
  if (is.na(ux$j[i])) return(data.frame(points = NA_real_, cdf = NA_real_))
  fit <- idr_pred_fit(ux, i)
  K <- length(fit$thresholds)
  g <- idr_eval(fit, rep(ux$j[i], K), rep(ux$lambda[i], K), seq_len(K) - 1L)
  jump <- c(g[1L] > 0, diff(g) > 0)
  data.frame(points = fit$thresholds[jump], cdf = g[jump])
}

#' @export
`[.gpuiso_idr_pred` <- function(x, i) {
  ux <- unclass(x)
  idx <- seq_along(ux$j)
  if (missing(i)) return(x)
  if (!is.null(i) && (!(is.numeric(i) || is.logical(i) || is.character(i)) ||
                      is.object(i))) {
    abort_input(sprintf(paste0("The index `i` must be numbers, logical values or ",
                               "names of predictions, not %s."), describe_type(i)),
                sys.call(), arg = "i")
  }
  if (!is.null(ux$names)) names(idx) <- ux$names
  call <- sys.call()
  rows <- tryCatch(idx[i], error = function(e) {
    abort_input(sprintf("The index `i` is not valid: %s", conditionMessage(e)),
                call, arg = "i")
  })
  idr_pred_rows(ux, unname(rows))
}

#' @export
print.gpuiso_idr_pred <- function(x, ...) {
  check_dots(..., fn = "print()")
  ux <- unclass(x)
  fit <- ux$fit
  n <- length(ux$j)
  nmiss <- sum(is.na(ux$j))
  cat(sprintf("IDR predictions: %s of %s given %s, %s%s\n",
              count_noun(n, "predictive CDF"), fit$yname, fit$xname,
              if (is.null(ux$parts)) {
                paste("on", count_noun(length(fit$thresholds), "threshold"))
              } else {
                paste("from", count_noun(length(ux$parts), "fit"), "of a batch")
              },
              if (nmiss) sprintf(" (%.0f missing)", nmiss) else ""))
  first <- which(!is.na(ux$j))[1L]
  if (!is.na(first)) {
    which <- if (first == 1L) "first" else
      sprintf("first not missing (number %.0f)", first)
    if (!is.null(ux$names)) which <- sprintf("%s, \"%s\"", which, ux$names[first])
    cat(sprintf("The %s, at %s:\n", which, idr_x_label(fit$xname, idr_x_rows(ux$x, first))))
    one <- x[[first]]
    print(utils::head(one))
    if (nrow(one) > 6L) cat("...\n")
  }
  invisible(x)
}

#' Plot IDR predictive CDFs
#'
#' Draws the predictive CDFs of some predictions as step functions; missing
#' predictions are left out.
#'
#' @param x Predictions from [predict.gpuiso_idr()].
#' @param index Which predictions to draw (default the first).
#' @param col Colours, one per CDF.
#' @param main,xlab,ylab Titles and axis labels (`xlab` by default the name
#'   of the response).
#' @param legend_title Title of the legend (by default the covariate's
#'   name); `NA` for no legend.
#' @param ... Graphical parameters, passed to [graphics::plot.default()];
#'   any other argument is an error.
#' @return `x`, invisibly.
#' @export
#' @examples
#' fit <- idr(Ozone ~ Temp, data = airquality)
#' plot(predict(fit, c(65, 80, 90)), index = 1:3)
plot.gpuiso_idr_pred <- function(x, index = 1L, col = NULL,
                                 main = "IDR predictive CDF",
                                 xlab = NULL, ylab = NULL,
                                 legend_title = NULL, ...) {
  check_graphics_dots(..., fn = "plot()")
  ux <- unclass(x)
  fit <- ux$fit
  idx <- seq_along(ux$j)[index]
  idx <- idx[!is.na(idx) & !is.na(ux$j[idx])]
  t <- fit$thresholds
  if (is.null(xlab)) xlab <- fit$yname
  if (is.null(ylab)) ylab <- "CDF"
  if (is.null(col)) col <- grDevices::hcl.colors(max(2L, length(idx)), "Dark 3")[seq_along(idx)]
  col <- rep_len(col, length(idx))
  # a margin of 4 % of the range, within the doubles (halves: no overflow)
  pad <- if (length(t) > 1L) 0.08 * (t[length(t)] / 2 - t[1L] / 2) else 1
  big <- .Machine$double.xmax
  xlim <- c(max(t[1L] - pad, -big), min(t[length(t)] + pad, big))
  graphics::plot(xlim, c(0, 1), type = "n", main = main, xlab = xlab, ylab = ylab, ...)
  graphics::abline(h = c(0, 1), col = "grey80", lty = 3)
  for (a in seq_along(idx)) {
    i <- idx[a]
    fi <- idr_pred_fit(ux, i)
    ti <- fi$thresholds
    Ki <- length(ti)
    g <- idr_eval(fi, rep(ux$j[i], Ki), rep(ux$lambda[i], Ki), seq_len(Ki) - 1L)
    graphics::lines(c(xlim[1L], ti, xlim[2L]), c(0, g, 1), type = "s",
                    col = col[a], lwd = 2)
  }
  if (is.null(legend_title)) legend_title <- fit$xname
  if (!identical(legend_title, NA) && length(idx) > 1L) {
    labels <- idr_x_label(NULL, idr_x_rows(ux$x, idx), digits = 4)
    if (!is.null(ux$names)) labels <- paste0(ux$names[idx], ": ", labels)
    graphics::legend("bottomright", legend = labels, col = col, lwd = 2,
                     title = legend_title, bty = "n")
  }
  invisible(x)
}

# G at threshold indices k (0-based, -1: below the first), paired with
# predictions (j, lam), none missing.
idr_eval <- function(fit, j, lam, k) {
  .Call(ffi_idr_cdf, fit$ptr, fit$start, fit$value, idr_npoints(fit),
        as.integer(j), as.double(lam), as.integer(k), TRUE)
}

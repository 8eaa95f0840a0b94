# Methods for IDR fits: print, summary, plot, and the stats generics.

# Blocks per threshold.
idr_nblocks <- function(fit) diff(fit$ptr)

# "Ozone on Temp"
idr_title <- function(x) sprintf("Isotonic distributional regression of %s on %s",
                                 x$yname, x$xname)

# " (37 observations deleted due to missingness)", or "".
idr_na_note <- function(na.action) {
  if (is.null(na.action)) return("")
  paste0(" (", stats::naprint(na.action), ")")
}

#' @rdname gpuiso_idr-methods
#' @param x,object A fit from [idr()] (for `print.summary.gpuiso_idr()`, its
#'   summary).
#' @export
print.gpuiso_idr <- function(x, ...) {
  check_dots(..., fn = "print()")
  cat(idr_title(x), "\n", sep = "")
  cat("Call: ", paste(deparse(x$call), collapse = "\n"), "\n\n", sep = "")
  cat(count_noun(x$n, "observation"), idr_na_note(x$na.action), "\n", sep = "")
  cat(sprintf("%s of %s%s, %s of %s\n",
              count_noun(length(x$x), "distinct value"), x$xname,
              if (isTRUE(x$decreasing)) " (decreasing)" else "",
              count_noun(length(x$thresholds), "threshold"), x$yname))
  nb <- idr_nblocks(x)
  cat(sprintf("%s (%s per threshold on average); engine: %s\n",
              count_noun(sum(nb), "block"),
              format(mean(nb), digits = 3L, nsmall = 1L), x$device))
  invisible(x)
}

#' @rdname gpuiso_idr-methods
#' @export
summary.gpuiso_idr <- function(object, ...) {
  check_dots(..., fn = "summary()")
  nb <- idr_nblocks(object)
  structure(list(
    call = object$call, yname = object$yname, xname = object$xname,
    n = object$n, na.action = object$na.action,
    m = idr_npoints(object), K = length(object$thresholds),
    xrange = if (!is.data.frame(object$x)) range(object$x), order = object$order,
    decreasing = isTRUE(object$decreasing),
    trange = range(object$thresholds),
    blocks = sum(nb),
    blocks_per_threshold = stats::quantile(nb, c(0, 0.5, 1), names = FALSE),
    bytes = 12 * sum(nb) + 8 * length(object$ptr),
    crps = idr_mean_crps(object), weighted = !is.null(object$data$weights),
    device = object$device),
    class = "summary.gpuiso_idr")
}

# The mean in-sample CRPS, weighted by the observations' weights.
idr_mean_crps <- function(fit) {
  s <- crps(fit)
  if (inherits(fit$na.action, "exclude")) s <- s[-fit$na.action]
  w <- fit$data$weights
  if (is.null(w)) {
    n <- length(s)
    # a sum of scores near the largest double would overflow
    return(if (n && max(s) > .Machine$double.xmax / n) sum(s / n) else mean(s))
  }
  # shares of the total weight (scaled by a power of two first: sums of
  # weights near the largest double would overflow), so that no partial
  # sum exceeds the largest score
  keep <- !is.na(s)
  s <- s[keep]
  w <- w[keep]
  w <- scale_weights(w)
  sum(s * (w / sum(w)))
}

#' @rdname gpuiso_idr-methods
#' @param digits Significant digits of the numbers printed: a whole number
#'   from 1 to 22 (`NULL` for the default).
#' @export
print.summary.gpuiso_idr <- function(x, digits = max(3L, getOption("digits") - 3L),
                                     ...) {
  check_dots(..., fn = "print()")
  digits <- check_digits(digits, sys.call(), max(3L, getOption("digits") - 3L))
  f <- function(v) format(v, digits = digits)
  rows <- c(
    "Observations" = paste0(format(x$n, scientific = FALSE), idr_na_note(x$na.action)),
    "Covariate" = if (is.null(x$order)) {
      sprintf("%s: %s, from %s to %s%s", x$xname, count_noun(x$m, "distinct value"),
              f(x$xrange[1L]), f(x$xrange[2L]), if (isTRUE(x$decreasing)) ", decreasing" else "")
    } else {
      sprintf("%s: %s under the order %s", x$xname, count_noun(x$m, "distinct point"),
              x$order)
    },
    "Thresholds" = sprintf("%s: %s, from %s to %s", x$yname,
                           format(x$K, scientific = FALSE), f(x$trange[1L]),
                           f(x$trange[2L])),
    "Blocks" = sprintf("%s in all (%s), per threshold: min %s, median %s, max %s",
                       format(x$blocks, scientific = FALSE), format_bytes(x$bytes),
                       f(x$blocks_per_threshold[1L]), f(x$blocks_per_threshold[2L]),
                       f(x$blocks_per_threshold[3L])),
    "In-sample CRPS" = paste(f(x$crps), if (x$weighted) "(weighted mean)" else "(mean)"),
    "Engine" = x$device)
  cat(idr_title(x), "\n", sep = "")
  cat("Call: ", paste(deparse(x$call), collapse = "\n"), "\n\n", sep = "")
  cat(paste0(format(paste0(names(rows), ":")), " ", rows, collapse = "\n"), "\n",
      sep = "")
  invisible(x)
}

#' Methods for IDR fits
#'
#' `print()` and `summary()` describe a fit from [idr()]: its size, its
#' blocks, the memory they take and the mean in-sample CRPS. The `stats`
#' generics work where they have a meaning for a fitted distribution:
#' `update()` refits with changed arguments or a changed formula,
#' `nobs()` is the number of observations of positive weight,
#' `fitted()` the in-sample predictive distributions (the same as
#' `predict(object)`, padded with missing predictions under
#' [na.exclude()]), and `knots()` the distinct covariate values at which the
#' CDFs are fitted. An IDR fit has no coefficients, likelihood or residuals:
#' `coef()`, `logLik()` and `residuals()` are errors that say what to use
#' instead ([predict()][predict.gpuiso_idr], [crps()], [pit()]).
#'
#' @param ... Unused: an argument that the method does not take is an error.
#' @return `print()`: `x`, invisibly. `summary()`: an object of class
#'   `"summary.gpuiso_idr"` with the number of observations `n`, of distinct
#'   covariate values `m` and of thresholds `K`, their ranges, the total
#'   number of blocks and their quantiles per threshold, the approximate
#'   memory in bytes and the mean in-sample CRPS. `nobs()`: a number.
#'   `fitted()`: predictions (see [predict.gpuiso_idr()]). `knots()`: a
#'   numeric vector. `update()`: the fit of the call with the changes given
#'   (or the call, with `evaluate = FALSE`), as for an [lm()] fit.
#' @name gpuiso_idr-methods
#' @examples
#' fit <- idr(Ozone ~ Temp, data = airquality)
#' summary(fit)
#' nobs(fit)
#' fitted(fit)
#' range(knots(fit))
#' try(coef(fit))
NULL

#' @rdname gpuiso_idr-methods
#' @param formula. For `update()` of a fit from a formula: the changes to it,
#'   as [update.formula()] reads them (`. ~ . + Wind`).
#' @param evaluate For `update()`: `TRUE` (the default) to fit the updated
#'   call, `FALSE` to return it.
#' @export
update.gpuiso_idr <- function(object, formula., ..., evaluate = TRUE) {
  call <- object$call
  if (!missing(formula.)) {
    # the formula of idr() is its argument `y` (update.default() would set
    # an argument `formula`, which idr() does not have)
    tt <- if (is.null(object$terms) && !is.null(object$fits)) object$fits[[1L]]$terms
          else object$terms
    if (is.null(tt)) {
      abort_input(paste0("`formula.` updates a fit from a formula: this one was given ",
                         "`y` and `X`, which can be changed by name instead."),
                  sys.call(), arg = "formula.")
    }
    call$y <- stats::update.formula(stats::formula(tt), formula.)
  }
  # the changes name arguments of idr(), in full
  extras <- match.call(expand.dots = FALSE)$...
  nm <- names(extras)
  if (is.null(nm)) nm <- character(length(extras))
  known <- names(formals(idr))
  bad <- !nzchar(nm) | !nm %in% known
  if (any(bad)) abort_unused(nm[bad], c(known, "formula.", "evaluate"), "update()", sys.call())
  for (a in nm) call[a] <- list(extras[[a]])
  if (evaluate) eval(call, parent.frame()) else call
}

#' @export
update.gpuiso_idr_by <- update.gpuiso_idr

#' @rdname gpuiso_idr-methods
#' @export
nobs.gpuiso_idr <- function(object, ...) {
  check_dots(..., fn = "nobs()")
  w <- object$data$weights
  if (is.null(w)) object$n else sum(w > 0)
}

#' @rdname gpuiso_idr-methods
#' @export
fitted.gpuiso_idr <- function(object, ...) {
  check_dots(..., fn = "fitted()")
  predict(object)
}

#' @rdname gpuiso_idr-methods
#' @param Fn For `knots()`: a fit from [idr()].
#' @importFrom stats knots
#' @export
knots.gpuiso_idr <- function(Fn, ...) {
  check_dots(..., fn = "knots()")
  Fn$x
}

#' @rdname gpuiso_idr-methods
#' @importFrom stats coef na.omit
#' @export
coef.gpuiso_idr <- function(object, ...) not_applicable(
  "An IDR fit has no coefficients: it estimates a whole conditional distribution at each ",
  "covariate value. Use `predict()` for predictive distributions, then `cdf()` or ",
  "`qpred()` for their probabilities and quantiles.")

#' @rdname gpuiso_idr-methods
#' @importFrom stats logLik
#' @export
logLik.gpuiso_idr <- function(object, ...) not_applicable(
  "An IDR fit has no likelihood: its predictive distributions are step functions without ",
  "a density. Use `crps()` to score them (or `bscore()`, `qscore()`).")

#' @rdname gpuiso_idr-methods
#' @export
residuals.gpuiso_idr <- function(object, ...) not_applicable(
  "An IDR fit has no residuals: it predicts a distribution, not a value. Use `crps()` for ",
  "the score of each observation, `pit()` for its probability integral transform, or ",
  "`qpred(predict(fit), 0.5)` for medians.")

#' Plot an IDR fit
#'
#' `plot()` draws the estimated conditional CDFs at a few covariate values
#' (`type = "cdf"`), or the fitted CDF as a surface over the covariate and
#' the thresholds (`type = "surface"`, an [graphics::image()] of
#' \eqn{F(t \mid x)} with contours at 0.1, 0.5 and 0.9 and a colour key).
#' The axes are labelled with the names of the response and the covariate.
#'
#' With `key = TRUE`, the surface and its key are two panels side by side
#' (set out by [graphics::layout()], as [graphics::filled.contour()] does),
#' and the graphical parameters are restored afterwards: the surface's
#' coordinates are then lost for adding to the plot. Use `key = FALSE` to
#' draw the surface alone and add to it.
#'
#' @param x A fit from [idr()].
#' @param type `"cdf"` or `"surface"`.
#' @param at For `"cdf"`: the covariate values (default: five quantiles of
#'   the observed ones).
#' @param col Colours, one per CDF (for `"cdf"`) or a palette (for
#'   `"surface"`).
#' @param main,xlab,ylab Titles and axis labels (by default from the
#'   response's and the covariate's names).
#' @param key For `"surface"`: draw a colour key of the CDF levels?
#' @param ... Graphical parameters, passed to [graphics::plot.default()] or
#'   [graphics::image()]; any other argument is an error.
#' @return `x`, invisibly.
#' @seealso [plot.gpuiso_idr_pred()] for the CDFs of predictions.
#' @export
#' @examples
#' fit <- idr(Ozone ~ Temp, data = airquality)
#' plot(fit)
#' plot(fit, type = "surface")
plot.gpuiso_idr <- function(x, type = c("cdf", "surface"), at = NULL,
                            col = NULL, main = NULL, xlab = NULL, ylab = NULL,
                            key = TRUE, ...) {
  check_graphics_dots(..., fn = "plot()")
  call <- sys.call()
  type <- check_choice(type, c("cdf", "surface"), "type", call)
  if (type == "surface") {
    check_flag(key, "key", call)
    idr_surface(x, col = col, key = key,
                main = if (is.null(main)) "Fitted conditional CDF" else main,
                xlab = if (is.null(xlab)) x$xname else xlab,
                ylab = if (is.null(ylab)) x$yname else ylab, ...)
    return(invisible(x))
  }
  if (is.null(at)) {
    at <- unique(stats::quantile(x$data$x, c(0.1, 0.3, 0.5, 0.7, 0.9),
                                 names = FALSE, type = 1))
  }
  p <- predict(x, at)
  plot.gpuiso_idr_pred(p, index = seq_along(at), col = col,
                       main = if (is.null(main)) "IDR predictive CDFs" else main,
                       xlab = xlab, ylab = ylab, legend_title = x$xname, ...)
  invisible(x)
}

# The levels of the contours drawn over the surface (and marked on its key).
idr_contour_levels <- c(0.1, 0.5, 0.9)

# The CDF surface F(t | x) on a grid of at most 200 x 200 points of the
# fit's covariate values and thresholds, with a colour key on its right.
idr_surface <- function(x, col, key, main, xlab, ylab, ...) {
  thin <- function(v) {
    if (length(v) > 200L) v[unique(round(seq(1, length(v), length.out = 200L)))] else v
  }
  xs <- thin(x$x)
  ts <- thin(x$thresholds)
  if (is.null(col)) col <- grDevices::hcl.colors(20L, "YlOrRd", rev = TRUE)
  breaks <- seq(0, 1, length.out = length(col) + 1L)
  if (key) {
    old <- graphics::par(c("mar", "las", "mfrow"))
    on.exit(graphics::par(old))
    mar <- old$mar
    # the key's figure: a margin of 1 line, the strip (1.2 lines), its axis
    # labels (2.5 lines) and the right margin of the plot
    width <- (1 + 1.2 + 2.5 + mar[4L]) * graphics::par("csi") * 2.54
    graphics::layout(matrix(c(2L, 1L), ncol = 2L),
                     widths = c(1, graphics::lcm(width)))
    graphics::par(las = 1, mar = c(mar[1L], 1, mar[3L], mar[4L] + 2.5))
    graphics::plot.new()
    graphics::plot.window(xlim = c(0, 1), ylim = c(0, 1), xaxs = "i", yaxs = "i")
    graphics::rect(0, breaks[-length(breaks)], 1, breaks[-1L], col = col,
                   border = NA)
    graphics::segments(0, idr_contour_levels, 1, idr_contour_levels,
                       col = "grey20")
    graphics::box()
    graphics::axis(4, at = seq(0, 1, by = 0.2))
    graphics::mtext("CDF", side = 3, line = 0.5)
    graphics::par(mar = c(mar[1L:2L], mar[3L], 1), las = old$las)
  }
  if (length(xs) < 2L || length(ts) < 2L) {
    # one covariate value or one threshold: no surface to draw
    graphics::plot.new()
    graphics::title(main = main, xlab = xlab, ylab = ylab)
    return(invisible())
  }
  z <- cdf(predict(x, xs), ts)
  # image() places cell edges halfway between the values: near the largest
  # double they overflow, so such an axis is drawn in quarters, labelled in
  # the values themselves
  sx <- if (max(abs(xs)) > .Machine$double.xmax / 4) 4 else 1
  st <- if (max(abs(ts)) > .Machine$double.xmax / 4) 4 else 1
  graphics::image(xs / sx, ts / st, z, col = col, breaks = breaks, main = main,
                  xlab = xlab, ylab = ylab, axes = sx == 1 && st == 1, ...)
  if (sx != 1 || st != 1) {
    for (side in 1:2) {
      f <- if (side == 1L) sx else st
      at <- graphics::axTicks(side)
      graphics::axis(side, at = at, labels = format(at * f))
    }
    graphics::box()
  }
  graphics::contour(xs / sx, ts / st, z, levels = idr_contour_levels, add = TRUE,
                    drawlabels = TRUE, col = "grey20")
  invisible()
}

#' Plot an isotonic regression fit
#'
#' `plot()` draws the data and the fitted step function; with
#' `plot.type = "row"` or `"col"` it adds a second panel with the cumulative
#' sum diagram of the (pooled, weighted) data and its greatest convex
#' minorant (least concave majorant for decreasing fits), whose slopes are the
#' fitted values. `lines()` adds the fitted step function to a plot.
#'
#' @param x A fit from [isoreg()].
#' @param plot.type `"single"`, or `"row"` / `"col"` for two panels.
#' @param main,xlab,ylab Titles and axis labels.
#' @param col,lwd Colour and width of the fitted line.
#' @param pch Symbol for the data points.
#' @param do.points For `lines()`: also mark the ends of the blocks.
#' @param ... Passed to [graphics::plot.default()] (for `plot()`) or
#'   [graphics::lines()].
#' @return `x`, invisibly.
#' @examples
#' set.seed(1)
#' x <- sort(runif(60, 0, 3))
#' fit <- isoreg(x, x + rnorm(60, sd = 0.5))
#' plot(fit)
#' plot(fit, plot.type = "row")
#' @export
plot.gpuiso_isoreg <- function(x, plot.type = c("single", "row", "col"),
                               main = NULL, xlab = "x", ylab = "y",
                               col = "firebrick", lwd = 2, pch = 1, ...) {
  plot.type <- match.arg(plot.type)
  if (is.null(main)) {
    main <- paste0("Isotonic regression (",
                   if (x$decreasing) "decreasing" else "increasing", ")")
  }
  if (plot.type != "single") {
    op <- graphics::par(mfrow = if (plot.type == "row") c(1L, 2L) else c(2L, 1L))
    on.exit(graphics::par(op))
  }
  if (length(x$x) == 0L) {
    graphics::plot.new()
    graphics::title(main = main, xlab = xlab, ylab = ylab)
    return(invisible(x))
  }
  graphics::plot(x$x, x$y, main = main, xlab = xlab, ylab = ylab, pch = pch, ...)
  lines.gpuiso_isoreg(x, col = col, lwd = lwd)
  if (plot.type != "single") plot_cumsum(x, col = col, lwd = lwd, pch = pch)
  invisible(x)
}

#' @rdname plot.gpuiso_isoreg
#' @export
lines.gpuiso_isoreg <- function(x, col = "firebrick", lwd = 2,
                                do.points = FALSE, pch = 13, ...) {
  k <- x$knots
  if (nrow(k) == 0L) return(invisible(x))
  graphics::lines(k$x, k$fit, type = "S", col = col, lwd = lwd, ...)
  if (do.points) {
    end <- block_ends(k)
    graphics::points(k$x[end], k$fit[end], col = col, pch = pch)
  }
  invisible(x)
}

# The cumulative sum diagram (W_j, S_j) of the pooled points and the
# piecewise-linear curve through the fit's block ends.
plot_cumsum <- function(x, col, lwd, pch) {
  k <- x$knots
  cw <- c(0, cumsum(k$w))
  cs <- c(0, cumsum(k$w * k$y))
  cf <- c(0, cumsum(k$w * k$fit))
  graphics::plot(cw, cs, pch = pch, xlab = "cumulative weight",
                 ylab = "cumulative sum of w * y",
                 main = if (x$decreasing) "Least concave majorant"
                        else "Greatest convex minorant")
  graphics::lines(cw, cf, col = col, lwd = lwd)
}

#' Plot an isotonic regression fit
#'
#' The plot of [stats::isoreg()] fits, with the same arguments and the same
#' meaning: the data and the fitted step function with its knots marked;
#' with `plot.type = "row.wise"` or `"col.wise"` a second panel shows the
#' cumulative sums of the data (of the weighted data for weighted fits)
#' with their greatest convex minorant (least concave majorant for
#' decreasing fits), whose slopes are the fitted values. `lines()` adds the
#' fitted step function to a plot. The axes are labelled with the names of
#' the variables.
#'
#' @param x A fit from [isoreg()].
#' @param plot.type `"single"`, or `"row.wise"` / `"col.wise"` for two
#'   panels (one above the other, or side by side); a unique abbreviation
#'   works, as in stats' plot. Where the cumulative sums of the second panel
#'   exceed the range of doubles, they are drawn scaled by a power of two,
#'   which the axis label gives.
#' @param main,main2 Titles of the plot and of its second panel.
#' @param xlab,ylab Axis labels; by default the names of the variables.
#' @param par.fit A list of graphical parameters (`col`, `cex`, `pch`,
#'   `lwd`) for the fitted line and its knots; missing ones take their
#'   defaults.
#' @param mar,mgp Margins and axis label placement ([graphics::par()]).
#' @param grid Draw a grid?
#' @param col,lwd,cex,pch For `lines()`: colour, width, size and symbol.
#' @param do.points For `lines()`: also mark the knots.
#' @param ... Graphical parameters passed to [graphics::plot.default()]
#'   (for `plot()`) or [graphics::lines()]; other arguments are an error.
#' @return `x`, invisibly.
#' @examples
#' set.seed(1)
#' x <- sort(runif(60, 0, 3))
#' y <- x + rnorm(60, sd = 0.5)
#' fit <- isoreg(x, y)
#' plot(fit)
#' plot(fit, plot.type = "row.wise")
#' @export
plot.gpuiso_isoreg <- function(x, plot.type = c("single", "row.wise", "col.wise"),
                               main = paste("Isotonic regression",
                                            format_call(x$call)),
                               main2 = paste("Cumulative Data and",
                                             if (x$decreasing) "Concave Majorant"
                                             else "Convex Minorant"),
                               xlab = x$xname %||% "x0", ylab = x$yname %||% "x$y",
                               par.fit = list(col = "red", cex = 1.5, pch = 13,
                                              lwd = 1.5),
                               mar = if (both) 0.1 + c(3.5, 2.5, 1, 1) else graphics::par("mar"),
                               mgp = if (both) c(1.6, 0.7, 0) else graphics::par("mgp"),
                               grid = length(x$x) < 12L, ...) {
  check_graphics_dots(..., fn = "plot()")
  plot.type <- check_choice(plot.type, c("single", "row.wise", "col.wise"),
                            "plot.type", sys.call(), partial = TRUE)
  check_flag(grid, "grid", sys.call())
  if (!is.null(par.fit) && !is.list(par.fit)) {
    abort_input(sprintf(paste0("`par.fit` must be a list of graphical parameters, such as ",
                               "`list(col = \"blue\")`, not %s."), describe_type(par.fit)),
                sys.call(), arg = "par.fit")
  }
  both <- plot.type != "single"
  pf <- utils::modifyList(list(col = "red", cex = 1.5, pch = 13, lwd = 1.5),
                          as.list(par.fit))
  op <- if (both) {
    graphics::par(mfcol = if (plot.type == "col.wise") c(1L, 2L) else c(2L, 1L),
                  oma = c(0, 0, if (!is.null(main)) 2 else 0, 0), mar = mar,
                  mgp = mgp)
  } else {
    graphics::par(mar = mar, mgp = mgp)
  }
  on.exit(graphics::par(op))
  n <- length(x$yf)
  if (n == 0L) {
    graphics::plot.new()
    graphics::title(main = main, xlab = xlab, ylab = ylab)
    return(invisible(x))
  }
  o <- if (x$isOrd) seq_len(n) else x$ord
  xx <- x$x[o]
  x0 <- c(point_before(xx), xx)
  grDevices::dev.hold()
  on.exit(grDevices::dev.flush(), add = TRUE)
  graphics::plot(x0, c(NA, x$y[o]), ..., xlab = xlab, ylab = ylab,
                 main = if (!both) main)
  graphics::lines(xx, x$yf, col = pf$col, lwd = pf$lwd, type = "S")
  graphics::points(xx[x$iKnots], x$yf[x$iKnots], col = pf$col, cex = pf$cex,
                   pch = pf$pch)
  if (grid) graphics::grid()
  if (both) {
    cs <- cumulative_sums(x, o)
    cy <- cs$cy
    cf <- cs$cf
    graphics::plot(x0, cy, type = "n", xlab = xlab,
                   ylab = paste0("cumsum(", if (!is.null(x$weights)) "w * ", ylab, ")",
                                 if (cs$scale != 0) sprintf(" / 2^%.0f", cs$scale)),
                   ylim = range(cy, cf), ...)
    i <- 1L + x$iKnots
    graphics::lines(x0, cf, col = pf$col, lwd = pf$lwd)
    graphics::points(x0[i], cy[i], col = pf$col, cex = pf$cex, pch = pf$pch)
    if (grid) {
      graphics::abline(v = x0[i], col = "lightgray", lty = "dotted",
                       xpd = plot.type != "col.wise")
    }
    graphics::points(x0[-1L], cy[-1L])
    if (!is.null(main2)) {
      graphics::mtext(main2, cex = graphics::par("cex.main"),
                      col = graphics::par("col.main"),
                      font = graphics::par("font.main"))
    }
    if (!is.null(main)) {
      graphics::mtext(main, side = 3, outer = TRUE, cex = graphics::par("cex.main"),
                      col = graphics::par("col.main"),
                      font = graphics::par("font.main"))
    }
  }
  invisible(x)
}

# The abscissa of the origin of the cumulative sum diagram: one mean step
# before the first x, as stats' plot has it (the mean step from halves, and
# the point within the doubles, where x spans the whole range).
point_before <- function(xx) {
  n <- length(xx)
  if (n < 2L) return(xx[1L] - 1)
  step <- (xx[n] / 2 - xx[1L] / 2) / (n - 1) * 2
  max(xx[1L] - step, -.Machine$double.xmax)
}

# The cumulative sums of the data (`cy`, of the weighted data for weighted
# fits) and of the fit (`cf`), from 0, in the order `o`. Where they exceed
# the range of doubles they are of the data scaled by 2^-scale (a power of
# two: the diagram's shape is exact), and `scale` says by how much.
cumulative_sums <- function(x, o) {
  w <- if (is.null(x$weights)) 1 else x$weights[o]
  y <- x$y[o]
  cy <- if (is.null(x$weights)) x$yc else c(0, cumsum(w * y))
  cf <- c(0, cumsum(w * x$yf))
  if (all(is.finite(cy)) && all(is.finite(cf))) return(list(cy = cy, cf = cf, scale = 0))
  # |y| and |yf| below 2^ey, weights below 2^ew: the scaled sums are at
  # most the number of points
  ey <- floor(log2(max(abs(y), abs(x$yf)))) + 1
  ew <- floor(log2(max(w))) + 1
  ws <- w * 2^-ew
  ys <- y * 2^-ey
  list(cy = c(0, cumsum(ws * ys)), cf = c(0, cumsum(ws * (x$yf * 2^-ey))),
       scale = ey + ew)
}

#' @rdname plot.gpuiso_isoreg
#' @export
lines.gpuiso_isoreg <- function(x, col = "red", lwd = 1.5, do.points = FALSE,
                                cex = 1.5, pch = 13, ...) {
  check_graphics_dots(..., fn = "lines()")
  n <- length(x$yf)
  if (n == 0L) return(invisible(x))
  xx <- if (x$isOrd) x$x else x$x[x$ord]
  graphics::lines(xx, x$yf, col = col, lwd = lwd, type = "S", ...)
  if (do.points) {
    graphics::points(xx[x$iKnots], x$yf[x$iKnots], col = col, cex = cex,
                     pch = pch)
  }
  invisible(x)
}

# Several forecasts' CORP diagrams for one outcome: reliability_diagram()
# of a data frame, list or matrix of forecasts returns a named list of
# "gpuiso_reliability" objects of class "gpuiso_reliability_set".

#' Several CORP reliability diagrams
#'
#' [reliability_diagram()] of a data frame, a list or a matrix of forecasts
#' (one column per forecast, all for the same outcomes) returns one diagram
#' per forecast, each as a call of its own would give it, in a named list of
#' class `"gpuiso_reliability_set"`. `summary()` returns their decompositions
#' as a data frame of one row per forecast, `print()` shows it, and `plot()`
#' draws one panel per forecast. `x[["name"]]` is one forecast's diagram.
#'
#' @param x,object A `"gpuiso_reliability_set"` object.
#' @param digits Significant digits to print: a whole number from 1 to 22
#'   (`NULL` for the default).
#' @param i Which diagrams to keep, as for a list: names, positions
#'   (negative ones drop) or a logical vector; at least one must be kept, and
#'   an index that names no diagram is an error.
#' @param ... For `plot()`, graphical parameters and arguments of
#'   [plot.gpuiso_reliability()] (such as `lwd`), given to every panel;
#'   anything else, and any argument to `print()` or `summary()`, is an
#'   error that names it.
#' @param mfrow The panels' layout, as [par()] takes it; `NULL` for a
#'   grid that holds them all ([grDevices::n2mfrow()]).
#' @return `summary()`: a data frame with columns `forecast`, `n`, `score`,
#'   `mcb`, `dsc`, `unc` and `p_value` (see [summary.gpuiso_reliability()]).
#'   `print()` and `plot()`: `x`, invisibly. `[`: the set of the diagrams
#'   kept.
#' @seealso [reliability_diagram()].
#' @export
#' @examples
#' set.seed(3)
#' p <- runif(2000)
#' y <- rbinom(2000, 1, p)
#' fc <- data.frame(calibrated = p, sharp = pmin(1, pmax(0, 1.5 * p - 0.25)),
#'                  flat = 0.5 + (p - 0.5) / 3)
#' r <- reliability_diagram(fc, y, resamples = 50)
#' r
#' summary(r)
#' plot(r)
summary.gpuiso_reliability_set <- function(object, ...) {
  check_dots(..., fn = "summary()")
  out <- do.call(rbind, lapply(unclass(object), summary))
  rownames(out) <- NULL
  out
}

#' @rdname summary.gpuiso_reliability_set
#' @export
print.gpuiso_reliability_set <- function(x, digits = 4L, ...) {
  check_dots(..., fn = "print()")
  digits <- check_digits(digits, sys.call(), 4L)
  first <- x[[1L]]
  out <- first$variables[["outcome"]]
  cat(sprintf("CORP reliability diagrams of %s%s: %s each\n",
              count_noun(length(x), "forecast"),
              if (is.na(out)) "" else paste0(" for ", out),
              count_noun(first$n, "forecast")))
  print(summary(x), digits = digits)
  if (!is.null(first$band)) {
    cat(sprintf("%s%% %s bands from %s\n", format(100 * first$level),
                first$band_type, count_noun(first$resamples, "resample")))
  }
  invisible(x)
}

#' @rdname summary.gpuiso_reliability_set
#' @param xlab,ylab,main,xlim,ylim As for [plot.gpuiso_reliability()], for
#'   every panel (`main` defaults to each forecast's name).
#' @export
plot.gpuiso_reliability_set <- function(x, xlab = NULL, ylab = NULL, main = NULL, ...,
                                        xlim = c(0, 1), ylim = c(0, 1), mfrow = NULL) {
  check_graphics_dots(..., fn = "plot()")
  k <- length(x)
  if (is.null(mfrow)) mfrow <- grDevices::n2mfrow(k)
  op <- graphics::par(mfrow = mfrow)
  on.exit(graphics::par(op))
  for (j in seq_len(k)) {
    plot(x[[j]], xlab = xlab, ylab = ylab,
         main = if (is.null(main)) names(x)[[j]] else main, ..., xlim = xlim, ylim = ylim)
  }
  invisible(x)
}

#' @rdname summary.gpuiso_reliability_set
#' @export
`[.gpuiso_reliability_set` <- function(x, i) {
  # `[` on the diagrams' positions, named: an index that names no diagram
  # gives NA (an unusable one fails), and the set must keep at least one
  pos <- tryCatch(stats::setNames(seq_along(x), names(x))[i], error = function(e) NA)
  if (!length(pos) || anyNA(pos)) {
    abort_input(sprintf(paste0("`i` must select at least one of the %d diagrams (%s) by ",
                               "name, position or a logical vector."),
                        length(x), paste0("`", names(x), "`", collapse = ", ")),
                sys.call(), arg = "i")
  }
  structure(unclass(x)[pos], class = class(x))
}

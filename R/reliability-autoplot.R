# ggplot2 versions of the reliability plots, registered as autoplot()
# methods when ggplot2 is loaded (it is suggested, not imported).

#' Reliability diagrams with ggplot2
#'
#' `autoplot()` methods (for [ggplot2::autoplot()], registered when
#' ggplot2 is installed) that draw what [plot.gpuiso_reliability()] draws:
#' the CORP curve, its band, the diagonal and a histogram of the
#' forecasts, with the decomposition in the panel's title; one panel per
#' forecast for a [set][summary.gpuiso_reliability_set] of them.
#'
#' @param object A `"gpuiso_reliability"` or `"gpuiso_reliability_set"`
#'   object.
#' @param ... Nothing: any argument is an error that names it.
#' @return A ggplot object.
#' @name autoplot.gpuiso_reliability
#' @examplesIf requireNamespace("ggplot2", quietly = TRUE)
#' set.seed(2)
#' p <- runif(2000)
#' y <- rbinom(2000, 1, p^1.5)
#' ggplot2::autoplot(reliability_diagram(p, y, resamples = 50))
NULL

#' @rdname autoplot.gpuiso_reliability
#' @exportS3Method ggplot2::autoplot
autoplot.gpuiso_reliability <- function(object, ...) {
  check_dots(..., fn = "autoplot()")
  reliability_ggplot(list(object), NA_character_)
}

#' @rdname autoplot.gpuiso_reliability
#' @exportS3Method ggplot2::autoplot
autoplot.gpuiso_reliability_set <- function(object, ...) {
  check_dots(..., fn = "autoplot()")
  reliability_ggplot(unclass(object), names(object))
}

# The panels of diagrams d (a list), named by `labels` (NA: the forecast
# variable's name, if known).
reliability_ggplot <- function(d, labels) {
  .data <- NULL # the data mask's pronoun; a binding for R CMD check
  title <- vapply(seq_along(d), function(k) {
    nm <- if (is.na(labels[[k]])) d[[k]]$variables[["forecast"]] else labels[[k]]
    dec <- sprintf("MCB %.4f, DSC %.4f, UNC %.4f", d[[k]]$mcb, d[[k]]$dsc, d[[k]]$unc)
    if (is.null(nm) || is.na(nm)) dec else sprintf("%s: %s", nm, dec)
  }, "")
  panel <- function(k, df) {
    if (is.null(df) || !nrow(df)) return(NULL)
    df$panel <- factor(title[[k]], levels = title)
    df
  }
  br <- seq(0, 1, by = 0.05)
  curve <- do.call(rbind, lapply(seq_along(d), function(k) panel(k, d[[k]]$curve)))
  band <- do.call(rbind, lapply(seq_along(d), function(k) {
    b <- d[[k]]$band
    panel(k, if (!is.null(b)) b[!is.na(b$lower) & !is.na(b$upper), ])
  }))
  hist <- do.call(rbind, lapply(seq_along(d), function(k) {
    h <- reliability_histogram(d[[k]]$curve, br)
    panel(k, data.frame(xmin = br[-length(br)], xmax = br[-1L], top = 0.2 * h / max(1, h)))
  }))
  g <- ggplot2::ggplot() +
    ggplot2::geom_rect(data = hist, ggplot2::aes(xmin = .data$xmin, xmax = .data$xmax,
                                                 ymin = 0, ymax = .data$top),
                       fill = "grey90", colour = "grey75")
  if (!is.null(band)) {
    g <- g + ggplot2::geom_ribbon(data = band, ggplot2::aes(x = .data$forecast,
                                                            ymin = .data$lower,
                                                            ymax = .data$upper),
                                  fill = "steelblue", alpha = 0.3)
  }
  g + ggplot2::geom_abline(slope = 1, intercept = 0, linetype = 2, colour = "grey40") +
    ggplot2::geom_step(data = curve, ggplot2::aes(x = .data$forecast, y = .data$calibrated),
                       colour = "firebrick3", linewidth = 0.8) +
    ggplot2::facet_wrap(~panel) +
    ggplot2::coord_cartesian(xlim = c(0, 1), ylim = c(0, 1)) +
    ggplot2::labs(x = "forecast probability", y = "conditional event probability")
}

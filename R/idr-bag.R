#' IDR predictions by subagging
#'
#' Fits [idr()] on `b` random subsamples of the data and averages the
#' predictive CDFs at new points over them (subsample aggregating, as
#' `idrbag()` of the 'isodistrreg' package does). Each fit on a subsample
#' costs far less than the fit on all the data where the time grows faster
#' than the sample (several covariates), and the average is smoother than
#' one fit's steps.
#'
#' Each subsample has `ceiling(p * n)` observations drawn with R's random
#' number generator (`set.seed()` makes it reproducible), without
#' replacement unless `replace = TRUE` (bagging). A subsample whose
#' weights are all zero has no fit and is left out of the mean (an error
#' when every one is). Each fit's prediction at
#' `newdata` (by the rule of [predict.gpuiso_idr()]) is evaluated at the
#' `grid`, and the predictive CDF is the mean of these values, a step
#' function on the grid. The result is a set of predictions like those of
#' [predict.gpuiso_idr()]: [cdf()], [qpred()], [crps()], [pit()],
#' [bscore()], [qscore()] and `plot()` take it.
#'
#' @param y,X,weights The data, as for [idr()] (the default interface: a
#'   numeric response, the covariates as a vector, a matrix or a data
#'   frame, and optional weights). Rows with a missing value are left out.
#' @param newdata The covariates of the new points: a vector for one
#'   covariate, else a data frame or matrix with the covariates' columns.
#' @param b The number of subsamples: a whole number from 1.
#' @param p The size of each subsample as a share of the observations, in
#'   (0, 1\], at least two observations.
#' @param replace Draw the subsamples with replacement?
#' @param grid The thresholds at which the CDFs are averaged: `NULL` for the
#'   distinct values of `y`, or numbers (sorted, with the largest `y`
#'   appended when the grid lies below it, so that every CDF reaches 1).
#' @param interpolation For one covariate, the rule between fitted values
#'   (see [predict.gpuiso_idr()]); not used with several.
#' @inheritParams idr
#' @return An object of class `"gpuiso_idr_pred"`, one prediction per row
#'   of `newdata`.
#' @seealso [idr()], and [crps()] to score the predictions.
#' @export
#' @examples
#' aq <- na.omit(airquality[c("Ozone", "Temp", "Wind")])
#' set.seed(1)
#' p <- idrbag(aq$Ozone, aq[c("Temp", "Wind")], decreasing = c(FALSE, TRUE),
#'             newdata = data.frame(Temp = c(70, 90), Wind = c(10, 5)),
#'             b = 20, p = 0.5)
#' cdf(p, c(30, 60, 90))
#' qpred(p, 0.5)
idrbag <- function(y, X, weights = NULL, newdata, b, p, replace = FALSE, grid = NULL,
                   groups = NULL, orders = c(comp = 1), decreasing = FALSE,
                   interpolation = c("constant", "linear"),
                   device = getOption("gpuiso.device", "auto")) {
  call <- sys.call()
  if (missing(newdata)) abort_input("`newdata` is missing: give the new points.", call)
  check_whole_number(b, "b", call, 1, .Machine$integer.max, "a whole number from 1")
  if (!is.numeric(p) || length(p) != 1L || is.na(p) || !(p > 0 && p <= 1)) {
    abort_input("`p` must be one number in (0, 1]: the share of the data in each subsample.",
                call, arg = "p")
  }
  check_flag(replace, "replace", call)
  interpolation <- check_choice(interpolation, c("constant", "linear"), "interpolation",
                                call)
  input <- idr_default_input(y, X, weights, stats::na.omit, substitute(y), substitute(X),
                             call)
  n <- length(input$y)
  size <- ceiling(p * n)
  if (size < 2L) {
    abort_input(sprintf("A subsample of %.0f observations (`p` times %.0f) is too small: it needs at least two.",
                        size, n), call, arg = "p")
  }
  several <- is.data.frame(input$x)
  grid <- idr_thresholds(grid, input$y, call, arg = "grid")
  G <- NULL
  names <- NULL
  newx <- NULL
  used <- 0L
  for (r in seq_len(b)) {
    s <- sample.int(n, size, replace = replace)
    # one covariate as a column under its own name, by which idr() checks
    # the names of `decreasing` and `groups` and predict() finds it
    xs <- if (several) input$x[s, , drop = FALSE]
          else stats::setNames(data.frame(input$x[s]), input$xname)
    ws <- input$w[s]
    # a subsample of weight zero has no fit: it is left out of the mean
    if (!is.null(ws) && !any(ws > 0)) next
    used <- used + 1L
    # errors of the fit or of the new points are idrbag()'s
    pred <- tryCatch({
      fit <- idr(input$y[s], xs, weights = ws, device = device, groups = groups,
                 orders = orders, decreasing = decreasing)
      fit$xname <- input$xname
      fit$yname <- input$yname
      if (inherits(fit, "gpuiso_idr_po")) predict(fit, newdata)
      else predict(fit, newdata, interpolation = interpolation)
    }, gpuiso_error = function(e) {
      e$call <- call
      stop(e)
    })
    if (is.null(G)) {
      up <- unclass(pred)
      names <- up$names
      newx <- up$x
      G <- matrix(0, length(up$j), length(grid))
    }
    G <- G + cdf(pred, grid)
  }
  if (is.null(G)) {
    abort_input("Every subsample had only observations of weight zero.", call,
                arg = "weights")
  }
  G <- G / used
  idr_pred_from_matrix(G, grid, input$yname, input$xname, newx, names)
}

# Predictions whose CDFs are the rows of G (NA rows: missing predictions)
# at the thresholds, stored as the blocks of a fit over the predictions
# (in the order of their summed CDF values, which keeps the runs long).
idr_pred_from_matrix <- function(G, thresholds, yname, xname, x, names) {
  q <- nrow(G)
  K <- ncol(G)
  ok <- which(!is.na(G[, 1L]))
  j <- rep.int(NA_integer_, q)
  tab <- list(ptr = rep(0, K + 1L), start = integer(), value = numeric(), npoints = 0,
              thresholds = thresholds, yname = yname, xname = xname)
  if (length(ok)) {
    Gs <- G[ok, , drop = FALSE]
    o <- order(-rowSums(Gs))
    Gs <- Gs[o, , drop = FALSE]
    nq <- length(ok)
    change <- if (nq > 1L) rbind(TRUE, Gs[-1L, , drop = FALSE] != Gs[-nq, , drop = FALSE])
              else matrix(TRUE, 1L, K)
    idx <- which(change)
    tab$ptr <- as.double(c(0, cumsum(colSums(change))))
    tab$start <- as.integer((idx - 1) %% nq)
    tab$value <- Gs[idx]
    tab$npoints <- nq
    pos <- integer(nq)
    pos[o] <- seq_len(nq) - 1L
    j[ok] <- pos
  }
  new_idr_pred(tab, x, j, numeric(q), names)
}

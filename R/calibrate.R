#' Isotonic calibration of classifier scores
#'
#' Maps scores to observed event rates with a non-decreasing curve
#' (Zadrozny and Elkan, 2002): the scores are sorted, tied scores are pooled
#' into one point (the weighted mean of their outcomes, so that equal scores
#' always get one calibrated value), and the isotonic regression of the
#' outcomes on the scores is fitted by the engine of [isotonic()]. With
#' `groups`, each group gets its own curve, and all curves are fitted in one
#' batched engine call.
#'
#' On the GPU (`device = "gpu"`, or `"auto"` from 2^16 scores when one is
#' available) the sort, the pooling of ties and the fit all run on the
#' device: only the scores, outcomes and weights go there and only the
#' curves come back. Zero weights are pooled on the CPU and fitted on the
#' GPU.
#'
#' @param scores Finite numeric scores, on any scale (probabilities, logits,
#'   margins): only their order matters.
#' @param outcomes The observed outcomes, one per score: logical, 0/1, or
#'   probabilities in \[0, 1\].
#' @param weights `NULL` (all weights one), or non-negative finite weights,
#'   one per score, not all zero within a group.
#' @param groups `NULL` for one curve, or one label per score: one curve per
#'   distinct label. Every group needs at least two distinct scores.
#' @inheritParams isotonic
#' @return An object of class `"gpuiso_calibration"`: a list with `curves`
#'   (one data frame per group, with the distinct `score`s, the calibrated
#'   `value` at each, and the summed `weight` of the scores pooled there),
#'   `groups` (the labels, or `NULL`), `n` (the number of scores), `device`
#'   (the engine that fitted) and `call`. It has methods for [print()],
#'   [summary()], [plot()] and [predict()][predict.gpuiso_calibration].
#' @references
#' Zadrozny, B. and Elkan, C. (2002). Transforming classifier scores into
#' accurate multiclass probability estimates. In *Proceedings of the 8th ACM
#' SIGKDD International Conference on Knowledge Discovery and Data Mining*,
#' 694--699. \doi{10.1145/775047.775151}
#' @seealso [reliability_diagram()] and [calibration_error()] to assess
#'   forecasts; [isotonic()] for the engine.
#' @export
#' @examples
#' set.seed(1)
#' score <- runif(2000)
#' click <- rbinom(2000, 1, score^2) # the scores are too high
#' cal <- iso_calibrate(score, click)
#' cal
#' predict(cal, c(0.1, 0.5, 0.9))
#'
#' # one curve per segment, in one call
#' segment <- sample(c("a", "b", "c"), 2000, replace = TRUE)
#' cal_seg <- iso_calibrate(score, click, groups = segment)
#' predict(cal_seg, c(0.5, 0.5), groups = c("a", "c"))
iso_calibrate <- function(scores, outcomes, weights = NULL, groups = NULL,
                          device = getOption("gpuiso.device", "auto")) {
  call <- sys.call()
  scores <- as.vector(check_values(scores, "scores", call))
  outcomes <- check_unit_interval(outcomes, "outcomes", call)
  check_same_length(scores, outcomes, "scores", "outcomes", call)
  if (!is.null(weights)) {
    weights <- as.vector(check_values(weights, "weights", call, nonneg = TRUE))
    check_same_length(scores, weights, "scores", "weights", call)
  }
  if (!length(scores)) abort_input("`scores` must not be empty.", call)
  g <- check_labels(groups, length(scores), call)
  label <- function(b) {
    if (is.null(g)) NULL else sprintf("group %s", encodeString(g$labels[b], quote = "\""))
  }
  device <- resolve_device(device, length(scores), call)
  # On the GPU the sort and the pooling of ties happen on the device too;
  # zero weights (rare) are pooled on the CPU, as is anything the device
  # sort cannot take.
  pooled <- NULL
  if (device == "gpu" && (is.null(weights) || min(weights) > 0)) {
    pooled <- gpu_calibrate(scores, outcomes, weights, g, call)
  }
  if (is.null(pooled)) {
    pooled <- pool_scores(scores, outcomes, weights, g)
    check_distinct_scores(pooled$offsets, label, call)
    if (!is.null(weights)) check_weights_positive(pooled$weight, pooled$offsets, label, call)
    # the pooled points weigh what they pool: counts, or summed weights
    res <- engine_fit(pooled$value, pooled$weight, pooled$offsets,
                      decreasing = FALSE, device = device, call = call)
    pooled$value <- pmin(pmax(res$fit, 0), 1)
    pooled$device <- res$device
  } else {
    check_distinct_scores(pooled$offsets, label, call)
  }
  curves <- split_curves(pooled)
  names(curves) <- g$labels
  structure(list(curves = curves, groups = g$labels, n = length(scores),
                 device = pooled$device, call = call),
            class = "gpuiso_calibration")
}

# Sorted, pooled and fitted on the GPU: list(score, value, weight, offsets,
# device), or NULL when the CPU must prepare the points instead.
gpu_calibrate <- function(scores, outcomes, weights, g, call) {
  res <- .Call(ffi_gpu_calibrate, scores, outcomes, weights, g$code,
               length(g$labels))
  if (!is.null(res$error)) {
    if (identical(res$status, gpu_status_range)) return(NULL)
    abort_gpu(res$error, call)
  }
  res$device <- "gpu"
  res
}

# One data frame per group (no copies for a single curve).
split_curves <- function(pooled) {
  off <- pooled$offsets
  if (length(off) == 2L) {
    return(list(curve_frame(pooled$score, pooled$value, pooled$weight)))
  }
  lapply(seq_len(length(off) - 1L), function(b) {
    i <- seq.int(off[b] + 1, off[b + 1L])
    curve_frame(pooled$score[i], pooled$value[i], pooled$weight[i])
  })
}

# data.frame() checks and copies its columns; these are fresh and valid.
curve_frame <- function(score, value, weight) {
  structure(list(score = score, value = value, weight = weight),
            class = "data.frame", row.names = c(NA_integer_, -length(score)))
}

# Every group needs two distinct scores: a curve through one point says
# nothing about the scores around it.
check_distinct_scores <- function(offsets, label, call) {
  b <- which(diff(offsets) < 2)[1L]
  if (is.na(b)) return(invisible())
  where <- label(b)
  abort_input(sprintf("`scores` must have at least two distinct values%s.",
                      if (is.null(where)) "" else paste(" in", where)), call)
}

#' Calibrated probabilities for new scores
#'
#' Evaluates the curves of [iso_calibrate()] at new scores: between the
#' fitted scores by linear interpolation (the default) or as a step
#' function (the value at the nearest fitted score at or below), and outside
#' them by the value at the nearer end (clipped to the fitted range). The
#' results lie in \[0, 1\].
#'
#' @param object A `"gpuiso_calibration"` object.
#' @param newscores Numeric scores; `NA` gives `NA`.
#' @param groups For a calibration fitted with `groups`, one label per new
#'   score (or one label for all); every label must have been seen in the
#'   fit.
#' @param interpolation `"linear"` or `"constant"`.
#' @param ... Unused.
#' @return The calibrated probabilities, one per new score.
#' @export
#' @examples
#' cal <- iso_calibrate(c(0.1, 0.4, 0.35, 0.8), c(0, 1, 0, 1))
#' predict(cal, c(0, 0.2, 0.5, 1))
#' predict(cal, c(0, 0.2, 0.5, 1), interpolation = "constant")
predict.gpuiso_calibration <- function(object, newscores, groups = NULL,
                                       interpolation = c("linear", "constant"),
                                       ...) {
  call <- sys.call()
  interpolation <- check_choice(interpolation, c("linear", "constant"),
                                "interpolation", call)
  if (!(is.numeric(newscores) || is.logical(newscores) && all(is.na(newscores)))) {
    abort_input(sprintf("`newscores` must be numeric, not %s.",
                        describe_type(newscores)), call)
  }
  x <- as.double(newscores)
  code <- prediction_groups(object, groups, length(x), call)
  out <- rep(NA_real_, length(x))
  # one split of the indices, not one scan of them per group
  for (i in split(seq_along(x), code)) {
    out[i] <- eval_curve(object$curves[[code[i[1L]]]], x[i], interpolation)
  }
  out
}

prediction_groups <- function(object, groups, n, call) {
  if (is.null(object$groups)) {
    if (!is.null(groups)) {
      abort_input("`groups` must be NULL: the calibration was fitted without groups.",
                  call)
    }
    return(rep.int(1L, n))
  }
  if (is.null(groups)) {
    abort_input(paste0("`groups` must give the group of each new score: the ",
                       "calibration has one curve per group."), call)
  }
  if (length(groups) == 1L) groups <- rep(groups, n)
  if (length(groups) != n) {
    abort_input(sprintf(paste0("`groups` must have one label per new score: ",
                               "`newscores` has length %.0f, `groups` has length %.0f."),
                        n, length(groups)), call)
  }
  code <- match(as.character(groups), object$groups)
  bad <- which(is.na(code))[1L]
  if (!is.na(bad)) {
    abort_input(sprintf("`groups` must be groups seen in the fit: %s (element %.0f) is not one.",
                        encodeString(as.character(groups[bad]), quote = "\""), bad),
                call)
  }
  code
}

eval_curve <- function(curve, x, interpolation) {
  s <- curve$score
  v <- curve$value
  ok <- !is.na(x)
  out <- rep(NA_real_, length(x))
  if (interpolation == "linear") {
    out[ok] <- stats::approx(s, v, xout = x[ok], rule = 2, ties = "ordered")$y
  } else {
    out[ok] <- v[pmax(findInterval(x[ok], s), 1L)]
  }
  pmin(pmax(out, 0), 1)
}

#' @export
print.gpuiso_calibration <- function(x, ...) {
  k <- length(x$curves)
  pts <- sum(vapply(x$curves, nrow, 1L))
  blocks <- sum(vapply(x$curves, function(cv) count_runs(cv$value), 1))
  cat(sprintf("Isotonic calibration of %.0f scores (%.0f distinct)%s, fitted on the %s\n",
              x$n, pts, if (k > 1L || !is.null(x$groups)) sprintf(" in %d groups", k) else "",
              toupper(x$device)))
  cat(sprintf("  %.0f steps in all; calibrated values from %.4g to %.4g\n", blocks,
              min(vapply(x$curves, function(cv) min(cv$value), 0)),
              max(vapply(x$curves, function(cv) max(cv$value), 0))))
  invisible(x)
}

count_runs <- function(v) if (length(v)) 1 + sum(diff(v) != 0) else 0

#' @export
summary.gpuiso_calibration <- function(object, ...) {
  rows <- lapply(object$curves, function(cv) {
    data.frame(distinct = nrow(cv),
               steps = count_runs(cv$value), min_score = min(cv$score),
               max_score = max(cv$score),
               mean_outcome = sum(cv$weight * cv$value) / sum(cv$weight),
               min_value = min(cv$value), max_value = max(cv$value))
  })
  tab <- do.call(rbind, rows)
  rownames(tab) <- if (is.null(object$groups)) "all" else object$groups
  structure(list(table = tab, n = object$n, device = object$device),
            class = "summary.gpuiso_calibration")
}

#' @export
print.summary.gpuiso_calibration <- function(x, ...) {
  cat(sprintf("Isotonic calibration of %.0f scores, fitted on the %s\n", x$n,
              toupper(x$device)))
  print(x$table, digits = 4)
  invisible(x)
}

#' @export
plot.gpuiso_calibration <- function(x, group = 1L, interpolation = c("linear", "constant"),
                                    xlab = "score", ylab = "calibrated probability",
                                    main = NULL, ...) {
  call <- sys.call()
  interpolation <- check_choice(interpolation, c("linear", "constant"),
                                "interpolation", call)
  b <- if (is.character(group)) match(group, x$groups) else as.integer(group)
  if (length(b) != 1L || is.na(b) || b < 1L || b > length(x$curves)) {
    abort_input("`group` must name or number one group of the calibration.", call)
  }
  cv <- x$curves[[b]]
  if (is.null(main)) {
    main <- if (is.null(x$groups)) "Isotonic calibration"
            else paste("Isotonic calibration, group", x$groups[b])
  }
  graphics::plot(range(cv$score), c(0, 1), type = "n", xlab = xlab, ylab = ylab,
                 main = main, ...)
  # the scores' histogram, scaled to the lower quarter of the panel
  br <- pretty(range(cv$score), 30)
  h <- as.vector(rowsum(cv$weight, findInterval(cv$score, br, rightmost.closed = TRUE),
                        reorder = TRUE))
  bins <- sort(unique(findInterval(cv$score, br, rightmost.closed = TRUE)))
  graphics::rect(br[bins], 0, br[bins + 1L], 0.25 * h / max(h), col = "grey90",
                 border = "grey75")
  graphics::lines(cv$score, cv$value, type = if (interpolation == "linear") "l" else "s",
                  lwd = 2, col = "steelblue4")
  invisible(x)
}

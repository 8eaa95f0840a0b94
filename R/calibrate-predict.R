#' Calibrated probabilities for new scores
#'
#' Evaluates the curves of [iso_calibrate()] at new scores by the one
#' prediction rule of the package, described in [prediction]: by default
#' (`interpolation = "constant"`) the left-continuous step of
#' [stats::as.stepfun()] on an isotonic regression fit, which at a score
#' between two fitted scores takes the calibrated value of the next fitted
#' score above it, and the same as `predict()` of an [isoreg()] fit of the
#' pooled data; with `interpolation = "linear"`, the linear interpolation
#' between the two (the rule of scikit-learn's `IsotonicRegression`).
#' Outside the fitted scores, `out_of_bounds` decides. The results lie in
#' \[`y_min`, `y_max`\] (\[0, 1\] by default).
#'
#' @param object A `"gpuiso_calibration"` object.
#' @param newdata The new scores: a numeric vector, or a data frame that
#'   holds the score variable of the fit (found by its name, or the only
#'   column) and, for a fit with groups, the group variable. `NA` gives
#'   `NA`. Without it, the in-sample calibrated values of the fit's scores,
#'   as [fitted()][fitted.gpuiso_calibration].
#' @param groups For a calibration fitted with groups, one label per new
#'   score (or one label for all); taken from `newdata` when it is a data
#'   frame with the group variable. Every label must have been seen in the
#'   fit; an `NA` label gives `NA`.
#' @param newscores The former name of `newdata`, still accepted (not
#'   together with `newdata`).
#' @param ... No further arguments: an argument that `predict()` does not
#'   know is an error that names it.
#' @inheritParams prediction
#' @return The calibrated probabilities, one per new score; without
#'   `newdata`, one per observation of the fit (with `NA` for those left out
#'   by [na.exclude()]).
#' @seealso [prediction] for the rule; [iso_calibrate()].
#' @export
#' @examples
#' cal <- iso_calibrate(c(0.1, 0.4, 0.35, 0.8), c(0, 0, 1, 1))
#' cal$curves[[1]]                        # calibrated 0, 0.5, 0.5, 1
#' predict(cal, c(0, 0.2, 0.5, 1))        # the step: 0, 0.5, 1, 1
#' predict(cal, c(0, 0.2, 0.5, 1), interpolation = "linear") # 0, 0.2, 0.625, 1
#' predict(cal, c(0, 0.2, 0.5, 1), out_of_bounds = "na")     # NA, 0.5, 1, NA
#' predict(cal)                           # in-sample: 0, 0.5, 0.5, 1
#'
#' # a data frame of new data is searched for the score (and group) variable
#' d <- data.frame(s = c(0.1, 0.4, 0.35, 0.8, 0.2, 0.6),
#'                 y = c(0, 1, 0, 1, 0, 1), g = c("a", "a", "a", "b", "b", "b"))
#' cal_g <- iso_calibrate(y ~ s | g, data = d)
#' predict(cal_g, data.frame(s = c(0.3, 0.3), g = c("a", "b")))
predict.gpuiso_calibration <- function(object, newdata, groups = NULL,
                                       interpolation = c("constant", "linear"),
                                       out_of_bounds = c("clip", "na", "error"),
                                       newscores, ...) {
  check_dots(..., fn = "predict()")
  call <- sys.call()
  rule <- check_prediction_rule(interpolation, out_of_bounds, call)
  arg <- "newdata"
  if (!missing(newscores)) {
    if (!missing(newdata)) {
      abort_input(paste0("`newdata` and `newscores` must not both be given: ",
                         "`newscores` is the former name of `newdata`."), call)
    }
    newdata <- newscores
    arg <- "newscores"
  }
  if (missing(newdata) || is.null(newdata)) {
    if (!is.null(groups)) {
      abort_input(paste0("`groups` must be NULL without `newdata`: the in-sample ",
                         "predictions take the groups of the fit."), call)
    }
    return(stats::napredict(object$na.action, calibrated_in_sample(object)))
  }
  nd <- calibration_newdata(object, newdata, groups, arg, call)
  calibrated_at(object, nd$x, nd$code, rule, nd$arg, call)
}

# The calibrated values of the fit's own scores (no NA padding).
calibrated_in_sample <- function(object) {
  d <- object$data
  calibrated_at(object, d$scores, d$code, list(linear = FALSE, clip = TRUE, error = FALSE),
                "scores", NULL)
}

# New scores (plain doubles) and their groups' codes (NULL without groups)
# from newdata, a vector or a data frame, and `groups`.
calibration_newdata <- function(object, newdata, groups, arg, call) {
  vars <- object$variables
  grouped <- !is.null(object$groups)
  group_col <- NULL
  if (is.data.frame(newdata)) {
    cols <- names(newdata)
    score <- vars[["score"]]
    if (score %in% cols) {
      x <- newdata[[score]]
      arg <- sprintf("%s$%s", arg, score)
    } else if (length(cols) == 1L) {
      x <- newdata[[1L]]
      arg <- sprintf("%s$%s", arg, cols)
    } else {
      abort_input(sprintf(paste0("`%s` must have a column `%s`, the scores of the fit ",
                                 "(or only one column): it has %s."),
                          arg, score,
                          if (length(cols)) paste0("`", cols, "`", collapse = ", ")
                          else "none"), call)
    }
    group <- vars[["group"]]
    if (grouped && is.null(groups) && !is.na(group) && group %in% cols) {
      groups <- newdata[[group]]
      group_col <- sprintf("%s$%s", if (startsWith(arg, "newscores")) "newscores"
                                    else "newdata", group)
    }
  } else {
    x <- newdata
  }
  if (is.factor(x)) abort_input(sprintf("`%s` must be numeric, not a factor.", arg), call)
  x <- check_newdata(x, arg, call)
  list(x = x, arg = arg,
       code = prediction_groups(object, groups, length(x), arg,
                                if (is.null(group_col)) "groups" else group_col,
                                is.data.frame(newdata), call))
}

# The codes (curve numbers) of the new scores' groups: NULL without groups,
# NA for an NA label.
prediction_groups <- function(object, groups, n, arg, garg, frame, call) {
  if (is.null(object$groups)) {
    if (!is.null(groups)) {
      abort_input("`groups` must be NULL: the calibration was fitted without groups.",
                  call)
    }
    return(NULL)
  }
  if (is.null(groups)) {
    group <- object$variables[["group"]]
    abort_input(paste0("`groups` must give the group of each new score: the ",
                       "calibration has one curve per ",
                       if (is.na(group)) "group" else sprintf("`%s`", group),
                       if (frame && !is.na(group))
                         sprintf(" (or `newdata` a column `%s`)", group), "."),
                call)
  }
  if (!is.atomic(groups) || length(dim(groups)) > 1L && NCOL(groups) > 1L) {
    abort_input(sprintf("`%s` must be a vector of labels, not %s.", garg,
                        describe_type(groups)), call)
  }
  if (length(groups) == 1L) groups <- rep(groups, n)
  if (length(groups) != n) {
    abort_input(sprintf(paste0("`%s` must have one label per new score: ",
                               "`%s` has length %.0f, `%s` has length %.0f."),
                        garg, arg, n, garg, length(groups)), call)
  }
  groups <- as.character(groups)
  code <- match(groups, object$groups)
  bad <- which(is.na(code) & !is.na(groups))[1L]
  if (!is.na(bad)) {
    abort_input(sprintf("`%s` must be groups seen in the fit: %s (element %.0f) is not one.",
                        garg, encodeString(groups[bad], quote = "\""), bad),
                call)
  }
  code
}

# The curves at scores x (doubles), curve `code[i]` for x[i] (all the one
# curve for code NULL; NA for an NA code), by `rule`.
calibrated_at <- function(object, x, code, rule, arg, call) {
  if (is.null(code)) {
    cv <- object$curves[[1L]]
    return(interpolate_values(cv$score, cv$value, x, rule, arg, call))
  }
  k <- length(object$curves)
  out <- rep(NA_real_, length(x))
  # one split of the indices, not one scan of them per group
  idx <- split(seq_along(x), structure(code, levels = as.character(seq_len(k)),
                                      class = "factor"))
  first <- NA_real_
  for (b in which(lengths(idx) > 0L)) {
    i <- idx[[b]]
    cv <- object$curves[[b]]
    v <- .Call(ffi_interpolate, cv$score, cv$value, x[i], rule$linear, rule$clip,
               NULL)
    pos <- attr(v, "outside")
    if (pos > 0 && (is.na(first) || i[pos] < first)) first <- i[pos]
    attr(v, "outside") <- NULL
    out[i] <- v
  }
  if (rule$error && !is.na(first)) {
    cv <- object$curves[[code[first]]]
    abort_input(sprintf(paste0("`%s` must lie within the range of the curve of its ",
                               "group with `out_of_bounds = \"error\"`: %s is %s, ",
                               "outside [%s, %s], the range of group %s."),
                        arg, describe_position(first, x), describe_value(x[[first]]),
                        format(cv$score[1L]), format(cv$score[nrow(cv)]),
                        encodeString(object$groups[code[first]], quote = "\"")),
                call)
  }
  out
}

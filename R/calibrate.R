#' Isotonic calibration of classifier scores
#'
#' Maps scores to observed event rates with a non-decreasing curve
#' (Zadrozny and Elkan, 2002): the scores are sorted, tied scores are pooled
#' into one point (the weighted mean of their outcomes, so that equal scores
#' always get one calibrated value), and the isotonic regression of the
#' outcomes on the scores is fitted by the engine of [isotonic()]. With
#' groups, each group gets its own curve, and all curves are fitted in one
#' batched engine call.
#'
#' The model is given either as a formula, `outcome ~ score` or
#' `outcome ~ score | group`, whose variables are looked up in `data` (then
#' in the formula's environment) as [lm()] does; or as vectors, `scores`,
#' `outcomes` and optionally `weights` and `groups`. Both give the same fit.
#' With a formula, `weights` is evaluated in `data` too.
#'
#' Observations with a missing value (`NA`) in the outcome, the score, the
#' weight or the group are handled by `na.action`, as in [lm()]: with
#' [na.omit()] (the default) or [na.exclude()] they are left out of the fit
#' and recorded in its `na.action` component, and with [na.exclude()] the
#' in-sample results ([fitted()][fitted.gpuiso_calibration],
#' [residuals()][residuals.gpuiso_calibration], [predict()] without new
#' data) have an `NA` in their place; [na.fail()] makes them an error.
#'
#' Several classes: with `scores` a matrix or data frame of one column per
#' class (class probabilities, or any scores), named by the levels of the
#' factor `outcomes` or in their order, each class gets its own curve of
#' the event "this class" on its own column (one-vs-rest, all curves one
#' batch for the engine), and the calibrated probabilities of a row are its
#' curves' values divided by their sum (each class `1 / K` where all are
#' zero). The result, of class `"gpuiso_calibration_multiclass"`, has
#' [predict()][predict.gpuiso_calibration_multiclass], `fitted()`, `nobs()`
#' and `print()` methods; its one-vs-rest calibration is `$binary`. Missing
#' values are errors there.
#'
#' `y_min` and `y_max` bound the calibrated values (scikit-learn's options
#' of the same names), for instance to keep them away from 0 and 1 where a
#' log loss is to be computed. The isotonic fit under such bounds is the
#' unbounded fit clipped to them, which is how they are applied: exactly.
#'
#' The pooling is exact for any finite weights, from the smallest
#' subnormal number to the largest double: the summed weight of tied scores
#' is their exact sum and their value the exact weighted mean of their
#' outcomes, each correctly rounded to a double (sums in doubles where they
#' are exact, else in double-double numbers with an exponent of their own,
#' else in fixed point). A summed weight beyond the largest double is an
#' error of class `"gpuiso_error_overflow"`; dividing all weights by a
#' constant gives the same curves.
#'
#' On the GPU (`device = "gpu"`, or `"auto"` from 2^16 scores when one is
#' available) the sort, the pooling of ties and the fit all run on the
#' device: only the scores, outcomes and weights go there and only the
#' curves come back. Zero weights, and weights outside
#' \eqn{[2^{-900}, 2^{900} / n]}{[2^-900, 2^900 / n]}, are pooled on the
#' CPU and fitted on the GPU.
#'
#' @param scores Finite numeric scores, on any scale (probabilities, logits,
#'   margins): only their order matters. Or a formula, `outcome ~ score`, or
#'   `outcome ~ score | group` for one curve per group; then `outcomes` and
#'   `groups` are not given.
#' @param outcomes The observed outcomes, one per score: logical, 0/1,
#'   probabilities in \[0, 1\], or a factor of two levels (see
#'   `event_level`). With `scores` a matrix of one column per class, a
#'   factor of the classes (multiclass calibration, below). (With a formula, a data frame given here is
#'   taken as `data`, so that `iso_calibrate(y ~ s, d)` works as `lm()`
#'   does.)
#' @param weights `NULL` (all weights one), or non-negative finite weights,
#'   one per score, not all zero within a group. With a formula, evaluated
#'   in `data` first.
#' @param groups `NULL` for one curve, or one label per score: one curve per
#'   distinct label, the curves in the order of a factor's levels (those
#'   that occur), else of the labels' first appearance. Every group needs at
#'   least two distinct scores.
#' @param data With a formula: a data frame (or list, or environment) that
#'   holds its variables. Not used without a formula.
#' @param na.action What to do with observations that have a missing value:
#'   a function such as [na.omit()] (the default), [na.exclude()] or
#'   [na.fail()], or its name.
#' @param bounds `c(lower, upper)`: another way of giving `y_min` and
#'   `y_max`, for instance `c(1e-4, 1 - 1e-4)`.
#' @param event_level For factor outcomes, which level is the event:
#'   `"second"` (the default, as [glm()] takes the second level as the
#'   success) or `"first"` (the convention of yardstick and probably).
#' @param y_min,y_max Bounds on the calibrated values, numbers in \[0, 1\]
#'   with `y_min <= y_max`; `NULL` is no bound (0 and 1).
#' @inheritParams isotonic
#' @return An object of class `"gpuiso_calibration"`: a list with
#'   \describe{
#'   \item{curves}{one data frame per group, with the distinct `score`s, the
#'     calibrated `value` at each, and the summed `weight` of the scores
#'     pooled there.}
#'   \item{groups}{the group labels, or `NULL`.}
#'   \item{n}{the number of scores fitted (after `na.action`).}
#'   \item{variables}{the names of the `outcome`, the `score` and the `group`
#'     variable (`NA` without groups): from the formula, or from the
#'     arguments where they are variables (`d$score` gives `"score"`). They
#'     label printed output and plots, and [predict()] looks for them in a
#'     data frame of new data.}
#'   \item{y_min, y_max}{the bounds.}
#'   \item{na.action}{the record of the observations left out, as in [lm()]
#'     (`NULL` if none).}
#'   \item{data}{the `scores`, `outcomes`, `weights` and group `code`s of the
#'     fit, for the in-sample methods: the vectors given (or the formula's
#'     variables) where nothing was missing, not copies of them (scores and
#'     weights as doubles).}
#'   \item{device}{the engine that fitted, `"cpu"` or `"gpu"`.}
#'   \item{call}{the matched call.}
#'   }
#'   It has methods for [predict()][predict.gpuiso_calibration],
#'   [print()], [summary()], [plot()][plot.gpuiso_calibration],
#'   [fitted()][fitted.gpuiso_calibration], [residuals()] and [nobs()].
#' @references
#' Zadrozny, B. and Elkan, C. (2002). Transforming classifier scores into
#' accurate multiclass probability estimates. In *Proceedings of the 8th ACM
#' SIGKDD International Conference on Knowledge Discovery and Data Mining*,
#' 694--699. \doi{10.1145/775047.775151}
#' @seealso [predict.gpuiso_calibration()] and [prediction] for the
#'   calibrated values at new scores; [reliability_diagram()] and
#'   [calibration_error()] to assess forecasts; [isotonic()] for the engine.
#' @export
#' @examples
#' set.seed(1)
#' d <- data.frame(score = runif(2000),
#'                 country = sample(c("DE", "FR", "IT"), 2000, replace = TRUE))
#' d$clicked <- rbinom(2000, 1, d$score^2) # the scores are too high
#' cal <- iso_calibrate(clicked ~ score, data = d)
#' cal
#' predict(cal, c(0.1, 0.5, 0.9))
#'
#' # the same fit from vectors
#' all.equal(cal$curves, iso_calibrate(d$score, d$clicked)$curves)
#'
#' # one curve per country, in one call; new data found by name
#' cal_c <- iso_calibrate(clicked ~ score | country, data = d)
#' predict(cal_c, data.frame(score = c(0.5, 0.5), country = c("DE", "IT")))
#'
#' # missing values are left out (na.omit) or padded back (na.exclude)
#' d$score[3] <- NA
#' cal_na <- iso_calibrate(clicked ~ score, data = d, na.action = na.exclude)
#' head(fitted(cal_na))
#'
#' # calibrated values kept within [0.01, 0.99]
#' range(iso_calibrate(clicked ~ score, data = d, y_min = 0.01,
#'                     y_max = 0.99)$curves[[1]]$value)
iso_calibrate <- function(scores, outcomes, weights = NULL, groups = NULL,
                          device = getOption("gpuiso.device", "auto"),
                          data = NULL, na.action = na.omit,
                          y_min = 0, y_max = 1,
                          event_level = c("second", "first"), bounds = NULL) {
  call <- match.call()
  ecall <- sys.call()
  event_level <- check_event_level(event_level, ecall)
  if (!is.null(bounds)) {
    if (!missing(y_min) || !missing(y_max)) {
      abort_input("`bounds` and `y_min` or `y_max` must not both be given: they say the same.",
                  ecall)
    }
    if (!is.numeric(bounds) || is.object(bounds) || length(bounds) != 2L || anyNA(bounds)) {
      abort_input(sprintf("`bounds` must be two numbers, c(lower, upper), not %s.",
                          if (is.numeric(bounds) && length(bounds) == 2L)
                            paste0("c(", paste(bounds, collapse = ", "), ")")
                          else describe_type(bounds)), ecall, arg = "bounds")
    }
    y_min <- bounds[[1L]]
    y_max <- bounds[[2L]]
  }
  if (missing(scores)) {
    abort_input("`scores` must be given: a numeric vector or a formula.", ecall)
  }
  if (inherits(scores, "formula")) {
    if (!missing(outcomes) && is.null(data) &&
        (is.data.frame(outcomes) || is.environment(outcomes))) {
      data <- outcomes
    } else if (!missing(outcomes)) {
      abort_input(paste0("`outcomes` must not be given with a formula: the ",
                         "outcome is its left-hand side."), ecall)
    }
    if (!is.null(groups)) {
      abort_input(paste0("`groups` must not be given with a formula: write ",
                         "`outcome ~ score | group`."), ecall)
    }
    v <- calibration_formula(scores, data, substitute(weights),
                             function() weights, ecall)
  } else {
    if (!is.null(data)) {
      abort_input(paste0("`data` is used with a formula only: write ",
                         "`iso_calibrate(outcome ~ score, data = ...)`."), ecall)
    }
    if (missing(outcomes)) {
      abort_input("`outcomes` must be given: one per score.", ecall)
    }
    if (is.data.frame(scores) || is.matrix(scores) && ncol(scores) > 1L) {
      if (!is.null(groups)) {
        abort_input("`groups` must be NULL when `scores` has one column per class.", ecall)
      }
      return(calibrate_multiclass(scores, outcomes, weights, device, y_min, y_max,
                                  c(outcome = variable_name(substitute(outcomes), "outcome"),
                                    score = variable_name(substitute(scores), "scores")),
                                  call, ecall))
    }
    v <- list(outcomes = outcomes, scores = scores, weights = weights,
              groups = groups,
              names = c(outcome = variable_name(substitute(outcomes), "outcome"),
                        score = variable_name(substitute(scores), "score"),
                        group = if (is.null(groups)) NA_character_
                                else variable_name(substitute(groups), "group")),
              row_names = NULL)
  }
  v$outcomes <- event_outcomes(v$outcomes, event_level, ecall,
                               "for several classes give `scores` as a matrix of one column per class")
  fit_calibration(v, na.action, y_min, y_max, device, call, ecall)
}

# Formula operators that would make the score (or the group) more than one
# variable; arithmetic goes inside I().
formula_operators <- c("+", "-", "*", "/", ":", "^", "%in%", "|", "~")

# outcome ~ score [| group], evaluated in `data` and then in the formula's
# environment; the weights likewise (`wexpr`, falling back to the value of
# the argument `weights()` where the expression cannot be evaluated there).
calibration_formula <- function(formula, data, wexpr, weights, call) {
  if (length(formula) != 3L) {
    abort_input(paste0("`scores` must be a two-sided formula: ",
                       "`outcome ~ score` or `outcome ~ score | group`."), call)
  }
  if (is.matrix(data)) data <- as.data.frame(data)
  if (!is.null(data) && !is.list(data) && !is.environment(data)) {
    abort_input(sprintf("`data` must be a data frame, a list or an environment, not %s.",
                        describe_type(data)), call)
  }
  env <- environment(formula)
  if (is.null(env)) env <- parent.frame(2L)
  rhs <- formula[[3L]]
  group_expr <- NULL
  if (is.call(rhs) && identical(rhs[[1L]], as.name("|"))) {
    group_expr <- rhs[[3L]]
    rhs <- rhs[[2L]]
  }
  one_variable(rhs, "score", call)
  if (!is.null(group_expr)) one_variable(group_expr, "group", call)
  ev <- function(expr, what) {
    x <- tryCatch(eval(expr, data, env), error = function(e) {
      abort_input(sprintf("The %s of the formula, `%s`, could not be evaluated: %s",
                          what, deparse1(expr), conditionMessage(e)), call)
    })
    strip_asis(x)
  }
  out <- list(outcomes = ev(formula[[2L]], "outcome"), scores = ev(rhs, "score"),
              weights = NULL,
              groups = if (!is.null(group_expr)) ev(group_expr, "group"),
              names = c(outcome = deparse1(formula[[2L]]), score = deparse1(rhs),
                        group = if (is.null(group_expr)) NA_character_
                                else deparse1(group_expr)),
              row_names = NULL)
  if (!is.null(wexpr)) {
    out$weights <- strip_asis(tryCatch(eval(wexpr, data, env),
                                       error = function(e) weights()))
  }
  if (is.data.frame(data)) out$row_names <- attr(data, "row.names")
  out
}

# I(x) is x.
strip_asis <- function(x) {
  if (inherits(x, "AsIs")) oldClass(x) <- setdiff(oldClass(x), "AsIs")
  x
}

one_variable <- function(expr, what, call) {
  bad <- identical(expr, as.name(".")) ||
    is.call(expr) && as.character(expr[[1L]])[1L] %in% formula_operators
  if (bad) {
    abort_input(sprintf(paste0("The formula must have one %s variable, not `%s`: ",
                               "write `outcome ~ score | group`, with arithmetic ",
                               "inside I() and several groups combined by ",
                               "interaction()."), what, deparse1(expr)), call)
  }
}

# The inputs `v` (outcomes, scores, weights, groups, names, row_names)
# checked, passed through the na.action, and fitted.
fit_calibration <- function(v, na.action, y_min, y_max, device, call, ecall) {
  bounds <- check_unit_bounds(y_min, y_max, ecall)
  v <- calibration_missing(v, na.action, ecall)
  scores <- as.vector(check_values(v$scores, "scores", ecall))
  outcomes <- check_unit_interval(v$outcomes, "outcomes", ecall)
  check_same_length(scores, outcomes, "scores", "outcomes", ecall)
  weights <- v$weights
  if (!is.null(weights)) weights <- check_obs_weights(weights, scores, "scores", ecall)
  if (!length(scores)) {
    abort_input(if (is.null(v$na.action)) "`scores` must not be empty." else
                  "`scores` must not be empty: every observation has a missing value.",
                ecall)
  }
  g <- check_labels(v$groups, length(scores), ecall)
  label <- function(b) {
    if (is.null(g)) NULL else sprintf("group %s", encodeString(g$labels[b], quote = "\""))
  }
  device <- resolve_device(device, length(scores), ecall,
                           min_n = gpu_min_n(default = gpu_sort_min_n_default))
  # On the GPU the sort and the pooling of ties happen on the device too;
  # zero weights (rare) are pooled on the CPU, as is anything the device
  # sort cannot take: the CPU's points are then fitted on `device`.
  pooled <- on_device(device,
    gpu = gpu_calibrate(scores, outcomes, weights, g),
    cpu = cpu_calibrate(scores, outcomes, weights, g, device, label, ecall))
  # every curve needs two distinct scores: the GPU's points are checked
  # here, the CPU's were before their fit
  check_distinct_scores(pooled$offsets, label, ecall)
  # under bounds the isotonic fit is the unbounded one, clipped
  if (bounds[1L] > 0 || bounds[2L] < 1) {
    pooled$value <- pmin(pmax(pooled$value, bounds[1L]), bounds[2L])
  }
  curves <- split_curves(pooled)
  names(curves) <- g$labels
  structure(list(curves = curves, groups = g$labels, n = length(scores),
                 variables = v$names, y_min = bounds[1L], y_max = bounds[2L],
                 na.action = v$na.action,
                 # the outcomes as given (integer 0/1 stay integer), the rest
                 # as the engine took them: no further copies
                 data = list(scores = scores,
                             outcomes = if (is.null(dim(v$outcomes))) v$outcomes
                                        else as.vector(v$outcomes),
                             weights = weights, code = g$code),
                 device = pooled$device, call = call),
            class = "gpuiso_calibration")
}

# y_min and y_max of a calibration: numbers in [0, 1] (NULL: 0 and 1),
# y_min <= y_max; c(lo, hi).
check_unit_bounds <- function(y_min, y_max, call) {
  for (a in list(list(y_min, "y_min"), list(y_max, "y_max"))) {
    v <- a[[1L]]
    if (is.numeric(v) && !is.object(v) && length(v) == 1L && !is.na(v) &&
        (v < 0 || v > 1)) {
      abort_input(sprintf("`%s` must be one number in [0, 1] (or NULL), not %s.",
                          a[[2L]], describe_value(v)), call)
    }
  }
  b <- check_bounds(y_min %||% 0, y_max %||% 1, call)
  c(b$lo, b$hi)
}

# Observations with a missing value go through the na.action, as in lm():
# returns `v` with the rows kept and the na.action's record. The data pass
# untouched (no frame, no copies) where nothing is missing and the
# na.action is one of R's own.
calibration_missing <- function(v, na.action, call) {
  cols <- list(v$outcomes, v$scores, v$groups, v$weights)
  cols <- cols[!vapply(cols, is.null, NA)]
  # anything but plain vectors of one length goes to the checks as it is
  plain <- vapply(cols, function(x) is.atomic(x) && (is.null(dim(x)) ||
                                                       length(dim(x)) == 2L && ncol(x) == 1L),
                  NA)
  if (!all(plain)) return(v)
  n <- length(v$scores)
  lens <- lengths(cols)
  if (any(lens != n)) {
    check_same_length(v$scores, v$outcomes, "scores", "outcomes", call)
    if (!is.null(v$weights)) check_same_length(v$scores, v$weights, "scores", "weights", call)
    check_label_vector(v$groups, n, "scores", "score", call)
  }
  if (!any(vapply(cols, anyNA, NA)) && is_own_na_action(na.action)) return(v)
  drop_dim <- function(x) if (is.null(x) || is.null(dim(x))) x else as.vector(x)
  frame <- list(drop_dim(v$outcomes), drop_dim(v$scores))
  nm <- v$names[c("outcome", "score")]
  args <- c("outcomes", "scores")
  if (!is.null(v$groups)) {
    frame <- c(frame, list(drop_dim(v$groups)))
    nm <- c(nm, v$names[["group"]])
    args <- c(args, "groups")
  }
  if (!is.null(v$weights)) {
    frame <- c(frame, list(drop_dim(v$weights)))
    nm <- c(nm, "(weights)")
    args <- c(args, "weights")
  }
  rn <- v$row_names
  if (is.null(rn) || length(rn) != n) rn <- c(NA_integer_, -n)
  frame <- structure(frame, names = make.unique(unname(nm)), class = "data.frame",
                     row.names = rn)
  res <- tryCatch(apply_na_action(frame, na.action, call),
                  gpuiso_error_input = function(e) {
    # an na.action that refuses missing values (na.fail): say where one is
    first <- which(!stats::complete.cases(frame))[1L]
    if (is.na(first) || !startsWith(conditionMessage(e), "Missing values: ")) stop(e)
    col <- which(vapply(frame, function(f) is.na(f[first]), NA))[1L]
    abort_input(sprintf(paste0("`%s` has missing values (element %.0f is %s), ",
                               "and `na.action` refuses them: %s"),
                        args[col], first, describe_value(frame[[col]][first]),
                        sub("^Missing values: ", "", conditionMessage(e))),
                call, arg = args[col], position = first)
  })
  kept <- res$frame
  if (!is.data.frame(kept) || length(kept) != length(frame)) {
    abort_input("`na.action` must return the data frame it is given, rows removed.", call)
  }
  v$outcomes <- kept[[1L]]
  v$scores <- kept[[2L]]
  if (!is.null(v$groups)) v$groups <- kept[[3L]]
  if (!is.null(v$weights)) v$weights <- kept[[length(kept)]]
  v$na.action <- res$na.action
  v
}

# na.omit, na.exclude, na.fail or na.pass (or a name of one): with no
# missing value, each leaves the data as they are.
is_own_na_action <- function(na.action) {
  if (is.null(na.action)) return(TRUE)
  if (is.character(na.action) && length(na.action) == 1L) {
    return(na.action %in% c("na.omit", "na.exclude", "na.fail", "na.pass"))
  }
  any(vapply(list(stats::na.omit, stats::na.exclude, stats::na.fail, stats::na.pass),
             identical, NA, na.action))
}

# Sorted, pooled and fitted on the GPU: for on_device(), the engine's
# list(score, value, weight, offsets, status), or NULL when the CPU must
# prepare the points instead (zero weights, sums that plain doubles would
# round).
gpu_calibrate <- function(scores, outcomes, weights, g) {
  positive <- is.null(weights) || min(weights) > 0
  if (!positive || !sums_exact_in_doubles(outcomes, weights)) return(NULL)
  .Call(ffi_gpu_calibrate, scores, outcomes, weights, g$code,
        length(g$labels), resolve_threads())
}

# Sorted and pooled on the CPU, checked, and fitted on `device`:
# list(score, value, weight, offsets, device).
cpu_calibrate <- function(scores, outcomes, weights, g, device, label, call) {
  pooled <- pool_scores(scores, outcomes, weights, g)
  check_pooled_weights(pooled, label, call)
  check_distinct_scores(pooled$offsets, label, call)
  if (!is.null(weights)) check_weights_positive(pooled$weight, pooled$offsets, label, call)
  # the pooled points weigh what they pool: counts, or summed weights
  res <- engine_fit(pooled$value, pooled$weight, pooled$offsets,
                    decreasing = FALSE, device = device)
  pooled$value <- pmin(pmax(res$fit, 0), 1)
  pooled$device <- res$device
  pooled
}

# Whether plain double sums of the weights, and of weights times outcomes,
# are exact in any order: outcomes 0 or 1, and weights NULL or whole
# multiples of a power of two whose total stays below 2^53 of it (C, one
# pass). The GPU pools tied scores and sums IDR's weights in plain doubles;
# other data go to the CPU, whose sums are exact (the calibration fit
# itself still runs on the GPU).
sums_exact_in_doubles <- function(outcomes = NULL, weights = NULL) {
  if (!is.null(outcomes) && !all(outcomes == 0 | outcomes == 1)) return(FALSE)
  .Call(ffi_sums_exact, if (is.null(weights)) NULL else as.double(weights))
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

# The pooled weight of tied scores is their exact sum, correctly rounded:
# +Inf where it exceeds the largest double, an error (the fit would not
# change with the weights divided by a constant, but the curve's `weight`
# column cannot hold the sum).
check_pooled_weights <- function(pooled, label, call) {
  big <- which(is.infinite(pooled$weight))[1L]
  if (is.na(big)) return(invisible())
  where <- label(findInterval(big - 1, pooled$offsets))
  abort_overflow(sprintf(paste0("The weights of the scores equal to %s%s sum to more than ",
                                "the largest double (%s): divide the weights by a ",
                                "constant, which leaves the calibration as it is."),
                         format(pooled$score[big]),
                         if (is.null(where)) "" else paste(" in", where),
                         format(.Machine$double.xmax)), call)
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

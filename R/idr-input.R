# The input of idr(): a formula with `data` (evaluated by model.frame(), as
# lm() does), or the vectors themselves; in both cases the rows with a
# missing value in the response, the covariate or the weights pass through
# `na.action`, and the names of the variables and of the observations are
# kept for printing, plotting and dimnames.
#
# Both interfaces end in idr_observations_input(), which returns
#   list(y, x, w (NULL for unit weights), na.action (the record, or NULL),
#        names (of the rows kept, or NULL), yname, xname, terms (or NULL)).

# The formula interface. `mcall` is idr()'s match.call(), `env` the frame
# that idr() was called from; `formula` the evaluated first argument.
idr_formula_input <- function(mcall, formula, na.action, env, call) {
  args <- names(mcall)
  if ("X" %in% args) {
    if ("data" %in% args) {
      abort_input(paste0("`X` is not used with a formula: the covariate is ",
                         "the right-hand side of `y`, and `data` holds it."),
                  call)
    }
    # idr(Ozone ~ Temp, airquality): the second argument is the data, as in lm()
    args[args == "X"] <- "data"
    names(mcall) <- args
  }
  mf <- mcall[c(1L, match(c("y", "data", "weights", "by"), args, 0L))]
  names(mf)[names(mf) == "y"] <- "formula"
  mf[[1L]] <- quote(stats::model.frame)
  mf$na.action <- quote(stats::na.pass)
  mf$drop.unused.levels <- TRUE
  frame <- tryCatch(eval(mf, env), error = function(e) {
    abort_input(sprintf("The formula `%s` could not be evaluated: %s",
                        deparse1(formula), conditionMessage(e)), call)
  })
  tt <- attr(frame, "terms")
  if (attr(tt, "response") != 1L) {
    abort_input(sprintf(paste0("The formula `%s` must have a response on its ",
                               "left-hand side, as in `Ozone ~ Temp`."),
                        deparse1(formula)), call)
  }
  # a non-syntactic name is a term `t 2m` of the column t 2m
  labels <- sub("^`(.*)`$", "\\1", attr(tt, "term.labels"))
  if (!length(labels) || !all(labels %in% names(frame)) ||
      length(attr(tt, "variables")) != length(labels) + 2L ||
      !is.null(attr(tt, "offset"))) {
    abort_input(sprintf(paste0("The formula `%s` must have covariates on ",
                               "its right-hand side, each a variable or an ",
                               "expression, joined by `+` (as in `Ozone ~ Temp` ",
                               "or `Ozone ~ Temp + Wind`): it has %s."),
                        deparse1(formula),
                        if (length(labels)) paste0("`", labels, "`", collapse = ", ")
                        else "none"), call)
  }
  rn <- rownames(frame)
  automatic <- identical(rn, as.character(seq_len(nrow(frame))))
  idr_observations_input(
    y = stats::model.response(frame, "any"),
    x = if (length(labels) == 1L) frame[[labels]] else as.data.frame(frame[labels]),
    w = stats::model.weights(frame), by = frame[["(by)"]],
    args = c(y = deparse1(formula[[2L]]), x = paste(labels, collapse = "`, `"),
             w = "weights", by = "by"),
    na.action = na.action, names = if (!automatic) rn,
    yname = deparse1(formula[[2L]]), xname = idr_xname(labels),
    terms = tt, call = call)
}

# The default interface: vectors y and X (X may be a one-column matrix or
# data frame), weights NULL or a vector.
idr_default_input <- function(y, X, weights, na.action, yexpr, xexpr, call, by = NULL) {
  if (missing(X)) {
    abort_input(paste0("`X` is missing: give the covariate, or a formula ",
                       "such as `Ozone ~ Temp` with `data`."), call)
  }
  xname <- variable_name(xexpr, "x", X)
  yname <- variable_name(yexpr, "y", y)
  if (!is.null(dim(y)) && !(length(dim(y)) == 2L && ncol(y) == 1L)) {
    abort_input(sprintf("`y` must be a vector, not a matrix with %.0f columns.",
                        ncol(y)), call)
  }
  names <- observation_names(X)
  if (is.null(names)) names <- observation_names(y)
  if (is.data.frame(X) || is.matrix(X)) {
    if (ncol(X) == 0L) abort_input("`X` must have at least one column.", call)
    if (ncol(X) == 1L) {
      X <- if (is.data.frame(X)) X[[1L]] else X[, 1L]
    } else {
      X <- idr_covariate_frame(X, call)
      xname <- idr_xname(names(X))
    }
  }
  if (is.matrix(y)) y <- y[, 1L]
  idr_observations_input(y = y, x = X, w = weights, by = by,
                         args = c(y = "y", x = "X", w = "weights", by = "by"),
                         na.action = na.action, names = names, yname = yname,
                         xname = xname, terms = NULL, call = call)
}

# The name of several covariates for titles: "Temp, Wind", or
# "m1, m2, ..., m50" for more than four.
idr_xname <- function(cols) {
  if (length(cols) > 4L) cols <- c(cols[1:2], "...", cols[length(cols)])
  paste(cols, collapse = ", ")
}

# Several covariates as a data frame with unique, non-empty column names
# (V1, V2, ... where a matrix has none).
idr_covariate_frame <- function(X, call) {
  if (is.matrix(X)) {
    if (!is.numeric(X) && !is.logical(X)) {
      abort_input(sprintf("`X` must be numeric, not a %s matrix.", typeof(X)), call)
    }
    if (is.null(colnames(X))) colnames(X) <- paste0("V", seq_len(ncol(X)))
    X <- as.data.frame(X, optional = TRUE)
  }
  nm <- names(X)
  if (anyNA(nm) || any(nm == "")) {
    abort_input("The columns of `X` must have names: some have none.", call)
  }
  if (anyDuplicated(nm)) {
    twice <- nm[anyDuplicated(nm)]
    abort_input(sprintf(paste0("The columns of `X` must have different names: `%s` ",
                               "names %.0f of them."), twice, sum(nm == twice)), call)
  }
  X
}

# The common part: checks (with positions in the data as given), the
# na.action, and the checks that only the rows kept must pass. `x` is one
# covariate (a vector) or a data frame of several, each column checked
# under its own name.
idr_observations_input <- function(y, x, w, args, na.action, names, yname,
                                   xname, terms, call, by = NULL) {
  y <- idr_numeric_column(y, args[["y"]], call)
  several <- is.data.frame(x)
  if (several) {
    xargs <- names(x)
    for (c in seq_along(x)) x[[c]] <- idr_numeric_column(x[[c]], xargs[c], call)
    if (!length(y)) abort_input(sprintf("`%s` must not be empty.", args[["y"]]), call)
    if (nrow(x) != length(y)) {
      abort_input(sprintf("`%s` has %.0f rows and `%s` %.0f values: they must match.",
                          args[["x"]], nrow(x), args[["y"]], length(y)), call)
    }
  } else {
    xargs <- args[["x"]]
    x <- idr_numeric_column(x, args[["x"]], call)
    if (!length(y)) abort_input(sprintf("`%s` must not be empty.", args[["y"]]), call)
    check_same_length(y, x, args[["y"]], args[["x"]], call)
  }
  if (!is.null(w)) {
    w <- check_obs_weights(idr_one_column(w, args[["w"]], call), y, args[["y"]], call,
                           arg = args[["w"]], na_ok = TRUE)
  }
  if (!is.null(by)) {
    if (!is.atomic(by) || !is.null(dim(by)) || length(by) != length(y)) {
      abort_input(sprintf(paste0("`%s` must be a vector of one level per observation ",
                                 "(%.0f), such as a factor or station codes."),
                          args[["by"]], length(y)), call, arg = args[["by"]])
    }
  }
  frame <- data.frame(y = y)
  if (several) frame[paste0("x", seq_along(x))] <- x else frame[["x1"]] <- x
  if (!is.null(w)) frame[["w"]] <- w
  if (!is.null(by)) frame[["by"]] <- by
  cols <- c(args[["y"]], xargs, if (!is.null(w)) args[["w"]],
            if (!is.null(by)) args[["by"]])
  # the names become row names (which name what na.action drops) when they
  # can: unique and none missing
  as_rows <- !is.null(names) && !anyNA(names) && !anyDuplicated(names)
  if (as_rows) attr(frame, "row.names") <- as.character(names)
  # a bad `na.action` is an error even when nothing is missing
  apply_na_action(frame[0L, , drop = FALSE], na.action, call)
  missing <- !stats::complete.cases(frame)
  na <- NULL
  if (any(missing)) {
    first <- which(missing)[1L]
    col <- which(is.na(unlist(frame[first, ], use.names = FALSE)))[1L]
    arg <- cols[col]
    kept <- tryCatch(apply_na_action(frame, na.action, call),
                     gpuiso_error_input = function(e) {
      abort_input(sprintf(paste0("`%s` has missing values (element %.0f is ",
                                 "%s), and `na.action` refuses them: %s"),
                          arg, first, describe_value(frame[[col]][first]),
                          sub("^Missing values: ", "", conditionMessage(e))),
                  call)
    })
    frame <- kept$frame
    na <- kept$na.action
    if (as_rows) {
      names <- row.names(frame)
    } else if (!is.null(names) && !is.null(na)) {
      names <- names[-na]
    }
    if (!nrow(frame)) {
      abort_input(sprintf(paste0("No observations are left: every row has a ",
                                 "missing value in `%s`, `%s`%s."),
                          args[["y"]], args[["x"]],
                          if (is.null(w)) "" else sprintf(" or `%s`", args[["w"]])),
                  call)
    }
    # what na.action left (na.pass leaves everything): no NA may remain
    for (v in seq_along(frame)) {
      if (names(frame)[v] == "by") {
        if (anyNA(frame[[v]])) {
          pos <- which(is.na(frame[[v]]))[1L]
          abort_input(sprintf("`%s` must not be missing: element %.0f is %s.", cols[v], pos,
                              describe_value(frame[[v]][[pos]])), call, arg = cols[v])
        }
      } else {
        check_values(frame[[v]], cols[v], call)
      }
    }
  }
  w <- frame[["w"]]
  if (!is.null(w)) check_some_weight(w, call, args[["w"]])
  xk <- if (several) {
    out <- frame[paste0("x", seq_along(x))]
    names(out) <- names(x)
    row.names(out) <- NULL
    out
  } else frame[["x1"]]
  list(y = frame[["y"]], x = xk, w = w, na.action = na, names = names,
       yname = yname, xname = xname, terms = terms, by = frame[["by"]])
}

# A numeric vector (no factor, no matrix of several columns), NA allowed;
# other values finite, with the position in the data as given.
idr_numeric_column <- function(v, arg, call) {
  check_values_or_na(idr_one_column(v, arg, call), arg, call)
}

# A vector, or a one-column matrix as a vector.
idr_one_column <- function(v, arg, call) {
  if (is.matrix(v) && ncol(v) == 1L) v <- v[, 1L]
  if (is.matrix(v)) {
    abort_input(sprintf("`%s` must be a vector, not a matrix with %.0f columns.",
                        arg, ncol(v)), call)
  }
  v
}

# Numbers, each finite (and non-negative with `nonneg`) or missing, as
# plain doubles (names and dims dropped); an error names the first bad
# position.
check_values_or_na <- function(v, arg, call, nonneg = FALSE) {
  if (is.factor(v)) {
    abort_input(sprintf("`%s` must be numeric, not a factor.", arg), call)
  }
  v <- check_newdata(v, arg, call)
  na <- is.na(v)
  if (any(na)) {
    probe <- v
    probe[na] <- 0
    check_values(probe, arg, call, nonneg = nonneg)
  } else {
    check_values(v, arg, call, nonneg = nonneg)
  }
  v
}

# Names of observations: vector names, matrix row names, or data frame row
# names that are not automatic; NULL when there are none.
observation_names <- function(v) {
  if (is.data.frame(v)) {
    return(if (.row_names_info(v) > 0L) row.names(v))
  }
  if (is.matrix(v)) return(rownames(v))
  names(v)
}

# The covariate of an IDR fit at new points: `newdata` a vector, a matrix or
# a data frame (or list). For a fit from a formula, a data frame with the
# variables of the covariate's term is evaluated as the fit's data were;
# otherwise the column named like the covariate is taken, or the only one.
# Returns list(x = plain doubles with NA allowed, names).
idr_newdata <- function(newdata, fit, arg, call) {
  newdata <- idr_list_as_frame(newdata, arg, call)
  names <- observation_names(newdata)
  if (is.data.frame(newdata) || is.matrix(newdata)) {
    x <- idr_newdata_column(newdata, fit, arg, call)
  } else {
    x <- newdata
  }
  if (is.factor(x)) {
    abort_input(sprintf("`%s` must be numeric, not a factor.", arg), call)
  }
  x <- check_newdata(x, arg, call)
  list(x = x, names = names)
}

idr_newdata_column <- function(newdata, fit, arg, call) {
  cols <- colnames(newdata)
  tt <- fit$terms
  if (is.data.frame(newdata) && !is.null(tt)) {
    rhs <- stats::delete.response(tt)
    if (all(all.vars(rhs) %in% cols)) {
      frame <- tryCatch(
        stats::model.frame(rhs, newdata, na.action = stats::na.pass),
        error = function(e) {
          abort_input(sprintf("The covariate `%s` could not be evaluated in `%s`: %s",
                              fit$xname, arg, conditionMessage(e)), call)
        })
      return(frame[[1L]])
    }
  }
  if (fit$xname %in% cols) {
    return(if (is.data.frame(newdata)) newdata[[fit$xname]] else newdata[, fit$xname])
  }
  if (ncol(newdata) == 1L) {
    return(if (is.data.frame(newdata)) newdata[[1L]] else newdata[, 1L])
  }
  abort_input(sprintf("`%s` must have a column `%s`, the covariate of the fit.",
                      arg, if (is.null(tt)) fit$xname else
                        paste(all.vars(stats::delete.response(tt)), collapse = "`, `")),
              call)
}

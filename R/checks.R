# Validators shared by the exported functions. Each returns the value ready
# for the engine (a double vector, attributes kept) or raises an error of
# class "gpuiso_error_input" that names the argument and the first bad
# position (in its message and in its fields `arg` and `position`). Validation happens here, once; the C glue trusts its input.

# Numeric (double, integer or logical) vector or matrix, all finite; with
# `nonneg`, also >= 0; with `single`, also within what float32 can hold.
# Doubles are passed on as they are: no copy.
check_values <- function(x, arg, call, nonneg = FALSE, single = FALSE) {
  if (!(is.numeric(x) || is.logical(x)) || is.object(x) && !is.numeric(x) ||
      is.list(x)) {
    abort_input(sprintf("`%s` must be a numeric vector or matrix, not %s.",
                        arg, describe_type(x)), call)
  }
  if (!is.double(x)) storage.mode(x) <- "double"
  pos <- .Call(ffi_first_invalid, x, nonneg)
  if (pos > 0) {
    v <- x[[pos]]
    what <- if (is.finite(v)) "non-negative" else "finite"
    abort_input(sprintf("`%s` must be %s: %s is %s.", arg, what,
                        describe_position(pos, x), describe_value(v)), call,
                arg = arg, position = pos)
  }
  if (single) check_single_range(x, arg, call, weights = nonneg)
  x
}

check_flag <- function(x, arg, call) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    abort_input(sprintf("`%s` must be TRUE or FALSE, not %s.", arg,
                        if (length(x) == 1L) deparse(x) else describe_type(x)),
                call)
  }
  x
}

check_same_length <- function(x, y, xarg, yarg, call) {
  if (length(x) != length(y)) {
    abort_input(sprintf(paste0("`%s` and `%s` must have the same length: ",
                               "`%s` has length %.0f, `%s` has length %.0f."),
                        xarg, yarg, xarg, length(x), yarg, length(y)), call)
  }
}

# Weights for values `y` (a vector, or a matrix whose columns are problems:
# then one value per element or one per row, shared by the columns).
check_weights <- function(weights, y, call, single = FALSE) {
  if (is.null(weights)) return(NULL)
  w <- check_values(weights, "weights", call, nonneg = TRUE, single = single)
  if (is.matrix(y) && !is.matrix(weights) && length(w) == nrow(y) &&
      length(w) != length(y)) {
    w <- rep.int(as.vector(w), ncol(y))
  }
  if (length(w) != length(y)) {
    shape <- if (is.matrix(y)) {
      sprintf(" (or %.0f, one per row of `y`)", nrow(y))
    } else ""
    abort_input(sprintf(paste0("`weights` must have the same length as `y`%s: ",
                               "`y` has length %.0f, `weights` has length %.0f."),
                        shape, length(y), length(weights)), call)
  }
  w
}

check_weights_positive <- function(w, offsets, labels, call) {
  if (is.null(w)) return(invisible())
  b <- .Call(ffi_first_weightless, w, offsets)
  if (b > 0) {
    where <- labels(b)
    abort_input(if (is.null(where)) "`weights` must not all be zero." else
                  sprintf(paste0("`weights` must not all be zero within a ",
                                 "problem: those of %s are all zero."), where),
                call, arg = "weights", position = b)
  }
  invisible()
}

# The number of threads from options(gpuiso.threads).
resolve_threads <- function() {
  t <- getOption("gpuiso.threads", 2L)
  if (is.integer(t) && length(t) == 1L && !is.na(t) && t >= 1L) return(t)
  if (!is.numeric(t) || length(t) != 1L || is.na(t) || t < 1 || t != trunc(t)) {
    abort_input("`options(gpuiso.threads)` must be a positive whole number.", NULL)
  }
  as.integer(min(t, .Machine$integer.max))
}

# One of `choices`, from an argument whose default is the vector of them.
check_choice <- function(x, choices, arg, call) {
  if (identical(x, choices)) return(choices[[1L]])
  if (!is.character(x) || length(x) != 1L || is.na(x) || !x %in% choices) {
    abort_input(sprintf("`%s` must be one of %s, not %s.", arg,
                        paste(encodeString(choices, quote = "\""), collapse = " or "),
                        if (is.character(x) && length(x) == 1L) encodeString(x, quote = "\"")
                        else describe_type(x)), call)
  }
  x
}

# Group labels, one per element of `arg` (described as `per`), none
# missing: the labels as a plain vector (factors as their levels' text).
check_label_vector <- function(groups, n, arg, per, call) {
  if (is.null(groups) || !is.atomic(groups) || is.matrix(groups) && ncol(groups) > 1L) {
    abort_input(sprintf("`groups` must be a vector of labels, not %s.",
                        describe_type(groups)), call)
  }
  if (length(groups) != n) {
    abort_input(sprintf(paste0("`groups` must have one label per %s: ",
                               "`%s` has length %.0f, `groups` has length %.0f."),
                        per, arg, n, length(groups)), call)
  }
  if (anyNA(groups)) {
    abort_input(sprintf("`groups` must not be missing: element %.0f is NA.",
                        which(is.na(groups))[1L]), call)
  }
  if (is.factor(groups)) as.character(groups) else as.vector(groups)
}

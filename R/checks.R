# Validators shared by the exported functions. Each returns the value ready
# for the engine (a double vector, attributes kept) or raises an error of
# class "gpuiso_error_input" that names the argument and the first bad
# position (in its message and in its fields `arg` and `position`). Validation happens here, once; the C glue trusts its input.

# Numeric (double, integer or logical) vector or matrix, all finite; with
# `nonneg`, also >= 0; with `single`, also within what float32 can hold.
# Doubles are passed on as they are: no copy. With `scan = FALSE` only the
# type is checked (for callers whose own pass finds non-finite values).
check_values <- function(x, arg, call, nonneg = FALSE, single = FALSE, scan = TRUE) {
  if (!(is.numeric(x) || is.logical(x)) || is.object(x) && !is.numeric(x) ||
      is.list(x)) {
    abort_input(sprintf("`%s` must be a numeric vector or matrix, not %s.",
                        arg, describe_type(x)), call, arg = arg)
  }
  if (!is.double(x)) storage.mode(x) <- "double"
  if (!scan) return(x)
  # one pass in C, without a copy, on the engine's threads: the position of
  # the first offender or 0
  pos <- .Call(ffi_first_invalid, x, nonneg, single, resolve_threads())
  if (pos > 0) {
    v <- x[[pos]]
    if (!is.finite(v) || nonneg && v < 0) {
      what <- if (is.finite(v)) "non-negative" else "finite"
      abort_input(sprintf("`%s` must be %s: %s is %s.", arg, what,
                          describe_position(pos, x), describe_value(v)), call,
                  arg = arg, position = pos)
    }
    abort_single_range(x, pos, arg, call)
  }
  x
}

check_flag <- function(x, arg, call) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    abort_input(sprintf("`%s` must be TRUE or FALSE, not %s.", arg,
                        if (length(x) == 1L) deparse(x) else describe_type(x)),
                call, arg = arg)
  }
  x
}

# Lengths of x and y equal; the error's `arg` is `at_fault` (by default the
# second, the one measured against the first).
check_same_length <- function(x, y, xarg, yarg, call, at_fault = yarg) {
  if (length(x) != length(y)) {
    abort_input(sprintf(paste0("`%s` and `%s` must have the same length: ",
                               "`%s` has length %.0f, `%s` has length %.0f."),
                        xarg, yarg, xarg, length(x), yarg, length(y)), call,
                arg = at_fault)
  }
}

# Weights for values `y` (a vector, or a matrix whose columns are problems:
# then one value per element or one per row, shared by the columns).
check_weights <- function(weights, y, call, single = FALSE) {
  if (is.null(weights)) return(NULL)
  check_weights_shape(weights, y, call)
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
                        shape, length(y), length(weights)), call, arg = "weights")
  }
  w
}

# The weights of the observations `ref` (the argument `ref_arg`) of
# isoreg(), iso_calibrate() and idr(): numbers, each finite and
# non-negative (or, with `na_ok`, missing, for na.rm or na.action to drop),
# one per observation; as plain doubles. (isotonic()'s weights, which may
# also be one per row of a matrix, are check_weights()'s.)
check_obs_weights <- function(weights, ref, ref_arg, call, arg = "weights",
                              na_ok = FALSE) {
  w <- if (na_ok) check_values_or_na(weights, arg, call, nonneg = TRUE) else
    as.vector(check_values(weights, arg, call, nonneg = TRUE))
  check_same_length(w, ref, arg, ref_arg, call, at_fault = arg)
  w
}

# Weights (checked) of which at least one is positive: a fit needs some.
check_some_weight <- function(w, call, arg = "weights") {
  if (length(w) && !any(w > 0)) {
    abort_input(sprintf("`%s` must not all be zero.", arg), call, arg = arg)
  }
  invisible()
}

# A matrix of weights for a matrix `y` has its dimensions: one of the same
# length but another shape (transposed) would pair weights with the wrong
# elements.
check_weights_shape <- function(weights, y, call) {
  if (is.matrix(y) && is.matrix(weights) && !identical(dim(weights), dim(y))) {
    abort_input(sprintf(paste0("`weights` must have the dimensions of `y` (%.0f x %.0f), ",
                               "or be a vector with one weight per row: `weights` is ",
                               "%.0f x %.0f."),
                        nrow(y), ncol(y), nrow(weights), ncol(weights)),
                call, arg = "weights")
  }
  invisible()
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

# The number of threads from options(gpuiso.threads); unset, the default
# that the package sets when it loads. A bad value is an error of the
# gpuiso function that the user called.
resolve_threads <- function() {
  t <- getOption("gpuiso.threads")
  if (is.integer(t) && length(t) == 1L && !is.na(t) && t >= 1L) return(t)
  if (is.null(t)) return(default_threads())
  if (!is.numeric(t) || is.object(t) || length(t) != 1L || is.na(t) || t < 1 ||
      t != trunc(t)) {
    abort_input(sprintf("`options(gpuiso.threads)` must be a positive whole number, not %s.",
                        if (is.atomic(t) && length(t) == 1L) deparse(t)
                        else describe_type(t)),
                entry_call(sys.nframe()))
  }
  as.integer(min(t, .Machine$integer.max))
}

# Test-only: while `on`, the engine takes as many threads as it is asked
# for (up to 64), beyond the processors, so that a two-core machine runs
# it on eight. Returns the previous setting, invisibly.
test_threads_uncapped <- function(on) {
  invisible(.Call(ffi_test_threads_uncapped, isTRUE(on)))
}

# Test-only: one row of at least `n` values fitted on more than one thread
# is written past the cache where every value is a block of its own (the
# default, 2^23, when `n` is NA), so that shorter rows take that path too.
# Returns the previous setting, invisibly.
test_stream_min <- function(n) {
  invisible(.Call(ffi_test_stream_min, if (is.na(n)) 0 else as.double(n)))
}

# Test-only: IDR on a partial order splits a range of thresholds for an
# idle thread when `k` thresholds are left (at least 2; NA restores the
# default), so that small fits split too. Returns the previous setting,
# invisibly.
test_idr_po_min_split <- function(k) {
  invisible(.Call(ffi_test_idr_po_min_split, as.integer(k)))
}

# The default of options(gpuiso.threads), set when the package loads: the
# environment variable GPUISO_THREADS when set, else half the processors
# (as data.table does: the other half is often busy with hyperthreads or
# other work), at least 1. Under R CMD check, which sets
# _R_CHECK_LIMIT_CORES_, at most 2, as CRAN asks. OMP_THREAD_LIMIT and
# OMP_NUM_THREADS cap it again when the engine starts its threads.
default_threads <- function(env = Sys.getenv(c("GPUISO_THREADS", "_R_CHECK_LIMIT_CORES_")),
                            procs = .Call(ffi_build_info)$procs) {
  t <- max(1L, procs %/% 2L)
  if (nzchar(env[[1L]])) {
    # digits only: as.numeric() would also read "Inf", "0x10" and "1e3"
    v <- if (grepl("^[[:space:]]*[0-9]+[[:space:]]*$", env[[1L]])) as.numeric(env[[1L]])
         else NA
    if (!is.na(v) && v >= 1) {
      t <- min(v, .Machine$integer.max)
    } else {
      # a warning, not an error: the package must still load
      warning(sprintf(paste0("The environment variable GPUISO_THREADS must be a ",
                             "positive whole number, not \"%s\"; using %s."),
                      env[[1L]], count_noun(t, "thread")), call. = FALSE)
    }
  }
  limit <- env[[2L]]
  if (nzchar(limit) && !identical(toupper(limit), "FALSE")) t <- min(t, 2L)
  as.integer(t)
}

# One of `choices`, from an argument whose default is the vector of them.
# With `partial`, a unique abbreviation stands for its choice (as
# match.arg() reads it, for arguments that stats' methods take that way).
check_choice <- function(x, choices, arg, call, partial = FALSE) {
  if (identical(x, choices)) return(choices[[1L]])
  if (partial && is.character(x) && length(x) == 1L && !is.na(x) && nzchar(x)) {
    k <- pmatch(x, choices)
    if (!is.na(k)) return(choices[[k]])
  }
  if (!is.character(x) || length(x) != 1L || is.na(x) || !x %in% choices) {
    abort_input(sprintf("`%s` must be one of %s, not %s.", arg,
                        paste(encodeString(choices, quote = "\""), collapse = " or "),
                        if (is.character(x) && length(x) == 1L) encodeString(x, quote = "\"")
                        else describe_type(x)), call, arg = arg)
  }
  x
}

# Group labels, one per element of `arg` (described as `per`), none
# missing: the labels as a plain vector (factors as their levels' text).
check_label_vector <- function(groups, n, arg, per, call) {
  if (is.null(groups) || !is.atomic(groups) || is.matrix(groups) && ncol(groups) > 1L) {
    abort_input(sprintf("`groups` must be a vector of labels, not %s.",
                        describe_type(groups)), call, arg = "groups")
  }
  if (length(groups) != n) {
    abort_input(sprintf(paste0("`groups` must have one label per %s: ",
                               "`%s` has length %.0f, `groups` has length %.0f."),
                        per, arg, n, length(groups)), call, arg = "groups")
  }
  if (anyNA(groups)) {
    pos <- as.double(which(is.na(groups))[1L])
    abort_input(sprintf("`groups` must not be missing: element %.0f is %s.", pos,
                        describe_value(groups[[pos]])), call, arg = "groups", position = pos)
  }
  if (is.factor(groups)) as.character(groups) else as.vector(groups)
}

# One whole number in [lo, hi] (NULL: `default`), for counts and settings
# such as `digits`; `what` describes the range in the message.
check_whole_number <- function(x, arg, call, lo, hi, what, default = NULL) {
  if (is.null(x) && !is.null(default)) return(default)
  ok <- is.numeric(x) && !is.object(x) && length(x) == 1L &&
    !is.na(x) && is.finite(x) && x == trunc(x) && x >= lo && x <= hi
  if (!isTRUE(ok)) {
    abort_input(sprintf("`%s` must be %s, not %s.", arg, what, describe_scalar(x)),
                call, arg = arg)
  }
  x
}

# The significant digits of a print method: a whole number from 1 to 22,
# as format() takes them; NULL gives the method's default.
check_digits <- function(digits, call, default) {
  as.integer(check_whole_number(digits, "digits", call, 1, 22,
                                "a whole number from 1 to 22 (or NULL)",
                                default = default))
}

# A seed for set.seed(): NULL, or a whole number that an integer holds.
check_seed <- function(seed, call) {
  if (is.null(seed)) return(NULL)
  m <- .Machine$integer.max
  check_whole_number(seed, "seed", call, -m, m,
                     sprintf("NULL or a whole number from %.0f to %.0f", -m, m))
}

# A value for a message: the number or string itself when it is one,
# else what it is.
describe_scalar <- function(x) {
  if (length(x) == 1L && !is.object(x) && (is.numeric(x) || is.logical(x))) {
    return(if (is.logical(x)) deparse(x) else describe_value(x))
  }
  if (is.character(x) && length(x) == 1L && !is.object(x)) {
    return(if (is.na(x)) "NA" else encodeString(x, quote = "\""))
  }
  if (is.atomic(x) && !is.object(x) && length(x) != 1L) {
    return(sprintf("a %s vector of length %.0f",
                   if (is.numeric(x)) "numeric" else typeof(x), length(x)))
  }
  describe_type(x)
}

# The most bins of pit_hist(): far more than a device can show, and few
# enough that their breaks and counts take no memory to speak of.
pit_hist_max_bins <- 1e5

# The package's errors, built in one place. Every error gpuiso raises is a
# condition of class c("gpuiso_error_<kind>", "gpuiso_error", "error",
# "condition") with the fields `arg` (the argument at fault, or NULL) and
# `position` (the 1-based element of `arg`, or the failing problem of a
# batch; NA when none). Kinds: "input" (bad input), "overflow" (a true
# result beyond the range of doubles), "memory" (memory ran out), "device"
# (the GPU engine) and "internal" (a bug of gpuiso). The R layer raises them
# through abort_input() and abort_device(), the C glue through
# abort_from_c() (src/api_errors.c).

gpuiso_error <- function(kind, message, call = NULL, arg = NULL,
                         position = NA_real_) {
  structure(class = c(paste0("gpuiso_error_", kind), "gpuiso_error", "error",
                      "condition"),
            list(message = message, call = call, arg = arg,
                 position = position))
}

abort_input <- function(message, call, arg = NULL, position = NA_real_) {
  stop(gpuiso_error("input", message, call, arg, position))
}

# A true result beyond the largest double (a sum of weights, a score).
abort_overflow <- function(message, call) {
  stop(gpuiso_error("overflow", message, call))
}

abort_device <- function(message, call) {
  stop(gpuiso_error("device", message, call))
}

# The body of a method whose generic does not apply to its class of fit
# (coef() of a step function): an input error for the method's call, whose
# message, `...` pasted, says what to use instead.
not_applicable <- function(...) abort_input(paste0(...), sys.call(-1L))

# The errors of the C glue: gi_abort() calls this with the kind, the
# message, the argument (or NULL) and the position (or NA). A failure of the
# GPU engine gets gpu_failure()'s wording.
abort_from_c <- function(kind, message, arg = NULL, position = NA_real_) {
  if (identical(kind, "device")) message <- gpu_failure(message)
  stop(gpuiso_error(kind, message, entry_call(sys.nframe() - 1L), arg,
                    position))
}

# The call that an error raised under a .Call reports: that of the package
# function the user called. `from` is the frame of the function that made
# the .Call. Walking outwards, past the package's own frames and those of
# base R's packages between them (tryCatch(), lapply(), S3 generics), the
# outermost frame of a gpuiso function is the user's entry; a frame of any
# other code (the user's own functions, testthat) ends the walk. NULL when
# the .Call was made at top level.
entry_call <- function(from) {
  ns <- topenv(environment(entry_call))
  through <- c("base", "stats", "utils", "methods")
  found <- 0L
  for (i in rev(seq_len(from))) {
    env <- topenv(environment(sys.function(i)))
    if (identical(env, ns)) {
      found <- i
    } else if (!(isNamespace(env) && getNamespaceName(env) %in% through)) {
      break
    }
  }
  if (found > 0L) sys.call(found) else NULL
}

# An interrupt seen by the C engine, passed on as R's own: the `interrupt`
# condition is signalled (a tryCatch(interrupt = ) handler takes it), and
# without a handler the evaluation returns to top level, as after Ctrl-C.
interrupt_from_c <- function() {
  signalCondition(structure(class = c("interrupt", "condition"),
                            list(message = "", call = NULL)))
  invokeRestart("abort")
}

# "a character vector", "a list", "NULL", ... for error messages.
describe_type <- function(x) {
  if (is.null(x)) return("NULL")
  if (is.data.frame(x)) return("a data frame")
  if (is.factor(x)) return("a factor")
  if (is.matrix(x)) {
    return(paste(if (typeof(x) == "integer") "an" else "a", typeof(x), "matrix"))
  }
  if (is.list(x)) return("a list")
  # a Date, a POSIXct, a difftime: named by class, not by its storage
  if (is.object(x)) return(sprintf("an object of class \"%s\"", class(x)[1L]))
  what <- switch(typeof(x), character = "a character vector",
                 complex = "a complex vector", closure = , builtin = ,
                 special = "a function", environment = "an environment",
                 paste("an object of type", typeof(x)))
  # a logical or number that is not one value: say how many it has
  if (typeof(x) %in% c("logical", "integer", "double") && length(x) != 1L) {
    what <- sprintf("%s %s vector of length %.0f",
                    if (typeof(x) == "integer") "an" else "a",
                    if (typeof(x) == "double") "numeric" else typeof(x), length(x))
  }
  what
}

# "element 7" for vectors, "element [2, 3]" for matrices.
describe_position <- function(pos, x) {
  d <- dim(x)
  if (length(d) == 2L) {
    i <- (pos - 1) %% d[1L] + 1
    j <- (pos - 1) %/% d[1L] + 1
    sprintf("element [%.0f, %.0f]", i, j)
  } else {
    sprintf("element %.0f", pos)
  }
}

describe_value <- function(v) {
  if (is.double(v) && is.nan(v)) return("NaN")
  if (is.na(v)) return("NA")
  if (is.infinite(v)) return(if (v > 0) "Inf" else "-Inf")
  format(v, digits = 4L)
}

# The message of a failure of the GPU engine: its own, and the way out
# unless it gave that already.
gpu_failure <- function(message) {
  message <- paste("The GPU engine failed:", sub("[.[:space:]]*$", ".", message))
  if (!grepl("device = \"cpu\"", message, fixed = TRUE)) {
    message <- paste(message, "Use `device = \"cpu\"` to solve on the CPU instead.")
  }
  message
}

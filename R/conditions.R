# Errors for bad input: one helper, one class, the user's call.

abort_input <- function(message, call) {
  stop(errorCondition(message, class = c("gpuiso_error_input", "gpuiso_error"),
                      call = call))
}

# A true result beyond the largest double (a sum of weights, a score).
abort_overflow <- function(message, call) {
  stop(errorCondition(message, class = c("gpuiso_error_overflow", "gpuiso_error"),
                      call = call))
}

abort_device <- function(message, call) {
  stop(errorCondition(message, class = c("gpuiso_error_device", "gpuiso_error"),
                      call = call))
}

# "a character vector", "a list", "NULL", ... for error messages.
describe_type <- function(x) {
  if (is.null(x)) return("NULL")
  if (is.data.frame(x)) return("a data frame")
  if (is.factor(x)) return("a factor")
  if (is.matrix(x)) return(paste("a", typeof(x), "matrix"))
  if (is.list(x)) return("a list")
  what <- switch(typeof(x), character = "a character vector",
                 complex = "a complex vector", closure = , builtin = ,
                 special = "a function", paste("an object of type", typeof(x)))
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
  if (is.na(v) && !is.nan(v)) return("NA")
  if (is.nan(v)) return("NaN")
  if (is.infinite(v)) return(if (v > 0) "Inf" else "-Inf")
  format(v, digits = 4L)
}

# A failure of the GPU engine (out of memory, a CUDA error): its message,
# and the way out unless the engine gave that already.
abort_gpu <- function(message, call) {
  message <- paste("The GPU engine failed:", sub("[.[:space:]]*$", ".", message))
  if (!grepl("device = \"cpu\"", message, fixed = TRUE)) {
    message <- paste(message, "Use `device = \"cpu\"` to solve on the CPU instead.")
  }
  abort_device(message, call)
}

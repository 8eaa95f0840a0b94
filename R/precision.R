# precision = "single": the inputs are rounded to float32 before the fit and
# the results after it, on either engine, so that the CPU and the GPU solve
# the same problem and return values of the same kind.

# The largest finite float32. (The largest positive double that rounds to
# zero in float32 is 2^-150, half the smallest subnormal: scan.c tests it.)
float32_max <- 3.4028234663852886e38

# "double" or "single", from the argument `precision` (its default, the
# vector of both choices, means "double").
check_precision <- function(precision, call) {
  check_choice(precision, c("double", "single"), "precision", call)
}

# Values rounded to float32 and back (NULL stays NULL; attributes dropped).
as_single <- function(x) {
  if (is.null(x)) return(NULL)
  .Call(ffi_as_single, x)
}

# The error for element `pos` of finite values `x` that float32 cannot hold:
# beyond its range or, for weights, positive but rounding to zero (a point
# would silently lose its influence, and a problem could lose all of its
# weight).
abort_single_range <- function(x, pos, arg, call) {
  if (abs(x[[pos]]) > float32_max) {
    abort_input(sprintf(paste0("`%s` must be at most 3.4e38 in magnitude for ",
                               "`precision = \"single\"` (float32): %s is %s."),
                        arg, describe_position(pos, x), describe_value(x[[pos]])),
                call, arg = arg, position = pos)
  }
  abort_input(sprintf(paste0("`%s` must be zero or above 7e-46 for ",
                             "`precision = \"single\"`, where smaller ones ",
                             "round to zero: %s is %s."),
                      arg, describe_position(pos, x),
                      describe_value(x[[pos]])), call, arg = arg, position = pos)
}

# Options of a fit shared by isotonic(), isoreg() and iso_calibrate(): the
# direction, with "auto" as scikit-learn has it, and bounds on the fitted
# values.

# TRUE or FALSE from `decreasing`; "auto" takes the sign of Spearman's rank
# correlation of x and y (increasing when it is 0 or undefined).
resolve_direction <- function(decreasing, x, y, call) {
  if (identical(decreasing, "auto")) return(spearman_negative(x, y))
  if (!is.logical(decreasing) || length(decreasing) != 1L || is.na(decreasing)) {
    abort_input(sprintf("`decreasing` must be TRUE, FALSE or \"auto\", not %s.",
                        if (length(decreasing) == 1L) deparse(decreasing)
                        else describe_type(decreasing)), call, arg = "decreasing")
  }
  decreasing
}

spearman_negative <- function(x, y) {
  if (length(y) < 2L) return(FALSE)
  rho <- suppressWarnings(stats::cor(rank(x), rank(y)))
  isTRUE(rho < 0)
}

# NULL when neither bound is given, else list(y_min, y_max) with the
# missing one infinite (and NULL in y_min, y_max). Bounds are finite
# numbers, y_min <= y_max; y_min = -Inf and y_max = Inf are no bound (a
# fit bounded by Inf below or -Inf above would have no finite value).
check_bounds <- function(y_min, y_max, call) {
  one <- function(v, arg, none) {
    if (is.null(v)) return(none)
    if (!is.numeric(v) || is.object(v) || length(v) != 1L || is.na(v)) {
      abort_input(sprintf("`%s` must be one number (or NULL), not %s.", arg,
                          if (length(v) == 1L) deparse(v) else describe_type(v)),
                  call, arg = arg)
    }
    v <- as.double(v)
    if (is.infinite(v) && v != none) {
      abort_input(sprintf("`%s` must be finite (or NULL for no bound), not %s.", arg,
                          describe_value(v)), call, arg = arg)
    }
    v
  }
  lo <- one(y_min, "y_min", -Inf)
  hi <- one(y_max, "y_max", Inf)
  if (lo == -Inf && hi == Inf) return(NULL)
  if (lo > hi) {
    abort_input(sprintf("`y_min` must not exceed `y_max`: %s > %s.",
                        describe_value(lo), describe_value(hi)), call, arg = "y_min")
  }
  list(y_min = if (lo > -Inf) y_min, y_max = if (hi < Inf) y_max, lo = lo, hi = hi)
}

# The fit under bounds: the bounded least-squares isotonic fit is the
# unbounded one clipped to them, exactly. Attributes are kept.
clip_values <- function(v, bounds) {
  if (is.null(bounds)) return(v)
  if (bounds$lo > -Inf) v[v < bounds$lo] <- bounds$lo
  if (bounds$hi < Inf) v[v > bounds$hi] <- bounds$hi
  v
}

# Shared by iso_calibrate() and reliability_diagram(): probabilities and
# outcomes checked, scores sorted within groups and tied scores pooled.

# Outcomes: 0/1 (logical or numeric) or probabilities, all in [0, 1].
check_unit_interval <- function(x, arg, call) {
  # one pass: a value outside [0, 1] (NaN included) is found there, and
  # check_values() names it if it is not finite
  x <- check_values(x, arg, call, scan = FALSE)
  pos <- .Call(ffi_first_outside_unit, x)
  if (pos > 0 && !is.finite(x[[pos]])) check_values(x, arg, call)
  if (pos > 0) {
    abort_input(sprintf("`%s` must lie in [0, 1]: %s is %s.", arg,
                        describe_position(pos, x), describe_value(x[[pos]])),
                call)
  }
  as.vector(x)
}

# Group labels: one per score, none missing. Returns list(code, labels), the
# codes numbering the labels in the order of a factor's levels (those that
# occur), else of first appearance; NULL for no groups.
check_labels <- function(groups, n, call) {
  if (is.null(groups)) return(NULL)
  g <- check_label_vector(groups, n, "scores", "score", call)
  labels <- if (is.factor(groups)) intersect(levels(groups), g) else unique(g)
  list(code = match(g, labels), labels = as.character(labels))
}

# The order of the scores within groups, order(code, scores, method =
# "radix"): from order_c_min_n scores by the package's own radix sort
# (src/core/order.c: the same order, on the engine's threads, in about
# half the time at 10^6 scores on two threads), and by R's where that runs
# out of memory.
order_scores <- function(scores, code) {
  ord <- if (length(scores) >= order_c_min_n) {
    .Call(ffi_order_scores, scores, code, resolve_threads())
  }
  if (!is.null(ord)) return(ord)
  if (is.null(code)) order(scores, method = "radix") else order(code, scores, method = "radix")
}
order_c_min_n <- 2^12

# Sort by group and score (one radix sort) and pool tied scores within a
# group: each run of equal scores becomes one point with the summed weight
# and the weighted mean outcome (one pass in C, in the sorted order, with no
# sorted copies of the inputs). `groups` is check_labels()'s result or NULL.
# Returns the pooled points (score, value, weight, group code), the problem
# offsets of the groups, and with `run_of` for each input element its point
# (so that results can be spread back).
pool_scores <- function(scores, outcomes, weights, groups, run_of = FALSE) {
  code <- groups$code
  ord <- order_scores(scores, code)
  .Call(ffi_pool_sorted, scores, outcomes, weights, code,
        max(1L, length(groups$labels)), ord, run_of, resolve_threads())
}

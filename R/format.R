# Small formatters for printed output.

# "1 block", "3 blocks", "1200 points".
count_noun <- function(n, singular, plural = paste0(singular, "s")) {
  paste(format(n, scientific = FALSE, trim = TRUE),
        if (n == 1) singular else plural)
}

# Bytes in the unit that reads best: "812 bytes", "3.4 Kb", "1.2 Gb" (R's
# own object_size formatting, in powers of 1024).
format_bytes <- function(bytes) {
  format(structure(bytes, class = "object_size"), units = "auto", digits = 2L)
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# A call on one line: deparse() breaks long calls and indents the rest, which
# pasted together leaves runs of spaces.
format_call <- function(call) {
  paste(trimws(deparse(call, width.cutoff = 500L)), collapse = " ")
}

# The name of a variable passed as the expression `expr`, for labels and for
# finding it in new data: the column name of a one-column `value`, the name
# itself, the element that `d$v` or `d[["v"]]` extracts, else `default`.
variable_name <- function(expr, default, value = NULL) {
  nm <- if (is.data.frame(value) || is.matrix(value)) colnames(value)
  if (length(nm) == 1L && !is.na(nm) && nzchar(nm)) return(nm)
  if (is.name(expr)) return(as.character(expr))
  if (is.call(expr) && length(expr) == 3L &&
      (identical(expr[[1L]], as.name("$")) || identical(expr[[1L]], as.name("[[")))) {
    el <- expr[[3L]]
    if (is.name(el) && identical(expr[[1L]], as.name("$"))) return(as.character(el))
    if (is.character(el) && length(el) == 1L) return(el)
  }
  default
}

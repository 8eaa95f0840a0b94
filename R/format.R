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

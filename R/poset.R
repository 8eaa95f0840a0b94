# Isotonic regression on a partial order (src/core/poset.c), the solver of
# IDR with several covariates; internal for now.

# The weighted least-squares fit of y (weights w > 0) subject to
# f[from[e]] <= f[to[e]] for every edge e (1-based nodes); y a vector, or a
# matrix of one problem per column (on the engine's threads). warm = TRUE
# solves the columns as a sequence, each warm-started from the solution of
# the one before, as IDR's thresholds are (the same fits, to rounding).
poset_fit <- function(y, w, from, to, warm = FALSE) {
  if (is.matrix(y)) storage.mode(y) <- "double" else y <- as.double(y)
  .Call(ffi_poset_fit, y, as.double(w), as.integer(from) - 1L, as.integer(to) - 1L,
        warm, resolve_threads())
}

# The covering edges (the transitive reduction) of the componentwise order
# of the rows of X, which must be distinct: list(from, to), 1-based rows.
comp_edges <- function(X) {
  X <- as.matrix(X)
  storage.mode(X) <- "double"
  lex <- do.call(order, c(unname(lapply(seq_len(ncol(X)), function(k) X[, k])),
                          list(method = "radix")))
  e <- .Call(ffi_poset_comp_edges, X, lex, resolve_threads())
  list(from = e$from + 1L, to = e$to + 1L)
}

# Isotonic regression on a partial order (src/core/poset.c), the solver of
# IDR with several covariates; internal for now.

# The weighted least-squares fit of y (weights w > 0) subject to
# f[from[e]] <= f[to[e]] for every edge e (1-based nodes); y a vector, or a
# matrix of one problem per column (on the engine's threads). warm = TRUE
# solves the columns as a sequence, each warm-started from the solution of
# the one before, as IDR's thresholds are (the same fits, to rounding).
# points: NULL, or the nodes as the distinct rows of a two-column matrix
# whose componentwise order the edges generate: the cuts then take the
# staircase of src/core/plane_cut.c instead of a maximum flow.
poset_fit <- function(y, w, from, to, warm = FALSE, points = NULL) {
  if (is.matrix(y)) storage.mode(y) <- "double" else y <- as.double(y)
  .Call(ffi_poset_fit, y, as.double(w), as.integer(from) - 1L, as.integer(to) - 1L,
        warm, if (!is.null(points)) plane_points(points), resolve_threads())
}

# The distinct rows of a two-column matrix Z as points in the plane for the
# solver: an integer matrix of their positions in lexicographic order and
# the ranks of their second coordinates (0-based, equal values equal); NULL
# when Z has another number of columns.
plane_points <- function(Z) {
  if (ncol(Z) != 2L) return(NULL)
  lex <- order(Z[, 1L], Z[, 2L], method = "radix")
  pos <- integer(nrow(Z))
  pos[lex] <- seq_len(nrow(Z)) - 1L
  rank <- match(Z[, 2L], sort(unique(Z[, 2L]))) - 1L
  matrix(c(pos, rank), ncol = 2L)
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

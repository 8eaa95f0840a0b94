# How values are laid out as a batch of problems for the engine: offsets
# o[1] = 0 <= ... <= o[B + 1] = length(y), problem b covering (o[b], o[b+1]].
# A vector is one problem, a matrix one problem per column, and `groups` one
# problem per distinct label (gathered in order of first appearance when the
# labels are not contiguous, and scattered back afterwards).

layout_problems <- function(y, weights, groups, call, single = FALSE) {
  y <- check_values(y, "y", call, single = single)
  w <- check_weights(weights, y, call, single = single)
  n <- length(y)
  perm <- NULL
  if (!is.null(groups)) {
    refuse_groups_of_matrix(y, groups, call)
    g <- check_groups(groups, n, call)
    if (!g$contiguous) {
      perm <- g$order
      y <- y[perm]
      if (!is.null(w)) w <- w[perm]
    }
    offsets <- g$offsets
    labels <- function(b) sprintf("group %s", encodeString(g$labels[b], quote = "\""))
  } else if (is.matrix(y)) {
    offsets <- seq.int(0, by = nrow(y), length.out = ncol(y) + 1L)
    labels <- function(b) sprintf("column %.0f", b)
  } else {
    offsets <- c(0, n)
    labels <- function(b) NULL
  }
  offsets <- as.double(offsets)
  check_weights_positive(w, offsets, labels, call)
  list(y = y, w = w, offsets = offsets, perm = perm)
}

# `groups` divide a vector; a matrix is divided by its columns.
refuse_groups_of_matrix <- function(y, groups, call) {
  if (!is.null(groups) && is.matrix(y)) {
    abort_input("`groups` can only be used with a vector `y`, not a matrix.", call)
  }
}

check_groups <- function(groups, n, call) {
  g <- check_label_vector(groups, n, "y", "element of `y`", call)
  if (n == 0L) {
    return(list(contiguous = TRUE, offsets = 0, labels = character()))
  }
  first <- c(TRUE, g[-1L] != g[-n])
  labels <- g[first]
  if (!anyDuplicated(labels)) {
    return(list(contiguous = TRUE, offsets = c(which(first) - 1, n),
                labels = as.character(labels)))
  }
  code <- match(g, unique(g))
  sizes <- tabulate(code)
  list(contiguous = FALSE, order = order(code, method = "radix"),
       offsets = c(0, cumsum(as.double(sizes))),
       labels = as.character(unique(g)))
}

# Engine output back in the shape and order of the user's `y`.
restore_shape <- function(v, layout, y) {
  if (!is.null(layout$perm)) v[layout$perm] <- v
  d <- dim(y)
  if (!is.null(d)) {
    dim(v) <- d
    dimnames(v) <- dimnames(y)
  } else {
    names(v) <- names(y)
  }
  v
}

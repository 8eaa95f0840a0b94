# IDR with several covariates: the order (groups, orders, directions), the
# fit of every threshold on that partial order (src/core/idr_poset.c) and
# the predictions at new points (src/core/idr_po_predict.c).
#
# A covariate vector enters the order through its representation z: for a
# group of covariates under "comp", the covariates themselves; under "sd",
# the group's values sorted from the largest down (z <= z' in every
# coordinate is first-order stochastic dominance of the empirical
# distributions of the members); under "icx", the partial sums of those
# sorted values, each exact and rounded once (the increasing convex order
# of the members' empirical distributions, for groups of equal size). A
# decreasing covariate or group has its coordinates of z negated (which
# reverses an "sd" or "icx" group's order). Then x is below x' when z <= z' in
# every coordinate, and the CDFs must not increase from x to x'.

# The order of an IDR fit on the covariates `cols`: list(group (integer
# per column), order (per group: "comp", "sd" or "icx"), sign (per column),
# and the arguments as given, named by the columns).
idr_po_spec <- function(cols, groups, orders, decreasing, call) {
  d <- length(cols)
  if (is.null(groups)) {
    groups <- stats::setNames(rep(1, d), cols)
  } else {
    if (is.factor(groups)) groups <- stats::setNames(as.character(groups), names(groups))
    if (!is.atomic(groups) || is.object(groups) || length(groups) != d || anyNA(groups)) {
      abort_input(sprintf(paste0("`groups` must give a group label (a number or a string) for ",
                                 "each of the %.0f covariates (%s), without missing values: ",
                                 "it is %s."),
                          d, paste0("`", cols, "`", collapse = ", "),
                          if (!is.atomic(groups) || is.object(groups)) describe_type(groups)
                          else if (anyNA(groups)) "missing for some"
                          else sprintf("of length %.0f", length(groups))),
                  call, arg = "groups")
    }
    if (!is.null(names(groups))) {
      if (anyDuplicated(names(groups)) || !setequal(names(groups), cols)) {
        abort_input(sprintf(paste0("The names of `groups` must be the covariates ",
                                   "(%s), each once."),
                            paste0("`", cols, "`", collapse = ", ")), call, arg = "groups")
      }
      groups <- groups[cols]
    } else {
      names(groups) <- cols
    }
  }
  labels <- unique(unname(groups))
  kinds <- c("comp", "sd", "icx")
  if (!is.atomic(orders) || is.object(orders) || !length(orders) || is.null(names(orders)) ||
      anyNA(orders) || !all(names(orders) %in% kinds)) {
    abort_input(paste0("`orders` must be a named vector such as `c(comp = 1, icx = 2)`: ",
                       "each name \"comp\", \"sd\" or \"icx\", each value a label of ",
                       "`groups`."), call, arg = "orders")
  }
  if (anyDuplicated(unname(orders)) || !setequal(unname(orders), labels)) {
    abort_input(sprintf(paste0("`orders` must name one order for each group of `groups` ",
                               "(%s), and no other: it has %s."),
                        paste(format(labels), collapse = ", "),
                        paste(names(orders), "=", format(unname(orders)), collapse = ", ")),
                call, arg = "orders")
  }
  covs <- paste0("`", cols, "`", collapse = ", ")
  if (!is.logical(decreasing) || anyNA(decreasing) ||
      !length(decreasing) %in% c(1L, d)) {
    abort_input(paste0("`decreasing` must be TRUE or FALSE",
                       if (d > 1L) sprintf(", or one of them for each of the %.0f covariates (%s)",
                                           d, covs), "."), call, arg = "decreasing")
  }
  # named: one value for each covariate (one name alone, which rep_len()
  # would give every covariate, is not read as "this one only")
  if (!is.null(names(decreasing))) {
    if (length(decreasing) != d || anyDuplicated(names(decreasing)) ||
        !setequal(names(decreasing), cols)) {
      abort_input(sprintf("The names of `decreasing` must be the covariates (%s), each once.",
                          covs), call, arg = "decreasing")
    }
    decreasing <- decreasing[cols]
  }
  decreasing <- stats::setNames(rep_len(unname(decreasing), d), cols)
  group <- match(unname(groups), labels)
  order <- names(orders)[match(labels, unname(orders))]
  for (g in seq_along(labels)) {
    members <- which(group == g)
    if (order[g] != "comp" && length(unique(decreasing[members])) > 1L) {
      abort_input(sprintf(paste0("The covariates of group %s (ordered by \"%s\") must be ",
                                 "all increasing or all decreasing: `decreasing` gives ",
                                 "both."), format(labels[g]), order[g]), call,
                  arg = "decreasing")
    }
  }
  list(cols = cols, group = group, order = order, labels = labels,
       sign = ifelse(decreasing, -1, 1), groups = groups,
       orders = orders, decreasing = decreasing)
}

# "comp(Temp, Wind)", "icx(P1, ..., P50) decreasing".
idr_po_describe <- function(spec) {
  parts <- vapply(seq_along(spec$order), function(g) {
    m <- spec$cols[spec$group == g]
    shown <- if (length(m) > 4L) c(m[1:2], "...", m[length(m)]) else m
    dec <- spec$sign[spec$group == g] < 0
    suffix <- if (spec$order[g] == "comp" && any(dec) && !all(dec)) {
      sprintf(" (decreasing in %s)", paste(m[dec], collapse = ", "))
    } else if (all(dec)) " decreasing" else ""
    sprintf("%s(%s)%s", spec$order[g], paste(shown, collapse = ", "), suffix)
  }, "")
  paste(parts, collapse = " x ")
}

# The representation of rows of the covariates X (a data frame of finite
# numbers, in the columns of spec): list(P, the values after the groups'
# transforms, in the covariates' units; Z, the coordinates compared, P with
# the decreasing ones negated, -0 as 0).
idr_po_prepare <- function(X, spec, call) {
  P <- matrix(as.double(unlist(X, use.names = FALSE)), nrow(X), ncol(X),
              dimnames = list(NULL, spec$cols))
  n <- nrow(P)
  for (g in seq_along(spec$order)) {
    members <- which(spec$group == g)
    k <- length(members)
    if (spec$order[g] == "comp" || k < 2L || n == 0L) next
    v <- as.vector(t(P[, members, drop = FALSE]))
    o <- order(rep(seq_len(n), each = k), -v, method = "radix")
    S <- t(matrix(v[o], k, n))
    if (spec$order[g] == "icx") {
      # each partial sum exact, rounded once: sums rounded at every step
      # could order two ensembles against their exact sums
      S <- .Call(ffi_partial_sums, S)
      if (any(!is.finite(S))) {
        abort_input(sprintf(paste0("The partial sums of the covariates of group %s ",
                                   "(the \"icx\" order) exceed the largest double: ",
                                   "divide them by a constant."), format(spec$labels[g])),
                    call)
      }
    }
    P[, members] <- S
  }
  Z <- sweep(P, 2L, spec$sign, "*") + 0
  list(P = P, Z = Z)
}

# The fit on several covariates; `input` from idr_observations_input() with
# `x` a data frame, `spec` from idr_po_spec().
idr_po <- function(input, spec, thresholds, device, call, ecall) {
  dev <- idr_po_device(device, spec, length(input$y), length(input$y), ecall)
  s <- idr_po_setups(list(input), spec, thresholds, dev, ecall)[[1L]]
  idr_po_object(s, idr_po_engine(list(s), dev)[[1L]], call, ecall)
}

# The engine of a fit on several covariates (n observations in all, at
# most nmax in one level of a batch), resolved: "gpu" only on two (the
# points in the plane, cuda/idr_plane.cu); "auto" takes it, when a GPU is
# available, from `options(gpuiso.idr_po_gpu_min_n)` observations in all
# and for levels of at most idr_po_gpu_max_n.
idr_po_device <- function(device, spec, n, nmax, call) {
  plane <- length(spec$cols) == 2L
  if (identical(device, "gpu") && !plane) {
    abort_input(sprintf(paste0("The GPU engine fits IDR on one covariate or on two (points ",
                               "in the plane): with %.0f, use `device = \"cpu\"` (or ",
                               "`\"auto\"`)."), length(spec$cols)), call, arg = "device")
  }
  if (identical(device, "auto") && (!plane || nmax > idr_po_gpu_max_n)) return("cpu")
  resolve_device(device, n, call,
                 min_n = gpu_min_n("gpuiso.idr_po_gpu_min_n", idr_po_gpu_min_n_default))
}

# Measured on an H100 host against the CPU's 8 and 16 threads
# (bench/gpu/idr-plane-RESULTS.md): the GPU solves each threshold afresh,
# the CPU from the one before, so the GPU wins on many small fits (a batch
# of 10 levels of 1,000 observations: 0.053 s against 0.089-0.109 and
# 0.070-0.078; 1,000 levels: 5.7-7.3 s against 8.8-12.1 and 6.8-10.9, in
# two runs) and loses on large ones (one fit of 5,000 with all
# thresholds: 0.28 s against 0.15 and 0.10). So "auto" takes it from
# 10,000 observations in all, in levels of at most 3,000.
idr_po_gpu_min_n_default <- 10000
idr_po_gpu_max_n <- 3000

# What the engines need of the fits on several covariates of `inputs` (one
# per level), and what their objects keep: each a list of the distinct
# points (nodes) in their storage order, the observations' nodes and
# switch-on thresholds, the covering pairs and, on two covariates, the
# points' positions and ranks in the plane. The storage orders come from
# fits at a few thresholds on `device`, all levels in one batch.
idr_po_setups <- function(inputs, spec, thresholds, device, ecall) {
  pts <- lapply(inputs, idr_po_points, spec = spec, thresholds = thresholds, ecall = ecall)
  coarse <- idr_po_engine(lapply(pts, idr_po_coarse), device)
  Map(idr_po_stored, pts, coarse)
}

# The distinct points of one input, numbered in lexicographic order, with
# its observations' nodes and thresholds, the covering pairs and the plane.
idr_po_points <- function(input, spec, thresholds, ecall) {
  y <- input$y
  X <- input$x
  w <- input$w
  keep <- if (!is.null(w) && any(w == 0)) which(w > 0)
  Xk <- if (is.null(keep)) X else X[keep, , drop = FALSE]
  yk <- if (is.null(keep)) y else y[keep]
  wk <- if (is.null(keep)) w else w[keep]
  if (!is.null(wk)) wk <- scale_weights(wk)
  thresholds <- idr_thresholds(thresholds, yk, ecall)
  K <- length(thresholds)
  Z <- idr_po_prepare(Xk, spec, ecall)$Z
  lex <- do.call(order, c(unname(lapply(seq_len(ncol(Z)), function(c) Z[, c])),
                          list(method = "radix")))
  Zs <- Z[lex, , drop = FALSE]
  first <- c(TRUE, if (nrow(Zs) > 1L)
    rowSums(Zs[-1L, , drop = FALSE] != Zs[-nrow(Zs), , drop = FALSE]) > 0)
  node_lex <- integer(length(lex))
  node_lex[lex] <- cumsum(first)
  m <- sum(first)
  Zd <- Zs[first, , drop = FALSE]
  edges <- .Call(ffi_poset_comp_edges, Zd, seq_len(m), resolve_threads())
  # each point shown by the covariates of one of its observations (under
  # "sd" and "icx", other observations may be permutations or other
  # ensembles equal in the order): predict() at them gives their fit
  list(input = input, spec = spec, keep = keep, wk = wk, yk = yk, thresholds = thresholds,
       K = K, m = m, node = node_lex - 1L,
       kcode = findInterval(yk, thresholds, left.open = TRUE),
       from = edges$from, to = edges$to, plane = plane_points(Zd), rows = lex[first], z = Zd)
}

# The problems of at most 9 thresholds spread over the K of points `p`
# (in lexicographic numbering), whose fits give the storage order.
idr_po_coarse <- function(p) {
  sel <- unique(as.integer(round(seq(0, p$K - 1, length.out = min(p$K, 9L)))))
  p$kcode <- findInterval(p$kcode, sel, left.open = TRUE)
  p$K <- length(sel)
  p
}

# Points `p` renumbered in their storage order: by their CDFs summed over
# the thresholds of `coarse`, their fit from idr_po_coarse(), largest first
# (the CDFs decrease up the order, so this is a linear extension of it),
# ties in lexicographic order; so that each threshold's level sets are runs
# (few blocks).
idr_po_stored <- function(p, coarse) {
  m <- p$m
  K <- length(coarse$ptr) - 1L
  F <- .Call(ffi_idr_cdf, coarse$ptr, coarse$start, coarse$value, as.double(m),
             seq_len(m) - 1L, numeric(m), seq_len(K) - 1L, FALSE)
  perm <- order(-rowSums(F), seq_len(m))
  rank <- integer(m)
  rank[perm] <- seq_len(m)
  p$node <- rank[p$node + 1L] - 1L
  p$from <- rank[p$from + 1L] - 1L
  p$to <- rank[p$to + 1L] - 1L
  if (!is.null(p$plane)) p$plane <- p$plane[perm, , drop = FALSE]
  p$rows <- p$rows[perm]
  p$z <- p$z[perm, , drop = FALSE]
  p$lex <- rank
  p
}

# The fits of setups (idr_po_setups()) on a resolved device: a list of
# list(ptr, start, value, device). On the GPU (two covariates) their
# threshold problems are one batch; the CPU fits one setup after another,
# each on all threads.
idr_po_engine <- function(setups, device) {
  cpu <- function() {
    list(fits = lapply(setups, function(s) {
      .Call(ffi_idr_po_fit, s$node, s$kcode, s$wk, as.double(s$m), as.double(s$K), s$from,
            s$to, s$plane, resolve_threads())
    }))
  }
  res <- on_device(device, gpu = idr_po_gpu(setups), cpu = cpu())
  lapply(res$fits, function(o) c(o, list(device = res$device)))
}

# The GPU batch of idr_po_engine(): list(fits, status).
idr_po_gpu <- function(setups) {
  n <- vapply(setups, function(s) length(s$node), 0)
  # the levels of one input all have weights or none: NULL, or one vector
  w <- unlist(lapply(setups, `[[`, "wk"), use.names = FALSE)
  .Call(ffi_gpu_idr_plane,
        unlist(lapply(setups, `[[`, "node"), use.names = FALSE),
        unlist(lapply(setups, `[[`, "kcode"), use.names = FALSE),
        w, as.integer(c(0, cumsum(n))),
        vapply(setups, function(s) as.integer(s$m), 0L),
        vapply(setups, function(s) as.integer(s$K), 0L),
        do.call(rbind, lapply(setups, `[[`, "plane")), resolve_threads())
}

# The fit object of a setup and its engine's result `res`.
idr_po_object <- function(s, res, call, ecall) {
  input <- s$input
  keep <- s$keep
  w <- input$w
  m <- s$m
  node <- s$node
  weight <- if (is.null(s$wk)) as.double(tabulate(node + 1L, m))
            else as.vector(rowsum(if (is.null(keep)) w else w[keep], node + 1L,
                                  reorder = TRUE))
  if (any(!is.finite(weight))) {
    abort_overflow(sprintf(paste0("The weights of the observations at one covariate point ",
                                  "sum to more than the largest double (%s): divide the ",
                                  "weights by a constant, which leaves the fit as it is."),
                           format(.Machine$double.xmax)), ecall)
  }
  y <- input$y
  X <- input$x
  obs_node <- rep.int(NA_integer_, length(y))
  obs_node[if (is.null(keep)) seq_along(y) else keep] <- node
  Xk <- if (is.null(keep)) X else X[keep, , drop = FALSE]
  xs <- Xk[s$rows, , drop = FALSE]
  row.names(xs) <- NULL
  spec <- s$spec
  fit <- list(
    x = xs, weight = weight, thresholds = s$thresholds,
    ptr = res$ptr, start = res$start, value = res$value, npoints = m,
    n = length(y), yname = input$yname, xname = input$xname,
    order = idr_po_describe(spec), spec = spec,
    groups = spec$groups, orders = spec$orders, decreasing = spec$decreasing,
    z = s$z, lex = s$lex,
    edges = list(from = s$from + 1L, to = s$to + 1L),
    clim = idr_climatology(s$yk, s$wk, s$thresholds),
    device = res$device, call = call,
    data = list(x = X, y = y, weights = w, names = input$names, node = obs_node))
  fit$na.action <- input$na.action
  fit$terms <- input$terms
  structure(fit, class = c("gpuiso_idr_po", "gpuiso_idr"))
}

# The (weighted) empirical CDF of y at the thresholds: the prediction at a
# point comparable to no fitted point.
idr_climatology <- function(y, w, thresholds) {
  k <- findInterval(y, thresholds, left.open = TRUE) + 1L
  K <- length(thresholds)
  s <- if (is.null(w)) tabulate(k, K) else as.vector(tapply(w, factor(k, seq_len(K)), sum,
                                                             default = 0))
  out <- cumsum(s) / sum(s)
  out[K] <- 1
  pmin(out, 1)
}

#' @rdname predict.gpuiso_idr
#' @export
predict.gpuiso_idr_po <- function(object, newdata = NULL, data = NULL, ...) {
  call <- sys.call()
  one <- intersect(...names(), c("interpolation", "out_of_bounds"))
  if (length(one)) {
    abort_input(sprintf(paste0("`%s` applies to fits on one covariate: on several, a new ",
                               "point takes the mean of the bounds from the comparable ",
                               "fitted points (see `?predict.gpuiso_idr`)."), one[1L]),
                call, arg = one[1L])
  }
  check_dots(..., fn = "predict()")
  nd <- idr_newdata_arg(newdata, data, call)
  newdata <- nd$newdata
  arg <- nd$arg
  if (is.null(newdata)) {
    node <- object$data$node
    p <- if (!anyNA(node)) {
      new_idr_pred(object, object$data$x, node, numeric(length(node)), object$data$names)
    } else {
      idr_po_predict(object, object$data$x, object$data$names, call)
    }
    if (inherits(object$na.action, "exclude")) p <- idr_pad(p, object$na.action)
    return(p)
  }
  nd <- idr_po_newdata(newdata, object, arg, call)
  idr_po_predict(object, nd$x, nd$names, call)
}

# Predictions at the rows of X (a data frame of the fit's covariates, NA
# allowed: a missing prediction).
idr_po_predict <- function(object, X, names, call) {
  q <- nrow(X)
  ok <- which(stats::complete.cases(X))
  j <- rep.int(NA_integer_, q)
  tab <- list(ptr = c(0, rep(0, length(object$thresholds))), start = integer(),
              value = numeric(), npoints = 0, thresholds = object$thresholds,
              yname = object$yname, xname = object$xname)
  if (length(ok)) {
    Z <- idr_po_prepare(X[ok, , drop = FALSE], object$spec, call)$Z
    r <- .Call(ffi_idr_po_predict, object$ptr, object$start, object$value, object$z,
               object$lex, Z, object$clim, resolve_threads())
    tab$ptr <- r$ptr
    tab$start <- r$start
    tab$value <- r$value
    tab$npoints <- length(ok)
    tab$below <- r$nbelow
    tab$above <- r$nabove
    j[ok] <- r$pos
  }
  new_idr_pred(tab, X, j, numeric(q), names)
}

# New covariate values for a fit on the partial order: a data frame (or
# matrix, or list) with the fit's covariates as columns (for a fit from a
# formula, the variables of its terms, evaluated as in the fit). Returns
# list(x = a data frame of the covariates, NA allowed; names).
idr_po_newdata <- function(newdata, fit, arg, call) {
  cols <- fit$spec$cols
  newdata <- idr_list_as_frame(newdata, arg, call,
                               "a data frame, a matrix or a list of columns of equal length")
  if (!is.data.frame(newdata) && !is.matrix(newdata)) {
    abort_input(sprintf(paste0("`%s` must be a data frame or a matrix with the fit's ",
                               "covariates (%s) as columns, not %s."),
                        arg, paste0("`", fit$spec$cols, "`", collapse = ", "),
                        describe_type(newdata)), call)
  }
  names <- observation_names(newdata)
  if (is.matrix(newdata)) {
    # a matrix without column names, as wide as the covariates: its columns
    # are the covariates in the fit's order (as an unnamed X's were)
    if (is.null(colnames(newdata)) && is.null(fit$terms) && ncol(newdata) == length(cols)) {
      colnames(newdata) <- cols
    }
    newdata <- as.data.frame(newdata, optional = TRUE)
  }
  tt <- fit$terms
  if (!is.null(tt)) {
    rhs <- stats::delete.response(tt)
    vars <- all.vars(rhs)
    if (!all(vars %in% names(newdata))) {
      abort_input(sprintf("`%s` must have the columns %s, the covariates of the fit.",
                          arg, paste0("`", vars, "`", collapse = ", ")), call)
    }
    frame <- tryCatch(stats::model.frame(rhs, newdata, na.action = stats::na.pass),
                      error = function(e) {
      abort_input(sprintf("The covariates could not be evaluated in `%s`: %s", arg,
                          conditionMessage(e)), call)
    })
    X <- as.data.frame(frame[cols])
  } else {
    miss <- setdiff(cols, names(newdata))
    if (length(miss)) {
      abort_input(sprintf("`%s` must have the columns %s, the covariates of the fit: %s %s missing.",
                          arg, paste0("`", cols, "`", collapse = ", "),
                          paste0("`", miss, "`", collapse = ", "),
                          if (length(miss) == 1L) "is" else "are"), call)
    }
    X <- newdata[cols]
  }
  for (c in cols) {
    v <- X[[c]]
    if (is.factor(v) || !(is.numeric(v) || is.logical(v)) || is.matrix(v)) {
      abort_input(sprintf("The column `%s` of `%s` must be numbers, not %s.", c, arg,
                          describe_type(v)), call)
    }
    X[[c]] <- check_values_or_na(as.vector(v), sprintf("%s$%s", arg, c), call)
  }
  row.names(X) <- NULL
  list(x = X, names = names)
}

#' @export
print.gpuiso_idr_po <- function(x, ...) {
  check_dots(..., fn = "print()")
  cat(idr_title(x), "\n", sep = "")
  cat("Call: ", paste(deparse(x$call), collapse = "\n"), "\n\n", sep = "")
  cat(count_noun(x$n, "observation"), idr_na_note(x$na.action), "\n", sep = "")
  cat(sprintf("%s of %s under the order %s (%s), %s of %s\n",
              count_noun(x$npoints, "distinct point"), x$xname, x$order,
              count_noun(length(x$edges$from), "covering pair"),
              count_noun(length(x$thresholds), "threshold"), x$yname))
  nb <- idr_nblocks(x)
  cat(sprintf("%s (%s per threshold on average); engine: %s\n",
              count_noun(sum(nb), "block"),
              format(mean(nb), digits = 3L, nsmall = 1L), x$device))
  invisible(x)
}

#' @export
plot.gpuiso_idr_po <- function(x, type = c("cdf", "surface"), at = NULL,
                               col = NULL, main = NULL, xlab = NULL, ylab = NULL,
                               key = TRUE, ...) {
  check_graphics_dots(..., fn = "plot()")
  call <- sys.call()
  type <- check_choice(type, c("cdf", "surface"), "type", call)
  if (type == "surface") {
    abort_input(paste0("`type = \"surface\"` draws the CDF over one covariate: this fit ",
                       "has several. Draw the CDFs at some points with `type = \"cdf\"`."),
                call, arg = "type")
  }
  if (is.null(at)) {
    # five fitted points from the largest CDFs to the smallest
    m <- x$npoints
    j <- unique(as.integer(round(stats::quantile(seq_len(m) - 1L, c(0.1, 0.3, 0.5, 0.7, 0.9),
                                                 names = FALSE))))
    p <- new_idr_pred(x, idr_x_rows(x$x, j + 1L), j, numeric(length(j)), NULL)
  } else {
    p <- predict(x, at)
  }
  plot.gpuiso_idr_pred(p, index = seq_along(p), col = col,
                       main = if (is.null(main)) "IDR predictive CDFs" else main,
                       xlab = xlab, ylab = ylab, legend_title = x$xname, ...)
  invisible(x)
}

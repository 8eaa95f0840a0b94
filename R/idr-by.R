# IDR batches: idr(..., by = station) fits one IDR per level of `by` in one
# call. On one covariate the levels' threshold problems are one engine
# batch: on the GPU one run of slabs (cuda/idr.cu), on the CPU the levels'
# sweeps spread over the threads (src/api_idr.c); on two, the GPU solves
# the threshold problems of all levels as one batch (cuda/idr_plane.cu);
# on the CPU each level's fit runs its thresholds on the threads in turn.
# Predictions take the level of each new point and are evaluated per level
# by cdf(), crps() and the rest.

# The batch fit; `input` from idr_observations_input() with `by`.
idr_by <- function(input, spec, thresholds, device, call, ecall, byname) {
  values <- if (!is.factor(input$by)) sort(unique(input$by))
  f <- idr_by_factor(input$by, values)
  lev <- levels(f)
  rows <- idr_slices(order(as.integer(f), method = "radix"), sort.int(as.integer(f)),
                     length(lev))
  several <- is.data.frame(input$x)
  sub <- function(r) {
    list(y = input$y[r], x = if (several) input$x[r, , drop = FALSE] else input$x[r],
         w = input$w[r], names = input$names[r], yname = input$yname,
         xname = input$xname, na.action = NULL, terms = input$terms)
  }
  for (l in seq_along(rows)) {
    w <- input$w[rows[[l]]]
    if (!is.null(w) && !any(w > 0)) {
      abort_input(sprintf("The level \"%s\" of `%s` has no observation of positive weight.",
                          lev[l], byname), ecall, arg = "by")
    }
  }
  if (several) {
    # the levels' threshold problems one batch on the GPU (two covariates)
    dev <- idr_po_device(device, spec, length(input$y), max(lengths(rows)), ecall)
    setups <- idr_po_setups(lapply(rows, sub), spec, thresholds, dev, ecall)
    fits <- Map(function(s, res) idr_po_object(s, res, call, ecall), setups,
                idr_po_engine(setups, dev))
  } else {
    # a decreasing covariate: the batch on its negation, each fit turned back
    flip <- spec$sign[1L] < 0
    if (flip) input$x <- -input$x
    probs <- idr_by_problems(input, f, thresholds, ecall)
    dev <- resolve_device(device, length(probs$kcode), ecall,
                          min_n = gpu_min_n("gpuiso.idr_gpu_min_n", idr_gpu_min_n_default))
    res <- idr_batch_engine(probs, dev)
    fits <- Map(function(r, p, b) {
      fit <- idr_one_object(sub(r), p, b, call, ecall)
      if (flip) idr_unnegate(fit) else fit
    }, rows, probs$levels, res)
    if (flip) input$x <- -input$x
  }
  names(fits) <- lev
  fit <- list(fits = fits, levels = lev,
              by_values = values,
              byname = byname, n = length(input$y),
              yname = input$yname, xname = input$xname, call = call,
              data = list(x = input$x, y = input$y, by = f, names = input$names))
  fit$na.action <- input$na.action
  structure(fit, class = "gpuiso_idr_by")
}

# The engines of a batch on one covariate: list(ptr, start, value, device),
# one per level of the problems of idr_by_problems(). On the GPU every
# level's thresholds are one run of slabs (cuda/idr.cu); the CPU spreads
# the levels' sweeps over its threads.
idr_batch_engine <- function(probs, device) {
  res <- on_device(device,
    # the device sums weights in plain doubles: exact only for whole numbers
    gpu = if (sums_exact_in_doubles(weights = probs$w)) {
      .Call(ffi_gpu_idr_batch, probs$xcode, probs$kcode, probs$w, probs$off, probs$m,
            probs$K, resolve_threads())
    },
    cpu = list(fits = .Call(ffi_idr_fit_batch, probs$xcode, probs$kcode, probs$w, probs$off,
                            probs$m, probs$K, resolve_threads())))
  lapply(res$fits, function(o) c(o, list(device = res$device)))
}

# The levels of `by` as a factor (unused levels of a factor dropped); for
# numbers and strings, their sorted distinct values u (faster than factor()
# on a million values, which formats every one).
idr_by_factor <- function(by, u) {
  if (is.factor(by)) return(droplevels(by))
  structure(match(by, u), levels = idr_by_labels(u), class = "factor")
}

# Labels of distinct level values: as.character(), which keeps 15
# significant digits, unless that makes two of them alike (0.3 and
# 0.1 + 0.2), then 17, which tells any two doubles apart.
idr_by_labels <- function(u) {
  lab <- as.character(u)
  if (is.double(u) && anyDuplicated(lab)) lab <- formatC(u, digits = 17L, format = "g")
  lab
}

# The level of each new point of a batch fit: numbers, dates and other
# values of a fit's non-factor `by` are matched by value (an integer 100000
# finds the level 1e5), strings and factors by their labels.
idr_by_codes <- function(object, by) {
  u <- object$by_values
  if (!is.null(u) && !is.character(by) && !is.factor(by) && !is.character(u)) {
    return(match(by, u))
  }
  match(as.character(by), object$levels)
}

# v cut into L pieces by the sorted codes `code` (1..L, one per element of
# v): piece l holds the elements of code l.
idr_slices <- function(v, code, L) {
  counts <- tabulate(code, L)
  ends <- cumsum(counts)
  lapply(seq_len(L), function(l) v[seq.int(ends[l] - counts[l] + 1L, length.out = counts[l])])
}

# The problems of idr_one_problem() for every level of the factor f at
# once: the observations sorted by level and covariate in one radix order,
# the distinct values and thresholds of every level from runs (in C). A
# list of `levels` (per level: xk, wk, xu, xcode, thresholds, with the
# observations in the order of its covariate values) and, for the engine,
# the whole batch: xcode, kcode and w over all levels, off, m and K.
idr_by_problems <- function(input, f, thresholds, call) {
  L <- nlevels(f)
  w <- input$w
  keep <- if (!is.null(w) && any(w == 0)) which(w > 0)
  code <- as.integer(f)
  ck <- if (is.null(keep)) code else code[keep]
  xk <- if (is.null(keep)) input$x else input$x[keep]
  yk <- if (is.null(keep)) input$y else input$y[keep]
  wk <- if (is.null(keep)) w else w[keep]
  o <- order(ck, xk, method = "radix")
  cs <- ck[o]
  xs <- as.double(xk[o])
  ys <- as.double(yk[o])
  ws <- if (!is.null(wk)) wk[o]
  o2 <- if (is.null(thresholds)) order(cs, ys, method = "radix")
  codes <- .Call(ffi_idr_batch_codes, cs, xs, ys, o2, L)
  if (is.null(thresholds)) {
    kcode <- codes$kcode
    thr <- idr_slices(codes$thr, rep.int(seq_len(L), codes$K), L)
  } else {
    # the grid, with the level's largest y appended where the grid lies
    # below it
    grid <- idr_grid(thresholds, call)
    top <- vapply(idr_slices(ys, cs, L), max, 0)
    thr <- lapply(top, function(t) if (grid[length(grid)] < t) c(grid, t) else grid)
    kcode <- findInterval(ys, grid, left.open = TRUE)
  }
  xu <- idr_slices(codes$xu, rep.int(seq_len(L), codes$m), L)
  starts <- c(0L, cumsum(tabulate(cs, L)))
  levels <- lapply(seq_len(L), function(l) {
    r <- seq.int(starts[l] + 1L, length.out = starts[l + 1L] - starts[l])
    list(xk = xs[r], wk = if (!is.null(ws)) ws[r], xu = xu[[l]], xcode = codes$xcode[r],
         thresholds = thr[[l]])
  })
  list(levels = levels, xcode = codes$xcode, kcode = kcode, w = ws, off = as.integer(starts),
       m = codes$m, K = lengths(thr))
}

#' @rdname predict.gpuiso_idr
#' @param by For a batch fit (`idr(..., by = )`): the level of each new
#'   point, or `NULL` to take it from the column of `newdata` named like the
#'   fit's `by` (an unknown level is an error, a missing one gives a missing
#'   prediction). Levels are matched by value where the fit's `by` was
#'   numeric, a date or logical (an integer `100000L` finds the level
#'   `1e5`), and by their labels (`fit$levels`) where it was a factor or
#'   character, or where the new levels are strings.
#' @export
predict.gpuiso_idr_by <- function(object, newdata = NULL, by = NULL, data = NULL, ...) {
  call <- sys.call()
  nd <- idr_newdata_arg(newdata, data, call)
  newdata <- idr_list_as_frame(nd$newdata, nd$arg, call)
  if (is.null(newdata)) {
    if (!is.null(by)) {
      abort_input("`by` goes with `newdata`: the in-sample predictions have their levels.",
                  call, arg = "by")
    }
    p <- idr_by_predict(object, object$data$x, object$data$by, object$data$names, NULL,
                        list(...))
    if (inherits(object$na.action, "exclude")) p <- idr_pad(p, object$na.action)
    return(p)
  }
  q <- if (is.data.frame(newdata) || is.matrix(newdata)) nrow(newdata) else length(newdata)
  if (is.null(by)) {
    cols <- if (is.data.frame(newdata) || is.matrix(newdata)) colnames(newdata)
    if (!object$byname %in% cols) {
      abort_input(sprintf(paste0("`by` is missing: give the level of each new point, or ",
                                 "a column `%s` in `newdata`."), object$byname),
                  call, arg = "by")
    }
    by <- if (is.data.frame(newdata)) newdata[[object$byname]] else newdata[, object$byname]
  }
  if (!is.atomic(by) || !is.null(dim(by)) || length(by) != q) {
    abort_input(sprintf("`by` must give one level per new point (%.0f), not %.0f.", q,
                        length(by)), call, arg = "by")
  }
  code <- idr_by_codes(object, by)
  bad <- which(is.na(code) & !is.na(by))
  if (length(bad)) {
    abort_input(sprintf(paste0("`by` has a level that the fit does not know: element %.0f is ",
                               "\"%s\" (the fit's levels: %s)."), bad[1L],
                        as.character(by[bad[1L]]),
                        paste0("\"", utils::head(object$levels, 5L), "\"", collapse = ", ")),
                call, arg = "by", position = bad[1L])
  }
  idr_by_predict(object, newdata, code, observation_names(newdata), call, list(...))
}

# Predictions at the points `newdata` (a vector, or rows of a data frame or
# matrix), point i from the fit of level code[i] (NA: a missing
# prediction); `extra` are predict()'s other arguments, for every level.
idr_by_predict <- function(object, newdata, code, names, call, extra) {
  code <- as.integer(code)
  q <- length(code)
  rows2d <- is.data.frame(newdata) || is.matrix(newdata)
  j <- rep.int(NA_integer_, q)
  lambda <- numeric(q)
  part <- rep.int(NA_integer_, q)
  parts <- list()
  x <- NULL
  o <- order(code, na.last = NA, method = "radix")
  by_level <- idr_slices(o, code[o], length(object$fits))
  for (l in which(lengths(by_level) > 0L)) {
    r <- by_level[[l]]
    nd <- if (rows2d) newdata[r, , drop = FALSE] else newdata[r]
    fit <- object$fits[[l]]
    pl <- unclass(if (is.null(call)) {
      # in sample: each fit's own observations, in the order of the data
      do.call(predict, c(list(fit), extra))
    } else {
      tryCatch(do.call(predict, c(list(fit, nd), extra)),
               gpuiso_error_input = function(e) idr_by_reraise(e, r, call))
    })
    parts[[length(parts) + 1L]] <- pl$fit
    part[r] <- length(parts)
    j[r] <- pl$j
    lambda[r] <- pl$lambda
    if (is.null(x)) {
      x <- if (is.data.frame(pl$x)) pl$x[rep(NA_integer_, q), , drop = FALSE]
           else rep(NA_real_, q)
    }
    if (is.data.frame(x)) x[r, ] <- pl$x else x[r] <- pl$x
  }
  if (is.null(x)) x <- rep(NA_real_, q)
  if (is.data.frame(x)) row.names(x) <- NULL
  # what printing and plotting read of "the fit": names and the thresholds' range
  t <- unlist(lapply(parts, `[[`, "thresholds"), use.names = FALSE)
  head <- list(yname = object$yname, xname = object$xname,
               thresholds = if (length(t)) range(t) else c(0, 1))
  new_idr_pred(head, x, j, lambda, names, parts, part)
}

# An input error of one level's predictions raised again as the user's:
# with their call, and, for an error about a new point, its position among
# all new points (the level's predict() counts within its own, rows r).
idr_by_reraise <- function(e, r, call) {
  e$call <- call
  p <- e$position
  if (is.character(e$arg) && grepl("^(newdata|data)($|[$[])", e$arg[1L]) &&
      is.numeric(p) && length(p) == 1L && !is.na(p) && p >= 1 && p <= length(r)) {
    e$message <- sub(sprintf("element %.0f(?![0-9])", p), sprintf("element %.0f", r[p]),
                     e$message, perl = TRUE)
    e$position <- r[p]
  }
  stop(e)
}

#' @export
print.gpuiso_idr_by <- function(x, ...) {
  check_dots(..., fn = "print()")
  dec <- length(x$fits) && isTRUE(x$fits[[1L]]$decreasing)
  cat(sprintf("Isotonic distributional regression of %s on %s%s, by %s\n", x$yname, x$xname,
              if (dec) " (decreasing)" else "", x$byname))
  cat("Call: ", paste(deparse(x$call), collapse = "\n"), "\n\n", sep = "")
  nl <- vapply(x$fits, function(f) f$n, 0)
  cat(sprintf("%s of %s, %s%s\n", count_noun(length(x$fits), "fit"), x$byname,
              count_noun(x$n, "observation"), idr_na_note(x$na.action)))
  cat(sprintf("Observations per fit: min %s, median %s, max %s\n", format(min(nl)),
              format(stats::median(nl)), format(max(nl))))
  nb <- sum(vapply(x$fits, function(f) f$ptr[length(f$ptr)], 0))
  cat(sprintf("%s in all; engine: %s\n", count_noun(nb, "block"),
              paste(unique(vapply(x$fits, `[[`, "", "device")), collapse = ", ")))
  invisible(x)
}

#' @export
summary.gpuiso_idr_by <- function(object, ...) {
  check_dots(..., fn = "summary()")
  fits <- object$fits
  levels <- data.frame(
    level = object$levels,
    observations = vapply(fits, function(f) as.double(f$n), 0),
    thresholds = vapply(fits, function(f) as.double(length(f$thresholds)), 0),
    blocks = vapply(fits, function(f) as.double(sum(idr_nblocks(f))), 0),
    crps = vapply(fits, idr_mean_crps, 0),
    stringsAsFactors = FALSE)
  names(levels)[1L] <- object$byname
  row.names(levels) <- NULL
  structure(list(call = object$call, yname = object$yname, xname = object$xname,
                 byname = object$byname, n = object$n, na.action = object$na.action,
                 decreasing = length(fits) && isTRUE(fits[[1L]]$decreasing),
                 weighted = length(fits) && !is.null(fits[[1L]]$data$weights),
                 levels = levels,
                 device = unique(vapply(fits, `[[`, "", "device"))),
            class = "summary.gpuiso_idr_by")
}

#' @export
print.summary.gpuiso_idr_by <- function(x, digits = max(3L, getOption("digits") - 3L),
                                        ...) {
  check_dots(..., fn = "print()")
  digits <- check_digits(digits, sys.call(), max(3L, getOption("digits") - 3L))
  cat(sprintf("Isotonic distributional regression of %s on %s%s, by %s\n", x$yname,
              x$xname, if (x$decreasing) " (decreasing)" else "", x$byname))
  cat("Call: ", paste(deparse(x$call), collapse = "\n"), "\n\n", sep = "")
  cat(sprintf("%s of %s, %s%s; engine: %s\n", count_noun(nrow(x$levels), "fit"), x$byname,
              count_noun(x$n, "observation"), idr_na_note(x$na.action),
              paste(x$device, collapse = ", ")))
  cat(sprintf("By level (crps: the in-sample CRPS, %s):\n",
              if (x$weighted) "weighted mean" else "mean"))
  lv <- x$levels
  lv$crps <- format(lv$crps, digits = digits)
  print(utils::head(lv, 20L), row.names = FALSE)
  if (nrow(lv) > 20L) cat(sprintf("... and %.0f more levels\n", nrow(lv) - 20L))
  invisible(x)
}

#' @export
nobs.gpuiso_idr_by <- function(object, ...) {
  check_dots(..., fn = "nobs()")
  sum(vapply(object$fits, stats::nobs, 0))
}

#' @export
fitted.gpuiso_idr_by <- function(object, ...) {
  check_dots(..., fn = "fitted()")
  predict(object)
}

#' @export
plot.gpuiso_idr_by <- function(x, level = 1L, ...) {
  call <- sys.call()
  i <- if (is.character(level)) match(level, x$levels) else level
  if (length(i) != 1L || is.na(i) || !is.numeric(i) || i < 1 || i > length(x$fits)) {
    abort_input(sprintf("`level` must be one level of `%s` (its name or number).", x$byname),
                call, arg = "level")
  }
  graphics::plot(x$fits[[i]], ...)
  invisible(x)
}

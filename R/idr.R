#' Isotonic distributional regression
#'
#' Estimates the conditional distribution of `y` given one numeric covariate
#' under the sole assumption that `y` tends to be larger when the covariate
#' is larger (Henzi, Ziegel and Gneiting, 2021). For every threshold
#' \eqn{t}, the conditional CDF \eqn{F(t \mid x)} is the antitonic
#' (non-increasing in \eqn{x}) weighted least-squares regression of the
#' indicators \eqn{1\{y_i \le t\}} on \eqn{x_i}. Observations with equal
#' covariate values are pooled first: each distinct value \eqn{x_j} gets the
#' summed weight \eqn{W_j} of its observations, and the problem at threshold
#' \eqn{t} is the antitonic regression of \eqn{c_j(t) / W_j} with weights
#' \eqn{W_j}, \eqn{c_j(t)} being the weight of the observations at \eqn{x_j}
#' with \eqn{y \le t}.
#'
#' @section Algorithm:
#' The thresholds are swept in increasing order. Between two thresholds the
#' observations whose `y` lies in between switch on one at a time, which only
#' raises one \eqn{c_j}; the antitonic fit is updated in place by re-pooling
#' the block that holds \eqn{x_j} and the neighbouring blocks it pools with,
#' instead of running pool adjacent violators again over all points. The
#' update gives the solution of each threshold's problem, and one fit costs
#' far less than one full pass per threshold.
#'
#' On the GPU (`device = "gpu"`, or `"auto"` from
#' `r format(idr_gpu_min_n_default, scientific = FALSE)` observations when
#' one is available; see [gpuiso-package] for the option) the thresholds are
#' instead solved as batches of antitonic problems by the GPU engine, in
#' slabs of at most 120 million CDF values (fewer when the device has less
#' free memory: a slab needs about 130 bytes of device memory per value). The
#' problems of a slab are built on the device from the observations, and
#' each solved slab is reduced there to its blocks: only the observations go
#' to the device and only the blocks come back, in the representation
#' below. Each block's value is then recomputed on the device as the exact
#' ratio of its summed weights, so both engines give the same blocks and
#' values, bit for bit (see below for where they may not).
#'
#' @section Arithmetic over the whole range of doubles:
#' The fit is exact for any finite weights in any mix, from the smallest
#' subnormal number (`5e-324`) to the largest double
#' (`.Machine$double.xmax`): the blocks are those of the exact solution and
#' every CDF value is the exact block mean correctly rounded to a double
#' (subnormal values included). The sums of weights are kept exactly in the
#' cheapest form that holds them: doubles where every sum is an exact double
#' (counts, unit and small integer weights; the weights are first scaled by
#' a power of two, which leaves the fit as it is), double-double numbers
#' where they span at most 104 bits, and fixed-point integers beyond (slower,
#' up to about 20 times for weights spread over the whole range).
#' Covariates, responses and thresholds may lie anywhere in the finite range
#' too: only their order enters the fit. The summed `weight` at a covariate
#' value is exact and correctly rounded; where it exceeds the largest
#' double, `idr()` stops with an error of class `"gpuiso_error_overflow"`
#' (dividing all weights by a constant gives the same fit). The GPU sums
#' weights in plain doubles, which is exact for whole-number weights
#' summing to less than \eqn{2^{53}}{2^53} (or whole multiples of one power
#' of two, such as quarters, likewise): other weights are fitted on the
#' CPU (the fit's `device` says so). The GPU's solver pools shares rounded
#' per covariate value; its blocks then get their exact means, so its fit
#' is the CPU's wherever pooling the rounded shares decides as pooling the
#' exact ones does. That can fail only where two block means differ by a
#' few units in the last place, which takes more than about
#' \eqn{2^{26}}{2^26} observations (or summed weight, in units of the
#' largest power of two that divides every weight) in one fit.
#'
#' @section The representation:
#' The fit at threshold \eqn{k} is a step function of the covariate index
#' with few steps, stored as blocks: `start[b]` (the 0-based index into `x`
#' of the block's first point) and `value[b]` (the estimated
#' \eqn{F(t_k \mid x)} on the block). The blocks of threshold \eqn{k}
#' (1-based) are `ptr[k] + 1` to `ptr[k + 1]` (0-based offsets: `ptr[1]` is
#' 0 and `ptr[K + 1]` the number of blocks in all). Within a threshold the
#' values do not increase with the index (do not decrease, for a decreasing
#' covariate); at a fixed point they do not
#' decrease from one threshold to the next, and at the last threshold all
#' are 1. Memory is the total number of blocks, typically tens to hundreds
#' per threshold and never more than \eqn{K m} for \eqn{K} thresholds and
#' \eqn{m} distinct covariate values: no \eqn{m \times K}{m x K} matrix is
#' formed. Passing a coarser `thresholds` grid bounds \eqn{K}, and with it
#' time and memory.
#'
#' @section Several covariates:
#' With `X` a matrix or data frame of several columns (or a formula such as
#' `y ~ x1 + x2`), the CDFs at each threshold are the antitonic regression
#' on a partial order: \eqn{F(t \mid x) \ge F(t \mid x')}{F(t | x) >=
#' F(t | x')} whenever \eqn{x} lies below \eqn{x'}. A point is below
#' another when it is, group by group, below it in the group's order:
#' componentwise (`"comp"`, every covariate at most the other's), in
#' stochastic dominance (`"sd"`: the group's values sorted from the largest
#' down, componentwise) or in the increasing convex order (`"icx"`: the
#' partial sums of those sorted values, componentwise, each sum exact and
#' rounded once, so that rounding never orders two ensembles against their
#' exact sums. They are the sums of the binary values: where two sums are
#' equal in decimals, the last bits decide, as 0.1 + 0.2 exceeds 0.3 in
#' doubles, so that two ensembles may come out incomparable. Whole numbers,
#' such as precipitation in tenths of a millimetre, sum exactly); a
#' decreasing covariate counts negated, and a decreasing
#' `"sd"` or `"icx"` group has its order reversed (\eqn{x} below \eqn{x'}
#' where \eqn{x'} is below \eqn{x} in the group's order; under `"icx"`
#' that is not the order of the negated values). Points equal in that order (an ensemble whose
#' members are permuted, under `"sd"`) are one point. Each threshold's
#' problem is solved exactly on the covering pairs of the order (its
#' transitive reduction, found once) by the partitioning algorithm of
#' Maxwell and Muckstadt (1985), a sequence of minimum cuts (by
#' push-relabel maximum flows; on two covariates, where the order is that
#' of points in the plane, each cut is a staircase found in one pass over
#' the points instead). From one threshold to the next only the
#' observations that switch on change, so each threshold starts from the fit
#' of the one before and re-solves only the level sets that hold them,
#' pooling two level sets wherever an order constraint between them fails,
#' until every one holds (which makes it the exact solution). Each thread of
#' the engine sweeps a range of thresholds, and one that runs out of work
#' splits the largest range left and takes its upper half, so the threads
#' finish together; the fit is the same on any number of threads. The fit is the
#' exact solution up to rounding (the solver's sums are compensated) and is
#' stored as for one covariate, with the distinct points in `x` (a data
#' frame holding the covariates of one observation at each point, in an
#' order in which the CDFs tend to decrease, which keeps the blocks few;
#' `predict(fit, fit$x)` gives the fit).
#'
#' Predictions at new points follow the rule of `predict.idrfit()` in the
#' 'isodistrreg' package: the fitted points below \eqn{x} bound its CDF from
#' above (their smallest CDF) and those above it from below (their largest
#' CDF); the prediction is the mean of the two bounds where both exist, the
#' one bound where only one does, and the (weighted) empirical distribution
#' of the training responses where \eqn{x} is comparable to no fitted point.
#' At a fitted point the prediction is its fit.
#'
#' On two covariates (two columns, or one group of two members under
#' `"sd"` or `"icx"`: points in the plane), `device = "gpu"` solves the
#' thresholds on the GPU instead: each threshold's problem from scratch by
#' the same partitioning algorithm and staircase cuts, one threshold per
#' block of GPU threads with its whole workspace in the block's shared
#' memory, so that a GPU runs thousands of thresholds at once. The shares,
#' the clamping of each point's CDF across thresholds and the blocks are
#' formed on the device, and the means are compensated as on the CPU, so
#' both engines give the same CDFs up to rounding (measured equal).
#' Shared memory bounds a fit at about 18,000 distinct points: a larger
#' one is fitted on the CPU (its `device` says so). Solving each threshold
#' afresh, it pays on many small fits (a batch with `by`) and where the CPU
#' has few threads, and loses to the CPU's warm starts on large fits with
#' many thresholds (see `bench/gpu/idr-plane-RESULTS.md` in the sources):
#' `"auto"` takes it from
#' `r format(idr_po_gpu_min_n_default, scientific = FALSE, big.mark = ",")`
#' observations in all (`options(gpuiso.idr_po_gpu_min_n)`) where no fit
#' (no level of `by`) has more than
#' `r format(idr_po_gpu_max_n, big.mark = ",")`. On
#' three covariates or more the fit runs on the CPU: `device = "gpu"` is an
#' error there. This path takes far more time than the
#' one-covariate sweep (each threshold is a sequence of maximum flows), so
#' a coarser `thresholds` grid is the way to bound it for large samples. A
#' single decreasing covariate does not take this path: it is the
#' one-covariate sweep on the negated values (see `decreasing`).
#'
#' @section Batches:
#' With `by`, `idr()` fits one IDR per level of `by` (a station, a lead
#' time, ...), each on the observations of its level with its own
#' thresholds (the `thresholds` grid, when given, serves all), and returns
#' an object of class `"gpuiso_idr_by"`: `fits`, the fits by level (each an
#' ordinary fit from `idr()`), with `levels`, `n`, `call` and the data. On
#' one covariate, the threshold problems of all levels are one batch of the
#' engine: on the CPU the levels' sweeps are spread over its threads (one
#' sweep each); on the GPU (`device = "gpu"`, or `"auto"` from as many
#' observations in all as for one fit) the problems of every level are
#' built and solved in the same slabs, so that many small fits cost about
#' what one large fit of as many CDF values does. On several covariates the
#' levels are fitted in turn, each on the CPU's threads, but on the GPU
#' (two covariates) the thresholds of all levels are one batch.
#' `predict(fit, newdata, by = )` takes the level of each new point (or a
#' column of `newdata` named like `by`); the evaluation functions take the
#' predictions of a batch as they take any others, and
#' `plot(fit, level = )` draws one level's fit.
#'
#' @section Missing values:
#' Rows with a missing value (`NA` or `NaN`) in the response, the covariate
#' or the weights go through `na.action`, as in [lm()]: [na.omit()] (the
#' default) and [na.exclude()] drop them, [na.fail()] stops with an error
#' that names the first. The fit records what was dropped in
#' `fit$na.action`; with `na.exclude`, the in-sample results
#' (`predict(fit)` without new data, `fitted(fit)`, `crps(fit)`,
#' `pit(fit)`, ...) are padded back to one per row of the data with `NA`,
#' as [naresid()] does. Infinite values are an error whatever `na.action`.
#'
#' @param y The response: a numeric vector (finite or missing); or a formula
#'   `response ~ covariate` (or `response ~ x1 + x2 + ...`), whose variables are taken
#'   from `data` (as in [lm()]).
#' @param X The covariates, for the default interface: a numeric vector, or
#'   a numeric matrix or data frame of one or more columns, one row per
#'   element of `y` (several columns: see *Several covariates*). With a
#'   formula, `X` may stand for `data` when given by position, as in
#'   `idr(Ozone ~ Temp, airquality)`.
#' @param weights `NULL` or non-negative finite weights, one per
#'   observation, not all zero. Observations of weight zero take no part in
#'   the fit. With a formula, `weights` is evaluated in `data`, as in
#'   [lm()].
#' @param thresholds `NULL` to estimate the CDFs at every distinct value of
#'   `y` (of positive weight), where they may jump; or a numeric grid, which
#'   is sorted and freed of duplicates. When the grid lies below the largest
#'   `y`, that value is appended, so that every estimated CDF reaches 1.
#'   Between thresholds the CDFs are constant (right-continuous steps).
#' @param data With a formula: a data frame (or list, or environment) holding
#'   its variables and the `weights`; by default the environment of the
#'   formula. Not used by the default interface.
#' @param groups,orders With several covariates, the partial order, with the
#'   meaning of the 'isodistrreg' package: `groups` gives each covariate a
#'   group label (a vector named by the covariates, or in their order; by
#'   default all in one group, `1`), and `orders` names the order of each
#'   group, as in `c(comp = 1, icx = 2)`: `"comp"` (componentwise),
#'   `"sd"` (first-order stochastic dominance of the group's values, for
#'   exchangeable members such as an ensemble forecast) or `"icx"` (the
#'   increasing convex order of the group's values: ensembles whose spread
#'   grows with their level, such as precipitation). See *Several
#'   covariates*.
#' @param decreasing `FALSE` (the default) when `y` tends to be larger where
#'   a covariate is larger; `TRUE` when it tends to be smaller. One value
#'   for all covariates, or one per covariate (named by them, or in their
#'   order); the members of an `"sd"` or `"icx"` group share one, which
#'   reverses the group's order (see *Several covariates*). On one
#'   covariate, `decreasing = TRUE` is the fit on its negation (the same
#'   sweep, as fast), returned on the covariate itself: `x` in increasing
#'   order with CDFs that increase along it, the field `decreasing` `TRUE`,
#'   and predictions by the rule of every fit ([prediction]).
#' @param by `NULL`, or a vector of one level per observation (a factor,
#'   station codes, ...): one IDR fit per level in one call (see *Batches*).
#'   With a formula, `by` is evaluated in `data`, as `weights` is.
#' @param na.action What to do with rows that have missing values: a
#'   function such as [na.omit()] (the default), [na.exclude()] or
#'   [na.fail()], or its name. See *Missing values*.
#' @inheritParams isotonic
#' @return An object of class `"gpuiso_idr"`: a list with
#'   \describe{
#'   \item{x}{the sorted distinct covariate values (of positive weight),
#'     length \eqn{m}.}
#'   \item{weight}{the summed weight at each of them.}
#'   \item{thresholds}{the \eqn{K} thresholds, increasing.}
#'   \item{ptr, start, value}{the blocks, as described above (`ptr` double of
#'     length \eqn{K + 1}, `start` integer, `value` double).}
#'   \item{decreasing}{(only for one decreasing covariate) `TRUE`.}
#'   \item{n}{the number of observations used (after `na.action`).}
#'   \item{yname, xname}{the names of the response and of the covariate:
#'     from the formula, the column names, or the expressions passed as `y`
#'     and `X` (`"y"` and `"x"` when there is no good name). `predict()`
#'     looks the covariate up in a data frame by `xname`.}
#'   \item{device}{the engine used, `"cpu"` or `"gpu"`.}
#'   \item{call}{the call.}
#'   \item{data}{the observations used (`x`, `y`, `weights`, and the
#'     observations' `names` or `NULL`), for in-sample predictions.}
#'   \item{na.action}{(only when rows were dropped) the record of
#'     `na.action`, as in an [lm()] fit.}
#'   \item{terms}{(only for a formula) the [terms()] of the model, with which
#'     `predict()` evaluates the covariate in new data.}
#'   }
#'   It has methods for [print()], [summary()], [plot()][plot.gpuiso_idr],
#'   [predict()][predict.gpuiso_idr] and the `stats` generics listed in
#'   [gpuiso_idr-methods].
#' @references
#' Henzi, A., Ziegel, J. F. and Gneiting, T. (2021). Isotonic distributional
#' regression. *Journal of the Royal Statistical Society Series B*, 83(5),
#' 963--993. \doi{10.1111/rssb.12450}
#'
#' Maxwell, W. L. and Muckstadt, J. A. (1985). Establishing consistent and
#' realistic reorder intervals in production-distribution systems.
#' *Operations Research*, 33(6), 1316--1341. \doi{10.1287/opre.33.6.1316}
#' @seealso [predict.gpuiso_idr()] and the evaluation functions [cdf()],
#'   [qpred()], [crps()], [pit()], [bscore()], [qscore()].
#' @export
#' @examples
#' fit <- idr(Ozone ~ Temp, data = airquality) # 37 days without Ozone dropped
#' fit
#' pred <- predict(fit, data.frame(Temp = c(65, 80, 90)))
#' cdf(pred, thresholds = c(50, 100))   # P(Ozone <= 50), P(Ozone <= 100)
#' qpred(pred, quantiles = c(0.1, 0.5, 0.9))
#' mean(crps(fit))                      # in-sample CRPS
#' plot(fit)
#'
#' # the same fit from the vectors; na.exclude keeps one result per day
#' fit2 <- idr(airquality$Ozone, airquality$Temp, na.action = na.exclude)
#' length(crps(fit2))                   # 153, NA where Ozone is missing
#'
#' # two covariates, Ozone decreasing in Wind: a partial order
#' fit3 <- idr(Ozone ~ Temp + Wind, data = airquality,
#'             decreasing = c(Temp = FALSE, Wind = TRUE))
#' fit3
#' cdf(predict(fit3, data.frame(Temp = c(70, 90), Wind = c(12, 5))), 60)
#'
#' # one fit per month, in one call
#' fit4 <- idr(Ozone ~ Temp, data = airquality, by = Month)
#' fit4
#' cdf(predict(fit4, data.frame(Temp = c(80, 80)), by = c(5, 8)), 50)
idr <- function(y, X, weights = NULL, thresholds = NULL,
                device = getOption("gpuiso.device", "auto"), data = NULL,
                na.action = na.omit, groups = NULL, orders = c(comp = 1),
                decreasing = FALSE, by = NULL) {
  call <- match.call()
  ecall <- sys.call()
  if (inherits(y, "formula")) {
    input <- idr_formula_input(call, y, na.action, parent.frame(), ecall)
    # idr(Ozone ~ Temp, airquality): the data came as `X`
    if ("X" %in% names(call) && !"data" %in% names(call)) {
      names(call)[names(call) == "X"] <- "data"
    }
  } else {
    if (!is.null(data)) {
      abort_input(paste0("`data` is used with a formula only: give ",
                         "`y ~ x` as the first argument, or the vectors ",
                         "`y` and `X` themselves."), ecall)
    }
    input <- idr_default_input(y, X, weights, na.action, substitute(y),
                               substitute(X), ecall, by = by)
  }
  cols <- if (is.data.frame(input$x)) names(input$x) else input$xname
  spec <- idr_po_spec(cols, groups, orders, decreasing, ecall)
  if (!is.null(input$by)) {
    return(idr_by(input, spec, thresholds, device, call, ecall,
                  byname = if (is.name(call$by)) as.character(call$by) else "by"))
  }
  # several covariates: the partial-order fit
  if (is.data.frame(input$x)) return(idr_po(input, spec, thresholds, device, call, ecall))
  # one decreasing covariate: the sweep on its negation, turned back
  flip <- spec$sign[1L] < 0
  if (flip) input$x <- -input$x
  prob <- idr_one_problem(input, thresholds, ecall)
  device <- resolve_device(device, length(prob$kcode), ecall,
                           min_n = gpu_min_n("gpuiso.idr_gpu_min_n",
                                             idr_gpu_min_n_default))
  res <- idr_engine(prob$xcode, prob$kcode, prob$wk, length(prob$xu),
                    length(prob$thresholds), device)
  fit <- idr_one_object(input, prob, res, call, ecall)
  if (flip) idr_unnegate(fit) else fit
}

# The fit of a decreasing covariate from the fit on its negation: the
# points in increasing order of the covariate again (the CDFs now increase
# along them) and each threshold's blocks reversed, so that predictions
# follow the rule of every fit (see [prediction]) on the covariate itself.
idr_unnegate <- function(fit) {
  m <- length(fit$x)
  fit$x <- -rev(fit$x)
  fit$weight <- rev(fit$weight)
  fit$data$x <- -fit$data$x
  nb <- length(fit$start)
  if (nb > 0L) {
    ptr <- fit$ptr
    counts <- diff(ptr)
    thr <- rep.int(seq_along(counts), counts)
    # block b (1-based) covers the points [start[b], end[b]); it becomes
    # [m - end[b], m - start[b]), at the mirror place of its threshold's list
    end <- c(fit$start[-1L], 0L)
    end[ptr[-1L][counts > 0]] <- m
    pos <- ptr[thr] + ptr[thr + 1L] + 1 - seq_len(nb)
    start <- integer(nb)
    value <- numeric(nb)
    start[pos] <- as.integer(m - end)
    value[pos] <- fit$value
    fit$start <- start
    fit$value <- value
  }
  fit$decreasing <- TRUE
  fit
}

# The problem of a fit on one covariate: the observations of positive
# weight (wk, NULL for unit weights), their distinct covariate values xu,
# each one's 0-based index into them (xcode) and the 0-based index of the
# first threshold >= its y (kcode: where it switches on).
idr_one_problem <- function(input, thresholds, call) {
  w <- input$w
  keep <- if (!is.null(w) && any(w == 0)) which(w > 0)
  xk <- if (is.null(keep)) input$x else input$x[keep]
  yk <- if (is.null(keep)) input$y else input$y[keep]
  wk <- if (is.null(keep)) w else w[keep]
  thresholds <- idr_thresholds(thresholds, yk, call)
  xu <- sort(unique(xk))
  list(xk = xk, wk = wk, xu = xu, xcode = match(xk, xu) - 1L,
       kcode = findInterval(yk, thresholds, left.open = TRUE), thresholds = thresholds)
}

# The fit object of a problem from idr_one_problem() and the engine's
# blocks `res`.
idr_one_object <- function(input, prob, res, call, ecall) {
  weight <- if (is.null(prob$wk)) as.double(tabulate(prob$xcode + 1L, length(prob$xu)))
            else idr_weights(prob$xk, prob$xcode, prob$wk, prob$xu, input$xname, ecall)
  fit <- list(
    x = prob$xu, weight = weight, thresholds = prob$thresholds,
    ptr = res$ptr, start = res$start, value = res$value,
    n = length(input$y), yname = input$yname, xname = input$xname,
    device = res$device, call = call,
    data = list(x = input$x, y = input$y, weights = input$w, names = input$names))
  fit$na.action <- input$na.action
  fit$terms <- input$terms
  new_gpuiso_idr(fit)
}

new_gpuiso_idr <- function(fields) structure(fields, class = "gpuiso_idr")

# The summed weight at each distinct covariate value xu (xcode: 0-based
# index of each observation's), exact and correctly rounded (the pooling of
# calibration, which sums in fixed point where doubles would round); a sum
# beyond the largest double is an error.
idr_weights <- function(xk, xcode, wk, xu, xname, call) {
  ord <- order(xcode, method = "radix")
  pooled <- .Call(ffi_pool_sorted, xk, numeric(length(xk)), wk, NULL, 1L, ord,
                  FALSE, resolve_threads())
  weight <- pooled$weight
  big <- which(is.infinite(weight))
  if (length(big)) {
    abort_overflow(sprintf(paste0("The weights of the observations at %s = %s sum to more ",
                                  "than the largest double (%s): divide the weights by a ",
                                  "constant, which leaves the fit as it is."),
                           xname, format(xu[big[1L]]),
                           format(.Machine$double.xmax)), call)
  }
  weight
}

# The one place where the engines of idr() part. Arguments: xcode (integer,
# 0-based index into the sorted distinct covariate values, one per
# observation of positive weight), kcode (integer, 0-based index of the
# first threshold >= y, the threshold at which the observation switches on),
# w (NULL for unit weights, else positive doubles, one per observation), m
# (the number of distinct covariate values, each with positive weight), K
# (the number of thresholds; the last is >= every y, so every kcode < K).
# Returns list(ptr = double K + 1, start = integer, value = double, device):
# the blocks of every threshold as documented in ?idr, and the engine that
# fitted them ("cpu" also where the GPU handed the fit to the CPU).
idr_engine <- function(xcode, kcode, w, m, K, device) {
  on_device(device,
    gpu = idr_fit_gpu(xcode, kcode, w, m, K),
    cpu = .Call(ffi_idr_fit, xcode, kcode, w, as.double(m), as.double(K)))
}

# The GPU engine of idr(), for on_device(): the threshold problems are built
# on the device from xcode and kcode, solved in slabs, and only their blocks
# come back (with the status "range" beyond the 2^31 observations the device
# path takes); NULL for weights whose sums plain doubles would round.
idr_fit_gpu <- function(xcode, kcode, w, m, K) {
  # the device sums weights in plain doubles: exact only for whole numbers
  if (!sums_exact_in_doubles(weights = w)) return(NULL)
  .Call(ffi_gpu_idr, xcode, kcode, w, as.double(m), as.double(K),
        resolve_threads())
}

# From how many observations device = "auto" fits IDR on the GPU (when one
# is available); options(gpuiso.idr_gpu_min_n =) overrides it.
idr_gpu_min_n_default <- 2000

idr_thresholds <- function(thresholds, y, call, arg = "thresholds") {
  top <- max(y)
  if (is.null(thresholds)) return(sort(unique(y)))
  t <- idr_grid(thresholds, call, arg)
  if (t[length(t)] < top) t <- c(t, top)
  t
}

# A grid of thresholds given by the user (as the argument `arg`): sorted,
# without duplicates.
idr_grid <- function(thresholds, call, arg = "thresholds") {
  if (!length(thresholds)) abort_input(sprintf("`%s` must not be empty.", arg), call, arg = arg)
  sort(unique(as_plain(check_values(thresholds, arg, call))))
}


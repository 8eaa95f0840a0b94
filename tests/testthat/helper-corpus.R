# The bad-input corpus (test-corpus.R): every exported function and method
# of the package run on hundreds of bad and extreme inputs, each case
# expecting a classed error (class "gpuiso_error", naming the argument for
# an input error) or a result that passes checks (shape, finiteness,
# monotonicity, range, inputs left unmodified, and for the fits the exact
# answer of helper-exact.R's rational reference on these small problems).
#
# Cases are data: list(id, family, fun, args, prep, expect, arg, check).
#   fun     the function's name, called by do.call() with `args` (values;
#           a language object among them is evaluated in the case's
#           environment first, where `prep` made the fits it refers to).
#   expect  "error" (a classed error is required), "value" (a checked
#           result is required) or "either".
#   arg     the argument the case is about: an input error must name it.
#   check   the name of the function that checks a result (corpus_check_*).
# They run in child R processes, one per family, every case's start and end
# written to a file as it runs, so that a crash (or a hang past the time
# limit) is a failure that names its case and the next child goes on from
# the case after it.

`%||%` <- function(a, b) if (is.null(a)) b else a

.xmax <- .Machine$double.xmax

# ---------------------------------------------------------------------------
# Bad and extreme values. Each variant: list(label, value, expect).

.v <- function(label, value, expect = "either") list(label = label, value = value, expect = expect)

# Variants of a numeric vector argument whose values must be finite
# (`na_ok`: NA is allowed, dropped or passed through; `nonneg`: weights;
# `unit`: values in [0, 1]).
corpus_numeric_variants <- function(b, na_ok = FALSE, nonneg = FALSE, unit = FALSE,
                                    inf_ok = FALSE) {
  n <- length(b)
  i <- min(2L, n)
  bad_na <- if (na_ok) "either" else "error"
  val <- function(x) {
    if (unit && any(x < 0 | x > 1)) return("error")
    if (nonneg && any(x < 0)) return("error")
    "value"
  }
  at <- function(v) replace(b, i, v)
  out <- list(
    .v("NA", at(NA), bad_na), .v("NA_real_", at(NA_real_), bad_na),
    .v("NaN", at(NaN), bad_na),
    .v("Inf", at(Inf), if (inf_ok) "either" else "error"),
    .v("-Inf", at(-Inf), if (inf_ok) "either" else "error"),
    .v("DBL_MAX", at(.xmax), val(.xmax)), .v("-DBL_MAX", at(-.xmax), val(-.xmax)),
    .v("5e-324", at(5e-324), val(5e-324)), .v("-5e-324", at(-5e-324), val(-5e-324)),
    .v("3*2^-1074", at(3 * 2^-1074), val(1)), .v("1e-300", at(1e-300), val(1)),
    .v("1e300", at(1e300), val(1e300)), .v("-1e300", at(-1e300), val(-1e300)),
    .v("0", at(0), "value"), .v("-0", at(-0), "value"),
    .v("-1", at(-1), val(-1)),
    .v("1 + 2^-52", at(1 + 2^-52), val(1 + 2^-52)),
    .v("all DBL_MAX", rep(.xmax, n), val(.xmax)),
    .v("all -DBL_MAX", rep(-.xmax, n), val(-.xmax)),
    .v("all 5e-324", rep(5e-324, n), "value"),
    .v("all 1e-300", rep(1e-300, n), "value"),
    .v("all 0", rep(0, n), if (nonneg) "error" else "value"),
    .v("+-DBL_MAX alternating", rep_len(c(.xmax, -.xmax), n), val(-.xmax)),
    .v("extremes mixed", rep_len(c(.xmax, 5e-324, 1e-300, 1e300, 1), n), val(.xmax)),
    .v("empty", numeric(0)), .v("length 1", b[1L]), .v("length n - 1", b[-1L]),
    .v("length n + 1", c(b, b[1L])), .v("length 2n", c(b, b)),
    .v("integer", as.integer(round(b))), .v("named", stats::setNames(b, paste0("e", seq_len(n))), "value"),
    .v("integer NA", replace(as.integer(round(b)), i, NA), bad_na),
    .v("logical", rep_len(c(TRUE, FALSE), n), if (unit || nonneg) "value" else "either"),
    .v("all NA", rep(NA, n), if (na_ok) "either" else "error"),
    .v("TRUE", TRUE), .v("NULL", NULL),
    .v("character", as.character(b), "error"), .v("'a'", "a", "error"),
    .v("factor", factor(b), "error"), .v("list", as.list(b), "error"),
    .v("complex", complex(real = b), "error"), .v("raw", as.raw(seq_len(n)), "error"),
    .v("function", sum, "error"), .v("environment", globalenv(), "error"),
    .v("data.frame", data.frame(v = b)), .v("matrix n x 1", matrix(b, ncol = 1L)),
    .v("matrix 1 x n", matrix(b, nrow = 1L)), .v("array n x 1 x 1", array(b, c(n, 1L, 1L))),
    .v("Date", as.Date(b, origin = "1970-01-01")),
    .v("formula", y ~ x, "error")
  )
  out
}

corpus_weight_variants <- function(n) {
  b <- rep_len(c(1, 2, 1, 1, 3, 2), n)
  c(corpus_numeric_variants(b, nonneg = TRUE),
    list(.v("all zero", rep(0, n), "error"),
         .v("zero but one", replace(numeric(n), n, 1), "value"),
         .v("one 5e-324, rest zero", replace(numeric(n), 1L, 5e-324), "value"),
         .v("span 5e-324..DBL_MAX", rep_len(c(5e-324, .xmax, 1, 1e-300, 1e300), n), "value"),
         .v("all 1e-162", rep(1e-162, n), "value"),
         .v("negative zero", replace(b, 1L, -0), "value"),
         .v("-DBL_MAX first", replace(b, 1L, -.xmax), "error")))
}

# TRUE or FALSE (and "auto" where `auto`).
corpus_flag_variants <- function(auto = FALSE) {
  list(.v("TRUE", TRUE, "value"), .v("FALSE", FALSE, "value"),
       .v("NA", NA, "error"), .v("'yes'", "yes", "error"), .v("'TRUE'", "TRUE"),
       .v("c(TRUE, FALSE)", c(TRUE, FALSE), "error"), .v("1", 1), .v("0L", 0L),
       .v("NULL", NULL, "error"), .v("list(TRUE)", list(TRUE), "error"),
       .v("logical(0)", logical(0), "error"), .v("NaN", NaN, "error"),
       .v("'auto'", "auto", if (auto) "value" else "error"),
       .v("factor", factor("TRUE"), "error"))
}

# One of some strings.
corpus_choice_variants <- function(valid) {
  c(lapply(valid, function(s) .v(encodeString(s, quote = "'"), s, "value")),
    list(.v("'bogus'", "bogus", "error"), .v("NA", NA_character_, "error"),
         .v("''", "", "error"), .v("1", 1, "error"), .v("NULL", NULL),
         .v("valid, reversed", rev(valid), if (length(valid) > 1L) "error" else "value"),
         .v("upper case", toupper(valid[1L]), "error"),
         .v("abbreviated", substr(valid[1L], 1L, 2L)),
         .v("TRUE", TRUE, "error"), .v("list", as.list(valid), "error")))
}

corpus_device_variants <- function() {
  c(corpus_choice_variants(c("auto", "cpu")),
    list(.v("'gpu'", "gpu"), .v("c('cpu', 'gpu')", c("cpu", "gpu"), "error")))
}

# One number (y_min, bins, breaks, seed, ...).
corpus_number_variants <- function() {
  list(.v("NA", NA), .v("NaN", NaN), .v("Inf", Inf), .v("-Inf", -Inf),
       .v("DBL_MAX", .xmax), .v("-DBL_MAX", -.xmax), .v("5e-324", 5e-324),
       .v("0", 0), .v("-1", -1), .v("0.5", 0.5), .v("2.5", 2.5), .v("3", 3),
       .v("1e9", 1e9), .v("'3'", "3", "error"), .v("c(1, 2)", c(1, 2)),
       .v("numeric(0)", numeric(0)), .v("NULL", NULL), .v("TRUE", TRUE),
       .v("list(1)", list(1), "error"), .v("complex", 1i, "error"),
       .v("factor", factor(3)))
}

# Group labels for `n` elements.
corpus_group_variants <- function(n) {
  g <- rep_len(c("a", "a", "b", "b", "b", "c"), n)
  list(.v("character", g, "value"), .v("factor", factor(g), "value"),
       .v("integer", match(g, unique(g)), "value"), .v("interleaved", rep_len(1:2, n), "value"),
       .v("one group", rep("a", n), "value"), .v("all distinct", seq_len(n), "value"),
       .v("NA", replace(g, 2L, NA), "error"), .v("length n - 1", g[-1L], "error"),
       .v("length 1", "a"), .v("list", as.list(g), "error"), .v("NULL", NULL, "value"),
       .v("matrix 2 columns", matrix(g, n, 2L), "error"), .v("function", sum, "error"),
       .v("numeric NaN", replace(seq_len(n) + 0, 2L, NaN), "error"),
       .v("data.frame", data.frame(g = g)), .v("logical", rep_len(c(TRUE, FALSE), n), "value"),
       .v("Inf labels", replace(rep(1, n), 2L, Inf), "value"),
       .v("empty strings", rep("", n), "value"))
}

# Misspelled or unknown arguments: the name, and the value to give it.
corpus_bogus_args <- function() {
  list(list(name = "wieghts", value = 1), list(name = "increasing", value = TRUE),
       list(name = "newx", value = 1), list(name = "bogus", value = 1),
       list(name = "", value = 1))
}

# ---------------------------------------------------------------------------
# Building cases.

# A prep expression with a label for the cases' ids.
.prep <- function(expr, label) structure(expr, label = label)

.case <- function(family, fun, args, expect = "either", arg = NULL, check = NULL,
                  prep = NULL, label = "") {
  nm <- names(args) %||% rep("", length(args))
  shown <- vapply(seq_along(args), function(k) {
    v <- args[[k]]
    a <- nm[k]
    s <- if (is.language(v)) deparse1(v)
         else if (!is.null(arg) && identical(a, arg) && nzchar(label)) paste0("<", label, ">") else "."
    if (nzchar(a)) paste(a, "=", s) else s
  }, "")
  pl <- attr(prep, "label")
  list(id = sprintf("%s(%s)%s%s", fun, paste(shown, collapse = ", "),
                    if (nzchar(label)) paste0(" [", arg, ": ", label, "]") else "",
                    if (!is.null(pl)) paste0(" {", pl, "}") else ""),
       family = family, fun = fun, args = args, prep = prep, expect = expect,
       arg = arg, check = check)
}

# The cases of one argument `arg` of a call with base arguments `args`, one
# per variant. `combine` merges the variant's expectation with the call's.
# `relax`: results that the variant expects may be classed errors in this
# call (its other arguments make them so); `override`: expectations by
# variant label.
.vary <- function(family, fun, args, arg, variants, check, prep = NULL, expect = NULL,
                  relax = FALSE, override = NULL) {
  lapply(variants, function(v) {
    a <- args
    a[arg] <- list(v$value)
    e <- expect %||% v$expect
    if (relax && e == "value") e <- "either"
    if (!is.null(override[[v$label]])) e <- override[[v$label]]
    .case(family, fun, a, expect = e, arg = arg, check = check,
          prep = prep, label = v$label)
  })
}

# Bogus arguments on a call.
.bogus <- function(family, fun, args, check, prep = NULL) {
  lapply(corpus_bogus_args(), function(b) {
    a <- c(args, stats::setNames(list(b$value), b$name))
    c(.case(family, fun, a, expect = if (nzchar(b$name)) "error" else "either",
            arg = if (nzchar(b$name)) b$name, check = check,
            prep = prep, label = paste("argument", if (nzchar(b$name)) b$name else "unnamed")),
      list(bogus = TRUE))
  })
}

# ---------------------------------------------------------------------------
# The cases, family by family.

corpus_cases_isotonic <- function() {
  F <- "isotonic"
  y <- c(3, 1, 2, 5, 4)
  w <- c(1, 2, 1, 1, 3)
  base <- list(y = y)
  basew <- list(y = y, weights = w)
  chk <- "corpus_check_isotonic"
  num <- corpus_numeric_variants(y)
  cases <- c(
    .vary(F, "isotonic", base, "y", num, chk),
    .vary(F, "isotonic", basew, "y", num, chk),
    .vary(F, "isotonic", c(base, decreasing = TRUE), "y", num, chk),
    .vary(F, "isotonic", basew, "weights", corpus_weight_variants(5L), chk),
    .vary(F, "isotonic", basew, "decreasing", corpus_flag_variants(auto = TRUE), chk),
    .vary(F, "isotonic", basew, "device", corpus_device_variants(), chk),
    .vary(F, "isotonic", basew, "precision", corpus_choice_variants(c("double", "single")), chk),
    .vary(F, "isotonic", basew, "groups", corpus_group_variants(5L), chk),
    .vary(F, "isotonic", basew, "y_min", corpus_number_variants(), chk),
    .vary(F, "isotonic", basew, "y_max", corpus_number_variants(), chk),
    .vary(F, "isotonic", basew, "na.rm", corpus_flag_variants(), chk),
    .bogus(F, "isotonic", basew, chk))
  # missing values removed with na.rm = TRUE
  ym <- c(3, NA, 2, NaN, 4)
  cases <- c(cases, list(
    .case(F, "isotonic", list(y = ym, na.rm = TRUE), "value", "y", chk, label = "NA and NaN, na.rm"),
    .case(F, "isotonic", list(y = y, weights = c(1, NA, 1, 1, 1), na.rm = TRUE), "value", "weights", chk, label = "NA weight, na.rm"),
    .case(F, "isotonic", list(y = rep(NA_real_, 5), na.rm = TRUE), "either", "y", chk, label = "all NA, na.rm"),
    .case(F, "isotonic", list(y = ym, groups = c(1, 1, 2, 2, 2), na.rm = TRUE), "value", "y", chk, label = "NA in groups, na.rm"),
    .case(F, "isotonic", list(y = c(1, Inf, 2), na.rm = TRUE), "error", "y", chk, label = "Inf, na.rm"),
    .case(F, "isotonic", list(y = matrix(c(3, NA, 1, 2, 5, 4), 3), na.rm = TRUE), "value", "y", chk, label = "matrix with NA, na.rm")))
  # the calls of issue 11
  cases <- c(cases, lapply(list(
    list(c(1, 2), c(1e-162, 1e-162)), list(0.3, 5e-324), list(c(1, 1e308), c(1e-300, 1e308)),
    list(c(1e-300, 2e-300, 1e307), c(1, 1, 1)), list(c(2e-310, 1e-310), c(1e308, 1e308)),
    list(c(2, 1), c(1e-200, 1e-200))), function(a) {
      .case(F, "isotonic", list(y = a[[1L]], weights = a[[2L]]), "value", "weights", chk,
            label = paste("issue:", deparse1(a[[1L]]), deparse1(a[[2L]])))
    }))
  # matrices: one problem per column, weights per element or per row
  m <- matrix(c(3, 1, 2, 5, 4, 6), 3, dimnames = list(NULL, c("a", "b")))
  mv <- list(
    .v("matrix", m, "value"), .v("0 x 2 matrix", matrix(numeric(0), 0, 2)),
    .v("3 x 0 matrix", matrix(numeric(0), 3, 0)), .v("1 x 1 matrix", matrix(1)),
    .v("matrix with NA", replace(m, 4L, NA), "error"),
    .v("matrix with Inf", replace(m, 4L, Inf), "error"),
    .v("matrix +-DBL_MAX", matrix(c(.xmax, -.xmax, .xmax, -.xmax, 1, 5e-324), 3), "value"),
    .v("character matrix", matrix(letters[1:6], 3), "error"),
    .v("logical matrix", matrix(c(TRUE, FALSE), 3, 2), "value"),
    .v("3-d array", array(1:12 + 0, c(2, 3, 2))))
  wv <- list(.v("per element", matrix(c(1, 2, 1, 1, 1, 3), 3), "value"),
             .v("per row", c(1, 2, 1), "value"), .v("per row, one zero column?", c(0, 0, 1), "value"),
             .v("per element, a zero column", matrix(c(1, 1, 1, 0, 0, 0), 3), "error"),
             .v("length 2", c(1, 2), "error"), .v("length 4", c(1, 2, 3, 4), "error"),
             .v("per row, subnormal", c(5e-324, 5e-324, 5e-324), "value"),
             .v("per element, spanning", matrix(c(5e-324, .xmax, 1, 1e-300, 1e300, 1), 3), "value"),
             .v("transposed", matrix(1, 2, 3), "error"))
  cases <- c(cases,
    .vary(F, "isotonic", list(y = m), "y", mv, chk),
    .vary(F, "isotonic", list(y = m, weights = NULL), "weights", wv, chk),
    .vary(F, "isotonic", list(y = m, decreasing = "auto"), "weights", wv[1:3], chk),
    list(.case(F, "isotonic", list(y = m, groups = rep(1, 6)), "error", "groups", chk, label = "groups with a matrix")))
  # options that reach the engine
  cases <- c(cases, lapply(list(
    list(quote(options(gpuiso.threads = -1)), "threads -1", "gpuiso.threads"),
    list(quote(options(gpuiso.threads = NA)), "threads NA", "gpuiso.threads"),
    list(quote(options(gpuiso.threads = "2")), "threads '2'", "gpuiso.threads"),
    list(quote(options(gpuiso.threads = 1e10)), "threads 1e10", "gpuiso.threads"),
    list(quote(options(gpuiso.threads = 2.5)), "threads 2.5", "gpuiso.threads"),
    list(quote(options(gpuiso.device = "bogus")), "device option bogus", "device"),
    list(quote(options(gpuiso.device = NA)), "device option NA", "device"),
    list(quote(options(gpuiso.gpu_min_n = "a")), "gpu_min_n 'a'", "gpuiso.gpu_min_n"),
    list(quote(options(gpuiso.gpu_min_n = -1)), "gpu_min_n -1", "gpuiso.gpu_min_n"),
    list(quote(options(gpuiso.gpu_min_n = NA)), "gpu_min_n NA", "gpuiso.gpu_min_n")), function(o) {
      .case(F, "isotonic", list(y = m), "either", o[[3L]], chk, prep = .prep(o[[1L]], o[[2L]]), label = o[[2L]])
    }))
  cases
}

corpus_cases_vjp <- function() {
  F <- "vjp"
  y <- c(3, 1, 2, 5, 4)
  g <- c(1, -1, 2, 0.5, 1)
  base <- list(y = y, grad = g)
  basew <- list(y = y, grad = g, weights = c(1, 2, 1, 1, 3))
  chk <- "corpus_check_vjp"
  num <- corpus_numeric_variants(y)
  c(.vary(F, "isotonic_vjp", base, "y", num, chk),
    .vary(F, "isotonic_vjp", basew, "y", num, chk),
    .vary(F, "isotonic_vjp", base, "grad", corpus_numeric_variants(g), chk),
    .vary(F, "isotonic_vjp", basew, "grad", corpus_numeric_variants(g), chk),
    .vary(F, "isotonic_vjp", basew, "weights", corpus_weight_variants(5L), chk),
    .vary(F, "isotonic_vjp", basew, "decreasing", corpus_flag_variants(), chk),
    .vary(F, "isotonic_vjp", basew, "groups", corpus_group_variants(5L), chk),
    .vary(F, "isotonic_vjp", basew, "device", corpus_device_variants(), chk),
    .vary(F, "isotonic_vjp", basew, "precision", corpus_choice_variants(c("double", "single")), chk),
    .bogus(F, "isotonic_vjp", basew, chk),
    list(.case(F, "isotonic_vjp", list(y = matrix(y[1:4], 2), grad = g[1:4]), "either", "grad", chk, label = "matrix y, vector grad"),
         .case(F, "isotonic_vjp", list(y = matrix(y[1:4], 2), grad = matrix(g[1:4], 2), weights = c(5e-324, 1)), "value", "weights", chk, label = "per-row subnormal weights"),
         .case(F, "isotonic_vjp", list(y = c(1, 2), grad = c(1, 1), weights = c(5e-324, 5e-324)), "value", "weights", chk, label = "issue: subnormal weights"),
         .case(F, "isotonic_vjp", list(y = c(2, 1), grad = c(.xmax, .xmax)), "either", "grad", chk, label = "G overflows"),
         .case(F, "isotonic_vjp", list(y = c(.xmax, -.xmax), grad = c(1, 1)), "either", "y", chk, label = "y - z overflows")))
}

corpus_cases_isoreg <- function() {
  F <- "isoreg"
  x <- c(1, 2, 2, 3, 5)
  y <- c(1, 3, 2, 2, 6)
  base <- list(x = x, y = y)
  chk <- "corpus_check_isoreg"
  fit <- .prep(quote(fit <- isoreg(c(1, 2, 2, 3, 5), c(1, 3, 2, 2, 6))), "isoreg fit")
  fitx <- .prep(quote(fit <- isoreg(c(1, 2, 3, 4, 5), c(.Machine$double.xmax, -.Machine$double.xmax,
                                                       .Machine$double.xmax, 5e-324, -1e300),
                                    weights = c(1e-300, 1, 1e300, 5e-324, 1))), "extreme isoreg fit")
  cases <- c(
    .vary(F, "isoreg", base, "x", corpus_numeric_variants(x), chk,
          override = list(list = "either", complex = "either", raw = "either")),
    .vary(F, "isoreg", base, "y", corpus_numeric_variants(y), chk,
          override = list(complex = "either", raw = "either")),
    .vary(F, "isoreg", list(x = y), "x", corpus_numeric_variants(y), chk,
          override = list(list = "either", complex = "either", raw = "either")),
    .vary(F, "isoreg", c(base, list(weights = c(1, 2, 1, 1, 3))), "weights", corpus_weight_variants(5L), chk),
    .vary(F, "isoreg", base, "decreasing", corpus_flag_variants(auto = TRUE), chk),
    .vary(F, "isoreg", base, "device", corpus_device_variants(), chk),
    .vary(F, "isoreg", base, "precision", corpus_choice_variants(c("double", "single")), chk),
    .vary(F, "isoreg", base, "y_min", corpus_number_variants(), chk),
    .vary(F, "isoreg", base, "na.rm", corpus_flag_variants(), chk),
    .bogus(F, "isoreg", base, chk),
    list(.case(F, "isoreg", list(x = c(1, NA, 3), y = c(1, 2, NA), na.rm = TRUE), "value", "x", chk, label = "NA, na.rm"),
         .case(F, "isoreg", list(x = list(x = x, y = y)), "value", "x", chk, label = "list(x, y)"),
         .case(F, "isoreg", list(x = data.frame(a = x, b = y)), "value", "x", chk, label = "data frame"),
         .case(F, "isoreg", list(x = cbind(x, y)), "value", "x", chk, label = "2-column matrix"),
         .case(F, "isoreg", list(x = cbind(x, y, y)), "either", "x", chk, label = "3-column matrix"),
         .case(F, "isoreg", list(x = list(x = x)), "either", "x", chk, label = "list without y"),
         .case(F, "isoreg", list(x = rep(1, 5), y = y), "value", "x", chk, label = "all x tied"),
         .case(F, "isoreg", list(x = c(-0, 0, 0, -0, 1), y = y), "value", "x", chk, label = "signed zeros tied"),
         .case(F, "isoreg", list(x = c(.xmax, -.xmax, 5e-324, -5e-324, 0), y = y), "value", "x", chk, label = "extreme x"),
         .case(F, "isoreg", list(x = x, y = y, y_min = 3, y_max = 2), "error", "y_min", chk, label = "y_min > y_max")))
  # the methods, on a plain fit and on one at the ends of the range
  for (p in list(fit, fitx)) {
    tag <- if (identical(p, fit)) "" else "extreme fit: "
    nd <- corpus_numeric_variants(c(0, 1.5, 2, 4, 9), na_ok = TRUE, inf_ok = TRUE)
    nd <- lapply(nd, function(v) { if (v$expect == "error" && v$label %in% c("Inf", "-Inf")) v$expect <- "value"; v })
    cases <- c(cases,
      .vary(F, "predict", list(object = quote(fit), newdata = 1), "newdata", nd, "corpus_check_predict", prep = p),
      .vary(F, "predict", list(object = quote(fit), newdata = c(0, 2.5, 9)), "interpolation", corpus_choice_variants(c("constant", "linear")), "corpus_check_predict", prep = p),
      .vary(F, "predict", list(object = quote(fit), newdata = c(0, 2.5, 9)), "out_of_bounds", corpus_choice_variants(c("clip", "na", "error")), "corpus_check_predict", prep = p,
            override = list("'error'" = "error")),
      .bogus(F, "predict", list(object = quote(fit), newdata = 2), "corpus_check_predict", prep = p),
      list(.case(F, "predict", list(object = quote(fit), newdata = data.frame(x = c(1, 2))), "value", "newdata", "corpus_check_predict", prep = p, label = "data frame"),
           .case(F, "predict", list(object = quote(fit), newdata = data.frame(a = 1, b = 2)), "error", "newdata", "corpus_check_predict", prep = p, label = "data frame, 2 columns")),
      lapply(c("print", "summary", "fitted", "residuals", "coef", "nobs", "deviance",
               "logLik", "knots", "as.stepfun", "plot"), function(f) {
        .case(F, f, list(quote(fit)), if (f == "coef") "either" else "value", NULL,
              "corpus_check_method", prep = p, label = paste0(tag, "method"))
      }),
      lapply(c("print", "summary", "fitted", "nobs", "plot", "knots", "as.stepfun"), function(f) {
        .case(F, f, list(quote(fit), bogus = 1), "error", "bogus", "corpus_check_method", prep = p, label = paste0(tag, "bogus argument"))
      }),
      if (!nzchar(tag)) .vary(F, "print", list(quote(fit)), "digits", corpus_number_variants(), "corpus_check_method", prep = p),
      if (!nzchar(tag)) .vary(F, "plot", list(quote(fit)), "plot.type", corpus_choice_variants(c("single", "row.wise", "col.wise")), "corpus_check_method", prep = p),
      if (nzchar(tag)) lapply(c("single", "row.wise", "col.wise"), function(pt) {
        .case(F, "plot", list(quote(fit), plot.type = pt), "value", NULL, "corpus_check_method", prep = p, label = paste0(tag, pt))
      }),
      list(.case(F, "lines", list(quote(fit)), "value", NULL, "corpus_check_method",
                 prep = .prep(call("{", p, quote(plot(fit))), attr(p, "label")), label = paste0(tag, "lines after plot")),
           .case(F, "lines", list(quote(fit), bogus = 1), "error", "bogus", "corpus_check_method",
                 prep = .prep(call("{", p, quote(plot(fit))), attr(p, "label")), label = paste0(tag, "lines, bogus"))))
  }
  cases
}

corpus_cases_calibrate <- function() {
  F <- "calibrate"
  s <- c(0.1, 0.4, 0.35, 0.8, 0.9, 0.2)
  o <- c(0, 1, 0, 1, 1, 0)
  base <- list(scores = s, outcomes = o)
  chk <- "corpus_check_calibrate"
  cal <- .prep(quote(cal <- iso_calibrate(c(0.1, 0.4, 0.35, 0.8, 0.9, 0.2), c(0, 1, 0, 1, 1, 0),
                                          groups = c("a", "a", "a", "b", "b", "b"))), "grouped calibration")
  cal1 <- .prep(quote(cal <- iso_calibrate(c(0.1, 0.4, 0.35, 0.8, 0.9, 0.2), c(0, 1, 0, 1, 1, 0))), "calibration")
  d <- data.frame(s = s, o = o, g = c("a", "a", "a", "b", "b", "b"), w = c(1, 2, 1, 1, 3, 1))
  unit <- corpus_numeric_variants(o, unit = TRUE)
  # missing values are dropped by na.omit, and a curve needs two scores
  unit_na <- corpus_numeric_variants(o, unit = TRUE, na_ok = TRUE)
  wna <- corpus_weight_variants(6L)
  wna <- lapply(wna, function(v) { if (grepl("NA|NaN", v$label)) v$expect <- "either"; v })
  cases <- c(
    .vary(F, "iso_calibrate", base, "scores", corpus_numeric_variants(s, na_ok = TRUE), chk, relax = TRUE,
          override = list(formula = "either")),
    # factor outcomes are events (the second level, as glm() takes them)
    .vary(F, "iso_calibrate", base, "outcomes", unit_na, chk, override = list(factor = "value")),
    .vary(F, "iso_calibrate", c(base, list(weights = c(1, 2, 1, 1, 3, 1))), "weights", wna, chk),
    .vary(F, "iso_calibrate", base, "groups", corpus_group_variants(6L), chk, relax = TRUE,
          override = list("NA" = "either", "numeric NaN" = "either")),
    .vary(F, "iso_calibrate", base, "device", corpus_device_variants(), chk),
    .vary(F, "iso_calibrate", base, "y_min", corpus_number_variants(), chk),
    .vary(F, "iso_calibrate", base, "y_max", corpus_number_variants(), chk),
    .vary(F, "iso_calibrate", base, "na.action",
          list(.v("na.omit", stats::na.omit, "value"), .v("'na.exclude'", "na.exclude", "value"),
               .v("'bogus'", "bogus", "error"), .v("1", 1, "error"), .v("NULL", NULL),
               .v("identity", identity), .v("function that fails", function(x) stop("no"), "either")), chk),
    .bogus(F, "iso_calibrate", base, chk),
    list(.case(F, "iso_calibrate", list(scores = c(s, NA), outcomes = c(o, 1)), "value", "scores", chk, label = "NA dropped"),
         .case(F, "iso_calibrate", list(scores = c(s, NA), outcomes = c(o, 1), na.action = "na.fail"), "error", "scores", chk, label = "NA, na.fail"),
         .case(F, "iso_calibrate", list(scores = rep(1, 6), outcomes = o), "error", "scores", chk, label = "one distinct score"),
         .case(F, "iso_calibrate", list(scores = s, outcomes = o, data = d), "error", "data", chk, label = "data without formula"),
         .case(F, "iso_calibrate", list(scores = o ~ s, data = d), "value", "data", chk, label = "formula"),
         c(.case(F, "iso_calibrate", list(scores = o ~ s | g, data = d, weights = quote(w)), "value", "data", chk, label = "formula, groups, weights"), list(raw = TRUE)),
         .case(F, "iso_calibrate", list(scores = o ~ s, outcomes = d), "value", "data", chk, label = "data as second argument"),
         .case(F, "iso_calibrate", list(scores = o ~ nosuch, data = d), "error", "score", chk, label = "unknown variable"),
         .case(F, "iso_calibrate", list(scores = o ~ s + g, data = d), "error", "score", chk, label = "two variables"),
         .case(F, "iso_calibrate", list(scores = ~ s, data = d), "error", "formula", chk, label = "one-sided formula"),
         .case(F, "iso_calibrate", list(scores = o ~ s, data = "d"), "error", "data", chk, label = "data a string"),
         .case(F, "iso_calibrate", list(scores = o ~ s, data = as.matrix(d[1:2])), "value", "data", chk, label = "data a matrix"),
         .case(F, "iso_calibrate", list(scores = o ~ s, data = d, outcomes = 1), "error", "outcomes", chk, label = "formula and outcomes"),
         .case(F, "iso_calibrate", list(scores = o ~ s, data = d, groups = 1), "error", "groups", chk, label = "formula and groups"),
         .case(F, "iso_calibrate", list(), "error", "scores", chk, label = "nothing")))
  for (p in list(cal, cal1)) {
    nd <- corpus_numeric_variants(c(0, 0.15, 0.5, 0.95, 1), na_ok = TRUE, inf_ok = TRUE)
    grp <- if (identical(p, cal)) list(groups = "a") else list()
    cases <- c(cases,
      .vary(F, "predict", c(list(object = quote(cal), newdata = 0.5), grp), "newdata", nd, "corpus_check_predict_cal", prep = p),
      .vary(F, "predict", list(object = quote(cal), newdata = c(0.5, 0.6)), "groups",
            list(.v("'a'", "a"), .v("'zz'", "zz", "error"), .v("NA", NA), .v("c('a', 'b')", c("a", "b")),
                 .v("factor", factor(c("a", "b"))), .v("length 3", c("a", "b", "a")), .v("list", list("a"), "error"),
                 .v("NULL", NULL)), "corpus_check_predict_cal", prep = p),
      .vary(F, "predict", c(list(object = quote(cal), newdata = c(0, 0.5, 1.5)), grp), "interpolation", corpus_choice_variants(c("constant", "linear")), "corpus_check_predict_cal", prep = p),
      .vary(F, "predict", c(list(object = quote(cal), newdata = c(0, 0.5, 1.5)), grp), "out_of_bounds", corpus_choice_variants(c("clip", "na", "error")), "corpus_check_predict_cal", prep = p,
            override = list("'error'" = "error")),
      .bogus(F, "predict", c(list(object = quote(cal), newdata = 0.5), grp), "corpus_check_predict_cal", prep = p),
      list(.case(F, "predict", c(list(object = quote(cal), newdata = 0.5, newscores = 0.5), grp), "error", "newscores", "corpus_check_predict_cal", prep = p, label = "newdata and newscores"),
           .case(F, "predict", list(object = quote(cal), newdata = data.frame(score = 0.5, g = "a")), "either", "newdata", "corpus_check_predict_cal", prep = p, label = "data frame"),
           .case(F, "predict", list(object = quote(cal)), "value", "newdata", "corpus_check_predict_cal", prep = p, label = "in-sample")),
      lapply(c("print", "summary", "fitted", "residuals", "coef", "nobs", "logLik", "plot"), function(f) {
        .case(F, f, list(quote(cal)), if (f %in% c("coef", "logLik")) "either" else "value", NULL,
              "corpus_check_method", prep = p, label = "method")
      }),
      lapply(c("print", "summary", "fitted", "residuals", "nobs", "plot"), function(f) {
        .case(F, f, list(quote(cal), bogus = 1), "error", "bogus", "corpus_check_method", prep = p, label = "bogus argument")
      }),
      .vary(F, "plot", list(quote(cal)), "group", c(list(.v("'a'", "a"), .v("'zz'", "zz", "error"), .v("2", 2), .v("99", 99, "error")),
                                                    corpus_number_variants()), "corpus_check_method", prep = p),
      if (identical(p, cal1)) .vary(F, "print", list(quote(cal)), "digits", corpus_number_variants(), "corpus_check_method", prep = p))
  }
  # reliability_diagram() and calibration_error()
  f <- c(0.1, 0.4, 0.35, 0.8, 0.9, 0.2)
  rb <- list(forecasts = f, outcomes = o)
  rel <- .prep(quote(r <- reliability_diagram(c(0.1, 0.4, 0.35, 0.8, 0.9, 0.2), c(0, 1, 0, 1, 1, 0))), "r")
  cases <- c(cases,
    .vary(F, "reliability_diagram", rb, "forecasts", corpus_numeric_variants(f, unit = TRUE), "corpus_check_reliability"),
    .vary(F, "reliability_diagram", rb, "outcomes", unit, "corpus_check_reliability",
          override = list(factor = "value")),
    .vary(F, "reliability_diagram", rb, "device", corpus_device_variants(), "corpus_check_reliability"),
    .bogus(F, "reliability_diagram", rb, "corpus_check_reliability"),
    .vary(F, "calibration_error", rb, "forecasts", corpus_numeric_variants(f, unit = TRUE), "corpus_check_ece"),
    .vary(F, "calibration_error", rb, "outcomes", unit, "corpus_check_ece"),
    .vary(F, "calibration_error", rb, "bins", corpus_number_variants(), "corpus_check_ece"),
    .vary(F, "calibration_error", rb, "binning", corpus_choice_variants(c("equal_width", "equal_mass")), "corpus_check_ece"),
    .bogus(F, "calibration_error", rb, "corpus_check_ece"),
    lapply(c("print", "plot"), function(fn) .case(F, fn, list(quote(r)), "value", NULL, "corpus_check_method", prep = rel, label = "method")),
    lapply(c("print", "plot"), function(fn) .case(F, fn, list(quote(r), bogus = 1), "error", "bogus", "corpus_check_method", prep = rel, label = "bogus argument")),
    .vary(F, "print", list(quote(r)), "digits", corpus_number_variants(), "corpus_check_method", prep = rel))
  cases
}

corpus_cases_idr <- function() {
  F <- "idr"
  y <- c(1, 3, 2, 5, 4, 6)
  X <- c(1, 2, 2, 3, 4, 5)
  base <- list(y = y, X = X)
  chk <- "corpus_check_idr"
  fit <- .prep(quote({
    fit <- idr(c(1, 3, 2, 5, 4, 6), c(1, 2, 2, 3, 4, 5))
    pred <- predict(fit, c(0, 1.5, 3, 9))
  }), "idr fit")
  fitx <- quote({
    fit <- idr(c(.Machine$double.xmax, -.Machine$double.xmax, 1e-300, 5e-324, 1e300, 0),
               c(1e308, -1e308, 5e-324, 0, 1, -5e-324),
               weights = c(1e308, 5e-324, 1, 1e-300, 1e300, 1))
    pred <- predict(fit, c(-1e308, 0, 1e308, NA))
  })
  fitx <- .prep(fitx, "extreme idr fit")
  d <- data.frame(yy = y, xx = X, ww = c(1, 2, 1, 1, 3, 1))
  cases <- c(
    .vary(F, "idr", base, "y", corpus_numeric_variants(y, na_ok = TRUE), chk),
    .vary(F, "idr", base, "X", corpus_numeric_variants(X, na_ok = TRUE), chk),
    .vary(F, "idr", c(base, list(weights = c(1, 2, 1, 1, 3, 1))), "weights",
          lapply(corpus_weight_variants(6L), function(v) {
            if (grepl("NA|NaN", v$label)) v$expect <- "either" # na.action drops them
            v
          }), chk),
    .vary(F, "idr", base, "thresholds", corpus_numeric_variants(c(0, 2, 4, 7)), chk),
    .vary(F, "idr", base, "device", corpus_device_variants(), chk),
    .vary(F, "idr", base, "na.action",
          list(.v("na.omit", stats::na.omit, "value"), .v("'na.fail'", "na.fail", "value"),
               .v("'bogus'", "bogus", "error"), .v("1", 1, "error"), .v("NULL", NULL)), chk),
    .bogus(F, "idr", base, chk),
    list(.case(F, "idr", list(y = yy ~ xx, data = d), "value", "y", chk, label = "formula"),
         .case(F, "idr", list(y = yy ~ xx, X = d), "value", "y", chk, label = "formula, data second"),
         c(.case(F, "idr", list(y = yy ~ xx, data = d, weights = quote(ww)), "value", "weights", chk, label = "formula, weights"), list(raw = TRUE)),
         .case(F, "idr", list(y = yy ~ xx + ww, data = d), "value", "formula", chk, label = "two covariates"),
         .case(F, "idr", list(y = ~ xx, data = d), "error", "formula", chk, label = "no response"),
         .case(F, "idr", list(y = yy ~ nosuch, data = d), "error", "formula", chk, label = "unknown variable"),
         .case(F, "idr", list(y = y, X = X, data = d), "error", "data", chk, label = "data without formula"),
         .case(F, "idr", list(y = y), "error", "X", chk, label = "X missing"),
         .case(F, "idr", list(y = matrix(y, 3), X = X[1:3]), "error", "y", chk, label = "2-column y"),
         .case(F, "idr", list(y = y, X = cbind(X, X)), "error", "X", chk, label = "2-column X"),
         .case(F, "idr", list(y = c(NA, NA), X = c(1, 2)), "error", "y", chk, label = "nothing left"),
         .case(F, "idr", list(y = 1:4, X = 1:4, weights = rep(1e308, 4)), "value", "weights", chk, label = "issue: weights 1e308"),
         .case(F, "idr", list(y = c(1, 2), X = c(1, 2), weights = c(1e-200, 1e-200)), "value", "weights", chk, label = "issue: weights 1e-200"),
         .case(F, "idr", list(y = c(-1e308, 1e308, 0), X = c(-1e308, 1e308, 0)), "value", "y", chk, label = "issue: +-1e308"),
         .case(F, "predict", list(object = quote(fit), newdata = c(0, 5e307, -1e308), interpolation = "linear"), "value",
               "newdata", "corpus_check_idr_pred", prep = .prep(quote(fit <- idr(c(1, 2, 3), c(-1e308, 1e307, 1e308))), "idr fit on +-1e308"),
               label = "issue: interpolation weights between +-1e308")))
  for (p in list(fit, fitx)) {
    ext <- !identical(p, fit)
    tag <- if (ext) "extreme fit: " else ""
    nd <- corpus_numeric_variants(c(0, 1.5, 3, 9), na_ok = TRUE, inf_ok = TRUE)
    nd <- lapply(nd, function(v) { if (v$label %in% c("Inf", "-Inf")) v$expect <- "value"; v })
    # the extreme fit: a few variants of each argument
    few <- c("NA", "DBL_MAX", "-DBL_MAX", "5e-324", "0", "length 1", "1e300", "-1e300",
             "pred", "fit", "'constant'", "'linear'", "'clip'", "'na'", "'error'", "1", "99")
    ev <- function(fn, args, arg, variants, check, ...) {
      if (ext) variants <- Filter(function(v) v$label %in% few, variants)
      .vary(F, fn, args, arg, variants, check, prep = p, ...)
    }
    thr <- corpus_numeric_variants(c(0, 2, 4), inf_ok = TRUE)
    thr <- lapply(thr, function(v) { if (v$label %in% c("Inf", "-Inf")) v$expect <- "value"; v })
    qv <- corpus_numeric_variants(c(0.1, 0.5, 0.9), unit = TRUE)
    yv <- corpus_numeric_variants(c(1, 2, 3, 4), na_ok = TRUE)
    preds <- list(.v("pred", quote(pred), "value"), .v("fit", quote(fit), "value"),
                  .v("pred[c(1, 9, NA)]", quote(pred[c(1, 9, NA)]), "value"),
                  .v("pred[0]", quote(pred[0]), "value"), .v("pred[-1]", quote(pred[-1]), "value"),
                  .v("pred[c(TRUE, FALSE)]", quote(pred[c(TRUE, FALSE)]), "value"),
                  .v("pred[NA]", quote(pred[NA]), "value"), .v("pred[99]", quote(pred[99]), "value"),
                  .v("unclass(pred)", quote(unclass(pred)), "error"), .v("NULL", NULL, "error"),
                  .v("1:3", 1:3, "error"), .v("a list", list(fit = 1), "error"))
    cases <- c(cases,
      ev("predict", list(object = quote(fit), newdata = 1), "newdata", nd, "corpus_check_idr_pred"),
      ev("predict", list(object = quote(fit), newdata = c(0, 2.5, 9)), "interpolation", corpus_choice_variants(c("constant", "linear")), "corpus_check_idr_pred"),
      ev("predict", list(object = quote(fit), newdata = c(0, 2.5, 9)), "out_of_bounds", corpus_choice_variants(c("clip", "na", "error")), "corpus_check_idr_pred",
         override = list("'error'" = if (ext) "either" else "error")),
      .bogus(F, "predict", list(object = quote(fit), newdata = 2), "corpus_check_idr_pred", prep = p),
      list(.case(F, "predict", list(object = quote(fit), newdata = 1, data = 1), "error", "data", "corpus_check_idr_pred", prep = p, label = paste0(tag, "newdata and data")),
           .case(F, "predict", list(object = quote(fit), data = data.frame(x = 2)), "value", "data", "corpus_check_idr_pred", prep = p, label = paste0(tag, "data frame")),
           .case(F, "predict", list(object = quote(fit), newdata = list(1, 2)), "either", "newdata", "corpus_check_idr_pred", prep = p, label = paste0(tag, "list of two"))),
      ev("cdf", list(predictions = quote(pred), thresholds = c(0, 2, 4)), "thresholds", thr, "corpus_check_cdf"),
      ev("cdf", list(predictions = quote(pred), thresholds = c(0, 2, 4)), "predictions", preds, "corpus_check_cdf"),
      ev("qpred", list(predictions = quote(pred), quantiles = c(0.1, 0.5, 0.9)), "quantiles", qv, "corpus_check_qpred"),
      ev("qpred", list(predictions = quote(pred), quantiles = c(0, 0.5, 1)), "predictions", preds, "corpus_check_qpred"),
      ev("crps", list(predictions = quote(pred), y = c(1, 2, 3, 4)), "y", yv, "corpus_check_crps"),
      ev("crps", list(predictions = quote(pred), y = 2), "predictions", preds, "corpus_check_crps"),
      ev("pit", list(predictions = quote(pred), y = c(1, 2, 3, 4)), "y", yv, "corpus_check_pit"),
      ev("pit", list(predictions = quote(pred), y = quote(rep(2, length(pred)))), "randomize", corpus_flag_variants(), "corpus_check_pit"),
      ev("pit", list(predictions = quote(pred), y = quote(rep(2, length(pred)))), "seed", corpus_number_variants(), "corpus_check_pit",
         override = list("'3'" = "either", complex = "either")),
      ev("pit", list(predictions = quote(pred), y = quote(rep(2, length(pred)))), "predictions", preds[1L], "corpus_check_pit"),
      ev("bscore", list(predictions = quote(pred), thresholds = c(0, 2, 4), y = c(1, 2, 3, 4)), "thresholds", thr, "corpus_check_bscore"),
      ev("bscore", list(predictions = quote(pred), thresholds = c(0, 2, 4), y = c(1, 2, 3, 4)), "y", yv, "corpus_check_bscore"),
      ev("bscore", list(predictions = quote(pred), thresholds = 2, y = 2), "predictions", preds, "corpus_check_bscore"),
      ev("qscore", list(predictions = quote(pred), quantiles = c(0.1, 0.5), y = c(1, 2, 3, 4)), "quantiles", qv, "corpus_check_qscore"),
      ev("qscore", list(predictions = quote(pred), quantiles = c(0.1, 0.5), y = c(1, 2, 3, 4)), "y", yv, "corpus_check_qscore"),
      ev("qscore", list(predictions = quote(pred), quantiles = 0.5, y = 2), "predictions", preds, "corpus_check_qscore"),
      ev("[", list(quote(pred), i = 1), "i", list(.v("1", 1, "value"), .v("0", 0, "value"), .v("-1", -1, "value"),
                                             .v("NA", NA, "value"), .v("99", 99, "value"), .v("1.5", 1.5, "value"),
                                             .v("'a'", "a"), .v("TRUE", TRUE, "value"), .v("1e10", 1e10),
                                             .v("NULL", NULL, "value"), .v("list", list(1))), "corpus_check_idr_pred"),
      ev("[[", list(quote(pred), i = 1), "i", list(.v("1", 1, "value"), .v("0", 0, "error"), .v("-1", -1, "error"),
                                              .v("NA", NA, "error"), .v("99", 99, "error"), .v("1.5", 1.5),
                                              .v("'a'", "a", "error"), .v("c(1, 2)", c(1, 2), "error"),
                                              .v("5 (NA prediction)", 5), .v("1e10", 1e10, "error")), "corpus_check_method"),
      lapply(c("print", "summary", "fitted", "residuals", "coef", "nobs", "logLik", "knots", "plot"), function(f) {
        .case(F, f, list(quote(fit)), if (f %in% c("residuals", "coef", "logLik")) "either" else "value",
              NULL, "corpus_check_method", prep = p, label = paste0(tag, "method"))
      }),
      lapply(c("print", "summary", "fitted", "nobs", "plot", "knots"), function(f) {
        .case(F, f, list(quote(fit), bogus = 1), "error", "bogus", "corpus_check_method", prep = p, label = paste0(tag, "bogus argument"))
      }),
      lapply(c("print", "length", "plot"), function(f) {
        .case(F, f, list(quote(pred)), "value", NULL, "corpus_check_method", prep = p, label = paste0(tag, "method of predictions"))
      }),
      lapply(c("print", "length", "plot"), function(f) {
        .case(F, f, list(quote(pred[c(1, 9, NA)])), "value", NULL, "corpus_check_method", prep = p, label = paste0(tag, "method of NA predictions"))
      }),
      ev("plot", list(quote(fit)), "type", corpus_choice_variants(c("cdf", "surface")), "corpus_check_method"),
      ev("plot", list(quote(fit), type = "cdf"), "at", corpus_numeric_variants(c(1, 3), inf_ok = TRUE, na_ok = TRUE), "corpus_check_method"),
      ev("plot", list(quote(fit), type = "surface"), "key", corpus_flag_variants(), "corpus_check_method"),
      ev("plot", list(quote(pred)), "index", list(.v("1", 1, "value"), .v("1:4", 1:4, "value"), .v("99", 99), .v("NA", NA), .v("0", 0), .v("'a'", "a"), .v("-1", -1)), "corpus_check_method"))
  }
  # the issue's crash: NA-indexed predictions evaluated
  pna <- .prep(quote({
    pred <- predict(idr(c(1, 2, 3, 4, 5), 1:5), c(1.5, 3))
    p5 <- pred[5]
  }), "p5 <- pred[5]")
  cases <- c(cases, lapply(list(
    list("crps", list(quote(p5), 2)), list("qpred", list(quote(p5), 0.5)),
    list("pit", list(quote(p5), 2)), list("cdf", list(quote(p5), 2)),
    list("bscore", list(quote(p5), 2, 2)), list("qscore", list(quote(p5), 0.5, 2)),
    list("[[", list(quote(p5), 1)), list("print", list(quote(p5))), list("plot", list(quote(p5)))),
    function(c) .case(F, c[[1L]], c[[2L]], "value", NULL,
                      switch(c[[1L]], crps = "corpus_check_crps", qpred = "corpus_check_qpred",
                             pit = "corpus_check_pit", cdf = "corpus_check_cdf", bscore = "corpus_check_bscore",
                             qscore = "corpus_check_qscore", "corpus_check_method"),
                      prep = pna, label = "issue: pred[5] of 2 predictions")))
  # pit_hist()
  pv <- corpus_numeric_variants(c(0.1, 0.5, 0.9, 0.3), na_ok = TRUE, unit = TRUE)
  cases <- c(cases,
    .vary(F, "pit_hist", list(pit = c(0.1, 0.5, 0.9, 0.3)), "pit", pv, "corpus_check_hist"),
    .vary(F, "pit_hist", list(pit = c(0.1, 0.5, 0.9, 0.3)), "breaks",
          corpus_number_variants(), "corpus_check_hist"),
    .bogus(F, "pit_hist", list(pit = c(0.1, 0.5)), "corpus_check_hist"),
    list(.case(F, "pit_hist", list(pit = c(0.1, 0.5), border = "red", labels = TRUE), "value", NULL, "corpus_check_hist", label = "hist arguments")))
  cases
}

corpus_cases_misc <- function() {
  F <- "misc"
  list(.case(F, "gpu_info", list(), "value", NULL, "corpus_check_gpu_info", label = "plain"),
       .case(F, "gpu_release", list(), "value", NULL, "corpus_check_method", label = "plain"),
       c(.case(F, "gpu_info", list(bogus = 1), "error", "bogus", NULL, label = "argument bogus"), list(bogus = TRUE)),
       c(.case(F, "gpu_release", list(1), "error", NULL, NULL, label = "an argument"), list(bogus = TRUE)),
       .case(F, "print", list(quote(gpu_info())), "value", NULL, "corpus_check_method", label = "print"),
       .case(F, "print", list(quote(gpu_info()), bogus = 1), "either", "bogus", "corpus_check_method", label = "print, bogus argument"),
       .case(F, "gpu_info", list(), "either", "threads", "corpus_check_gpu_info",
             prep = quote(options(gpuiso.threads = "x")), label = "threads option bogus"),
       .case(F, "isotonic", list(y = c(2, 1), device = "gpu"), "either", "device", "corpus_check_isotonic",
             label = "device gpu"))
}

corpus_cases <- function() {
  c(corpus_cases_isotonic(), corpus_cases_vjp(), corpus_cases_isoreg(),
    corpus_cases_calibrate(), corpus_cases_idr(), corpus_cases_misc())
}

# ---------------------------------------------------------------------------
# Running one case (in the child).

# Evaluate a case: list(outcome, detail). Outcomes: "classed_error",
# "checked" and "r_argument_error" (R's own matching rejected a misspelled
# argument of a function without `...`) pass; "wrong_*" and
# "unclassed_error" fail.
corpus_eval_case <- function(case) {
  env <- new.env(parent = globalenv())
  old_opts <- options()
  on.exit(options(old_opts), add = TRUE)
  prep_err <- tryCatch({ if (!is.null(case$prep)) eval(case$prep, env); NULL },
                       error = function(e) e)
  if (!is.null(prep_err)) {
    return(list(outcome = "wrong_prep_failed", detail = conditionMessage(prep_err)))
  }
  args <- if (isTRUE(case$raw)) case$args else
    lapply(case$args, function(a) if (is.language(a) && !inherits(a, "formula")) eval(a, env) else a)
  # a deep copy (a plain copy would share memory with the original), and
  # all.equal() without tolerance to compare: identical() would compare
  # formulas' environments by reference, and serialized bytes differ where
  # R expands a compact sequence in place
  before <- unserialize(serialize(args, NULL))
  warns <- character(0)
  fun <- if (grepl(":::", case$fun, fixed = TRUE)) eval(str2lang(case$fun)) else case$fun
  res <- withCallingHandlers(
    tryCatch({
      r <- NULL
      utils::capture.output(r <- if (isTRUE(case$raw)) do.call(fun, case$args, envir = env)
                                 else do.call(fun, args, quote = TRUE))
      r
    }, error = function(e) e),
    warning = function(w) {
      warns <<- c(warns, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  wnote <- if (length(warns)) paste0(" [warning: ", warns[1L], "]") else ""
  if (!isTRUE(all.equal(before, args, tolerance = 0))) {
    return(list(outcome = "wrong_input_modified", detail = "an argument was modified in place"))
  }
  if (inherits(res, "error")) {
    msg <- conditionMessage(res)
    if (inherits(res, "gpuiso_error")) {
      if (case$expect == "value" &&
          !(inherits(res, "gpuiso_error_overflow") && !isFALSE(corpus_true_overflow(case, args)))) {
        return(list(outcome = "wrong_spurious_error", detail = paste0(class(res)[1L], ": ", msg)))
      }
      if (inherits(res, "gpuiso_error_input") && case$expect == "error" &&
          !is.null(case$arg) && !grepl(case$arg, msg, fixed = TRUE)) {
        return(list(outcome = "wrong_message_without_arg",
                    detail = sprintf("does not name `%s`: %s", case$arg, msg)))
      }
      return(list(outcome = "classed_error", detail = paste0(class(res)[1L], ": ", msg, wnote)))
    }
    if (isTRUE(case$bogus) && grepl("unused argument", msg, fixed = TRUE)) {
      return(list(outcome = "r_argument_error", detail = msg))
    }
    return(list(outcome = "unclassed_error", detail = paste0(paste(class(res), collapse = "/"), ": ", msg)))
  }
  if (case$expect == "error") {
    return(list(outcome = "wrong_no_error", detail = paste0("returned ", corpus_describe(res), wnote)))
  }
  problems <- if (!is.null(case$check)) {
    tryCatch(do.call(case$check, list(res, args)),
             error = function(e) paste("the check failed:", conditionMessage(e)))
  } else character(0)
  if (length(problems)) {
    return(list(outcome = "wrong_result", detail = paste0(paste(problems, collapse = "; "), wnote)))
  }
  list(outcome = "checked", detail = wnote)
}

corpus_describe <- function(x) {
  s <- tryCatch(paste(utils::capture.output(utils::str(x, max.level = 1L, vec.len = 3L,
                                                         give.attr = FALSE))[1:2], collapse = " "),
                error = function(e) class(x)[1L])
  substr(gsub("\\s+", " ", s), 1L, 200L)
}

# ---------------------------------------------------------------------------
# Checks of results. Each returns the problems found (character(0): none).

.is_mono <- function(v, dec = FALSE) {
  v <- v[!is.na(v)]
  if (dec) !is.unsorted(rev(v)) else !is.unsorted(v)
}

# Plain numbers of a numeric argument as the functions read them (NULL when
# they are not plainly numbers: then only the generic checks run).
.plain <- function(v) {
  if (is.null(v) || is.data.frame(v) || is.list(v) || is.object(v) && !is.numeric(v)) return(NULL)
  if (!(is.numeric(v) || is.logical(v))) return(NULL)
  as.vector(v) + 0
}

# Exact comparison of an isotonic-type fit (values `f` of problems given as
# list(y, w, decreasing)) with the rational reference: the problems found.
.corpus_exact <- function(f, problems, what = "fit") {
  if (!exact_available() || !length(problems)) return(character(0))
  n <- sum(vapply(problems, function(p) length(p$y), 1L))
  if (n == 0L || n > 200L) return(character(0))
  ref <- .exact_iso_ref(problems)
  chk <- .exact_check(f, ref$z, ref$slack)
  if (all(chk$ok)) return(character(0))
  i <- which(!chk$ok)[1L]
  sprintf("%s element %d is %s, the exact value %s (%.3g ulp off)", what, i,
          format(f[i], digits = 17), format(as.double(ref$z[i]), digits = 17), chk$dev[i])
}

corpus_check_isotonic <- function(res, a) {
  y <- a[["y"]]
  out <- character(0)
  if (!is.double(res)) return("not a double vector")
  if (length(res) != length(y)) return(sprintf("length %d, not %d", length(res), length(y)))
  if (!identical(dim(res), dim(y))) out <- c(out, "not the shape of y")
  if (is.null(dim(y)) && !identical(names(res), names(y))) out <- c(out, "names lost")
  yv <- .plain(y)
  if (is.null(yv)) return(out)
  w <- a[["weights"]]
  wv <- if (!is.null(w)) .plain(w)
  if (is.matrix(y) && !is.null(wv) && length(wv) == nrow(y) && length(wv) != length(y)) {
    wv <- rep(wv, ncol(y))
  }
  na <- is.na(yv) | (if (!is.null(wv) && length(wv) == length(yv)) is.na(wv) else FALSE)
  if (!identical(is.na(as.vector(res)), na)) out <- c(out, "NA where the input is not, or not where it is")
  if (any(!is.finite(res[!na]))) out <- c(out, "non-finite values")
  # the problems
  id <- if (!is.null(a[["groups"]])) match(as.character(a[["groups"]]), unique(as.character(a[["groups"]])))
        else if (is.matrix(y)) as.vector(col(y)) else rep(1L, length(yv))
  dec <- a[["decreasing"]] %||% FALSE
  decs <- if (identical(dec, "auto")) attr(res, "decreasing") else rep(isTRUE(dec), max(id, 0L))
  lo <- if (is.numeric(a[["y_min"]]) && length(a[["y_min"]]) == 1L) a[["y_min"]] else -Inf
  hi <- if (is.numeric(a[["y_max"]]) && length(a[["y_max"]]) == 1L) a[["y_max"]] else Inf
  r <- as.vector(res)
  problems <- list()
  fex <- numeric(0)
  for (k in unique(id)) {
    i <- which(id == k & !na)
    if (!length(i)) next
    d <- isTRUE(decs[k])
    if (!.is_mono(r[i], d)) out <- c(out, sprintf("problem %d not monotone", k))
    rng <- c(min(max(min(yv[i]), lo), hi), max(min(max(yv[i]), hi), lo))
    if (any(r[i] < rng[1L] | r[i] > rng[2L])) out <- c(out, sprintf("problem %d outside [min y, max y]", k))
    if (identical(a[["precision"]], "single") || lo > -Inf || hi < Inf) next
    problems[[length(problems) + 1L]] <- list(y = yv[i], w = if (!is.null(wv)) wv[i], decreasing = d)
    fex <- c(fex, r[i])
  }
  if (!length(out)) out <- .corpus_exact(fex, problems)
  out
}

# An overflow error where a value was expected is right when the exact
# result is beyond double's range: for the backward pass, decided exactly.
corpus_true_overflow <- function(case, a) {
  # only exact arithmetic tells a true overflow from a spurious one: without
  # gmp (a suggested package), NA, and the classed error stands unjudged
  judged <- c("corpus_check_qscore", "corpus_check_idr", "corpus_check_vjp")
  if (!exact_available()) return(if (isTRUE(case$check %in% judged)) NA else FALSE)
  if (identical(case$check, "corpus_check_qscore")) {
    # 2 (1{q > y} - alpha)(q - y), exactly, beyond the largest double?
    q <- tryCatch(qpred(a[["predictions"]], a[["quantiles"]]), error = function(e) NULL)
    y <- a[["y"]]
    if (is.null(q) || !is.numeric(y)) return(FALSE)
    al <- matrix(a[["quantiles"]], nrow(q), ncol(q), byrow = TRUE)
    y <- matrix(y, nrow(q), ncol(q))
    ok <- is.finite(q) & is.finite(y)
    if (!any(ok)) return(FALSE)
    s <- .q(as.double((q[ok] > y[ok]))) - .q(al[ok])
    return(any(as.logical(abs(2 * s * (.q(q[ok]) - .q(y[ok]))) >= .q_beyond())))
  }
  if (identical(case$check, "corpus_check_idr")) {
    # the summed weight at a covariate value beyond the largest double
    x <- a[["X"]]
    w <- a[["weights"]]
    if (!is.numeric(x) || is.matrix(x) || !is.numeric(w) || length(w) != length(x)) return(FALSE)
    tot <- vapply(split(w, x), function(v) as.logical(sum(.q(v)) >= .q_beyond()), NA)
    return(any(tot))
  }
  if (!identical(case$check, "corpus_check_vjp")) return(FALSE)
  yv <- .plain(a[["y"]]); gv <- .plain(a[["grad"]])
  wv <- if (!is.null(a[["weights"]])) .plain(a[["weights"]])
  if (is.null(yv) || is.null(gv) || length(gv) != length(yv) || is.matrix(a[["y"]]) ||
      !is.null(a[["groups"]]) || (!is.null(wv) && length(wv) != length(yv))) return(FALSE)
  ref <- .exact_vjp_ref(list(list(y = yv, w = wv, decreasing = isTRUE(a[["decreasing"]]), grad = gv)))
  beyond <- .q_beyond()
  any(as.logical(abs(ref$dy) >= beyond)) || any(as.logical(abs(ref$dw) >= beyond))
}

corpus_check_vjp <- function(res, a) {
  if (!is.list(res) || !identical(names(res), c("y", "weights"))) return("not list(y, weights)")
  y <- a[["y"]]
  out <- character(0)
  for (el in c("y", "weights")) {
    v <- res[[el]]
    if (!is.double(v) || length(v) != length(y) || !identical(dim(v), dim(y))) {
      out <- c(out, sprintf("$%s not of the shape of y", el))
    }
  }
  if (length(out)) return(out)
  yv <- .plain(y); gv <- .plain(a[["grad"]]); wv <- if (!is.null(a[["weights"]])) .plain(a[["weights"]])
  if (is.null(yv) || is.null(gv) || length(gv) != length(yv)) return(out)
  if (is.matrix(y) && !is.null(wv) && length(wv) == nrow(y) && length(wv) != length(yv)) wv <- rep(wv, ncol(y))
  if (!is.null(a[["groups"]]) || is.matrix(y) || identical(a[["precision"]], "single") ||
      !exact_available() || length(yv) > 50L) {
    if (any(!is.finite(c(res$y, res$weights)))) out <- c(out, "non-finite gradients")
    return(out)
  }
  ref <- .exact_vjp_ref(list(list(y = yv, w = wv, decreasing = isTRUE(a[["decreasing"]]), grad = gv)))
  c1 <- .exact_check(as.vector(res$y), ref$dy, ref$slack_dy, ulps = 4)
  c2 <- .exact_check(as.vector(res$weights), ref$dw, ref$slack_dw, ulps = 4)
  if (any(c1$overflow | c2$overflow)) {
    return("returned values where the exact gradient is beyond double's range (an overflow error was expected)")
  }
  if (!all(c1$ok)) out <- c(out, sprintf("d/dy element %d is %s, the exact value %s", which(!c1$ok)[1L],
                                          format(res$y[which(!c1$ok)[1L]], digits = 17),
                                          format(as.double(ref$dy[which(!c1$ok)[1L]]), digits = 17)))
  if (!all(c2$ok)) out <- c(out, sprintf("d/dw element %d is %s, the exact value %s", which(!c2$ok)[1L],
                                          format(res$weights[which(!c2$ok)[1L]], digits = 17),
                                          format(as.double(ref$dw[which(!c2$ok)[1L]]), digits = 17)))
  out
}

corpus_check_isoreg <- function(res, a) {
  if (!inherits(res, "gpuiso_isoreg")) return("not a gpuiso_isoreg fit")
  out <- character(0)
  yf <- res$yf
  n <- length(res$y)
  if (length(yf) != n || length(res$x) != n) return("yf, x and y of different lengths")
  if (any(!is.finite(yf))) out <- c(out, "non-finite fitted values")
  if (!.is_mono(yf, isTRUE(res$decreasing))) out <- c(out, "yf not monotone")
  if (n && any(yf < min(res$y) | yf > max(res$y))) {
    if (is.null(res$y_min) && is.null(res$y_max)) out <- c(out, "yf outside [min y, max y]")
  }
  if (length(out) || !n || res$precision != "double" || !is.null(res$y_min) || !is.null(res$y_max) ||
      !exact_available()) return(out)
  p <- list(x = res$x, y = res$y, w = res$weights)
  ref <- .exact_pooled_ref(list(p), isTRUE(res$decreasing))
  chk <- .exact_check(yf, ref$z[ref$point], ref$slack[ref$point])
  if (!all(chk$ok)) {
    i <- which(!chk$ok)[1L]
    out <- c(out, sprintf("yf[%d] is %s, the exact value %s", i, format(yf[i], digits = 17),
                          format(as.double(ref$z[ref$point][i]), digits = 17)))
  }
  out
}

corpus_check_predict <- function(res, a) {
  fit <- a[["object"]]
  nd <- a[["newdata"]]
  if (is.null(nd)) return(if (length(res) == length(fit$y)) character(0) else "in-sample of the wrong length")
  if (is.data.frame(nd)) nd <- nd[[1L]]
  if (!is.double(res) || length(res) != length(nd)) return("not a double vector as long as newdata")
  t <- as.double(nd)
  out <- character(0)
  if (any(!is.na(res) & !is.finite(res))) out <- c(out, "non-finite predictions")
  if (any(is.na(t) & !is.na(res))) out <- c(out, "a value for a missing point")
  oob <- a[["out_of_bounds"]] %||% "clip"
  if (identical(oob, "clip") && any(!is.na(t) & is.na(res))) out <- c(out, "NA for a point present")
  ok <- !is.na(res)
  if (any(ok)) {
    r <- range(fit$yf)
    if (any(res[ok] < r[1L] | res[ok] > r[2L])) out <- c(out, "outside the range of the fit")
    o <- order(t[ok])
    if (!.is_mono(res[ok][o], isTRUE(fit$decreasing))) out <- c(out, "not monotone in newdata")
  }
  out
}

corpus_check_calibrate <- function(res, a) {
  if (!inherits(res, "gpuiso_calibration")) return("not a gpuiso_calibration")
  out <- character(0)
  for (cv in res$curves) {
    if (is.unsorted(cv$score, strictly = TRUE)) out <- c(out, "scores not strictly increasing")
    if (any(!is.finite(cv$value)) || any(cv$value < res$y_min | cv$value > res$y_max)) {
      out <- c(out, "values not in [y_min, y_max]")
    }
    if (!.is_mono(cv$value)) out <- c(out, "curve not monotone")
    if (any(!(cv$weight >= 0))) out <- c(out, "negative or missing weights")
  }
  if (length(out) || length(res$curves) != 1L || !exact_available() ||
      res$y_min > 0 || res$y_max < 1) return(out)
  d <- res$data
  if (length(d$scores) > 50L) return(out)
  p <- list(x = d$scores, y = as.double(d$outcomes), w = d$weights)
  ref <- .exact_pooled_ref(list(p), FALSE)
  v <- res$curves[[1L]]$value
  if (length(v) != length(ref$z)) return("the curve has the wrong number of points")
  chk <- .exact_check(v, ref$z, ref$slack)
  if (!all(chk$ok)) {
    i <- which(!chk$ok)[1L]
    out <- c(out, sprintf("curve value %d is %s, the exact value %s", i, format(v[i], digits = 17),
                          format(as.double(ref$z[i]), digits = 17)))
  }
  out
}

corpus_check_predict_cal <- function(res, a) {
  if (!is.double(res)) return("not a double vector")
  out <- character(0)
  if (any(!is.na(res) & (res < 0 | res > 1))) out <- c(out, "outside [0, 1]")
  nd <- a[["newdata"]]
  if (!is.null(nd) && !is.data.frame(nd) && is.null(a[["groups"]]) && length(res) != length(nd)) {
    out <- c(out, "not as long as newdata")
  }
  if (!is.null(nd) && is.numeric(nd) && is.null(a[["groups"]]) || !is.null(nd) && is.numeric(nd) && length(a[["groups"]]) == 1L) {
    ok <- !is.na(res) & !is.na(nd)
    if (!.is_mono(res[ok][order(nd[ok])])) out <- c(out, "not monotone in newdata")
    if (any(is.na(nd) & !is.na(res))) out <- c(out, "a value for a missing score")
  }
  out
}

corpus_check_reliability <- function(res, a) {
  # several forecasts (a data frame, list or matrix): one diagram each
  if (inherits(res, "gpuiso_reliability_set")) {
    f <- a[["forecasts"]]
    if (!is.list(f) || length(f) != length(res)) return("a set of the wrong length")
    return(unlist(lapply(seq_along(res), function(j)
      corpus_check_reliability(res[[j]], utils::modifyList(a, list(forecasts = f[[j]]))))))
  }
  if (!inherits(res, "gpuiso_reliability")) return("not a gpuiso_reliability")
  out <- character(0)
  cv <- res$curve
  if (any(!is.finite(cv$calibrated)) || any(cv$calibrated < 0 | cv$calibrated > 1)) out <- c(out, "curve outside [0, 1]")
  if (!.is_mono(cv$calibrated)) out <- c(out, "curve not monotone")
  s <- c(res$score, res$mcb, res$dsc, res$unc)
  if (any(!is.finite(s))) out <- c(out, "non-finite score components")
  else if (abs(res$score - (res$mcb - res$dsc + res$unc)) > 1e-12) out <- c(out, "score != MCB - DSC + UNC")
  if (any(s[c(2L, 3L)] < -1e-15)) out <- c(out, "negative MCB or DSC")
  if (length(out) || !exact_available() || nrow(cv) > 50L) return(out)
  p <- list(x = .plain(a[["forecasts"]]), y = .plain(a[["outcomes"]]), w = NULL)
  if (is.null(p$x) || is.null(p$y)) return(out)
  ref <- .exact_pooled_ref(list(p), FALSE)
  chk <- .exact_check(cv$calibrated, ref$z, ref$slack)
  if (!all(chk$ok)) out <- c(out, sprintf("curve value %d off the exact value", which(!chk$ok)[1L]))
  out
}

corpus_check_ece <- function(res, a) {
  if (!is.double(res) || length(res) != 1L || !is.finite(res) || res < 0 || res > 1) {
    return(sprintf("not a number in [0, 1]: %s", corpus_describe(res)))
  }
  character(0)
}

.idr_cdfs <- function(fit) {
  m <- length(fit$x)
  lapply(seq_along(fit$thresholds), function(k) {
    b <- seq.int(fit$ptr[k] + 1, length.out = fit$ptr[k + 1L] - fit$ptr[k])
    fit$value[b][findInterval(seq_len(m) - 1L, fit$start[b])]
  })
}

corpus_check_idr <- function(res, a) {
  if (inherits(res, "gpuiso_idr_po")) return(.check_idr_po(res))
  if (!inherits(res, "gpuiso_idr")) return("not a gpuiso_idr fit")
  out <- character(0)
  v <- .idr_cdfs(res)
  V <- do.call(rbind, v)
  if (any(!is.finite(V)) || any(V < 0 | V > 1)) return("CDF values not in [0, 1]")
  if (!all(vapply(v, .is_mono, NA, dec = TRUE))) out <- c(out, "CDF not non-increasing in x")
  if (!all(apply(V, 2L, .is_mono))) out <- c(out, "CDF not non-decreasing over thresholds")
  if (any(V[nrow(V), ] != 1)) out <- c(out, "CDF not 1 at the last threshold")
  if (any(!is.finite(res$weight))) out <- c(out, "non-finite `weight`")
  d <- res$data
  if (length(out) || !exact_available() || length(d$y) > 30L || !is.null(a[["thresholds"]])) return(out)
  p <- list(y = d$y, x = d$x, w = d$weights)
  ref <- .exact_idr_ref(list(p))
  if (!identical(ref$dims[[1L]], c(length(res$thresholds), length(res$x)))) return("thresholds or x not the distinct values")
  chk <- .exact_check(unlist(v), ref$z, ref$slack)
  if (!all(chk$ok)) out <- c(out, sprintf("CDF value %d is %s, the exact value %s", which(!chk$ok)[1L],
                                          format(unlist(v)[which(!chk$ok)[1L]], digits = 17),
                                          format(as.double(ref$z[which(!chk$ok)[1L]]), digits = 17)))
  out
}

# A fit on several covariates: its CDFs at the distinct points are CDFs, and
# under the componentwise order they fall where the covariates rise.
.check_idr_po <- function(res) {
  Fz <- cdf(predict(res, as.data.frame(res$z)), res$thresholds)
  if (any(!is.finite(Fz)) || any(Fz < 0 | Fz > 1)) return("CDF values not in [0, 1]")
  out <- character(0)
  if (any(diff(t(Fz)) < 0)) out <- c(out, "CDF not non-decreasing over thresholds")
  if (any(Fz[, ncol(Fz)] != 1)) out <- c(out, "CDF not 1 at the last threshold")
  if (!all(names(res$orders) == "comp")) return(out)
  Z <- sweep(res$z, 2L, ifelse(res$decreasing, -1, 1), `*`)
  for (i in seq_len(nrow(Z))) for (j in seq_len(nrow(Z))) {
    if (i != j && all(Z[i, ] <= Z[j, ]) && any(Fz[i, ] < Fz[j, ] - 1e-12))
      return(c(out, sprintf("CDF at point %d below the one at point %d above it", i, j)))
  }
  out
}

corpus_check_idr_pred <- function(res, a) {
  if (!inherits(res, "gpuiso_idr_pred")) return("not gpuiso_idr_pred")
  u <- unclass(res)
  out <- character(0)
  m <- length(u$fit$x)
  j <- u$j
  if (length(j) != length(u$x) || length(u$lambda) != length(u$x)) return("j, lambda and x of different lengths")
  ok <- !is.na(j)
  if (any(j[ok] < 0 | j[ok] >= m)) out <- c(out, "index j out of range")
  if (any(!is.finite(u$lambda[ok]) | u$lambda[ok] < 0 | u$lambda[ok] >= 1)) out <- c(out, "lambda not in [0, 1)")
  # linear interpolation: lambda = (x - x_j) / (x_{j+1} - x_j), computed
  # here on halves so that the differences cannot overflow
  kn <- u$fit$x
  lin <- which(ok & j + 2L <= m)
  if (length(lin) && identical(a[["interpolation"]], "linear")) {
    xl <- kn[j[lin] + 1L]; xr <- kn[j[lin] + 2L]; x <- u$x[lin]
    inside <- x > xl & x < xr
    lam <- (x / 2 - xl / 2) / (xr / 2 - xl / 2)
    bad <- inside & abs(u$lambda[lin] - lam) > 1e-12
    if (any(bad)) out <- c(out, sprintf("lambda %.17g at x = %.17g between %.17g and %.17g, not %.17g",
                                        u$lambda[lin][bad][1L], x[bad][1L], xl[bad][1L], xr[bad][1L], lam[bad][1L]))
  }
  # every evaluation must work on it
  ev <- tryCatch({
    cdf(res, c(0, 3)); qpred(res, 0.5); crps(res, 2); bscore(res, 2, 2); qscore(res, 0.5, 2)
    pit(res, rep(2, length(res)))
    NULL
  }, error = function(e) conditionMessage(e))
  if (!is.null(ev)) out <- c(out, paste("its evaluation failed:", ev))
  out
}

.pred_n <- function(a) {
  p <- a[["predictions"]] %||% a[[1L]]
  if (inherits(p, "gpuiso_idr")) length(predict(p)) else length(p)
}

corpus_check_cdf <- function(res, a) {
  if (!is.matrix(res) || !is.double(res)) return("not a double matrix")
  th <- a[["thresholds"]] %||% a[[2L]]
  out <- character(0)
  if (nrow(res) != .pred_n(a) || ncol(res) != length(th)) out <- c(out, "wrong dimensions")
  if (any(!is.na(res) & (res < 0 | res > 1))) out <- c(out, "outside [0, 1]")
  o <- order(th)
  if (ncol(res) && !all(apply(res[, o, drop = FALSE], 1L, .is_mono))) out <- c(out, "not monotone in the thresholds")
  out
}

corpus_check_qpred <- function(res, a) {
  if (!is.matrix(res) || !is.double(res)) return("not a double matrix")
  q <- a[["quantiles"]] %||% a[[2L]]
  out <- character(0)
  if (nrow(res) != .pred_n(a) || ncol(res) != length(q)) out <- c(out, "wrong dimensions")
  if (any(!is.na(res) & !is.finite(res))) out <- c(out, "non-finite quantiles")
  o <- order(q)
  if (ncol(res) && !all(apply(res[, o, drop = FALSE], 1L, .is_mono))) out <- c(out, "not monotone in the levels")
  out
}

corpus_check_crps <- function(res, a) {
  if (!is.double(res) || length(res) != .pred_n(a)) return("not a double vector, one per prediction")
  if (any(!is.na(res) & (!is.finite(res) | res < 0))) return("a CRPS that is negative or not finite")
  character(0)
}

corpus_check_pit <- function(res, a) {
  if (!is.double(res) || length(res) != .pred_n(a)) return("not a double vector, one per prediction")
  if (any(!is.na(res) & (res < 0 | res > 1))) return("PIT outside [0, 1]")
  character(0)
}

corpus_check_bscore <- function(res, a) {
  if (!is.matrix(res)) return("not a matrix")
  if (any(!is.na(res) & (res < 0 | res > 1))) return("Brier score outside [0, 1]")
  character(0)
}

corpus_check_qscore <- function(res, a) {
  if (!is.matrix(res)) return("not a matrix")
  if (any(!is.na(res) & (!is.finite(res) | res < 0))) return("quantile score negative or not finite")
  character(0)
}

corpus_check_hist <- function(res, a) {
  if (!inherits(res, "histogram")) return("not a histogram")
  character(0)
}

corpus_check_gpu_info <- function(res, a) {
  if (!inherits(res, "gpuiso_gpu_info") || !is.logical(res$available) || length(res$available) != 1L) {
    return("not a gpuiso_gpu_info")
  }
  character(0)
}

# Methods (print, summary, plot, fitted, ...): they returned; numbers they
# return are finite where the fit is.
corpus_check_method <- function(res, a) {
  if (is.numeric(res) && !is.object(res) && length(res) && any(is.nan(res))) return("NaN in the result")
  character(0)
}

# ---------------------------------------------------------------------------
# Running the corpus: one child R process per family, restarted after the
# case where one died.

corpus_child_script <- '
args <- commandArgs(TRUE)
cases_file <- args[[1L]]; out_file <- args[[2L]]; start <- as.integer(args[[3L]])
helpers <- args[[4L]]; lib <- args[[5L]]
.libPaths(c(lib, .libPaths()))
suppressPackageStartupMessages(library(gpuiso, lib.loc = lib))
options(gpuiso.threads = 2L, warn = 1)
for (h in c("helper-reference.R", "helper-exact.R", "helper-corpus.R")) source(file.path(helpers, h))
grDevices::pdf(NULL)
cases <- readRDS(cases_file)
con <- file(out_file, open = "a")
clean <- function(s) gsub("[\\t\\r\\n]+", " ", s)
for (i in seq.int(start, length(cases))) {
  cat("START\\t", i, "\\n", sep = "", file = con); flush(con)
  t0 <- proc.time()[[3L]]
  r <- corpus_eval_case(cases[[i]])
  cat("DONE\\t", i, "\\t", r$outcome, "\\t", clean(substr(r$detail, 1L, 500L)), "\\t",
      format(proc.time()[[3L]] - t0), "\\n", sep = "", file = con)
  flush(con)
}
close(con)
'

# Run `cases` (all of one family) in children; returns a data frame with
# one row per case: id, family, outcome, detail.
corpus_run_family <- function(cases, helpers, lib, timeout = 120) {
  dir <- tempfile("corpus")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  cf <- file.path(dir, "cases.rds")
  saveRDS(cases, cf)
  script <- file.path(dir, "child.R")
  writeLines(corpus_child_script, script)
  out <- file.path(dir, "out.txt")
  log <- file.path(dir, "log.txt")
  n <- length(cases)
  outcome <- rep(NA_character_, n)
  detail <- rep("", n)
  secs <- rep(NA_real_, n)
  start <- 1L
  rscript <- file.path(R.home("bin"), "Rscript")
  while (start <= n) {
    cmd <- paste(shQuote(rscript), "--vanilla", shQuote(script), shQuote(cf), shQuote(out),
                 start, shQuote(helpers), shQuote(lib))
    # a case that allocates without bound ends in its child (4 GB of
    # address space), not in the machine's OOM killer; not under
    # AddressSanitizer (make sanitize), whose shadow memory needs terabytes
    # of address space (ASan's allocator limits the child there)
    asan <- grepl("asan", Sys.getenv("LD_PRELOAD"), fixed = TRUE)
    if (!asan && nzchar(Sys.which("sh")) && .Platform$OS.type == "unix") {
      status <- suppressWarnings(system2("sh", c("-c", shQuote(paste("ulimit -v 4194304 2>/dev/null;", "exec", cmd))),
                                         stdout = log, stderr = log, timeout = timeout))
    } else {
      status <- suppressWarnings(system2(rscript, c("--vanilla", shQuote(script), shQuote(cf), shQuote(out),
                                                    start, shQuote(helpers), shQuote(lib)),
                                         stdout = log, stderr = log, timeout = timeout))
    }
    lines <- if (file.exists(out)) readLines(out, warn = FALSE) else character(0)
    f <- strsplit(lines, "\t", fixed = TRUE)
    for (x in f) {
      if (x[1L] == "DONE") {
        i <- as.integer(x[2L])
        outcome[i] <- x[3L]
        detail[i] <- if (length(x) >= 4L) x[4L] else ""
        secs[i] <- if (length(x) >= 5L) as.numeric(x[5L]) else NA_real_
      }
    }
    starts <- as.integer(vapply(f[vapply(f, `[`, "", 1L) == "START"], `[`, "", 2L))
    pending <- which(is.na(outcome))
    if (!length(pending)) break
    died <- intersect(starts, pending)
    tail <- paste(utils::tail(readLines(log, warn = FALSE), 6L), collapse = " | ")
    if (length(died)) {
      k <- min(died)
      outcome[k] <- if (identical(status, 124L)) "crash_timeout" else "crash"
      detail[k] <- sprintf("the child R process died (status %s): %s", format(status), tail)
      start <- k + 1L
    } else {
      # the child never reached a case: give up on the rest
      outcome[pending] <- "crash_child_failed"
      detail[pending] <- tail
      break
    }
  }
  data.frame(id = vapply(cases, `[[`, "", "id"), family = vapply(cases, `[[`, "", "family"),
             expect = vapply(cases, `[[`, "", "expect"),
             outcome = outcome, detail = detail, seconds = secs, stringsAsFactors = FALSE)
}

corpus_pass <- c("classed_error", "checked", "r_argument_error")

corpus_summary <- function(d) {
  sprintf(paste0("corpus: %d cases run, %d classed errors, %d checked results, ",
                 "%d R argument-matching errors, %d crashes, %d wrong results ",
                 "(%d unclassed errors)"),
          nrow(d), sum(d$outcome == "classed_error"), sum(d$outcome == "checked"),
          sum(d$outcome == "r_argument_error"), sum(grepl("^crash", d$outcome)),
          sum(!d$outcome %in% corpus_pass & !grepl("^crash", d$outcome)),
          sum(d$outcome == "unclassed_error"))
}

# For the runner's own test: a case that kills its R process.
corpus_selftest_crash <- function() tools::pskill(Sys.getpid(), tools::SIGKILL)

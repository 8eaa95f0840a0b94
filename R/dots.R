# No silent misreads: a method with `...` that uses none of it calls
# check_dots(...), and an argument it does not take is an error that names
# it (and the argument meant, when the spelling is close to one).

check_dots <- function(..., fn) {
  n <- ...length()
  if (n == 0L) return(invisible())
  caller <- sys.function(-1L)
  call <- sys.call(-1L)
  nm <- ...names()
  if (is.null(nm)) nm <- character(n)
  abort_unused(nm, setdiff(names(formals(caller)), "..."), fn, call)
}

# The same for methods that pass `...` to the graphics functions: names
# that are graphical parameters or arguments of plot.default() pass,
# anything else (and anything unnamed) is an error.
check_graphics_dots <- function(..., fn) {
  n <- ...length()
  if (n == 0L) return(invisible())
  nm <- ...names()
  if (is.null(nm)) nm <- character(n)
  bad <- !nzchar(nm) | !nm %in% graphics_args
  if (!any(bad)) return(invisible())
  caller <- sys.function(-1L)
  abort_unused(nm[bad], c(setdiff(names(formals(caller)), "..."), graphics_args),
               fn, sys.call(-1L))
}

abort_unused <- function(nm, known, fn, call) {
  named <- nm[nzchar(nm)]
  if (!length(named)) {
    abort_input(sprintf("`%s` takes no further unnamed arguments: %.0f %s not used.",
                        fn, length(nm), if (length(nm) == 1L) "was" else "were"),
                call)
  }
  hint <- closest_name(named[1L], known)
  abort_input(paste0(
    sprintf("%s %s not %s of `%s`.", paste0("`", named, "`", collapse = ", "),
            if (length(named) == 1L) "is" else "are",
            if (length(named) == 1L) "an argument" else "arguments", fn),
    if (!is.null(hint)) sprintf(" Did you mean `%s`?", hint)), call)
}

# The known name a misspelling most likely stands for: a former or peer
# spelling, a name it is a prefix of, or one within two edits.
closest_name <- function(name, known) {
  if (name %in% names(renamed_args) && renamed_args[[name]] %in% known) {
    return(renamed_args[[name]])
  }
  pre <- known[startsWith(known, name)]
  if (length(pre)) return(pre[1L])
  d <- utils::adist(name, known, ignore.case = TRUE)[1L, ]
  if (length(d) && min(d) <= 2L) return(known[which.min(d)])
  NULL
}

# Spellings that users of earlier versions and of peers reach for.
renamed_args <- c(extrapolate = "out_of_bounds", newx = "newdata",
                  newscores = "newdata", x_new = "newdata",
                  increasing = "decreasing", probs = "quantiles",
                  quantile = "quantiles", threshold = "thresholds")

# Graphical parameters (par()) and the arguments of plot.default() and
# title(), which plot methods pass on; not `type`, which every method sets
# for the lines it draws (passed on as well, it was base R's error
# "formal argument matched by multiple actual arguments").
graphics_args <- c(
  "adj", "ann", "ask", "bg", "bty", "cex", "cex.axis", "cex.lab", "cex.main",
  "cex.sub", "col", "col.axis", "col.lab", "col.main", "col.sub", "crt",
  "err", "family", "fg", "fig", "fin", "font", "font.axis", "font.lab",
  "font.main", "font.sub", "lab", "las", "lend", "lheight", "ljoin", "lmitre",
  "lty", "lwd", "mai", "mar", "mex", "mfcol", "mfg", "mfrow", "mgp", "mkh",
  "new", "oma", "omd", "omi", "page", "pch", "pin", "plt", "ps", "pty", "smo",
  "srt", "tck", "tcl", "usr", "xaxp", "xaxs", "xaxt", "xlog", "xpd", "yaxp",
  "yaxs", "yaxt", "ylbias", "ylog",
  "xlim", "ylim", "log", "main", "sub", "xlab", "ylab", "axes",
  "frame.plot", "panel.first", "panel.last", "asp", "xgap.axis", "ygap.axis")

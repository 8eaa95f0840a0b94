# Missing values in the modelling functions (idr(), iso_calibrate()), as
# lm() handles them: the rows of a data frame of the fit's variables pass
# through an na.action (na.omit by default, na.exclude, na.fail, na.pass;
# a function or its name), whose record is kept in the fit.

# Returns list(frame = the rows kept, na.action = the record, NULL if no row
# was dropped).
apply_na_action <- function(frame, na.action, call) {
  if (is.null(na.action)) na.action <- stats::na.omit
  if (is.character(na.action) && length(na.action) == 1L) {
    na.action <- tryCatch(match.fun(na.action), error = function(e) NULL)
  }
  if (!is.function(na.action)) {
    abort_input(paste0("`na.action` must be a function such as `na.omit`, ",
                       "`na.exclude` or `na.fail`, or the name of one."), call)
  }
  out <- tryCatch(na.action(frame), error = function(e) {
    abort_input(paste0("Missing values: ", conditionMessage(e)), call)
  })
  list(frame = out, na.action = attr(out, "na.action"))
}

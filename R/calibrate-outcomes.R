# Outcomes of calibration and reliability diagrams: 0/1, logical,
# probabilities, or a factor of two levels of which one is the event.

# The outcomes as numbers: a factor of two levels becomes 1 at the event
# level (`event_level` "second", as glm() takes the second level as the
# success, or "first", as yardstick and probably do) and 0 at the other;
# anything else is left to check_unit_interval(). NA stays NA.
# `several_hint`: what to say to a factor of more levels (NULL: nothing).
event_outcomes <- function(outcomes, event_level, call, several_hint = NULL) {
  if (!is.factor(outcomes)) return(outcomes)
  lev <- levels(outcomes)
  if (length(lev) != 2L) {
    abort_input(sprintf(paste0("`outcomes` must be a factor of two levels (the event and ",
                               "the other) here, not of %d%s."), length(lev),
                        if (length(lev) > 2L && !is.null(several_hint))
                          paste0("; ", several_hint) else ""), call, arg = "outcomes")
  }
  event <- if (event_level == "second") 2L else 1L
  as.numeric(unclass(outcomes) == event)
}

check_event_level <- function(event_level, call) {
  check_choice(event_level, c("second", "first"), "event_level", call)
}

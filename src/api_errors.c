/*
 * The one way out of the glue when something goes wrong: every error the C
 * code raises, and every interrupt it passes on, goes through R functions
 * of the package's namespace (R/conditions.R), which build the condition.
 *
 * gi_abort(kind, arg, pos, fmt, ...) raises an error of class
 * c("gpuiso_error_<kind>", "gpuiso_error", "error", "condition") through
 * abort_from_c(); gi_abort_interrupt() signals R's own `interrupt`
 * condition through interrupt_from_c(). Both free nothing: the caller has
 * released its C memory (or holds it under R_UnwindProtect) before.
 *
 * Interrupts: the core asks gi_interrupt_hook, set here at load, which
 * asks R. GPUISO_TEST_INTERRUPT=k (read by gi_begin_work()) makes the k-th
 * look of a call report an interrupt, so that tests need no signals.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "gpuiso.h"

static SEXP package_namespace(void)
{
  SEXP name = PROTECT(Rf_mkString("gpuiso"));
  SEXP ns = R_FindNamespace(name);
  UNPROTECT(1);
  return ns;
}

void gi_abort(const char *kind, const char *arg, R_xlen_t pos,
              const char *fmt, ...)
{
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);

  SEXP ns = PROTECT(package_namespace());
  SEXP call = PROTECT(Rf_lang5(Rf_install("abort_from_c"), Rf_mkString(kind),
                               Rf_mkString(msg),
                               arg != NULL ? Rf_mkString(arg) : R_NilValue,
                               Rf_ScalarReal(pos >= 1 ? (double) pos
                                                      : NA_REAL)));
  Rf_eval(call, ns);
  UNPROTECT(2);
  /* not reached: abort_from_c() always raises */
  Rf_error("%s", msg);
}

void gi_abort_interrupt(void)
{
  gi_stop_reset();
  SEXP ns = PROTECT(package_namespace());
  SEXP call = PROTECT(Rf_lang1(Rf_install("interrupt_from_c")));
  Rf_eval(call, ns);
  UNPROTECT(2);
  /* not reached: interrupt_from_c() jumps to a handler or to top level */
  Rf_error("interrupted");
}

/* ---- interrupts ---------------------------------------------------------- */

/* GPUISO_TEST_INTERRUPT: the look of this call that says "interrupted"
 * (0: none; -1: not read yet for this work); counted down by the hook. */
static long test_countdown = 0;

static void check_interrupt(void *unused)
{
  (void) unused;
  R_CheckUserInterrupt();
}

/* 1 when the user has interrupted: R_CheckUserInterrupt() run through
 * R_ToplevelExec(), whose jump stops there (and consumes R's pending
 * interrupt), so that the engine can free its memory first; any other jump
 * out of it (a time limit of setTimeLimit(), say) stops the work too. Once
 * it has said 1, the interrupt must be passed on (gi_check_stop()): R
 * knows of it no more. Called on the main thread only (the core asks on
 * OpenMP's master thread). */
static int interrupt_hook(void)
{
  if (test_countdown < 0) {
    /* read at the work's first poll, not in gi_begin_work(): getenv()
     * walks the environment, 3 % of a fit of one point */
    const char *k = getenv("GPUISO_TEST_INTERRUPT");
    test_countdown = (k != NULL && *k != '\0') ? strtol(k, NULL, 10) : 0;
    if (test_countdown < 0) test_countdown = 0;
  }
  if (test_countdown > 0 && --test_countdown == 0) return 1;
  return R_ToplevelExec(check_interrupt, NULL) == FALSE;
}

void gi_interrupts_init(void)
{
  gi_interrupt_hook = interrupt_hook;
}

void gi_begin_work(void)
{
  gi_stop_reset();
  test_countdown = -1; /* not read yet */
}

int gi_poll_now(void)
{
  return gi_interrupted(GI_POLL_WORK);
}

void gi_check_stop(void)
{
  if (gi_stop_requested()) gi_abort_interrupt();
}

/* ---- engine statuses ----------------------------------------------------- */

void gi_stop_vjp_status(gi_status status, gi_idx bad)
{
  if (status == GI_ERR_OVERFLOW)
    gi_abort("overflow", NULL, (R_xlen_t) bad + 1,
             "A gradient of problem %lld is beyond the range of doubles: "
             "its true value exceeds 1.8e308 in magnitude.", (long long) bad + 1);
  gi_stop_status(status, bad);
}

void gi_stop_status(gi_status status, gi_idx bad)
{
  long long p = (long long) bad + 1;
  switch (status) {
  case GI_OK:
    return;
  case GI_ERR_NOMEM:
    gi_abort("memory", NULL, (R_xlen_t) p,
             "Not enough memory for the isotonic fit (problem %lld).", p);
  case GI_ERR_ZERO_WEIGHT:
    gi_abort("input", "weights", (R_xlen_t) p,
             "`weights` must not all be zero within a problem: those of "
             "problem %lld are all zero.", p);
  case GI_ERR_OVERFLOW:
    gi_abort("overflow", NULL, (R_xlen_t) p,
             "A result for problem %lld is beyond the range of doubles.", p);
  case GI_ERR_INTERRUPT:
    gi_abort_interrupt();
  case GI_ERR_INVALID:
    gi_abort("input", "y", (R_xlen_t) p,
             "`y` must be finite: problem %lld holds a missing or infinite "
             "value.", p);
  }
  gi_internal_error("unknown engine status");
}

/* For the tests: the condition gi_stop_status() raises for a status and
 * a problem (0-based), or for an interrupt. */
SEXP ffi_stop_status(SEXP status, SEXP bad)
{
  gi_begin_work();
  gi_stop_status((gi_status) Rf_asInteger(status), (gi_idx) Rf_asReal(bad));
  return R_NilValue;
}

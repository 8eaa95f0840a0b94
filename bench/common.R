# Helpers shared by the benchmarks (bench/cpu.R, bench/calibration.R,
# bench/gpu/e2e.R, bench/gpu/profile.R):
# settings from the environment, the clock, timing a call, formatting, and
# what the machine is. A script sources it from its own folder:
#     bench_dir <- dirname(normalizePath(sub("^--file=", "", grep("^--file=",
#                          commandArgs(FALSE), value = TRUE))))
#     source(file.path(bench_dir, "common.R"))

# A number from the environment variable `name`, or `default` when unset.
env_num <- function(name, default) {
  v <- Sys.getenv(name, "")
  if (nzchar(v)) as.numeric(v) else default
}

# Seconds, with microsecond resolution (proc.time() has 1 ms).
now <- function() as.numeric(Sys.time())

# Minor page faults of this process so far (Linux: /proc/self/stat), NA elsewhere.
minor_faults <- function() {
  st <- tryCatch(readLines("/proc/self/stat", warn = FALSE), error = function(e) "", warning = function(w) "")
  # the fields after the command name, which is in parentheses and may hold spaces
  f <- strsplit(sub("^.*\\) ", "", st[1]), " ", fixed = TRUE)[[1]]
  if (length(f) < 8) NA_real_ else as.numeric(f[8])
}

# Median seconds per call of f(): list(t, out, reps, k, faults). A warm-up call
# (its result kept as `out`) sets k, the calls per repetition, so that a
# repetition lasts at least `min_rep` seconds; then up to `reps`
# repetitions, stopping once `budget` seconds are spent. One call slower
# than the budget is timed once. REPS, CELL_BUDGET_S and MIN_REP_S are the
# calling script's settings. `faults`: minor page faults per timed call (NA
# where the system does not say).
#
# In the loop each result stays bound until the next call has returned, as
# in `fit <- isotonic(y)`. A loop that drops every result at once lets R's
# collector free a whole run of them together at the top of the C
# library's heap, which then hands that memory back to the system, so that
# each later result faults in fresh pages: on the 2-core VM a result of
# 1e5 points then cost gpuiso about 190 page faults a call and a fifth of
# its time, and monotone, whose .C() makes two copies a call, 60-125
# (bench/page-faults-RESULTS.md). GPUISO_BENCH_DROP_RESULTS=1 times that
# loop instead.
DROP_RESULTS <- identical(Sys.getenv("GPUISO_BENCH_DROP_RESULTS"), "1")
time_call <- function(f, reps = REPS, budget = CELL_BUDGET_S, min_rep = MIN_REP_S) {
  gc(FALSE)
  t0 <- now(); out <- f(); t1 <- now() - t0
  if (t1 >= budget) return(list(t = t1, out = out, reps = 1L, k = 1L, faults = NA_real_))
  k <- if (t1 >= min_rep) 1L else as.integer(min(1e5, ceiling(min_rep / max(t1, 1e-7))))
  times <- numeric(0)
  spent <- t1
  faults <- 0
  for (r in seq_len(reps)) {
    if (k == 1L && t1 > 0.2) gc(FALSE)
    f0 <- minor_faults()
    t0 <- now()
    if (DROP_RESULTS) {
      for (i in seq_len(k)) f()
    } else {
      for (i in seq_len(k)) last <- f()
      last <- NULL
    }
    dt <- now() - t0
    faults <- faults + minor_faults() - f0
    times <- c(times, dt / k)
    spent <- spent + dt
    if (spent > budget) break
  }
  list(t = stats::median(times), out = out, reps = length(times), k = k,
       faults = faults / (length(times) * k))
}

# Wall-clock milliseconds of each of `reps` calls of f(), after one warm-up
# call: for calls that take long against the clock's resolution.
times_ms <- function(f, reps) {
  f()
  vapply(seq_len(reps), function(i) {
    t0 <- now()
    f()
    1e3 * (now() - t0)
  }, numeric(1))
}

# gpuiso's threads for the next calls; NA: the package's default.
set_threads <- function(k) options(gpuiso.threads = if (is.na(k)) NULL else as.integer(k))

# Seconds as "12.3 us", "4.56 ms" or "1.2 s"; a difference as "-", "0" or "1.2e-15".
fmt_t <- function(s) {
  if (is.na(s)) return("NA")
  if (s < 1e-3) sprintf("%.3g us", s * 1e6)
  else if (s < 1) sprintf("%.3g ms", s * 1e3)
  else sprintf("%.3g s", s)
}
fmt_d <- function(d) if (is.na(d)) "-" else if (d == 0) "0" else sprintf("%.1e", d)
# Page faults a call as "0.3" or "190"; "-" when unknown.
fmt_faults <- function(x) if (is.null(x) || is.na(x)) "-" else if (x < 10) sprintf("%.1f", x) else sprintf("%.0f", x)

# The load averages now, for the results' notes.
load_now <- function() {
  tryCatch(paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " "),
           error = function(e) "?")
}

# A field of lscpu's output ("Model name", ...), "?" when unknown.
lscpu <- tryCatch(system2("lscpu", stdout = TRUE, stderr = FALSE), error = function(e) character(0))
lsget <- function(key) {
  l <- grep(paste0("^", key, ":"), lscpu, value = TRUE)
  if (length(l)) trimws(sub("^[^:]*:", "", l[1])) else "?"
}

# isodistrreg (Python) on y and covariates X (a vector or data frame), timed in its own
# process by bench/idr_peer.py: its fit, then its CDFs at the thresholds `at` for the
# training points and for the points `new` (same columns as X). `kind`: "comp" (X as
# given: one column is the peer's total order), "sd" or "icx" (all columns one group).
# Returns list(fit_s, predict_s, version, train, new) with the CDFs as matrices, or
# list(error = message) when the run failed or ran past `timeout` seconds.
run_idr_peer <- function(python, y, X, new, at, kind = "comp", timeout = 600,
                         script = file.path(bench_dir, "idr_peer.py")) {
  dir <- tempfile("idr-peer")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  utils::write.csv(data.frame(y = y, X), file.path(dir, "train.csv"), row.names = FALSE)
  utils::write.csv(data.frame(new), file.path(dir, "new.csv"), row.names = FALSE)
  utils::write.csv(data.frame(at = at), file.path(dir, "at.csv"), row.names = FALSE)
  out <- suppressWarnings(system2(python, c(script, dir, kind), stdout = TRUE, stderr = TRUE,
                                  timeout = timeout))
  status <- attr(out, "status")
  if (!is.null(status)) {
    return(list(error = if (status == 124L) sprintf("stopped after %g s", timeout)
                        else paste("failed:", utils::tail(out, 1L))))
  }
  v <- strsplit(utils::tail(out, 1L), " ")[[1L]]
  cdfs <- as.matrix(utils::read.csv(file.path(dir, "peer.csv"), header = FALSE))
  n <- length(y)
  list(fit_s = as.numeric(v[1L]), predict_s = as.numeric(v[2L]), version = v[3L],
       train = cdfs[seq_len(n), , drop = FALSE], new = cdfs[-seq_len(n), , drop = FALSE])
}

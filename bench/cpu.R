# CPU benchmark: gpuiso::isotonic(device = "cpu") against the R peers.
#
# Run from the repository root, after `R CMD INSTALL .`:
#     Rscript bench/cpu.R
# Environment variables:
#     GPUISO_LIB           library that holds gpuiso (default: the normal library paths)
#     GPUISO_BENCH_MAX_N   largest n of the single-problem rows (default 1e7)
#     GPUISO_BENCH_REPS    multiplier for the number of repetitions (default 1)
#     GPUISO_BENCH_COMMIT  commit label for RESULTS.md (default: `git rev-parse --short HEAD` of this repo,
#                          flagged when R/, src/ or DESCRIPTION have uncommitted changes)
#     GPUISO_BENCH_STANDIN =1: time a stand-in (Iso::pava) instead of gpuiso (script development only)
# Peers: stats::isoreg, Iso::pava, fdrtool::monoreg and monotone::monotone (the latter from
# bench/.lib, see bench/install-peers.sh). Output: a markdown table on stdout and bench/RESULTS.md.
#
# Every cell is the median over several repetitions of the time of one call. Each repetition
# times a loop of k calls (k chosen so that a repetition lasts >= 20 ms) and divides by k, so
# the small sizes are not limited by the clock's resolution. Input generation and the
# agreement checks are not timed. All methods run in this one R process, on the same data.

suppressPackageStartupMessages({
  library(stats)
  library(utils)
})

## ---------------------------------------------------------------- set-up ----

args_file <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
bench_dir <- if (length(args_file) == 1L) dirname(normalizePath(args_file)) else normalizePath("bench")
repo_dir <- dirname(bench_dir)
source(file.path(bench_dir, "common.R"))
MAX_N <- env_num("GPUISO_BENCH_MAX_N", 1e7)
REPS_MULT <- env_num("GPUISO_BENCH_REPS", 1)
STANDIN <- identical(Sys.getenv("GPUISO_BENCH_STANDIN", ""), "1")

PEER_LIMIT_S <- 30     # skip a peer cell whose estimated single call exceeds this
ISOREG_LIMIT_S <- 10   # stats::isoreg: O(n^2) on increasing data; cap lower
CELL_BUDGET_S <- 8     # stop repeating a cell once this much time was spent on it (>= 1 rep)
MIN_REP_S <- 0.05      # each repetition lasts at least this long (k calls in a loop)

if (STANDIN) {
  standin_lib <- file.path(bench_dir, ".lib")
  use_monotone <- suppressWarnings(requireNamespace("monotone", lib.loc = standin_lib, quietly = TRUE))
  if (!use_monotone && !requireNamespace("Iso", quietly = TRUE)) stop("the stand-in needs monotone or Iso")
  fit1 <- if (use_monotone) function(y, w) if (is.null(w)) monotone::monotone(y) else monotone::monotone(y, w)
          else function(y, w) Iso::pava(y, w)
  gpuiso_label <- if (use_monotone) "STAND-IN (monotone)" else "STAND-IN (Iso::pava)"
  isotonic <- function(y, weights = NULL, ...) {
    if (is.matrix(y)) {
      out <- y
      for (j in seq_len(ncol(y))) out[, j] <- fit1(y[, j], weights)
      out
    } else fit1(y, weights)
  }
  gpuiso_version <- "stand-in"
  gpu_info_txt <- "stand-in"
} else {
  gpuiso_lib <- Sys.getenv("GPUISO_LIB", "")
  ok <- suppressWarnings(requireNamespace("gpuiso", quietly = TRUE,
                                          lib.loc = if (nzchar(gpuiso_lib)) c(gpuiso_lib, .libPaths()) else NULL))
  if (!ok) stop("gpuiso is not installed: run `R CMD INSTALL .` first (or set GPUISO_LIB),",
                " or GPUISO_BENCH_STANDIN=1 for a dry run")
  gpuiso_label <- "gpuiso"
  isotonic <- gpuiso::isotonic
  gpuiso_version <- as.character(utils::packageVersion("gpuiso", lib.loc = if (nzchar(gpuiso_lib)) c(gpuiso_lib, .libPaths()) else NULL))
  gi <- tryCatch(gpuiso::gpu_info(), error = function(e) NULL)
  gpu_info_txt <- if (is.null(gi)) "n/a" else {
    keep <- vapply(gi, function(v) is.atomic(v) && length(v) == 1L, logical(1))
    paste(sprintf("%s=%s", names(gi)[keep], vapply(gi[keep], as.character, "")), collapse = ", ")
  }
}

has_iso <- requireNamespace("Iso", quietly = TRUE)
has_fdrtool <- requireNamespace("fdrtool", quietly = TRUE)
peer_lib <- file.path(bench_dir, ".lib")
has_monotone <- dir.exists(peer_lib) &&
  suppressWarnings(requireNamespace("monotone", lib.loc = peer_lib, quietly = TRUE))

## ---------------------------------------------------------------- methods ----
# Each method: f(y, w) with w NULL for unweighted problems; returns the fitted vector.
# `weighted`: whether the method takes weights (cells of weighted rows are n/a otherwise).

methods <- list(
  gpuiso_1t = list(label = paste(gpuiso_label, "1 thr"), gpu = TRUE, weighted = TRUE, threads = 1L,
                   f = function(y, w) isotonic(y, w, device = "cpu")),
  gpuiso_2t = list(label = paste(gpuiso_label, "2 thr"), gpu = TRUE, weighted = TRUE, threads = 2L,
                   f = function(y, w) isotonic(y, w, device = "cpu")),
  isoreg = list(label = "stats::isoreg", gpu = FALSE, weighted = FALSE, limit = ISOREG_LIMIT_S,
                f = function(y, w) stats::isoreg(y)$yf),
  pava = if (has_iso) list(label = "Iso::pava", gpu = FALSE, weighted = TRUE, limit = PEER_LIMIT_S,
                           f = function(y, w) Iso::pava(y, w)),
  monoreg = if (has_fdrtool) list(label = "fdrtool::monoreg", gpu = FALSE, weighted = TRUE, limit = PEER_LIMIT_S,
                                  f = function(y, w) {
                                    if (is.null(w)) fdrtool::monoreg(x = seq_along(y), y = y)$yf
                                    else fdrtool::monoreg(x = seq_along(y), y = y, w = w)$yf
                                  }),
  monotone = if (has_monotone) list(label = "monotone::monotone", gpu = FALSE, weighted = TRUE, limit = PEER_LIMIT_S,
                                    f = function(y, w) {
                                      if (is.null(w)) monotone::monotone(y) else monotone::monotone(y, w)
                                    })
)
methods <- methods[!vapply(methods, is.null, logical(1))]
peer_ids <- names(methods)[!vapply(methods, `[[`, logical(1), "gpu")]

## ---------------------------------------------------------------- timing ----


# Extrapolate one call's time to size n from measured points (data.frame(n, t)): power law
# through the two largest points (exponent at least min_p), or default_p if there is only one.
extrapolate <- function(pts, n, default_p, min_p = 1) {
  if (is.null(pts) || !nrow(pts)) return(0)
  pts <- pts[order(pts$n), , drop = FALSE]
  last <- pts[nrow(pts), ]
  p <- default_p
  if (nrow(pts) >= 2L) {
    prev <- pts[nrow(pts) - 1L, ]
    if (prev$t > 1e-3) p <- log(last$t / prev$t) / log(last$n / prev$n)
  }
  last$t * (n / last$n)^max(p, min_p)
}

# Estimated time of one call of a peer at size n: uses the cells measured at smaller n in the
# same case, plus single-call probes on prefixes of the data at n/1000, n/100, n/10 (unless a
# probe itself is predicted to exceed the limit). Some peers are O(n^2) (Iso::pava on noisy
# data, stats::isoreg on increasing data), so a probe close to n is needed.
probe_estimate <- function(hist, n, limit, probe, min_p = 1) {
  pts <- if (is.null(hist)) data.frame(n = numeric(0), t = numeric(0)) else hist[hist$n < n, , drop = FALSE]
  ladder <- n / 10^(3:1)
  ladder <- ladder[ladder >= 1000 & !(ladder %in% pts$n)]
  for (m in ladder) {
    if (extrapolate(pts, m, default_p = 2, min_p = min_p) > limit) break
    pts <- rbind(pts, data.frame(n = m, t = probe(m)))
  }
  extrapolate(pts, n, default_p = 2, min_p = min_p)
}

reps_for <- function(n) max(1L, as.integer(round(REPS_MULT * if (n <= 1e3) 15 else if (n <= 1e5) 11 else if (n <= 1e6) 7 else 5)))

maxdiff <- function(a, b) {
  a <- as.numeric(a); b <- as.numeric(b)
  if (length(a) != length(b)) return(Inf)
  max(abs(a - b))
}

fmt_n <- function(n) if (n >= 1e3 && log10(n) == round(log10(n))) sprintf("1e%d", as.integer(log10(n))) else format(n, big.mark = ",")

## ---------------------------------------------------------------- data ----

gen <- function(case, n) {
  set.seed(20240101 + n)
  switch(case,
    noisy = list(y = seq(0, 3, length.out = n) + rnorm(n), w = NULL),
    increasing = list(y = seq(0, 3, length.out = n), w = NULL),
    weighted = list(y = seq(0, 3, length.out = n) + rnorm(n), w = exp(runif(n, 0, 8))))
}

case_label <- c(noisy = "(a) noisy", increasing = "(b) increasing", weighted = "(c) weighted noisy",
                batch = "(d) batch 10,000 x 1,000")

sizes <- c(1e3, 1e5, 1e6, 1e7)
sizes <- sizes[sizes <= MAX_N]

rows <- list()
history <- list()   # history[[method]][[case]]: data.frame(n, t) of measured cells
skipped <- list()   # skipped[[method]][[case]]: note, once a size was skipped

cat(sprintf("gpuiso CPU benchmark (%s); peers: %s\n", gpuiso_label,
            paste(vapply(methods[peer_ids], `[[`, "", "label"), collapse = ", ")))
if (!has_monotone) cat("note: monotone not found in bench/.lib (see bench/install-peers.sh); column omitted\n")

run_row <- function(case, n, y, w, est_fun, apply_fun = identity) {
  cells <- list()
  ref <- NULL
  for (id in names(methods)) {
    m <- methods[[id]]
    cell <- list(t = NA_real_, note = NULL, diff = NA_real_)
    if (!m$weighted && !is.null(w)) {
      cell$note <- "n/a (no weights)"
    } else if (!is.null(skipped[[id]][[case]])) {
      cell$note <- skipped[[id]][[case]]
    } else {
      est <- if (m$gpu) 0 else est_fun(id, m)
      if (!m$gpu && est > m$limit) {
        cell$note <- if (id == "isoreg" && case == "increasing") "skipped (O(n^2))" else sprintf("skipped (est. %.0f s)", est)
        skipped[[id]][[case]] <<- cell$note
      } else {
        if (!is.null(m$threads)) set_threads(m$threads)
        r <- time_call(function() apply_fun(m$f(y, w)), reps_for(n))
        cell$t <- r$t; cell$reps <- r$reps
        if (is.null(ref)) { ref <- r$out; cell$diff <- 0 } else cell$diff <- maxdiff(r$out, ref)
        history[[id]][[case]] <<- rbind(history[[id]][[case]], data.frame(n = n, t = r$t))
      }
    }
    cells[[id]] <- cell
    cat(sprintf("  %-22s %-20s n=%-5s %s%s\n", case_label[[case]], m$label, fmt_n(n),
                if (is.null(cell$note)) fmt_t(cell$t) else cell$note,
                if (!is.na(cell$diff) && cell$diff > 0) sprintf("  (max|diff| %.1e)", cell$diff) else ""))
    flush.console()
  }
  list(case = case, n = n, cells = cells)
}

load_start <- load_now()
t_start <- now()
for (case in c("noisy", "increasing", "weighted")) {
  for (n in sizes) {
    d <- gen(case, n)
    est_fun <- function(id, m) probe_estimate(
      history[[id]][[case]], n, m$limit,
      probe = function(k) time_call(function() m$f(d$y[seq_len(k)], if (is.null(d$w)) NULL else d$w[seq_len(k)]), 1L)$t,
      min_p = if (id == "isoreg" && case == "increasing") 2 else 1)
    rows[[length(rows) + 1L]] <- run_row(case, n, d$y, d$w, est_fun)
    rm(d); invisible(gc(FALSE))
  }
}

## batch: gpuiso gets the matrix in one call, the peers loop over the columns
nb <- 1000L; mb <- 10000L
set.seed(7)
Yb <- matrix(seq(0, 3, length.out = nb), nb, mb) + matrix(rnorm(nb * mb), nb, mb)
make_loop <- function(f1) { force(f1); function(y, w) {
  out <- y
  for (j in seq_len(ncol(y))) out[, j] <- f1(y[, j], NULL)
  out
} }
batch_methods <- methods
for (id in peer_ids) batch_methods[[id]]$f <- make_loop(methods[[id]]$f)
saved_methods <- methods
methods <- batch_methods
# estimate for the column loops: time on the first 1% of the columns, times 100
batch_est <- function(id, m) 100 * time_call(function() m$f(Yb[, seq_len(mb / 100)], NULL), 1L)$t
rows[[length(rows) + 1L]] <- run_row("batch", nb * mb, Yb, NULL, batch_est)
methods <- saved_methods
rm(Yb); invisible(gc(FALSE))
t_total <- now() - t_start

## ---------------------------------------------------------------- report ----

cell_txt <- function(c) if (!is.null(c$note)) c$note else paste0(fmt_t(c$t), if (c$reps == 1L) " (1 run)" else "")

hdr <- c("case", "n", vapply(methods, `[[`, "", "label"), "fastest peer", "speedup (1 thr)", "max abs diff vs gpuiso")
tab <- c(paste("|", paste(hdr, collapse = " | "), "|"),
         paste("|", paste(c("---", "---:", rep("---:", length(methods)), "---", "---:", "---:"), collapse = " | "), "|"))
not_fastest <- character(0)
for (r in rows) {
  pt <- vapply(peer_ids, function(id) r$cells[[id]]$t, 0)
  best <- if (all(is.na(pt))) NA_integer_ else which.min(pt)
  g1 <- r$cells$gpuiso_1t$t; g2 <- r$cells$gpuiso_2t$t
  sp <- if (is.na(best)) NA else pt[[best]] / g1
  dmax <- suppressWarnings(max(vapply(c("gpuiso_2t", peer_ids), function(id) r$cells[[id]]$diff, 0), na.rm = TRUE))
  nlab <- if (r$case == "batch") "1e3 x 1e4" else fmt_n(r$n)
  sp_txt <- if (is.na(sp)) "-" else sprintf("%.1fx", sp)
  if (!is.na(sp) && sp < 1) sp_txt <- paste0("**", sp_txt, "**")
  tab <- c(tab, paste("|", paste(c(case_label[[r$case]], nlab, vapply(r$cells, cell_txt, ""),
                                   if (is.na(best)) "-" else methods[[peer_ids[best]]]$label,
                                   sp_txt, fmt_d(dmax)), collapse = " | "), "|"))
  if (!is.na(best)) {
    for (g in c("gpuiso_1t", "gpuiso_2t")) {
      gt <- r$cells[[g]]$t
      if (!is.na(gt) && pt[[best]] <= gt)
        not_fastest <- c(not_fastest, sprintf("%s, n = %s: %s %s vs %s %s", case_label[[r$case]], nlab,
                                              methods[[g]]$label, fmt_t(gt), methods[[peer_ids[best]]]$label,
                                              fmt_t(pt[[best]])))
    }
  }
}

## per-peer agreement table
agr <- c(paste("|", paste(c("case", "n", paste(vapply(methods[c("gpuiso_2t", peer_ids)], `[[`, "", "label"))),
                         collapse = " | "), "|"),
         paste("|", paste(c("---", "---:", rep("---:", 1 + length(peer_ids))), collapse = " | "), "|"))
for (r in rows) {
  nlab <- if (r$case == "batch") "1e3 x 1e4" else fmt_n(r$n)
  agr <- c(agr, paste("|", paste(c(case_label[[r$case]], nlab,
                                   vapply(c("gpuiso_2t", peer_ids), function(id) {
                                     c <- r$cells[[id]]; if (!is.null(c$note)) "-" else fmt_d(c$diff)
                                   }, "")), collapse = " | "), "|"))
}

## ns/element and targets
find_row <- function(case, n) Filter(function(r) r$case == case && r$n == n, rows)[[1L]]
ns_lines <- character(0)
for (case in c("noisy", "increasing", "weighted")) {
  if (max(sizes) < 1e7) break
  r <- find_row(case, 1e7)
  ns_lines <- c(ns_lines, sprintf("- %s, n = 1e7: %.2f ns/element (1 thread), %.2f ns/element (2 threads)",
                                  case_label[[case]], r$cells$gpuiso_1t$t / 1e7 * 1e9, r$cells$gpuiso_2t$t / 1e7 * 1e9))
}
rb <- rows[[length(rows)]]
ns_lines <- c(ns_lines, sprintf("- %s: %s (1 thread), %s (2 threads); %.2f ns/element (2 threads)",
                                case_label[["batch"]], fmt_t(rb$cells$gpuiso_1t$t), fmt_t(rb$cells$gpuiso_2t$t),
                                rb$cells$gpuiso_2t$t / (nb * mb) * 1e9))

all_diffs <- unlist(lapply(rows, function(r) vapply(r$cells, function(c) c$diff, 0)))
max_all <- max(all_diffs, na.rm = TRUE)
tgt <- c(
  sprintf("- faster than every peer on every row: %s",
          if (length(not_fastest)) sprintf("NO (%d cells, see below)", length(not_fastest)) else "yes (both thread counts)"),
  if (max(sizes) >= 1e7) {
    v <- find_row("noisy", 1e7)$cells$gpuiso_1t$t / 1e7 * 1e9
    sprintf("- <= 5 ns/element at 1e7 noisy, 1 thread: %.2f ns -> %s", v, if (v <= 5) "met" else "NOT met")
  },
  sprintf("- batch <= 50 ms on 2 threads: %s -> %s", fmt_t(rb$cells$gpuiso_2t$t),
          if (rb$cells$gpuiso_2t$t <= 0.05) "met" else "NOT met"),
  sprintf("- all outputs agree: max abs diff over all cells %s -> %s", fmt_d(max_all),
          if (max_all <= 1e-8) "yes" else "NO"))

## machine
mem_gb <- tryCatch({
  l <- grep("^MemTotal:", readLines("/proc/meminfo"), value = TRUE)
  sprintf("%.0f GiB", as.numeric(gsub("[^0-9]", "", l)) / 2^20)
}, error = function(e) "?")
commit <- tryCatch(system2("git", c("-C", shQuote(repo_dir), "rev-parse", "--short", "HEAD"), stdout = TRUE, stderr = FALSE),
                   error = function(e) character(0), warning = function(w) character(0))
if (!length(commit)) commit <- "unknown (no commit)"
if (nzchar(Sys.getenv("GPUISO_BENCH_COMMIT"))) commit <- Sys.getenv("GPUISO_BENCH_COMMIT")
dirty <- tryCatch(length(system2("git", c("-C", shQuote(repo_dir), "status", "--porcelain", "--", "R", "src", "DESCRIPTION"),
                                 stdout = TRUE, stderr = FALSE)) > 0, error = function(e) NA, warning = function(w) NA)
if (isTRUE(dirty) && !nzchar(Sys.getenv("GPUISO_BENCH_COMMIT"))) commit <- paste(commit, "(R/, src/ or DESCRIPTION have uncommitted changes)")

info <- c(
  sprintf("- date: %s", format(Sys.time(), "%Y-%m-%d %H:%M %Z")),
  sprintf("- machine: %s; %s CPU(s) (%s core(s)/socket, %s thread(s)/core, %s socket(s)); %s RAM",
          lsget("Model name"), lsget("CPU\\(s\\)"), lsget("Core\\(s\\) per socket"), lsget("Thread\\(s\\) per core"),
          lsget("Socket\\(s\\)"), mem_gb),
  sprintf("- load average at start / end (other processes on the machine): %s / %s", load_start, load_now()),
  sprintf("- %s", R.version.string),
  sprintf("- gpuiso %s, commit %s; gpu_info(): %s", gpuiso_version, commit, gpu_info_txt),
  sprintf("- peers: %s", paste(vapply(peer_ids, function(id) {
    pkg <- switch(id, isoreg = "stats", pava = "Iso", monoreg = "fdrtool", monotone = "monotone")
    v <- tryCatch(as.character(utils::packageVersion(pkg, lib.loc = c(peer_lib, .libPaths()))), error = function(e) "?")
    sprintf("%s %s", methods[[id]]$label, v)
  }, ""), collapse = ", ")),
  sprintf("- total benchmark wall time: %.0f s", t_total))

md <- c(
  "# gpuiso CPU benchmark",
  "",
  if (STANDIN) c(sprintf("**DRY RUN: the gpuiso columns time a %s, not gpuiso.**", gpuiso_label), ""),
  "Generated by `Rscript bench/cpu.R` (do not edit by hand).",
  "",
  info,
  "",
  "Median time of one call (each repetition loops k calls to last >= 50 ms; 15/11/7/5 repetitions at",
  "n = 1e3/1e5/1e6/1e7, at most ~8 s of repetitions per cell). All methods run in one R process on the same",
  "data. gpuiso: `isotonic(y, w, device = \"cpu\")` with `options(gpuiso.threads = 1 or 2)`.",
  "Data: (a) `seq(0, 3, length.out = n) + rnorm(n)`; (b) `seq(0, 3, length.out = n)` (strictly increasing);",
  "(c) as (a) with weights `exp(runif(n, 0, 8))`; (d) 10,000 columns of 1,000 points as in (a), gpuiso in",
  "one call on the 1000 x 10000 matrix, the peers in a loop over the columns. stats::isoreg takes no weights.",
  "A peer cell is skipped when one call, extrapolated (power law) from the smaller sizes and from one-call probes on",
  "prefixes of n/1000, n/100, n/10 points, would take over 30 s (10 s for stats::isoreg, O(n^2) on increasing data;
Iso::pava is O(n^2) on noisy data). speedup = fastest peer / gpuiso 1 thread (bold if < 1).",
  "",
  tab,
  "",
  "## gpuiso throughput",
  "",
  ns_lines,
  "",
  "## Targets",
  "",
  tgt,
  if (length(not_fastest)) c("", "Cells where a peer is at least as fast as gpuiso:", "", paste("-", not_fastest)),
  "",
  "## Agreement (max abs difference from gpuiso 1 thread)",
  "",
  agr,
  "")

cat("\n", paste(md, collapse = "\n"), "\n", sep = "")
writeLines(md, file.path(bench_dir, "RESULTS.md"))
cat(sprintf("\nwrote %s\n", file.path(bench_dir, "RESULTS.md")))

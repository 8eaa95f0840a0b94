# CPU benchmark: gpuiso::isotonic(device = "cpu") against the R peers.
#
# Run from the repository root, after `R CMD INSTALL .`:
#     Rscript bench/cpu.R
# Environment variables:
#     GPUISO_LIB           library that holds gpuiso (default: the normal library paths)
#     GPUISO_BENCH_MAX_N   largest n of the single-problem rows (default 1e8 where the machine has
#                          >= 24 GiB of RAM (MemTotal rounded to whole GiB), else 1e7; set explicitly,
#                          it is used whatever the RAM)
#     GPUISO_BENCH_REPS    multiplier for the number of repetitions (default 1)
#     GPUISO_BENCH_ALL_THREADS  threads of the "all threads" column (default: the processors, `procs`
#                          of gpuiso's build info, i.e. omp_get_num_procs(), else parallel::detectCores())
#     GPUISO_BENCH_PEERS   which peers: "all" (default), "none", or a comma-separated subset of
#                          isoreg,pava,monoreg,monotone (for quick runs; the full results use all)
#     GPUISO_BENCH_OUT     the markdown file to write (default bench/RESULTS.md; e.g.
#                          bench/RESULTS-gpu-host.md for the CPU of the GPU host)
#     GPUISO_BENCH_COMMIT  commit label for the results (default: `git rev-parse --short HEAD` of this repo,
#                          flagged when R/, src/ or DESCRIPTION have uncommitted changes)
#     GPUISO_BENCH_STANDIN =1: time a stand-in (Iso::pava) instead of gpuiso (script development only)
#     GPUISO_BENCH_WARMUP_S  seconds each method runs untimed before the first cell (default 0.3)
#     GPUISO_BENCH_DROP_RESULTS =1: the timing loop drops each result at once instead of keeping it
#                          bound until the next call returns (see time_call() in bench/common.R)
# Peers: stats::isoreg, Iso::pava, fdrtool::monoreg and monotone::monotone (the latter from
# bench/.lib, see bench/install-peers.sh). Output: a markdown table on stdout and GPUISO_BENCH_OUT.
#
# gpuiso has three columns: options(gpuiso.threads = 1), 2, and all the machine's processors. Where
# "all" is 2 (or 1), that column repeats the 2-thread (1-thread) measurement instead of timing it
# again, and says so. The 2-thread and all-thread fits must be bit-identical (identical()) to the
# 1-thread fit; the script prints "NOT bit-identical" where they are not.
#
# Every cell is the median over several repetitions of the time of one call. Each repetition
# times a loop of k calls (k chosen so that a repetition lasts >= 50 ms) and divides by k, so
# the small sizes are not limited by the clock's resolution. Input generation and the
# agreement checks are not timed. All methods run in this one R process, on the same data.
# At n = 1e8 (800 MB a vector) the data are made without extra copies and each fit is dropped
# (and gc() run) once compared with the 1-thread fit.

suppressPackageStartupMessages({
  library(stats)
  library(utils)
})

## ---------------------------------------------------------------- set-up ----

args_file <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
bench_dir <- if (length(args_file) == 1L) dirname(normalizePath(args_file)) else normalizePath("bench")
repo_dir <- dirname(bench_dir)
source(file.path(bench_dir, "common.R"))
# MemTotal in GiB, NA when unknown.
ram_gib <- tryCatch({
  l <- grep("^MemTotal:", readLines("/proc/meminfo"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", l)) / 2^20
}, error = function(e) NA_real_)
BIG_RAM <- !is.na(ram_gib) && round(ram_gib) >= 24
MAX_N_SET <- nzchar(Sys.getenv("GPUISO_BENCH_MAX_N", ""))
MAX_N <- env_num("GPUISO_BENCH_MAX_N", if (BIG_RAM) 1e8 else 1e7)
REPS_MULT <- env_num("GPUISO_BENCH_REPS", 1)
STANDIN <- identical(Sys.getenv("GPUISO_BENCH_STANDIN", ""), "1")
OUT_FILE <- Sys.getenv("GPUISO_BENCH_OUT", file.path(bench_dir, "RESULTS.md"))
PEERS <- trimws(strsplit(Sys.getenv("GPUISO_BENCH_PEERS", "all"), ",")[[1]])
known_peers <- c("isoreg", "pava", "monoreg", "monotone")
PEERS <- if (identical(PEERS, "all")) known_peers else if (identical(PEERS, "none")) character(0) else PEERS
if (length(bad <- setdiff(PEERS, known_peers)))
  stop("GPUISO_BENCH_PEERS: unknown peer(s) ", paste(bad, collapse = ", "),
       "; use all, none or a subset of ", paste(known_peers, collapse = ","))

PEER_LIMIT_S <- 30     # skip a peer cell whose estimated single call exceeds this
ISOREG_LIMIT_S <- 10   # stats::isoreg: O(n^2) on increasing data; cap lower
CELL_BUDGET_S <- 8     # stop repeating a cell once this much time was spent on it (>= 1 rep)
BIG_BUDGET_S <- 150    # the same for gpuiso's cells at n >= 1e8, so that they get all 3 repetitions
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

# The machine's processors, and the threads of the "all threads" column.
procs <- if (STANDIN) NA_integer_ else tryCatch(as.integer(.Call(gpuiso:::ffi_build_info)$procs),
                                                error = function(e) NA_integer_)
procs_src <- "procs of gpuiso's build info (omp_get_num_procs())"
if (length(procs) != 1L || is.na(procs) || procs < 1L) {
  procs <- parallel::detectCores()
  procs_src <- "parallel::detectCores()"
}
ALL_THREADS <- as.integer(env_num("GPUISO_BENCH_ALL_THREADS", procs))
if (is.na(ALL_THREADS) || ALL_THREADS < 1L) stop("GPUISO_BENCH_ALL_THREADS must be a positive whole number")
all_src <- if (nzchar(Sys.getenv("GPUISO_BENCH_ALL_THREADS"))) "GPUISO_BENCH_ALL_THREADS" else procs_src
# The threads gpu_info() says the engine will use for a request of k.
eff_threads <- function(k) {
  if (STANDIN) return(NA_integer_)
  old <- options(gpuiso.threads = as.integer(k)); on.exit(options(old))
  tryCatch(gpuiso::gpu_info()$threads, error = function(e) NA_integer_)
}
default_threads_opt <- getOption("gpuiso.threads")

# the peers from bench/.lib (bench/install-peers.sh) or the library paths
peer_lib <- file.path(bench_dir, ".lib")
has_peer <- function(pkg) suppressWarnings(requireNamespace(
  pkg, lib.loc = c(if (dir.exists(peer_lib)) peer_lib, .libPaths()), quietly = TRUE))
has_iso <- has_peer("Iso")
has_fdrtool <- has_peer("fdrtool")
has_monotone <- dir.exists(peer_lib) &&
  suppressWarnings(requireNamespace("monotone", lib.loc = peer_lib, quietly = TRUE))

## ---------------------------------------------------------------- methods ----
# Each method: f(y, w) with w NULL for unweighted problems; returns the fitted vector.
# `weighted`: whether the method takes weights (cells of weighted rows are n/a otherwise).

# gpuiso's columns; `same_as`: a column with the same threads, whose measurement this one repeats.
gpuiso_col <- function(k, label, same_as = NULL)
  list(label = label, gpu = TRUE, weighted = TRUE, threads = as.integer(k), same_as = same_as,
       f = function(y, w) isotonic(y, w, device = "cpu"))
all_same_as <- if (ALL_THREADS == 1L) "gpuiso_1t" else if (ALL_THREADS == 2L) "gpuiso_2t" else NULL
methods <- list(
  gpuiso_1t = gpuiso_col(1L, paste(gpuiso_label, "1 thr")),
  gpuiso_2t = gpuiso_col(2L, paste(gpuiso_label, "2 thr")),
  gpuiso_all = gpuiso_col(ALL_THREADS, sprintf("%s all thr (%d)", gpuiso_label, ALL_THREADS), all_same_as),
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
methods <- methods[names(methods) %in% c("gpuiso_1t", "gpuiso_2t", "gpuiso_all", PEERS)]
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

reps_for <- function(n) max(1L, as.integer(round(REPS_MULT * if (n <= 1e3) 15 else if (n <= 1e5) 11
                                                  else if (n <= 1e6) 7 else if (n <= 1e7) 5 else 3)))

maxdiff <- function(a, b) {
  a <- as.numeric(a); b <- as.numeric(b)
  if (length(a) != length(b)) return(Inf)
  max(abs(a - b))
}

fmt_n <- function(n) if (n >= 1e3 && log10(n) == round(log10(n))) sprintf("1e%d", as.integer(log10(n))) else format(n, big.mark = ",")

## ---------------------------------------------------------------- data ----

# The data of a single-problem row: list(y, w), w NULL when unweighted. One copy of y and of w
# is kept (800 MB each at n = 1e8); the temporaries of the arithmetic are dropped at once.
# (The same draws as `seq(0, 3, length.out = n) + rnorm(n)` then `exp(runif(n, 0, 8))`.)
gen <- function(case, n) {
  set.seed(20240101 + n)
  y <- seq(0, 3, length.out = n)
  if (case != "increasing") y <- y + rnorm(n)
  w <- if (case == "weighted") exp(runif(n, 0, 8)) else NULL
  list(y = y, w = w)
}

case_label <- c(noisy = "(a) noisy", increasing = "(b) increasing", weighted = "(c) weighted noisy",
                batch = "(d) batch 10,000 x 1,000")

sizes <- c(1e3, 1e5, 1e6, 1e7, 1e8)
sizes <- sizes[sizes <= MAX_N]
no_1e8_why <- if (MAX_N >= 1e8) "" else if (MAX_N_SET) sprintf("GPUISO_BENCH_MAX_N = %s", fmt_n(MAX_N)) else
  sprintf("the machine has %s GiB of RAM, < 24 (set GPUISO_BENCH_MAX_N=1e8 to run them anyway)",
          if (is.na(ram_gib)) "?" else sprintf("%.1f", ram_gib))
not_identical <- character(0)   # "NOT bit-identical" cells

rows <- list()
history <- list()   # history[[method]][[case]]: data.frame(n, t) of measured cells
skipped <- list()   # skipped[[method]][[case]]: note, once a size was skipped

cat(sprintf("gpuiso CPU benchmark (%s); threads 1, 2, %d (all: %s); sizes %s; peers: %s\n", gpuiso_label,
            ALL_THREADS, all_src, paste(vapply(sizes, fmt_n, ""), collapse = ", "),
            if (length(peer_ids)) paste(vapply(methods[peer_ids], `[[`, "", "label"), collapse = ", ") else "none"))
if (nzchar(no_1e8_why)) cat(sprintf("note: no rows at n = 1e8: %s\n", no_1e8_why))
if (!has_monotone && "monotone" %in% PEERS) cat("note: monotone not found in bench/.lib (see bench/install-peers.sh); column omitted\n")

run_row <- function(case, n, y, w, est_fun, apply_fun = identity) {
  cells <- list()
  ref <- NULL
  for (id in names(methods)) {
    m <- methods[[id]]
    cell <- list(t = NA_real_, note = NULL, diff = NA_real_)
    if (!is.null(m$same_as)) {
      cell <- cells[[m$same_as]]
      cell$same_as <- m$same_as
    } else if (!m$weighted && !is.null(w)) {
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
        r <- time_call(function() apply_fun(m$f(y, w)), reps_for(n),
                       budget = if (m$gpu && n >= 1e8) BIG_BUDGET_S else CELL_BUDGET_S)
        cell$t <- r$t; cell$reps <- r$reps; cell$faults <- r$faults
        if (is.null(ref)) {
          ref <- r$out; cell$diff <- 0; cell$identical <- TRUE
        } else {
          cell$diff <- maxdiff(r$out, ref)
          if (m$gpu) {
            cell$identical <- identical(r$out, ref)
            if (!cell$identical) {
              msg <- sprintf("%s, n = %s: %s vs 1 thr (max abs diff %s)", case_label[[case]],
                             if (case == "batch") "1e3 x 1e4" else fmt_n(n), m$label, fmt_d(cell$diff))
              not_identical <<- c(not_identical, msg)
              cat(sprintf("\n!!!!!!!! NOT bit-identical: %s !!!!!!!!\n\n", msg))
            }
          }
        }
        history[[id]][[case]] <<- rbind(history[[id]][[case]], data.frame(n = n, t = r$t))
        rm(r)   # the fit: compared, not needed any more (800 MB at 1e8)
        if (n >= 1e7) invisible(gc(FALSE))
      }
    }
    cells[[id]] <- cell
    cat(sprintf("  %-22s %-24s n=%-5s %s%s%s\n", case_label[[case]], m$label,
                if (case == "batch") "1e3 x 1e4" else fmt_n(n),
                if (!is.null(cell$same_as)) sprintf("= %s (not re-timed)", methods[[cell$same_as]]$label)
                else if (is.null(cell$note)) fmt_t(cell$t) else cell$note,
                if (!is.na(cell$diff) && cell$diff > 0) sprintf("  (max|diff| %.1e)", cell$diff) else "",
                if (is.null(cell$same_as) && !is.null(cell$faults) && !is.na(cell$faults))
                  sprintf("  [%s page faults a call]", fmt_faults(cell$faults)) else ""))
    flush.console()
  }
  list(case = case, n = n, cells = cells)
}

## ---------------------------------------------------------------- warm-up ----
# A fresh R process grows its heap while it first allocates: R raises its collection threshold
# and the C library maps new pages, so the first cells timed would pay page faults that no later
# cell pays (measured at 1e3 points: about 0.5 faults a call for whichever method came first, none
# for any method once every one had run for 0.3 s). So every method runs untimed on the rows of
# 1e3 points first, WARMUP_S seconds each, unweighted and weighted.
WARMUP_S <- env_num("GPUISO_BENCH_WARMUP_S", 0.3)
for (case in c("noisy", "weighted")) {
  d <- gen(case, 1e3)
  for (id in names(methods)) {
    m <- methods[[id]]
    if (!m$weighted && !is.null(d$w)) next
    if (!is.null(m$threads)) set_threads(m$threads)
    t0 <- now()
    while (now() - t0 < WARMUP_S) m$f(d$y, d$w)
  }
  rm(d)
}

load_start <- load_now()
t_start <- now()
# The rows of up to 1e5 points first, every case at one size before the next size; then the
# larger rows case by case. R raises its collector's threshold after the rows of 1e7 and 1e8
# points (to 583 MB after a row of 1e8 on the 2-core VM) and lowers it again only a little at
# each collection; a cell of 1e5 timed after them then ran with no collection at all, so that
# each of its results was fresh memory (195 page faults a call for gpuiso's), while the
# methods timed later in that row, after more collections, reused theirs (12 for monotone's
# on the H100 host at dee5a73; bench/page-faults-RESULTS.md). The larger rows keep the order
# they had before. The report lists the rows by case.
cases <- c("noisy", "increasing", "weighted")
small <- sizes[sizes <= 1e5]
order_run <- rbind(expand.grid(case = cases, n = small, stringsAsFactors = FALSE)[, c("case", "n")],
                   expand.grid(n = sizes[sizes > 1e5], case = cases, stringsAsFactors = FALSE)[, c("case", "n")])
for (j in seq_len(nrow(order_run))) {
  case <- order_run$case[j]; n <- order_run$n[j]
  d <- gen(case, n)
  est_fun <- function(id, m) probe_estimate(
    history[[id]][[case]], n, m$limit,
    probe = function(k) time_call(function() m$f(d$y[seq_len(k)], if (is.null(d$w)) NULL else d$w[seq_len(k)]), 1L)$t,
    min_p = if (id == "isoreg" && case == "increasing") 2 else 1)
  rows[[length(rows) + 1L]] <- run_row(case, n, d$y, d$w, est_fun)
  rm(d); invisible(gc(FALSE))
}
rows <- rows[order(match(vapply(rows, `[[`, "", "case"), cases), vapply(rows, `[[`, 0, "n"))]

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

nlab_of <- function(r) if (r$case == "batch") "1e3 x 1e4" else fmt_n(r$n)
same_txt <- function(c) if (is.null(c$same_as)) "" else sprintf(" (= %s)", sub("^gpuiso_", "", sub("t$", " thr", c$same_as)))
cell_txt <- function(c) {
  if (!is.null(c$note)) return(c$note)
  paste0(fmt_t(c$t), if (c$reps == 1L) " (1 run)" else "", same_txt(c))
}
t_of <- function(r, id) if (is.null(r$cells[[id]])) NA_real_ else r$cells[[id]]$t
other_gpu <- c("gpuiso_2t", "gpuiso_all")

hdr <- c("case", "n", vapply(methods, `[[`, "", "label"), "fastest peer", "speedup (1 thr)", "max abs diff vs gpuiso")
tab <- c(paste("|", paste(hdr, collapse = " | "), "|"),
         paste("|", paste(c("---", "---:", rep("---:", length(methods)), "---", "---:", "---:"), collapse = " | "), "|"))
not_fastest <- character(0)   # target 1: cells where a peer is at least as fast as gpuiso on 1 thread
for (r in rows) {
  pt <- vapply(peer_ids, function(id) r$cells[[id]]$t, 0)
  best <- if (all(is.na(pt))) NA_integer_ else which.min(pt)
  g1 <- t_of(r, "gpuiso_1t")
  sp <- if (is.na(best)) NA else pt[[best]] / g1
  dmax <- suppressWarnings(max(vapply(c(other_gpu, peer_ids), function(id) r$cells[[id]]$diff, 0), na.rm = TRUE))
  nlab <- nlab_of(r)
  sp_txt <- if (is.na(sp)) "-" else sprintf("%.1fx", sp)
  if (!is.na(sp) && sp < 1) sp_txt <- paste0("**", sp_txt, "**")
  tab <- c(tab, paste("|", paste(c(case_label[[r$case]], nlab, vapply(r$cells, cell_txt, ""),
                                   if (is.na(best)) "-" else methods[[peer_ids[best]]]$label,
                                   sp_txt, fmt_d(dmax)), collapse = " | "), "|"))
  for (id in peer_ids) {
    p <- pt[[id]]
    if (!is.na(p) && !is.na(g1) && p <= g1)
      not_fastest <- c(not_fastest, sprintf("%s, n = %s: %s %s vs %s %s", case_label[[r$case]], nlab,
                                            methods$gpuiso_1t$label, fmt_t(g1), methods[[id]]$label, fmt_t(p)))
  }
}

# A markdown table with a row per row of the benchmark and a column per method in `ids`,
# each cell cell_fun(cell).
cell_table <- function(ids, cell_fun) {
  out <- c(paste("|", paste(c("case", "n", vapply(methods[ids], `[[`, "", "label")), collapse = " | "), "|"),
           paste("|", paste(c("---", "---:", rep("---:", length(ids))), collapse = " | "), "|"))
  for (r in rows)
    out <- c(out, paste("|", paste(c(case_label[[r$case]], nlab_of(r),
                                     vapply(ids, function(id) cell_fun(r$cells[[id]]), "")), collapse = " | "), "|"))
  out
}

## agreement table: the other gpuiso columns and the peers against gpuiso 1 thread
agr <- cell_table(c(other_gpu, peer_ids), function(c) {
  if (!is.null(c$note)) return("-")
  paste0(fmt_d(c$diff), if (isFALSE(c$identical)) " **NOT bit-identical**" else "", same_txt(c))
})

## page faults per timed call, every timed cell
flt <- cell_table(names(methods), function(c)
  if (!is.null(c$same_as) || !is.null(c$note)) "-" else fmt_faults(c$faults))

## throughput: ns/element at 1e7 and 1e8 (or the largest n run), and the batch
ns <- function(t, n) sprintf("%.2f", t / n * 1e9)
same_lab <- if (is.null(all_same_as)) "" else sub("^gpuiso_", "", sub("t$", " thr", all_same_as))
all_note <- if (is.null(all_same_as)) "" else
  sprintf(" (all threads = %d here: that column repeats the %s measurement, marked \"= %s\", instead of timing it again)",
          ALL_THREADS, same_lab, same_lab)
ns_sizes <- intersect(sizes, c(1e7, 1e8))
if (!length(ns_sizes)) ns_sizes <- max(sizes)
find_row <- function(case, n) {
  hit <- Filter(function(r) r$case == case && r$n == n, rows)
  if (length(hit)) hit[[1L]] else NULL
}
ns_lines <- character(0)
for (case in c("noisy", "increasing", "weighted")) for (n in ns_sizes) {
  r <- find_row(case, n)
  t1 <- t_of(r, "gpuiso_1t"); t2 <- t_of(r, "gpuiso_2t"); ta <- t_of(r, "gpuiso_all")
  ns_lines <- c(ns_lines, sprintf(
    "- %s, n = %s: %s / %s / %s ns/element on 1 / 2 / all (%d) threads (1-thread time / that: %.2fx on 2, %.2fx on all)",
    case_label[[case]], fmt_n(n), ns(t1, n), ns(t2, n), ns(ta, n), ALL_THREADS, t1 / t2, t1 / ta))
}
rb <- rows[[length(rows)]]
tb1 <- t_of(rb, "gpuiso_1t"); tb2 <- t_of(rb, "gpuiso_2t"); tba <- t_of(rb, "gpuiso_all")
ns_lines <- c(ns_lines, sprintf("- %s: %s / %s / %s on 1 / 2 / all (%d) threads; %s / %s / %s ns/element",
                                case_label[["batch"]], fmt_t(tb1), fmt_t(tb2), fmt_t(tba), ALL_THREADS,
                                ns(tb1, nb * mb), ns(tb2, nb * mb), ns(tba, nb * mb)))

## targets (issue 15)
verdict <- function(ok) if (is.na(ok)) "not measured" else if (ok) "**met**" else "**NOT met**"
tgt1 <- if (!length(peer_ids)) "- faster than every peer on every row with one thread: not measured (no peers run)" else
  sprintf("- faster than every peer on every row with one thread: %s%s", verdict(!length(not_fastest)),
          if (length(not_fastest)) sprintf(" (%d cells where a peer is at least as fast, listed below)", length(not_fastest)) else "")
r7 <- find_row("noisy", 1e7)
tgt2 <- if (is.null(r7)) "- one row of 1e7 noisy on two threads at most 0.6x the one-thread time: not measured (no n = 1e7 rows)" else {
  q <- t_of(r7, "gpuiso_2t") / t_of(r7, "gpuiso_1t")
  sprintf("- one row of 1e7 noisy on two threads at most 0.6x the one-thread time: %s / %s = %.2fx -> %s",
          fmt_t(t_of(r7, "gpuiso_2t")), fmt_t(t_of(r7, "gpuiso_1t")), q, verdict(q <= 0.6))
}
tgt3 <- if (!(1e8 %in% sizes)) sprintf(paste("- one row of 1e8 at least 8x faster on all threads than on one thread:",
                                            "not measured (no n = 1e8 rows: %s)"), no_1e8_why) else {
  ratios <- vapply(c("noisy", "increasing", "weighted"), function(case) {
    r <- find_row(case, 1e8); t_of(r, "gpuiso_1t") / t_of(r, "gpuiso_all") }, 0)
  sprintf("- one row of 1e8 at least 8x faster on all threads (%d) than on one thread: 1-thread time / %d-thread time %s -> %s%s%s",
          ALL_THREADS, ALL_THREADS,
          paste(sprintf("%s %.2fx", case_label[names(ratios)], ratios), collapse = ", "),
          verdict(min(ratios) >= 8),
          if (is.null(all_same_as)) "" else sprintf(" (all threads = %d: the %s time)", ALL_THREADS, same_lab),
          if (procs < 16) sprintf("; needs >= 16 processors, this machine has %d", procs) else "")
}
tgt4 <- sprintf("- the 10,000 x 1,000 batch (d) at most 80 ms on two threads: %s -> %s", fmt_t(tb2), verdict(tb2 <= 0.08))

all_diffs <- unlist(lapply(rows, function(r) vapply(r$cells, function(c) c$diff, 0)))
max_all <- max(all_diffs, na.rm = TRUE)
checks <- c(
  sprintf("- 2-thread and all-thread (%d) fits bit-identical (`identical()`) to the 1-thread fit on every row: %s",
          ALL_THREADS, if (length(not_identical)) sprintf("**NO** (%d cells, listed below)", length(not_identical)) else "yes"),
  sprintf("- all outputs agree: max abs diff over all cells %s -> %s", fmt_d(max_all), if (max_all <= 1e-8) "yes" else "NO"))

## machine
mem_gb <- if (is.na(ram_gib)) "?" else sprintf("%.0f GiB", ram_gib)
commit <- tryCatch(system2("git", c("-C", shQuote(repo_dir), "rev-parse", "--short", "HEAD"), stdout = TRUE, stderr = FALSE),
                   error = function(e) character(0), warning = function(w) character(0))
if (!length(commit)) commit <- "unknown (no commit)"
if (nzchar(Sys.getenv("GPUISO_BENCH_COMMIT"))) commit <- Sys.getenv("GPUISO_BENCH_COMMIT")
dirty <- tryCatch(length(system2("git", c("-C", shQuote(repo_dir), "status", "--porcelain", "--", "R", "src", "DESCRIPTION"),
                                 stdout = TRUE, stderr = FALSE)) > 0, error = function(e) NA, warning = function(w) NA)
if (isTRUE(dirty) && !nzchar(Sys.getenv("GPUISO_BENCH_COMMIT"))) commit <- paste(commit, "(R/, src/ or DESCRIPTION have uncommitted changes)")

eff <- vapply(c(1L, 2L, ALL_THREADS), eff_threads, 0L)
info <- c(
  sprintf("- date: %s", format(Sys.time(), "%Y-%m-%d %H:%M %Z")),
  sprintf("- machine: %s; %s CPU(s) (%s core(s)/socket, %s thread(s)/core, %s socket(s)); %s RAM",
          lsget("Model name"), lsget("CPU\\(s\\)"), lsget("Core\\(s\\) per socket"), lsget("Thread\\(s\\) per core"),
          lsget("Socket\\(s\\)"), mem_gb),
  sprintf("- load average at start / end (other processes on the machine): %s / %s", load_start, load_now()),
  sprintf("- %s", R.version.string),
  sprintf("- gpuiso %s, commit %s; gpu_info(): %s", gpuiso_version, commit, gpu_info_txt),
  sprintf(paste("- threads: columns of 1, 2 and all = %d (%s; processors: %d, from %s);",
                "gpu_info()$threads for each: %s; the package's default `gpuiso.threads`: %s%s"),
          ALL_THREADS, if (all_src == procs_src) "the processors" else all_src, procs, procs_src,
          paste(ifelse(is.na(eff), "?", eff), collapse = " / "),
          if (is.null(default_threads_opt)) "unset" else format(default_threads_opt), all_note),
  sprintf("- sizes of the single-problem rows: %s%s", paste(vapply(sizes, fmt_n, ""), collapse = ", "),
          if (nzchar(no_1e8_why)) sprintf(" (no 1e8 rows: %s)", no_1e8_why) else ""),
  sprintf("- peers: %s", if (!length(peer_ids)) "none (GPUISO_BENCH_PEERS)" else paste(vapply(peer_ids, function(id) {
    pkg <- switch(id, isoreg = "stats", pava = "Iso", monoreg = "fdrtool", monotone = "monotone")
    v <- tryCatch(as.character(utils::packageVersion(pkg, lib.loc = c(peer_lib, .libPaths()))), error = function(e) "?")
    sprintf("%s %s", methods[[id]]$label, v)
  }, ""), collapse = ", ")),
  sprintf("- total benchmark wall time: %.0f s", t_total))

## the command that made the file: the settings that change the rows
env_set <- c("GPUISO_BENCH_MAX_N", "GPUISO_BENCH_REPS", "GPUISO_BENCH_ALL_THREADS", "GPUISO_BENCH_PEERS",
             "GPUISO_BENCH_OUT", "GPUISO_BENCH_STANDIN", "GPUISO_BENCH_WARMUP_S", "GPUISO_BENCH_DROP_RESULTS")
env_set <- env_set[nzchar(Sys.getenv(env_set))]
cmd <- paste(c(sprintf("%s=%s", env_set, Sys.getenv(env_set)), "Rscript bench/cpu.R"), collapse = " ")

reps_txt <- paste(vapply(c(1e3, 1e5, 1e6, 1e7, 1e8), function(n) format(reps_for(n)), ""), collapse = "/")
md <- c(
  "# gpuiso CPU benchmark",
  "",
  if (STANDIN) c(sprintf("**DRY RUN: the gpuiso columns time a %s, not gpuiso.**", gpuiso_label), ""),
  if (!identical(PEERS, known_peers) || MAX_N < (if (BIG_RAM) 1e8 else 1e7) || REPS_MULT < 1)
    c("**Partial run (fewer peers, sizes or repetitions than the full benchmark).**", ""),
  sprintf("Generated by `%s` (do not edit by hand).", cmd),
  "",
  info,
  "",
  sprintf("Median time of one call (each repetition loops k calls to last >= 50 ms; %s repetitions at", reps_txt),
  "n = 1e3/1e5/1e6/1e7/1e8, at most ~8 s of repetitions per cell except gpuiso's at 1e8, which get all of theirs).",
  if (DROP_RESULTS) "In the loop each result is dropped at once (GPUISO_BENCH_DROP_RESULTS=1)."
  else "In the loop each result stays bound until the next call returns, as in `fit <- isotonic(y)` (see time_call() in bench/common.R).",
  "The rows of up to 1e5 points run first, every case at one size before the next; then the larger rows case by case (see the comment in bench/cpu.R).",
  sprintf("Before any cell, every method runs untimed on the rows of 1e3 points, %.1f s each, so that no cell pays the growth of a fresh process's heap.",
          WARMUP_S),
  sprintf("All methods run in one R process on the same data. gpuiso: `isotonic(y, w, device = \"cpu\")` with `options(gpuiso.threads = 1, 2 or all = %d)`%s.",
          ALL_THREADS, all_note),
  "Data: (a) `seq(0, 3, length.out = n) + rnorm(n)`; (b) `seq(0, 3, length.out = n)` (strictly increasing);",
  "(c) as (a) with weights `exp(runif(n, 0, 8))`; (d) 10,000 columns of 1,000 points as in (a), gpuiso in",
  "one call on the 1000 x 10000 matrix, the peers in a loop over the columns. stats::isoreg takes no weights.",
  "A peer cell is skipped when one call, extrapolated (power law) from the smaller sizes and from one-call probes on",
  "prefixes of n/1000, n/100, n/10 points, would take over 30 s (10 s for stats::isoreg, O(n^2) on increasing data;",
  "Iso::pava is O(n^2) on noisy data). speedup = fastest peer / gpuiso 1 thread (bold if < 1).",
  "",
  tab,
  "",
  "## gpuiso throughput",
  "",
  ns_lines,
  "",
  "## Targets",
  "",
  "The targets of issue 15:",
  "",
  tgt1, tgt2, tgt3, tgt4,
  "",
  "Checks:",
  "",
  checks,
  if (length(not_fastest)) c("", "Cells where a peer is at least as fast as gpuiso on one thread:", "", paste("-", not_fastest)),
  if (length(not_identical)) c("", "**NOT bit-identical** to the 1-thread fit:", "", paste("-", not_identical)),
  "",
  "## Agreement (max abs difference from gpuiso 1 thread)",
  "",
  sprintf("The gpuiso columns must be 0 (bit-identical, checked with `identical()`)%s.",
          if (length(not_identical)) "; **they are not on some rows**" else ", and are"),
  "",
  agr,
  "",
  "## Page faults per call",
  "",
  "Minor page faults of the R process per timed call (from /proc/self/stat; \"-\" where not timed or not known):",
  "the pages of fresh memory that each call touched first.",
  "",
  flt,
  "")

cat("\n", paste(md, collapse = "\n"), "\n", sep = "")
if (length(not_identical))
  cat(sprintf("\n!!!!!!!! NOT bit-identical on %d cell(s): %s\n", length(not_identical), paste(not_identical, collapse = "; ")))
writeLines(md, OUT_FILE)
cat(sprintf("\nwrote %s\n", OUT_FILE))

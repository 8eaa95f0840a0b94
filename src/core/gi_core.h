/*
 * gpuiso: the CPU engine's C interface.
 *
 * Pure C99 with no R headers, so the engine can be built and tested on its
 * own. Every entry point solves a batch of independent problems laid end to
 * end: values y[0..N), optional weights w (NULL for unit weights), and
 * offsets[0..B] with problem b covering [offsets[b], offsets[b + 1]).
 * Errors come back as status codes; the caller turns them into messages.
 */
#ifndef GPUISO_CORE_H
#define GPUISO_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* the CUDA engine calls these too */
#endif

typedef int64_t gi_idx;

/* For hot loops written once and specialised by constant arguments, and
 * for the functions that keep rare cases out of them. */
#if defined(__GNUC__)
#define GI_ALWAYS_INLINE inline __attribute__((always_inline))
#define GI_NOINLINE __attribute__((noinline))
#else
#define GI_ALWAYS_INLINE inline
#define GI_NOINLINE
#endif

/* The index of the highest set bit of v, which must not be zero (bitsets
 * of idr.c and plane_cut.c). */
static inline int gi_top_bit(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
  return 63 - __builtin_clzll(v);
#else
  int b = 0;
  while (v >>= 1) b++;
  return b;
#endif
}

typedef enum {
  GI_OK = 0,
  GI_ERR_NOMEM = 1,       /* scratch memory could not be allocated */
  GI_ERR_ZERO_WEIGHT = 2, /* a problem whose weights are all zero */
  GI_ERR_OVERFLOW = 3,    /* a true result is beyond the range of doubles */
  GI_ERR_INTERRUPT = 4,   /* the user interrupted (gi_interrupted()) */
  GI_ERR_INVALID = 5      /* an unchecked value is NA, NaN or infinite */
} gi_status;

/* Interrupts. The host sets gi_interrupt_hook to a function that returns 1
 * when the user has asked to stop (NULL: never). Long loops ask through
 * gi_interrupted(), which calls the hook at most once per GI_POLL_WORK
 * units of work (`work` is what was done since the last call) and only on
 * the thread that entered the engine (OpenMP's master thread); the other
 * threads read the answer through gi_stop_requested(). When it says 1 the
 * engine frees what it holds and returns GI_ERR_INTERRUPT. */
#define GI_POLL_WORK ((int64_t) 1 << 20)
extern int (*gi_interrupt_hook)(void);
int gi_interrupted(int64_t work);
int gi_stop_requested(void);
void gi_stop_reset(void);

/* Weighted least-squares isotonic regression of every problem of a batch.
 * Adjacent blocks with equal means are pooled. A point of zero weight takes
 * the value of the nearest positive-weight point to its right (the last one
 * when none is to its right). `starts`, when not NULL, receives 1 where a
 * block starts and 0 elsewhere. On failure `*bad` is the first failing
 * problem (0-based). O(n) time per problem on every input. */
gi_status gi_isotonic_batch(const double *y, const double *w,
                            const gi_idx *offsets, gi_idx nprob,
                            int decreasing, int nthreads,
                            double *fit, unsigned char *starts, gi_idx *bad);

/* The same, for a caller that knows every nonzero |y| and weight to lie in
 * the window of gi_in_window() (gi_fit_inputs_ok() tells, in the scan
 * that validates them): the stack passes then skip their own scans for
 * it. */
gi_status gi_isotonic_batch_in_window(const double *y, const double *w,
                                      const gi_idx *offsets, gi_idx nprob,
                                      int decreasing, int nthreads,
                                      double *fit, unsigned char *starts,
                                      gi_idx *bad);

/* One problem of n >= GI_SPLIT_MIN values with unit weights that nobody
 * has checked: each piece (see below) is checked by the thread that fits
 * it, just before, while it is in cache, instead of in a scan of its own
 * that reads every value from memory once more (an increasing row of 1e8,
 * bound by memory traffic on 16 threads: 49-52 ms with the scan, 39
 * without). GI_ERR_INVALID, and the fit undefined, when a value is NA, NaN
 * or infinite; otherwise gi_isotonic_batch()'s result. `faulted`: every
 * page of fit has been written since it was allocated (gi_prefault()), so
 * that a long fit may be written past the cache (split.c). */
gi_status gi_isotonic_long_unchecked(const double *y, gi_idx n,
                                     int decreasing, int nthreads,
                                     int faulted, double *fit,
                                     unsigned char *starts);

/* Problems of this many elements or more are solved in pieces, 2^15
 * elements or so each, that the threads share (split.c); the pieces
 * depend on the length alone, so the fit is the same on any number of
 * threads. Shorter problems go to a thread each. */
#define GI_SPLIT_MIN ((gi_idx) 1 << 16)

/* Backward pass: with G and W the sums of `grad` and of w over an element's
 * block (blocks from `starts`), dy_i = w_i G / W and
 * dw_i = (y_i - fit_i) G / W. `dw` may be NULL. GI_ERR_OVERFLOW when a
 * derivative is beyond the range of doubles (problem *bad, 0-based). */
gi_status gi_isotonic_vjp_batch(const double *y, const double *w,
                                const double *fit, const unsigned char *starts,
                                const double *grad, const gi_idx *offsets,
                                gi_idx nprob, int nthreads, double *dy,
                                double *dw, gi_idx *bad);

/* 1 if one problem's values y[0..n) are finite and its weights (w NULL:
 * unit weights) finite and non-negative, not all zero (unless n is 0):
 * what gi_first_invalid() and gi_first_weightless() check, in one pass
 * (on up to nthreads threads for long vectors). When it returns 1,
 * *inside (if not NULL) says whether every nonzero |y| and weight lies in
 * the window of gi_in_window(). */
int gi_fit_inputs_ok(const double *y, const double *w, gi_idx n,
                     int nthreads, int *inside);

/* First problem (0-based) whose weights sum to zero, or -1. */
gi_idx gi_first_weightless(const double *w, const gi_idx *offsets,
                           gi_idx nprob);

/* 1 if some w[i] is zero (w NULL: 0). */
int gi_any_zero(const double *w, gi_idx n);

/* First element (0-based) outside [0, 1] (NaN included), or -1. */
gi_idx gi_first_outside_unit(const double *x, gi_idx n);

/* Zero weights for an engine that takes positive weights only
 * (compact.c). gi_compact_zero() copies the points of positive weight of
 * a batch into cy and cw (room for offsets[nprob] points), their problems'
 * offsets into coff (nprob + 1), and returns how many there are.
 * gi_expand_zero() spreads the fit of that compacted batch, cfit (and the
 * block-start flags cstarts, when starts is not NULL), over the whole
 * batch: a point of zero weight takes the fit of the next positive-weight
 * point of its problem (of the last one when none follows), as in
 * gi_isotonic_batch(), and a block that a run of such points precedes
 * starts at the run's first point. Every problem that has points has one
 * of positive weight (gi_first_weightless()). */
gi_idx gi_compact_zero(const double *y, const double *w, const gi_idx *offsets,
                       gi_idx nprob, double *cy, double *cw, gi_idx *coff);
void gi_expand_zero(const double *w, const gi_idx *offsets, gi_idx nprob,
                    const gi_idx *coff, const double *cfit,
                    const unsigned char *cstarts, double *fit,
                    unsigned char *starts);

/* 1 if every nonzero |x| lies in [2^-200, 2^200] (x NULL: 1), the range
 * in which the fast passes and the GPU engine are exact to their rule;
 * outside it the CPU's wide-range passes are. */
int gi_in_window(const double *x, gi_idx n, int nthreads);

/* 1 if some nonzero |scale * x[i]| lies outside that window (one thread;
 * vectorised, so that the stack pass need not test its elements one by
 * one). */
int gi_any_outside(const double *x, gi_idx n, double scale);

/* 1 if plain double sums of w (non-negative) are exact in any order and at
 * any power-of-two scale: every positive weight a whole multiple of the
 * finest lowest bit, 2^e, and their total below 2^(52 + e). With outcomes
 * 0 or 1, sums of weights times outcomes are such sums too. */
int gi_sums_exact(const double *w, gi_idx n);

/* What gi_first_invalid() looks for besides a value that is not finite. */
enum {
  GI_CHECK_NONNEG = 1, /* a negative value */
  GI_CHECK_F32 = 2     /* beyond float32's range or, with GI_CHECK_NONNEG,
                          positive but rounding to zero in float32 */
};

/* First element (0-based) that is not finite or fails a check of `checks`;
 * -1 if none. On up to nthreads threads for long vectors. */
gi_idx gi_first_invalid(const double *x, gi_idx n, int checks, int nthreads);

/* Element conversions for the GPU's transfers (gi_convert()). */
typedef enum {
  GI_COPY1, GI_COPY4, GI_COPY8, /* bytes as they are, 1, 4 or 8 per element */
  GI_TO_F32,                    /* double to float */
  GI_FROM_F32,                  /* float to double */
  GI_ROUND_F32                  /* double rounded to float and back */
} gi_conv;

/* Bytes per element of the source and of the destination of `conv`. */
void gi_conv_sizes(gi_conv conv, size_t *src, size_t *dst);

/* dst[i] = conv(src[i]) for n elements, on up to nthreads threads; with
 * `stream`, large ones with non-temporal stores (for a destination not
 * read again soon). dst may be src where the sizes are equal (GI_COPY*,
 * GI_ROUND_F32): each element is read before it is written. */
void gi_convert(void *dst, const void *src, gi_idx n, gi_conv conv, int stream,
                int nthreads);

/* Pools n scores read in sorted order (ord, 1-based, in ord_i or ord_d):
 * each run of equal (code, score) becomes one point, its score, group code
 * (code NULL: 1), summed weight and weighted mean outcome (0 when the
 * weight is zero). run_of, when not NULL, gets each input's run (1-based).
 * The outputs have room for n points; returns how many were written. On
 * nthreads threads, each pooling a range of whole runs: the same points
 * on any number. */
gi_idx gi_pool_sorted(const double *s, const double *y, const double *w,
                      const int *code, const int *ord_i, const double *ord_d,
                      gi_idx n, int nthreads, double *score, double *value,
                      double *weight, int *group, int *run_of);

/* The order of scores s (finite or infinite, no NaN) within groups `code`
 * (NULL: one group), as R's order(code, s, method = "radix"): ord gets
 * the 1-based indices, stable, -0 tied with +0 (order.c). Returns 1 when
 * memory runs out or n >= 2^31 (then ord is untouched), else 0. */
int gi_order_scores(const double *s, const int *code, gi_idx n, int nthreads, int *ord);


/* Problem offsets off[0..ngroups] (doubles, as R's layouts hold them)
 * from the group codes (1..ngroups) of n points sorted by group: off[g]
 * is the number of points with codes <= g. */
void gi_group_offsets(const int *group, gi_idx n, int ngroups, double *off);

/* A sort order as R's order() gives it (1-based, int or double for long
 * vectors); both NULL: the identity. */
typedef struct {
  const int *i;
  const double *d;
} gi_order;

/* ties.c: the points gathered in stats::isoreg()'s order from an order
 * of x alone (ord, 1-based, in oi or od, modified): each run of tied x
 * sorted by y, decreasing when desc, stably (the runs shared by up to
 * nthreads threads). ys and ws (when w is given)
 * get the values and weights in that order; runs of two or more tied x go
 * into tie[] as pairs (first sorted position, the one after its last).
 * Returns how many (at most n / 2), or -1 when memory runs out. */
gi_idx gi_order_ties(const double *x, const double *y, const double *w,
                     int *oi, double *od, gi_idx n, int desc, int nthreads,
                     double *ys, double *ws, gi_idx *tie);

/* The runs of tied x from flags same[k] (x of point k equals that of point
 * k - 1), as gi_order_ties() lists them; returns how many. */
gi_idx gi_list_ties(const unsigned char *same, gi_idx n, gi_idx *tie);

/* isoreg.c: yc[0..n], stats::isoreg()'s running sum of the values in
 * their order (in double, as it computes it) and, when w is given, cx and
 * cy the running sums of w and w * y. */
void gi_running_sums(const double *y, const double *w, gi_idx n, double *yc,
                     double *cx, double *cy);

/* The number of distinct x among n sorted points with the runs of tied x
 * in tie[] (ntie pairs, as gi_order_ties() lists them). */
gi_idx gi_isoreg_distinct(gi_idx n, const gi_idx *tie, gi_idx ntie);

/* The points pooled by x: the weighted mean of each run of sorted values
 * (compensated; the plain mean for a run of zero weight) into ky and its
 * summed weight (ws NULL: its length) into kw. Returns how many. */
gi_idx gi_isoreg_pool(const double *ys, const double *ws, gi_idx n,
                      const gi_idx *tie, gi_idx ntie, double *ky, double *kw);

/* The fit of the pooled points spread over the sorted points. */
void gi_isoreg_spread(const double *kfit, gi_idx n, const gi_idx *tie,
                      gi_idx ntie, double *fit);

/* A fit of the sorted points (zero weights skipped) pools each run of tied
 * x with positive weight whole; its zero-weight points may have taken the
 * next run's value: they get their run's. Runs of zero weight keep the
 * value of the next point with weight, as any zero-weight point does. */
void gi_isoreg_run_values(const double *ws, gi_idx n, const gi_idx *tie,
                          gi_idx ntie, double *fit);

/* The knots as the ends of the fit's blocks (1-based, into knot[], room for
 * n): what stats' knots are where its running sums are exact. Returns how
 * many. */
gi_idx gi_isoreg_block_knots(const double *fit, gi_idx n, gi_idx *knot);

/* 1 if every x[0..n) is finite. */
int gi_all_finite(const double *x, gi_idx n);

/* 1 if some run of tied x has two fitted values (rounding), else 0. */
int gi_isoreg_split(const double *fit, const gi_idx *tie, gi_idx ntie);

/* The blocks of a fit in sorted order (runs of one fitted value): their
 * number, and their first and last x, value and summed weight (ws NULL:
 * their number of points). */
gi_idx gi_isoreg_nblocks(const double *fit, gi_idx n);
void gi_isoreg_blocks(const double *x, const gi_order *ord, const double *fit,
                      const double *ws, gi_idx n, double *from, double *to,
                      double *value, double *weight);

/* The knots of stats::isoreg() on the cumulative sum diagram (X_i, Y_i),
 * i = 0..n (X NULL: X_i = i; sign -1: the diagram of -Y, for decreasing
 * fits): the 1-based indices, as stats' O(n * knots) walk finds them, in
 * knot[0 .. *nknot) (room for n). */
gi_status gi_isoreg_knots(const double *Y, const double *X, int sign, gi_idx n,
                          gi_idx *knot, gi_idx *nknot);

/* A point of zero weight is pooled with its tied x: a knot followed by
 * such points of its run moves to the run's last one, where the fit
 * steps. */
void gi_isoreg_run_knots(gi_idx *knot, gi_idx nknot, const double *ws,
                         const gi_idx *tie, gi_idx ntie);

/* The fit of n sorted values (one problem) and the knots of their diagram,
 * on two threads when nthreads >= 2 and n is large. */
gi_status gi_isoreg_solve(const double *ys, const double *ws, gi_idx n,
                          int decreasing, int nthreads, const double *Y,
                          const double *X, double *fit, gi_idx *knot,
                          gi_idx *nknot, gi_idx *bad);

/* Prediction (locate.c): where n points t fall among m sorted distinct
 * knots. gi_locate() gives each a knot index j and weight lam in [0, 1)
 * (value (1 - lam) f[j] + lam f[j + 1]); gi_interpolate() the value itself.
 * linear = 0: the first knot >= t (a right-continuous step); 1: linear
 * interpolation. Outside the knots' range: the nearer end when clip, else
 * no place (j = GI_NO_PLACE, value `na`); NaN t: no place. Both return the
 * first point outside the range (0-based), or -1. gi_interpolate()'s
 * range starts at lo <= knot[0] (a step function given by the right ends
 * of its steps, the first of which starts at lo). */
#define GI_NO_PLACE (-2147483647 - 1)
gi_idx gi_locate(const double *knot, gi_idx m, const double *t, gi_idx n,
                 int linear, int clip, int *j, double *lam);
gi_idx gi_interpolate(const double *knot, const double *f, gi_idx m,
                      double lo, const double *t, gi_idx n, int linear,
                      int clip, double na, double *out);

/* The decomposition's mean Brier scores (brier.c): of forecasts x, of
 * their CORP values and of the mean outcome, for outcomes y, into
 * out[0..2]; the CORP fit fit0[0..m) clamped to [0, 1] into fit, the
 * forecasts' CORP values (cal[i] = fit[run_of[i] - 1]) into cal. On
 * nthreads threads, with the same result on any number. */
void gi_brier_parts(const double *x, const double *y, const double *fit0, gi_idx m,
                    const int *run_of, gi_idx n, int nthreads, double *fit, double *cal,
                    double *out);

/* Weighted least-squares isotonic regression on a partial order (poset.c):
 * f_from[e] <= f_to[e] for the ne edges (0-based nodes; a cycle ties its
 * nodes), weights w > 0, by recursive minimum cuts; fit gets the solution.
 * gi_poset_comp_edges() gives the covering edges (the transitive
 * reduction) of the componentwise order of n distinct points x (n x d,
 * by columns), lex a linear extension of it (0-based, the points in
 * lexicographic order), on nthreads threads (the same pairs in the same
 * order on any number): *from and *to malloc'ed, *ne edges; 1 when memory
 * runs out, 2 when interrupted. */
gi_status gi_poset_fit(const double *y, const double *w, gi_idx n, const int *from,
                       const int *to, gi_idx ne, double *fit);
/* When the order is the componentwise order of points in the plane: node
 * i at position pos[i] of their lexicographic order (0..n-1, distinct) and
 * the second coordinate's rank[i] (0..nrank-1, equal for equal
 * coordinates). Every edge a -> b then has pos[a] < pos[b] and rank[a] <=
 * rank[b] (gi_plane_check()), and the edges generate that order. The cuts
 * then need no maximum flow (plane_cut.c). */
typedef struct {
  const int *pos, *rank;
  gi_idx nrank;
} gi_plane;
/* 0 when plane fits the edges (0-based nodes below n) as said, 1 when
 * not, -1 when memory runs out. */
int gi_plane_check(const gi_plane *plane, gi_idx n, const int *from, const int *to,
                   gi_idx ne);
/* K such problems on one graph, y and fit n x K by columns, on nthreads
 * threads (one problem each: the same fits on any number); plane NULL or
 * as above. */
gi_status gi_poset_fit_batch(const double *y, const double *w, gi_idx n, gi_idx K,
                             const int *from, const int *to, gi_idx ne,
                             const gi_plane *plane, int nthreads, double *fit);
int gi_poset_comp_edges(const double *x, gi_idx n, int d, const int *lex, int nthreads,
                        int **from, int **to, gi_idx *ne);
/* partial_sums.c: the partial sums of each row of x (n x k, by columns,
 * finite) into out (the same shape), each the exact sum rounded once to
 * the nearest double (+-Inf beyond the largest). */
void gi_partial_sums_rounded(const double *x, gi_idx n, int k, double *out);
/* K problems on one graph whose consecutive columns of y differ at few
 * nodes (IDR's thresholds): each thread solves a run of consecutive ones,
 * the first in full (for the first run: warm from y_prev and its solution
 * f_prev, unless NULL) and each next from its predecessor's solution,
 * re-solving only the level sets around the changed nodes that it must.
 * Exact as gi_poset_fit_batch() is; fit n x K. */
gi_status gi_poset_fit_sequence(const double *y, const double *w, gi_idx n, gi_idx K,
                                const int *from, const int *to, gi_idx ne,
                                const gi_plane *plane, const double *y_prev,
                                const double *f_prev, int nthreads, double *fit);

/* IDR on a partial order (idr_poset.c): observation i at node node[i]
 * (0-based, < m; every node of positive summed weight), of weight w[i]
 * (w NULL: 1), switches on at threshold kcode[i] (< K; the last threshold
 * switches on every observation). The edges from[e] -> to[e] say node
 * from[e] is below to[e], where the CDFs must not be larger; plane is NULL
 * or places the nodes in the plane in that order (see gi_plane). The fit of
 * each threshold is appended as blocks over the nodes in their order (as
 * gi_idr_sweep's). Begin, step until done (a step solves every threshold,
 * on nthreads threads, polling interrupts inside), read or gather, free; the arrays
 * passed to begin must live until the end. */
typedef struct gi_idr_po gi_idr_po;
gi_status gi_idr_po_begin(gi_idx n, const int *node, const int *kcode, const double *w,
                          gi_idx m, gi_idx K, const int *from, const int *to, gi_idx ne,
                          const gi_plane *plane, int nthreads, gi_idr_po **out);
gi_status gi_idr_po_step(gi_idr_po *s);
int gi_idr_po_done(const gi_idr_po *s);
gi_idx gi_idr_po_nblocks(const gi_idr_po *s);
const double *gi_idr_po_ptr(const gi_idr_po *s);
/* The blocks' starts and values into start[] and value[] (nblocks each),
 * on the fit's threads. */
void gi_idr_po_gather(const gi_idr_po *s, int *start, double *value);
void gi_idr_po_free(gi_idr_po *s);
/* Test-only: a range is split for an idle thread when k thresholds are
 * left (k >= 2; else the default); returns the previous setting. */
gi_idx gi_idr_po_test_min_split(gi_idx k);

/* Resampled bands of a CORP reliability curve (bands.c). The m distinct
 * forecasts u[0..m) (sorted) of n pairs, count[j] of them at u[j] (whole
 * numbers), and p0[j] the probability of an event at u[j] under which
 * outcomes are drawn. B resamples of the n pairs with new outcomes, each
 * fitted by CORP and read at every u[j] (linear interpolation between its
 * drawn forecasts, nothing outside them); lower[j] and upper[j] get R's
 * type-7 quantiles at plo and phi of those values (NaN where no resample
 * reaches u[j]) and mcb[b] (when not NULL) each resample's
 * miscalibration. The draws depend on the seed alone, not on nthreads.
 * gi_corp_resample() gives resample b's draws (how often each forecast
 * was drawn and its events; with `plain`, counted in the order of the
 * draws, which gives the same: for the tests); 1 when memory runs out. */
gi_status gi_corp_bands(const double *u, const double *p0,
                        const double *count, gi_idx m, gi_idx n, int B,
                        double plo, double phi, uint64_t seed, int nthreads,
                        double *lower, double *upper, double *mcb);
int gi_corp_resample(const double *p0, const double *count, gi_idx m,
                     gi_idx n, uint64_t seed, gi_idx b, int plain,
                     double *drawn, double *events);
/* How many of the smallest (*kl) and of the largest (*kh) values the
 * type-7 quantiles at plo and phi can need, for up to B values: what the
 * bands keep per forecast (here and on the GPU). */
void gi_band_ends(int B, double plo, double phi, int *kl, int *kh);

/* Threads the engine may use: the request capped by what OpenMP allows
 * (1 when the package was built without OpenMP). */
int gi_threads_cap(int requested);
/* Test-only: with on = 1, gi_threads_cap() grants up to 64 threads
 * whatever the processors, so that a two-core machine can run the engine
 * on eight. Returns the previous setting. */
int gi_threads_test_uncapped(int on);
/* Test-only: the least length of a fit that split.c writes past the cache
 * (its default when n < 1), so that short rows take that path too.
 * Returns the previous setting. */
gi_idx gi_split_test_stream_min(gi_idx n);
/* The processors OpenMP sees (1 without OpenMP). */
int gi_procs(void);
int gi_have_openmp(void);

/* Isotonic distributional regression (idr.c): the threshold sweep.
 * Observation i sits at distinct covariate index xcode[i] (0-based, < m),
 * weighs w[i] (w NULL: 1) and switches on at threshold kcode[i] (0-based,
 * the first threshold >= its y; K: never). After threshold k the antitonic
 * fit is appended as blocks: starts (x index of each block's first point)
 * and values, blocks ptr[k] .. ptr[k+1]-1 (ptr has K + 1 entries, ptr[0] =
 * 0). Every x index needs a positive summed weight. Work runs in pieces:
 * begin, step until done (each step does about `work` units), read the
 * result, free. A failed step leaves the sweep only fit to be freed. */
typedef struct gi_idr_sweep gi_idr_sweep;
gi_status gi_idr_begin(gi_idx n, const int *xcode, const int *kcode,
                       const double *w, gi_idx m, gi_idx K,
                       gi_idr_sweep **out);
gi_status gi_idr_step(gi_idr_sweep *s, gi_idx work);
int gi_idr_done(const gi_idr_sweep *s);
gi_idx gi_idr_nblocks(const gi_idr_sweep *s);
const double *gi_idr_ptr(const gi_idr_sweep *s);
const int *gi_idr_starts(const gi_idr_sweep *s);
const double *gi_idr_values(const gi_idr_sweep *s);
void gi_idr_free(gi_idr_sweep *s);

/* The codes of an IDR batch (idr.c): observations with 1-based level codes
 * level[] (sorted, within 1..L) and values v[], visited in the order ord
 * (NULL: as they are; else a 1-based permutation) in which they are sorted
 * by level, then value. code[i] gets the 0-based index of v[i] among its
 * level's distinct values, count[l] their number, runs[r] the distinct
 * values level after level; returns their number, or -1 where level or
 * ord is not as said. */
gi_idx gi_idr_level_runs(gi_idx n, const int *level, const double *v, const int *ord, int L,
                         int *code, int *count, double *runs);

/* Evaluation of an IDR fit (idr_eval.c). A prediction is a lower x index j
 * and a weight lam in [0, 1): its CDF at threshold k is
 * G_k = F_k(j) + lam (F_k(j + 1) - F_k(j)), and 0 for k < 0. */
typedef struct {
  gi_idx m, K;
  const double *ptr;   /* K + 1 block offsets */
  const int *start;    /* block starts */
  const double *value; /* block values */
} gi_idr_view;

/* F_k(j): the value of the block of threshold k that holds j. */
double gi_idr_F(const gi_idr_view *f, gi_idx k, gi_idx j);
double gi_idr_G(const gi_idr_view *f, gi_idx k, gi_idx j, double lam);

/* G at threshold indices k[] (-1: below the first threshold) for
 * predictions (j[i], lam[i]): every pair, out[i + npred * z] = G_{k[z]}
 * for prediction i (nk indices), or with `paired`, out[i] = G_{k[i]}
 * (nk = npred). */
void gi_idr_cdf(const gi_idr_view *f, gi_idx npred, const int *j,
                const double *lam, gi_idx nk, const int *k, int paired,
                double *out);

/* out[i + npred * q]: the smallest thresholds[k] with G_k >= alpha[q]
 * (with G_k > 0 for alpha 0), found by bisection over k. */
void gi_idr_quantiles(const gi_idr_view *f, const double *thresholds,
                      gi_idx npred, const int *j, const double *lam,
                      gi_idx nq, const double *alpha, double *out);

/* CRPS of each prediction i at observation y[i]; kappa[i] is the first k
 * with thresholds[k] >= y[i] (K if none). O((blocks + npred) log m). */
gi_status gi_idr_crps(const gi_idr_view *f, const double *thresholds,
                      gi_idx npred, const int *j, const double *lam,
                      const double *y, const int *kappa, double *out);

/* Predictions of a fit f on a partial order at q new points X (q x d, by
 * columns), its m points being Z (m x d, in the order of f's points) and
 * lex their lexicographic order (0-based), clim the climatological CDF at
 * the K thresholds (idr_po_predict.c). nbelow[x] and nabove[x] get the
 * numbers of maximal fitted points below and minimal ones above new point
 * x; the predictions come back as the blocks of a fit over q points (the
 * arrays malloc'ed), prediction x at position pos[x]. */
gi_status gi_idr_po_predict(const gi_idr_view *f, const double *Z, int d, const int *lex,
                            const double *X, gi_idx q, const double *clim, int nthreads,
                            int *nbelow, int *nabove, int *pos, double **ptr_out,
                            int **start_out, double **value_out, gi_idx *nb_out);

#ifdef __cplusplus
}
#endif

#endif

/*
 * Pool adjacent violators: one left-to-right pass with a stack of blocks,
 * then one right-to-left pass that writes the fit.
 *
 * Every element is pushed once and popped at most once, so a problem of n
 * elements costs O(n) whatever its shape. Per block the stack keeps its
 * first element and its sums of w*y and of w as unevaluated pairs (hi, lo),
 * added with an error-free two-sum (and, for weights, an error-free
 * product), so a block of millions of elements carries its sums to about
 * twice the working precision.
 *
 * Blocks are compared by cross multiplication of the hi parts, which keeps
 * the chain of dependent operations from one merge to the next short: that
 * chain, not the arithmetic, bounds the speed of the pass. The lo parts
 * are accumulated beside it, off that chain. When the two sides agree to
 * 30 bits, more than the lo parts can change unless a block's sum nearly
 * cancels, the full sums decide in double-double arithmetic (a filtered
 * predicate): equal means are pooled and near-ties are decided as exactly
 * as the sums allow. Each block's mean is formed once, from its full sums.
 * Until a unit-weight pass first pools, every block is one element: then
 * only its value is stored, and comparing two values is the exact test.
 *
 * Decreasing fits negate the values on the way in and out (exact). The
 * pass stays exact while every nonzero |y| and weight lies in [2^-200,
 * 2^200]: then no product, sum or cross product over- or underflows. The
 * pass notes any element outside; such a problem is redone on values and
 * weights scaled by powers of two (exact) when each spans at most 2^300,
 * and by the wide-exponent pass of wide.c otherwise. So the answer depends
 * on none of these tricks, for any finite input.
 *
 * A problem of GI_SPLIT_MIN elements or more is solved in pieces by
 * split.c, whatever the number of threads; this file solves the others
 * and dispatches a batch.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gi_memory.h"
#include "gi_omp.h"
#include "pava.h"
#include "wide.h"

typedef gi_stack workspace;

static int grow(void **p, gi_idx cap, size_t size)
{
  void *q = realloc(*p, (size_t) cap * size);
  if (q == NULL) return 1;
  *p = q;
  return 0;
}

/* Room for `need` blocks, grown geometrically: a workspace reused for
 * longer and longer problems reallocates rarely. */
static int reserve(workspace *ws, gi_idx need, int weighted)
{
  if (need <= ws->cap) return 0;
  if (ws->fixed) return 1; /* cannot happen: room for every element */
  gi_idx cap = ws->cap < 1024 ? 1024 : ws->cap;
  while (cap < need) cap *= 2;
  if (grow((void **) &ws->slo, cap, sizeof(double)) ||
      grow((void **) &ws->start, cap, sizeof(gi_idx)) ||
      (weighted && (grow((void **) &ws->whi, cap, sizeof(double)) ||
                    grow((void **) &ws->wlo, cap, sizeof(double)))))
    return 1;
  ws->cap = cap;
  return 0;
}

void gi_stack_free(gi_stack *ws)
{
  free(ws->slo); free(ws->whi); free(ws->wlo); free(ws->start);
  memset(ws, 0, sizeof(*ws));
}

/* The passes' loops start on 64-byte lines and their jump targets on
 * 32-byte ones. Without that their speed hung on where the code happened
 * to fall: adding the one prefetch below took the unit pass from 7.0 to
 * 8.6 ns an element at 10^4 noisy points (and 3 * 10^3 and 3 * 10^4 not
 * at all); aligned, the same source takes 6.8. R forbids -f flags in
 * Makevars, so GCC's optimize attribute sets them for these functions
 * (clang ignores that attribute). */
#if defined(__GNUC__) && !defined(__clang__)
#define GI_ALIGNS "align-loops=64", "align-jumps=32"
#define GI_ALIGNED_LOOPS __attribute__((optimize(GI_ALIGNS)))
#else
#define GI_ALIGNED_LOOPS
#endif

/* Where the processor has FMA but the compiler may not assume it, the
 * weighted pass is compiled a second time for it (chosen at run time):
 * the rounding error of w*y in one instruction instead of Dekker's
 * seventeen, exact either way, so the fit is the same to the bit. Nothing
 * else is contracted (fp-contract=off): every other operation rounds as in
 * the plain pass. GCC only: its optimize attribute says so per function.
 * GI_NO_FMA_CLONE leaves the clone out (make valgrind: valgrind 3.19
 * cannot decode the VEX moves that GCC makes of _mm_set_sd() there). */
#if defined(__x86_64__) && !defined(_WIN32) && !defined(FP_FAST_FMA) && \
    defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 5 &&     \
    !defined(GI_NO_FMA_CLONE)
#define GI_FMA_CLONE 1
#define GI_FMA_TARGET                                                    \
  __attribute__((target("fma"), optimize("fp-contract=off", GI_ALIGNS)))
#else
#define GI_FMA_CLONE 0
#endif

/* stores past the cache, one double at a time (gi_stack.stream) */
#if defined(__x86_64__) && defined(__SSE2__)
#define GI_MOVNTI 1
#else
#define GI_MOVNTI 0
#endif

/* a request for the cache line at p, to be written (a hint: it never
 * faults), where the compiler has one */
#if defined(__GNUC__)
#define GI_PREFETCH_WRITE(p) __builtin_prefetch((p), 1, 3)
#else
#define GI_PREFETCH_WRITE(p) ((void) 0)
#endif

static GI_ALWAYS_INLINE double product_err(double a, double b, double p,
                                           int fused)
{
#if GI_FMA_CLONE
  if (fused) return __builtin_fma(a, b, -p);
#endif
  (void) fused;
  return two_prod_err(a, b, p);
}

/* Block k onto the stack: sums (hi + lo) of w*y and (wh + wl) of w, first
 * element a. The stack has room for every element (see stack_pass()), so
 * a push neither checks nor grows it. */
static GI_ALWAYS_INLINE void push(double *shi, double *slo, double *whi,
                                  double *wlo, gi_idx *start, gi_idx k,
                                  int weighted, double hi, double lo,
                                  double wh, double wl, gi_idx a)
{
  shi[k] = hi;
  slo[k] = lo;
  start[k] = a;
  if (weighted) {
    whi[k] = wh;
    wlo[k] = wl;
  }
}

/* The weighted pass in two loops. Most points are decided by the
 * filter of gi_pools_by() alone; weighted_run()'s loop takes those, and
 * leaves to stack_pass()'s loop each point that needs the full test or
 * has zero weight (and to weighted_pops() the pops where a near tie
 * stops it after a point's merge). Inlined in one loop, the full test and
 * its operands took half the registers, and a pooled point ran about 75
 * instructions, a quarter of them spills, reloads and jumps around the
 * rare cases; about 60 in a loop of its own. On weighted rows of 10^3
 * to 10^5 points that took 4-7 % off the pass on the VM and 1-8 % on the
 * H100 host (bench/onethread-core-RESULTS.md). Both loops make the same
 * operations in the same order, so the sums and blocks are the same to
 * the bit whichever takes a point. A change of loop costs more than a
 * short run saves (0/1 values of unit weight, 10^3 points: 9.0 against
 * 6.6 us), so a run of weighted_run() shorter than GI_RUN_MIN points puts
 * its next one off by twice as many points as the last, up to
 * GI_RUN_BACKOFF_MAX. */
#define GI_RUN_MIN 256
#define GI_RUN_BACKOFF_MAX 16384

/* The top block of a weighted pass and the height k of the stack under
 * it, handed between the loops. */
typedef struct {
  double th, tl, tw, twl, tv;
  gi_idx k, ta;
  int tone;
} wtop;

/* Why weighted_run() stopped short of the piece's end: at a point for
 * stack_pass()'s loop to do whole, or in the pops that follow a point's
 * merge into the top (which holds the point then). */
enum { RUN_POINT, RUN_POPS };

/* weighted_run() with the scales and FMA as constants: from point i up to
 * i1 or to the first point that it leaves (see above). Returns where it
 * stopped, *what why. */
static GI_ALWAYS_INLINE gi_idx weighted_run_as(const double *y,
                                               const double *w, gi_idx i,
                                               gi_idx i1, gi_idx first,
                                               double sy, double sw,
                                               double *shi, workspace *ws,
                                               wtop *t, int fused, int *what)
{
  double *const slo = ws->slo, *const whi = ws->whi, *const wlo = ws->wlo;
  gi_idx *const start = ws->start;
  double th = t->th, tl = t->tl, tw = t->tw, twl = t->twl, tv = t->tv;
  gi_idx k = t->k, ta = t->ta;
  int tone = t->tone;
  *what = RUN_POINT;
  for (; i < i1; i++) {
    GI_PREFETCH_WRITE(shi + i + 64);
    double wi = sw * w[i];
    if (!(wi > 0.0)) break;
    double v = sy * y[i];
    double chi = wi * v, clo = product_err(wi, v, chi, fused), cwh = wi, cwl;
    gi_idx a;
    if (tone) {
      if (!(tv >= v)) goto push_point;
    } else {
      /* gi_pools_point()'s filter, written out; inside its band, the
       * full test, in stack_pass()'s loop */
      double q = th, p = v * tw;
      double d = q - p, tol = 0x1p-29 * fabs(q);
      if (q < p) {
        if (p - q > tol) goto push_point;
        break;
      }
      if (!(d > tol)) break;
    }
    tone = 0;
    gi_merge_sums(th, tl, &chi, &clo);
    a = ta;
    {
      double e;
      gi_two_sum_pos(tw, cwh, &cwh, &e);
      cwl = twl + e;
    }
    while (k > 0) {
      /* gi_pools()'s filter, written out */
      double q = shi[k - 1] * cwh, p = chi * whi[k - 1];
      double d = q - p, tol = 0x1p-29 * fabs(q);
      if (q < p) {
        if (p - q > tol) break;
        goto pops_left;
      }
      if (!(d > tol)) goto pops_left;
      --k;
      gi_merge_sums(shi[k], slo[k], &chi, &clo);
      a = start[k];
      gi_add_weights(whi[k], wlo[k], &cwh, &cwl);
    }
    th = chi; tl = clo; tw = cwh; twl = cwl; ta = a;
    continue;
  push_point:
    push(shi, slo, whi, wlo, start, k++, 1, th, tl, tw, twl, ta);
    th = chi; tl = clo; tw = cwh; twl = 0.0; ta = first + i;
    tone = 1; tv = v;
    continue;
  pops_left:
    th = chi; tl = clo; tw = cwh; twl = cwl; ta = a;
    *what = RUN_POPS;
    break;
  }
  t->th = th; t->tl = tl; t->tw = tw; t->twl = twl; t->tv = tv;
  t->k = k; t->ta = ta; t->tone = tone;
  return i;
}

/* The pops that weighted_run() left (RUN_POPS): the top into the blocks
 * under it while they pool, by the full rule, as stack_pass()'s loop
 * makes them. */
static GI_NOINLINE void weighted_pops(const double *shi, workspace *ws, wtop *t)
{
  double chi = t->th, clo = t->tl, cwh = t->tw, cwl = t->twl;
  gi_idx a = t->ta, k = t->k;
  while (k > 0 && gi_pools(shi[k - 1], &ws->slo[k - 1], ws->whi[k - 1],
                           &ws->wlo[k - 1], chi, clo, cwh, cwl,
                           &ws->overflow)) {
    --k;
    gi_merge_sums(shi[k], ws->slo[k], &chi, &clo);
    a = ws->start[k];
    gi_add_weights(ws->whi[k], ws->wlo[k], &cwh, &cwl);
  }
  t->th = chi; t->tl = clo; t->tw = cwh; t->twl = cwl; t->ta = a; t->k = k;
}

#define WEIGHTED_RUN(fused)                                                  \
  if (sw == 1.0 && sy == 1.0)                                                \
    return weighted_run_as(y, w, i, i1, first, 1.0, 1.0, shi, ws, t, fused,  \
                           what);                                            \
  if (sw == 1.0 && sy == -1.0)                                               \
    return weighted_run_as(y, w, i, i1, first, -1.0, 1.0, shi, ws, t, fused, \
                           what);                                            \
  return weighted_run_as(y, w, i, i1, first, sy, sw, shi, ws, t, fused, what)

#if GI_FMA_CLONE
GI_FMA_TARGET GI_NOINLINE
static gi_idx weighted_run_fma(const double *y, const double *w, gi_idx i,
                               gi_idx i1, gi_idx first, double sy, double sw,
                               double *shi, workspace *ws, wtop *t, int *what)
{
  WEIGHTED_RUN(1);
}
#endif

GI_ALIGNED_LOOPS GI_NOINLINE
static gi_idx weighted_run_plain(const double *y, const double *w, gi_idx i,
                                 gi_idx i1, gi_idx first, double sy, double sw,
                                 double *shi, workspace *ws, wtop *t,
                                 int *what)
{
  WEIGHTED_RUN(0);
}

static GI_ALWAYS_INLINE gi_idx weighted_run(const double *y, const double *w,
                                            gi_idx i, gi_idx i1, gi_idx first,
                                            double sy, double sw, double *shi,
                                            workspace *ws, wtop *t, int fused,
                                            int *what)
{
#if GI_FMA_CLONE
  if (fused)
    return weighted_run_fma(y, w, i, i1, first, sy, sw, shi, ws, t, what);
#endif
  (void) fused;
  return weighted_run_plain(y, w, i, i1, first, sy, sw, shi, ws, t, what);
}

/* The stack pass over y (scaled by sy; weights by sw, w NULL for unit
 * weights, and `weighted` w != NULL as a constant, so that each build of
 * the pass tests for weights nowhere), with the hi parts of the block
 * sums in shi[] and block starts counted from `first`. The stack must
 * have room for n blocks (the callers reserve it, so that no push has to
 * check). Returns the number
 * of blocks (0 when every weight is zero), -1 when it has less room, -2
 * when interrupted. Sets ws->singles (see gi_stack), and
 * ws->outside if an element lies outside the window of dd.h (the result
 * is then not to be used). Pooling follows gi_pools(). A point of zero
 * weight decides nothing: it joins the block of the next positive-weight
 * point (`pend` remembers where such points began); trailing ones stay in
 * the last block, and ws->pend says where they begin.
 *
 * The top block lives in registers and goes to the stack only when a
 * point starts a block above it: a point that pools with the top costs no
 * store and no load. The operations, and their order, are those of the
 * plain stack pass in which every point is pushed and then popped (see
 * lockstep.c, which does the same in lanes): a merge adds the lower
 * block's sums to the upper's, hi parts by two_sum(lower, upper), lo parts
 * as upper + (lower + error). */
static GI_ALWAYS_INLINE gi_idx stack_pass(const double *y, const double *w,
                                         const int weighted, gi_idx n,
                                         gi_idx first, double sy, double sw,
                                         double *shi, workspace *ws,
                                         int fused)
{
  gi_idx k = 0, pend = -1; /* k: blocks under the top */
  /* the top block: sums th + tl of w*y and tw + twl of w, first element ta
   * (tw its length for unit weights); none until ta >= 0 */
  double th = 0.0, tl = 0.0, tw = 0.0, twl = 0.0;
  gi_idx ta = -1;
  /* the top is one point of positive weight, of value tv: it pools with
   * the next point exactly when tv >= that point's value (the sums are
   * w tv and w' v, so the exact test is tv >= v, and two distinct doubles
   * differ by far more than the 2^-80 tie band of gi_sums_geq()). A
   * compare of two loaded values decides sooner than a cross product,
   * which matters when the branch is mispredicted. Weighted passes only:
   * the unit pass has the loop of singles below, and gained nothing. */
  int tone = 0;
  double tv = 0.0;
  double *const slo = ws->slo, *const whi = ws->whi, *const wlo = ws->wlo;
  gi_idx *const start = ws->start;
  int outside = 0;
  /* weighted passes: the point from which weighted_run() is tried again
   * after a short run, and how many points the next short run puts off */
  gi_idx retry = 0, backoff = GI_RUN_MIN;
  /* unit weights, nothing pooled yet: each block is one element, so its lo
   * sum is 0 and its start is implied (see the loop below) */
  int singles = !weighted;
  if (ws->cap < n) return -1;
  /* in pieces, between which the master thread may ask about interrupts;
   * each piece is scanned for the window after the pass, while it is in
   * cache (a scan before the pass read it from memory: weighted rows of
   * 1e5 took 14.8 against 11.9 ns per element in all), and not at all
   * when the caller's scan has told (ws->inside) */
  for (gi_idx i0 = 0; i0 < n; i0 += 0x10000) {
    gi_idx i1 = n - i0 > 0x10000 ? i0 + 0x10000 : n;
    if (i0 > 0 && gi_interrupted(0x10000)) return -2;
    gi_idx i = i0;
    if (singles) {
      /* While every block is one element of unit weight, the top is
       * element k and only the hi sums are stored (on increasing data the
       * pass writes a third of the memory). Two such blocks pool exactly
       * when th >= v: their sums are exact, and inside the window two
       * distinct values differ by far more than gi_sums_geq()'s 2^-80, so
       * gi_pools() decides so too (outside it the pass is redone anyway). */
      if (ta < 0) {
        th = sy * y[i++];
        tl = 0.0;
        tw = 1.0;
      }
#if GI_MOVNTI
      if (ws->stream) {
        for (; i < i1; i++) {
          double v = sy * y[i];
          if (th >= v) break;
          long long bits;
          memcpy(&bits, &th, sizeof(bits));
          _mm_stream_si64((long long *) (shi + k++), bits);
          th = v;
        }
        /* such stores are weakly ordered: fenced before anything reads
         * them (this pass below, or the threads that merge the pieces);
         * the fence also keeps the compiler from moving those reads, of
         * doubles, above these stores, of integers */
        _mm_sfence();
      } else
#endif
      for (; i < i1; i++) {
        double v = sy * y[i];
        if (th >= v) break;
        shi[k++] = th;
        th = v;
      }
      ta = first + k;
      if (i < i1) {
        /* the first pooling: the loop below stores every field */
        gi_fill_singles(slo, start, k, first);
        singles = 0;
      }
    }
    if (weighted && ta < 0) {
      /* the first point of positive weight becomes the top */
      for (; i < i1; i++) {
        double wi = sw * w[i];
        if (!(wi > 0.0)) {
          if (pend < 0) pend = first + i;
          continue;
        }
        double v = sy * y[i];
        th = wi * v;
        tl = product_err(wi, v, th, fused);
        tw = wi;
        twl = 0.0;
        ta = pend >= 0 ? pend : first + i;
        pend = -1;
        tone = 1;
        tv = v;
        i++;
        break;
      }
    }
    while (i < i1) {
      if (weighted && pend < 0 && i >= retry) {
        /* the points that need no full test in weighted_run()'s loop;
         * the point it stops at goes to the loop below, which holds no
         * call, or the pops after that point's merge to weighted_pops() */
        wtop t = {th, tl, tw, twl, tv, k, ta, tone};
        int what;
        gi_idx from = i;
        i = weighted_run(y, w, i, i1, first, sy, sw, shi, ws, &t, fused,
                         &what);
        if (what == RUN_POPS) weighted_pops(shi, ws, &t);
        th = t.th; tl = t.tl; tw = t.tw; twl = t.twl; tv = t.tv;
        k = t.k; ta = t.ta; tone = t.tone;
        if (i >= i1) break;
        /* a run shorter than the cost of leaving weighted_run() (ties,
         * zero weights): the loop below takes the next points, more of
         * them each time that happens again */
        if (i - from < GI_RUN_MIN) {
          retry = i + backoff;
          if (backoff < GI_RUN_BACKOFF_MAX) backoff *= 2;
        } else {
          backoff = GI_RUN_MIN;
        }
        if (what == RUN_POPS) {
          i++;
          continue;
        }
      }
      /* the general loop: up to where weighted_run() may take over again
       * (one point at least), and for unit weights to the piece's end */
      gi_idx stop = i1;
      if (weighted && retry < i1) stop = retry > i ? retry : i + 1;
      for (; i < stop; i++) {
        /* shi is the fit (here and in split.c's pieces), most often a
         * fresh result, which the spread then writes whole: its stores
         * waited on each cache line, a seventh of a weighted fit of 10^3
         * points in R. Asked for 64 elements ahead, the lines arrive while
         * the pass works (6.9 -> 5.8 us there; neutral at 10^6 and 10^7
         * points, on one thread and on two). Unconditional: a flag or a
         * mask held in a register cost the pass 6 % at 10^5 points. */
        GI_PREFETCH_WRITE(shi + i + 64);
        double v = sy * y[i], chi = v, clo = 0.0, cwh = 1.0, cwl = 0.0;
        gi_idx a = first + i;
        if (weighted) {
          double wi = sw * w[i];
          /* weights are never negative or NaN here, so this is wi == 0,
           * tested with one branch where == takes two (its NaN case) */
          if (!(wi > 0.0)) {
            if (pend < 0) pend = first + i;
            continue;
          }
          if (pend >= 0) {
            a = pend;
            pend = -1;
          }
          chi = wi * v;
          clo = product_err(wi, v, chi, fused);
          cwh = wi;
        }
        /* (a top exists: the singles loop or the loop above made one) */
        if (tone ? !(tv >= v)
                 : !gi_pools_point(th, &tl, tw, weighted ? &twl : NULL, v, chi,
                                   clo, cwh, &ws->overflow)) {
          /* a block of its own: the top goes onto the stack */
          push(shi, slo, whi, wlo, start, k++, weighted, th, tl, tw, twl, ta);
          th = chi; tl = clo; tw = cwh; twl = cwl; ta = a;
          tone = weighted; tv = v;
          continue;
        }
        tone = 0;
        /* pooled with the top, then the top with the blocks under it while
         * their mean is >= its own */
        gi_merge_sums(th, tl, &chi, &clo);
        a = ta;
        if (weighted) {
          /* gi_add_weights() into a point's weight, whose lo part cwl is 0:
           * cwl = 0 + (twl + e) is twl + e, as 0 + x is x but for x = -0,
           * which a sum of positive weights and their errors never is.
           * Written out, the top's weight lo part waits on one addition
           * per pooled point instead of two. With gi_pools_point() above,
           * weighted rows took 3-4 % less time on the VM (bench/
           * onethread-core-RESULTS.md); the fits are the same to the bit. */
          double e;
          gi_two_sum_pos(tw, cwh, &cwh, &e);
          cwl = twl + e;
        } else {
          cwh = (double) (first + i + 1 - a);
        }
        while (k > 0 && gi_pools(shi[k - 1], &slo[k - 1],
                                 weighted ? whi[k - 1]
                                          : (double) (a - start[k - 1]),
                                 weighted ? &wlo[k - 1] : NULL, chi, clo, cwh,
                                 cwl, &ws->overflow)) {
          --k;
          gi_merge_sums(shi[k], slo[k], &chi, &clo);
          a = start[k];
          if (weighted) {
            gi_add_weights(whi[k], wlo[k], &cwh, &cwl);
          } else {
            cwh = (double) (first + i + 1 - a);
          }
        }
        th = chi; tl = clo; tw = cwh; twl = cwl; ta = a;
      }
    }
    if (!ws->inside)
      outside |= gi_any_outside(y + i0, i1 - i0, sy) |
                 (weighted && gi_any_outside(w + i0, i1 - i0, sw));
  }
  if (ta >= 0) {
    if (singles) shi[k++] = th;
    else push(shi, slo, whi, wlo, start, k++, weighted, th, tl, tw, twl, ta);
  }
  ws->singles = singles;
  ws->outside = outside;
  ws->pend = pend;
  return k;
}

/* The pass compiled for the scales it nearly always meets, so that the
 * multiplication by +-1 (exact either way) folds away: it would stand on
 * the chain from a load to the next pooling decision. */
GI_ALIGNED_LOOPS
static gi_idx stack_pass_unit(const double *y, gi_idx n, gi_idx first,
                              double sy, double *shi, workspace *ws)
{
  if (sy == 1.0)
    return stack_pass(y, NULL, 0, n, first, 1.0, 1.0, shi, ws, 0);
  if (sy == -1.0)
    return stack_pass(y, NULL, 0, n, first, -1.0, 1.0, shi, ws, 0);
  return stack_pass(y, NULL, 0, n, first, sy, 1.0, shi, ws, 0);
}

#define WEIGHTED_PASS(fused)                                                 \
  if (sw == 1.0 && sy == 1.0)                                                \
    return stack_pass(y, w, 1, n, first, 1.0, 1.0, shi, ws, fused);          \
  if (sw == 1.0 && sy == -1.0)                                               \
    return stack_pass(y, w, 1, n, first, -1.0, 1.0, shi, ws, fused);         \
  return stack_pass(y, w, 1, n, first, sy, sw, shi, ws, fused)

#if GI_FMA_CLONE
GI_FMA_TARGET
static gi_idx stack_pass_weighted_fma(const double *y, const double *w,
                                      gi_idx n, gi_idx first, double sy,
                                      double sw, double *shi, workspace *ws)
{
  WEIGHTED_PASS(1);
}
#endif

GI_ALIGNED_LOOPS
static gi_idx stack_pass_weighted(const double *y, const double *w, gi_idx n,
                                  gi_idx first, double sy, double sw,
                                  double *shi, workspace *ws)
{
#if GI_FMA_CLONE
  if (__builtin_cpu_supports("fma"))
    return stack_pass_weighted_fma(y, w, n, first, sy, sw, shi, ws);
#endif
  WEIGHTED_PASS(0);
}

gi_idx gi_stack_pass(const double *y, const double *w, gi_idx n, gi_idx first,
                     double sy, double sw, double *shi, gi_stack *ws)
{
  return w == NULL ? stack_pass_unit(y, n, first, sy, shi, ws)
                   : stack_pass_weighted(y, w, n, first, sy, sw, shi, ws);
}

/* Spread the block means over their blocks, right to left: block b's sums
 * sit at index b <= start[b], so a block is read before anything is
 * written over it. Returns -1 if a sum is not finite. */
int gi_spread(const gi_blocks *B, double *fit, double back,
              unsigned char *starts)
{
  const int unit = B->whi == NULL;
  gi_idx end = B->n;
  double next = INFINITY;
  int bad = 0; /* an integer flag: no chain of additions from block to block */
  for (gi_idx j = B->k - 1; j >= 0; j--) {
    gi_idx a = B->start[j];
    double m = B->hi[j];
    /* One unit-weight element below the mean above it, as on increasing
     * data: gi_block_mean() would return its value and the clamp below
     * would keep it, so it is written at once. */
    if (unit && end - a == 1 && B->lo[j] == 0.0 && m < next) {
      bad |= m * 0.0 != 0.0;
      next = m;
      fit[a] = m * back;
      end = a;
      continue;
    }
    double wt = unit ? (double) (end - a) : B->whi[j];
    m = gi_block_mean(m, B->lo[j], wt, unit ? 0.0 : B->wlo[j]);
    bad |= m * 0.0 != 0.0; /* a mean that is not finite */
    /* the means are in order; their rounding must not step down */
    m = m < next ? m : next;
    next = m;
    m *= back;
    gi_fill(fit, a, end, m);
    end = a;
  }
  if (bad) return -1;
  if (starts != NULL) {
    memset(starts, 0, (size_t) B->n);
    for (gi_idx j = 0; j < B->k; j++) starts[B->start[j]] = 1;
  }
  return 0;
}

void gi_spread_rising(double *fit, gi_idx n, double next, double back,
                      unsigned char *starts)
{
  /* The values strictly increase, so the clamp m = min(value, next)
   * takes next at the top, where a value is not below it, and then the
   * values themselves: they only need scaling back, and none when back
   * is 1. */
  gi_idx i = n - 1;
  for (; i >= 0 && !(fit[i] < next); i--) fit[i] = next * back;
  if (back != 1.0)
    for (; i >= 0; i--) fit[i] *= back;
  if (starts != NULL) memset(starts, 1, (size_t) n);
}

void gi_exponent_range(const double *x, gi_idx n, int *lo, int *hi)
{
  double mx = 0.0, mn = INFINITY;
  for (gi_idx i = 0; i < n; i++) {
    double a = fabs(x[i]);
    mx = a > mx ? a : mx;
    mn = a < mn && a != 0.0 ? a : mn;
  }
  *hi = mx > 0.0 ? ilogb(mx) : 0;
  *lo = mx > 0.0 ? ilogb(mn) : 1;
}

double gi_centring_scale(int lo, int hi)
{
  if (lo > hi) return 1.0;
  if (hi - lo > 300) return 0.0;
  return ldexp(1.0, -(lo + (hi - lo) / 2));
}

gi_status gi_solve_one(const double *y, const double *w, gi_idx n,
                       int decreasing, double *fit, unsigned char *starts,
                       gi_stack *ws)
{
  if (n == 0) return GI_OK;
  double sign = decreasing ? -1.0 : 1.0, sy = sign, sw = 1.0;
  /* room for every element, so that the pass never checks for it; pages
   * the pass does not reach are never touched */
  if (reserve(ws, n, w != NULL)) return GI_ERR_NOMEM;
  for (int attempt = 0; attempt < 2; attempt++) {
    ws->overflow = 0;
    gi_idx k = w == NULL ? stack_pass_unit(y, n, 0, sy, fit, ws)
                         : stack_pass_weighted(y, w, n, 0, sy, sw, fit, ws);
    if (k == -1) return GI_ERR_NOMEM;
    if (k == -2) return GI_ERR_INTERRUPT;
    if (!ws->outside) {
      if (k == 0) return GI_ERR_ZERO_WEIGHT;
      if (ws->singles && !ws->overflow) {
        gi_spread_rising(fit, n, INFINITY, 1.0 / sy, starts);
        return GI_OK;
      }
      gi_blocks B = {fit, ws->slo, w == NULL ? NULL : ws->whi,
                     w == NULL ? NULL : ws->wlo, ws->start, k, n};
      /* inside the window nothing overflows; the check only guards it */
      if (gi_spread(&B, fit, 1.0 / sy, starts) == 0 && !ws->overflow)
        return GI_OK;
      break;
    }
    if (attempt > 0) break;
    /* Outside the window: scale values and weights by powers of two. */
    int ylo, yhi, wlo = 0, whi = 0;
    gi_exponent_range(y, n, &ylo, &yhi);
    if (w != NULL) gi_exponent_range(w, n, &wlo, &whi);
    double cy = gi_centring_scale(ylo, yhi), cw = gi_centring_scale(wlo, whi);
    if (cy == 0.0 || cw == 0.0) break;
    sy = sign * cy;
    sw = cw;
  }
  return gi_pava_wide(y, w, n, decreasing, fit, starts);
}

static int is_long(const gi_idx *offsets, gi_idx b)
{
  return offsets[b + 1] - offsets[b] >= GI_SPLIT_MIN;
}

/* Problem b of a batch; long ones are left to split.c. */
static gi_status solve_problem(const double *y, const double *w,
                               const gi_idx *offsets, gi_idx b,
                               int decreasing, double *fit,
                               unsigned char *starts, workspace *ws)
{
  gi_idx a = offsets[b], n = offsets[b + 1] - a;
  if (n >= GI_SPLIT_MIN) return GI_OK;
  return gi_solve_one(y + a, w == NULL ? NULL : w + a, n, decreasing,
                      fit + a, starts == NULL ? NULL : starts + a, ws);
}

/* Short problems are spread over the threads, a problem to a thread (GI_LANES
 * at a time in lockstep.c when there are as many), in chunks taken in
 * order; each long one is then cut into pieces that all the threads
 * share. */
static gi_status batch(const double *y, const double *w,
                       const gi_idx *offsets, gi_idx nprob, int decreasing,
                       int nthreads, int inside, double *fit,
                       unsigned char *starts, gi_idx *bad)
{
  gi_status status = GI_OK;
  gi_idx first_bad = nprob, nlong = 0;
  for (gi_idx b = 0; b < nprob; b++) nlong += is_long(offsets, b);
  /* Threads pay off only on batches with enough work to share. */
  int nt = nprob - nlong < 2 || offsets[nprob] - offsets[0] < 65536
               ? 1 : gi_threads_cap(nthreads);
  /* Chunks of problems small enough to balance ragged batches. */
  gi_idx chunk = nprob / ((gi_idx) nt * 16);
  if (chunk < 1) chunk = 1;
  if (chunk > 64) chunk = 64;

  /* enough short problems to fill the lanes of lockstep.c */
  int lanes = nprob - nlong >= GI_LANES;

  if (nlong == nprob) {
    /* nothing short to solve */
  } else if (lanes && nt == 1) {
    status = gi_lockstep(y, w, offsets, nprob, decreasing, NULL, 0, NULL, fit,
                         starts, &first_bad);
  } else if (lanes) {
    gi_idx next = 0, stop = nprob;
#pragma omp parallel num_threads(nt)
    {
      gi_idx my_bad;
      gi_status mine = gi_lockstep(y, w, offsets, nprob, decreasing, &next,
                                   chunk, &stop, fit, starts, &my_bad);
#pragma omp critical(gpuiso_status)
      if (my_bad < first_bad) {
        first_bad = my_bad;
        status = mine;
      }
    }
  } else if (nt == 1) {
    /* no parallel region at all: it costs more than a short problem; and
     * one workspace with room for the longest problem, kept from call to
     * call (gi_scratch_take()) */
    gi_idx m = 0;
    for (gi_idx b = 0; b < nprob; b++) {
      gi_idx len = offsets[b + 1] - offsets[b];
      if (len < GI_SPLIT_MIN && len > m) m = len;
    }
    gi_scratch mem = gi_scratch_take((size_t) m * (w != NULL ? 4 : 2) *
                                     sizeof(double));
    workspace ws;
    memset(&ws, 0, sizeof(ws));
    if (mem.p == NULL) {
      /* the first problem that needs the workspace fails */
      status = GI_ERR_NOMEM;
      for (first_bad = 0; first_bad < nprob; first_bad++) {
        gi_idx len = offsets[first_bad + 1] - offsets[first_bad];
        if (len > 0 && len < GI_SPLIT_MIN) break;
      }
    } else {
      ws.slo = mem.p;
      ws.start = (gi_idx *) (ws.slo + m);
      if (w != NULL) {
        ws.whi = (double *) (ws.start + m);
        ws.wlo = ws.whi + m;
      }
      ws.cap = m;
      ws.fixed = 1;
    }
    ws.inside = inside;
    for (gi_idx b = 0; b < nprob && status == GI_OK; b++) {
      status = solve_problem(y, w, offsets, b, decreasing, fit, starts, &ws);
      if (status == GI_OK && !is_long(offsets, b) &&
          gi_interrupted(offsets[b + 1] - offsets[b] + 64))
        status = GI_ERR_INTERRUPT;
      first_bad = b;
    }
    gi_scratch_give(mem);
  } else {
#pragma omp parallel num_threads(nt)
    {
      gi_status mine = GI_OK;
      gi_idx my_bad = nprob;
      workspace ws;
      memset(&ws, 0, sizeof(ws));
      ws.inside = inside;
#pragma omp for schedule(dynamic, chunk)
      for (gi_idx b = 0; b < nprob; b++) {
        if (mine != GI_OK || is_long(offsets, b)) continue;
        gi_status r = solve_problem(y, w, offsets, b, decreasing, fit, starts,
                                    &ws);
        /* the master thread asks R; the others see its answer */
        if (r == GI_OK && gi_interrupted(offsets[b + 1] - offsets[b] + 64))
          r = GI_ERR_INTERRUPT;
        if (r != GI_OK) {
          mine = r;
          my_bad = b;
        }
      }
      gi_stack_free(&ws);
#pragma omp critical(gpuiso_status)
      if (my_bad < first_bad) {
        first_bad = my_bad;
        status = mine;
      }
    }
  }
  if (status == GI_OK) first_bad = nprob;
  /* the long problems, each on all the threads, up to the first failure */
  for (gi_idx b = 0; b < first_bad && nlong > 0; b++) {
    if (!is_long(offsets, b)) continue;
    gi_idx a = offsets[b];
    gi_status r = gi_solve_split(y + a, w == NULL ? NULL : w + a,
                                 offsets[b + 1] - a, decreasing,
                                 gi_threads_cap(nthreads), inside, 0,
                                 fit + a, starts == NULL ? NULL : starts + a);
    if (r != GI_OK) {
      status = r;
      first_bad = b;
    }
  }
  *bad = status == GI_OK ? -1 : first_bad;
  return status;
}

gi_status gi_isotonic_batch(const double *y, const double *w,
                            const gi_idx *offsets, gi_idx nprob,
                            int decreasing, int nthreads,
                            double *fit, unsigned char *starts, gi_idx *bad)
{
  return batch(y, w, offsets, nprob, decreasing, nthreads, 0, fit, starts,
               bad);
}

gi_status gi_isotonic_batch_in_window(const double *y, const double *w,
                                      const gi_idx *offsets, gi_idx nprob,
                                      int decreasing, int nthreads,
                                      double *fit, unsigned char *starts,
                                      gi_idx *bad)
{
  return batch(y, w, offsets, nprob, decreasing, nthreads, 1, fit, starts,
               bad);
}

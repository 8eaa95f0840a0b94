/*
 * Batches of short problems: four stack passes in lockstep, without
 * branches.
 *
 * Why. On noisy data the stack pass of pava.c (stack_pass()) cannot
 * predict whether the next step pools or pushes: about 0.7 of its
 * decisions per element are mispredicted, and each costs more than the
 * arithmetic of a step (bench/core-floor.c, bench/RESULTS-core.md). Here
 * every problem advances by one step a round, a pool or a push: both
 * outcomes are computed and the right one chosen by a mask, so that no
 * branch depends on the data. Four independent problems (lanes) share a
 * round, two to a 128-bit register, so that their chains of dependent
 * steps overlap. A lane that finishes its problem takes the next one of
 * the batch, in order, so the lanes stay full until the batch runs out.
 *
 * What is identical. Each lane does what stack_pass() does, operation for
 * operation, on the values and weights as gi_solve_one()'s first attempt
 * scales them (by +-1 and 1): the same pooling decision (gi_pools(): the
 * cross products of the hi parts with the 2^-29 |q| band; inside the band,
 * which is rare, the lane is decided by gi_pools() itself on the same
 * operands), the same compensated sums (two_sum() of the hi parts, the lo
 * parts added in the same order, two_prod_err() for w*y), the same block
 * starts, with zero weights skipped and joined to the next positive
 * point's block (trailing ones stay in the last block), and the same
 * means, spread by pava.c's gi_spread(). Vector arithmetic rounds each
 * lane as scalar arithmetic does; a unit-weight block's length, a double
 * here, is a whole number below 2^53, so a merged length (the sum of two)
 * is stack_pass()'s (i + 1) - a exactly. So the fit and the block starts
 * are gi_solve_one()'s to the bit. A problem whose values or weights leave
 * the window of dd.h (or are not finite, or negative, or all zero) never
 * enters a lane: gi_solve_one() solves it, with its scaling and wide pass,
 * and so it does a lane's problem whose exact test overflowed or whose
 * means are not finite (neither happens inside the window).
 *
 * Without branches. Below a lane's stack lies a block that nothing inside
 * the window pools with (SENTINEL_*), so an empty stack needs no test.
 * Behind a lane's values lies a tail of huge increasing ones that pool
 * with nothing either: a lane that has run past its last value only
 * pushes those, so the lanes are looked at every ROUNDS rounds, and the
 * tail's blocks are then dropped from the top of the stack, which leaves
 * it as the pass left it after its last value. Unit weights are copied
 * (times the sign) into a lane's buffer before the tail; weighted points
 * are prepared PREP at a time (w*y and its error, w, the block start),
 * zero weights dropped, then the tail.
 *
 * Memory: per lane a stack of as many slots as its longest problem has
 * elements, and a buffer as long (unit weights) or of PREP points, reused
 * from problem to problem; one set of block arrays for the spread. Without
 * GNU C's vector extensions the problems go to gi_solve_one() one by one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gi_omp.h"
#include "pava.h"

#if defined(__GNUC__)
#define GI_LOCKSTEP 1
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
/* Four lanes to a 256-bit register where the processor has AVX2 (asked at
 * run time). Not on Windows, where GCC cannot align the stack for
 * 256-bit spills. AVX2 brings no FMA: nothing is contracted. */
#if defined(__x86_64__) && !defined(_WIN32) && \
    (defined(__clang__) || __GNUC__ >= 5)
#define GI_AVX2 1
#include <immintrin.h>
#if defined(__clang__)
#define GI_TARGET __attribute__((target("avx2")))
#else
/* and no SLP: GCC would add the lanes' pointer steps in vector registers
 * and move them back one by one */
#define GI_TARGET \
  __attribute__((target("avx2"), optimize("no-tree-slp-vectorize")))
#endif
#else
#define GI_AVX2 0
#endif
#else
#define GI_LOCKSTEP 0
#define GI_AVX2 0
#endif

#define ROUNDS 4         /* rounds between looks at the lanes */
#define TAIL (ROUNDS + 1) /* values behind a lane's last */
#define PREP 256         /* weighted points prepared at a time */
#define SLOT_U 3         /* a stack slot, unit weights: hi, lo, length */
#define SLOT_W 5         /* weighted: hi, lo, first element, whi, wlo */
#define POINT 4          /* a prepared point: hi, lo, w, first element */

/* A lane between rounds: the pass's state, its problem and its memory. */
typedef struct {
  /* the block being inserted (sums chi + clo of w*y, cwh + cwl of w;
   * weighted, its first element a) and the top's hi sums (ts, tw) */
  double chi, clo, cwh, cwl, a, ts, tw;
  double *Sk;        /* stack slot k */
  const double *cur; /* the value (unit weights) or point being inserted */
  const double *end; /* where the tail begins */
  int ovf;           /* the exact test overflowed */
  int active;
  int exhausted;     /* weighted: nothing left to prepare */
  gi_idx b, first, n;
  gi_idx pos, pend;  /* weighted: the next element to prepare, where the
                        zero weights before it begin (-1: none) */
  double *mem;       /* two padding slots, then cap slots */
  gi_idx cap;
  double *buf;       /* the values or points, then the tail */
  gi_idx bcap;
} lane;

typedef struct {
  const double *y, *w;
  const gi_idx *off;
  gi_idx nprob;
  int decreasing;
  double sy;
  double *fit;
  unsigned char *starts;
  gi_idx *next, *stop, chunk, cur, end;
  int fed; /* no more problems to take */
  gi_idx bad;
  gi_status status;
  gi_stack ws; /* gi_solve_one()'s */
  double *bh, *bl, *bwh, *bwl;
  gi_idx *bs, bcap;
  int quad;   /* lanes four to a register (AVX2), else two */
  int nlanes; /* 8 or 4 */
  lane L[8];
} engine;

/* ---- the batch's problems, in order ---------------------------------- */

static gi_idx shared_stop(const engine *E)
{
  gi_idx s;
  if (E->stop == NULL) return E->nprob;
#pragma omp atomic read
  s = *E->stop;
  return s;
}

/* The outcome r of problem b (n elements): the first failure is kept. */
static void record(engine *E, gi_idx b, gi_idx n, gi_status r)
{
  if (r == GI_OK && gi_interrupted(n + 64)) r = GI_ERR_INTERRUPT;
  if (r == GI_OK || b >= E->bad) return;
  E->bad = b;
  E->status = r;
  if (E->stop != NULL) {
#pragma omp critical(gpuiso_lockstep)
    {
      gi_idx s;
#pragma omp atomic read
      s = *E->stop;
      if (b < s) {
#pragma omp atomic write
        *E->stop = b;
      }
    }
  }
}

static void solve_scalar(engine *E, gi_idx b)
{
  gi_idx a = E->off[b], n = E->off[b + 1] - a;
  gi_status r = gi_solve_one(E->y + a, E->w == NULL ? NULL : E->w + a, n,
                             E->decreasing, E->fit + a,
                             E->starts == NULL ? NULL : E->starts + a, &E->ws);
  record(E, b, n, r);
}

/* The next short problem with elements, or -1: none left, or none needed
 * after a failure. */
static gi_idx feed(engine *E)
{
  while (!E->fed) {
    if (E->cur >= E->end) {
      gi_idx c;
      if (E->next == NULL) break;
#pragma omp atomic capture
      {
        c = *E->next;
        *E->next += E->chunk;
      }
      if (c >= E->nprob) break;
      E->cur = c;
      E->end = E->nprob - c > E->chunk ? c + E->chunk : E->nprob;
    }
    gi_idx b = E->cur++;
    if (b > E->bad || b > shared_stop(E)) break;
    gi_idx n = E->off[b + 1] - E->off[b];
    if (n > 0 && n < GI_SPLIT_MIN) return b;
  }
  E->fed = 1;
  return -1;
}

#if GI_LOCKSTEP

/* ---- two lanes in a register ----------------------------------------- */

/* Arithmetic by GNU C's vector operators, lane by lane as scalars round;
 * masks (all ones or zeros per lane) in the same type, through SSE2 where
 * there is SSE2 (GCC lowers its own vector compares lane by lane). */
typedef double vd __attribute__((vector_size(16)));
typedef long long vi __attribute__((vector_size(16)));

static inline vd v2(double a, double b) { return (vd){a, b}; }
static inline vd v_splat(double a) { return (vd){a, a}; }
static inline vd v_load(const double *p)
{
  vd v;
  memcpy(&v, p, sizeof(v));
  return v;
}
static inline void v_store(double *p, vd v) { memcpy(p, &v, sizeof(v)); }
#if defined(__SSE2__)
static inline vd v_gt(vd a, vd b) { return _mm_cmpgt_pd(a, b); }
static inline vd v_ge(vd a, vd b) { return _mm_cmpge_pd(a, b); }
static inline vd v_le(vd a, vd b) { return _mm_cmple_pd(a, b); }
static inline vd v_eq(vd a, vd b) { return _mm_cmpeq_pd(a, b); }
static inline vd v_and(vd m, vd a) { return _mm_and_pd(m, a); }
static inline vd v_or(vd m, vd a) { return _mm_or_pd(m, a); }
static inline vd v_andnot(vd m, vd a) { return _mm_andnot_pd(m, a); }
static inline unsigned v_bits(vd m) { return (unsigned) _mm_movemask_pd(m); }
#else
static inline vd v_gt(vd a, vd b) { return (vd) (a > b); }
static inline vd v_ge(vd a, vd b) { return (vd) (a >= b); }
static inline vd v_le(vd a, vd b) { return (vd) (a <= b); }
static inline vd v_eq(vd a, vd b) { return (vd) (a == b); }
static inline vd v_and(vd m, vd a) { return (vd) ((vi) m & (vi) a); }
static inline vd v_or(vd m, vd a) { return (vd) ((vi) m | (vi) a); }
static inline vd v_andnot(vd m, vd a) { return (vd) (~(vi) m & (vi) a); }
static inline unsigned v_bits(vd m)
{
  vi b = (vi) m;
  return (unsigned) (b[0] < 0) | (unsigned) (b[1] < 0) << 1;
}
#endif
/* |a| (fabs), m ? a : b lane by lane, the mask of bits (bit h: lane h) */
static inline vd v_abs(vd a)
{
  const vi m = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL};
  return v_and((vd) m, a);
}
static inline vd v_sel(vd m, vd a, vd b)
{
  return v_or(v_and(m, a), v_andnot(m, b));
}
static inline vd v_mask(unsigned bits)
{
  static const vi tab[4] = {{0, 0}, {-1, 0}, {0, -1}, {-1, -1}};
  return (vd) tab[bits & 3];
}
/* finite and zero or of a magnitude in [2^-200, 2^200] (dd.h's window) */
static inline vd v_inside(vd v)
{
  vd a = v_abs(v);
  return v_and(v_le(a, v_splat(0x1p200)),
               v_or(v_ge(a, v_splat(0x1p-200)), v_eq(a, v_splat(0.0))));
}

/* two_prod_err() of dd.h, lane by lane */
static inline vd v_two_prod_err(vd a, vd b, vd p)
{
#ifdef FP_FAST_FMA
  return v2(fma(a[0], b[0], -p[0]), fma(a[1], b[1], -p[1]));
#else
  const vd split = v_splat(134217729.0); /* 2^27 + 1 */
  vd ca = split * a, ah = ca - (ca - a), al = a - ah;
  vd cb = split * b, bh = cb - (cb - b), bl = b - bh;
  return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
#endif
}

/* ---- the rounds -------------------------------------------------------- */

/* Two lanes' state in a round, their pointers beside it. */
typedef struct {
  vd chi, clo, cwh, cwl, a, ts, tw;
} pairv;

typedef struct {
  double *Sk;
  const double *cur, *end;
  int ovf;
} lanep;

/* gi_keep_small() on each of `lanes` lanes of a merge's sums, in memory:
 * the lanes where it renormalises are rare, so the vector code tests for
 * them and comes here only then. */
static GI_NOINLINE void keep_small_lanes(double *hi, double *lo, int lanes)
{
  for (int h = 0; h < lanes; h++) gi_keep_small(&hi[h], &lo[h]);
}

/* gi_keep_small() on two lanes (gi_keep_small()'s test in vectors) */
static GI_ALWAYS_INLINE void keep_small_pair(vd *hi, vd *lo)
{
  if (__builtin_expect(
          v_bits(v_gt(v_abs(*lo), v_splat(0x1p-32) * v_abs(*hi))) != 0, 0))
    keep_small_lanes((double *) hi, (double *) lo, 2);
}

/* The lanes of band (bit h: lane h) decided by gi_pools() on the operands
 * that stack_pass() gives it: the decisions of both lanes (pool's bits
 * with those replaced) in bits 0 and 1, the lanes whose test overflowed
 * in bits 2 and 3. */
static GI_NOINLINE unsigned exact_band(unsigned pool, unsigned band, vd ts,
                                       vd tl, vd tw, vd twl, vd chi, vd clo,
                                       vd cwh, vd cwl, int weighted)
{
  for (int h = 0; h < 2; h++) {
    if (!(band >> h & 1)) continue;
    double l = tl[h], wl = twl[h];
    int o = 0;
    int g = gi_pools(ts[h], &l, tw[h], weighted ? &wl : NULL, chi[h], clo[h],
                     cwh[h], cwl[h], &o);
    pool = (pool & ~(1u << h)) | (unsigned) g << h | (unsigned) o << (h + 2);
  }
  return pool;
}

/* How a round moves two lanes' stack pointers and value pointers, in
 * bytes, by its decisions (bit h: lane h pooled). */
#define SU ((ptrdiff_t) (SLOT_U * sizeof(double)))
#define SW ((ptrdiff_t) (SLOT_W * sizeof(double)))
#define PU ((ptrdiff_t) sizeof(double))
#define PW ((ptrdiff_t) (POINT * sizeof(double)))
static const ptrdiff_t step_u[4][4] = {{SU, SU, PU, PU}, {-SU, SU, 0, PU},
                                       {SU, -SU, PU, 0}, {-SU, -SU, 0, 0}};
static const ptrdiff_t step_w[4][4] = {{SW, SW, PW, PW}, {-SW, SW, 0, PW},
                                       {SW, -SW, PW, 0}, {-SW, -SW, 0, 0}};
#define MOVE(p, by) ((p) = (void *) ((char *) (p) + (by)))

/* One step of two lanes, x and z: the block being inserted pools with the
 * top of the stack (the top is popped and merged into it) or is pushed
 * (and the next value or point becomes the block being inserted).
 *
 * A slot holds, for unit weights, a block's sums hi and lo and its length
 * (the top's length is what stack_pass() forms as a - start[k - 1]);
 * weighted, hi, lo, the first element, whi and wlo. */
static GI_ALWAYS_INLINE void round_pair(pairv *V, lanep *x, lanep *z,
                                        const int weighted)
{
  const int SL = weighted ? SLOT_W : SLOT_U;
  double *s0 = x->Sk, *s1 = z->Sk;
  const double *c0 = x->cur, *c1 = z->cur;
  const vd zero = v_splat(0.0), one = v_splat(1.0);
  /* the top (slot k - 1), the block below it (slot k - 2), the next point */
  vd lo1 = v2(s0[1 - SL], s1[1 - SL]);
  vd hi2 = v2(s0[-2 * SL], s1[-2 * SL]);
  vd w2, lw1 = zero, a1 = zero, nhi, nlo = zero, nw = zero, na = zero;
  if (weighted) {
    a1 = v2(s0[2 - SL], s1[2 - SL]);
    lw1 = v2(s0[4 - SL], s1[4 - SL]);
    w2 = v2(s0[3 - 2 * SL], s1[3 - 2 * SL]);
    nhi = v2(c0[POINT], c1[POINT]);
    nlo = v2(c0[POINT + 1], c1[POINT + 1]);
    nw = v2(c0[POINT + 2], c1[POINT + 2]);
    na = v2(c0[POINT + 3], c1[POINT + 3]);
  } else {
    w2 = v2(s0[2 - 2 * SL], s1[2 - 2 * SL]);
    nhi = v2(c0[1], c1[1]);
  }
  vd chi = V->chi, clo = V->clo, cwh = V->cwh, ts = V->ts, tw = V->tw;
  vd cwl = weighted ? V->cwl : zero;

  /* gi_pools(): the hi parts' cross products; inside the band (never NaN
   * here), the exact test */
  vd p = chi * tw, q = ts * cwh, d = q - p;
  vd tol = v_splat(0x1p-29) * v_abs(q);
  vd pool = v_gt(d, tol);
  unsigned band = v_bits(v_le(v_abs(d), tol));
  if (__builtin_expect(band != 0, 0)) {
    unsigned r = exact_band(v_bits(pool), band, ts, lo1, tw, lw1, chi, clo,
                            cwh, cwl, weighted);
    pool = v_mask(r);
    x->ovf |= (int) (r >> 2 & 1);
    z->ovf |= (int) (r >> 3 & 1);
  }
  const ptrdiff_t *st = (weighted ? step_w : step_u)[v_bits(pool)];

  /* pooled: two_sum(ts, chi), the lo parts as stack_pass() adds them */
  vd t = ts + chi, tb = t - ts, e = (ts - (t - tb)) + (chi - tb);
  vd mlo = clo + (lo1 + e);
  keep_small_pair(&t, &mlo);
  /* pushed: the block goes into slot k */
  s0[0] = chi[0]; s1[0] = chi[1];
  s0[1] = clo[0]; s1[1] = clo[1];
  if (weighted) {
    vd u = tw + cwh, ub = u - tw, e2 = (tw - (u - ub)) + (cwh - ub);
    vd mwl = cwl + (lw1 + e2); /* no check: see gi_add_weights() */
    s0[2] = V->a[0]; s1[2] = V->a[1];
    s0[3] = cwh[0]; s1[3] = cwh[1];
    s0[4] = cwl[0]; s1[4] = cwl[1];
    V->chi = v_sel(pool, t, nhi);
    V->clo = v_sel(pool, mlo, nlo);
    V->cwh = v_sel(pool, u, nw);
    V->cwl = v_and(pool, mwl);
    V->a = v_sel(pool, a1, na);
  } else {
    s0[2] = cwh[0]; s1[2] = cwh[1];
    V->chi = v_sel(pool, t, nhi);
    V->clo = v_and(pool, mlo);
    V->cwh = v_sel(pool, tw + cwh, one);
  }
  V->ts = v_sel(pool, hi2, chi);
  V->tw = v_sel(pool, w2, cwh);
  MOVE(x->Sk, st[0]);
  MOVE(z->Sk, st[1]);
  MOVE(x->cur, st[2]);
  MOVE(z->cur, st[3]);
}

static GI_ALWAYS_INLINE void enter(pairv *V, lanep *x, lanep *z,
                                   const lane *A, const lane *B)
{
  V->chi = v2(A->chi, B->chi); V->clo = v2(A->clo, B->clo);
  V->cwh = v2(A->cwh, B->cwh); V->cwl = v2(A->cwl, B->cwl);
  V->a = v2(A->a, B->a);
  V->ts = v2(A->ts, B->ts); V->tw = v2(A->tw, B->tw);
  x->Sk = A->Sk; x->cur = A->cur; x->end = A->end; x->ovf = A->ovf;
  z->Sk = B->Sk; z->cur = B->cur; z->end = B->end; z->ovf = B->ovf;
}

static GI_ALWAYS_INLINE void leave_one(const pairv *V, const lanep *x, int h,
                                       lane *A)
{
  A->chi = V->chi[h]; A->clo = V->clo[h]; A->cwh = V->cwh[h];
  A->cwl = V->cwl[h]; A->a = V->a[h]; A->ts = V->ts[h]; A->tw = V->tw[h];
  A->Sk = x->Sk; A->cur = x->cur; A->ovf = x->ovf;
}

/* Rounds until a lane has run into its tail; s[0..2 np) the lanes (a lane
 * may fill both slots of a pair: both halves then compute and store the
 * same things). Returns bit h for slot h when so. */
static GI_ALWAYS_INLINE unsigned run(lane *const *s, const int np,
                                     const int weighted)
{
  pairv V0, V1;
  lanep p0, p1, p2, p3;
  unsigned r;
  enter(&V0, &p0, &p1, s[0], s[1]);
  if (np > 1) enter(&V1, &p2, &p3, s[2], s[3]);
  else { V1 = V0; p2 = p0; p3 = p1; }
#define ROUND()                                  \
  do {                                           \
    round_pair(&V0, &p0, &p1, weighted);         \
    if (np > 1) round_pair(&V1, &p2, &p3, weighted); \
  } while (0)
  do {
    ROUND(); ROUND(); ROUND(); ROUND(); /* ROUNDS of them */
    r = (unsigned) (p0.cur >= p0.end) | (unsigned) (p1.cur >= p1.end) << 1;
    if (np > 1)
      r |= (unsigned) (p2.cur >= p2.end) << 2 |
           (unsigned) (p3.cur >= p3.end) << 3;
  } while (r == 0);
#undef ROUND
  /* a lane in two slots: its second copy, identical, is written last */
  leave_one(&V0, &p0, 0, s[0]);
  leave_one(&V0, &p1, 1, s[1]);
  if (np > 1) {
    leave_one(&V1, &p2, 0, s[2]);
    leave_one(&V1, &p3, 1, s[3]);
  }
  return r;
}

static GI_NOINLINE unsigned run_u1(lane *const *s) { return run(s, 1, 0); }
static GI_NOINLINE unsigned run_u2(lane *const *s) { return run(s, 2, 0); }
static GI_NOINLINE unsigned run_w1(lane *const *s) { return run(s, 1, 1); }
static GI_NOINLINE unsigned run_w2(lane *const *s) { return run(s, 2, 1); }

#if GI_AVX2
/* ---- four lanes in a register (AVX2) ----------------------------------
 * The same round as round_pair(), operation for operation. */
typedef double vq __attribute__((vector_size(32)));
typedef long long vqi __attribute__((vector_size(32)));

static GI_TARGET GI_ALWAYS_INLINE vq q4(double a, double b, double c,
                                        double d)
{
  return (vq){a, b, c, d};
}
static GI_TARGET GI_ALWAYS_INLINE vq q_splat(double a)
{
  return (vq){a, a, a, a};
}
static GI_TARGET GI_ALWAYS_INLINE vq q_abs(vq a)
{
  const vqi m = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL,
                 0x7fffffffffffffffLL, 0x7fffffffffffffffLL};
  return _mm256_and_pd((vq) m, a);
}
static GI_TARGET GI_ALWAYS_INLINE vq q_sel(vq m, vq a, vq b)
{
  return _mm256_or_pd(_mm256_and_pd(m, a), _mm256_andnot_pd(m, b));
}
static GI_TARGET GI_ALWAYS_INLINE vq q_mask(unsigned bits)
{
  return (vq) (vqi){-(long long) (bits & 1), -(long long) (bits >> 1 & 1),
                    -(long long) (bits >> 2 & 1), -(long long) (bits >> 3 & 1)};
}

typedef struct {
  vq chi, clo, cwh, cwl, a, ts, tw;
} quadv;

/* exact_band() for four lanes: the operands in arrays */
static GI_NOINLINE unsigned exact_band4(unsigned pool, unsigned band,
                                        const double *o, int weighted)
{
  for (int h = 0; h < 4; h++) {
    if (!(band >> h & 1)) continue;
    const double *x = o + h;
    double l = x[4], wl = x[12];
    int ov = 0;
    int g = gi_pools(x[0], &l, x[8], weighted ? &wl : NULL, x[16], x[20],
                     x[24], x[28], &ov);
    pool = (pool & ~(1u << h)) | (unsigned) g << h | (unsigned) ov << (h + 4);
  }
  return pool;
}

/* Pointer steps in bytes by the round's decisions (bit h: lane h pooled):
 * the stacks of lanes 0..3, then their values. */
#define QS(c, h, S) (((c) >> (h) & 1) ? -(S) : (S))
#define QP(c, h, P) (((c) >> (h) & 1) ? 0 : (P))
#define QROW(c, S, P)                                                     \
  {QS(c, 0, S), QS(c, 1, S), QS(c, 2, S), QS(c, 3, S),                    \
   QP(c, 0, P), QP(c, 1, P), QP(c, 2, P), QP(c, 3, P)}
#define QTAB(S, P)                                                        \
  {QROW(0, S, P),  QROW(1, S, P),  QROW(2, S, P),  QROW(3, S, P),         \
   QROW(4, S, P),  QROW(5, S, P),  QROW(6, S, P),  QROW(7, S, P),         \
   QROW(8, S, P),  QROW(9, S, P),  QROW(10, S, P), QROW(11, S, P),        \
   QROW(12, S, P), QROW(13, S, P), QROW(14, S, P), QROW(15, S, P)}
static const ptrdiff_t qstep_u[16][8] = QTAB(SU, PU);
static const ptrdiff_t qstep_w[16][8] = QTAB(SW, PW);

/* A register's four lanes' pointers, each in a variable of its own
 * (in an array the compiler shuffles them through vector registers). */
typedef struct {
  double *S0, *S1, *S2, *S3;
  const double *C0, *C1, *C2, *C3;
  const double *E0, *E1, *E2, *E3;
  int ovf;  /* bit h: lane h's exact test overflowed */
} quadp;

/* gi_keep_small() on four lanes, as keep_small_pair() on two */
static GI_TARGET GI_ALWAYS_INLINE void keep_small_quad(vq *hi, vq *lo)
{
  if (__builtin_expect(_mm256_movemask_pd(_mm256_cmp_pd(
                           q_abs(*lo), q_splat(0x1p-32) * q_abs(*hi),
                           _CMP_GT_OQ)) != 0, 0))
    keep_small_lanes((double *) hi, (double *) lo, 4);
}

static GI_TARGET GI_ALWAYS_INLINE void round_quad(quadv *V, quadp *x,
                                                  const int weighted)
{
  const int SL = weighted ? SLOT_W : SLOT_U;
  double *s0 = x->S0, *s1 = x->S1, *s2 = x->S2, *s3 = x->S3;
  const double *c0 = x->C0, *c1 = x->C1, *c2 = x->C2, *c3 = x->C3;
  const vq zero = q_splat(0.0), one = q_splat(1.0);
#define Q4(e) q4(s0[e], s1[e], s2[e], s3[e])
#define C4(e) q4(c0[e], c1[e], c2[e], c3[e])
  vq lo1 = Q4(1 - SL), hi2 = Q4(-2 * SL);
  vq w2, lw1 = zero, a1 = zero, nhi, nlo = zero, nw = zero, na = zero;
  if (weighted) {
    a1 = Q4(2 - SL);
    lw1 = Q4(4 - SL);
    w2 = Q4(3 - 2 * SL);
    nhi = C4(POINT);
    nlo = C4(POINT + 1);
    nw = C4(POINT + 2);
    na = C4(POINT + 3);
  } else {
    w2 = Q4(2 - 2 * SL);
    nhi = C4(1);
  }
#undef Q4
#undef C4
  vq chi = V->chi, clo = V->clo, cwh = V->cwh, ts = V->ts, tw = V->tw;
  vq cwl = weighted ? V->cwl : zero;

  vq p = chi * tw, q = ts * cwh, d = q - p;
  vq tol = q_splat(0x1p-29) * q_abs(q);
  vq pool = _mm256_cmp_pd(d, tol, _CMP_GT_OQ);
  unsigned band = (unsigned) _mm256_movemask_pd(
      _mm256_cmp_pd(q_abs(d), tol, _CMP_LE_OQ));
  if (__builtin_expect(band != 0, 0)) {
    double o[32];
    memcpy(o, &ts, 32); memcpy(o + 4, &lo1, 32);
    memcpy(o + 8, &tw, 32); memcpy(o + 12, &lw1, 32);
    memcpy(o + 16, &chi, 32); memcpy(o + 20, &clo, 32);
    memcpy(o + 24, &cwh, 32); memcpy(o + 28, &cwl, 32);
    unsigned r = exact_band4((unsigned) _mm256_movemask_pd(pool), band, o,
                             weighted);
    pool = q_mask(r);
    x->ovf |= (int) (r >> 4);
  }
  const ptrdiff_t *st =
      (weighted ? qstep_w : qstep_u)[_mm256_movemask_pd(pool)];

  vq t = ts + chi, tb = t - ts, e = (ts - (t - tb)) + (chi - tb);
  vq mlo = clo + (lo1 + e);
  keep_small_quad(&t, &mlo);
#define PUT(f, v) \
  (s0[f] = (v)[0], s1[f] = (v)[1], s2[f] = (v)[2], s3[f] = (v)[3])
  PUT(0, chi);
  PUT(1, clo);
  if (weighted) {
    vq u = tw + cwh, ub = u - tw, e2 = (tw - (u - ub)) + (cwh - ub);
    vq mwl = cwl + (lw1 + e2); /* no check: see gi_add_weights() */
    PUT(2, V->a);
    PUT(3, cwh);
    PUT(4, cwl);
    V->chi = q_sel(pool, t, nhi);
    V->clo = q_sel(pool, mlo, nlo);
    V->cwh = q_sel(pool, u, nw);
    V->cwl = _mm256_and_pd(pool, mwl);
    V->a = q_sel(pool, a1, na);
  } else {
    PUT(2, cwh);
    V->chi = q_sel(pool, t, nhi);
    V->clo = _mm256_and_pd(pool, mlo);
    V->cwh = q_sel(pool, tw + cwh, one);
  }
#undef PUT
  V->ts = q_sel(pool, hi2, chi);
  V->tw = q_sel(pool, w2, cwh);
  MOVE(x->S0, st[0]); MOVE(x->S1, st[1]);
  MOVE(x->S2, st[2]); MOVE(x->S3, st[3]);
  MOVE(x->C0, st[4]); MOVE(x->C1, st[5]);
  MOVE(x->C2, st[6]); MOVE(x->C3, st[7]);
}

static GI_TARGET GI_ALWAYS_INLINE void qenter(quadv *V, quadp *x,
                                              lane *const *s)
{
  V->chi = q4(s[0]->chi, s[1]->chi, s[2]->chi, s[3]->chi);
  V->clo = q4(s[0]->clo, s[1]->clo, s[2]->clo, s[3]->clo);
  V->cwh = q4(s[0]->cwh, s[1]->cwh, s[2]->cwh, s[3]->cwh);
  V->cwl = q4(s[0]->cwl, s[1]->cwl, s[2]->cwl, s[3]->cwl);
  V->a = q4(s[0]->a, s[1]->a, s[2]->a, s[3]->a);
  V->ts = q4(s[0]->ts, s[1]->ts, s[2]->ts, s[3]->ts);
  V->tw = q4(s[0]->tw, s[1]->tw, s[2]->tw, s[3]->tw);
  x->S0 = s[0]->Sk; x->S1 = s[1]->Sk; x->S2 = s[2]->Sk; x->S3 = s[3]->Sk;
  x->C0 = s[0]->cur; x->C1 = s[1]->cur; x->C2 = s[2]->cur;
  x->C3 = s[3]->cur;
  x->E0 = s[0]->end; x->E1 = s[1]->end; x->E2 = s[2]->end;
  x->E3 = s[3]->end;
  x->ovf = 0;
}

static GI_TARGET GI_ALWAYS_INLINE void qleave(const quadv *V,
                                              const quadp *x, lane *const *s)
{
  double *Sk[4] = {x->S0, x->S1, x->S2, x->S3};
  const double *cur[4] = {x->C0, x->C1, x->C2, x->C3};
  for (int h = 0; h < 4; h++) {
    lane *A = s[h];
    A->chi = V->chi[h]; A->clo = V->clo[h]; A->cwh = V->cwh[h];
    A->cwl = V->cwl[h]; A->a = V->a[h]; A->ts = V->ts[h]; A->tw = V->tw[h];
    A->Sk = Sk[h]; A->cur = cur[h];
    A->ovf |= x->ovf >> h & 1;
  }
}

static GI_TARGET GI_ALWAYS_INLINE unsigned qpast(const quadp *x)
{
  return (unsigned) (x->C0 >= x->E0) | (unsigned) (x->C1 >= x->E1) << 1 |
         (unsigned) (x->C2 >= x->E2) << 2 | (unsigned) (x->C3 >= x->E3) << 3;
}

/* run() for four lanes to a register, nq registers */
static GI_TARGET GI_ALWAYS_INLINE unsigned qrun(lane *const *s, const int nq,
                                                const int weighted)
{
  quadv V0, V1;
  quadp x0, x1;
  unsigned r;
  qenter(&V0, &x0, s);
  if (nq > 1) qenter(&V1, &x1, s + 4);
  else { V1 = V0; x1 = x0; }
#define QROUND()                                   \
  do {                                             \
    round_quad(&V0, &x0, weighted);                \
    if (nq > 1) round_quad(&V1, &x1, weighted);    \
  } while (0)
  do {
    QROUND(); QROUND(); QROUND(); QROUND(); /* ROUNDS of them */
    r = qpast(&x0);
    if (nq > 1) r |= qpast(&x1) << 4;
  } while (r == 0);
#undef QROUND
  qleave(&V0, &x0, s);
  if (nq > 1) qleave(&V1, &x1, s + 4);
  return r;
}

static GI_TARGET GI_NOINLINE unsigned run_qu1(lane *const *s)
{
  return qrun(s, 1, 0);
}
static GI_TARGET GI_NOINLINE unsigned run_qu2(lane *const *s)
{
  return qrun(s, 2, 0);
}
static GI_TARGET GI_NOINLINE unsigned run_qw1(lane *const *s)
{
  return qrun(s, 1, 1);
}
static GI_TARGET GI_NOINLINE unsigned run_qw2(lane *const *s)
{
  return qrun(s, 2, 1);
}
#endif /* GI_AVX2 */

/* ---- a lane's problem -------------------------------------------------- */

/* The top of an empty stack: a block of sum -2^500 and weight 2^-500.
 * Inside the window every block being inserted has |chi| <= 2^416 and
 * cwh in [2^-200, 2^216], so its cross products are q = -2^500 cwh and
 * |p| = |chi| 2^-500 < ulp(q)/2: d = q < 0, outside the band, and the
 * block is pushed, as stack_pass() pushes onto an empty stack. No
 * product leaves the normal range. */
#define SENTINEL_HI (-0x1p500)
#define SENTINEL_W 0x1p-500

/* The tail: 2^300, 2^301, ... of weight 1. Every mean inside the window
 * is below 2^201 in magnitude, so each is pushed, and pooled with nothing
 * after it. */
static const double tail_value[TAIL] = {0x1p300, 0x1p301, 0x1p302, 0x1p303,
                                        0x1p304};

static int lane_reserve(lane *L, gi_idx need, int SL, gi_idx bneed)
{
  if (need > L->cap) {
    gi_idx cap = L->cap < 256 ? 256 : L->cap;
    while (cap < need) cap *= 2;
    free(L->mem);
    L->mem = malloc((size_t) (cap + 2) * (size_t) SL * sizeof(double));
    L->cap = 0;
    if (L->mem == NULL) return 1;
    /* slot -1 the block that nothing pools with, slot -2 zeros */
    for (int i = 0; i < 2 * SL; i++) L->mem[i] = 0.0;
    L->mem[SL] = SENTINEL_HI;
    L->mem[SL + (SL == SLOT_W ? 3 : 2)] = SENTINEL_W;
    L->cap = cap;
  }
  if (bneed > L->bcap) {
    gi_idx cap = L->bcap < 1024 ? 1024 : L->bcap;
    while (cap < bneed) cap *= 2;
    free(L->buf);
    L->buf = malloc((size_t) cap * sizeof(double));
    L->bcap = 0;
    if (L->buf == NULL) return 1;
    L->bcap = cap;
  }
  return 0;
}

/* The next positive-weight points, as stack_pass() forms them, into the
 * buffer, then the tail: how many (0: none left). Two at a time where
 * neither weight is zero and no zero weight precedes them. */
static int prepare(const engine *E, lane *L)
{
  const double *y = E->y + L->first, *w = E->w + L->first;
  double sy = E->sy, *P = L->buf;
  gi_idx t = L->pos, n = L->n, pend = L->pend;
  int m = 0;
  const vd vsy = v_splat(sy), zero = v_splat(0.0);
  while (t < n && m < PREP) {
    if (pend < 0 && t + 2 <= n && m + 2 <= PREP) {
      vd wi = v_load(w + t);
      if (v_bits(v_eq(wi, zero)) == 0) {
        vd v = vsy * v_load(y + t), hi = wi * v;
        vd lo = v_two_prod_err(wi, v, hi);
        vd at = v2((double) t, (double) (t + 1));
        double *q = P + POINT * m;
        v_store(q, v2(hi[0], lo[0]));
        v_store(q + 2, v2(wi[0], at[0]));
        v_store(q + POINT, v2(hi[1], lo[1]));
        v_store(q + POINT + 2, v2(wi[1], at[1]));
        t += 2;
        m += 2;
        continue;
      }
    }
    double v = sy * y[t], wi = w[t];
    if (wi == 0.0) {
      if (pend < 0) pend = t;
    } else {
      double *q = P + POINT * m;
      q[0] = wi * v;
      q[1] = two_prod_err(wi, v, q[0]);
      q[2] = wi;
      q[3] = (double) (pend >= 0 ? pend : t);
      pend = -1;
      m++;
    }
    t++;
  }
  L->pos = t;
  L->pend = pend;
  for (int j = 0; j < TAIL; j++) {
    double *q = P + POINT * (m + j);
    q[0] = tail_value[j];
    q[1] = 0.0;
    q[2] = 1.0;
    q[3] = 0.0;
  }
  L->end = P + POINT * m;
  if (m == 0) L->exhausted = 1;
  return m;
}

/* Values (times the sign) into the buffer, then the tail: 0 when one is
 * outside the window (or not finite). */
static int copy_unit(const engine *E, lane *L)
{
  const double *y = E->y + L->first;
  double *Y = L->buf;
  gi_idx n = L->n, i = 0;
  vd ok = v_mask(3), sy = v_splat(E->sy);
  for (; i + 2 <= n; i += 2) {
    vd v = v_load(y + i);
    ok = v_and(ok, v_inside(v));
    v_store(Y + i, sy * v);
  }
  int fine = v_bits(ok) == 3;
  for (; i < n; i++) {
    fine &= in_window(y[i]);
    Y[i] = E->sy * y[i];
  }
  for (int j = 0; j < TAIL; j++) Y[n + j] = tail_value[j];
  L->end = Y + n;
  return fine;
}

/* Can weighted problem b go into a lane? Values as copy_unit() wants them,
 * weights too and non-negative, one of them positive. */
static int weights_fit(const engine *E, const lane *L)
{
  const double *y = E->y + L->first, *w = E->w + L->first;
  gi_idx n = L->n, i = 0;
  vd ok = v_mask(3), pos = v_mask(0), zero = v_splat(0.0);
  for (; i + 2 <= n; i += 2) {
    vd u = v_load(w + i);
    ok = v_and(ok, v_and(v_inside(v_load(y + i)),
                         v_and(v_inside(u), v_ge(u, zero))));
    pos = v_or(pos, v_gt(u, zero));
  }
  int fine = v_bits(ok) == 3, any = v_bits(pos) != 0;
  for (; i < n; i++) {
    fine &= in_window(y[i]) & in_window(w[i]) & (w[i] >= 0.0);
    any |= w[i] > 0.0;
  }
  return fine & any;
}

/* The point at L->cur becomes the block being inserted. */
static void lane_take(lane *L)
{
  L->chi = L->cur[0];
  L->clo = L->cur[1];
  L->cwh = L->cur[2];
  L->cwl = 0.0;
  L->a = L->cur[3];
}

/* Problem b into lane L: 1 when it cannot go into a lane (values outside
 * the window, memory). */
static int lane_start(engine *E, lane *L, gi_idx b)
{
  int weighted = E->w != NULL, SL = weighted ? SLOT_W : SLOT_U;
  L->b = b;
  L->first = E->off[b];
  L->n = E->off[b + 1] - L->first;
  if (lane_reserve(L, L->n + TAIL, SL,
                   weighted ? (PREP + TAIL) * POINT : L->n + TAIL))
    return 1;
  L->Sk = L->mem + 2 * SL;
  L->ts = SENTINEL_HI;
  L->tw = SENTINEL_W;
  L->ovf = 0;
  if (!weighted) {
    if (!copy_unit(E, L)) return 1;
    L->cur = L->buf;
    L->chi = L->buf[0];
    L->clo = 0.0;
    L->cwh = 1.0;
    L->cwl = 0.0;
    L->a = 0.0;
    return 0;
  }
  if (!weights_fit(E, L)) return 1;
  L->pos = 0;
  L->pend = -1;
  L->exhausted = 0;
  prepare(E, L); /* a positive weight: a point */
  L->cur = L->buf;
  lane_take(L);
  return 0;
}

/* Lane L's problem solved: its means spread, or the problem redone by
 * gi_solve_one() where the pass's result is not to be used. */
static void lane_finish(engine *E, lane *L)
{
  int weighted = E->w != NULL, SL = weighted ? SLOT_W : SLOT_U;
  const double *S = L->mem + 2 * SL;
  gi_idx k = (gi_idx) (L->Sk - S) / SL;
  if (L->ovf || k <= 0) {
    solve_scalar(E, L->b);
    return;
  }
  if (k > E->bcap) {
    gi_idx cap = E->bcap < 256 ? 256 : E->bcap;
    while (cap < k) cap *= 2;
    free(E->bh); free(E->bl); free(E->bwh); free(E->bwl); free(E->bs);
    E->bh = malloc((size_t) cap * sizeof(double));
    E->bl = malloc((size_t) cap * sizeof(double));
    E->bwh = weighted ? malloc((size_t) cap * sizeof(double)) : NULL;
    E->bwl = weighted ? malloc((size_t) cap * sizeof(double)) : NULL;
    E->bs = malloc((size_t) cap * sizeof(gi_idx));
    E->bcap = cap;
    if (E->bh == NULL || E->bl == NULL || E->bs == NULL ||
        (weighted && (E->bwh == NULL || E->bwl == NULL))) {
      E->bcap = 0;
      solve_scalar(E, L->b);
      return;
    }
  }
  gi_idx a = 0;
  for (gi_idx j = 0; j < k; j++) {
    const double *s = S + j * SL;
    E->bh[j] = s[0];
    E->bl[j] = s[1];
    if (weighted) {
      E->bs[j] = (gi_idx) s[2];
      E->bwh[j] = s[3];
      E->bwl[j] = s[4];
    } else {
      E->bs[j] = a; /* the lengths of the blocks before it */
      a += (gi_idx) s[2];
    }
  }
  gi_blocks B = {E->bh, E->bl, weighted ? E->bwh : NULL,
                 weighted ? E->bwl : NULL, E->bs, k, L->n};
  if ((!weighted && a != L->n) ||
      gi_spread(&B, E->fit + L->first, 1.0 / E->sy,
                E->starts == NULL ? NULL : E->starts + L->first) != 0) {
    solve_scalar(E, L->b);
    return;
  }
  record(E, L->b, L->n, GI_OK);
}

/* The next problem that a lane can take into L (the others solved on the
 * way); L inactive when none is left. */
static void lane_next(engine *E, lane *L)
{
  for (;;) {
    gi_idx b = feed(E);
    if (b < 0) {
      L->active = 0;
      return;
    }
    if (lane_start(E, L, b) == 0) {
      L->active = 1;
      return;
    }
    solve_scalar(E, b);
  }
}

/* Lane L has run into its tail: the tail's blocks leave the stack, which
 * is then as the pass left it after the last value or point; more points,
 * or the problem is done. */
static void lane_past(engine *E, lane *L)
{
  int weighted = E->w != NULL, SL = weighted ? SLOT_W : SLOT_U;
  gi_idx t = (gi_idx) (L->cur - L->end) / (weighted ? POINT : 1);
  L->Sk -= t * SL;
  if (weighted && !L->exhausted && prepare(E, L) > 0) {
    /* the top is the block pushed last, the next point follows */
    L->ts = L->Sk[-SL];
    L->tw = L->Sk[3 - SL];
    L->cur = L->buf;
    lane_take(L);
    return;
  }
  lane_finish(E, L);
  lane_next(E, L);
}

static void lanes(engine *E)
{
  int weighted = E->w != NULL, W = E->quad ? 4 : 2;
  lane *slot[8];
  for (int l = 0; l < E->nlanes; l++) lane_next(E, &E->L[l]);
  for (;;) {
    /* the active lanes, packed; the last one fills its register's empty
     * slots */
    int cnt = 0;
    for (int l = 0; l < E->nlanes; l++)
      if (E->L[l].active) slot[cnt++] = &E->L[l];
    if (cnt == 0) break;
    int ng = (cnt + W - 1) / W;
    for (int h = cnt; h < ng * W; h++) slot[h] = slot[cnt - 1];
    unsigned r;
#if GI_AVX2
    if (E->quad)
      r = weighted ? (ng > 1 ? run_qw2(slot) : run_qw1(slot))
                   : (ng > 1 ? run_qu2(slot) : run_qu1(slot));
    else
#endif
      r = weighted ? (ng > 1 ? run_w2(slot) : run_w1(slot))
                   : (ng > 1 ? run_u2(slot) : run_u1(slot));
    for (int h = 0; h < ng * W; h++)
      if (r >> h & 1 && !(h > 0 && slot[h] == slot[h - 1]))
        lane_past(E, slot[h]);
  }
}

#endif /* GI_LOCKSTEP */

static int lane_width = 0;

int gi_lockstep_test_width(int width)
{
  int was = lane_width;
  lane_width = width;
  return was;
}

gi_status gi_lockstep(const double *y, const double *w, const gi_idx *offsets,
                      gi_idx nprob, int decreasing, gi_idx *next,
                      gi_idx chunk, gi_idx *stop, double *fit,
                      unsigned char *starts, gi_idx *bad)
{
  engine *E = calloc(1, sizeof(engine));
  if (E == NULL) {
    *bad = 0;
    return GI_ERR_NOMEM;
  }
  E->y = y;
  E->w = w;
  E->off = offsets;
  E->nprob = nprob;
  E->decreasing = decreasing;
  E->sy = decreasing ? -1.0 : 1.0;
  E->fit = fit;
  E->starts = starts;
  E->next = next;
  E->stop = stop;
  E->chunk = chunk < 1 ? 1 : chunk;
  E->cur = 0;
  E->end = next == NULL ? nprob : 0;
  E->bad = nprob;
  E->status = GI_OK;
#if GI_LOCKSTEP
#if GI_AVX2
  E->quad = lane_width != 2 && __builtin_cpu_supports("avx2");
#endif
  E->nlanes = E->quad ? 8 : 4;
  lanes(E);
  for (int l = 0; l < E->nlanes; l++) {
    free(E->L[l].mem);
    free(E->L[l].buf);
  }
  free(E->bh); free(E->bl); free(E->bwh); free(E->bwl); free(E->bs);
#else
  for (gi_idx b; (b = feed(E)) >= 0;) solve_scalar(E, b);
#endif
  gi_stack_free(&E->ws);
  *bad = E->bad;
  gi_status st = E->status;
  free(E);
  return st;
}

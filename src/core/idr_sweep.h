/*
 * The number-dependent part of IDR's threshold sweep (idr.c), written once
 * for a number type and included once per type. Before inclusion:
 *   NUM                   the type of the sums
 *   SUF                   the suffix of the functions defined here
 *   NUM_ZERO              its zero
 *   NUM_ADD(a, b)         a + b
 *   NUM_LE(S, c1, w1, c2, w2)  c1 / w1 <= c2 / w2, exactly
 *   NUM_DIV(c, w)         c / w, correctly rounded
 *   NUM_OF(S, a)          a weight as a NUM (scaled by 2^-S->shift)
 * The arrays c, W, bsc, bsw and stack of the sweep hold NUMs.
 */
#define GI_CAT2(a, b) a##b
#define GI_CAT(a, b) GI_CAT2(a, b)
#define FN(name) GI_CAT(name, SUF)

typedef struct {
  gi_idx s, e;
  NUM c, w;
} FN(stack_block);

/* Push the block s..e with sums c, w; returns the new top. */
static inline gi_idx FN(push)(FN(stack_block) *st, gi_idx top, gi_idx s, gi_idx e,
                              NUM c, NUM w)
{
  top++;
  st[top].s = s;
  st[top].e = e;
  st[top].c = c;
  st[top].w = w;
  return top;
}

/* Pool the top of the stack with its right neighbours while its mean is at
 * most theirs. The neighbour of the bottom entry is the old block after it.
 * Returns the new top; *pooled says whether anything was pooled. */
static gi_idx FN(pool)(gi_idr_sweep *S, gi_idx top, int *pooled)
{
  FN(stack_block) *st = (FN(stack_block) *) S->stack;
  const NUM *bsc = (const NUM *) S->bsc, *bsw = (const NUM *) S->bsw;
  *pooled = 0;
  for (;;) {
    FN(stack_block) *b = &st[top];
    if (top > 0) {
      FN(stack_block) *r = &st[top - 1];
      if (!NUM_LE(S, b->c, b->w, r->c, r->w)) break;
      r->s = b->s;
      r->c = NUM_ADD(r->c, b->c);
      r->w = NUM_ADD(r->w, b->w);
      top--;
    } else {
      gi_idx n = b->e + 1;
      if (n >= S->m) break;
      NUM rc = bsc[n], rw = bsw[n];
      if (!NUM_LE(S, b->c, b->w, rc, rw)) break;
      b->e = S->bend[n];
      b->c = NUM_ADD(rc, b->c);
      b->w = NUM_ADD(rw, b->w);
    }
    *pooled = 1;
  }
  return top;
}

/* One observation at x index p switches on with weight a. */
static void FN(update)(gi_idr_sweep *S, gi_idx p, double a)
{
  FN(stack_block) *st = (FN(stack_block) *) S->stack;
  NUM *c = (NUM *) S->c, *W = (NUM *) S->W;
  NUM *bsc = (NUM *) S->bsc, *bsw = (NUM *) S->bsw;
  c[p] = NUM_ADD(c[p], NUM_OF(S, a));
  gi_idx s = block_of(S->bits, p), e = S->bend[s];
  gi_idx top = -1;
  int pooled;
  for (gi_idx j = e; j >= s; j--)
    top = FN(pool)(S, FN(push)(st, top, j, j, c[j], W[j]), &pooled);
  /* old blocks to the left, whole, until one holds its boundary */
  while (st[top].s > 0) {
    gi_idx ue = st[top].s - 1, us = S->bstart[ue];
    top = FN(pool)(S, FN(push)(st, top, us, ue, bsc[us], bsw[us]), &pooled);
    if (!pooled) {
      top--;
      break;
    }
  }
  gi_idx lo = st[top].s, hi = st[0].e;
  clear_bits(S->bits, lo, hi);
  for (gi_idx b = 0; b <= top; b++) {
    gi_idx bs = st[b].s, be = st[b].e;
    set_bit(S->bits, bs);
    S->bend[bs] = be;
    S->bstart[be] = bs;
    bsc[bs] = st[b].c;
    bsw[bs] = st[b].w;
    double v = NUM_DIV(st[b].c, st[b].w);
    S->bmean[bs] = v > 1.0 ? 1.0 : v;
  }
}

/* The sums before the first threshold: W_j in switch-on order (the order
 * in which c_j will grow), c = 0, and one block. */
static void FN(init_sums)(gi_idr_sweep *S)
{
  NUM *c = (NUM *) S->c, *W = (NUM *) S->W;
  NUM *bsc = (NUM *) S->bsc, *bsw = (NUM *) S->bsw;
  gi_idx non = S->kptr[S->K], m = S->m;
  for (gi_idx j = 0; j < m; j++) {
    c[j] = NUM_ZERO;
    W[j] = NUM_ZERO;
  }
  for (gi_idx i = 0; i < non; i++) {
    gi_idx j = S->obs_x[i];
    W[j] = NUM_ADD(W[j], NUM_OF(S, S->obs_w != NULL ? S->obs_w[i] : 1.0));
  }
  if (m > 0) {
    NUM sw = NUM_ZERO;
    for (gi_idx j = 0; j < m; j++) sw = NUM_ADD(sw, W[j]);
    bsc[0] = NUM_ZERO;
    bsw[0] = sw;
  }
}

/* The updates of threshold k. */
static void FN(threshold)(gi_idr_sweep *S, gi_idx k)
{
  for (gi_idx i = S->kptr[k]; i < S->kptr[k + 1]; i++)
    FN(update)(S, S->obs_x[i], S->obs_w != NULL ? S->obs_w[i] : 1.0);
}

#undef FN
#undef GI_CAT
#undef GI_CAT2

/*
 * The number-dependent part of IDR's threshold sweep (idr.c), written once
 * for a number type and included once per type. Before inclusion:
 *   NUM                   the type of the sums
 *   SUF                   the suffix of the functions defined here
 *   NUM_ZERO              its zero
 *   NUM_SET(d, a)         d = a (d an lvalue; field by field where a
 *                         whole copy would stall the stores)
 *   NUM_ADDTO(d, a)       d += a (d an lvalue)
 *   NUM_ADDW(S, d, w)     d += the weight w (in the sweep's scale)
 *   NUM_LE(S, c1, w1, c2, w2)  c1 / w1 <= c2 / w2, exactly (lvalues)
 *   NUM_DIV(c, w)         c / w, correctly rounded (lvalues)
 * The arrays c, W, bsc, bsw and stack of the sweep hold NUMs. NUM, SUF and
 * NUM_ZERO are undefined at the end; the operations, which several types
 * may share, are left to the includer.
 */
#define GI_CAT2(a, b) a##b
#define GI_CAT(a, b) GI_CAT2(a, b)
#define FN(name) GI_CAT(name, SUF)

typedef struct {
  gi_idx s, e;
  NUM c, w;
} FN(stack_block);

/* Push the block bs..be with sums bc, bw and pool it with its right
 * neighbours while its mean is at most theirs (the neighbour of the bottom
 * entry is the old block after it). Returns the new top; *pooled says
 * whether anything was pooled. The block being pooled stays in locals (the
 * sums are exact: the order of the additions does not matter) and is
 * written once. */
static gi_idx FN(push_pool)(gi_idr_sweep *S, gi_idx top, gi_idx bs, gi_idx be, NUM bc,
                            NUM bw, int *pooled)
{
  FN(stack_block) *st = (FN(stack_block) *) S->stack;
  const NUM *bsc = (const NUM *) S->bsc, *bsw = (const NUM *) S->bsw;
  int any = 0;
  top++;
  for (;;) {
    if (top > 0) {
      const FN(stack_block) *r = &st[top - 1];
      if (!NUM_LE(S, bc, bw, r->c, r->w)) break;
      NUM_ADDTO(bc, r->c);
      NUM_ADDTO(bw, r->w);
      be = r->e;
      top--;
    } else {
      gi_idx n = be + 1;
      if (n >= S->m) break;
      if (!NUM_LE(S, bc, bw, bsc[n], bsw[n])) break;
      NUM_ADDTO(bc, bsc[n]);
      NUM_ADDTO(bw, bsw[n]);
      be = S->bend[n];
    }
    any = 1;
  }
  st[top].s = bs;
  st[top].e = be;
  NUM_SET(st[top].c, bc);
  NUM_SET(st[top].w, bw);
  *pooled = any;
  return top;
}

/* One observation at x index p switches on with weight a. */
static void FN(update)(gi_idr_sweep *S, gi_idx p, double a)
{
  FN(stack_block) *st = (FN(stack_block) *) S->stack;
  NUM *c = (NUM *) S->c, *W = (NUM *) S->W;
  NUM *bsc = (NUM *) S->bsc, *bsw = (NUM *) S->bsw;
  NUM_ADDW(S, c[p], a);
  gi_idx s = block_of(S->bits, p), e = S->bend[s];
  gi_idx top = -1;
  int pooled;
  for (gi_idx j = e; j >= s; j--)
    top = FN(push_pool)(S, top, j, j, c[j], W[j], &pooled);
  /* old blocks to the left, whole, until one holds its boundary */
  while (st[top].s > 0) {
    gi_idx ue = st[top].s - 1, us = S->bstart[ue];
    top = FN(push_pool)(S, top, us, ue, bsc[us], bsw[us], &pooled);
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
    NUM_ADDW(S, W[j], S->obs_w != NULL ? S->obs_w[i] : 1.0);
  }
  if (m > 0) {
    NUM sw = NUM_ZERO;
    for (gi_idx j = 0; j < m; j++) NUM_ADDTO(sw, W[j]);
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
#undef NUM
#undef SUF
#undef NUM_ZERO

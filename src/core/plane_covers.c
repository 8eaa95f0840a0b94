/*
 * The covering pairs (the transitive reduction) of the componentwise order
 * of distinct points in the plane, in O((n + E) log n) for E pairs, where
 * the scan of poset.c for any dimension takes O(n^2).
 *
 * With the points in lexicographic order, a later point j lies above point
 * i when its second coordinate z is at least i's, and it covers i when no
 * point between them lies above i and below j: when z_j is below the z of
 * every point above i that comes before j. So the covers of i are, in
 * order, j_1 = the first point after i with z >= z_i, then the first after
 * it with z in [z_i, z_{j_1}), and so on until that range is empty. Going
 * through the points from the last to the first, a segment tree over the
 * ranks of z holds the smallest position of the points seen (those after
 * i) at each rank, and each cover is one query for the smallest position
 * in a range of ranks: the first point in [z_i, lim) comes after every
 * earlier cover, since those have z >= lim.
 */
#include <math.h>
#include <stdlib.h>
#include "gi_core.h"
#include "plane.h"

typedef struct {
  double z;
  gi_idx a;
} zpos;

static int by_z(const void *p, const void *q)
{
  double x = ((const zpos *) p)->z, y = ((const zpos *) q)->z;
  return (x > y) - (x < y);
}

/* The smallest value in [lo, hi) of the tree t over `size` leaves, or
 * `none`. */
static gi_idx tree_min(const gi_idx *t, gi_idx size, gi_idx lo, gi_idx hi, gi_idx none)
{
  gi_idx best = none;
  for (lo += size, hi += size; lo < hi; lo >>= 1, hi >>= 1) {
    if (lo & 1) {
      if (t[lo] < best) best = t[lo];
      lo++;
    }
    if (hi & 1) {
      hi--;
      if (t[hi] < best) best = t[hi];
    }
  }
  return best;
}

int gi_plane_covers(const double *z, const int *lex, gi_idx n, int **from, int **to,
                    gi_idx *ne)
{
  /* the ranks of z (equal values, equal ranks), over positions in lex */
  zpos *s = malloc(((size_t) n + 1) * sizeof(zpos));
  gi_idx *rank = malloc(((size_t) n + 1) * sizeof(gi_idx));
  gi_idx size = 1;
  while (size < n) size *= 2;
  gi_idx *t = malloc(2 * (size_t) size * sizeof(gi_idx));
  gi_idx cap = 4 * n + 16, len = 0;
  int *f = malloc((size_t) cap * sizeof(int)), *g = malloc((size_t) cap * sizeof(int));
  gi_idx *cut = malloc(((size_t) n + 1) * sizeof(gi_idx));
  int fail = !s || !rank || !t || !f || !g || !cut;
  if (!fail) {
    for (gi_idx a = 0; a < n; a++) {
      s[a].z = z[a];
      s[a].a = a;
    }
    qsort(s, (size_t) n, sizeof(zpos), by_z);
    gi_idx r = -1;
    for (gi_idx b = 0; b < n; b++) {
      if (b == 0 || s[b].z != s[b - 1].z) r++;
      rank[s[b].a] = r;
    }
    for (gi_idx q = 0; q < 2 * size; q++) t[q] = n;
  }
  /* the covers of each point, the points from the last, into f and g
   * (cut[a]: where those of position a begin) */
  for (gi_idx a = n - 1; a >= 0 && !fail; a--) {
    cut[a] = len;
    gi_idx lim = size, ra = rank[a];
    for (;;) {
      gi_idx b = tree_min(t, size, ra, lim, n);
      if (b == n) break;
      if (len == cap) {
        cap *= 2;
        int *f2 = realloc(f, (size_t) cap * sizeof(int));
        if (f2) f = f2;
        int *g2 = realloc(g, (size_t) cap * sizeof(int));
        if (g2) g = g2;
        if (!f2 || !g2) {
          fail = 1;
          break;
        }
      }
      f[len] = lex[a];
      g[len] = lex[b];
      len++;
      lim = rank[b];
    }
    /* position a, the smallest so far, at its rank */
    for (gi_idx q = ra + size; q >= 1; q >>= 1) t[q] = a;
    if (!fail && gi_interrupted(64)) fail = 2;
  }
  free(s);
  free(rank);
  free(t);
  /* the pairs in the order of the points (and each point's in order) */
  int *F = NULL, *G = NULL;
  if (!fail) {
    F = malloc(((size_t) len + 1) * sizeof(int));
    G = malloc(((size_t) len + 1) * sizeof(int));
    if (F == NULL || G == NULL) fail = 1;
  }
  if (!fail) {
    gi_idx at = 0;
    for (gi_idx a = 0; a < n; a++) {
      gi_idx end = a == 0 ? len : cut[a - 1];
      for (gi_idx q = cut[a]; q < end; q++) {
        F[at] = f[q];
        G[at] = g[q];
        at++;
      }
    }
  }
  free(f);
  free(g);
  free(cut);
  if (fail) {
    free(F);
    free(G);
    return fail;
  }
  *from = F;
  *to = G;
  *ne = len;
  return 0;
}

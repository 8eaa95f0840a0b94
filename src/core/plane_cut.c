/*
 * The cut of poset.c's partitioning algorithm when the order is the
 * componentwise order of points in the plane: an upper set U of a set of
 * points maximising sum_{i in U} c_i, in O(k) after the points are sorted
 * (plus a search over a bitset of O(log_64 r) per step), where the general
 * order needs a maximum flow.
 *
 * Point i has a lexicographic position pos[i] (by the first coordinate,
 * then the second) and the rank r_i of its second coordinate (equal
 * coordinates, equal ranks). With the points in lexicographic order, the
 * upper sets are exactly the sets {j : r_j >= h_j} for a non-increasing
 * sequence of levels h (h_j is the smallest rank in U among the points up
 * to j: a point of rank >= it lies above one of them). So the best U is a
 * dynamic programme over the points in that order whose state is the level
 * l: E(l), the best value of the points so far with h >= l, is
 * non-increasing in l, and point j (cost c_j) makes it
 *     E'(l) = max(E(l) + c_j [l <= r_j], E(r_j + 1))
 * (Spouge, Wan and Wilbur 2003 use the same staircase view for the whole
 * regression in two dimensions). E is kept as its non-negative steps
 * d(l) = E(l) - E(l + 1): a point of cost c >= 0 adds c to d(r), one of
 * cost c < 0 takes -c from the steps at r and below, the nearest first,
 * found with a bitset of the non-zero steps. Each step is created once and
 * emptied at most once, so the pass is linear apart from the searches.
 *
 * The set itself comes from a pass back: going down the points with the
 * smallest level b allowed so far (0 at the last point), point j belongs to
 * U when E(b) + c_j >= E(r_j + 1) just before j, that is when the steps
 * from b to r_j sum to at least -c_j, that is when b <= p_j, the lowest
 * level that j's forward step had to reach (r_j when c_j >= 0, -1 when the
 * steps ran out); otherwise b rises to r_j + 1. Ties go to U: any best U
 * serves the partitioning algorithm.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "plane.h"

void gi_plane_ws_free(gi_plane_ws *P)
{
  free(P->step); free(P->reach); free(P->touched);
  for (int l = 0; l < GI_PLANE_LEVELS; l++) free(P->bits[l]);
  memset(P, 0, sizeof(*P));
}

int gi_plane_ws_alloc(gi_plane_ws *P, gi_idx n, gi_idx nrank)
{
  memset(P, 0, sizeof(*P));
  if (nrank < 1) nrank = 1;
  P->step = calloc((size_t) nrank, sizeof(double));
  P->reach = malloc(((size_t) n + 1) * sizeof(gi_idx));
  P->touched = malloc(((size_t) n + 1) * sizeof(gi_idx));
  int fail = P->step == NULL || P->reach == NULL || P->touched == NULL;
  /* levels of the bitset until one word covers the level below */
  gi_idx words = nrank;
  do {
    words = (words + 63) / 64;
    if (P->nlev == GI_PLANE_LEVELS) {
      fail = 1;
      break;
    }
    P->bits[P->nlev] = calloc((size_t) words, sizeof(uint64_t));
    fail |= P->bits[P->nlev] == NULL;
    P->nlev++;
  } while (words > 1);
  if (fail) {
    gi_plane_ws_free(P);
    return 1;
  }
  return 0;
}

static void bit_set(gi_plane_ws *P, gi_idx x)
{
  for (int l = 0; l < P->nlev; l++) {
    uint64_t *w = &P->bits[l][x >> 6], was = *w;
    *w = was | ((uint64_t) 1 << (x & 63));
    if (was != 0) return; /* the levels above know this word */
    x >>= 6;
  }
}

static void bit_clear(gi_plane_ws *P, gi_idx x)
{
  for (int l = 0; l < P->nlev; l++) {
    uint64_t *w = &P->bits[l][x >> 6];
    *w &= ~((uint64_t) 1 << (x & 63));
    if (*w != 0) return;
    x >>= 6;
  }
}

/* The largest set position <= x, or -1. */
static gi_idx bit_pred(const gi_plane_ws *P, gi_idx x)
{
  for (int l = 0; l < P->nlev && x >= 0; l++) {
    gi_idx w = x >> 6;
    int b = (int) (x & 63);
    uint64_t m = P->bits[l][w] & (b == 63 ? ~(uint64_t) 0 : (((uint64_t) 2 << b) - 1));
    if (m != 0) {
      x = (w << 6) + gi_top_bit(m);
      for (int d = l - 1; d >= 0; d--) x = (x << 6) + gi_top_bit(P->bits[d][x]);
      return x;
    }
    x = w - 1; /* the words before w, one level up */
  }
  return -1;
}

gi_idx gi_plane_cut(gi_plane_ws *P, const int *rank, const gi_idx *v, gi_idx k,
                    const double *c, unsigned char *in_u, double *value)
{
  double *step = P->step;
  gi_idx *reach = P->reach, *touched = P->touched, nt = 0;
  for (gi_idx q = 0; q < k; q++) {
    gi_idx r = rank[v[q]];
    double cq = c[q];
    if (cq >= 0.0) {
      if (cq > 0.0) {
        if (step[r] == 0.0) {
          bit_set(P, r);
          touched[nt++] = r;
        }
        step[r] += cq;
      }
      reach[q] = r;
      continue;
    }
    double need = -cq;
    gi_idx at = bit_pred(P, r);
    while (at >= 0 && step[at] < need) {
      need -= step[at];
      step[at] = 0.0;
      bit_clear(P, at);
      at = bit_pred(P, at - 1);
    }
    if (at >= 0) {
      step[at] -= need;
      if (!(step[at] > 0.0)) {
        step[at] = 0.0;
        bit_clear(P, at);
      }
    }
    reach[q] = at;
  }
  /* leave the steps and the bitset empty for the next cut */
  for (gi_idx a = 0; a < nt; a++) {
    gi_idx r = touched[a];
    if (step[r] != 0.0) {
      step[r] = 0.0;
      bit_clear(P, r);
    }
  }
  gi_idx b = 0, nu = 0;
  double sum = 0.0;
  for (gi_idx q = k - 1; q >= 0; q--) {
    gi_idx r = rank[v[q]];
    if (b <= reach[q]) {
      in_u[q] = 1;
      sum += c[q];
      nu++;
    } else {
      in_u[q] = 0;
      if (b <= r) b = r + 1;
    }
  }
  *value = sum;
  return nu;
}

int gi_plane_check(const gi_plane *plane, gi_idx n, const int *from, const int *to,
                   gi_idx ne)
{
  const int *pos = plane->pos, *rank = plane->rank;
  unsigned char *seen = calloc((size_t) n + 1, 1);
  if (seen == NULL) return -1;
  int bad = 0;
  for (gi_idx i = 0; i < n && !bad; i++) {
    bad = pos[i] < 0 || pos[i] >= n || seen[pos[i]] || rank[i] < 0 ||
          rank[i] >= plane->nrank;
    if (!bad) seen[pos[i]] = 1;
  }
  free(seen);
  for (gi_idx e = 0; e < ne && !bad; e++)
    bad = !(pos[from[e]] < pos[to[e]] && rank[from[e]] <= rank[to[e]]);
  return bad;
}

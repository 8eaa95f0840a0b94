/* The componentwise order of points in the plane, for poset.c: the cut of
 * the partitioning algorithm (plane_cut.c) and the covering pairs
 * (plane_covers.c). */
#ifndef GPUISO_PLANE_H
#define GPUISO_PLANE_H

#include <stdint.h>
#include "gi_core.h"

/* A bitset over 64^GI_PLANE_LEVELS ranks at most. */
#define GI_PLANE_LEVELS 6

/* One thread's workspace: the steps over the ranks (zero between cuts),
 * the bitset of the non-zero ones, and two arrays over the points. */
typedef struct {
  double *step;
  gi_idx *reach, *touched;
  uint64_t *bits[GI_PLANE_LEVELS];
  int nlev;
} gi_plane_ws;

/* For at most n points of ranks below nrank: 0, or 1 when memory runs out
 * (nothing then to free). */
int gi_plane_ws_alloc(gi_plane_ws *P, gi_idx n, gi_idx nrank);
void gi_plane_ws_free(gi_plane_ws *P);

/* The points v[0..k), in lexicographic order, point v[q] of cost c[q] and
 * of rank rank[v[q]] (its second coordinate's): marks in in_u[0..k) an
 * upper set U maximising the sum of the costs over it, puts that sum
 * (rounded) in *value and returns |U|. */
gi_idx gi_plane_cut(gi_plane_ws *P, const int *rank, const gi_idx *v, gi_idx k,
                    const double *c, unsigned char *in_u, double *value);

/* The covering pairs of n distinct points in the plane whose second
 * coordinates, in lexicographic order, are z[0..n), lex giving the point
 * at each position: as gi_poset_comp_edges() (the same pairs in the same
 * order): 0, or 1 when memory runs out, 2 when interrupted. */
int gi_plane_covers(const double *z, const int *lex, gi_idx n, int **from, int **to,
                    gi_idx *ne);

#endif

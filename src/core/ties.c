/*
 * stats::isoreg()'s order of the points, order(x, -y), from an order by x
 * alone: R's radix sort by one key is about twice as fast as by two, and
 * only the runs of tied x need the second key. The values are gathered in
 * the order by x, and each run is then sorted by y (decreasing, or
 * increasing for decreasing fits), stably, as order() is: by insertion
 * when short, else by a radix sort on the bits of y.
 */
#include <stdlib.h>
#include <string.h>
#include "gi_core.h"
#include "gi_omp.h"

/* y as an unsigned key in the order of the doubles (-0 as +0, so that the
 * two tie as they do in order()); decreasing order flips the bits. */
static inline uint64_t key_of(double v, int desc)
{
  uint64_t b;
  v = v == 0.0 ? 0.0 : v;
  memcpy(&b, &v, sizeof(b));
  b = (b >> 63) ? ~b : b | 0x8000000000000000ull;
  return desc ? ~b : b;
}

typedef struct {
  uint64_t *key, *key2;
  gi_idx *idx, *idx2;
  gi_idx cap;
} sortbuf;

static int reserve(sortbuf *s, gi_idx g)
{
  if (g <= s->cap) return 0;
  gi_idx cap = s->cap < 256 ? 256 : s->cap;
  while (cap < g) cap *= 2;
  free(s->key);
  free(s->idx);
  s->key = malloc((size_t) cap * 2 * sizeof(uint64_t));
  s->idx = malloc((size_t) cap * 2 * sizeof(gi_idx));
  if (s->key == NULL || s->idx == NULL) return 1;
  s->key2 = s->key + cap;
  s->idx2 = s->idx + cap;
  s->cap = cap;
  return 0;
}

/* Stable merge sort of (key, idx) for mid-sized runs, bottom up, through
 * the second halves of the buffers; the result ends in s->key, s->idx. */
static void merge_sort(sortbuf *s, gi_idx g)
{
  uint64_t *key = s->key, *k2 = s->key2;
  gi_idx *idx = s->idx, *i2 = s->idx2;
  /* runs of 16 by insertion first */
  for (gi_idx a = 0; a < g; a += 16) {
    gi_idx e = a + 16 < g ? a + 16 : g;
    for (gi_idx b = a + 1; b < e; b++) {
      uint64_t k = key[b];
      gi_idx v = idx[b], c = b;
      for (; c > a && key[c - 1] > k; c--) {
        key[c] = key[c - 1];
        idx[c] = idx[c - 1];
      }
      key[c] = k;
      idx[c] = v;
    }
  }
  for (gi_idx width = 16; width < g; width *= 2) {
    for (gi_idx a = 0; a < g; a += 2 * width) {
      gi_idx m = a + width < g ? a + width : g, e = a + 2 * width < g ? a + 2 * width : g;
      gi_idx i = a, j = m, o = a;
      while (i < m && j < e) {
        int right = key[j] < key[i]; /* ties take the left: stable */
        k2[o] = right ? key[j] : key[i];
        i2[o++] = right ? idx[j++] : idx[i++];
      }
      while (i < m) { k2[o] = key[i]; i2[o++] = idx[i++]; }
      while (j < e) { k2[o] = key[j]; i2[o++] = idx[j++]; }
    }
    uint64_t *tk = key; key = k2; k2 = tk;
    gi_idx *ti = idx; idx = i2; i2 = ti;
  }
  if (key != s->key) {
    memcpy(s->key, key, (size_t) g * sizeof(uint64_t));
    memcpy(s->idx, idx, (size_t) g * sizeof(gi_idx));
  }
}

/* Sorts (key, idx) by key, stably; the result is left in s->key, s->idx:
 * by insertion for short runs, merging for mid-sized ones, by bytes (LSD
 * radix, skipping bytes that all keys share) for long ones. */
static void sort_run(sortbuf *s, gi_idx g)
{
  uint64_t *key = s->key, *k2 = s->key2;
  gi_idx *idx = s->idx, *i2 = s->idx2;
  if (g <= 16) {
    for (gi_idx a = 1; a < g; a++) {
      uint64_t k = key[a];
      gi_idx v = idx[a], b = a;
      for (; b > 0 && key[b - 1] > k; b--) {
        key[b] = key[b - 1];
        idx[b] = idx[b - 1];
      }
      key[b] = k;
      idx[b] = v;
    }
    return;
  }
  if (g < 2048) {
    merge_sort(s, g);
    return;
  }
  for (int shift = 0; shift < 64; shift += 8) {
    gi_idx count[256] = {0};
    for (gi_idx a = 0; a < g; a++) count[(key[a] >> shift) & 255]++;
    if (count[(key[0] >> shift) & 255] == g) continue; /* one digit: nothing moves */
    gi_idx pos = 0;
    for (int d = 0; d < 256; d++) {
      gi_idx c = count[d];
      count[d] = pos;
      pos += c;
    }
    for (gi_idx a = 0; a < g; a++) {
      gi_idx p = count[(key[a] >> shift) & 255]++;
      k2[p] = key[a];
      i2[p] = idx[a];
    }
    uint64_t *tk = key; key = k2; k2 = tk;
    gi_idx *ti = idx; idx = i2; i2 = ti;
  }
  if (key != s->key) {
    memcpy(s->key, key, (size_t) g * sizeof(uint64_t));
    memcpy(s->idx, idx, (size_t) g * sizeof(gi_idx));
  }
}

/* Run [a, a + g) sorted by y, its order entries and weights with it. */
static void sort_one(sortbuf *s, gi_idx a, gi_idx g, int *oi, double *od,
                     double *ys, double *ws, int desc)
{
  for (gi_idx j = 0; j < g; j++) {
    s->key[j] = key_of(ys[a + j], desc);
    s->idx[j] = j;
  }
  sort_run(s, g);
  /* permute the run's entries by s->idx, through the second halves */
  double *tmp = (double *) s->key2;
  gi_idx *ord = s->idx2;
  for (gi_idx j = 0; j < g; j++) {
    ord[j] = oi ? (gi_idx) oi[a + s->idx[j]] : (gi_idx) od[a + s->idx[j]];
    tmp[j] = ys[a + s->idx[j]];
  }
  for (gi_idx j = 0; j < g; j++) {
    if (oi) oi[a + j] = (int) ord[j];
    else od[a + j] = (double) ord[j];
    ys[a + j] = tmp[j];
  }
  if (ws) {
    for (gi_idx j = 0; j < g; j++) tmp[j] = ws[a + s->idx[j]];
    for (gi_idx j = 0; j < g; j++) ws[a + j] = tmp[j];
  }
}

gi_idx gi_list_ties(const unsigned char *same, gi_idx n, gi_idx *tie)
{
  gi_idx nt = 0;
  for (gi_idx k = 1; k < n; k++) {
    if (!same[k]) continue;
    gi_idx start = k - 1;
    while (k < n && same[k]) k++;
    tie[2 * nt] = start;
    tie[2 * nt + 1] = k;
    nt++;
  }
  return nt;
}

gi_idx gi_order_ties(const double *x, const double *y, const double *w,
                     int *oi, double *od, gi_idx n, int desc, int nthreads,
                     double *ys, double *ws, gi_idx *tie)
{
  /* one pass in sort order reads x, y and w together (the reads are
   * random; independent ones overlap, the more so on several threads),
   * marking where x repeats; the runs are then listed in one scan */
  int nth = nthreads > 1 && n >= 65536 ? gi_threads_cap(nthreads) : 1;
  unsigned char *same = malloc((size_t) n + 1);
  if (same == NULL) return -1;
#pragma omp parallel for num_threads(nth) schedule(static)
  for (gi_idx k = 0; k < n; k++) {
    gi_idx i = oi ? (gi_idx) oi[k] - 1 : (gi_idx) od[k] - 1;
    gi_idx h = k > 0 ? (oi ? (gi_idx) oi[k - 1] - 1 : (gi_idx) od[k - 1] - 1) : i;
    ys[k] = y[i];
    if (w) ws[k] = w[i];
    same[k] = k > 0 && x[i] == x[h];
  }
  gi_idx nt = gi_list_ties(same, n, tie);
  free(same);
  if (nt == 0) return 0;

  /* each run sorted by y, carrying its order entries and weights; runs
   * are independent, so threads share them */
  int failed = 0;
#pragma omp parallel num_threads(nth) reduction(|| : failed)
  {
    sortbuf s = {NULL, NULL, NULL, NULL, 0};
#pragma omp for schedule(dynamic, 16)
    for (gi_idx t = 0; t < nt; t++) {
      if (failed || reserve(&s, tie[2 * t + 1] - tie[2 * t])) {
        failed = 1;
        continue;
      }
      sort_one(&s, tie[2 * t], tie[2 * t + 1] - tie[2 * t], oi, od, ys, ws,
               desc);
    }
    free(s.key);
    free(s.idx);
  }
  return failed ? -1 : nt;
}

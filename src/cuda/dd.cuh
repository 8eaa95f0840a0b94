/*
 * gpuiso CUDA engine: double-double arithmetic and the turn predicate.
 * Coordinates of the cumulative sum diagram are pairs hi + lo; sums of up to
 * 2^50 terms lose nothing that a slope of the fit could show.
 */
#ifndef GI_DD_CUH
#define GI_DD_CUH

struct dd {
  double hi, lo;
};

__device__ __forceinline__ dd dd_make(double h) { return dd{h, 0.0}; }

__device__ __forceinline__ dd two_sum(double a, double b)
{
  double s = __dadd_rn(a, b);
  double bb = __dsub_rn(s, a);
  double e = __dadd_rn(__dsub_rn(a, __dsub_rn(s, bb)), __dsub_rn(b, bb));
  return dd{s, e};
}

__device__ __forceinline__ dd fast_two_sum(double a, double b)
{
  double s = __dadd_rn(a, b);
  return dd{s, __dsub_rn(b, __dsub_rn(s, a))};
}

__device__ __forceinline__ dd dd_add(dd a, dd b)
{
  dd s = two_sum(a.hi, b.hi);
  dd t = two_sum(a.lo, b.lo);
  s.lo = __dadd_rn(s.lo, t.hi);
  s = fast_two_sum(s.hi, s.lo);
  s.lo = __dadd_rn(s.lo, t.lo);
  return fast_two_sum(s.hi, s.lo);
}

/* a + b for a double b: a running sum that keeps the bits of each term. */
__device__ __forceinline__ dd dd_add_d(dd a, double b)
{
  dd s = two_sum(a.hi, b);
  s.lo = __dadd_rn(s.lo, a.lo);
  return fast_two_sum(s.hi, s.lo);
}

__device__ __forceinline__ dd dd_neg(dd a) { return dd{-a.hi, -a.lo}; }
__device__ __forceinline__ dd dd_sub(dd a, dd b) { return dd_add(a, dd_neg(b)); }

__device__ __forceinline__ dd two_prod(double a, double b)
{
  double p = __dmul_rn(a, b);
  return dd{p, fma(a, b, -p)};
}

__device__ __forceinline__ dd dd_mul(dd a, dd b)
{
  dd p = two_prod(a.hi, b.hi);
  p.lo = __dadd_rn(p.lo, fma(a.hi, b.lo, __dmul_rn(a.lo, b.hi)));
  return fast_two_sum(p.hi, p.lo);
}

/* a / b rounded once to double (within an ulp, monotone in a). */
__device__ __forceinline__ double dd_div(dd a, dd b)
{
  double q1 = a.hi / b.hi;
  dd r = dd_sub(a, dd_mul(b, dd_make(q1)));
  double q2 = r.hi / b.hi;
  return __dadd_rn(q1, q2);
}

/* A point of the diagram: abscissa (cumulative weight) and ordinate
 * (cumulative weighted value). */
struct pt {
  dd x, y;
};

/* Is b strictly below the segment from a to d, i.e. is the chain a, b, d
 * convex at b, so that b stays a vertex? This is the sign of
 * (bx - ax)(dy - ay) - (by - ay)(dx - ax), whose size relative to its two
 * products is the relative difference of the slopes on either side of b.
 * A difference below 2^-80 counts as none, as on the CPU (ties pool), so
 * that neighbouring slopes that survive differ by far more than the
 * rounding of a quotient and the fit stays monotone after rounding. The
 * hi parts decide unless the call is within their error bound; then the
 * pairs do. */
__device__ __forceinline__ bool convex_at(const pt &a, const pt &b, const pt &d)
{
  const double u = 0x1p-53;
  double ux = b.x.hi - a.x.hi, uy = b.y.hi - a.y.hi;
  double vx = d.x.hi - a.x.hi, vy = d.y.hi - a.y.hi;
  double p1 = ux * vy, p2 = uy * vx;
  double c = p1 - p2;
  double mx = fmax(fabs(a.x.hi), fmax(fabs(b.x.hi), fabs(d.x.hi)));
  double my = fmax(fabs(a.y.hi), fmax(fabs(b.y.hi), fabs(d.y.hi)));
  double ap = fabs(p1) + fabs(p2);
  double err = 16.0 * u * (mx * (fabs(uy) + fabs(vy)) + my * (fabs(ux) + fabs(vx)) + ap);
  double tie = 0x1p-79 * ap;
  if (c > err + tie) return true;
  if (c < -err) return false;
  /* close call: the pairs */
  dd dux = dd_sub(b.x, a.x), duy = dd_sub(b.y, a.y);
  dd dvx = dd_sub(d.x, a.x), dvy = dd_sub(d.y, a.y);
  dd q1 = dd_mul(dux, dvy), q2 = dd_mul(duy, dvx);
  dd cc = dd_sub(q1, q2);
  return cc.hi > 0x1p-80 * (fabs(q1.hi) + fabs(q2.hi));
}

/* The slope from a to d, rounded once: the mean of the block between. */
__device__ __forceinline__ double slope(const pt &a, const pt &d)
{
  return dd_div(dd_sub(d.y, a.y), dd_sub(d.x, a.x));
}

#endif

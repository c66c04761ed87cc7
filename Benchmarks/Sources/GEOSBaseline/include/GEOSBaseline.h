#ifndef GEOS_BASELINE_H
#define GEOS_BASELINE_H

/* C-API baseline loops for the GEOS predicate benchmarks.
 *
 * Each function is the straightforward way to do the job in C against GEOS 3.11 (which has no
 * GEOSPreparedIntersectsXY_r): a fresh point geometry per test, the _r predicate, destroy.
 * Every counting function returns the number of hits, or -1 when GEOS reported an exception
 * (predicate result 2) or failed to create a point.
 *
 * The context handle and the geometries are created by the caller through the helpers below,
 * so the Swift benchmark can build them outside the measured region. */

#include <stddef.h>

#define GEOS_USE_ONLY_R_API
#include <geos_c.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A GEOS context with no message handlers (GEOS_init_r); NULL on failure.
 * Release it with geos_baseline_finish. */
GEOSContextHandle_t _Nullable geos_baseline_init(void);
void geos_baseline_finish(GEOSContextHandle_t _Nonnull handle);

/* A polygon without holes whose shell is the closed ring of `count` points stored as
 * x0 y0 x1 y1 ... in `xy` (built with GEOSCoordSeq_copyFromBuffer_r). NULL on failure. */
GEOSGeometry *_Nullable geos_baseline_polygon(GEOSContextHandle_t _Nonnull handle,
                                              const double *_Nonnull xy, size_t count);

/* Axis-aligned squares, one polygon per (x, y, side) triple: [x, x+side] x [y, y+side].
 * Stores `count` geometries into `out`; returns 0 on success, -1 on failure (nothing is left
 * allocated then). Release with geos_baseline_destroy_all. */
int geos_baseline_squares(GEOSContextHandle_t _Nonnull handle,
                          const double *_Nonnull xs, const double *_Nonnull ys,
                          const double *_Nonnull sides, size_t count,
                          GEOSGeometry *_Nullable *_Nonnull out);

void geos_baseline_destroy(GEOSContextHandle_t _Nonnull handle, GEOSGeometry *_Nonnull geometry);
void geos_baseline_destroy_all(GEOSContextHandle_t _Nonnull handle,
                               GEOSGeometry *_Nullable *_Nonnull geometries, size_t count);

/* GEOSPrepare_r; NULL on failure. The prepared geometry refers to `geometry`, which must
 * outlive it. */
const GEOSPreparedGeometry *_Nullable geos_baseline_prepare(GEOSContextHandle_t _Nonnull handle,
                                                            const GEOSGeometry *_Nonnull geometry);
void geos_baseline_prepared_destroy(GEOSContextHandle_t _Nonnull handle,
                                    const GEOSPreparedGeometry *_Nonnull prepared);

/* (a) Prepared point-in-polygon: per point GEOSGeom_createPointFromXY_r,
 * GEOSPreparedIntersects_r, GEOSGeom_destroy_r. */
long geos_baseline_prepared_point_hits(GEOSContextHandle_t _Nonnull handle,
                                       const GEOSPreparedGeometry *_Nonnull prepared,
                                       const double *_Nonnull xs, const double *_Nonnull ys,
                                       size_t n);

/* (a') The same, rejecting points outside the box [xmin, xmax] x [ymin, ymax] (the polygon's
 * envelope) before touching GEOS. */
long geos_baseline_prepared_point_hits_envelope(GEOSContextHandle_t _Nonnull handle,
                                                const GEOSPreparedGeometry *_Nonnull prepared,
                                                double xmin, double ymin, double xmax, double ymax,
                                                const double *_Nonnull xs, const double *_Nonnull ys,
                                                size_t n);

/* (b) Unprepared point-in-polygon: per point a fresh point, GEOSIntersects_r, destroy. */
long geos_baseline_point_hits(GEOSContextHandle_t _Nonnull handle,
                              const GEOSGeometry *_Nonnull polygon,
                              const double *_Nonnull xs, const double *_Nonnull ys, size_t n);

/* (c) Polygon-polygon: GEOSIntersects_r of `polygon` with each of `others`. */
long geos_baseline_polygon_hits(GEOSContextHandle_t _Nonnull handle,
                                const GEOSGeometry *_Nonnull polygon,
                                GEOSGeometry *_Nullable const *_Nonnull others, size_t n);

/* (c') The same with the polygon prepared: GEOSPreparedIntersects_r. */
long geos_baseline_prepared_polygon_hits(GEOSContextHandle_t _Nonnull handle,
                                         const GEOSPreparedGeometry *_Nonnull prepared,
                                         GEOSGeometry *_Nullable const *_Nonnull others, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* GEOS_BASELINE_H */

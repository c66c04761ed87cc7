#ifndef CGEOS_SHIM_H
#define CGEOS_SHIM_H

/* GeoSieve's view of the GEOS C API.
 *
 * Everything the Swift side calls goes through the reentrant (_r) functions of geos_c.h.
 * The static inline wrappers below paper over differences between GEOS versions, so that
 * Swift code calls one name whatever the installed GEOS provides. */

#define GEOS_USE_ONLY_R_API
#include <geos_c.h>

#define CGEOS_VERSION_AT_LEAST(major, minor) \
    (GEOS_VERSION_MAJOR > (major) || (GEOS_VERSION_MAJOR == (major) && GEOS_VERSION_MINOR >= (minor)))

#if !CGEOS_VERSION_AT_LEAST(3, 10)
#error "GeoSieve needs GEOS 3.10 or later (GEOSCoordSeq_copyFromBuffer_r, GEOSDistanceWithin_r)"
#endif

/* Prepared point-in-geometry test without building a point geometry where GEOS allows it.
 * Returns 1 on true, 0 on false, 2 on exception (the GEOS predicate convention). */
static inline char cgeos_prepared_intersects_xy(GEOSContextHandle_t handle,
                                               const GEOSPreparedGeometry *prepared,
                                               double x, double y) {
#if CGEOS_VERSION_AT_LEAST(3, 12)
    return GEOSPreparedIntersectsXY_r(handle, prepared, x, y);
#else
    GEOSGeometry *point = GEOSGeom_createPointFromXY_r(handle, x, y);
    if (point == NULL) {
        return 2;
    }
    char result = GEOSPreparedIntersects_r(handle, prepared, point);
    GEOSGeom_destroy_r(handle, point);
    return result;
#endif
}

/* Same for containment (point in the interior). */
static inline char cgeos_prepared_contains_xy(GEOSContextHandle_t handle,
                                             const GEOSPreparedGeometry *prepared,
                                             double x, double y) {
#if CGEOS_VERSION_AT_LEAST(3, 12)
    return GEOSPreparedContainsXY_r(handle, prepared, x, y);
#else
    GEOSGeometry *point = GEOSGeom_createPointFromXY_r(handle, x, y);
    if (point == NULL) {
        return 2;
    }
    char result = GEOSPreparedContains_r(handle, prepared, point);
    GEOSGeom_destroy_r(handle, point);
    return result;
#endif
}

#endif /* CGEOS_SHIM_H */

#include "GEOSBaseline.h"

GEOSContextHandle_t geos_baseline_init(void) {
    return GEOS_init_r();
}

void geos_baseline_finish(GEOSContextHandle_t handle) {
    GEOS_finish_r(handle);
}

GEOSGeometry *geos_baseline_polygon(GEOSContextHandle_t handle, const double *xy, size_t count) {
    GEOSCoordSequence *sequence = GEOSCoordSeq_copyFromBuffer_r(handle, xy, (unsigned int)count, 0, 0);
    if (sequence == NULL) {
        return NULL;
    }
    /* The sequence passes to the ring, the ring to the polygon. */
    GEOSGeometry *shell = GEOSGeom_createLinearRing_r(handle, sequence);
    if (shell == NULL) {
        return NULL;
    }
    return GEOSGeom_createPolygon_r(handle, shell, NULL, 0);
}

static GEOSGeometry *square(GEOSContextHandle_t handle, double x, double y, double side) {
    const double ring[10] = {
        x, y, x + side, y, x + side, y + side, x, y + side, x, y,
    };
    return geos_baseline_polygon(handle, ring, 5);
}

int geos_baseline_squares(GEOSContextHandle_t handle, const double *xs, const double *ys,
                          const double *sides, size_t count, GEOSGeometry **out) {
    for (size_t i = 0; i < count; i++) {
        out[i] = square(handle, xs[i], ys[i], sides[i]);
        if (out[i] == NULL) {
            geos_baseline_destroy_all(handle, out, i);
            return -1;
        }
    }
    return 0;
}

void geos_baseline_destroy(GEOSContextHandle_t handle, GEOSGeometry *geometry) {
    GEOSGeom_destroy_r(handle, geometry);
}

void geos_baseline_destroy_all(GEOSContextHandle_t handle, GEOSGeometry **geometries, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if (geometries[i] != NULL) {
            GEOSGeom_destroy_r(handle, geometries[i]);
            geometries[i] = NULL;
        }
    }
}

const GEOSPreparedGeometry *geos_baseline_prepare(GEOSContextHandle_t handle, const GEOSGeometry *geometry) {
    return GEOSPrepare_r(handle, geometry);
}

void geos_baseline_prepared_destroy(GEOSContextHandle_t handle, const GEOSPreparedGeometry *prepared) {
    GEOSPreparedGeom_destroy_r(handle, prepared);
}

long geos_baseline_prepared_point_hits(GEOSContextHandle_t handle, const GEOSPreparedGeometry *prepared,
                                       const double *xs, const double *ys, size_t n) {
    long hits = 0;
    for (size_t i = 0; i < n; i++) {
        GEOSGeometry *point = GEOSGeom_createPointFromXY_r(handle, xs[i], ys[i]);
        if (point == NULL) {
            return -1;
        }
        /* 1 true, 0 false, 2 exception. */
        char result = GEOSPreparedIntersects_r(handle, prepared, point);
        GEOSGeom_destroy_r(handle, point);
        if (result == 2) {
            return -1;
        }
        hits += result;
    }
    return hits;
}

long geos_baseline_prepared_point_hits_envelope(GEOSContextHandle_t handle, const GEOSPreparedGeometry *prepared,
                                                double xmin, double ymin, double xmax, double ymax,
                                                const double *xs, const double *ys, size_t n) {
    long hits = 0;
    for (size_t i = 0; i < n; i++) {
        const double x = xs[i], y = ys[i];
        if (x < xmin || x > xmax || y < ymin || y > ymax) {
            continue;
        }
        GEOSGeometry *point = GEOSGeom_createPointFromXY_r(handle, x, y);
        if (point == NULL) {
            return -1;
        }
        char result = GEOSPreparedIntersects_r(handle, prepared, point);
        GEOSGeom_destroy_r(handle, point);
        if (result == 2) {
            return -1;
        }
        hits += result;
    }
    return hits;
}

long geos_baseline_point_hits(GEOSContextHandle_t handle, const GEOSGeometry *polygon,
                              const double *xs, const double *ys, size_t n) {
    long hits = 0;
    for (size_t i = 0; i < n; i++) {
        GEOSGeometry *point = GEOSGeom_createPointFromXY_r(handle, xs[i], ys[i]);
        if (point == NULL) {
            return -1;
        }
        char result = GEOSIntersects_r(handle, polygon, point);
        GEOSGeom_destroy_r(handle, point);
        if (result == 2) {
            return -1;
        }
        hits += result;
    }
    return hits;
}

long geos_baseline_polygon_hits(GEOSContextHandle_t handle, const GEOSGeometry *polygon,
                                GEOSGeometry *const *others, size_t n) {
    long hits = 0;
    for (size_t i = 0; i < n; i++) {
        char result = GEOSIntersects_r(handle, polygon, others[i]);
        if (result == 2) {
            return -1;
        }
        hits += result;
    }
    return hits;
}

long geos_baseline_prepared_polygon_hits(GEOSContextHandle_t handle, const GEOSPreparedGeometry *prepared,
                                         GEOSGeometry *const *others, size_t n) {
    long hits = 0;
    for (size_t i = 0; i < n; i++) {
        char result = GEOSPreparedIntersects_r(handle, prepared, others[i]);
        if (result == 2) {
            return -1;
        }
        hits += result;
    }
    return hits;
}

#ifndef CPROJ_SHIM_H
#define CPROJ_SHIM_H

/* GeoSieve's view of the PROJ C API (proj.h).
 *
 * Every call the Swift side makes takes an explicit PJ_CONTEXT, one per thread. */

#include <proj.h>
/* Karney's geodesics on an ellipsoid (geod_init, geod_inverse), part of libproj. */
#include <geodesic.h>

#if !defined(PROJ_VERSION_MAJOR) || PROJ_VERSION_MAJOR < 6 || (PROJ_VERSION_MAJOR == 6 && PROJ_VERSION_MINOR < 2)
#error "GeoSieve needs PROJ 6.2 or later (proj_create_crs_to_crs_from_pj, proj_normalize_for_visualization)"
#endif

/* PROJ_VERSION_* as one number, major * 10000 + minor * 100 + patch. */
static inline int cproj_version_number(void) {
    return PROJ_VERSION_MAJOR * 10000 + PROJ_VERSION_MINOR * 100 + PROJ_VERSION_PATCH;
}

/* The text of a PROJ error number (proj_context_errno_string from PROJ 8 on). */
static inline const char *cproj_errno_string(PJ_CONTEXT *ctx, int err) {
#if PROJ_VERSION_MAJOR >= 8
    return proj_context_errno_string(ctx, err);
#else
    (void)ctx;
    return proj_errno_string(err);
#endif
}

#endif /* CPROJ_SHIM_H */

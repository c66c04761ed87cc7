#ifndef CGEOS_BASELINE_H
#define CGEOS_BASELINE_H

/* The GEOS C API, reentrant functions only, for the benchmark baseline. */
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>

#endif /* CGEOS_BASELINE_H */

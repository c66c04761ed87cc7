#ifndef CSNAPPY_SHIM_H
#define CSNAPPY_SHIM_H
/* The system Snappy library's C interface: Snappy-compressed Parquet pages (GeoParquet). */
#include <snappy-c.h>
#endif

#ifndef CZSTD_SHIM_H
#define CZSTD_SHIM_H
/* The system Zstandard library: ZSTD-compressed pages of Parquet files (GeoParquet). */
#include <zstd.h>
#endif

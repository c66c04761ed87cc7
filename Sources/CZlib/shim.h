#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
/* The system zlib: deflate and inflate of zip archive members (zipped shapefiles) and CRC-32. */
#include <zlib.h>
#endif

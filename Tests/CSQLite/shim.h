#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
/* SQLite for GeoSieve's tests: the independent SQL engine the differential tests compare with. */
#include <sqlite3.h>
#endif

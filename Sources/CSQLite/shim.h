#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
/* The system SQLite library: GeoPackage reading and writing (SieveFormats), and the independent SQL
   engine the where-clause differential tests compare with. */
#include <sqlite3.h>
#endif

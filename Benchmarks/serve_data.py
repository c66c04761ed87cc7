#!/usr/bin/env python3
"""Seeded data and query boxes for the server load benchmark (Benchmarks/run_serve.sh).

    python3 Benchmarks/serve_data.py DIR [--points 1000000] [--seed 42] [--boxes 10000] [--box-deg 1.5]

Writes, with the standard library only (no numpy, no GDAL), and the same bytes for the same
arguments on any CPython 3:

  DIR/points.gpkg  a GeoPackage 1.2 with one feature table `points` (POINT, EPSG:4326):
                   fid INTEGER PRIMARY KEY, geom (GeoPackage binary, little-endian WKB, no
                   envelope: GDAL's way for points), id INTEGER (= fid), category TEXT
                   ('c0' … 'c9', uniform), value REAL (uniform in [0, 1000)); positions uniform,
                   lon in [-180, 180), lat in [-85, 85); with the R-tree spatial index
                   rtree_points_geom registered in gpkg_extensions (no update triggers: the file
                   is only read);
  DIR/boxes.txt    --boxes lines `xmin,ymin,xmax,ymax`: squares of --box-deg degrees centred on
                   randomly drawn data points (so every box holds at least one point), shifted
                   back inside [-180, 180] x [-90, 90] where they stick out.

One random.Random(seed) stream draws the points; a second, Random(seed + 1), the boxes.
"""
import argparse
import os
import random
import sqlite3
import struct
import sys
import time


def create_point_geopackage(tmp, table, columns, xs, ys):
    """A new GeoPackage at `tmp` holding the point table `table` (fid, geom, then `columns`, SQL
    column definitions) with its R-tree, registered in WGS 84 with the extent of `xs`, `ys`;
    the open connection, for the caller to insert the rows. Shared by the serve benchmark's
    data scripts."""
    db = sqlite3.connect(tmp)
    db.executescript(
        f"""
        PRAGMA application_id = 1196444487;
        PRAGMA user_version = 10200;
        PRAGMA journal_mode = OFF;
        PRAGMA synchronous = OFF;
        CREATE TABLE gpkg_spatial_ref_sys (
            srs_name TEXT NOT NULL, srs_id INTEGER NOT NULL PRIMARY KEY, organization TEXT NOT NULL,
            organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
        CREATE TABLE gpkg_contents (
            table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
            description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
            min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
            CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
        CREATE TABLE gpkg_geometry_columns (
            table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
            srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
            CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name));
        CREATE TABLE gpkg_extensions (
            table_name TEXT, column_name TEXT, extension_name TEXT NOT NULL, definition TEXT NOT NULL,
            scope TEXT NOT NULL, CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name));
        CREATE TABLE {table} (
            fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, geom POINT, {columns});
        CREATE VIRTUAL TABLE rtree_{table}_geom USING rtree(id, minx, maxx, miny, maxy);
        """
    )
    wgs84 = (
        'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,'
        'AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,'
        'AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],'
        'AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]'
    )
    db.executemany(
        "INSERT INTO gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, ?, ?)",
        [
            ("Undefined cartesian SRS", -1, "NONE", -1, "undefined", "undefined cartesian coordinate reference system"),
            ("Undefined geographic SRS", 0, "NONE", 0, "undefined", "undefined geographic coordinate reference system"),
            ("WGS 84 geodetic", 4326, "EPSG", 4326, wgs84, "longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid"),
        ],
    )
    db.execute(
        "INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change, min_x, min_y, max_x, max_y, srs_id) "
        "VALUES (?, 'features', ?, '', '2024-01-01T00:00:00.000Z', ?, ?, ?, ?, 4326)",
        (table, table, min(xs), min(ys), max(xs), max(ys)),
    )
    db.execute("INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', 'POINT', 4326, 0, 0)", (table,))
    db.execute(
        "INSERT INTO gpkg_extensions VALUES (?, 'geom', 'gpkg_rtree_index', "
        "'http://www.geopackage.org/spec120/#extension_rtree', 'write-only')",
        (table,),
    )
    return db


def finish_point_geopackage(db, table, xs, ys, tmp, path):
    """Fills the R-tree of the point table `table` from `xs`, `ys` (row i has fid i + 1),
    commits, closes and moves the file from `tmp` to `path`."""
    db.executemany(
        f"INSERT INTO rtree_{table}_geom VALUES (?, ?, ?, ?, ?)",
        ((i + 1, xs[i], xs[i], ys[i], ys[i]) for i in range(len(xs))),
    )
    db.commit()
    db.close()
    os.replace(tmp, path)


def write_boxes(path, rng, xs, ys, count, half):
    """`count` boxes of half-size `half` around points drawn with `rng`, shifted inside the
    world, one `xmin,ymin,xmax,ymax` line each."""
    with open(path, "w") as out:
        for _ in range(count):
            i = int(rng.random() * len(xs))
            xmin, xmax = xs[i] - half, xs[i] + half
            ymin, ymax = ys[i] - half, ys[i] + half
            shift_x = max(0.0, -180.0 - xmin) - max(0.0, xmax - 180.0)
            shift_y = max(0.0, -90.0 - ymin) - max(0.0, ymax - 90.0)
            out.write(f"{xmin + shift_x:.6f},{ymin + shift_y:.6f},{xmax + shift_x:.6f},{ymax + shift_y:.6f}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--boxes", type=int, default=10_000)
    parser.add_argument("--box-deg", type=float, default=1.5)
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    start = time.time()

    rng = random.Random(args.seed)
    n = args.points
    xs = [0.0] * n
    ys = [0.0] * n
    for i in range(n):
        xs[i] = -180.0 + 360.0 * rng.random()
        ys[i] = -85.0 + 170.0 * rng.random()
    categories = [f"c{int(rng.random() * 10)}" for _ in range(n)]
    values = [1000.0 * rng.random() for _ in range(n)]

    path = os.path.join(args.dir, "points.gpkg")
    tmp = path + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    db = create_point_geopackage(tmp, "points", "id INTEGER, category TEXT, value REAL", xs, ys)
    # GeoPackage binary: 'GP', version 0, flags 0x01 (little-endian, no envelope), srs_id; then
    # WKB point, little-endian.
    header = b"GP\x00\x01" + struct.pack("<i", 4326)
    point = struct.Struct("<BIdd")
    db.executemany(
        "INSERT INTO points (fid, geom, id, category, value) VALUES (?, ?, ?, ?, ?)",
        ((i + 1, header + point.pack(1, 1, xs[i], ys[i]), i + 1, categories[i], values[i]) for i in range(n)),
    )
    finish_point_geopackage(db, "points", xs, ys, tmp, path)

    boxes = random.Random(args.seed + 1)
    half = args.box_deg / 2
    write_boxes(os.path.join(args.dir, "boxes.txt"), boxes, xs, ys, args.boxes, half)

    print(f"serve_data.py: {n:,} points and {args.boxes:,} boxes of {args.box_deg:g} deg in {args.dir} "
          f"({time.time() - start:.1f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()

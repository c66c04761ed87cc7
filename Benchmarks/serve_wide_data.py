#!/usr/bin/env python3
"""A seeded 25-field point layer for the server load benchmark (Benchmarks/run_serve.sh): the
shape of a real point layer (points of interest), mostly strings, many of them NULL.

    python3 Benchmarks/serve_wide_data.py DIR [--rows 200000] [--seed 42] [--boxes 10000] [--box-deg 1.7]

Writes, with the standard library only, and the same bytes for the same arguments on any CPython 3:

  DIR/wide.gpkg          a GeoPackage 1.2 with one feature table `wide` (POINT, EPSG:4326, R-tree
                         rtree_wide_geom) of --rows points, lon uniform in [-180, 180), lat in
                         [-85, 85), and 25 fields besides the geometry:
                           fid INTEGER PRIMARY KEY; osm_id INTEGER (64-bit, above 2^40);
                           16 TEXT fields — name (85 % set, mostly distinct), name_en (10 %),
                           category (40 values), subcategory (300), street (70 %, 8,000 values),
                           housenumber (50 %, 600), city (80 %, 2,500), postcode (60 %, 4,000),
                           country (200), phone (15 %, distinct), website (10 %, distinct),
                           email (5 %, distinct), opening_hours (30 %, 60), operator (20 %, 900),
                           source (5), wikidata (10 %, distinct);
                           2 INTEGER — population (10 %), capacity (20 %);
                           2 REAL — elevation (40 %), rating (70 %, 1–5);
                           3 DATETIME/DATE — created (always), updated (70 %), survey_date (30 %, DATE);
  DIR/wide_boxes.txt     --boxes lines `xmin,ymin,xmax,ymax`: squares of --box-deg degrees centred
                         on randomly drawn points (about 10 points in a box at the defaults);
  DIR/wide_empty.txt     --boxes squares of --box-deg degrees north of 85.5° latitude, where no
                         point lies (a box query that matches no feature).

Strings with few distinct values are held by GeoSieve as dictionary columns, the others as plain
text, as a real layer's would be.
"""
import argparse
import os
import random
import sqlite3
import struct
import sys
import time

from serve_data import create_point_geopackage, finish_point_geopackage, write_boxes

TEXT_FIELDS = [
    "name", "name_en", "category", "subcategory", "street", "housenumber", "city", "postcode", "country",
    "phone", "website", "email", "opening_hours", "operator", "source", "wikidata",
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--boxes", type=int, default=10_000)
    parser.add_argument("--box-deg", type=float, default=1.7)
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    start = time.time()

    rng = random.Random(args.seed)
    letters = "abcdefghijklmnopqrstuvwxyz"

    def word(low=4, high=10):
        return "".join(rng.choice(letters) for _ in range(rng.randint(low, high)))

    def vocabulary(size, make):
        return [make() for _ in range(size)]

    categories = vocabulary(40, lambda: word(4, 12))
    subcategories = vocabulary(300, lambda: word(5, 14))
    streets = vocabulary(8000, lambda: f"{word(5, 10).capitalize()} {rng.choice(['Street', 'Road', 'Avenue', 'Lane', 'Straße', 'Rue'])}")
    housenumbers = vocabulary(600, lambda: f"{rng.randint(1, 400)}{rng.choice(['', '', '', 'a', 'b'])}")
    cities = vocabulary(2500, lambda: word(4, 12).capitalize())
    postcodes = vocabulary(4000, lambda: f"{rng.randint(10000, 99999)}")
    countries = vocabulary(200, lambda: word(2, 2).upper())
    hours = vocabulary(60, lambda: f"Mo-Fr {rng.randint(6, 10):02d}:00-{rng.randint(16, 22):02d}:00")
    operators = vocabulary(900, lambda: f"{word(4, 9).capitalize()} {rng.choice(['Ltd', 'GmbH', 'Inc', 'SA', 'Group'])}")
    sources = ["survey", "imagery", "import", "gps", "knowledge"]

    def maybe(p, make):
        return make() if rng.random() < p else None

    base_ms = 1_262_304_000_000  # 2010-01-01T00:00:00Z
    span_ms = 15 * 365 * 86_400_000

    def iso(ms):
        seconds, millis = divmod(ms, 1000)
        t = time.gmtime(seconds)
        return time.strftime("%Y-%m-%dT%H:%M:%S", t) + f".{millis:03d}Z"

    n = args.rows
    xs = [0.0] * n
    ys = [0.0] * n
    rows = []
    for i in range(n):
        xs[i] = -180.0 + 360.0 * rng.random()
        ys[i] = -85.0 + 170.0 * rng.random()
        created = base_ms + int(rng.random() * span_ms)
        name = maybe(0.85, lambda: f"{word(3, 9).capitalize()} {word(4, 10).capitalize()}")
        rows.append((
            i + 1,
            (1 << 40) + rng.randrange(1 << 33),
            name,
            maybe(0.10, lambda: f"{word(3, 9).capitalize()} {word(4, 10).capitalize()}"),
            rng.choice(categories),
            rng.choice(subcategories),
            maybe(0.70, lambda: rng.choice(streets)),
            maybe(0.50, lambda: rng.choice(housenumbers)),
            maybe(0.80, lambda: rng.choice(cities)),
            maybe(0.60, lambda: rng.choice(postcodes)),
            rng.choice(countries),
            maybe(0.15, lambda: f"+{rng.randint(1, 99)} {rng.randint(100, 999)} {rng.randint(1000000, 9999999)}"),
            maybe(0.10, lambda: f"https://www.{word(5, 12)}.example/{word(3, 8)}"),
            maybe(0.05, lambda: f"{word(4, 8)}@{word(4, 10)}.example"),
            maybe(0.30, lambda: rng.choice(hours)),
            maybe(0.20, lambda: rng.choice(operators)),
            rng.choice(sources),
            maybe(0.10, lambda: f"Q{rng.randint(1, 120_000_000)}"),
            maybe(0.10, lambda: rng.randint(10, 20_000_000)),
            maybe(0.20, lambda: rng.randint(1, 5000)),
            maybe(0.40, lambda: round(-50.0 + 4000.0 * rng.random(), 2)),
            maybe(0.70, lambda: round(1.0 + 4.0 * rng.random(), 1)),
            iso(created),
            maybe(0.70, lambda: iso(created + int(rng.random() * 86_400_000 * 400))),
            maybe(0.30, lambda: iso(base_ms + int(rng.random() * span_ms) // 86_400_000 * 86_400_000)[:10]),
        ))

    path = os.path.join(args.dir, "wide.gpkg")
    tmp = path + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    columns = ", ".join(
        ["osm_id INTEGER"] + [f"{name} TEXT" for name in TEXT_FIELDS]
        + ["population INTEGER", "capacity INTEGER", "elevation REAL", "rating REAL",
           "created DATETIME", "updated DATETIME", "survey_date DATE"])
    db = create_point_geopackage(tmp, "wide", columns, xs, ys)
    header = b"GP\x00\x01" + struct.pack("<i", 4326)
    point = struct.Struct("<BIdd")
    names = ["fid", "geom", "osm_id"] + TEXT_FIELDS + [
        "population", "capacity", "elevation", "rating", "created", "updated", "survey_date"]
    db.executemany(
        f"INSERT INTO wide ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
        ((row[0], header + point.pack(1, 1, xs[i], ys[i])) + row[1:] for i, row in enumerate(rows)),
    )
    finish_point_geopackage(db, "wide", xs, ys, tmp, path)

    boxes = random.Random(args.seed + 1)
    half = args.box_deg / 2
    write_boxes(os.path.join(args.dir, "wide_boxes.txt"), boxes, xs, ys, args.boxes, half)
    with open(os.path.join(args.dir, "wide_empty.txt"), "w") as out:
        for _ in range(args.boxes):
            xmin = -180.0 + (360.0 - args.box_deg) * boxes.random()
            ymin = 85.5 + (90.0 - 85.5 - args.box_deg) * boxes.random()
            out.write(f"{xmin:.6f},{ymin:.6f},{xmin + args.box_deg:.6f},{ymin + args.box_deg:.6f}\n")

    print(f"serve_wide_data.py: {n:,} rows of 25 fields and 2 x {args.boxes:,} boxes of {args.box_deg:g} deg in {args.dir} "
          f"({time.time() - start:.1f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()

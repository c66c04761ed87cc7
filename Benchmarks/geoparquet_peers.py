#!/usr/bin/env python3
"""GeoParquet workload's data and peer engine: pyarrow writes the file, DuckDB (threads=1) reads it.

    python3 Benchmarks/geoparquet_peers.py generate FILE [--features 1000000] [--seed 42]
                                                        [--row-group-size 65536]
    python3 Benchmarks/geoparquet_peers.py read FILE [FILE ...] --box XMIN,YMIN,XMAX,YMAX [--rounds 5]

`generate` writes FILE with pyarrow as GeoParquet 1.1 (Snappy, row groups of --row-group-size
rows, column statistics, the `bbox` covering struct and the `geo` metadata), the same bytes for
the same arguments:

  * N points uniform over x in [-180, 180], y in [-85, 85] (numpy's PCG64 seeded with --seed),
    then sorted along a Hilbert curve of order 16 over that extent, as spatially sorted files
    such as Overture's are, so each row group covers a compact part of the map and its covering
    statistics let a reader skip it;
  * columns, in order: `id` (int64, the point's place in generation order, so unordered after the
    sort), `value` (double, normal with mean 1,000 and deviation 100), `category` (string, one of
    12 short words, weighted; pyarrow dictionary-encodes it), `name` (string such as
    "Kolbe Mill 4711", 5 % null; nearly unique, so pyarrow falls back to plain pages),
    `geometry` (WKB, little-endian 2D points), `bbox` (struct of double xmin, ymin, xmax, ymax);
  * the `geo` metadata: version 1.1.0, primary column `geometry`, encoding WKB, geometry types
    ["Point"], the bbox of the data and the covering {"bbox": {"xmin": ["bbox", "xmin"], ...}}
    (no `crs`: OGC:CRS84).

`read` times DuckDB (`pip install duckdb`, ":memory:", SET threads = 1) on each FILE, one warm-up
and then --rounds measured rounds of each query, the result materialized as an Arrow table
(`con.sql(query).to_arrow_table()`, DuckDB 2's name for `fetch_arrow_table()`; DuckDB warns that
`con.execute(query).to_arrow_table()` makes an extra copy of the rows). The GeoParquet geometry
column comes back as DuckDB's GEOMETRY, exported as `geoarrow.wkb` binary (WKB, not decoded);
the query, the Parquet decoding and the Arrow table are timed together:

  geoparquet.read      SELECT * FROM read_parquet('FILE')
  geoparquet.read_box  SELECT * FROM read_parquet('FILE')
                       WHERE bbox.xmin <= XMAX AND bbox.xmax >= XMIN
                         AND bbox.ymin <= YMAX AND bbox.ymax >= YMIN

and prints one JSON line per query and file on stdout in geosieve-bench's format:

    {"workload":"geoparquet.read_box","engine":"duckdb","median_ms":…,"min_ms":…,"max_ms":…,"features":…,"result":…,"features_per_s":…,"bytes":…,"file":"…"}

`features` and `result` are the rows returned. Notes go to stderr.
"""
import argparse
import json
import os
import statistics
import sys
import time

CATEGORIES = [
    "shop", "house", "school", "cafe", "park", "office", "church", "bank",
    "hotel", "clinic", "museum", "station",
]
CATEGORY_WEIGHTS = [30, 25, 8, 8, 6, 6, 4, 4, 3, 3, 2, 1]
SYLLABLES = [
    "ka", "lo", "ber", "mi", "sen", "ta", "ro", "vel", "an", "dor", "li", "mun", "es", "tra", "no", "gi",
    "bel", "ha", "ven", "or", "ku", "sa", "lin", "pe", "dra", "mo", "ri", "ul", "fen", "co", "za", "bri",
]
SUFFIXES = ["Mill", "Street", "Road", "Square", "Corner", "Lane", "Hall", "Court", "Gate", "Yard"]


def log(message):
    print(message, file=sys.stderr, flush=True)


def hilbert_index(x, y, order):
    """The distance along a Hilbert curve of the grid cells (x, y), both in [0, 2**order)."""
    import numpy as np

    n = 1 << order
    x = x.copy()
    y = y.copy()
    d = np.zeros(x.shape, dtype=np.int64)
    s = n >> 1
    while s > 0:
        rx = (x & s) > 0
        ry = (y & s) > 0
        d += np.int64(s) * np.int64(s) * ((3 * rx.astype(np.int64)) ^ ry.astype(np.int64))
        # Rotate the quadrant.
        flip = ~ry & rx
        x = np.where(flip, n - 1 - x, x)
        y = np.where(flip, n - 1 - y, y)
        swap = ~ry
        x, y = np.where(swap, y, x), np.where(swap, x, y)
        s >>= 1
    return d


def generate(path, features, seed, row_group_size):
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.Generator(np.random.PCG64(seed))
    xs = rng.uniform(-180.0, 180.0, features)
    ys = rng.uniform(-85.0, 85.0, features)
    values = rng.normal(1000.0, 100.0, features)
    weights = np.array(CATEGORY_WEIGHTS, dtype=np.float64)
    categories = rng.choice(len(CATEGORIES), size=features, p=weights / weights.sum())
    syllables = rng.integers(0, len(SYLLABLES), size=(features, 2))
    suffixes = rng.integers(0, len(SUFFIXES), size=features)
    numbers = rng.integers(1, 10000, size=features)
    null_names = rng.random(features) < 0.05

    order = 16
    cells = (1 << order) - 1
    gx = np.clip(((xs + 180.0) / 360.0 * cells).astype(np.int64), 0, cells)
    gy = np.clip(((ys + 85.0) / 170.0 * cells).astype(np.int64), 0, cells)
    sort = np.argsort(hilbert_index(gx, gy, order), kind="stable")
    xs, ys, values = xs[sort], ys[sort], values[sort]
    categories, syllables, suffixes, numbers, null_names = (
        categories[sort], syllables[sort], suffixes[sort], numbers[sort], null_names[sort])
    ids = sort.astype(np.int64)

    names = [
        None if null_names[i] else
        f"{SYLLABLES[syllables[i, 0]].capitalize()}{SYLLABLES[syllables[i, 1]]} {SUFFIXES[suffixes[i]]} {numbers[i]}"
        for i in range(features)
    ]
    # WKB of a little-endian 2D point: 01, type 1 (uint32), x, y: 21 bytes.
    wkb = np.zeros(features, dtype=np.dtype([("order", "u1"), ("type", "<u4"), ("x", "<f8"), ("y", "<f8")]))
    wkb["order"] = 1
    wkb["type"] = 1
    wkb["x"] = xs
    wkb["y"] = ys
    offsets = np.arange(0, 21 * (features + 1), 21, dtype=np.int32)
    geometry = pa.Array.from_buffers(pa.binary(), features, [None, pa.py_buffer(offsets), pa.py_buffer(wkb.tobytes())])
    bbox = pa.StructArray.from_arrays(
        [pa.array(xs), pa.array(ys), pa.array(xs), pa.array(ys)], names=["xmin", "ymin", "xmax", "ymax"])
    table = pa.table({
        "id": pa.array(ids),
        "value": pa.array(values),
        "category": pa.array([CATEGORIES[c] for c in categories], pa.string()),
        "name": pa.array(names, pa.string()),
        "geometry": geometry,
        "bbox": bbox,
    })
    geo = {
        "version": "1.1.0",
        "primary_column": "geometry",
        "columns": {
            "geometry": {
                "encoding": "WKB",
                "geometry_types": ["Point"],
                "bbox": [float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())],
                "covering": {"bbox": {k: ["bbox", k] for k in ("xmin", "ymin", "xmax", "ymax")}},
            }
        },
    }
    table = table.replace_schema_metadata({b"geo": json.dumps(geo).encode()})
    pq.write_table(table, path, compression="snappy", row_group_size=row_group_size, write_statistics=True)
    groups = pq.ParquetFile(path).metadata.num_row_groups
    log(f"pyarrow {pa.__version__}: wrote {features} points in {groups} row groups, {os.path.getsize(path)} bytes, to {path}")


def read(paths, box, rounds):
    import duckdb

    xmin, ymin, xmax, ymax = box
    con = duckdb.connect(":memory:")
    con.execute("SET threads = 1")
    threads = con.sql("SELECT current_setting('threads')").fetchall()[0][0]
    log(f"duckdb {duckdb.__version__}, threads = {threads}")
    for path in paths:
        quoted = "'" + path.replace("'", "''") + "'"
        queries = [
            ("geoparquet.read", f"SELECT * FROM read_parquet({quoted})"),
            (
                "geoparquet.read_box",
                f"SELECT * FROM read_parquet({quoted}) WHERE bbox.xmin <= {xmax!r} AND bbox.xmax >= {xmin!r} "
                f"AND bbox.ymin <= {ymax!r} AND bbox.ymax >= {ymin!r}",
            ),
        ]
        for workload, sql in queries:
            count = con.sql(sql).to_arrow_table().num_rows  # warm-up
            samples = []
            for _ in range(rounds):
                start = time.perf_counter()
                result = con.sql(sql).to_arrow_table()
                samples.append(time.perf_counter() - start)
                count = result.num_rows
                del result
            ms = sorted(s * 1000.0 for s in samples)
            median = statistics.median(ms)
            print(
                f'{{"workload":"{workload}","engine":"duckdb","median_ms":{median:.3f},'
                f'"min_ms":{ms[0]:.3f},"max_ms":{ms[-1]:.3f},"features":{count},"result":{count},'
                f'"features_per_s":{round(count / (median / 1000.0)) if median > 0 else 0},'
                f'"bytes":{os.path.getsize(path)},"file":{json.dumps(os.path.basename(path))}}}',
                flush=True,
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    g = commands.add_parser("generate")
    g.add_argument("file")
    g.add_argument("--features", type=int, default=1_000_000)
    g.add_argument("--seed", type=int, default=42)
    g.add_argument("--row-group-size", type=int, default=65_536)
    r = commands.add_parser("read")
    r.add_argument("files", nargs="+")
    r.add_argument("--box", required=True)
    r.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if args.command == "generate":
        if args.features < 1 or args.row_group_size < 1:
            sys.exit("geoparquet_peers: --features and --row-group-size must be at least 1")
        generate(args.file, args.features, args.seed, args.row_group_size)
    else:
        if args.rounds < 1:
            sys.exit("geoparquet_peers: --rounds must be at least 1")
        box = [float(v) for v in args.box.split(",")]
        if len(box) != 4:
            sys.exit("geoparquet_peers: --box is xmin,ymin,xmax,ymax")
        read(args.files, box, args.rounds)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Peers of GeoSieve's GeoPackage workload on the file `geosieve-bench gpkg --keep` wrote.

    python3 Benchmarks/gpkg_peers.py FILE [--rounds 3] [--gdal-rounds 1]

Prints one JSON line per measurement in geosieve-bench's form (workload, engine, median_ms,
min_ms, max_ms, features, result, features_per_s), each after one warm-up:

  gpkg.read   pyogrio   `pyogrio.raw.read_arrow(FILE)`: every feature's geometry (WKB) and fields
                        into an Arrow table through GDAL's columnar Arrow stream, pyogrio's
                        fastest path (timed inside this process).
  gpkg.write  pyogrio   `pyogrio.raw.write_arrow` of that table into a new GeoPackage, with GDAL's
                        default R-tree index (as GeoSieve writes one); result = the written file's
                        feature count, read back.
  gpkg.write  gdal      `ogr2ogr -f GPKG COPY FILE`: GDAL reads FILE and writes it with its R-tree
                        index (a whole process, its start included, no warm-up, --gdal-rounds
                        times); result as above. Reading and writing, it is slower than the write alone would be.

Notes go to stderr.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import pyogrio
import pyogrio.raw


def emit(workload, engine, samples, features, result):
    ms = sorted(s * 1000 for s in samples)
    median = statistics.median(ms)
    print(json.dumps({
        "workload": workload, "engine": engine, "median_ms": round(median, 3), "min_ms": round(ms[0], 3),
        "max_ms": round(ms[-1], 3), "features": features, "result": result,
        "features_per_s": int(features / (median / 1000)),
    }, separators=(",", ":")), flush=True)


def timed(rounds, run, warm_up=True):
    """One warm-up call, then `rounds` timed calls; returns (seconds, last answer)."""
    answer = run() if warm_up else None
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        answer = run()
        samples.append(time.perf_counter() - start)
    return samples, answer


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--gdal-rounds", type=int, default=1)
    args = parser.parse_args()
    print(f"gpkg_peers: pyogrio {pyogrio.__version__}, GDAL {pyogrio.__gdal_version_string__}", file=sys.stderr)

    def read():
        return pyogrio.raw.read_arrow(args.file)

    samples, (meta, table) = timed(args.rounds, read)
    features = table.num_rows
    emit("gpkg.read", "pyogrio", samples, features, features)

    with tempfile.TemporaryDirectory(prefix="gpkg-peers-") as scratch:
        copy = os.path.join(scratch, "copy.gpkg")

        def write():
            if os.path.exists(copy):
                os.remove(copy)
            pyogrio.raw.write_arrow(table, copy, driver="GPKG", layer="points", geometry_name=meta["geometry_name"],
                                    geometry_type=meta["geometry_type"], crs=meta["crs"])
            return copy

        samples, _ = timed(args.rounds, write)
        emit("gpkg.write", "pyogrio", samples, features, pyogrio.read_info(copy)["features"])

        def gdal_copy():
            if os.path.exists(copy):
                os.remove(copy)
            subprocess.run(["ogr2ogr", "-f", "GPKG", copy, args.file], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            return copy

        try:
            samples, _ = timed(args.gdal_rounds, gdal_copy, warm_up=False)
            emit("gpkg.write", "gdal", samples, features, pyogrio.read_info(copy)["features"])
        except FileNotFoundError:
            print("gpkg_peers: ogr2ogr is not on PATH (apt-get install gdal-bin): no GDAL line", file=sys.stderr)


if __name__ == "__main__":
    main()

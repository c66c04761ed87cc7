#!/usr/bin/env python3
"""Peers of GeoSieve's load workload on the files `geosieve-bench load --emit-data DIR` wrote.

    python3 Benchmarks/load_peers.py DIR --geosieve PATH [--rounds 3]

Each measurement runs a whole process per round (rounds of the engines interleaved) and reads
its wall time and peak resident memory (wait4), printing one JSON line in geosieve-bench's form:

    {"workload":"load.points.geojson","engine":"duckdb-1","median_ms":…,"min_ms":…,"max_ms":…,
     "features":…,"result":…,"bytes":…,"mb_per_s":…,"peak_rss_mb":…}

Engines (each when it is installed):
  duckdb-1, duckdb   DuckDB (`pip install duckdb`) with SET threads=1 / its default threads:
                     count(*) of read_json_auto over the GeoJSONSeq file and over the
                     FeatureCollection (which DuckDB reads as one row per feature).
  ogrinfo            GDAL's `ogrinfo -so -al` (reads the whole GeoJSON to report the count).
  pyogrio            `pyogrio.raw.read` (GDAL through Python) of the FeatureCollection.
  query              end to end: `geosieve query points.geojson --where "POP > 100000"
                     --return count` against DuckDB (threads=1) counting the same rows.
Then prints the ratios the issue's targets name. Notes go to stderr.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time


def log(message):
    print(message, file=sys.stderr, flush=True)


def run(command):
    """Runs `command`; returns (seconds, peak RSS in MB, stdout)."""
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = process.stdout.read()
    err = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - start
    if status != 0:
        raise RuntimeError(f"{command[0]} failed ({status}): {err.decode(errors='replace')[:400]}")
    return seconds, usage.ru_maxrss / 1024.0, out.decode().strip()


def duckdb_command(threads, sql):
    setting = "SET threads=1;" if threads == 1 else ""
    code = (
        "import duckdb, sys\n"
        "c = duckdb.connect()\n"
        f"c.execute({setting!r}) if {bool(setting)} else None\n"
        "print(c.execute(sys.argv[1]).fetchone()[0])\n"
    )
    return [sys.executable, "-c", code, sql]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("directory")
    parser.add_argument("--geosieve", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    d = args.directory
    fc = os.path.join(d, "points.geojson")
    seq = os.path.join(d, "points.geojsonl")
    size = {p: os.path.getsize(p) for p in (fc, seq)}

    cases = []  # (workload, engine, command, file)
    try:
        import duckdb  # noqa: F401

        for threads, name in ((1, "duckdb-1"), (0, "duckdb")):
            cases.append(("load.points.geojsonl", name,
                          duckdb_command(threads, f"SELECT count(*) FROM read_json_auto('{seq}')"), seq))
            # DuckDB reads a GeoJSON FeatureCollection as one row per feature (its properties
            # as columns, the geometry as GEOMETRY).
            cases.append(("load.points.geojson", name,
                          duckdb_command(threads, f"SELECT count(*) FROM read_json_auto('{fc}')"), fc))
        cases.append(("query.points.geojson", "duckdb-1", duckdb_command(
            1, f"SELECT count(*) FROM read_json_auto('{fc}') WHERE POP > 100000"), fc))
    except ImportError:
        log("duckdb not installed: pip install duckdb")
    if shutil.which("ogrinfo"):
        cases.append(("load.points.geojson", "ogrinfo", ["ogrinfo", "-so", "-al", "-ro", fc], fc))
    try:
        import pyogrio  # noqa: F401

        code = "import pyogrio.raw, sys\nm, *_ = pyogrio.raw.read(sys.argv[1])\nprint(len(_[-1][0]) if _[-1] else 0)\n"
        cases.append(("load.points.geojson", "pyogrio", [sys.executable, "-c", code, fc], fc))
    except ImportError:
        log("pyogrio not installed: pip install pyogrio")
    cases.append(("query.points.geojson", "geosieve",
                  [args.geosieve, "query", fc, "--where", "POP > 100000", "--return", "count"], fc))

    samples = {i: [] for i in range(len(cases))}
    peaks = {i: 0.0 for i in range(len(cases))}
    results = {}
    for r in range(args.rounds):
        for i, (workload, engine, command, path) in enumerate(cases):
            seconds, peak, out = run(command)
            samples[i].append(seconds)
            peaks[i] = max(peaks[i], peak)
            results[i] = out
            log(f"round {r + 1}: {workload} {engine} {seconds:.3f} s")
    lines = []
    for i, (workload, engine, command, path) in enumerate(cases):
        ms = sorted(s * 1000 for s in samples[i])
        median = statistics.median(ms)
        text = results[i]
        if text.startswith("{"):
            count = json.loads(text)["count"]
        else:
            match = re.search(r"Feature Count: (\d+)", text) or re.search(r"(\d+)\s*$", text)
            count = int(match.group(1)) if match else 0
        line = (f'{{"workload":"{workload}","engine":"{engine}","median_ms":{median:.3f},"min_ms":{ms[0]:.3f},'
                f'"max_ms":{ms[-1]:.3f},"features":{count},"result":{count},"bytes":{size[path]},'
                f'"mb_per_s":{size[path] / 1e6 / (median / 1000):.3f},"peak_rss_mb":{peaks[i]:.3f}}}')
        print(line, flush=True)


if __name__ == "__main__":
    main()

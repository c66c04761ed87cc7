#!/usr/bin/env python3
"""The load workload's engines on the files `geosieve-bench load --emit-data DIR` wrote.

    python3 Benchmarks/load_peers.py DIR --geosieve PATH [--bench PATH] [--rounds 3]

Each case is a process per round (the cases interleaved within a round); its peak resident
memory comes from wait4. One JSON line per case, in geosieve-bench's form:

    {"workload":"load.points.geojson","engine":"duckdb-1","median_ms":…,"min_ms":…,"max_ms":…,
     "features":…,"result":…,"bytes":…,"mb_per_s":…,"peak_rss_mb":…}

Times are taken inside the process, around the read, as geosieve-bench's own load child takes
them (the start of the process and its imports excluded); ogrinfo, a C program, and the end-to-end
`geosieve query` are timed as whole processes (their start included).

Cases (each when its engine is installed):
  geosieve, geosieve-2  (with --bench) `geosieve-bench load --measure-file F --measure-threads T`
                     on 1 thread and on 2: FeatureTable.load of each file.
  duckdb-1, duckdb   DuckDB with SET threads=1 / its default threads: `CREATE TABLE t AS SELECT *
                     FROM read_json_auto(F)` over the GeoJSONSeq file and over the
                     FeatureCollection (which DuckDB reads as one row per feature), then the
                     table's count. (A bare count(*) of read_json_auto would let DuckDB skip
                     building the columns; GeoSieve builds a queryable table, so DuckDB does too.)
  ogrinfo            GDAL's `ogrinfo -so -al` (reads the whole GeoJSON to report the count).
  pyogrio            `pyogrio.raw.read_arrow` (GDAL's columnar Arrow stream, pyogrio's fastest
                     path) of the FeatureCollection.
  query              end to end: `geosieve query points.geojson --where "POP > 100000"
                     --return count` (a whole process) against DuckDB (threads=1) counting the
                     same rows (connect and query, timed inside its process).
Notes go to stderr.
"""
import argparse
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def log(message):
    print(message, file=sys.stderr, flush=True)


def run(command):
    """Runs `command`; returns (seconds, peak RSS in MB, stdout). A command whose output is
    "TIMED <seconds> <count>" timed itself: those seconds replace the process's."""
    with tempfile.TemporaryFile() as errors:
        start = time.monotonic()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors)
        out = process.stdout.read()
        process.stdout.close()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.monotonic() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode:
            errors.seek(0)
            raise RuntimeError(f"{command[0]} failed ({process.returncode}): {errors.read().decode(errors='replace')[:400]}")
    peak = usage.ru_maxrss / 1024.0
    text = out.decode().strip()
    if text.startswith("TIMED "):
        _, inner, text = text.split(" ", 2)
        seconds = float(inner)
    return seconds, peak, text


def timed_python(module, code):
    """A Python command that imports `module`, then runs `code` (which sets `n`) between two
    clock readings."""
    return [sys.executable, "-c", f"import sys, time, {module}\nstart = time.perf_counter()\n" + code
            + "print('TIMED', time.perf_counter() - start, n)\n"]


def duckdb_command(threads, sql, table=False):
    """DuckDB running `sql`; with `table`, `sql` is a SELECT whose rows are stored in a table
    first (a load into something queryable), and the answer is that table's count."""
    setting = "c.execute('SET threads=1')\n" if threads == 1 else ""
    run = ("c.execute('CREATE TABLE t AS ' + sys.argv[1])\nn = c.execute('SELECT count(*) FROM t').fetchone()[0]\n"
           if table else "n = c.execute(sys.argv[1]).fetchone()[0]\n")
    return timed_python("duckdb", "c = duckdb.connect()\n" + setting + run) + [sql]


class Case:
    """One engine reading one file, a process per round."""

    def __init__(self, workload, engine, command, path, parse=None):
        self.workload, self.engine, self.command, self.path = workload, engine, command, path
        self.parse = parse

    def measure(self):
        """One round: the JSON line's fields (median, min and max are this round's time)."""
        seconds, peak, text = run(self.command)
        if self.parse:
            seconds, count = self.parse(text)
        elif text.startswith("{"):
            count = json.loads(text)["count"]
        else:
            match = re.search(r"Feature Count: (\d+)", text) or re.search(r"(\d+)\s*$", text)
            count = int(match.group(1)) if match else -1
        ms = seconds * 1000
        size = os.path.getsize(self.path)
        return {"workload": self.workload, "engine": self.engine, "median_ms": round(ms, 3), "min_ms": round(ms, 3),
                "max_ms": round(ms, 3), "features": count, "result": count, "bytes": size,
                "mb_per_s": round(size / 1e6 / seconds, 3), "peak_rss_mb": round(peak, 3)}


def bench_report(text):
    """geosieve-bench load's child report: nanoseconds, features, table bytes."""
    nanoseconds, features, _ = text.split()
    return int(nanoseconds) / 1e9, int(features)


def cases(directory, geosieve, bench=None, threads=2):
    """The load cases on DIR's files: GeoSieve's (with `bench`), then each installed peer's."""
    fc = os.path.join(directory, "points.geojson")
    seq = os.path.join(directory, "points.geojsonl")
    found = []
    if bench:
        for path in (fc, seq):
            for n in (1, threads) if threads > 1 else (1,):
                found.append(Case(f"load.{os.path.basename(path)}", "geosieve" if n == 1 else f"geosieve-{n}",
                                  [bench, "load", "--measure-file", path, "--measure-threads", str(n)], path,
                                  parse=bench_report))
    if importlib.util.find_spec("duckdb"):
        for n, name in ((1, "duckdb-1"), (0, "duckdb")):
            found.append(Case("load.points.geojsonl", name,
                              duckdb_command(n, f"SELECT * FROM read_json_auto('{seq}')", table=True), seq))
            found.append(Case("load.points.geojson", name,
                              duckdb_command(n, f"SELECT * FROM read_json_auto('{fc}')", table=True), fc))
        found.append(Case("query.points.geojson", "duckdb-1", duckdb_command(
            1, f"SELECT count(*) FROM read_json_auto('{fc}') WHERE POP > 100000"), fc))
    else:
        log("load_peers: duckdb is not installed (pip install -r Benchmarks/requirements.txt)")
    if shutil.which("ogrinfo"):
        found.append(Case("load.points.geojson", "ogrinfo", ["ogrinfo", "-so", "-al", "-ro", fc], fc))
    else:
        log("load_peers: ogrinfo is not on PATH (apt-get install gdal-bin)")
    if importlib.util.find_spec("pyogrio") and importlib.util.find_spec("pyarrow"):
        found.append(Case("load.points.geojson", "pyogrio", timed_python(
            "pyogrio.raw, pyarrow", "meta, table = pyogrio.raw.read_arrow(sys.argv[1])\nn = table.num_rows\n") + [fc], fc))
    else:
        log("load_peers: pyogrio or pyarrow is not installed (pip install -r Benchmarks/requirements.txt)")
    found.append(Case("query.points.geojson", "geosieve",
                      [geosieve, "query", fc, "--where", "POP > 100000", "--return", "count"], fc))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("directory")
    parser.add_argument("--geosieve", required=True, help="the geosieve executable (for the end-to-end query)")
    parser.add_argument("--bench", help="the geosieve-bench executable (adds GeoSieve's own loads)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    found = cases(args.directory, args.geosieve, args.bench)
    rounds = {i: [] for i in range(len(found))}
    for r in range(args.rounds):
        for i, case in enumerate(found):
            rounds[i].append(case.measure())
            log(f"round {r + 1}: {case.workload} {case.engine} {rounds[i][-1]['median_ms']:.1f} ms")
    for i in range(len(found)):
        lines = rounds[i]
        ms = sorted(line["median_ms"] for line in lines)
        line = dict(lines[-1])
        line.update(median_ms=round(statistics.median(ms), 3), min_ms=ms[0], max_ms=ms[-1],
                    mb_per_s=round(line["bytes"] / 1e6 / (statistics.median(ms) / 1000), 3),
                    peak_rss_mb=max(x["peak_rss_mb"] for x in lines))
        print(json.dumps(line, separators=(",", ":")), flush=True)


if __name__ == "__main__":
    main()

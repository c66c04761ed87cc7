#!/usr/bin/env python3
"""GeoSieve against its peers on identical seeded input: one table, one chart.

    Benchmarks/compare.sh [--quick] [--rounds N] [--only WORKLOAD ...] [--with-server] [--out DIR]
                          [--keep-data DIR]

compare.sh builds the executables, makes the Python venv and compiles the C peers, then runs this
script with the venv's Python. For each workload, in turn:

1. GeoSieve runs once with its seeded data written out (`geosieve-bench … --emit-data DIR`): the
   data every engine reads, and a warm-up. Its lines are checked like the others, not counted.
2. ROUNDS rounds, each running GeoSieve and every peer once, a process each, interleaved: A B C,
   then C B A, and so on, so that a machine whose speed drifts slows every engine alike. Every
   process warms up before it measures, and reports the median of its own measured passes.
3. Every engine's answer (a count, a checksum) must be the same in every round; a mismatch stops
   the run with exit status 1 and writes nothing.

Then RESULTS/latest.md (per measurement: each engine's median over rounds, its min–max, and each
peer's time divided by GeoSieve's, round by round; the targets, met or missed; the machine and
the versions), RESULTS/latest.svg (one grouped bar chart of those ratios, log scale, a line at
1×) and RESULTS/latest.jsonl (every line every engine printed, with its round). RESULTS is
Benchmarks/results unless --out names another folder.

Other processes on the machine slow the engines unevenly (each engine runs at a different
moment), so the script measures them: the CPU time the whole machine
spent (/proc/stat) less the CPU time of this script and every process it ran, per second of the
run, is the "other load" in cores, given per workload and for the run. Above a tenth of a core
the report says, at its top, that the machine was busy and which workloads it touched.

--quick runs each workload in one round at a tenth of the size (sizes and inner passes smaller
too): a first look in a minute or two. Targets set in absolute numbers (a p99, adds per second)
are then marked "full size only".
"""
import argparse
import datetime
import html
import json
import math
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import load_peers  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Display names, in chart order for the peers.
ENGINES = {
    "geosieve": "GeoSieve",
    "geosieve-2": "GeoSieve, 2 threads",
    "duckdb-1": "DuckDB, 1 thread",
    "duckdb": "DuckDB, all cores",
    "sqlite": "SQLite",
    "geos-strtree": "GEOS C STRtree",
    "shapely": "Shapely 2 STRtree",
    "geos-prepared": "GEOS prepared loop (C)",
    "ogrinfo": "GDAL ogrinfo",
    "pyogrio": "pyogrio (GDAL, Arrow)",
    "gdal": "GDAL ogr2ogr",
    "sqlite-rtree": "SQLite + R*Tree (C)",
    "pygeoapi": "pygeoapi",
}
COLORS = {
    "duckdb-1": "#e6a700", "duckdb": "#b07d00", "sqlite": "#4c72b0", "geos-strtree": "#55a868",
    "shapely": "#2f7d4a", "geos-prepared": "#8172b2", "ogrinfo": "#937860", "pyogrio": "#da8bc3",
    "gdal": "#8c8c8c", "sqlite-rtree": "#64b5cd", "pygeoapi": "#c44e52",
}


def log(message):
    print(message, file=sys.stderr, flush=True)


class Mismatch(Exception):
    """Engines disagreed on an answer."""


# ---------------------------------------------------------------------------------------------
# Processes


def json_lines(command, cwd=None):
    """Runs `command`; returns the JSON lines it printed (its standard error passes through)."""
    completed = subprocess.run(command, stdout=subprocess.PIPE, cwd=cwd)
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed with status {completed.returncode}")
    lines = []
    for text in completed.stdout.decode().splitlines():
        text = text.strip()
        if text.startswith("{"):
            lines.append(json.loads(text))
    return lines


class Run:
    """One engine's process in a round: `command(round)` printing JSON lines, or `call()`
    returning them."""

    def __init__(self, name, command=None, call=None):
        self.name, self.command, self.call = name, command, call

    def execute(self):
        return self.call() if self.call else json_lines(self.command)


# ---------------------------------------------------------------------------------------------
# Workloads


class Context:
    def __init__(self, args, data):
        self.args = args
        self.data = data
        self.quick = args.quick
        self.bench = args.bench
        self.geosieve = args.geosieve
        self.python = sys.executable
        self.peers = args.peers

    def size(self, full):
        return max(1, full // 10) if self.quick else full

    def passes(self, full):
        """Measured passes inside one process, as text for a command line."""
        return str(max(1, min(full, 2)) if self.quick else full)

    def script(self, name, *arguments):
        """The command running the Python peer Benchmarks/NAME with the venv's Python."""
        return [self.python, os.path.join(ROOT, "Benchmarks", name)] + [str(a) for a in arguments]


class Workload:
    """A group of measurements: how to write its data, and the processes of a round."""

    name = ""
    title = ""
    describes = ""

    def prepare(self, ctx):
        """Writes the data (GeoSieve's warm-up run); returns its lines."""
        return []

    def runs(self, ctx):
        return []


class BenchWorkload(Workload):
    """A workload whose GeoSieve side is one `geosieve-bench` subcommand taking --emit-data,
    measuring `passes` passes (GeoSieve and each peer alike)."""

    passes = 1

    def arguments(self, ctx):
        """The subcommand and its options (without --emit-data)."""
        return []

    def command(self, ctx, emit=False):
        return [ctx.bench] + self.arguments(ctx) + (["--emit-data", ctx.data] if emit else [])

    def prepare(self, ctx):
        return json_lines(self.command(ctx, emit=True))

    def peers(self, ctx):
        """The peers' runs on the data `prepare` wrote."""
        return []

    def runs(self, ctx):
        return [Run("geosieve", self.command(ctx))] + self.peers(ctx)


class Where(BenchWorkload):
    name = "where"
    title = "Where-clause scans (w1)"
    describes = ("`SELECT count(*) … WHERE` Q1–Q4 over the w1 rows (an integer range, an IN list, a LIKE "
                 "prefix, a compound predicate); every engine holds the rows in memory, none has an index.")

    passes = 9

    def arguments(self, ctx):
        return ["where", "--rows", str(ctx.size(1_000_000)), "--rounds", ctx.passes(self.passes)]

    def peers(self, ctx):
        return [Run(engine, ctx.script("w1_peers.py", ctx.data, "--rounds", ctx.passes(self.passes), "--engines", engine))
                for engine in ("duckdb-1", "duckdb", "sqlite")]


class Spatial(BenchWorkload):
    name = "spatial"
    title = "Quadtree (w2) and spatial filter (w3)"
    describes = ("w2: building the index over 1 M uniform or clustered points, 10,000 small and 1,000 large "
                 "window queries, 10,000 identify clicks (5-pixel tolerance). w3: the points (or 100,000 small "
                 "polygons) intersecting a star or a random walk polygon.")

    passes = 3

    def arguments(self, ctx):
        return ["spatial", "--points", str(ctx.size(1_000_000)), "--rounds", ctx.passes(self.passes)]

    def peers(self, ctx):
        passes = ctx.passes(self.passes)
        return [
            Run("geos-strtree", [f"{ctx.peers}/w2_strtree", ctx.data, passes]),
            Run("shapely", ctx.script("w2_peers.py", ctx.data, "--rounds", passes)),
            Run("geos-prepared", [f"{ctx.peers}/w3_geos", ctx.data, passes]),
        ]


class Load(BenchWorkload):
    name = "load"
    title = "Loading GeoJSON, and a query end to end"
    describes = ("Reading a FeatureCollection and the same features as GeoJSONSeq (1 M points, the w1 "
                 "attributes) into a queryable table, each a fresh process; and `geosieve query FILE --where` "
                 "against DuckDB's `read_json_auto … WHERE` counting the same rows.")

    def arguments(self, ctx):
        return ["load", "--points", str(ctx.size(1_000_000)), "--polygons", str(ctx.size(200_000)), "--rounds", "1"]

    def runs(self, ctx):
        return [Run(f"{case.engine} {case.workload}", call=lambda case=case: [case.measure()])
                for case in load_peers.cases(ctx.data, ctx.geosieve, ctx.bench)]


class GeoPackage(Workload):
    name = "gpkg"
    title = "GeoPackage read and write"
    describes = ("Writing 1 M points with the w1 attributes and an R-tree index, and reading every feature back; "
                 "the peers read the file GeoSieve wrote and write what they read.")

    def command(self, ctx, keep=False):
        command = [ctx.bench, "gpkg", "--features", str(ctx.size(1_000_000)), "--rounds", ctx.passes(3),
                   "--directory", ctx.data]
        return command + (["--keep"] if keep else [])

    def prepare(self, ctx):
        completed = subprocess.run(self.command(ctx, keep=True), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if completed.returncode != 0:
            raise RuntimeError(completed.stderr.decode(errors="replace")[-400:])
        match = re.search(r"^kept (.+)$", completed.stderr.decode(), re.MULTILINE)
        if not match:
            raise RuntimeError("geosieve-bench gpkg --keep named no file")
        self.file = match.group(1).strip()
        return [json.loads(x) for x in completed.stdout.decode().splitlines() if x.startswith("{")]

    def runs(self, ctx):
        return [
            Run("geosieve", self.command(ctx)),
            Run("pyogrio gdal", ctx.script("gpkg_peers.py", self.file, "--rounds", ctx.passes(2))),
        ]


class Stats(BenchWorkload):
    name = "stats"
    title = "Grouped statistics"
    describes = ("count, sum, average and standard deviation of 1 M rows, grouped by a 10-value category "
                 "(stats.grouped) and over the whole table (stats.all).")

    passes = 7

    def arguments(self, ctx):
        return ["stats", "--rows", str(ctx.size(1_000_000)), "--rounds", ctx.passes(self.passes)]

    def peers(self, ctx):
        return [Run(f"duckdb-{t}", ctx.script("stats_peers.py", ctx.data, "--rounds", ctx.passes(self.passes), "--threads", t))
                for t in (1, 0)]


class Edits(BenchWorkload):
    name = "edits"
    title = "Edits with the spatial index maintained"
    describes = ("100,000 single adds to a 1 M-row point table, each its own transaction, and mixed batches of "
                 "10,000 edits (40 % adds, 40 % updates of an attribute and the point, 20 % deletes), each one "
                 "transaction. SQLite keeps the points in an R*Tree, as a GeoPackage does.")

    passes = 5

    def arguments(self, ctx):
        return ["edit", "--rows", str(ctx.size(1_000_000)), "--adds", str(ctx.size(100_000)), "--batch",
                str(ctx.size(10_000)), "--rounds", ctx.passes(self.passes), "--only", "single_adds", "--only", "batch"]

    def peers(self, ctx):
        return [Run("sqlite-rtree", [f"{ctx.peers}/edit_sqlite", ctx.data, ctx.passes(self.passes)])]


class Identify(Workload):
    name = "identify"
    title = "Identify across five layers"
    describes = ("Map.identify at random clicks on a map of five layers (150,000 features: regions, parcels, "
                 "roads, stations, places), world view 1200 × 600, 5-pixel tolerance, each call timed alone.")

    def command(self, ctx):
        return [ctx.bench, "layer", "--rows", "1000", "--only", "identify", "--clicks", str(ctx.size(5000))]

    def prepare(self, ctx):
        return json_lines(self.command(ctx))

    def runs(self, ctx):
        return [Run("geosieve", self.command(ctx))]


WORKLOADS = [Where(), Spatial(), Load(), GeoPackage(), Stats(), Edits(), Identify()]


class Server(Workload):
    """Run by compare.sh --with-server (Benchmarks/run_serve.sh, which checks the answers
    against the file itself); its wrk lines are read here."""

    name = "server"
    title = "The server (with --with-server)"
    describes = ("`geosieve serve` over 1 M points in a GeoPackage under wrk on loopback: small ArcGIS queries "
                 "(a category and a box, `outFields=*`, 16 connections), and OGC API items of a box (`limit=10`, "
                 "32 connections) against pygeoapi (gunicorn, 2 sync workers, its OGR provider) on the same file. "
                 "Times here are per request, 1 / throughput; the engine column gives the requests per second "
                 "and the latency percentiles.")


SERVER = Server()


def server_lines(path):
    """run_serve.sh's wrk lines as measurements: median_ms is 1000 / requests per second."""
    lines = []
    with open(path) as f:
        for text in f:
            if not text.strip().startswith("{"):
                continue
            line = json.loads(text)
            if line.get("workload") in ("serve.arcgis_query", "serve.ogc_items") and "rps" in line:
                rps = float(line["rps"])
                lines.append({"workload": line["workload"], "engine": line["engine"], "round": int(line["round"]),
                              "median_ms": round(1000.0 / rps, 4), "rps": rps, "p50_us": line.get("p50_us"),
                              "p99_us": line.get("p99_us"), "connections": line.get("connections"),
                              "result": "checked by run_serve.sh"})
    return lines

# ---------------------------------------------------------------------------------------------
# What is compared and checked

# Measurements charted and tabled: (workload key, GeoSieve's engine, peers, "lower" when the
# value is a time). Ratios are peer / GeoSieve for times.
MEASUREMENTS = (
    [(f"w1.q{i}", "geosieve", ["duckdb-1", "duckdb", "sqlite"]) for i in range(1, 5)]
    + [(f"w2.{kind}.{data}", "geosieve", ["geos-strtree", "shapely"])
       for data in ("uniform", "clustered") for kind in ("build", "window_small", "window_large", "identify")]
    + [(f"w3.{name}", "geosieve", ["geos-prepared"]) for name in ("star_points", "walk_points", "star_polygons")]
    + [("load.points.geojson", "geosieve", ["duckdb-1", "duckdb", "ogrinfo", "pyogrio"]),
       ("load.points.geojson", "geosieve-2", ["duckdb-1", "duckdb"]),
       ("load.points.geojsonl", "geosieve", ["duckdb-1", "duckdb"]),
       ("load.points.geojsonl", "geosieve-2", ["duckdb-1", "duckdb"]),
       ("query.points.geojson", "geosieve", ["duckdb-1"]),
       ("gpkg.read", "geosieve", ["pyogrio"]),
       ("gpkg.write", "geosieve", ["pyogrio", "gdal"]),
       ("stats.grouped", "geosieve", ["duckdb-1", "duckdb"]),
       ("stats.all", "geosieve", ["duckdb-1", "duckdb"]),
       ("edit.single_adds", "geosieve", ["sqlite-rtree"]),
       ("edit.batch", "geosieve", ["sqlite-rtree"]),
       ("layer.identify", "geosieve", []),
       ("serve.arcgis_query", "geosieve", []),
       ("serve.ogc_items", "geosieve", ["pygeoapi"])]
)

# The answers that must agree, per workload-key prefix (the first match wins).
CHECKS = [("w3.", ["result", "features"]), ("stats.", ["result", "sum_amount"]), ("edit.", ["result", "pop_sum"]),
          ("", ["result"])]

# Targets: (label, kind, key, engine, peer or field, bound, full size only).
#   ratio: median over rounds of peer time / GeoSieve time >= bound
#   max / min: the median over rounds of GeoSieve's `field` <= / >= bound
TARGETS = (
    [(f"Q{i}: DuckDB (1 thread) / GeoSieve ≥ 2×", "ratio", f"w1.q{i}", "geosieve", "duckdb-1", 2.0, False) for i in range(1, 5)]
    + [(f"Q{i}: SQLite / GeoSieve ≥ 10×", "ratio", f"w1.q{i}", "geosieve", "sqlite", 10.0, False) for i in range(1, 5)]
    + [("Q1 within 2× of the C limit (≤ 0.18 ms on 1 M rows)", "max", "w1.q1", "geosieve", "median_ms", 0.18, True),
       ("Q4 within 2× of the C limit (≤ 3.0 ms on 1 M rows)", "max", "w1.q4", "geosieve", "median_ms", 3.0, True)]
    + [(f"quadtree {kind.replace('_', ' ')}, {data}: GEOS STRtree / GeoSieve ≥ 2×", "ratio", f"w2.{kind}.{data}",
        "geosieve", "geos-strtree", 2.0, False)
       for data in ("uniform", "clustered") for kind in ("build", "window_small", "window_large", "identify")]
    + [("spatial filter star/points: GEOS prepared / GeoSieve ≥ 10×", "ratio", "w3.star_points", "geosieve", "geos-prepared", 10.0, False),
       ("spatial filter walk/points ≥ 4×", "ratio", "w3.walk_points", "geosieve", "geos-prepared", 4.0, False),
       ("spatial filter star/polygons ≥ 2×", "ratio", "w3.star_polygons", "geosieve", "geos-prepared", 2.0, False),
       ("GeoJSON load, 1 thread ≥ DuckDB's 1 thread", "ratio", "load.points.geojson", "geosieve", "duckdb-1", 1.0, False),
       ("GeoJSONSeq load, 1 thread ≥ DuckDB's 1 thread", "ratio", "load.points.geojsonl", "geosieve", "duckdb-1", 1.0, False),
       ("GeoJSON load, 2 threads ≥ 1.7× DuckDB's 1 thread", "ratio", "load.points.geojson", "geosieve-2", "duckdb-1", 1.7, False),
       ("GeoJSONSeq load, 2 threads ≥ 1.7× DuckDB's 1 thread", "ratio", "load.points.geojsonl", "geosieve-2", "duckdb-1", 1.7, False),
       ("GeoPackage read ≥ 2 M features/s", "min", "gpkg.read", "geosieve", "features_per_s", 2_000_000, True),
       ("GeoPackage write ≥ 1 M features/s", "min", "gpkg.write", "geosieve", "features_per_s", 1_000_000, True),
       ("grouped statistics: DuckDB (1 thread) / GeoSieve ≥ 2×", "ratio", "stats.grouped", "geosieve", "duckdb-1", 2.0, False),
       ("single adds on a 1 M-row table ≥ 200,000/s", "min", "edit.single_adds", "geosieve", "adds_per_s", 200_000, True),
       ("a 10,000-edit mixed batch ≤ 20 ms", "max", "edit.batch", "geosieve", "median_ms", 20.0, True),
       ("identify across 5 layers: p99 ≤ 50 µs", "max", "layer.identify", "geosieve", "p99_us", 50.0, True),
       ("server: small ArcGIS queries ≥ 20,000 requests/s", "min", "serve.arcgis_query", "geosieve", "rps", 20_000, True),
       ("server: OGC API items ≥ 20× pygeoapi's requests/s", "ratio", "serve.ogc_items", "geosieve", "pygeoapi", 20.0, False)]
)


def check_keys(workload):
    return next(keys for prefix, keys in CHECKS if workload.startswith(prefix))


def check(lines):
    """Raises Mismatch unless every engine's answer agrees for each workload key."""
    answers = {}
    for line in lines:
        key = line["workload"]
        fields = tuple((k, line.get(k)) for k in check_keys(key) if k in line)
        answers.setdefault(key, {}).setdefault(fields, set()).add((line["engine"], line.get("round", "warm-up")))
    bad = []
    for key, found in sorted(answers.items()):
        if len(found) > 1:
            detail = "; ".join(f"{dict(fields)} from {sorted(f'{e} (round {r})' for e, r in who)}"
                               for fields, who in found.items())
            bad.append(f"{key}: {detail}")
    if bad:
        raise Mismatch("\n  ".join(bad))


# ---------------------------------------------------------------------------------------------
# Running


# Other load above this many cores (averaged over a workload) marks the run as busy.
BUSY_CORES = 0.1


class CPUClock:
    """The machine's busy CPU time and this process tree's, to tell what other processes used.

    /proc/stat counts every core's user, nice, system, irq and softirq time in clock ticks; steal
    (time the hypervisor gave to other guests) is kept apart. getrusage covers this script and
    every child it waited for, and their children in turn (each engine's process, and what it ran).
    """

    def __init__(self):
        self.tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        self.start = self.sample()

    def sample(self):
        busy = steal = 0.0
        try:
            with open("/proc/stat") as f:
                fields = [int(v) for v in f.readline().split()[1:]]
            # user nice system idle iowait irq softirq steal …
            busy = sum(fields[i] for i in (0, 1, 2, 5, 6)) / self.tick
            steal = (fields[7] if len(fields) > 7 else 0) / self.tick
        except (OSError, ValueError, IndexError):
            return None
        own = 0.0
        for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
            usage = resource.getrusage(who)
            own += usage.ru_utime + usage.ru_stime
        return time.monotonic(), busy, steal, own

    def since(self, start):
        """(other processes' cores, steal in cores) since `start`, or None off Linux."""
        end = self.sample()
        if start is None or end is None or end[0] <= start[0]:
            return None
        wall = end[0] - start[0]
        other = max(0.0, (end[1] - start[1]) - (end[3] - start[3]))
        return other / wall, (end[2] - start[2]) / wall


def load_text(load):
    other, steal = load
    text = f"{other:.2f} cores"
    return text + (f", steal {steal:.2f} cores" if steal >= 0.01 else "")


def run_workload(workload, ctx, rounds, record, clock, loads):
    log(f"== {workload.title}: writing the data and warming up (GeoSieve)")
    started = time.monotonic()
    before = clock.sample()
    warm = workload.prepare(ctx)
    for line in warm:
        line["round"] = "warm-up"
    runs = workload.runs(ctx)
    lines = list(warm)
    for r in range(1, rounds + 1):
        order = runs if r % 2 else list(reversed(runs))
        for run in order:
            log(f"   round {r}/{rounds}: {run.name}")
            for line in run.execute():
                line["round"] = r
                lines.append(line)
        check(lines)
    load = clock.since(before)
    if load is not None:
        loads[workload.name] = load
    busy = f"; BUSY MACHINE: other processes used {load_text(load)}" if load and load[0] > BUSY_CORES else ""
    log(f"   {workload.name}: {time.monotonic() - started:.0f} s, every engine agreed{busy}")
    record.extend(lines)


def measured(lines):
    """(workload, engine) -> {round: line}, the rounds' lines only."""
    by = {}
    for line in lines:
        if isinstance(line.get("round"), int):
            by.setdefault((line["workload"], line["engine"]), {})[line["round"]] = line
    return by


def value(line, field="median_ms"):
    return float(line[field])


def ratios(by, key, own, peer):
    """Peer time / GeoSieve time, round by round (rounds both ran)."""
    mine, theirs = by.get((key, own), {}), by.get((key, peer), {})
    return [value(theirs[r]) / value(mine[r]) for r in sorted(mine) if r in theirs and value(mine[r]) > 0]


def evaluate(target, by, quick):
    label, kind, key, own, other, bound, full_only = target
    if kind == "ratio":
        values = ratios(by, key, own, other)
        if not values:
            return None, "not measured"
        median = statistics.median(values)
        return median >= bound, f"{median:.2f}× (rounds {min(values):.2f}–{max(values):.2f})"
    samples = [float(line[other]) for line in by.get((key, own), {}).values() if other in line]
    if not samples:
        return None, "not measured"
    median = statistics.median(samples)
    text = {"median_ms": f"{median:.3f} ms", "p99_us": f"{median:.1f} µs", "rps": f"{median:,.0f} requests/s"}.get(
        other, f"{median:,.0f}/s")
    if quick and full_only:
        return None, text + " (at a tenth of the size: the target is for the full size)"
    return (median <= bound) if kind == "max" else (median >= bound), text


# ---------------------------------------------------------------------------------------------
# The machine


def output(command):
    try:
        return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60).stdout.decode().strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def machine():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            match = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.MULTILINE)
            cpu = match.group(1) if match else cpu
    except OSError:
        pass
    memory = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(re.search(r"MemTotal:\s+(\d+)", f.read()).group(1))
            memory = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, AttributeError):
        pass
    system = platform.platform()
    try:
        with open("/etc/os-release") as f:
            system = re.search(r'^PRETTY_NAME="?([^"\n]+)', f.read(), re.MULTILINE).group(1) + f", Linux {platform.release()}"
    except (OSError, AttributeError):
        pass
    return {"CPU": cpu, "cores": str(os.cpu_count()), "memory": memory, "OS": system}


def versions(ctx):
    found = {}
    found["GeoSieve"] = output(["git", "-C", ROOT, "describe", "--always", "--dirty"]) or "unknown"
    found["Swift"] = output(["swift", "--version"]).splitlines()[0] if output(["swift", "--version"]) else "unknown"
    for module in ("duckdb", "shapely", "numpy", "pyogrio", "pyarrow"):
        text = output([ctx.python, "-c", f"import {module}; print({module}.__version__)"])
        if text and "Error" not in text:
            found[module] = text.splitlines()[-1]
    found["Python"] = platform.python_version()
    found["SQLite (C peers and Python)"] = output(["pkg-config", "--modversion", "sqlite3"]) or "unknown"
    found["GEOS (C peers and GeoSieve)"] = output(["pkg-config", "--modversion", "geos"]) or "unknown"
    shapely_geos = output([ctx.python, "-c", "import shapely; print(shapely.geos_version_string)"])
    if shapely_geos and "Error" not in shapely_geos:
        found["GEOS inside Shapely"] = shapely_geos.splitlines()[-1]
    pyogrio_gdal = output([ctx.python, "-c", "import pyogrio; print(pyogrio.__gdal_version_string__)"])
    if pyogrio_gdal and "Error" not in pyogrio_gdal:
        found["GDAL inside pyogrio"] = pyogrio_gdal.splitlines()[-1]
    if shutil.which("ogrinfo"):
        found["GDAL (ogrinfo, ogr2ogr)"] = output(["ogrinfo", "--version"])
    return found


# ---------------------------------------------------------------------------------------------
# Writing


def ms_text(ms):
    return f"{ms:,.3f}" if ms < 10 else f"{ms:,.1f}" if ms < 1000 else f"{ms:,.0f}"


def markdown(by, lines, args, started, finished, ctx, loads, run_load):
    out = []
    mode = "quick: one round at a tenth of the size" if args.quick else f"{args.rounds} rounds"
    out.append("# GeoSieve against its peers\n")
    out.append(f"`Benchmarks/compare.sh{' ' + ' '.join(args.passed) if args.passed else ''}` ({mode}), "
               f"{started:%Y-%m-%d %H:%M} – {finished:%H:%M} UTC. Every engine ran on the same seeded input, "
               "a process per engine per round, the engines interleaved; every engine gave the same answers in "
               "every round. A ratio is the peer's time divided by GeoSieve's in the same round: above 1, GeoSieve "
               "is faster. Each time is the median over rounds of each process's median pass.\n")
    busy = [name for name, load in loads.items() if load[0] > BUSY_CORES]
    if busy:
        out.append(f"> **The machine was busy**: other processes used more than {BUSY_CORES} of a core on average "
                   f"during {', '.join(busy)} (see Machine). Those times are slower than on a quiet machine, and "
                   "engines running at different moments were slowed unevenly: run again on a quiet machine.\n")
    out.append("![GeoSieve against its peers: time ratios, log scale](latest.svg)\n")
    out.append("## Machine\n")
    info = machine()
    out.append("| | |\n|---|---|")
    for k, v in info.items():
        out.append(f"| {k} | {v} |")
    if run_load is not None:
        out.append(f"| other load (CPU time of other processes per second of the run) | {load_text(run_load)} |")
        for name, load in loads.items():
            out.append(f"| other load during {name} | {load_text(load)} |")
    for k, v in versions(ctx).items():
        out.append(f"| {k} | {v} |")
    out.append("")
    out.append("## Targets\n")
    out.append("| target | measured | met |\n|---|---|:-:|")
    for target in TARGETS:
        met, text = evaluate(target, by, args.quick)
        if text == "not measured" and not any(k == target[2] for k, _ in by):
            continue
        out.append(f"| {target[0]} | {text} | {'—' if met is None else 'yes' if met else '**no**'} |")
    out.append("")
    for workload in WORKLOADS + [SERVER]:
        keys = [m for m in MEASUREMENTS if any(k == m[0] for k, _ in by) and workload_of(m[0]) == workload.name]
        if not keys:
            continue
        out.append(f"## {workload.title}\n")
        out.append(workload.describes + "\n")
        out.append("| measurement | answer | engine | median ms | min–max ms | peer / GeoSieve | per round |")
        out.append("|---|---:|---|---:|---:|---:|---|")
        for key, own, peers in keys:
            mine = by.get((key, own))
            if not mine:
                continue
            times = [value(line) for line in mine.values()]
            first = next(iter(mine.values()))
            answer = f"{first['result']:,}" if isinstance(first["result"], int) else str(first["result"])
            extra = engine_extra(mine)
            out.append(f"| {key} | {answer} | {ENGINES[own]}{extra} | {ms_text(statistics.median(times))} "
                       f"| {ms_text(min(times))}–{ms_text(max(times))} | | |")
            for peer in peers:
                theirs = by.get((key, peer))
                if not theirs:
                    continue
                times = [value(line) for line in theirs.values()]
                rs = ratios(by, key, own, peer)
                extra = engine_extra(theirs)
                out.append(f"| | | {ENGINES[peer]}{extra} | {ms_text(statistics.median(times))} "
                           f"| {ms_text(min(times))}–{ms_text(max(times))} | **{statistics.median(rs):.2f}×** "
                           f"| {', '.join(f'{r:.2f}' for r in rs)} |")
        out.append("")
    absent = sorted({peer for _, _, peers in MEASUREMENTS for peer in peers}
                    - {engine for _, engine in by} - set(args.skipped_engines))
    # Only peers of measurements this run made (pygeoapi is not missing from a run without the server).
    missing = [engine for engine in sorted(set(args.skipped_engines) | set(absent))
               if any(engine in peers for key, _, peers in MEASUREMENTS if any(k == key for k, _ in by))]
    if missing:
        out.append("## Not run\n")
        out.extend(f"- {ENGINES.get(engine, engine)}: not installed or not selected." for engine in missing)
        out.append("")
    return "\n".join(out) + "\n"


def engine_extra(rounds):
    """What the engine cell adds: the p99 of a latency measurement, a server's requests/s."""
    lines = list(rounds.values())
    if "rps" in lines[0]:
        return (f" ({statistics.median(x['rps'] for x in lines):,.0f} requests/s, "
                f"p50 {statistics.median(float(x['p50_us']) for x in lines) / 1000:.2f} ms, "
                f"p99 {statistics.median(float(x['p99_us']) for x in lines) / 1000:.2f} ms)")
    if "p99_us" in lines[0]:
        return f" (p99 {statistics.median(float(x['p99_us']) for x in lines):.1f} µs)"
    return ""


def workload_of(key):
    prefix = key.split(".")[0]
    return {"w1": "where", "w2": "spatial", "w3": "spatial", "load": "load", "query": "load", "gpkg": "gpkg",
            "stats": "stats", "edit": "edits", "layer": "identify", "serve": "server"}.get(prefix, prefix)


def svg(by):
    """One grouped bar chart: a row per measurement, a bar per peer (median ratio, whiskers for the
    rounds' range), log scale, a line at 1×."""
    rows = []
    for key, own, peers in MEASUREMENTS:
        bars = [(peer, ratios(by, key, own, peer)) for peer in peers]
        bars = [(peer, rs) for peer, rs in bars if rs]
        if bars:
            label = key if own == "geosieve" else f"{key} ({ENGINES[own]})"
            rows.append((label, bars))
    if not rows:
        return None
    values = [r for _, bars in rows for _, rs in bars for r in rs]
    low = 10 ** math.floor(math.log10(min(min(values), 0.5)))
    high = 10 ** math.ceil(math.log10(max(max(values), 2.0)))
    bar, gap, left, right, top = 10, 8, 300, 40, 70
    width = 1000
    plot = width - left - right
    used = sorted({peer for _, bars in rows for peer, _ in bars}, key=list(ENGINES).index)
    height = top + sum(len(bars) * bar + gap for _, bars in rows) + 40 + 18 * ((len(used) + 2) // 3)

    def x(v):
        return left + plot * (math.log10(v) - math.log10(low)) / (math.log10(high) - math.log10(low))

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="11">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{left}" y="22" font-size="15" font-weight="bold">GeoSieve against its peers: '
             'peer time / GeoSieve time</text>',
             f'<text x="{left}" y="40" fill="#555">Log scale; right of the line at 1× GeoSieve is faster. '
             'Bars: median over rounds; whiskers: the rounds\' range.</text>']
    decade = low
    while decade <= high * 1.0001:
        for step in (1, 2, 5):
            v = decade * step
            if low <= v <= high:
                major = step == 1
                parts.append(f'<line x1="{x(v):.1f}" y1="{top - 8}" x2="{x(v):.1f}" y2="{height - 40 - 18 * ((len(used) + 2) // 3)}" '
                             f'stroke="{"#ccc" if major else "#eee"}"/>')
                parts.append(f'<text x="{x(v):.1f}" y="{top - 12}" text-anchor="middle" fill="#555">{v:g}×</text>')
        decade *= 10
    y = top
    for label, bars in rows:
        block = len(bars) * bar
        parts.append(f'<text x="{left - 8}" y="{y + block / 2 + 4:.1f}" text-anchor="end">{html.escape(label)}</text>')
        for peer, rs in bars:
            m = statistics.median(rs)
            x0, x1 = x(1.0), x(m)
            parts.append(f'<rect x="{min(x0, x1):.1f}" y="{y}" width="{abs(x1 - x0):.1f}" height="{bar - 1}" '
                         f'fill="{COLORS.get(peer, "#999")}"><title>{html.escape(ENGINES[peer])}: {m:.2f}×</title></rect>')
            if len(rs) > 1:
                parts.append(f'<line x1="{x(min(rs)):.1f}" y1="{y + bar / 2 - 0.5:.1f}" x2="{x(max(rs)):.1f}" '
                             f'y2="{y + bar / 2 - 0.5:.1f}" stroke="#222" stroke-width="1"/>')
            end = max(x1, x(max(rs))) + 3 if m >= 1 else min(x1, x(min(rs))) - 3
            parts.append(f'<text x="{end:.1f}" y="{y + bar - 1.5:.1f}" font-size="8" fill="#333" '
                         f'text-anchor="{"start" if m >= 1 else "end"}">{m:.2g}×</text>')
            y += bar
        y += gap
    parts.append(f'<line x1="{x(1.0):.1f}" y1="{top - 8}" x2="{x(1.0):.1f}" y2="{y}" stroke="#000" stroke-width="1.5"/>')
    y += 24
    for i, peer in enumerate(used):
        lx, ly = left + (i % 3) * 230, y + 18 * (i // 3)
        parts.append(f'<rect x="{lx}" y="{ly - 9}" width="12" height="10" fill="{COLORS.get(peer, "#999")}"/>')
        parts.append(f'<text x="{lx + 18}" y="{ly}">{html.escape(ENGINES[peer])}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


# ---------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", required=True, help="geosieve-bench, built in release mode")
    parser.add_argument("--geosieve", required=True, help="geosieve, built in release mode")
    parser.add_argument("--peers", required=True, help="the folder of the compiled C peers")
    parser.add_argument("--quick", action="store_true", help="one round at a tenth of the size")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per workload (default 5; --quick: 1)")
    parser.add_argument("--only", action="append", default=[], metavar="WORKLOAD",
                        help="run only this workload (repeatable): " + ", ".join(w.name for w in WORKLOADS))
    parser.add_argument("--out", default=os.path.join(ROOT, "Benchmarks", "results"), help="where latest.* go")
    parser.add_argument("--keep-data", metavar="DIR", help="write the workloads' data under DIR and keep it")
    parser.add_argument("--server-lines", metavar="FILE", help="run_serve.sh's results.jsonl (compare.sh --with-server)")
    parser.add_argument("--passed", nargs=argparse.REMAINDER, default=[], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.rounds = 1
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    known = {w.name for w in WORKLOADS}
    for name in args.only:
        if name not in known:
            parser.error(f"unknown workload {name!r} (known: {', '.join(sorted(known))})")
    args.skipped_engines = []
    chosen = [w for w in WORKLOADS if not args.only or w.name in args.only]

    started = datetime.datetime.now(datetime.timezone.utc)
    clock = CPUClock()
    loads = {}
    record = []
    base = args.keep_data or tempfile.mkdtemp(prefix="geosieve-compare-")
    try:
        for workload in chosen:
            data = os.path.join(base, workload.name)
            os.makedirs(data, exist_ok=True)
            ctx = Context(args, data)
            run_workload(workload, ctx, args.rounds, record, clock, loads)
            if not args.keep_data:
                shutil.rmtree(data, ignore_errors=True)
    except Mismatch as error:
        log(f"ENGINES DISAGREE, nothing written:\n  {error}")
        return 1
    finally:
        if not args.keep_data:
            shutil.rmtree(base, ignore_errors=True)
    if args.server_lines:
        record.extend(server_lines(args.server_lines))
    finished = datetime.datetime.now(datetime.timezone.utc)
    run_load = clock.since(clock.start)

    by = measured(record)
    os.makedirs(args.out, exist_ok=True)
    ctx = Context(args, base)
    # Made before any file is opened for writing: opening one empties it, and the version
    # (`git describe --dirty`) would then read the checkout as changed.
    report = markdown(by, record, args, started, finished, ctx, loads, run_load)
    with open(os.path.join(args.out, "latest.md"), "w") as f:
        f.write(report)
    chart = svg(by)
    if chart:
        with open(os.path.join(args.out, "latest.svg"), "w") as f:
            f.write(chart)
    with open(os.path.join(args.out, "latest.jsonl"), "w") as f:
        for line in record:
            f.write(json.dumps(line, separators=(",", ":")) + "\n")
    log(f"== wrote {args.out}/latest.md, latest.svg and latest.jsonl ({(finished - started).total_seconds():.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# Spatial index workload w2: GeoSieve's quadtree vs the GEOS C API's STRtree vs Shapely 2's STRtree
# on the same generated points, windows and clicks, in one run.
#
#   Benchmarks/run_w2.sh [--points 1000000] [--seed 42] [--rounds 5] [--keep-data DIR]
#
# 1. builds geosieve-bench in release mode, and Benchmarks/peers/w2_strtree.c with
#    `cc -O2 $(pkg-config --cflags --libs geos)` into .build/w2/ (git-ignored);
# 2. runs `geosieve-bench spatial --emit-data DATA` (DATA: a temporary folder, or --keep-data DIR);
# 3. runs the C peer and Benchmarks/w2_peers.py DATA with a Python venv holding shapely
#    (W2_VENV, default .build/w2-venv; created with `pip install shapely` when missing;
#    W2_PYTHON picks the interpreter that creates it, default python3);
# 4. checks that every engine counted the same hits for every measurement (exit 1 if not);
# 5. prints every JSON line, then a table with the ratios against the targets: build >= 2x faster
#    than the STRtree build; small windows, large windows and identify >= 2x the STRtree's
#    queries/s; identify p99 < 20 us; edits >= 100,000 operations/s.
# The raw JSON lines also land in DATA/results.jsonl.
set -euo pipefail

cd "$(dirname "$0")/.."

# shellcheck source=peers/spatial_common.sh
. Benchmarks/peers/spatial_common.sh
parse_spatial_options "$@"
build_bench_and_peer Benchmarks/peers/w2_strtree.c .build/w2/w2_strtree

venv="${W2_VENV:-.build/w2-venv}"
if ! "$venv/bin/python" -c "import shapely, numpy" 2>/dev/null; then
    echo "== setting up $venv (pip install shapely)" >&2
    "${W2_PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check shapely numpy >&2
fi

make_data_folder w2
results="$data/results.jsonl"

echo "== geosieve-bench spatial --points $points --seed $seed --rounds $rounds --emit-data $data" >&2
"$bin" spatial --points "$points" --seed "$seed" --rounds "$rounds" --emit-data "$data" > "$results"
echo "== peer: GEOS C API STRtree ($(pkg-config --modversion geos))" >&2
.build/w2/w2_strtree "$data" "$rounds" >> "$results"
echo "== peer: Shapely STRtree ($("$venv/bin/python" -c 'import shapely; print(shapely.__version__, "GEOS", shapely.geos_version_string)'))" >&2
"$venv/bin/python" Benchmarks/w2_peers.py "$data" --rounds "$rounds" >> "$results"

cat "$results"
echo
"$venv/bin/python" - "$results" <<'PY'
import json
import sys

lines = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
by = {(r["engine"], r["workload"]): r for r in lines}
engines = ["geosieve", "geos-strtree", "shapely"]
sets = ["uniform", "clustered"]
kinds = ["build", "window_small", "window_large", "identify"]

bad = []
for s in sets:
    for k in kinds:
        w = f"w2.{k}.{s}"
        counts = {e: by[(e, w)]["result"] for e in engines if (e, w) in by}
        missing = [e for e in engines if (e, w) not in by]
        if missing or len(set(counts.values())) != 1:
            bad.append(f"{w}: results {counts}, missing {missing}")
if ("geosieve", "w2.edits.uniform") not in by:
    bad.append("w2.edits.uniform: missing")
if bad:
    print("RESULTS DISAGREE ACROSS ENGINES:", *bad, sep="\n  ", file=sys.stderr)
    sys.exit(1)

n = by[("geosieve", "w2.build.uniform")]["features"]
print(f"w2, {n:,} points per set, medians; ratio = STRtree time / GeoSieve time "
      "(targets: >= 2x for build, windows and identify; identify p99 < 20 us; edits >= 100,000 ops/s)")
print()
print("| measurement | hits | GeoSieve ms | GEOS STRtree ms | Shapely ms | GeoSieve µs/query "
      "| STRtree µs/query | STRtree / GeoSieve | target 2x |")
print("|---|---:|---:|---:|---:|---:|---:|---:|:-:|")
all_met = True
for s in sets:
    for k in kinds:
        w = f"w2.{k}.{s}"
        g, c, p = (by[(e, w)] for e in engines)
        ratio = c["median_ms"] / g["median_ms"]
        met = ratio >= 2.0
        all_met &= met
        per = "—" if k == "build" else f"{g['median_ms'] * 1000 / g['queries']:.2f}"
        per_c = "—" if k == "build" else f"{c['median_ms'] * 1000 / c['queries']:.2f}"
        print(f"| {w} | {g['result']:,} | {g['median_ms']:.3f} | {c['median_ms']:.3f} | {p['median_ms']:.3f} "
              f"| {per} | {per_c} | {ratio:.2f}x | {'yes' if met else 'NO'} |")
print()
for s in sets:
    w = f"w2.identify.{s}"
    g = by[("geosieve", w)]["p99_us"]
    met = g < 20.0
    all_met &= met
    print(f"identify p99 ({s}): GeoSieve {g:.2f} µs, GEOS STRtree {by[('geos-strtree', w)]['p99_us']:.2f} µs, "
          f"Shapely {by[('shapely', w)]['p99_us']:.2f} µs — target < 20 µs: {'yes' if met else 'NO'}")
e = by[("geosieve", "w2.edits.uniform")]
met = e["ops_per_s"] >= 100_000
all_met &= met
print(f"edits (uniform): {e['operations']:,} operations in {e['median_ms']:.3f} ms = {e['ops_per_s']:,} ops/s, "
      f"final count {e['result']:,}, checked against brute force — target >= 100,000 ops/s: {'yes' if met else 'NO'}")
print()
print("all targets met" if all_met else "SOME TARGETS MISSED")
PY

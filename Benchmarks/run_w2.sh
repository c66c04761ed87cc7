#!/usr/bin/env bash
# Spatial index workload w2: GeoSieve's quadtree vs the GEOS C API's STRtree vs Shapely 2's STRtree
# on the same generated points, windows and clicks, in one run.
#
#   Benchmarks/run_w2.sh [--points 1000000] [--seed 42] [--rounds 5] [--repeat 1] [--keep-data DIR]
#
# 1. builds geosieve-bench in release mode, and Benchmarks/peers/w2_strtree.c with
#    `cc -O2 $(pkg-config --cflags --libs geos)` into .build/w2/ (git-ignored);
# 2. runs `geosieve-bench spatial --emit-data DATA` (DATA: a temporary folder, or --keep-data DIR)
#    and the C peer, alternately, --repeat times (each run times --rounds rounds);
# 3. runs Benchmarks/w2_peers.py DATA once, with a Python venv holding shapely
#    (W2_VENV, default .build/w2-venv; created with `pip install shapely` when missing;
#    W2_PYTHON picks the interpreter that creates it, default python3);
# 4. checks that every engine counted the same hits for every measurement in every run (exit 1
#    if not);
# 5. prints every JSON line, then a table with the ratios against the targets: build >= 2x faster
#    than the STRtree build; small windows, large windows and identify >= 2x the STRtree's
#    queries/s; identify p99 < 20 us; edits >= 100,000 operations/s. With --repeat N, times are
#    medians over the runs and the ratio is the median of the N run-by-run ratios, with their range.
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

: > "$results"
for ((run = 1; run <= repeat; run++)); do
    echo "== run $run of $repeat: geosieve-bench spatial --points $points --seed $seed --rounds $rounds --emit-data $data" >&2
    "$bin" spatial --points "$points" --seed "$seed" --rounds "$rounds" --emit-data "$data" >> "$results"
    echo "== run $run of $repeat: peer: GEOS C API STRtree ($(pkg-config --modversion geos))" >&2
    .build/w2/w2_strtree "$data" "$rounds" >> "$results"
done
echo "== peer: Shapely STRtree ($("$venv/bin/python" -c 'import shapely; print(shapely.__version__, "GEOS", shapely.geos_version_string)'))" >&2
"$venv/bin/python" Benchmarks/w2_peers.py "$data" --rounds "$rounds" >> "$results"

cat "$results"
echo
"$venv/bin/python" - "$results" <<'PY'
import statistics
import sys

sys.path.insert(0, "Benchmarks/peers")
from spatial_results import load, median_ms, ratio_text, ratios

runs = load(sys.argv[1])
by = {key: lines[0] for key, lines in runs.items()}
engines = ["geosieve", "geos-strtree", "shapely"]
sets = ["uniform", "clustered"]
kinds = ["build", "window_small", "window_large", "identify"]

bad = []
for s in sets:
    for k in kinds:
        w = f"w2.{k}.{s}"
        counts = {e: sorted({line["result"] for line in runs[(e, w)]}) for e in engines if (e, w) in runs}
        missing = [e for e in engines if (e, w) not in runs]
        if missing or len({tuple(c) for c in counts.values()}) != 1 or any(len(c) != 1 for c in counts.values()):
            bad.append(f"{w}: results {counts}, missing {missing}")
if ("geosieve", "w2.edits.uniform") not in by:
    bad.append("w2.edits.uniform: missing")
if bad:
    print("RESULTS DISAGREE ACROSS ENGINES:", *bad, sep="\n  ", file=sys.stderr)
    sys.exit(1)

n = by[("geosieve", "w2.build.uniform")]["features"]
repeats = len(runs[("geosieve", "w2.build.uniform")])
print(f"w2, {n:,} points per set, {repeats} run(s) per engine, medians; ratio = STRtree time / GeoSieve time, "
      "run by run (targets: >= 2x for build, windows and identify; identify p99 < 20 us; edits >= 100,000 ops/s)")
print()
print("| measurement | hits | GeoSieve ms | GEOS STRtree ms | Shapely ms | GeoSieve µs/query "
      "| STRtree µs/query | STRtree / GeoSieve | target 2x |")
print("|---|---:|---:|---:|---:|---:|---:|---:|:-:|")
all_met = True
for s in sets:
    for k in kinds:
        w = f"w2.{k}.{s}"
        g, c, p = (runs[(e, w)] for e in engines)
        run_ratios = ratios(c, g)
        met = statistics.median(run_ratios) >= 2.0
        all_met &= met
        g_ms, c_ms = median_ms(g), median_ms(c)
        per = "—" if k == "build" else f"{g_ms * 1000 / g[0]['queries']:.2f}"
        per_c = "—" if k == "build" else f"{c_ms * 1000 / c[0]['queries']:.2f}"
        print(f"| {w} | {g[0]['result']:,} | {g_ms:.3f} | {c_ms:.3f} | {median_ms(p):.3f} "
              f"| {per} | {per_c} | {ratio_text(run_ratios)} | {'yes' if met else 'NO'} |")
print()
for s in sets:
    w = f"w2.identify.{s}"
    g = max(line["p99_us"] for line in runs[("geosieve", w)])
    met = g < 20.0
    all_met &= met
    c = max(line["p99_us"] for line in runs[("geos-strtree", w)])
    print(f"identify p99 ({s}, worst run): GeoSieve {g:.2f} µs, GEOS STRtree {c:.2f} µs, "
          f"Shapely {by[('shapely', w)]['p99_us']:.2f} µs — target < 20 µs: {'yes' if met else 'NO'}")
e = min(runs[("geosieve", "w2.edits.uniform")], key=lambda line: line["ops_per_s"])
met = e["ops_per_s"] >= 100_000
all_met &= met
print(f"edits (uniform, slowest run): {e['operations']:,} operations in {e['median_ms']:.3f} ms = {e['ops_per_s']:,} ops/s, "
      f"final count {e['result']:,}, checked against brute force — target >= 100,000 ops/s: {'yes' if met else 'NO'}")
print()
print("all targets met" if all_met else "SOME TARGETS MISSED")
PY

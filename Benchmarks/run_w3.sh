#!/usr/bin/env bash
# Spatial filter workload w3: GeoSieve's feature-table query (quadtree nodes classified by GEOS,
# only boundary features tested) vs a raw GEOS C-API loop with the query polygon prepared and
# envelope rejection, on the same generated points, query polygons and small polygons, in one run.
#
#   Benchmarks/run_w3.sh [--points 1000000] [--seed 42] [--rounds 5] [--repeat 1] [--keep-data DIR]
#
# 1. builds geosieve-bench in release mode, and Benchmarks/peers/w3_geos.c with
#    `cc -O2 $(pkg-config --cflags --libs geos)` into .build/w3/ (git-ignored);
# 2. runs `geosieve-bench spatial --only star_points --only walk_points --only star_polygons
#    --emit-data DATA` (DATA: a temporary folder, or --keep-data DIR) and the C peer on DATA
#    (points_uniform.f64, star.wkt, walk.wkt, polygons.wkt), alternately, --repeat times;
# 3. checks that both engines counted the same features for every measurement (exit 1 if not);
# 4. prints every JSON line, then a table with the ratios against the targets: GeoSieve faster
#    than the prepared GEOS loop by >= 10x for w3.star_points, >= 4x for w3.walk_points and
#    >= 2x for w3.star_polygons. With --repeat N, times are medians over the runs and the ratio
#    is the median of the N run-by-run ratios, with their range.
# The raw JSON lines also land in DATA/results.jsonl. Needs python3 (standard library only).
set -euo pipefail

cd "$(dirname "$0")/.."

# shellcheck source=peers/spatial_common.sh
. Benchmarks/peers/spatial_common.sh
parse_spatial_options "$@"
build_bench_and_peer Benchmarks/peers/w3_geos.c .build/w3/w3_geos

make_data_folder w3
results="$data/results.jsonl"

: > "$results"
for ((run = 1; run <= repeat; run++)); do
    echo "== run $run of $repeat: geosieve-bench spatial (w3 only) --points $points --seed $seed --rounds $rounds --emit-data $data" >&2
    "$bin" spatial --points "$points" --seed "$seed" --rounds "$rounds" --emit-data "$data" \
        --only star_points --only walk_points --only star_polygons >> "$results"
    echo "== run $run of $repeat: peer: GEOS C API, prepared query polygon + envelope rejection ($(pkg-config --modversion geos))" >&2
    .build/w3/w3_geos "$data" "$rounds" >> "$results"
done

cat "$results"
echo
python3 - "$results" <<'PY'
import statistics
import sys

sys.path.insert(0, "Benchmarks/peers")
from spatial_results import load, median_ms, ratio_text, ratios

runs = load(sys.argv[1])
engines = ["geosieve", "geos-prepared"]
targets = {"w3.star_points": 10.0, "w3.walk_points": 4.0, "w3.star_polygons": 2.0}

bad = []
for w in targets:
    counts = {(line["result"], line["features"]) for e in engines for line in runs.get((e, w), [])}
    missing = [e for e in engines if (e, w) not in runs]
    if missing or len(counts) != 1:
        bad.append(f"{w}: (result, features) {sorted(counts)}, missing {missing}")
if bad:
    print("RESULTS DISAGREE ACROSS ENGINES:", *bad, sep="\n  ", file=sys.stderr)
    sys.exit(1)

print(f"w3, {len(runs[('geosieve', 'w3.star_points')])} run(s) per engine, medians; "
      "ratio = GEOS prepared-loop time / GeoSieve time, run by run "
      "(targets: >= 10x star/points, >= 4x walk/points, >= 2x star/polygons); "
      "tested = features GeoSieve tested one by one (boundary leaves), untested = accepted whole")
print()
print("| measurement | features | intersecting | GeoSieve ms (min–max) | GEOS prepared ms (min–max) "
      "| untested / tested | ratio | target | met |")
print("|---|---:|---:|---:|---:|---:|---:|---:|:-:|")
all_met = True
for w, target in targets.items():
    g, c = (runs[(e, w)] for e in engines)
    run_ratios = ratios(c, g)
    met = statistics.median(run_ratios) >= target
    all_met &= met
    first = g[0]
    print(f"| {w} | {first['features']:,} | {first['result']:,} "
          f"| {median_ms(g):.3f} ({min(x['min_ms'] for x in g):.3f}–{max(x['max_ms'] for x in g):.3f}) "
          f"| {median_ms(c):.3f} ({min(x['min_ms'] for x in c):.3f}–{max(x['max_ms'] for x in c):.3f}) "
          f"| {first.get('inside_features', 0):,} / {first.get('boundary_features', 0):,} "
          f"| {ratio_text(run_ratios)} | {target:g}x | {'yes' if met else 'NO'} |")
print()
print("all targets met" if all_met else "SOME TARGETS MISSED")
PY

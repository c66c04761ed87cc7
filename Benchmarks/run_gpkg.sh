#!/usr/bin/env bash
# GeoPackage workload: GeoSieve writes and reads 1,000,000 generated w1 points (with the R-tree
# index), then GDAL reads and copies the same file, in one run.
#
#   Benchmarks/run_gpkg.sh [--features 1000000] [--rounds 3] [--gdal-rounds 1] [--keep-data DIR]
#
# 1. builds geosieve-bench in release mode;
# 2. runs `geosieve-bench gpkg --keep` into DATA (a temporary folder, or --keep-data DIR): the
#    gpkg.write and gpkg.read lines (median of --rounds after a warm-up);
# 3. when GDAL's ogr2ogr is on PATH, times on that file (--gdal-rounds times each, median):
#    gdal.read  `ogr2ogr -f Memory` (every feature into GDAL's in-memory layer),
#    gdal.copy  `ogr2ogr -f GPKG` (read, then write with GDAL's own R-tree index),
#    gdal.copy_noindex  the same with `-lco SPATIAL_INDEX=NO`,
#    and GeoSieve reading GDAL's copy (gpkg.read_gdal_file);
# 4. prints every JSON line, then a table against the targets (read >= 2 M features/s, write
#    >= 1 M features/s). The raw lines also land in DATA/results.jsonl.
set -euo pipefail

cd "$(dirname "$0")/.."

features=1000000
rounds=3
gdal_rounds=1
keep=""
while [ $# -gt 0 ]; do
    case "$1" in
        --features) features="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --gdal-rounds) gdal_rounds="$2"; shift 2 ;;
        --keep-data) keep="$2"; shift 2 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "run_gpkg.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

echo "== building geosieve-bench (release)" >&2
swift build -c release --product geosieve-bench >&2
bin="$(swift build -c release --product geosieve-bench --show-bin-path)/geosieve-bench"

if [ -n "$keep" ]; then
    data="$keep"
    mkdir -p "$data"
else
    data="$(mktemp -d "${TMPDIR:-/tmp}/geosieve-gpkg.XXXXXX")"
    trap 'rm -rf "$data"' EXIT
fi
results="$data/results.jsonl"

echo "== geosieve-bench gpkg --features $features --rounds $rounds --directory $data --keep" >&2
"$bin" gpkg --features "$features" --rounds "$rounds" --directory "$data" --keep > "$results" 2> "$data/bench.log"
file="$(sed -n 's/^kept //p' "$data/bench.log")"
bytes="$(wc -c < "$file" | tr -d ' ')"

# Median wall-clock milliseconds of running "$@" $gdal_rounds times (after no warm-up: the file
# is in the page cache from the runs above).
time_median() {
    local samples=()
    for _ in $(seq "$gdal_rounds"); do
        rm -f "$data/gdal_copy.gpkg"
        local start end
        start=$(date +%s%N)
        "$@" > /dev/null
        end=$(date +%s%N)
        samples+=("$(( (end - start) / 1000 ))")
    done
    printf '%s\n' "${samples[@]}" | sort -n | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.3f %.3f %.3f", m / 1000, a[1] / 1000, a[NR] / 1000 }'
}

gdal_line() {
    local workload="$1"
    shift
    local median min max
    read -r median min max <<< "$(time_median "$@")"
    local per_second
    per_second=$(awk -v f="$features" -v m="$median" 'BEGIN { printf "%d", f / (m / 1000) }')
    printf '{"workload":"%s","engine":"gdal","median_ms":%s,"min_ms":%s,"max_ms":%s,"features":%s,"features_per_s":%s,"bytes":%s}\n' \
        "$workload" "$median" "$min" "$max" "$features" "$per_second" "$bytes" >> "$results"
}

if command -v ogr2ogr > /dev/null; then
    echo "== GDAL ($(ogr2ogr --version)) on $file, $gdal_rounds round(s) each" >&2
    gdal_line gdal.read ogr2ogr -f Memory /vsimem/gpkg-read.mem "$file"
    gdal_line gdal.copy_noindex ogr2ogr -f GPKG -lco SPATIAL_INDEX=NO "$data/gdal_copy.gpkg" "$file"
    gdal_line gdal.copy ogr2ogr -f GPKG "$data/gdal_copy.gpkg" "$file"
    echo "== geosieve-bench gpkg --input (GDAL's copy)" >&2
    "$bin" gpkg --input "$data/gdal_copy.gpkg" --rounds "$rounds" 2> /dev/null \
        | sed 's/"workload":"gpkg.read"/"workload":"gpkg.read_gdal_file"/' >> "$results"
else
    echo "== ogr2ogr not on PATH: no GDAL peers (apt-get install gdal-bin)" >&2
fi

cat "$results"
echo
python3 - "$results" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
targets = {"gpkg.write": 1_000_000, "gpkg.read": 2_000_000}
print("| workload | engine | median ms (min–max) | features/s | target |")
print("|---|---|---:|---:|:-:|")
for l in lines:
    t = targets.get(l["workload"])
    met = "" if t is None else ("met" if l["features_per_s"] >= t else "not met")
    goal = "" if t is None else f"≥ {t / 1e6:g} M/s {met}"
    print(f'| {l["workload"]} | {l["engine"]} | {l["median_ms"]:.0f} ({l["min_ms"]:.0f}–{l["max_ms"]:.0f}) '
          f'| {l["features_per_s"]:,} | {goal} |')
EOF

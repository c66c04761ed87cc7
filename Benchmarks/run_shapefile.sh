#!/usr/bin/env bash
# Shapefile workload: GeoSieve writes and reads 1,000,000 generated w1 points as a shapefile,
# then GDAL reads the same files, in one run.
#
#   Benchmarks/run_shapefile.sh [--features 1000000] [--rounds 3] [--gdal-rounds 3] [--keep-data DIR]
#
# 1. builds geosieve-bench in release mode (without the RemoteSources trait: no PostGIS here);
# 2. runs `geosieve-bench shapefile --keep` into DATA (a temporary folder, or --keep-data DIR):
#    the shapefile.write and shapefile.read lines (median of --rounds after a warm-up; the read
#    is one thread, as GDAL's);
# 3. when GDAL's ogr2ogr is on PATH, times `ogr2ogr -f Memory` on the same .shp (every feature
#    into GDAL's in-memory layer: a full read that keeps the features, like GeoSieve's), the
#    median of --gdal-rounds whole processes;
# 4. prints every JSON line, then the table against the target (GeoSieve's read at least twice
#    as fast as GDAL's). The raw lines also land in DATA/results.jsonl.
set -euo pipefail

cd "$(dirname "$0")/.."

features=1000000
rounds=3
gdal_rounds=3
keep=""
while [ $# -gt 0 ]; do
    case "$1" in
        --features) features="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --gdal-rounds) gdal_rounds="$2"; shift 2 ;;
        --keep-data) keep="$2"; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "run_shapefile.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

echo "== building geosieve-bench (release)" >&2
swift build -c release --product geosieve-bench --disable-default-traits >&2
bin="$(swift build -c release --product geosieve-bench --disable-default-traits --show-bin-path)/geosieve-bench"

if [ -n "$keep" ]; then
    data="$keep"
    mkdir -p "$data"
else
    data="$(mktemp -d "${TMPDIR:-/tmp}/geosieve-shapefile.XXXXXX")"
    trap 'rm -rf "$data"' EXIT
fi
results="$data/results.jsonl"

echo "== geosieve-bench shapefile --features $features --rounds $rounds --directory $data --keep" >&2
"$bin" shapefile --features "$features" --rounds "$rounds" --directory "$data" --keep > "$results" 2> "$data/bench.log"
file="$(sed -n 's/^kept //p' "$data/bench.log")"
stem="${file%.shp}"
bytes=$(( $(wc -c < "$stem.shp") + $(wc -c < "$stem.shx") + $(wc -c < "$stem.dbf") ))

if command -v ogr2ogr > /dev/null; then
    echo "== GDAL ($(ogr2ogr --version)) on $file, $gdal_rounds round(s)" >&2
    samples=()
    for _ in $(seq "$gdal_rounds"); do
        start=$(date +%s%N)
        ogr2ogr -f Memory /vsimem/shapefile-read.mem "$file" > /dev/null
        end=$(date +%s%N)
        samples+=("$(( (end - start) / 1000 ))")
    done
    read -r median min max <<< "$(printf '%s\n' "${samples[@]}" | sort -n | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.3f %.3f %.3f", m / 1000, a[1] / 1000, a[NR] / 1000 }')"
    per_second=$(awk -v f="$features" -v m="$median" 'BEGIN { printf "%d", f / (m / 1000) }')
    printf '{"workload":"gdal.read","engine":"gdal","median_ms":%s,"min_ms":%s,"max_ms":%s,"features":%s,"features_per_s":%s,"bytes":%s}\n' \
        "$median" "$min" "$max" "$features" "$per_second" "$bytes" >> "$results"
else
    echo "== ogr2ogr not on PATH: no GDAL peer (apt-get install gdal-bin)" >&2
fi

cat "$results"
echo
python3 - "$results" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = {l["workload"]: l for l in lines}
print("| workload | engine | median ms (min–max) | features/s |")
print("|---|---|---:|---:|")
for l in lines:
    print(f'| {l["workload"]} | {l.get("engine", "geosieve")} | {l["median_ms"]:.0f} ({l["min_ms"]:.0f}–{l["max_ms"]:.0f}) | {l["features_per_s"]:,} |')
if "shapefile.read" in by and "gdal.read" in by:
    ratio = by["gdal.read"]["median_ms"] / by["shapefile.read"]["median_ms"]
    print(f"\nshapefile.read is {ratio:.2f}x GDAL's read: target >= 2x {'met' if ratio >= 2 else 'not met'}")
PY

#!/usr/bin/env bash
# Load workload: GeoSieve loading seeded GeoJSON files, and its peers on the same files.
#
#   Benchmarks/run_load.sh [--points 1000000] [--polygons 200000] [--rounds 3] [--keep-data DIR]
#
# 1. builds geosieve-bench and geosieve in release mode;
# 2. runs `geosieve-bench load --emit-data DATA` (DATA: a temporary folder, or --keep-data DIR),
#    which writes points.geojson, points.geojsonl and polygons.geojson and times GeoSieve's loads;
# 3. runs Benchmarks/load_peers.py DATA (DuckDB threads=1 and default, ogrinfo, pyogrio, and the
#    end-to-end count query of both), each engine whole processes, rounds interleaved.
# Prints every JSON line; they also land in DATA/results.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."

points=1000000
polygons=200000
rounds=3
keep=""
while [ $# -gt 0 ]; do
    case "$1" in
        --points) points="$2"; shift 2 ;;
        --polygons) polygons="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --keep-data) keep="$2"; shift 2 ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "run_load.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

echo "== building geosieve-bench and geosieve (release)" >&2
swift build -c release --product geosieve-bench >&2
swift build -c release --product geosieve >&2
bin="$(swift build -c release --show-bin-path)"

if [ -n "$keep" ]; then
    data="$keep"
    mkdir -p "$data"
else
    data="$(mktemp -d "${TMPDIR:-/tmp}/geosieve-load.XXXXXX")"
    trap 'rm -rf "$data"' EXIT
fi
results="$data/results.jsonl"
"$bin/geosieve-bench" load --points "$points" --polygons "$polygons" --rounds "$rounds" --emit-data "$data" > "$results"
python3 Benchmarks/load_peers.py "$data" --geosieve "$bin/geosieve" --rounds "$rounds" >> "$results"
cat "$results"

#!/usr/bin/env bash
# What gzip and entity tags cost `geosieve serve`: the request rate of small and page-sized
# ArcGIS queries with compression on and off, wrk sending `Accept-Encoding: gzip` as browsers do,
# in one run.
#
#   Benchmarks/run_compression.sh [--rows 200000] [--duration 10] [--rounds 3] [--connections 8]
#
# 1. builds geosieve in release mode;
# 2. writes the 25-field layer of Benchmarks/serve_wide_data.py (--rows points) in a temporary
#    folder;
# 3. starts `geosieve serve` over it twice, `--no-compression` and not, on loopback;
# 4. wrk (--connections, 2 threads, --duration s) on two queries, after a 3 s warm-up, the two
#    servers alternating --rounds times:
#    compression.count  `query?where=category='category 3'&returnCountOnly=true` (an answer of
#                       about 15 bytes: never compressed; what entity tags cost);
#    compression.page   `query?where=1=1&outFields=*&resultRecordCount=25` (about 17 KB of JSON,
#                       gzipped to about 4 KB: what gzip at level 1 costs);
# 5. prints each round's requests per second and the medians' ratio (target: the small
#    query's rate drops by at most 10 %).
set -euo pipefail

cd "$(dirname "$0")/.."

rows=200000
duration=10
rounds=3
connections=8
while [ $# -gt 0 ]; do
    case "$1" in
        --rows) rows="$2"; shift 2 ;;
        --duration) duration="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --connections) connections="$2"; shift 2 ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "run_compression.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
command -v wrk > /dev/null || { echo "run_compression.sh: wrk not found (apt-get install wrk)" >&2; exit 1; }

echo "== building geosieve (release)" >&2
swift build -c release --product geosieve >&2
bin="$(swift build -c release --product geosieve --show-bin-path)/geosieve"

work=$(mktemp -d "${TMPDIR:-/tmp}/geosieve-compression.XXXXXX")
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
python3 Benchmarks/serve_wide_data.py "$work" --rows "$rows" > /dev/null

. Scripts/serve-lib.sh
"$bin" serve "$work/wide.gpkg:wide" --port 0 --log-level warning --no-compression > "$work/plain.out" 2> "$work/plain.err" &
pids+=($!)
wait_for_serving "$work/plain.out" "$!" plain
plain=$base
"$bin" serve "$work/wide.gpkg:wide" --port 0 --log-level warning > "$work/gzip.out" 2> "$work/gzip.err" &
pids+=($!)
wait_for_serving "$work/gzip.out" "$!" gzip
gzip=$base
echo "servers: $plain (--no-compression), $gzip" >&2

count="/arcgis/rest/services/wide/FeatureServer/0/query?where=category%3D%27category%203%27&returnCountOnly=true&f=json"
page="/arcgis/rest/services/wide/FeatureServer/0/query?where=1%3D1&outFields=*&resultRecordCount=25&f=json"
echo "page: $(curl -s "$gzip$page" | wc -c) bytes, gzipped $(curl -s -H 'Accept-Encoding: gzip' "$gzip$page" | wc -c)" >&2

rate() {
    wrk -t 2 -c "$connections" -d "${duration}s" -H "Accept-Encoding: gzip" "$1" | awk '/Requests\/sec/ { print $2 }'
}
for path in "$count" "$page"; do
    wrk -t 2 -c "$connections" -d 3s -H "Accept-Encoding: gzip" "$plain$path" > /dev/null
    wrk -t 2 -c "$connections" -d 3s -H "Accept-Encoding: gzip" "$gzip$path" > /dev/null
done
for name in count page; do
    path=$count
    [ "$name" = page ] && path=$page
    off=()
    on=()
    for _ in $(seq 1 "$rounds"); do
        off+=("$(rate "$plain$path")")
        on+=("$(rate "$gzip$path")")
    done
    python3 - "$name" "${off[*]}" "${on[*]}" <<'PY'
import json, statistics, sys
name, off, on = sys.argv[1], [float(v) for v in sys.argv[2].split()], [float(v) for v in sys.argv[3].split()]
a, b = statistics.median(off), statistics.median(on)
print(json.dumps({"workload": f"compression.{name}", "off_rps": off, "on_rps": on, "off_median": a, "on_median": b,
                  "change_percent": round(100 * (b - a) / a, 1)}))
PY
done

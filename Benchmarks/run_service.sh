#!/usr/bin/env bash
# Service-table workload: GeoSieve reading a feature service over loopback — a snapshot load of
# 1,000,000 points from `geosieve serve` through the ArcGIS route (count, then resultOffset pages)
# and the OGC API route (next links), and an on-demand pan over 100 map extents.
#
#   Benchmarks/run_service.sh [--data DIR] [--rounds 3] [--max-record-count 10000] [--extents 100]
#
# 1. builds `geosieve` (release) and writes DATA/points.gpkg and DATA/boxes.txt with
#    Benchmarks/serve_data.py when missing (the server workload's data: 1,000,000 seeded points);
# 2. starts `geosieve serve DATA/points.gpkg:points:points --max-record-count N` on a free port;
# 3. per round: `geosieve query URL --return count` on the layer URL and on OAPIF:URL#points,
#    timed (wall clock of the whole command: metadata, every page, the table built), features/s;
# 4. `geosieve pan LAYER --mode on-demand --buffer-factor 2` over a pan of --extents views: a
#    2 x 1.5 degree view moving east by a tenth of its width per frame (the buffered extent is
#    twice the view, so the view leaves it after 5 frames: a fetch every 6th frame), then the
#    same number of views jumping between random boxes of boxes.txt (each leaving the last
#    buffered extent: a fetch every frame); requests, fetches, the slowest local query per frame.
#
# Prints one JSON line per measurement on standard output. Targets (issue): snapshot load
# >= 150,000 features/s; on-demand requests no more than the buffer factor implies, and every
# frame's local query <= 5 ms.
set -euo pipefail
cd "$(dirname "$0")/.."

data=.build/serve-data
rounds=3
max_record_count=10000
extents=100
while [ $# -gt 0 ]; do
    case "$1" in
        --data) data="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --max-record-count) max_record_count="$2"; shift 2 ;;
        --extents) extents="$2"; shift 2 ;;
        *) echo "run_service.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

swift build -c release --product geosieve >&2
geosieve="$PWD/.build/release/geosieve"
if [ ! -f "$data/points.gpkg" ] || [ ! -f "$data/boxes.txt" ]; then
    python3 Benchmarks/serve_data.py "$data" >&2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/geosieve-service.XXXXXX")
server_pid=
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

"$geosieve" serve "$data/points.gpkg:points:points" --port 0 --max-record-count "$max_record_count" \
    --query-timeout 600 --log-level warning > "$work/serve.out" 2> "$work/serve.log" &
server_pid=$!
base=
for _ in $(seq 1 600); do
    if line=$(grep -m 1 '^serving http://' "$work/serve.out" 2> /dev/null); then
        base=${line#serving }
        break
    fi
    sleep 0.1
done
[ -n "$base" ] || { echo "run_service.sh: the server did not start" >&2; cat "$work/serve.log" >&2; exit 1; }
layer="$base/arcgis/rest/services/points/FeatureServer/0"

now() { date +%s.%N; }
for round in $(seq 1 "$rounds"); do
    for route in arcgis ogc; do
        source=$layer
        [ "$route" = ogc ] && source="OAPIF:$base/ogc#points"
        start=$(now)
        count=$("$geosieve" query "$source" --return count --trace-requests 2> "$work/trace.txt" | tr -dc '0-9')
        end=$(now)
        requests=$(grep -c '^request: ' "$work/trace.txt")
        python3 -c "
import json, sys
count, start, end, requests = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
print(json.dumps({'workload': 'service.snapshot_load', 'route': sys.argv[5], 'round': int(sys.argv[6]), 'features': count,
                  'requests': requests, 'seconds': round(end - start, 3), 'features_per_s': round(count / (end - start))}))
" "$count" "$start" "$end" "$requests" "$route" "$round"
    done
done

python3 -c "
import sys
n = int(sys.argv[1])
for i in range(n):
    x = -20 + 0.2 * i
    print(f'{x:.3f},40,{x + 2:.3f},41.5')
" "$extents" > "$work/pan-east.txt"
head -n "$extents" "$data/boxes.txt" > "$work/pan-jumps.txt"
for path in pan-east pan-jumps; do
    start=$(now)
    "$geosieve" pan "$layer" --extents "$work/$path.txt" --mode on-demand --buffer-factor 2 > "$work/pan.txt"
    end=$(now)
    python3 -c "
import json, sys
steps = [json.loads(line) for line in open(sys.argv[1])]
frames = [s for s in steps if s['step'] == 'extent']
print(json.dumps({'workload': 'service.on_demand_pan', 'path': sys.argv[4], 'extents': len(frames),
                  'fetches': sum(s['fetched'] for s in frames), 'requests': sum(s['requests'] for s in steps),
                  'max_cached': max(s['cached'] for s in steps), 'max_local_ms': max(s['local_ms'] for s in frames),
                  'seconds': round(float(sys.argv[3]) - float(sys.argv[2]), 3)}))
" "$work/pan.txt" "$start" "$end" "$path"
done

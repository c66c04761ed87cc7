#!/usr/bin/env bash
# PostGIS behind GeoSieve, in one run on a throwaway PostgreSQL + PostGIS server
# (Scripts/postgis-server.sh, loopback, fsync off as in the tests): the export into PostGIS
# against ogr2ogr, small ArcGIS queries served from a large PostGIS table against the same SQL
# run by pgbench, and grouped statistics against psql. Not run by CI (about 6 minutes once
# geosieve is built and the data made).
#
#   Benchmarks/run_postgis.sh [--points 1000000] [--big 10000000] [--rounds 3] [--duration 10]
#                             [--connections 8] [--box-deg 0.5] [--geosieve BIN] [--keep-work DIR]
#                             [--no-pygeoapi] [--pygeoapi-workers 2]
#
# 1. builds geosieve in release mode (not with --geosieve BIN);
# 2. postgis.export.*: DATA/points.gpkg (Benchmarks/serve_data.py, --points seeded points of
#    three fields; DATA is .build/serve-data, shared with run_serve.sh) written into PostGIS
#    --rounds times by `geosieve convert … --output postgresql://…` (COPY, then the GiST index)
#    and by `ogr2ogr -f PostgreSQL` (its COPY, its GiST index), alternately; features/s, each
#    table's row count checked;
# 3. postgis.serve.*: a table of --big seeded random points (made by generate_series in the
#    database: id, category, label, value, geometry; GiST index, ANALYZE) served by
#    `geosieve serve postgresql://…?table=big --pg-connections C`; wrk sends --duration seconds
#    of ArcGIS queries (a --box-deg box, outFields=*, f=json; 10,000 seeded boxes cycled by
#    Benchmarks/serve_paths.lua) over C connections; then pgbench runs the statement GeoSieve
#    sends for such a box (from the server's statement log) with a random box, C clients, for
#    the same time: the database's own ceiling;
#    postgis.ogc.*: the same boxes as OGC API items requests (bbox, limit 2000, f=json) through
#    the same server and through pygeoapi's PostgreSQL provider on the same table (gunicorn,
#    --pygeoapi-workers sync workers; pygeoapi, gunicorn, psycopg2-binary, SQLAlchemy,
#    GeoAlchemy2 and pygeofilter from PyPI into POSTGIS_VENV, default .build/postgis-venv;
#    skipped with --no-pygeoapi), alternately --rounds times, each answer's feature count
#    checked equal for the first boxes;
# 4. postgis.stats.*: `outStatistics` count and avg of value grouped by category over the big
#    table through the server (GeoSieve aggregates the rows it reads: a double's average), and
#    postgis.stats_exact.*: count, min, max and sum of id grouped by category (grouped by
#    PostgreSQL), each against the same SQL by psql (`\timing`), --rounds each.
# Prints every JSON line, then a table against the issue's targets (export >= 300,000
# features/s; serve p50 <= 2 ms and p99 <= 10 ms at 8 connections; statistics within 1.5x of
# psql). Needs wrk, ogr2ogr, curl, PostgreSQL with PostGIS.
set -euo pipefail
cd "$(dirname "$0")/.."

points=1000000
big=10000000
rounds=3
duration=10
connections=8
box_deg=0.5
geosieve=""
keep_work=""
pygeoapi=1
py_workers=2
while [[ $# -gt 0 ]]; do
    case "$1" in
    --points) points=$2; shift 2 ;;
    --big) big=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    --box-deg) box_deg=$2; shift 2 ;;
    --geosieve) geosieve=$2; shift 2 ;;
    --keep-work) keep_work=$2; shift 2 ;;
    --no-pygeoapi) pygeoapi=0; shift ;;
    --pygeoapi-workers) py_workers=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
for tool in wrk ogr2ogr curl python3; do
    command -v "$tool" > /dev/null || { echo "run_postgis.sh needs $tool" >&2; exit 2; }
done

if [[ -z "$geosieve" ]]; then
    swift build -c release --product geosieve > /dev/null
    geosieve=.build/release/geosieve
fi
work=${keep_work:-$(mktemp -d /tmp/geosieve-postgis-bench.XXXXXX)}
mkdir -p "$work"
results="$work/results.jsonl"
: > "$results"
server_pid=""
py_pid=""
cleanup() {
    [[ -n "$server_pid" ]] && kill "$server_pid" 2> /dev/null || true
    [[ -n "$py_pid" ]] && kill "$py_pid" 2> /dev/null || true
    [[ -n "${GEOSIEVE_POSTGIS_DIR:-}" ]] && Scripts/postgis-server.sh stop "$GEOSIEVE_POSTGIS_DIR"
    if [[ -z "$keep_work" ]]; then rm -rf "$work"; fi
}
trap cleanup EXIT
eval "$(Scripts/postgis-server.sh start)"
url=$GEOSIEVE_POSTGIS_URL
bin=$(dirname "$(ls /usr/lib/postgresql/*/bin/psql | head -1)")
port=${url##*:}
port=${port%%/*}
psql_run() { "$bin/psql" -h 127.0.0.1 -p "$port" -U geosieve -d geosieve -X -q -t -A "$@"; }
emit() { echo "$1" | tee -a "$results"; }
now() { python3 -c 'import time; print(time.monotonic())'; }

# 2. The export.
data=.build/serve-data
if [[ ! -f "$data/points.gpkg" ]] || [[ "$(cat "$data/points.args" 2> /dev/null)" != "$points 42 1.5" ]]; then
    python3 Benchmarks/serve_data.py "$data" --points "$points" --seed 42 --box-deg 1.5 > /dev/null
    echo "$points 42 1.5" > "$data/points.args"
fi
for round in $(seq "$rounds"); do
    start=$(now)
    "$geosieve" convert "$data/points.gpkg" --output "$url?table=g_export" 2> /dev/null
    seconds=$(python3 -c "print($(now) - $start)")
    rows=$(psql_run -c "SELECT count(*) FROM g_export")
    emit "{\"workload\":\"postgis.export.geosieve\",\"round\":$round,\"seconds\":$seconds,\"rows\":$rows,\"features_per_s\":$(python3 -c "print(round($rows / $seconds))")}"
    start=$(now)
    ogr2ogr -f PostgreSQL "PG:host=127.0.0.1 port=$port user=geosieve dbname=geosieve" "$data/points.gpkg" points \
        -nln o_export -overwrite -lco SPATIAL_INDEX=GIST -lco GEOMETRY_NAME=geom > /dev/null 2>&1
    seconds=$(python3 -c "print($(now) - $start)")
    rows=$(psql_run -c "SELECT count(*) FROM o_export")
    emit "{\"workload\":\"postgis.export.ogr2ogr\",\"round\":$round,\"seconds\":$seconds,\"rows\":$rows,\"features_per_s\":$(python3 -c "print(round($rows / $seconds))")}"
done

# 3. The big table, served.
psql_run > /dev/null <<SQL
SELECT setseed(0.42);
CREATE TABLE big AS
SELECT i::bigint AS id, (i % 50)::int AS category, 'label ' || (i % 997) AS label, random() * 1000 AS value,
       ST_SetSRID(ST_MakePoint(random() * 360 - 180, random() * 170 - 85), 4326)::geometry(Point, 4326) AS geom
FROM generate_series(1, $big) AS i;
ALTER TABLE big ADD PRIMARY KEY (id);
CREATE INDEX ON big USING GIST (geom);
ANALYZE big;
SQL
python3 - "$work/boxes.txt" "$box_deg" <<'PY'
import random, sys
rng = random.Random(7)
half = float(sys.argv[2]) / 2
with open(sys.argv[1], "w") as out:
    for _ in range(10000):
        x, y = rng.uniform(-180 + half, 180 - half), rng.uniform(-85 + half, 85 - half)
        out.write(f"{x - half:.6f},{y - half:.6f},{x + half:.6f},{y + half:.6f}\n")
PY
python3 - "$work/boxes.txt" "$work/paths.txt" <<'PY'
import sys, urllib.parse
with open(sys.argv[1]) as boxes, open(sys.argv[2], "w") as out:
    for line in boxes:
        x0, y0, x1, y1 = line.strip().split(",")
        geometry = urllib.parse.quote(f'{{"xmin":{x0},"ymin":{y0},"xmax":{x1},"ymax":{y1}}}')
        out.write(f"/arcgis/rest/services/big/FeatureServer/0/query?where=1%3D1&geometry={geometry}"
                  f"&geometryType=esriGeometryEnvelope&inSR=4326&outFields=*&f=json\n")
PY
"$geosieve" serve "$url?table=big" --port 0 --pg-connections "$connections" --log-level warning > "$work/serve.out" 2> "$work/serve.err" &
server_pid=$!
for _ in $(seq 600); do grep -q '^serving ' "$work/serve.out" 2> /dev/null && break; sleep 0.1; done
base=$(sed -n 's/^serving //p' "$work/serve.out")
[[ -n "$base" ]] || { cat "$work/serve.err"; echo "the server did not start" >&2; exit 1; }
# Warm-up, then the measured run.
wrk -t2 -c"$connections" -d3s -s Benchmarks/serve_paths.lua "$base" -- "$work/paths.txt" > /dev/null
line=$(wrk -t2 -c"$connections" -d"${duration}s" -s Benchmarks/serve_paths.lua "$base" -- "$work/paths.txt" | sed -n 's/^WRK_JSON //p')
emit "{\"workload\":\"postgis.serve.arcgis_query\",\"connections\":$connections,\"rows\":$big,\"box_deg\":$box_deg,\"wrk\":$line}"
features=$(curl -s "$base$(head -1 "$work/paths.txt")" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["features"]))')
emit "{\"workload\":\"postgis.serve.features_per_answer\",\"first_box\":$features}"

# The statement GeoSieve sends for a box, run by pgbench with its own random box: the same SQL
# text with the bound parameters as pgbench variables.
cat > "$work/pgbench.sql" <<SQL
\set x random(-1799999, 1799999)
\set y random(-849999, 849999)
SELECT (id)::int8, (category)::int8, (label)::text, (value)::float8, ST_AsBinary(geom) FROM public.big
WHERE ((geom && ST_MakeEnvelope(:x / 10000.0 - $box_deg / 2, :y / 10000.0 - $box_deg / 2, :x / 10000.0 + $box_deg / 2, :y / 10000.0 + $box_deg / 2, 4326))
  AND ST_Intersects(geom, ST_MakeEnvelope(:x / 10000.0 - $box_deg / 2, :y / 10000.0 - $box_deg / 2, :x / 10000.0 + $box_deg / 2, :y / 10000.0 + $box_deg / 2, 4326)))
ORDER BY id ASC LIMIT 2001;
SQL
"$bin/pgbench" -h 127.0.0.1 -p "$port" -U geosieve -n -c "$connections" -j 2 -T "$duration" -f "$work/pgbench.sql" geosieve > "$work/pgbench.log" 2>&1
tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$work/pgbench.log" | head -1)
latency=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' "$work/pgbench.log" | head -1)
emit "{\"workload\":\"postgis.serve.pgbench\",\"connections\":$connections,\"tps\":${tps:-0},\"latency_avg_ms\":${latency:-0}}"

# The same boxes as OGC API items, through GeoSieve and through pygeoapi's PostgreSQL provider.
if [[ $pygeoapi == 1 ]]; then
    venv="${POSTGIS_VENV:-.build/postgis-venv}"
    if ! "$venv/bin/python" -c "import pygeoapi, gunicorn, psycopg2, sqlalchemy, geoalchemy2, pygeofilter" 2> /dev/null; then
        echo "== setting up $venv (pip install pygeoapi gunicorn psycopg2-binary sqlalchemy geoalchemy2 pygeofilter)" >&2
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check pygeoapi==0.21.0 gunicorn psycopg2-binary sqlalchemy geoalchemy2 pygeofilter >&2
    fi
    py_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    cat > "$work/pygeoapi.yml" <<YML
server:
  bind: {host: 127.0.0.1, port: $py_port}
  url: http://127.0.0.1:$py_port
  mimetype: application/json; charset=UTF-8
  encoding: utf-8
  gzip: false
  languages: [en-US]
  pretty_print: false
  limits: {default_items: 10, max_items: 10000}
  map: {url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', attribution: OpenStreetMap}
logging: {level: ERROR}
metadata:
  identification: {title: GeoSieve PostGIS benchmark peer, description: seeded points, keywords: [benchmark], keywords_type: theme, terms_of_service: https://creativecommons.org/licenses/by/4.0/, url: https://example.org}
  license: {name: CC-BY 4.0, url: https://creativecommons.org/licenses/by/4.0/}
  provider: {name: GeoSieve, url: https://example.org}
  contact: {name: GeoSieve, position: none, address: none, city: none, stateorprovince: none, postalcode: none, country: none, phone: none, fax: none, email: none, url: https://example.org, hours: none, instructions: none, role: pointOfContact}
resources:
  big:
    type: collection
    title: big
    description: seeded points
    keywords: [benchmark]
    extents:
      spatial: {bbox: [-180, -90, 180, 90], crs: http://www.opengis.net/def/crs/OGC/1.3/CRS84}
    providers:
      - type: feature
        name: PostgreSQL
        data: {host: 127.0.0.1, port: $port, dbname: geosieve, user: geosieve, search_path: [public]}
        id_field: id
        table: big
        geom_field: geom
YML
    PYGEOAPI_CONFIG="$work/pygeoapi.yml" "$venv/bin/pygeoapi" openapi generate "$work/pygeoapi.yml" --output-file "$work/openapi.yml" > /dev/null 2>&1
    PYGEOAPI_CONFIG="$work/pygeoapi.yml" PYGEOAPI_OPENAPI="$work/openapi.yml" \
        "$venv/bin/gunicorn" --workers "$py_workers" --bind "127.0.0.1:$py_port" --log-level warning pygeoapi.flask_app:APP \
        > "$work/gunicorn.log" 2>&1 &
    py_pid=$!
    for _ in $(seq 300); do curl -sf -o /dev/null "http://127.0.0.1:$py_port/collections/big" && break; sleep 0.1; done
    py_version=$("$venv/bin/python" -c 'import pygeoapi; print(pygeoapi.__version__)')
    python3 - "$work/boxes.txt" "$work/ogc_geosieve.txt" "$work/ogc_pygeoapi.txt" <<'PY'
import sys
with open(sys.argv[1]) as boxes, open(sys.argv[2], "w") as ours, open(sys.argv[3], "w") as theirs:
    for line in boxes:
        box = line.strip()
        ours.write(f"/ogc/collections/big/items?bbox={box}&limit=2000&f=json\n")
        theirs.write(f"/collections/big/items?bbox={box}&limit=2000&f=json\n")
PY
    # The first boxes: the same features from both.
    python3 - "$base" "http://127.0.0.1:$py_port" "$work/ogc_geosieve.txt" "$work/ogc_pygeoapi.txt" <<'PY'
import json, sys, urllib.request
ours, theirs = open(sys.argv[3]).read().split("\n")[:20], open(sys.argv[4]).read().split("\n")[:20]
for a, b in zip(ours, theirs):
    x = sorted(f["id"] for f in json.load(urllib.request.urlopen(sys.argv[1] + a))["features"])
    y = sorted(f["id"] for f in json.load(urllib.request.urlopen(sys.argv[2] + b))["features"])
    if x != y:
        sys.exit(f"GeoSieve and pygeoapi answer {a} differently: {len(x)} and {len(y)} features")
PY
    for round in $(seq "$rounds"); do
        for engine in geosieve pygeoapi; do
            target=$base
            [[ $engine == pygeoapi ]] && target="http://127.0.0.1:$py_port"
            wrk -t2 -c"$connections" -d2s -s Benchmarks/serve_paths.lua "$target" -- "$work/ogc_$engine.txt" > /dev/null
            line=$(wrk -t2 -c"$connections" -d"${duration}s" -s Benchmarks/serve_paths.lua "$target" -- "$work/ogc_$engine.txt" | sed -n 's/^WRK_JSON //p')
            emit "{\"workload\":\"postgis.ogc.$engine\",\"round\":$round,\"connections\":$connections,\"pygeoapi\":\"$py_version\",\"workers\":$py_workers,\"wrk\":$line}"
        done
    done
    kill "$py_pid" 2> /dev/null || true
    py_pid=""
fi

# 4. Grouped statistics: a double's average (computed by GeoSieve over the rows it reads, for its
# compensated sum) and aggregates PostgreSQL computes exactly as GeoSieve does (grouped there).
stat() { printf '{"statisticType":"%s","onStatisticField":"%s","outStatisticFieldName":"%s"}' "$1" "$2" "$3"; }
encode() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$1"; }
average=$(encode "[$(stat count id n),$(stat avg value mean)]")
exact=$(encode "[$(stat count id n),$(stat min id lo),$(stat max id hi),$(stat sum id total)]")
for round in $(seq "$rounds"); do
    for kind in average exact; do
        if [[ $kind == average ]]; then
            statistics=$average
            sql='SELECT category, count(id), avg(value) FROM big GROUP BY category ORDER BY category'
            name=stats
        else
            statistics=$exact
            sql='SELECT category, count(id), min(id), max(id), sum(id) FROM big GROUP BY category ORDER BY category'
            name=stats_exact
        fi
        start=$(now)
        curl -s -o "$work/stats.json" "$base/arcgis/rest/services/big/FeatureServer/0/query?where=1%3D1&outStatistics=$statistics&groupByFieldsForStatistics=category&f=json"
        seconds=$(python3 -c "print($(now) - $start)")
        groups=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["features"]))' "$work/stats.json")
        emit "{\"workload\":\"postgis.$name.geosieve\",\"round\":$round,\"seconds\":$seconds,\"groups\":$groups}"
        ms=$(psql_run -c '\timing on' -c "$sql" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
        emit "{\"workload\":\"postgis.$name.psql\",\"round\":$round,\"seconds\":$(python3 -c "print($ms / 1000)")}"
    done
done

python3 - "$results" <<'PY'
import json, statistics, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
def median(name, key):
    values = [l[key] for l in lines if l["workload"] == name]
    return statistics.median(values) if values else float("nan")
export = median("postgis.export.geosieve", "features_per_s")
ogr = median("postgis.export.ogr2ogr", "features_per_s")
serve = next(l for l in lines if l["workload"] == "postgis.serve.arcgis_query")
pgbench = next(l for l in lines if l["workload"] == "postgis.serve.pgbench")
stats = median("postgis.stats.geosieve", "seconds")
psql = median("postgis.stats.psql", "seconds")
wrk = serve["wrk"]
print()
print("| measure | GeoSieve | peer | target | met |")
print("|---|---|---|---|---|")
print(f"| export features/s (median) | {export:,.0f} | ogr2ogr {ogr:,.0f} | >= 300,000 | {'yes' if export >= 300000 else 'no'} |")
print(f"| serve p50 / p99 ms, {serve['connections']} connections | {wrk['p50_us']/1000:.2f} / {wrk['p99_us']/1000:.2f} | | <= 2 / <= 10 | {'yes' if wrk['p50_us'] <= 2000 and wrk['p99_us'] <= 10000 else 'no'} |")
print(f"| serve requests/s | {wrk['rps']:,.0f} | pgbench {pgbench['tps']:,.0f} | | |")
print(f"| grouped statistics s (median), count + double average | {stats:.3f} | psql {psql:.3f} | <= 1.5x | {'yes' if stats <= 1.5 * psql else 'no'} ({stats / psql:.1f}x) |")
ogc = [l["wrk"]["rps"] for l in lines if l["workload"] == "postgis.ogc.geosieve"]
py = [l["wrk"]["rps"] for l in lines if l["workload"] == "postgis.ogc.pygeoapi"]
if ogc and py:
    print(f"| OGC items requests/s (median), {serve['connections']} connections | {statistics.median(ogc):,.0f} | pygeoapi PostgreSQL provider {statistics.median(py):,.0f} | | ({statistics.median(ogc) / statistics.median(py):.1f}x) |")
exact = median("postgis.stats_exact.geosieve", "seconds")
exact_psql = median("postgis.stats_exact.psql", "seconds")
print(f"| grouped statistics s (median), count/min/max/sum of an integer | {exact:.3f} | psql {exact_psql:.3f} | <= 1.5x | {'yes' if exact <= 1.5 * exact_psql else 'no'} ({exact / exact_psql:.2f}x) |")
PY

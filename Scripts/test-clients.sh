#!/usr/bin/env bash
# Real-client interoperability test of `geosieve serve`: GDAL (ogr2ogr's ESRIJSON and OAPIF
# drivers), esridump and OWSLib read the fixtures through the server and Tests/Clients/clients_test.py
# compares what they read with the fixture files.
#
# Usage: Scripts/test-clients.sh PATH_TO_GEOSIEVE
#        Scripts/test-clients.sh --install      (installs the Python clients only; CI runs it
#                                                during a build)
#
# Installs what is missing (esridump 1.13.0, OWSLib 0.35.0, shapely, protobuf, mapbox-vector-tile,
# pmtiles and prometheus_client, with pip); GDAL's
# ogr2ogr and ogrinfo and protoc must be installed (Debian: gdal-bin, protobuf-compiler). Starts
# the server on a free loopback port, runs the clients and the request fuzzer, then stops it with
# SIGTERM and checks it exits with status 0; decodes the f=pbf answers of a server of every
# geometry type with Google's protobuf runtime (Tests/Clients/pbf_test.py) and its vector tiles
# with mapbox-vector-tile, GDAL and PostGIS (Tests/Clients/tiles_test.py), and the archives of
# `geosieve tiles` (Tests/Clients/tiles_archive_test.py), and /metrics
# (Tests/Clients/metrics_test.py), and a server of a service configuration
# (Tests/Clients/configured_test.py); curl fetches answers, pages and tiles with --compressed,
# If-None-Match and HEAD; then it fuzzes a server that allows edits, on copies of the fixtures.
set -euo pipefail

. "$(dirname "$0")/serve-lib.sh"
install_only=
if [ "${1:-}" = "--install" ] && [ $# -eq 1 ]; then install_only=1; else geosieve_argument "$@"; fi
cd "$(dirname "$0")/.."
started_at=$SECONDS

work=$(mktemp -d "${TMPDIR:-/tmp}/geosieve-clients.XXXXXX")
server_pid=
server_name=
cleanup() {
    status=$?
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2> /dev/null; then
        kill -KILL "$server_pid" 2> /dev/null || true
        wait "$server_pid" 2> /dev/null || true
    fi
    if [ "$status" -ne 0 ] && [ -n "$server_name" ] && [ -f "$work/$server_name.log" ]; then
        echo "--- the $server_name server's standard error (last 40 lines) ---" >&2
        tail -n 40 "$work/$server_name.log" >&2 || true
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT

# --- What the clients need --------------------------------------------------------------------

for tool in ogr2ogr ogrinfo python3 protoc curl; do
    if ! command -v "$tool" > /dev/null; then
        echo "error: $tool not found (install gdal-bin, python3, protobuf-compiler and curl)" >&2
        exit 1
    fi
done

# The Python requirements that are not installed (at the pinned version where there is one).
pip_install_missing "$work" esridump==1.13.0 OWSLib==0.35.0 shapely protobuf==6.33.6 mapbox-vector-tile==2.2.0 pmtiles==3.8.1 prometheus_client==0.26.0
if [ -n "$install_only" ]; then exit 0; fi
echo "$(ogrinfo --version); $(python3 --version); $(python3 -c 'from importlib import metadata as m; print(", ".join(f"{n} {m.version(n)}" for n in ("esridump", "OWSLib", "shapely", "protobuf", "mapbox-vector-tile", "pmtiles", "prometheus_client")))')"

# --- The servers ------------------------------------------------------------------------------

# start_server NAME ARGS...: starts `geosieve serve ARGS --port 0` with its output in
# $work/NAME.out and its log in $work/NAME.log; sets server_pid and base (http://127.0.0.1:PORT).
# Queries time out after 5 s, so that a hostile but legitimate query (100,000 points tested
# against every country) is answered 503 well inside the fuzzer's 10 s.
start_server() {
    local name=$1
    shift
    local started=$SECONDS
    server_name=$name
    "$geosieve" serve "$@" --port 0 --query-timeout 5 --log-level info > "$work/$name.out" 2> "$work/$name.log" &
    server_pid=$!
    wait_for_serving "$work/$name.out" "$server_pid" "$name"
    echo "server ($name): $base (started in $((SECONDS - started)) s)"
}

# stop_server: SIGTERM, then exit status 0 within 30 s and exactly one line on standard output.
stop_server() {
    stop_serving "$server_pid" "$server_name"
    server_pid=
    local lines
    lines=$(wc -l < "$work/$server_name.out")
    if [ "$lines" -ne 1 ]; then
        echo "error: the $server_name server printed $lines lines on standard output, expected exactly one:" >&2
        cat "$work/$server_name.out" >&2
        exit 1
    fi
    echo "summary: $server_name server: exited with status 0 on SIGTERM, one line on standard output"
}

start_server read-only \
    Tests/Fixtures/naturalearth_cities.geojson:cities \
    Tests/Fixtures/naturalearth_lowres.geojson:countries \
    Tests/Fixtures/nybb.geojson:boroughs \
    --max-record-count 100

# --- The clients ------------------------------------------------------------------------------

python3 Tests/Clients/clients_test.py "$base" "$work/read-only.log" "$work/clients" | tee "$work/clients.out"

# One summary line per client.
for client in "GDAL ESRIJSON" "GDAL OAPIF" "esridump" "OWSLib"; do
    count=$(grep -c "^PASS \[$client\]" "$work/clients.out" || true)
    echo "summary: $client: $count checks passed"
done

# --- curl: compression, entity tags and HEAD, as a browser's cache and a shell user meet them ---

# curl_check OK WHAT: prints PASS or FAIL for WHAT; a failure ends the script at the summary.
curl_failures=0
curl_check() {
    if [ "$1" = 0 ]; then echo "PASS [curl] $2"; else echo "FAIL [curl] $2"; curl_failures=$((curl_failures + 1)); fi
}
# header FILE NAME: the value of header NAME in the headers curl wrote to FILE.
header() {
    tr -d '\r' < "$1" | awk -v name="$(echo "$2" | tr 'A-Z' 'a-z')" -F': ' 'tolower($1) == name { print $2 }' | tail -n 1
}
for url in \
    "$base/arcgis/rest/services/countries/FeatureServer/0/query?where=1%3D1&outFields=*&f=json" \
    "$base/ogc/collections/countries/items?limit=50" \
    "$base/ogc/collections/countries/tiles/WebMercatorQuad/0/0/0"; do
    what=${url#"$base"}
    curl -sS --fail -D "$work/plain.headers" -o "$work/plain.body" "$url"
    # --compressed: gzip on the wire, and curl's decompressed body the plain one, byte for byte.
    curl -sS --fail --compressed -D "$work/gzip.headers" -o "$work/gzip.body" "$url"
    curl_check "$([ "$(header "$work/gzip.headers" Content-Encoding)" = gzip ] && echo 0 || echo 1)" "$what: gzip with --compressed"
    # (An OGC page says when it was written, its timeStamp: the one difference allowed.)
    same=$(cmp -s <(sed -E 's/"timeStamp":"[^"]*"//' "$work/plain.body") <(sed -E 's/"timeStamp":"[^"]*"//' "$work/gzip.body") && echo 0 || echo 1)
    curl_check "$same" "$what: the gzipped body is the plain one ($(wc -c < "$work/plain.body") bytes, $(header "$work/gzip.headers" Content-Length) on the wire)"
    curl_check "$([ -z "$(header "$work/plain.headers" Content-Encoding)" ] && echo 0 || echo 1)" "$what: not compressed when not asked"
    # The entity tag: If-None-Match with it is 304 without a body; another tag is the answer.
    etag=$(header "$work/gzip.headers" ETag)
    status=$(curl -sS --compressed -o "$work/304.body" -w '%{http_code}' -H "If-None-Match: $etag" "$url")
    curl_check "$([ "$status" = 304 ] && [ ! -s "$work/304.body" ] && echo 0 || echo 1)" "$what: If-None-Match $etag gives 304 without a body ($status)"
    status=$(curl -sS -o /dev/null -w '%{http_code}' -H 'If-None-Match: W/"other"' "$url")
    curl_check "$([ "$status" = 200 ] && echo 0 || echo 1)" "$what: another tag gives the answer ($status)"
    curl_check "$([ "$(header "$work/plain.headers" Cache-Control)" = no-cache ] && echo 0 || echo 1)" "$what: Cache-Control no-cache (revalidate with the tag)"
    # HEAD: the GET's status and length, no body.
    status=$(curl -sS -I -o "$work/head.headers" -w '%{http_code} %{size_download}' "$url")
    curl_check "$([ "$status" = "200 0" ] && [ "$(header "$work/head.headers" Content-Length)" = "$(wc -c < "$work/plain.body" | tr -d ' ')" ] && echo 0 || echo 1)" "$what: HEAD has the GET's status and Content-Length, no body"
done
echo "summary: curl: $(( 3 * 7 - curl_failures )) of 21 checks passed"
if [ "$curl_failures" -ne 0 ]; then
    echo "error: $curl_failures curl checks failed" >&2
    exit 1
fi

# --- Hostile requests: never a crash, a hang, a server error or unbounded memory ----------------

python3 Tests/Clients/fuzz_requests.py "$base" "$server_pid" --count "${GEOSIEVE_FUZZ_REQUESTS:-3000}" --seed 1
stop_server

# A server started from a service configuration (two services, three layers): GDAL's ESRIJSON and
# OAPIF drivers and esridump see only the features inside each layer's definition expression and
# never its hidden field (Tests/Clients/configured_test.py).
mkdir "$work/configured"
fixtures=$(pwd)/Tests/Fixtures
cat > "$work/configured/services.yaml" << EOF
services:
  world:
    description: Natural Earth countries and cities
    maxRecordCount: 50
    layers:
      - source: $fixtures/naturalearth_lowres.geojson
        name: Countries
        collection: countries
        definitionExpression: pop_est > 10000000
        hiddenFields: [gdp_md_est]
      - source: $fixtures/naturalearth_cities.geojson
        name: Cities
        collection: cities
  nyc:
    layers:
      - source: $fixtures/nybb.geojson
        name: Boroughs
        definitionExpression: BoroCode <> 5
EOF
start_server configured --config "$work/configured/services.yaml"
python3 Tests/Clients/configured_test.py "$base" "$work/configured/out" | tee "$work/configured-check.out"
echo "summary: configured services: $(grep -c '^PASS \[configured\]' "$work/configured-check.out" || true) checks passed"
stop_server

# f=pbf, decoded by Google's protobuf runtime from Esri's FeatureCollection messages compiled by
# protoc, against f=json: features, quantized cells, counts, IDs, statistics, and
# maxAllowableOffset against GEOS. A layer of lines and one of multipoints, made from the
# fixtures, join the three so that every geometry type is served …
python3 Tests/Clients/pbf_test.py --make-lines "$work/lines.geojson"
# … and a layer shaped like a real one: 25 fields, mostly texts and many NULL, a 64-bit ID, dates.
python3 Benchmarks/serve_wide_data.py "$work/wide" --rows 2000 --boxes 10 > /dev/null
start_server pbf \
    Tests/Fixtures/naturalearth_cities.geojson:cities \
    Tests/Fixtures/naturalearth_lowres.geojson:countries \
    Tests/Fixtures/nybb.geojson:boroughs \
    "$work/lines.geojson:lines" \
    "$work/lines-points.geojson:multipoints" \
    "$work/wide/wide.gpkg:wide" \
    --max-record-count 100 --metrics --time-field created
python3 Tests/Clients/pbf_test.py "$base" "$work/pbf" | tee "$work/pbf-check.out"
echo "summary: PBF: $(grep -c '^PASS \[pbf\]' "$work/pbf-check.out" || true) checks passed"
# Vector tiles (OGC API - Tiles) read by mapbox-vector-tile and GDAL's MVT driver, checked against
# the fixtures with shapely, and (when GEOSIEVE_POSTGIS_URL names a server) against PostGIS's
# ST_AsMVTGeom on the same tiles.
python3 Tests/Clients/tiles_test.py "$base" "$work/tiles" | tee "$work/tiles-check.out"
echo "summary: tiles: $(grep -c '^PASS \[tiles\]' "$work/tiles-check.out" || true) checks passed"
# `geosieve tiles` archives (PMTiles read by the PyPI reader, MBTiles by SQLite and GDAL, a folder)
# hold exactly the server's non-empty tiles, byte for byte.
python3 Tests/Clients/tiles_archive_test.py "$base" "$geosieve" "$work/tiles-archive" | tee "$work/tiles-archive-check.out"
echo "summary: tile archives: $(grep -c '^PASS \[tiles-archive\]' "$work/tiles-archive-check.out" || true) checks passed"
# The realistic layer against what GDAL reads from its file: distances (against Vincenty's
# formula), time (the server runs with --time-field created) and its fields.
python3 Tests/Clients/wide_layer_test.py "$base" "$work/wide/wide.gpkg" | tee "$work/wide-check.out"
echo "summary: wide layer: $(grep -c '^PASS \[wide\]' "$work/wide-check.out" || true) checks passed"
# /metrics (the server runs with --metrics) read by Prometheus's Python client parser, its counts
# against the requests sent.
python3 Tests/Clients/metrics_test.py "$base" | tee "$work/metrics-check.out"
echo "summary: metrics: $(grep -c '^PASS \[metrics\]' "$work/metrics-check.out" || true) checks passed"
stop_server

# The same against a server that allows edits, on copies of the fixtures: hostile edits (100,000-
# vertex polygons, bad geometries, malformed batches) are refused quickly or applied and saved,
# and every file still reads afterwards.
mkdir "$work/edited"
cp Tests/Fixtures/naturalearth_cities.geojson Tests/Fixtures/naturalearth_lowres.geojson Tests/Fixtures/nybb.geojson "$work/edited/"
start_server editing \
    "$work/edited/naturalearth_cities.geojson:cities" \
    "$work/edited/naturalearth_lowres.geojson:countries" \
    "$work/edited/nybb.geojson:boroughs" \
    --max-record-count 100 --allow-edits
python3 Tests/Clients/fuzz_requests.py "$base" "$server_pid" --count "${GEOSIEVE_FUZZ_REQUESTS:-3000}" --seed 2
stop_server
for file in "$work"/edited/*.geojson; do
    if ! count=$("$geosieve" query "$file" --return count); then
        echo "error: $(basename "$file") no longer reads after the edits" >&2
        exit 1
    fi
    echo "summary: $(basename "$file") reads after the edits: $count"
done
echo "clients test: passed in $((SECONDS - started_at)) s"

#!/usr/bin/env bash
# QGIS against `geosieve serve`, headless: the ArcGIS feature service with the field types of the
# release the server claims (11.1 and 11.2), OGC API - Features, and the vector tiles rendered to
# an image, and a layer of a service configuration (Tests/Clients/qgis_test.py says what is
# checked). GDAL's ESRIJSON driver joins the
# field-type check.
#
#   Scripts/test-qgis.sh PATH_TO_GEOSIEVE
#
# Needs Debian's python3-qgis (QGIS 3.22; `apt-get install python3-qgis`, about 600 MB, which is
# why CI does not run it) and gdal-bin. Exits 2 with a notice when QGIS is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
. Scripts/serve-lib.sh
geosieve_argument "$@"

if ! /usr/bin/python3 -c "import qgis.core" > /dev/null 2>&1; then
    echo "QGIS's Python bindings are missing: apt-get install python3-qgis" >&2
    exit 2
fi

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

python3 Benchmarks/serve_wide_data.py "$work/wide" --rows 2000 --boxes 10 > /dev/null
# start NAME ARGS...: a server of the wide layer and the countries; sets base_NAME.
start() {
    local name=$1
    shift
    "$geosieve" serve "$work/wide/wide.gpkg:wide" Tests/Fixtures/naturalearth_lowres.geojson:countries \
        --port 0 --log-level warning "$@" > "$work/$name.out" 2> "$work/$name.log" &
    pids+=($!)
    wait_for_serving "$work/$name.out" "$!" "$name"
    printf -v "base_$name" '%s' "$base"
}
start v11_1
start v11_2 --arcgis-version 11.2
# A configured service layer: a definition, a scale range, a renderer and transparency.
cat > "$work/services.yaml" << EOF
services:
  world:
    layers:
      - source: $(pwd)/Tests/Fixtures/naturalearth_lowres.geojson
        name: Countries
        definitionExpression: pop_est > 10000000
        minScale: 150000000
        maxScale: 1000
        drawingInfo: {renderer: {type: simple, symbol: {type: esriSFS, style: esriSFSSolid, color: [200, 120, 40, 255]}}, transparency: 30}
EOF
"$geosieve" serve --config "$work/services.yaml" --port 0 --log-level warning > "$work/configured.out" 2> "$work/configured.log" &
pids+=($!)
wait_for_serving "$work/configured.out" "$!" configured
base_configured=$base

status=0
/usr/bin/python3 Tests/Clients/qgis_test.py "$base_v11_1" "$base_v11_2" "$work/out" "$base_configured" || status=$?
if [[ -n "${GEOSIEVE_QGIS_SCREENSHOT:-}" && -f "$work/out/qgis-tiles.png" ]]; then
    cp "$work/out/qgis-tiles.png" "$GEOSIEVE_QGIS_SCREENSHOT"
fi
for pid in "${pids[@]}"; do stop_serving "$pid" server; done
pids=()
exit $status

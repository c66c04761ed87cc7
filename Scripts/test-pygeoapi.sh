#!/usr/bin/env bash
# Service tables against a third-party OGC API - Features server: pygeoapi (PyPI) serves the
# countries fixture with its GeoJSON provider on a free loopback port, and `geosieve` reads it as
# a SOURCE (`OAPIF:URL#countries`) and replays map extents over it (`geosieve pan`).
#
# Usage: Scripts/test-pygeoapi.sh PATH_TO_GEOSIEVE
#        Scripts/test-pygeoapi.sh --install     (installs pygeoapi only; CI runs it during a build)
#
# pygeoapi is installed from PyPI into a virtual environment (.build/pygeoapi-venv, reused when
# it already holds pygeoapi 0.21.0). Checks, each against the fixture read from the file:
#   * the whole collection, paged through pygeoapi's next links (50 features a page, its
#     max_items), equals the file: every feature, attribute and geometry (CSV with WKT);
#   * the requests: the conformance and collection documents, then one per page; for each pan
#     below, the items requests pygeoapi logged equal those geosieve counted;
#   * `geosieve pan --mode on-demand --where …`: pygeoapi declares no CQL2 filtering, so the
#     definition expression is applied to what comes back; one request per fetch, none while
#     the view stays inside the buffered extent, and the cache holds exactly the features of
#     the buffered extent that pass the expression;
#   * `--mode selection` and `--mode manual-cache`: no request at load or while panning; a
#     selection caches exactly what it selects, a fill (`populate`, `populate-clear`) at most
#     --max-features of what passes its filter.
set -euo pipefail

. "$(dirname "$0")/serve-lib.sh"
install_only=
if [ "${1:-}" = "--install" ] && [ $# -eq 1 ]; then install_only=1; else geosieve_argument "$@"; fi
cd "$(dirname "$0")/.."
root=$PWD
venv="$root/.build/pygeoapi-venv"
venv_install "$venv" pygeoapi 0.21.0
if [ -n "$install_only" ]; then exit 0; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/geosieve-pygeoapi.XXXXXX")
server_pid=
cleanup() {
    status=$?
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2> /dev/null || true
        wait "$server_pid" 2> /dev/null || true
    fi
    if [ "$status" -ne 0 ] && [ -f "$work/pygeoapi.log" ]; then
        echo "--- pygeoapi's log (last 20 lines) ---" >&2
        tail -n 20 "$work/pygeoapi.log" >&2 || true
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
fixture="$root/Tests/Fixtures/naturalearth_lowres.geojson"
cat > "$work/pygeoapi.yml" << YAML
server:
  bind:
    host: 127.0.0.1
    port: $port
  url: $base
  mimetype: application/json; charset=UTF-8
  encoding: utf-8
  languages:
    - en-US
  limits:
    default_items: 10
    max_items: 50
  map:
    url: "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    attribution: OpenStreetMap
logging:
  level: ERROR
metadata:
  identification:
    title: GeoSieve service-table test peer
    description: Natural Earth countries
    keywords:
      - countries
    keywords_type: theme
    terms_of_service: https://creativecommons.org/licenses/by/4.0/
    url: $base
  license:
    name: CC-BY 4.0
    url: https://creativecommons.org/licenses/by/4.0/
  provider:
    name: GeoSieve tests
    url: $base
  contact:
    name: GeoSieve tests
resources:
  countries:
    type: collection
    title: countries
    description: Natural Earth countries (1:110m)
    keywords:
      - countries
    links: []
    extents:
      spatial:
        bbox: [-180, -90, 180, 90]
        crs: http://www.opengis.net/def/crs/OGC/1.3/CRS84
    providers:
      - type: feature
        name: GeoJSON
        data: $fixture
        id_field: fid
YAML
PYGEOAPI_CONFIG="$work/pygeoapi.yml" "$venv/bin/pygeoapi" openapi generate "$work/pygeoapi.yml" --output-file "$work/openapi.yml" \
    > "$work/pygeoapi.log" 2>&1
PYGEOAPI_CONFIG="$work/pygeoapi.yml" PYGEOAPI_OPENAPI="$work/openapi.yml" "$venv/bin/pygeoapi" serve >> "$work/pygeoapi.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 240); do
    if python3 -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1], timeout=2)" "$base/collections/countries?f=json" 2> /dev/null; then
        break
    fi
    kill -0 "$server_pid" 2> /dev/null || { echo "error: pygeoapi exited" >&2; exit 1; }
    sleep 0.25
done
echo "pygeoapi $("$venv/bin/python" -c 'import pygeoapi; print(pygeoapi.__version__)') on $base"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
# The items requests pygeoapi has logged so far (its request log, one line per request): what the
# server saw, compared below with what geosieve says it sent.
served_items() { grep -c '"GET /collections/countries/items' "$work/pygeoapi.log" || true; }
# The sum of the "requests" members of a pan output.
pan_requests() { sed -n 's/.*"requests":\([0-9]*\).*/\1/p' "$1" | awk '{ s += $1 } END { print s + 0 }'; }

# The whole collection, every feature, attribute and geometry.
columns=(--order-by name --out-fields "name,pop_est,continent,iso_a3" --format csv)
"$geosieve" query "OAPIF:$base#countries" "${columns[@]}" --trace-requests > "$work/read.csv" 2> "$work/trace.txt"
"$geosieve" query "$fixture" "${columns[@]}" > "$work/file.csv"
cmp -s "$work/read.csv" "$work/file.csv" || fail "the collection read through pygeoapi differs from the file (diff $work/read.csv $work/file.csv)"
features=$(($(wc -l < "$work/file.csv") - 1))
pages=$(((features + 49) / 50))
# The documents (conformance, collection, and the queryables when the conformance declares them),
# then one request per page.
if python3 -c "import json, sys, urllib.request; sys.exit(not any(c.endswith('/conf/queryables') for c in json.load(urllib.request.urlopen(sys.argv[1]))['conformsTo']))" "$base/conformance?f=json"; then
    documents=3
else
    documents=2
fi
requests=$(grep -c '^request: GET ' "$work/trace.txt")
items=$(grep -c '^request: GET .*/items' "$work/trace.txt")
[ "$items" -eq "$pages" ] && [ "$requests" -eq $((documents + pages)) ] \
    || fail "expected $documents + $pages requests (documents, then pages of 50), saw $requests: $(cat "$work/trace.txt")"
echo "PASS [pygeoapi] $features features, attributes and geometries equal to the file, in $pages pages through next links"

# On-demand over pygeoapi, a definition expression applied to what comes back.
printf '0,40,20,50\n5,42,15,48\n60,20,80,30\n' > "$work/extents.txt"
before=$(served_items)
"$geosieve" pan "OAPIF:$base#countries" --extents "$work/extents.txt" --mode on-demand --where "continent = 'Europe'" > "$work/pan.txt"
[ $(($(served_items) - before)) -eq "$(pan_requests "$work/pan.txt")" ] \
    || fail "pygeoapi logged $(($(served_items) - before)) items requests, geosieve pan counted $(pan_requests "$work/pan.txt")"
steps=$(sed -e 's/.*"requests":\([0-9]*\),.*"fetched":\(true\|false\).*/\1 \2/' -e 's/.*"step":"load","requests":\([0-9]*\).*/\1 load/' "$work/pan.txt" | tr '\n' ';')
[ "$steps" = "0 load;1 true;0 false;1 true;" ] || fail "on-demand requests per step: $steps ($(cat "$work/pan.txt"))"
expected=$("$geosieve" query "$fixture" --geometry -10,35,30,55 --where "continent = 'Europe'" --return count | tr -dc '0-9')
sed -n 2p "$work/pan.txt" | grep -q "\"cached\":$expected}" || fail "after the first extent the cache should hold $expected features: $(sed -n 2p "$work/pan.txt")"
echo "PASS [pygeoapi] on-demand: one request per fetch, none inside the buffered extent, $expected European features cached"

# Selection and manual cache: nothing at load or while panning; each selection or fill reads the
# collection's pages (the filter is applied here) and caches what passes, at most --max-features.
asia=$("$geosieve" query "$fixture" --where "continent = 'Asia'" --return count | tr -dc '0-9')
printf '0,40,20,50\nselect continent = '"'"'Asia'"'"'\n60,20,80,30\n' > "$work/select.txt"
before=$(served_items)
"$geosieve" pan "OAPIF:$base#countries" --extents "$work/select.txt" --mode selection > "$work/selection.txt"
[ $(($(served_items) - before)) -eq "$pages" ] || fail "pygeoapi logged $(($(served_items) - before)) items requests for one selection, not $pages"
[ "$(sed -n 1p "$work/selection.txt")" = '{"step":"load","requests":0,"cached":0}' ] || fail "selection mode fetched at load: $(cat "$work/selection.txt")"
sed -n 2p "$work/selection.txt" | grep -q '"requests":0,"fetched":false,"displayed":0,' || fail "selection mode fetched for an extent: $(cat "$work/selection.txt")"
[ "$(sed -n 3p "$work/selection.txt")" = "{\"step\":\"select\",\"where\":\"continent = 'Asia'\",\"requests\":$pages,\"selected\":$asia,\"cached\":$asia}" ] \
    || fail "selecting the $asia Asian countries: $(sed -n 3p "$work/selection.txt")"
sed -n 4p "$work/selection.txt" | grep -q '"requests":0,"fetched":false,' || fail "selection mode fetched for an extent: $(cat "$work/selection.txt")"
printf '0,40,20,50\npopulate continent = '"'"'Africa'"'"'\npopulate-clear continent = '"'"'Europe'"'"'\n' > "$work/populate.txt"
before=$(served_items)
"$geosieve" pan "OAPIF:$base#countries" --extents "$work/populate.txt" --mode manual-cache --max-features 10 > "$work/manual.txt"
[ $(($(served_items) - before)) -eq $((2 * pages)) ] || fail "pygeoapi logged $(($(served_items) - before)) items requests for two fills, not $((2 * pages))"
[ "$(sed -n 3,4p "$work/manual.txt" | tr '\n' ';')" = "{\"step\":\"populate\",\"where\":\"continent = 'Africa'\",\"clear\":false,\"requests\":$pages,\"fetched\":10,\"cached\":10};{\"step\":\"populate\",\"where\":\"continent = 'Europe'\",\"clear\":true,\"requests\":$pages,\"fetched\":10,\"cached\":10};" ] \
    || fail "manual cache fills: $(cat "$work/manual.txt")"
sed -n 1,2p "$work/manual.txt" | grep -q '"requests":[1-9]' && fail "manual cache sent requests before being asked: $(cat "$work/manual.txt")"
echo "PASS [pygeoapi] selection fetches only what it selects ($asia), manual cache only when populated (10 of each)"
echo "pygeoapi test: passed"

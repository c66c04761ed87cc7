#!/usr/bin/env bash
# The OGC API of `geosieve serve` against its own API definition: schemathesis (PyPI) reads
# /ogc/api, generates requests for every operation it lists (the features, the tiles, the tile
# matrix sets: valid values, values out of range, unexpected methods) and checks each answer.
#
# Usage: Scripts/test-schemathesis.sh PATH_TO_GEOSIEVE
#        Scripts/test-schemathesis.sh --install   (installs schemathesis only; CI runs it during
#                                                  a build)
#
# schemathesis is installed from PyPI into a virtual environment (.build/schemathesis-venv,
# reused when it already holds schemathesis 4.32.5). The server serves the countries, cities
# and boroughs fixtures on a free loopback port. Every check schemathesis has runs but one
# (`--checks all --exclude-checks positive_data_acceptance`): no 5xx; statuses, content types
# and headers as the document declares; requests the document forbids refused with a 4xx; 405
# for methods a route does not take. (positive_data_acceptance expects every string the schema
# allows to be accepted, and no JSON schema describes the CQL2 grammar of `filter`: `filter=0`
# is a string, and a 400.) The run is seeded and its size bounded (--max-examples), so it is
# repeatable. The server must then stop with status 0 on SIGTERM.
set -euo pipefail

. "$(dirname "$0")/serve-lib.sh"
install_only=
if [ "${1:-}" = "--install" ] && [ $# -eq 1 ]; then install_only=1; else geosieve_argument "$@"; fi
cd "$(dirname "$0")/.."
root=$PWD
venv="$root/.build/schemathesis-venv"
venv_install "$venv" schemathesis 4.32.5
if [ -n "$install_only" ]; then exit 0; fi

serve_work geosieve-schemathesis 20
fixtures="$root/Tests/Fixtures"
"$geosieve" serve --port 0 --log-level warning \
    "$fixtures/naturalearth_lowres.geojson:countries" "$fixtures/naturalearth_cities.geojson:cities" \
    "$fixtures/nybb.geojson:boroughs" > "$work/server.out" 2> "$work/server.log" &
server_pid=$!
wait_for_serving "$work/server.out" "$server_pid" schemathesis
echo "schemathesis $("$venv/bin/python" -c 'from importlib import metadata; print(metadata.version("schemathesis"))') against $base/ogc/api"

# schemathesis writes its cache and reports in the working folder: the temporary one.
(cd "$work" && "$venv/bin/schemathesis" run "$base/ogc/api" --checks all --exclude-checks positive_data_acceptance --max-examples 25 --seed 1 --workers 1 \
    --phases examples,coverage,fuzzing --no-color --request-timeout 60 --generation-database none)

stop_serving "$server_pid" schemathesis
server_pid=
echo "schemathesis: every check passed"

#!/usr/bin/env bash
# GeoSieve against its peers on identical seeded input, in one command: a table and a chart.
#
#   Benchmarks/compare.sh [--quick] [--rounds N] [--only WORKLOAD ...] [--out DIR] [--keep-data DIR]
#
#   --quick          one round of every workload at a tenth of the size: a first look (a few minutes)
#   --rounds N       rounds per workload (default 5), after a warm-up
#   --only WORKLOAD  where, spatial, load, gpkg, stats, edits, identify (repeatable)
#   --out DIR        where latest.md, latest.svg and latest.jsonl go (default Benchmarks/results)
#   --keep-data DIR  write each workload's data under DIR and keep it
#   --with-server    also run Benchmarks/run_serve.sh (a few minutes): `geosieve serve` under wrk,
#                    small ArcGIS queries, and OGC API items against pygeoapi on the same file
#                    (needs wrk, curl, time, python3-gdal and libsqlite3-mod-spatialite from Debian;
#                    pygeoapi comes from PyPI into its own venv, see run_serve.sh)
#
# 1. builds geosieve-bench and geosieve in release mode;
# 2. makes a Python venv with the pinned peers of Benchmarks/requirements.txt (COMPARE_VENV,
#    default .build/bench-venv; COMPARE_PYTHON, default python3, creates it) when it lacks them;
# 3. compiles the C peers (Benchmarks/peers/*.c, against GEOS and SQLite) into .build/peers;
# 4. runs Benchmarks/compare.py, which writes each workload's data once, runs GeoSieve and every
#    peer on it interleaved, stops with exit status 1 when any two engines disagree on an answer,
#    and writes the table, the chart and the raw lines.
# Debian packages it needs: swift's own, libgeos-dev, libsqlite3-dev, pkg-config, python3-venv,
# gdal-bin (ogrinfo, ogr2ogr; without them those peers are left out and listed as not run).
set -euo pipefail
cd "$(dirname "$0")/.."

arguments=()
with_server=0
quick=0
rounds=5
previous=""
for argument in "$@"; do
    case "$argument" in
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        --with-server) with_server=1; continue ;;
        --quick) quick=1 ;;
    esac
    if [ "$previous" = --rounds ]; then rounds="$argument"; fi
    previous="$argument"
    arguments+=("$argument")
done

echo "== building geosieve-bench and geosieve (release)" >&2
swift build -c release --product geosieve-bench >&2
swift build -c release --product geosieve >&2
bin="$(swift build -c release --show-bin-path)"

venv="${COMPARE_VENV:-.build/bench-venv}"
stamp="$venv/.requirements"
if ! cmp -s Benchmarks/requirements.txt "$stamp"; then
    echo "== setting up $venv (pip install -r Benchmarks/requirements.txt)" >&2
    [ -x "$venv/bin/python" ] || "${COMPARE_PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r Benchmarks/requirements.txt >&2
    cp Benchmarks/requirements.txt "$stamp"
fi

echo "== compiling the C peers into .build/peers" >&2
mkdir -p .build/peers
# shellcheck disable=SC2046  # pkg-config's flags are meant to split
cc -O2 -o .build/peers/w2_strtree Benchmarks/peers/w2_strtree.c $(pkg-config --cflags --libs geos)
# shellcheck disable=SC2046
cc -O2 -o .build/peers/w3_geos Benchmarks/peers/w3_geos.c $(pkg-config --cflags --libs geos)
# shellcheck disable=SC2046
cc -O2 -o .build/peers/edit_sqlite Benchmarks/peers/edit_sqlite.c $(pkg-config --cflags --libs sqlite3)

server=()
if [ "$with_server" = 1 ]; then
    server_work="$(mktemp -d "${TMPDIR:-/tmp}/geosieve-compare-serve.XXXXXX")"
    trap 'rm -rf "$server_work"' EXIT
    if [ "$quick" = 1 ]; then
        serve_options=(--points 100000 --data .build/serve-data-quick --duration 3 --rounds 1)
    else
        serve_options=(--duration 10 --rounds "$rounds")
    fi
    echo "== the server: Benchmarks/run_serve.sh ${serve_options[*]} --connections 16 --page-sizes 2000 --no-wide" >&2
    Benchmarks/run_serve.sh --geosieve "$bin/geosieve" "${serve_options[@]}" --connections 16 --page-sizes 2000 \
        --no-wide --keep-work "$server_work" > "$server_work/run_serve.out"
    server=(--server-lines "$server_work/results.jsonl")
fi

"$venv/bin/python" Benchmarks/compare.py --bench "$bin/geosieve-bench" --geosieve "$bin/geosieve" \
    --peers .build/peers "${server[@]}" "${arguments[@]}" --passed "$@"

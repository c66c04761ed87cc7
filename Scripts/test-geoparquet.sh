#!/usr/bin/env bash
# GeoParquet interoperability test of `geosieve`, both ways, with pyarrow, GeoPandas and DuckDB:
# Tests/Clients/geoparquet_test.py has the libraries write files that `geosieve convert` and
# `geosieve query` (a box and where clauses) must read as the libraries read them, and reads the
# files `geosieve convert … --compression C` writes with the three libraries.
#
# Usage: Scripts/test-geoparquet.sh PATH_TO_GEOSIEVE
#        Scripts/test-geoparquet.sh --install      (installs the Python libraries only; CI may run
#                                                   it during a build)
#
# Installs what is missing with pip: pyarrow 26.0.1, duckdb 2.0.1, geopandas 1.2.0, shapely
# 2.2.0 and pyproj. Works in a temporary folder, removed afterwards. Prints one PASS or FAIL line
# per check, then one summary line per direction and library; exits 1 when a check failed.
set -euo pipefail

. "$(dirname "$0")/serve-lib.sh"
install_only=
if [ "${1:-}" = "--install" ] && [ $# -eq 1 ]; then install_only=1; else geosieve_argument "$@"; fi
cd "$(dirname "$0")/.."
started_at=$SECONDS

work=$(mktemp -d "${TMPDIR:-/tmp}/geosieve-geoparquet.XXXXXX")
cleanup() {
    status=$?
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT

# --- What the test needs ----------------------------------------------------------------------

if ! command -v python3 > /dev/null; then
    echo "error: python3 not found" >&2
    exit 1
fi

# The Python requirements that are not installed (at the pinned version where there is one).
pip_install_missing "$work" pyarrow==26.0.1 duckdb==2.0.1 geopandas==1.2.0 shapely==2.2.0 pyproj
if [ -n "$install_only" ]; then exit 0; fi
echo "$(python3 --version); $(python3 -c 'from importlib import metadata as m; print(", ".join(f"{n} {m.version(n)}" for n in ("pyarrow", "duckdb", "geopandas", "shapely", "pyproj")))')"

# --- The test ---------------------------------------------------------------------------------

set +e
python3 Tests/Clients/geoparquet_test.py "$geosieve" "$work/files" | tee "$work/test.out"
status=${PIPESTATUS[0]}
set -e

# One summary line per direction and library.
for label in "pyarrow -> geosieve" "geopandas -> geosieve" "duckdb -> geosieve" \
    "geosieve -> parquet" "geosieve -> pyarrow" "geosieve -> geopandas" "geosieve -> duckdb"; do
    passed=$(grep -c "^PASS \[$label\]" "$work/test.out" || true)
    failed=$(grep -c "^FAIL \[$label\]" "$work/test.out" || true)
    echo "summary: $label: $passed passed, $failed failed"
done
if [ "$status" -ne 0 ]; then
    echo "geoparquet test: failed (status $status) in $((SECONDS - started_at)) s" >&2
    exit 1
fi
echo "geoparquet test: passed in $((SECONDS - started_at)) s"

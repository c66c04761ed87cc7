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
missing=$(python3 - <<'EOF'
from importlib import metadata
wanted = {"pyarrow": "26.0.1", "duckdb": "2.0.1", "geopandas": "1.2.0", "shapely": "2.2.0", "pyproj": None}
missing = []
for name, version in wanted.items():
    try:
        installed = metadata.version(name)
    except metadata.PackageNotFoundError:
        installed = None
    if installed is None or (version is not None and installed != version):
        missing.append(f"{name}=={version}" if version else name)
print(" ".join(missing))
EOF
)
if [ -n "$missing" ]; then
    echo "installing $missing"
    # shellcheck disable=SC2086  # one word per requirement
    if ! python3 -m pip install --quiet --break-system-packages $missing 2> "$work/pip.err"; then
        if grep -q "no such option: --break-system-packages" "$work/pip.err"; then
            # shellcheck disable=SC2086
            python3 -m pip install --quiet $missing
        else
            cat "$work/pip.err" >&2
            exit 1
        fi
    fi
fi
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

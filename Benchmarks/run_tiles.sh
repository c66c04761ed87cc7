#!/usr/bin/env bash
# Vector tile workload: GeoSieve against PostGIS's ST_AsMVT on the same 1,000,000 points and
# the same random tiles of zoom 0 to 14, in one run, both warm.
#
#   Benchmarks/run_tiles.sh [--features 1000000] [--seed 42] [--tiles 300] [--rounds 20]
#
# 1. builds geosieve-bench in release mode;
# 2. `geosieve-bench tiles --spacing 0` (every point, as ST_AsMVT keeps them) writes the points
#    with their attributes and the tiles as CSV, then makes every tile twice over and prints
#    its lines ("tiles.random", per zoom, "tiles.z0_world"); then the same with the default
#    thinning (one point per 16-unit square), as `geosieve serve` makes them;
# 3. starts a throwaway PostGIS (Scripts/postgis-server.sh), loads the points into a table of
#    Web Mercator points with a GiST index (the usual way to serve tiles from PostGIS, each
#    point transformed once beforehand), and makes every tile with
#    ST_AsMVT(ST_AsMVTGeom(geom, ST_TileEnvelope(z, x, y), 4096, 64, true)) and the same
#    attributes, once to warm and once timed, in PL/pgSQL (no client round trip counted);
# 4. prints the PostGIS lines in the same shape, and the ratios of the totals.
set -euo pipefail

cd "$(dirname "$0")/.."

features=1000000
seed=42
tiles=300
rounds=20
while [ $# -gt 0 ]; do
    case "$1" in
        --features) features="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --tiles) tiles="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "run_tiles.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

echo "== building geosieve-bench (release)" >&2
swift build -c release --product geosieve-bench >&2
bin="$(swift build -c release --product geosieve-bench --show-bin-path)/geosieve-bench"

data=$(mktemp -d "${TMPDIR:-/tmp}/geosieve-tiles.XXXXXX")
server=""
cleanup() {
    if [ -n "$server" ]; then Scripts/postgis-server.sh stop "$GEOSIEVE_POSTGIS_DIR" || true; fi
    rm -rf "$data"
}
trap cleanup EXIT
chmod 755 "$data"

echo "== GeoSieve, every point (--spacing 0)" >&2
"$bin" tiles --features "$features" --seed "$seed" --tiles "$tiles" --rounds "$rounds" --spacing 0 \
    --write-points "$data/points.csv" --write-tiles "$data/tiles.csv" | sed 's/"engine":"geosieve"/"engine":"geosieve_every_point"/' | tee "$data/geosieve.jsonl"
echo "== GeoSieve, thinned (the default)" >&2
"$bin" tiles --features "$features" --seed "$seed" --tiles "$tiles" --rounds "$rounds" | tee -a "$data/geosieve.jsonl"

echo "== PostGIS" >&2
server=$(Scripts/postgis-server.sh start)
eval "$server"
url="$GEOSIEVE_POSTGIS_URL"
host=$(python3 -c "import urllib.parse,sys; u=urllib.parse.urlparse(sys.argv[1]); print(u.hostname, u.port, u.username, u.path[1:])" "$url")
read -r pghost pgport pguser pgdb <<< "$host"
psql_run() { psql -h "$pghost" -p "$pgport" -U "$pguser" -d "$pgdb" -v ON_ERROR_STOP=1 -At "$@"; }
psql_run -c "SELECT 'PostGIS ' || postgis_lib_version() || ', ' || version()" >&2
psql_run -q <<SQL
CREATE TABLE staging (id bigint, x double precision, y double precision, pop bigint, name text, category text, score double precision, created bigint);
\copy staging FROM '$data/points.csv' WITH (FORMAT csv, HEADER true)
CREATE TABLE points AS
  SELECT id, pop, name, category, score, created, ST_Transform(ST_SetSRID(ST_MakePoint(x, y), 4326), 3857) AS geom FROM staging;
CREATE INDEX ON points USING gist (geom);
ANALYZE points;
CREATE TABLE tiles (n serial, z int, x int, y int);
\copy tiles (z, x, y) FROM '$data/tiles.csv' WITH (FORMAT csv)
CREATE TABLE timings (n int, z int, ms double precision, bytes int);
CREATE FUNCTION tile(z int, x int, y int) RETURNS bytea LANGUAGE sql STABLE AS \$\$
  SELECT ST_AsMVT(q, 'points', 4096, 'geom', 'id') FROM (
    SELECT id, pop, name, category, score, created, ST_AsMVTGeom(geom, ST_TileEnvelope(z, x, y), 4096, 64, true) AS geom
    FROM points WHERE geom && ST_TileEnvelope(z, x, y, margin => 64.0 / 4096)) q
\$\$;
DO \$\$
DECLARE t record; started timestamptz; b bytea;
BEGIN
  FOR t IN SELECT * FROM tiles ORDER BY n LOOP PERFORM tile(t.z, t.x, t.y); END LOOP;  -- warm
  FOR t IN SELECT * FROM tiles ORDER BY n LOOP
    started := clock_timestamp();
    b := tile(t.z, t.x, t.y);
    INSERT INTO timings VALUES (t.n, t.z, extract(epoch FROM clock_timestamp() - started) * 1000, coalesce(length(b), 0));
  END LOOP;
END
\$\$;
SQL
psql_run <<'SQL' | tee "$data/postgis.jsonl"
SELECT json_build_object('workload', 'tiles.random', 'engine', 'postgis',
  'median_ms', round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3),
  'p99_ms', round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 3),
  'total_ms', round(sum(ms)::numeric, 3), 'tiles', count(*), 'bytes', sum(bytes)) FROM timings;
SELECT json_build_object('workload', 'tiles.z' || z, 'engine', 'postgis',
  'median_ms', round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3),
  'p99_ms', round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 3),
  'total_ms', round(sum(ms)::numeric, 3), 'tiles', count(*)) FROM timings GROUP BY z ORDER BY z;
SQL

python3 - "$data/geosieve.jsonl" "$data/postgis.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for path in sys.argv[1:] for line in open(path) if line.startswith("{")]
def total(engine):
    return next(r["total_ms"] for r in rows if r["engine"] == engine and r["workload"] == "tiles.random")
postgis = float(total("postgis"))
for engine in ("geosieve_every_point", "geosieve"):
    mine = float(total(engine))
    print(f"{engine}: random tiles in {mine:.1f} ms, PostGIS {postgis:.1f} ms: {postgis / mine:.1f}x (target: at least 5x)")
world = next(r for r in rows if r["engine"] == "geosieve" and r["workload"] == "tiles.z0_world")
print(f"geosieve: the world tile (thinned): p99 {world['p99_ms']} ms (target: at most 20 ms)")
PY

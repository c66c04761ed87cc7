#!/usr/bin/env bash
# GeoParquet workload: GeoSieve vs DuckDB (threads=1) reading the same 1,000,000-point GeoParquet
# files, whole and by a box covering 1 % of the data, in one run.
#
#   Benchmarks/run_geoparquet.sh [--features 1000000] [--seed 42] [--rounds 5] [--runs 1]
#                                [--row-group-size 65536] [--box XMIN,YMIN,XMAX,YMAX] [--keep-data DIR]
#
# 1. builds geosieve-bench in release mode (without the RemoteSources trait: no PostGIS here);
# 2. finds a Python with pyarrow, numpy and duckdb (GEOPARQUET_PYTHON, default python3; when it
#    lacks one, the venv GEOPARQUET_VENV, default .build/geoparquet-venv, filled with
#    `pip install pyarrow numpy duckdb`);
# 3. `Benchmarks/geoparquet_peers.py generate` writes DATA/points_pyarrow.parquet with pyarrow
#    (Hilbert-sorted uniform points, id/value/category/name, Snappy, row groups of
#    --row-group-size rows, the bbox covering and the GeoParquet 1.1 metadata; DATA is a
#    temporary folder, or --keep-data DIR);
# 4. the box (unless --box): 10 % of the width and height of the data's bbox at its centre;
# 5. --runs times, one after the other: `geosieve-bench geoparquet --input points_pyarrow.parquet
#    --keep` (geoparquet.write of those rows to GeoSieve's own copy, then geoparquet.read and
#    geoparquet.read_box of both files, medians of --rounds after a warm-up), then
#    `geoparquet_peers.py read` (DuckDB, the same queries on the same two files, the same
#    rounds);
# 6. checks that both engines return the same rows for every read (exit 1 if not), prints every
#    JSON line, then the table against the targets on the pyarrow file (GeoSieve's read_box at
#    least as fast as DuckDB's; its full read at least 0.5x DuckDB's speed), and the same ratios
#    on GeoSieve's copy. The raw lines also land in DATA/results.jsonl (one "run" field each).
set -euo pipefail

cd "$(dirname "$0")/.."

features=1000000
seed=42
rounds=5
runs=1
row_group_size=65536
box=""
keep=""
while [ $# -gt 0 ]; do
    case "$1" in
        --features) features="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --row-group-size) row_group_size="$2"; shift 2 ;;
        --box) box="$2"; shift 2 ;;
        --keep-data) keep="$2"; shift 2 ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        *) echo "run_geoparquet.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

echo "== building geosieve-bench (release)" >&2
swift build -c release --product geosieve-bench --disable-default-traits >&2
bin="$(swift build -c release --product geosieve-bench --disable-default-traits --show-bin-path)/geosieve-bench"

python="${GEOPARQUET_PYTHON:-python3}"
if ! "$python" -c "import pyarrow, numpy, duckdb" 2>/dev/null; then
    venv="${GEOPARQUET_VENV:-.build/geoparquet-venv}"
    if ! "$venv/bin/python" -c "import pyarrow, numpy, duckdb" 2>/dev/null; then
        echo "== setting up $venv (pip install pyarrow numpy duckdb)" >&2
        "$python" -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check pyarrow numpy duckdb >&2
    fi
    python="$venv/bin/python"
fi

if [ -n "$keep" ]; then
    data="$keep"
    mkdir -p "$data"
else
    data="$(mktemp -d "${TMPDIR:-/tmp}/geosieve-geoparquet.XXXXXX")"
    trap 'rm -rf "$data"' EXIT
fi
results="$data/results.jsonl"
: > "$results"
source_file="$data/points_pyarrow.parquet"

echo "== pyarrow: $features points, seed $seed, row groups of $row_group_size -> $source_file" >&2
"$python" Benchmarks/geoparquet_peers.py generate "$source_file" --features "$features" --seed "$seed" \
    --row-group-size "$row_group_size"
if [ -z "$box" ]; then
    box="$("$python" - "$source_file" <<'PY'
import json, sys
import pyarrow.parquet as pq
xmin, ymin, xmax, ymax = json.loads(pq.read_schema(sys.argv[1]).metadata[b"geo"])["columns"]["geometry"]["bbox"]
w, h = xmax - xmin, ymax - ymin
print(",".join(repr(v) for v in (xmin + 0.45 * w, ymin + 0.45 * h, xmin + 0.55 * w, ymin + 0.55 * h)))
PY
)"
fi
echo "== box $box" >&2

for run in $(seq "$runs"); do
    echo "== run $run/$runs: geosieve-bench geoparquet --input $source_file --rounds $rounds --directory $data --keep" >&2
    "$bin" geoparquet --input "$source_file" --rounds "$rounds" --directory "$data" --box="$box" \
        --row-group-size "$row_group_size" --keep > "$data/geosieve.jsonl" 2> "$data/bench.log"
    copy="$(sed -n 's/^kept //p' "$data/bench.log")"
    mv "$copy" "$data/points_geosieve.parquet"
    sed -i "s/\"file\":\"$(basename "$copy")\"/\"file\":\"points_geosieve.parquet\"/" "$data/geosieve.jsonl"
    echo "== run $run/$runs: DuckDB (threads=1) on both files" >&2
    "$python" Benchmarks/geoparquet_peers.py read "$source_file" "$data/points_geosieve.parquet" --box="$box" \
        --rounds "$rounds" > "$data/duckdb.jsonl"
    cat "$data/geosieve.jsonl" "$data/duckdb.jsonl" | sed "s/}\$/,\"run\":$run}/" >> "$results"
done

cat "$results"
echo
"$python" - "$results" <<'PY'
import json
import statistics
import sys

lines = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
runs = sorted({l["run"] for l in lines})
source, copy = "points_pyarrow.parquet", "points_geosieve.parquet"

def pick(engine, workload, file, run):
    found = [l for l in lines if l["engine"] == engine and l["workload"] == workload and l.get("file", file) == file and l["run"] == run]
    return found[0] if found else None

bad = []
for run in runs:
    for file in (source, copy):
        for workload in ("geoparquet.read", "geoparquet.read_box"):
            g, d = pick("geosieve", workload, file, run), pick("duckdb", workload, file, run)
            if g is None or d is None or g["features"] != d["features"]:
                bad.append(f"run {run}, {workload} of {file}: geosieve {g and g['features']}, duckdb {d and d['features']}")
if bad:
    print("engines disagree:\n  " + "\n  ".join(bad))
    sys.exit(1)

def ms(l):
    return f'{l["median_ms"]:,.1f} ({l["min_ms"]:,.1f}–{l["max_ms"]:,.1f})'

print("| run | workload | file | rows | row groups read | GeoSieve ms (min–max) | DuckDB ms (min–max) | DuckDB / GeoSieve |")
print("|---|---|---|---:|---:|---:|---:|---:|")
for run in runs:
    w = pick("geosieve", "geoparquet.write", None, run)
    print(f'| {run} | geoparquet.write | {copy} | {w["features"]:,} | | {ms(w)} | | |')
    for file in (source, copy):
        for workload in ("geoparquet.read", "geoparquet.read_box"):
            g, d = pick("geosieve", workload, file, run), pick("duckdb", workload, file, run)
            print(f'| {run} | {workload} | {file} | {g["features"]:,} | {g["row_groups_read"]} of {g["row_groups"]} | '
                  f'{ms(g)} | {ms(d)} | {d["median_ms"] / g["median_ms"]:.2f}× |')

print()
targets = [("geoparquet.read_box", 1.0, "GeoSieve's box read at least as fast as DuckDB's"),
           ("geoparquet.read", 0.5, "GeoSieve's full read at least 0.5x DuckDB's speed")]
for file in (source, copy):
    for workload, target, words in targets:
        ratios = [pick("duckdb", workload, file, r)["median_ms"] / pick("geosieve", workload, file, r)["median_ms"] for r in runs]
        ratio = statistics.median(ratios)
        shown = ", ".join(f"{r:.2f}x" for r in ratios)
        verdict = "met" if ratio >= target else "missed"
        print(f"{workload} of {file}: DuckDB time / GeoSieve time = {shown} (median {ratio:.2f}x); "
              f"target >= {target}x ({words}): {verdict}")
PY

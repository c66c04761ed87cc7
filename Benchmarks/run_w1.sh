#!/usr/bin/env bash
# Where-clause workload w1: GeoSieve vs DuckDB (threads=1) vs SQLite (:memory:, full scan) on the
# same generated rows, in one run.
#
#   Benchmarks/run_w1.sh [--rows 1000000] [--seed 42] [--rounds 5] [--keep-data DIR]
#
# 1. builds geosieve-bench in release mode;
# 2. runs `geosieve-bench where --emit-data DATA` (DATA: a temporary folder, or --keep-data DIR);
# 3. runs Benchmarks/w1_peers.py DATA with a Python venv holding duckdb (W1_VENV, default
#    .build/w1-venv — .build/ is git-ignored; created and filled with `pip install duckdb` when
#    missing; W1_PYTHON picks the interpreter that creates it, default python3);
# 4. checks that every engine counted the same rows for every query (exit 1 if not);
# 5. prints every JSON line, then a table of times and the ratios against the targets
#    (DuckDB/GeoSieve >= 2, SQLite/GeoSieve >= 10).
# The raw JSON lines also land in DATA/results.jsonl.
set -euo pipefail

cd "$(dirname "$0")/.."

rows=1000000
seed=42
rounds=5
keep=""
while [ $# -gt 0 ]; do
    case "$1" in
        --rows) rows="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --keep-data) keep="$2"; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "run_w1.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

echo "== building geosieve-bench (release)" >&2
swift build -c release --product geosieve-bench >&2
bin="$(swift build -c release --product geosieve-bench --show-bin-path)/geosieve-bench"

venv="${W1_VENV:-.build/w1-venv}"
if ! "$venv/bin/python" -c "import duckdb" 2>/dev/null; then
    echo "== setting up $venv (pip install duckdb)" >&2
    "${W1_PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check duckdb >&2
fi

if [ -n "$keep" ]; then
    data="$keep"
    mkdir -p "$data"
else
    data="$(mktemp -d "${TMPDIR:-/tmp}/geosieve-w1.XXXXXX")"
    trap 'rm -rf "$data"' EXIT
fi
results="$data/results.jsonl"

echo "== geosieve-bench where --rows $rows --seed $seed --rounds $rounds --emit-data $data" >&2
"$bin" where --rows "$rows" --seed "$seed" --rounds "$rounds" --emit-data "$data" > "$results"
echo "== peers: DuckDB (threads=1) and SQLite (:memory:, no index) on $data/w1.csv" >&2
"$venv/bin/python" Benchmarks/w1_peers.py "$data" --rounds "$rounds" >> "$results"

cat "$results"
echo
"$venv/bin/python" - "$results" <<'PY'
import json
import sys

TARGETS = {"duckdb": 2.0, "sqlite": 10.0}
lines = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
by = {(r["engine"], r["workload"]): r for r in lines}
queries = sorted({r["workload"] for r in lines if r["workload"] != "w1.load"})
engines = ["geosieve", "duckdb", "sqlite"]

bad = []
for q in queries:
    counts = {e: by[(e, q)]["result"] for e in engines if (e, q) in by}
    missing = [e for e in engines if (e, q) not in by]
    if missing or len(set(counts.values())) != 1:
        bad.append(f"{q}: counts {counts}, missing {missing}")
if bad:
    print("COUNTS DISAGREE ACROSS ENGINES:", *bad, sep="\n  ", file=sys.stderr)
    sys.exit(1)

rows = by[("geosieve", "w1.load")]["rows"]
print(f"w1, {rows:,} rows, medians in ms; ratio = peer time / GeoSieve time "
      f"(targets: DuckDB >= {TARGETS['duckdb']:g}x, SQLite >= {TARGETS['sqlite']:g}x)")
print()
print("| query | count | GeoSieve ms | GeoSieve M rows/s | DuckDB ms | SQLite ms "
      "| DuckDB / GeoSieve | target met | SQLite / GeoSieve | target met |")
print("|---|---:|---:|---:|---:|---:|---:|:-:|---:|:-:|")
all_met = True
for q in queries:
    g = by[("geosieve", q)]["median_ms"]
    d = by[("duckdb", q)]["median_ms"]
    s = by[("sqlite", q)]["median_ms"]
    rd, rs = d / g, s / g
    md, ms = rd >= TARGETS["duckdb"], rs >= TARGETS["sqlite"]
    all_met &= md and ms
    print(f"| {q} | {by[('geosieve', q)]['result']:,} | {g:.3f} | {rows / g / 1000:,.0f} | {d:.3f} | {s:.3f} "
          f"| {rd:.1f}x | {'yes' if md else 'NO'} | {rs:.1f}x | {'yes' if ms else 'NO'} |")
print()
load = {e: by[(e, "w1.load")]["median_ms"] for e in engines if (e, "w1.load") in by}
print("load ms: " + ", ".join(f"{e} {v:.1f}" for e, v in load.items())
      + "  (GeoSieve: FeatureTable from generated values; peers: from the CSV file)")
print("all targets met" if all_met else "SOME TARGETS MISSED")
PY

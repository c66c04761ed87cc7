#!/usr/bin/env bash
# Statistics workload: GeoSieve vs DuckDB (threads=1) on the same generated rows, in one run.
#
#   Benchmarks/run_stats.sh [--rows 1000000] [--seed 42] [--rounds 7] [--keep-data DIR]
#
# 1. builds geosieve-bench in release mode;
# 2. runs `geosieve-bench stats --emit-data DATA` (DATA: a temporary folder, or --keep-data DIR);
# 3. runs Benchmarks/stats_peers.py DATA with a Python holding duckdb (STATS_VENV, default
#    .build/w1-venv, shared with run_w1.sh — .build/ is git-ignored; created and filled with
#    `pip install duckdb` when missing, unless STATS_PYTHON — default python3 — already imports
#    duckdb, which is then used instead; STATS_PYTHON also creates the venv);
# 4. checks that both engines return the same number of groups and the same sum (exit 1 if not);
# 5. prints every JSON line, then a table of times and the ratio against the target
#    (DuckDB/GeoSieve >= 2).
# The raw JSON lines also land in DATA/results.jsonl.
set -euo pipefail

cd "$(dirname "$0")/.."

rows=1000000
seed=42
rounds=7
keep=""
while [ $# -gt 0 ]; do
    case "$1" in
        --rows) rows="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --keep-data) keep="$2"; shift 2 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "run_stats.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

echo "== building geosieve-bench (release)" >&2
swift build -c release --product geosieve-bench >&2
bin="$(swift build -c release --product geosieve-bench --show-bin-path)/geosieve-bench"

venv="${STATS_VENV:-.build/w1-venv}"
python="$venv/bin/python"
if ! "$python" -c "import duckdb" 2>/dev/null; then
    if "${STATS_PYTHON:-python3}" -c "import duckdb" 2>/dev/null; then
        python="${STATS_PYTHON:-python3}"
    else
        echo "== setting up $venv (pip install duckdb)" >&2
        "${STATS_PYTHON:-python3}" -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check duckdb >&2
    fi
fi

if [ -n "$keep" ]; then
    data="$keep"
    mkdir -p "$data"
else
    data="$(mktemp -d "${TMPDIR:-/tmp}/geosieve-stats.XXXXXX")"
    trap 'rm -rf "$data"' EXIT
fi
results="$data/results.jsonl"

echo "== geosieve-bench stats --rows $rows --seed $seed --rounds $rounds --emit-data $data" >&2
"$bin" stats --rows "$rows" --seed "$seed" --rounds "$rounds" --emit-data "$data" > "$results"
echo "== peer: DuckDB (threads=1) on $data/stats.csv" >&2
"$python" Benchmarks/stats_peers.py "$data" --rounds "$rounds" >> "$results"

cat "$results"
echo
"$python" - "$results" <<'PY'
import json
import sys

TARGET = 2.0
lines = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
by = {(r["engine"], r["workload"]): r for r in lines}
queries = ["stats.grouped", "stats.all"]

bad = []
for q in queries:
    g, d = by.get(("geosieve", q)), by.get(("duckdb", q))
    if g is None or d is None or (g["result"], g["sum_amount"]) != (d["result"], d["sum_amount"]):
        bad.append(f"{q}: geosieve {g}, duckdb {d}")
if bad:
    print("RESULTS DISAGREE ACROSS ENGINES:", *bad, sep="\n  ", file=sys.stderr)
    sys.exit(1)

rows = by[("geosieve", queries[0])]["rows"]
print(f"statistics, {rows:,} rows, medians in ms; ratio = DuckDB time / GeoSieve time (target >= {TARGET:g}x)")
print()
print("| query | groups | GeoSieve ms | DuckDB ms | DuckDB / GeoSieve | target met |")
print("|---|---:|---:|---:|---:|:-:|")
all_met = True
for q in queries:
    g, d = by[("geosieve", q)]["median_ms"], by[("duckdb", q)]["median_ms"]
    met = d / g >= TARGET
    all_met &= met
    print(f"| {q} | {by[('geosieve', q)]['result']} | {g:.3f} | {d:.3f} | {d / g:.2f}x | {'yes' if met else 'NO'} |")
print()
print("all targets met" if all_met else "SOME TARGETS MISSED")
PY

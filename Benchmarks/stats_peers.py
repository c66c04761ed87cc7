#!/usr/bin/env python3
"""Peer engine for GeoSieve's statistics workload: DuckDB on the same rows.

    python3 Benchmarks/stats_peers.py DIR [--rounds 7] [--threads 1]

DIR holds what `geosieve-bench stats --emit-data DIR` wrote: stats.csv (header
OBJECTID,CATEGORY,AMOUNT,SCORE). DuckDB (`pip install duckdb`, ":memory:"; engine "duckdb-1"
with --threads 1, "duckdb" with --threads 0, its default of every core) loads it into a table `t`
with explicit types (BIGINT, VARCHAR, BIGINT, DOUBLE), runs each query once
as a warm-up and then `--rounds` measured times, and prints one JSON line per query on stdout in
geosieve-bench's format:

    {"workload":"stats.grouped","engine":"duckdb-1","median_ms":…,"min_ms":…,"max_ms":…,"rows":…,"result":…,"sum_amount":…}

The queries are those of `geosieve-bench stats`:
  stats.grouped  SELECT CATEGORY, count(OBJECTID), sum(AMOUNT), avg(SCORE), stddev_samp(SCORE)
                 FROM t GROUP BY CATEGORY ORDER BY CATEGORY
  stats.all      the same without GROUP BY
`result` is the number of output rows and `sum_amount` the sum of the sums, to check the
engines agree. Notes go to stderr.
"""
import argparse
import os
import statistics
import sys
import time

QUERIES = [
    (
        "stats.grouped",
        "SELECT CATEGORY, count(OBJECTID), sum(AMOUNT), avg(SCORE), stddev_samp(SCORE) "
        "FROM t GROUP BY CATEGORY ORDER BY CATEGORY",
        2,
    ),
    ("stats.all", "SELECT count(OBJECTID), sum(AMOUNT), avg(SCORE), stddev_samp(SCORE) FROM t", 1),
]


def log(message):
    print(message, file=sys.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1, help="DuckDB's threads; 0 for its default (every core)")
    args = parser.parse_args()
    if args.rounds < 1:
        sys.exit("stats_peers: --rounds must be at least 1")
    csv_path = os.path.join(args.directory, "stats.csv")
    if not os.path.exists(csv_path):
        sys.exit(f"stats_peers: no {csv_path}; run geosieve-bench stats --emit-data {args.directory} first")

    import duckdb

    con = duckdb.connect(":memory:")
    engine = "duckdb" if args.threads == 0 else f"duckdb-{args.threads}"
    if args.threads:
        con.execute(f"SET threads = {args.threads}")
    con.execute(
        "CREATE TABLE t AS SELECT * FROM read_csv(?, header = true, "
        "columns = {'OBJECTID': 'BIGINT', 'CATEGORY': 'VARCHAR', 'AMOUNT': 'BIGINT', 'SCORE': 'DOUBLE'})",
        [csv_path],
    )
    rows = con.execute("SELECT count(*) FROM t").fetchone()[0]
    log(f"duckdb {duckdb.__version__}: loaded {rows} rows")
    for workload, sql, sum_position in QUERIES:
        result = con.execute(sql).fetchall()  # warm-up
        samples = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            result = con.execute(sql).fetchall()
            samples.append(time.perf_counter() - start)
        ms = sorted(s * 1000.0 for s in samples)
        sum_amount = sum(int(row[sum_position]) for row in result)
        print(
            f'{{"workload":"{workload}","engine":"{engine}","median_ms":{statistics.median(ms):.3f},'
            f'"min_ms":{ms[0]:.3f},"max_ms":{ms[-1]:.3f},"rows":{rows},"result":{len(result)},'
            f'"sum_amount":{sum_amount}}}',
            flush=True,
        )


if __name__ == "__main__":
    main()

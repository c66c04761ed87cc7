#!/usr/bin/env python3
"""Peer engines for GeoSieve's where-clause workload w1: SQLite and DuckDB on the same rows.

    python3 Benchmarks/w1_peers.py DIR [--rounds 5] [--engines duckdb-1,duckdb,sqlite]

DIR holds what `geosieve-bench where --emit-data DIR` wrote: w1.csv (header
OBJECTID,POP,NAME,CATEGORY,SCORE,CREATED; empty field = NULL) and w1_queries.sql (one where
clause per line). Each engine loads the CSV into an in-memory table `t`, runs every query once as
a warm-up, then `--rounds` measured rounds of `SELECT count(*) FROM t WHERE <clause>` (queries
interleaved within a round, as geosieve-bench does), and prints one JSON line per query on
stdout, in geosieve-bench's format:

    {"workload":"w1.q2","engine":"duckdb","median_ms":…,"min_ms":…,"max_ms":…,"rows":…,"result":…}

plus one "w1.load" line per engine (a single measurement: reading the CSV into the table).

Engines:
  sqlite  Python's sqlite3, ":memory:", PRAGMA case_sensitive_like=ON (GeoSieve's LIKE is
          case-sensitive; SQLite's default is not, which would change Q4), columns
          INTEGER/INTEGER/TEXT/TEXT/REAL/TEXT, no index: every query is a full scan. Rows are
          parsed with the csv module and inserted with executemany (load time includes parsing).
  duckdb-1  `pip install duckdb`; ":memory:", SET threads=1, CREATE TABLE t AS SELECT * FROM
            read_csv(…) with explicit types (CREATED as DATE). DuckDB's LIKE is case-sensitive.
  duckdb    the same with DuckDB's default threads (every core).

Notes go to stderr.
"""
import argparse
import csv
import os
import statistics
import sys
import time

FIELDS = ["OBJECTID", "POP", "NAME", "CATEGORY", "SCORE", "CREATED"]


def log(message):
    print(message, file=sys.stderr, flush=True)


def json_line(workload, engine, samples_s, rows, result):
    ms = sorted(s * 1000.0 for s in samples_s)
    return (
        f'{{"workload":"{workload}","engine":"{engine}","median_ms":{statistics.median(ms):.3f},'
        f'"min_ms":{ms[0]:.3f},"max_ms":{ms[-1]:.3f},"rows":{rows},"result":{result}}}'
    )


def read_queries(directory):
    with open(os.path.join(directory, "w1_queries.sql"), encoding="utf-8") as f:
        queries = [line.strip() for line in f if line.strip()]
    if not queries:
        sys.exit(f"w1_peers: no queries in {directory}/w1_queries.sql")
    return queries


def load_sqlite(csv_path):
    import sqlite3

    con = sqlite3.connect(":memory:")
    con.execute("PRAGMA case_sensitive_like = ON")
    con.execute(
        "CREATE TABLE t (OBJECTID INTEGER, POP INTEGER, NAME TEXT, CATEGORY TEXT, SCORE REAL, CREATED TEXT)"
    )

    def rows():
        with open(csv_path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader)
            if header != FIELDS:
                sys.exit(f"w1_peers: unexpected header {header} in {csv_path}")
            for oid, pop, name, category, score, created in reader:
                yield (
                    int(oid),
                    int(pop) if pop != "" else None,
                    name if name != "" else None,
                    category if category != "" else None,
                    float(score) if score != "" else None,
                    created if created != "" else None,
                )

    con.executemany("INSERT INTO t VALUES (?,?,?,?,?,?)", rows())
    con.commit()
    # Make sure the planner has nothing but a full scan.
    indexes = con.execute("SELECT count(*) FROM sqlite_master WHERE type = 'index'").fetchone()[0]
    assert indexes == 0, "the SQLite table must have no index"
    return lambda sql: con.execute(sql).fetchone()[0]


def load_duckdb(csv_path, threads):
    try:
        import duckdb
    except ImportError:
        sys.exit("w1_peers: DuckDB is missing: pip install -r Benchmarks/requirements.txt (Benchmarks/compare.sh sets up a venv)")
    con = duckdb.connect(":memory:")
    if threads:
        con.execute(f"SET threads={threads}")
    con.execute(
        "CREATE TABLE t AS SELECT * FROM read_csv(?, header=true, nullstr='', columns={"
        "'OBJECTID':'INTEGER','POP':'INTEGER','NAME':'VARCHAR','CATEGORY':'VARCHAR',"
        "'SCORE':'DOUBLE','CREATED':'DATE'})",
        [csv_path],
    )
    return lambda sql: con.execute(sql).fetchone()[0]


LOADERS = {
    "sqlite": load_sqlite,
    "duckdb-1": lambda path: load_duckdb(path, threads=1),
    "duckdb": lambda path: load_duckdb(path, threads=None),
}


def measure(engine, directory, queries, rounds):
    csv_path = os.path.join(directory, "w1.csv")
    start = time.perf_counter()
    run = LOADERS[engine](csv_path)
    load_s = time.perf_counter() - start
    rows = run("SELECT count(*) FROM t")
    log(f"{engine}: loaded {rows} rows in {load_s:.2f} s")
    print(json_line("w1.load", engine, [load_s], rows, rows), flush=True)

    statements = [f"SELECT count(*) FROM t WHERE {q}" for q in queries]
    answers = [run(sql) for sql in statements]  # warm-up round
    samples = [[] for _ in statements]
    for r in range(rounds):
        for i, sql in enumerate(statements):
            start = time.perf_counter()
            answer = run(sql)
            samples[i].append(time.perf_counter() - start)
            if answer != answers[i]:
                sys.exit(f"w1_peers: {engine} q{i + 1} answered {answers[i]}, then {answer}")
        log(f"{engine}: round {r + 1}/{rounds} done")
    for i, answer in enumerate(answers):
        print(json_line(f"w1.q{i + 1}", engine, samples[i], rows, answer), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", metavar="DIR", help="folder holding w1.csv and w1_queries.sql")
    parser.add_argument("--rounds", type=int, default=5, help="measured rounds after one warm-up (default 5)")
    parser.add_argument("--engines", default="duckdb-1,duckdb,sqlite", help="comma-separated: duckdb-1, duckdb, sqlite")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    for engine in engines:
        if engine not in LOADERS:
            parser.error(f"unknown engine {engine!r} (known: {', '.join(LOADERS)})")
    queries = read_queries(args.directory)
    for engine in engines:
        measure(engine, args.directory, queries, args.rounds)


if __name__ == "__main__":
    main()

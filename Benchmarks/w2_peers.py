#!/usr/bin/env python3
"""Workload w2 peer: Shapely 2's STRtree (GEOS TemplateSTRtree, node capacity 10) over the inputs
written by `geosieve-bench spatial --emit-data DIR`, printing the same JSON lines with engine
"shapely".

    w2_peers.py DIR [--rounds 5]

build     shapely.STRtree(points) plus a first query (the tree is built lazily); the point
          geometries are created before the timer, as for the C peer.
windows   one tree.query(box) call per window (boxes created before the timer); hits = ids returned
          (the envelope query is exact for points).
identify  one tree.query(point, predicate="dwithin", distance=tol) call per click (a circle);
          p99_us = 99th percentile of the per-click latency over ROUNDS passes timed click by click.
Every measurement: one warm-up pass, then ROUNDS timed passes (median, min, max).
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import numpy as np
import shapely

ENGINE = "shapely"


def load(directory, name, width):
    values = np.fromfile(os.path.join(directory, name), dtype="<f8")
    if values.size % width:
        sys.exit(f"w2_peers.py: {name} does not hold rows of {width} values")
    return values.reshape(-1, width)


def emit(workload, samples_ns, size_name, size, result, **extra):
    ms = sorted(s / 1e6 for s in samples_ns)
    line = {"workload": workload, "engine": ENGINE, "median_ms": round(statistics.median(ms), 3),
            "min_ms": round(ms[0], 3), "max_ms": round(ms[-1], 3), size_name: int(size), "result": int(result)}
    line.update(extra)
    print(json.dumps(line, separators=(",", ":")), flush=True)


def timed_passes(rounds, run):
    """One warm-up pass (fixes the answer), then `rounds` timed passes."""
    answer = run()
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter_ns()
        got = run()
        samples.append(time.perf_counter_ns() - t0)
        if got != answer:
            sys.exit(f"w2_peers.py: a pass counted {got} hits, the warm-up {answer}")
    return answer, samples


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rounds = args.rounds

    small = shapely.box(*load(args.directory, "windows_small.f64", 4).T)
    large = shapely.box(*load(args.directory, "windows_large.f64", 4).T)
    clicks = load(args.directory, "identify.f64", 3)
    click_points = shapely.points(clicks[:, :2])
    tolerances = clicks[:, 2].tolist()
    probe = shapely.box(-2, -2, -1, -1)

    for name in ("uniform", "clustered"):
        points = shapely.points(load(args.directory, f"points_{name}.f64", 2))

        def build():
            tree = shapely.STRtree(points, node_capacity=10)
            tree.query(probe)
            return tree

        tree = build()
        samples = []
        for _ in range(rounds):
            del tree
            t0 = time.perf_counter_ns()
            tree = build()
            samples.append(time.perf_counter_ns() - t0)
        emit(f"w2.build.{name}", samples, "features", len(points), len(tree))

        query = tree.query
        for label, boxes in (("small", small), ("large", large)):
            answer, samples = timed_passes(rounds, lambda: sum(len(query(b)) for b in boxes))
            emit(f"w2.window_{label}.{name}", samples, "queries", len(boxes), answer)

        pairs = list(zip(click_points, tolerances))
        answer, samples = timed_passes(
            rounds, lambda: sum(len(query(p, predicate="dwithin", distance=t)) for p, t in pairs))
        latencies = []
        clock = time.perf_counter_ns
        for _ in range(rounds):
            for p, t in pairs:
                t0 = clock()
                query(p, predicate="dwithin", distance=t)
                latencies.append(clock() - t0)
        latencies.sort()
        p99 = latencies[max(1, math.ceil(0.99 * len(latencies))) - 1] / 1000
        emit(f"w2.identify.{name}", samples, "queries", len(pairs), answer, p99_us=round(p99, 2))


if __name__ == "__main__":
    main()

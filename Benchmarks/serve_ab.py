#!/usr/bin/env python3
"""Two running `geosieve serve` instances answering the same requests, compared.

    python3 Benchmarks/serve_ab.py BASE_A BASE_B PATH [PATH ...] [--requests 2000]

Each PATH (a request target, e.g. `/arcgis/rest/services/wide/FeatureServer/0/query?...`) is sent
--requests times to each server over one keep-alive connection per server, A and B alternating
request by request so that both see the same machine load, after 100 warm-up requests each.
Prints one JSON line per PATH: the median and p90 latency of each server in microseconds, the
ratio of the medians (B over A), and the answer sizes (which must be equal unless the servers
are meant to answer differently).
"""

import argparse
import http.client
import json
import statistics
import time
import urllib.parse


def connection(base):
    parsed = urllib.parse.urlparse(base)
    return http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=60)


def get(conn, path):
    start = time.perf_counter_ns()
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    elapsed = (time.perf_counter_ns() - start) / 1000
    if response.status != 200:
        raise SystemExit(f"{path}: HTTP {response.status}")
    return elapsed, len(body)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base_a")
    parser.add_argument("base_b")
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args()
    a, b = connection(args.base_a), connection(args.base_b)
    for path in args.paths:
        for _ in range(100):
            get(a, path)
            get(b, path)
        times_a, times_b = [], []
        for _ in range(args.requests):
            ta, size_a = get(a, path)
            tb, size_b = get(b, path)
            times_a.append(ta)
            times_b.append(tb)
        def p90(values):
            return sorted(values)[int(len(values) * 0.9)]
        median_a, median_b = statistics.median(times_a), statistics.median(times_b)
        print(json.dumps({
            "path": path, "requests": args.requests,
            "a_median_us": round(median_a, 1), "a_p90_us": round(p90(times_a), 1),
            "b_median_us": round(median_b, 1), "b_p90_us": round(p90(times_b), 1),
            "b_over_a": round(median_b / median_a, 3), "bytes_a": size_a, "bytes_b": size_b,
        }), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Runs the release `geosieve` on every hostile input the crash-freedom work was asked to survive
(each overflow trap, GEOS crash, hang, memory blow-up and leniency once found) and checks that each
gives a clear error (exit status 2, or 1 for an unreadable file, with one short line on stderr) or
the right answer, within a time limit.

    python3 Fuzz/hostile_inputs.py [--geosieve .build/release/geosieve] [--limit SECONDS]

Prints one line per case with its time; exits 1 when a case fails or takes longer than the limit
(default 1 s). The inputs are generated in a temporary folder (about 2 GB of it is one sparse
file, which takes no space).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COUNTRIES = os.path.join(ROOT, "Tests/Fixtures/naturalearth_lowres.geojson")


def write(folder, name, text, mode="w"):
    path = os.path.join(folder, name)
    with open(path, mode) as f:
        f.write(text)
    return path


def feature_collection(features):
    return '{"type":"FeatureCollection","features":[' + ",".join(features) + "]}"


def geojson_feature(properties, geometry="null"):
    return '{"type":"Feature","geometry":%s,"properties":%s}' % (geometry, properties)


def esri_dates(values):
    features = ",".join(
        '{"attributes":{"OBJECTID":%d,"d":%s},"geometry":{"x":%d,"y":0}}' % (i + 1, v, i) for i, v in enumerate(values)
    )
    return (
        '{"geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},'
        '"fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"d","type":"esriFieldTypeDate"}],'
        '"features":[' + features + "]}"
    )


def star(vertices):
    """A star polygon: spikes alternate between radius 1 and 0.5 around (0, 0)."""
    import math

    points = []
    for i in range(vertices):
        r = 1.0 if i % 2 == 0 else 0.5
        a = 2 * math.pi * i / vertices
        points.append("%.17g %.17g" % (r * math.cos(a), r * math.sin(a)))
    points.append(points[0])
    return "POLYGON ((" + ", ".join(points) + "))"


def cases(folder):
    """(name, arguments, expected status, pattern the output must match) for every case."""
    q = ["query", COUNTRIES, "--return", "count"]
    yield from [
        # 1. Arithmetic overflow traps.
        ("ROUND digits Int64.min", q + ["--where", "ROUND(pop_est, -9223372036854775808) IS NULL"], 0, r'\{"count":0\}'),
        ("TRUNCATE digits Int64.min", q + ["--where", "TRUNCATE(fid, -9223372036854775808) IS NULL"], 0, r'\{"count":0\}'),
        ("ROUND constant Int64.min", q + ["--where", "ROUND(5, -9223372036854775808) IS NULL"], 0, r'\{"count":0\}'),
        ("TRUNCATE constant Int64.min", q + ["--where", "TRUNCATE(5, -9223372036854775808) = 0"], 0, r'\{"count":177\}'),
    ]
    for fraction in ("808", "809", "999"):
        for sign in ("", "-"):
            clause = "DATE '2000-01-01' + INTERVAL '%s9223372036854775.%s' SECOND > DATE '2000-01-01'" % (sign, fraction)
            name = "INTERVAL %s9223372036854775.%s SECOND" % (sign, fraction)
            if sign == "-" and fraction == "808":
                # Exactly -2^63 ms is an interval; the date it lands on is not, so the sum is NULL.
                yield (name, q + ["--where", clause], 0, r'\{"count":0\}')
            else:
                yield (name, q + ["--where", clause], 2, r"out of range")
    dates = write(folder, "dates.json", esri_dates(["-9223372036854775808", "-9223372036854775807", "-9223372036854775000"]))
    qd = ["query", dates]
    yield from [
        ("Esri dates at Int64.min: GeoJSON", qd, 0, r'"d":"-292275055-05-16T16:47:04\.192Z"'),
        ("Esri dates at Int64.min: Esri JSON", qd + ["--format", "esrijson"], 0, r'"d":-9223372036854775808'),
        ("CAST date AS VARCHAR at Int64.min", qd + ["--where", "CAST(d AS VARCHAR) LIKE '-292275055-%'", "--return", "count"], 0, r'\{"count":3\}'),
        ("CAST date AS DATE at Int64.min", qd + ["--where", "CAST(d AS DATE) IS NULL", "--return", "count"], 0, r'\{"count":\d\}'),
        ("EXTRACT YEAR at Int64.min", qd + ["--where", "EXTRACT(YEAR FROM d) = -292275055", "--return", "count"], 0, r'\{"count":3\}'),
        ("CONCAT date at Int64.min", qd + ["--where", "CONCAT(d, '') <> ''", "--return", "count"], 0, r'\{"count":3\}'),
        ("date - date at the ends", qd + ["--where", "d - DATE '2000-01-01' < 0", "--return", "count"], 0, r'\{"count":\d\}'),
        ("identify --where on Int64.min dates",
         ["identify", dates, "--point", "1,0", "--tolerance", "3", "--map-extent", "-10,-10,10,10", "--size", "200,200",
          "--where", "EXTRACT(YEAR FROM d) < 0"], 0, r'"results":\[\{'),
    ]
    geojson_dates = write(folder, "dates.geojson", feature_collection([
        geojson_feature('{"d":"0000-01-01T00:00:00+18:00"}'), geojson_feature('{"d":"9999-12-31T23:59:59.999-18:00"}')]))
    yield ("GeoJSON dates at the ends of four-digit years", ["query", geojson_dates], 0, r'"d":"\+10000-01-01T17:59:59\.999Z"')

    # 2 and 9. GEOS null dereference on collections with empty first members.
    yield from [
        ("relate GC(POINT EMPTY, POINT) vs rectangle",
         ["relate", "--a", "GEOMETRYCOLLECTION (POINT EMPTY, POINT (1 1))", "--b", "0,0,2,2"], 0, r'"within":true'),
        ("relate rectangle vs GC(POINT EMPTY, POLYGON EMPTY, LINESTRING)",
         ["relate", "--b", "GEOMETRYCOLLECTION (POINT EMPTY, POLYGON EMPTY, LINESTRING (0 0, 1 1))", "--a", "0,0,2,2"], 0,
         r'"contains":true'),
        ("relate GC(POINT EMPTY, POLYGON EMPTY, LINESTRING) vs rectangle",
         ["relate", "--a", "GEOMETRYCOLLECTION (POINT EMPTY, POLYGON EMPTY, LINESTRING (0 0, 1 1))", "--b", "0,0,2,2"], 0,
         r'"within":true'),
    ]
    square = write(folder, "square.geojson", feature_collection([geojson_feature(
        '{"name":"square"}', '{"type":"Polygon","coordinates":[[[0,0],[2,0],[2,2],[0,2],[0,0]]]}')]))
    yield ("query --spatial-rel contains on a rectangle",
           ["query", square, "--geometry", "GEOMETRYCOLLECTION (POINT EMPTY, POINT (1 1))", "--spatial-rel", "contains",
            "--return", "count"], 0, r'\{"count":1\}')

    # 3. Hangs.
    ids = write(folder, "in.sql", "fid IN (" + ", ".join(str(i) for i in range(1, 1_000_001)) + ")")
    yield ("IN list of 1,000,000 numbers", q + ["--where", "@" + ids], 0, r'\{"count":177\}')
    chain = write(folder, "or.sql", " OR ".join("fid = %d" % i for i in range(2, 2_000_002, 2)))
    yield ("OR chain of 1,000,000 comparisons", q + ["--where", "@" + chain], 0, r'\{"count":88\}')
    needle = "ab" * 250_000 + "c"
    position = write(folder, "position.sql", "POSITION('%s' IN '%s') = 1" % (needle, "ab" * 250_000 + "ab" * 250_000))
    yield ("POSITION with 1 MB needle and haystack", q + ["--where", "@" + position], 0, r'\{"count":0\}')
    text = "a" * 87_000
    long_text = write(folder, "text.geojson", feature_collection([geojson_feature('{"t":"%s"}' % text)]))
    like_contains = write(folder, "contains.sql", "t LIKE '%" + "a" * 43_000 + "b%'")
    yield ("LIKE %43k% in 87k text", ["query", long_text, "--return", "count", "--where", "@" + like_contains], 0, r'\{"count":0\}')
    general = write(folder, "general.sql", "t LIKE '" + "%a_" * 10_000 + "b'")
    long_text_60k = write(folder, "text60.geojson", feature_collection([geojson_feature('{"t":"%s"}' % ("a" * 60_000))]))
    yield ("LIKE general 30k pattern on 60k text",
           ["query", long_text_60k, "--return", "count", "--where", "@" + general], 0, r'\{"count":0\}')
    big_star = write(folder, "star.wkt", star(1_000_000))
    yield ("relate of a 1,000,000-vertex star", ["relate", "--a", "@" + big_star, "--b", "0,0,1,1"], 2, r"too complex")

    # 4. Memory: argument files of 2 GiB, sparse properties.
    huge = os.path.join(folder, "huge.bin")
    with open(huge, "wb") as f:
        f.truncate(2 << 30)
    yield from [
        ("query --geometry @2GiB", q + ["--geometry", "@" + huge], 2, r"limited to 64 MiB"),
        ("relate --a @2GiB", ["relate", "--a", "@" + huge, "--b", "0,0,1,1"], 2, r"limited to 64 MiB"),
        ("query --schema 2GiB", q + ["--schema", huge], 2, r"limited to 64 MiB"),
        ("relate --a @/dev/zero", ["relate", "--a", "@/dev/zero", "--b", "0,0,1,1"], 2, r"64 MiB"),
    ]
    sparse = write(folder, "sparse.geojson", feature_collection(
        [geojson_feature('{"p%d":%d}' % (i, i)) for i in range(20_000)]))
    yield ("20,000 features with distinct properties", ["query", sparse, "--return", "count"], 2, r"too many fields")

    # 5. Leniency: a FeatureCollection cut before its final brace.
    with open(COUNTRIES) as f:
        whole = f.read().rstrip()
    cut = write(folder, "cut.geojson", whole[:-1])
    yield ("FeatureCollection without its final }", ["query", cut, "--return", "count"], 2, r"unexpected end of input")

    # 6. Echoed input is capped.
    deep = write(folder, "deep.sql", "(" * 1_000_000 + "1=1" + ")" * 1_000_000)
    nots = write(folder, "nots.sql", "NOT " * 1_000_000 + "1=1")
    identifier = write(folder, "identifier.sql", "x" * 10_000_000 + " = 1")
    yield from [
        ("1,000,000-deep parentheses", q + ["--where", "@" + deep], 2, r"nested too deeply"),
        ("1,000,000 NOTs", q + ["--where", "@" + nots], 2, r"nested too deeply"),
        ("10 MB identifier", q + ["--where", "@" + identifier], 2, r"unknown field .*10000000 characters"),
    ]
    nul = write(folder, "nul.sql", "fid = 1 AND \u0000name = 'x'")
    yield ("NUL byte in a where clause", q + ["--where", "@" + nul], 2, r"U\+0000")

    # 7. Wrong answers.
    forms = write(folder, "forms.geojson", feature_collection(
        [geojson_feature('{"s":"%s"}' % ("\u00e9" if i % 2 else "e\u0301")) for i in range(100)]))
    yield ("canonically equivalent strings stay apart", ["query", forms, "--return", "count", "--where", "s = '\u00e9'"], 0,
           r'\{"count":50\}')
    marks = write(folder, "marks.geojson", feature_collection(
        [geojson_feature('{"s":"%s"}' % v) for v in ["%\u0301", "_\u0301", "x\u0301", "ab\u0301", "\\\\\u0301"] + ["v%d" % i for i in range(40)]]))
    for literal in ("%\u0301", "_\u0301", "\\\u0301"):
        yield ("= '%s' is equality, not LIKE" % literal.encode("unicode_escape").decode(),
               ["query", marks, "--return", "count", "--where", "s = '%s'" % literal], 0, r'\{"count":1\}')
    yield ("zero-length line against a rectangle", ["relate", "--a", "LINESTRING (1 1, 1 1)", "--b", "0,0,2,2"], 0,
           r'"intersects":true.*"disjoint":false')
    import json
    import math

    with open(COUNTRIES) as f:
        populations = [feature["properties"].get("pop_est") for feature in json.load(f)["features"]]
    overflowing = sum(1 for p in populations if p is None or math.isinf(p * 1e308))
    yield ("double overflow gives NULL", q + ["--where", "pop_est * 1e308 IS NULL"], 0, r'\{"count":%d\}' % overflowing)

    # 8. Arguments starting with '-'.
    yield from [
        ("relate --a -73.98,40.75", ["relate", "--a", "-73.98,40.75", "--b", "-74,40,-73,41"], 0, r'"within":true'),
        ("query --where -fid < 0", q + ["--where", "-fid < 0"], 0, r'\{"count":177\}'),
        ("query --object-ids -1", q + ["--object-ids", "-1"], 0, r'\{"count":0\}'),
        ("identify --point -60,-15",
         ["identify", COUNTRIES, "--point", "-60,-15", "--tolerance", "0", "--map-extent", "-180,-90,180,90", "--size", "360,180"],
         0, r'"objectId":30,'),  # Brazil
        ("@FILE that cannot be read", ["relate", "--a", "@" + os.path.join(folder, "missing.wkt"), "--b", "1,1"], 1, r"cannot read"),
    ]

    # Round 2. 1: one more than Int.max results.
    yield ("identify --max-results Int64.max",
           ["identify", COUNTRIES, "--point", "0,0", "--tolerance", "3", "--map-extent=-180,-90,180,90", "--size", "100,100",
            "--max-results", "9223372036854775807"], 0, r'"results":\[')
    # 2: sources that never end fail at their first byte that is not JSON.
    yield ("query /dev/zero", ["query", "/dev/zero", "--return", "count"], 2, r"invalid JSON.*(byte offset 0|position 1)")
    yield ("512 MiB of zeros piped to query -", ["query", "-", "--return", "count"], 2, r"standard input.*invalid JSON",
           ("zeros", 512 << 20))
    yield ("a FeatureCollection then zeros piped to query -", ["query", "-", "--return", "count"], 2,
           r"standard input.*invalid JSON.*byte offset 40", ("prefix-zeros", 512 << 20))
    # 3: the edits file is capped like every argument file, before it is read.
    yield ("edit --edits 2GiB", ["edit", square, "--edits", huge], 2, r"limited to 64 MiB")
    # 4: LIKE with 32,000 '_' against 64,000-character texts on every row.
    like = write(folder, "like.sql", "CONCAT(name, '%s') LIKE '%%%sb%%'" % ("a" * 64_000, "a_" * 32_000))
    yield ("LIKE '%(a_)^32000b%' on 177 rows of 64k text", q + ["--where", "@" + like], 0, r'\{"count":0\}')
    like_twice = write(folder, "like2.sql", "CONCAT(name, '%s') LIKE '%%%sb%%'" % ("a" * 128_000, "a_" * 32_000))
    yield ("LIKE '%(a_)^32000b%' on 177 rows of 128k text", q + ["--where", "@" + like_twice], 0, r'\{"count":0\}')
    like_periodic = write(folder, "like3.sql", "CONCAT('%s', name) LIKE '%%%s_ab%%'" % ("ab" * 64_000, "a_" * 32_000))
    yield ("LIKE '%(a_)^32000_ab%' on 177 rows of (ab)^64000", q + ["--where", "@" + like_periodic], 0, r'\{"count":\d+\}')
    # 5: CQL2 arguments CQL2 1.0 does not allow.
    yield from [
        ("CQL2 T_DURING with an instant", q + ["--filter", "T_DURING(DATE('2020-01-01'), INTERVAL('..','..'))"], 2,
         r"T_DURING is defined on intervals only"),
        ("CQL2 INTERVAL of numbers", q + ["--filter", "T_INTERSECTS(INTERVAL(5, 3), INTERVAL('..','..'))"], 2,
         r"an end of INTERVAL is a date, a timestamp"),
        ("CQL2-JSON interval of numbers",
         q + ["--filter", '{"op":"t_intersects","args":[{"interval":[1e308,-1e308]},{"interval":["..",".."]}]}'], 2,
         r"an end of an interval is a date, a timestamp"),
        # 6: messages name what is wrong.
        ("CQL2-JSON number beyond a double", q + ["--filter", '{"op":"=","args":[{"property":"pop_est"},1e309]}'], 2,
         r"the number 1e309 is out of range"),
    ]
    wide = write(folder, "wide.geojson", feature_collection(
        [geojson_feature("{" + ",".join('"p%d":%d' % (i, i) for i in range(2_000)) + "}")]))
    yield ("a feature with 2,000 properties", ["query", wide, "--return", "count"], 2,
           r'"p1999" \(the feature\'s property number 2000\) would be distinct property number 2000')


EXTREME_INTEGERS = ["9223372036854775807", "-9223372036854775808", "9223372036854775806", "4611686018427387904", "-1", "0"]
EXTREME_REALS = ["1e308", "-1e308", "1.7976931348623157e308", "5e-324", "-0", "nan", "inf", "-inf", "1e309"]


def extreme_values(folder):
    """Every numeric option of the one-shot commands at the ends of its type: each must give an
    answer or a one-line error (status 0, 1 or 2), never a trap. Yields (name, arguments, None)."""
    countries = COUNTRIES
    view = ["--map-extent=-180,-90,180,90", "--size", "100,100"]
    identify = ["identify", countries, "--point", "0,0", "--tolerance", "3"] + view
    query = ["query", countries, "--return", "count"]
    svg = os.path.join(folder, "extreme.svg")
    render = ["render", countries, "--output", svg] + view
    integer_options = [
        (identify, "--max-results"),
        (["query", countries, "--out-fields", "name"], "--offset"),
        (["query", countries, "--out-fields", "name"], "--limit"),
        (["query", countries, "--return", "ids"], "--offset"),
        (["query", countries, "--return", "ids"], "--limit"),
        (["query", countries, "--out-fields", "name", "--order-by", "name"], "--offset"),
        (["query", countries, "--out-fields", "name", "--order-by", "name"], "--limit"),
        (["query", countries, "--out-fields", "name"], "--precision"),
        (query, "--out-sr"),
        (query + ["--geometry", "0,0,1,1"], "--in-sr"),
        (["convert", countries, "--output", os.path.join(folder, "extreme.geojson")], "--precision"),
    ]
    for base, option in integer_options:
        for value in EXTREME_INTEGERS:
            yield ("%s %s %s" % (base[0], option, value), base + [option + "=" + value], None)
    real_options = [
        (identify, "--tolerance"),
        (identify, "--scale"),
        (identify, "--min-scale"),
        (identify, "--max-scale"),
        (render, "--scale"),
        (render, "--min-scale"),
        (render, "--max-scale"),
    ]
    for base, option in real_options:
        for value in EXTREME_REALS:
            yield ("%s %s %s" % (base[0], option, value), base + [option + "=" + value], None)
    for value in ["9223372036854775807,1", "1e308,1e308", "100000,100000", "1e-300,1", "nan,1", "inf,inf"]:
        yield ("identify --size %s" % value, identify + ["--size", value], None)
        yield ("render --size %s" % value, render + ["--size", value], None)
    for value in ["-1e308,-1e308,1e308,1e308", "-5e-324,-5e-324,5e-324,5e-324", "0,0,1e-300,1e-300", "-inf,-1,1,1"]:
        yield ("identify --map-extent %s" % value, identify + ["--map-extent=" + value], None)
        yield ("render --map-extent %s" % value, render + ["--map-extent=" + value], None)
    for value in ["1e308,1e308", "-1e308,5e-324", "nan,0"]:
        yield ("identify --point %s" % value, identify + ["--point=" + value], None)


def run(options, arguments, stdin):
    """Runs the tool; `stdin` is None (no input) or (kind, size): a pipe fed `size` zero bytes,
    after a FeatureCollection's opening with kind "prefix-zeros", by a thread that stops when the
    tool has gone."""
    import threading

    process = subprocess.Popen([options.geosieve] + arguments, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, SWIFT_BACKTRACE="enable=no"))
    if stdin:
        kind, size = stdin

        def feed():
            try:
                if kind == "prefix-zeros":
                    process.stdin.write(b'{"type":"FeatureCollection","features":[')
                piece = bytes(1 << 20)
                for _ in range(size >> 20):
                    process.stdin.write(piece)
                process.stdin.close()
            except (BrokenPipeError, OSError, ValueError):
                pass

        threading.Thread(target=feed, daemon=True).start()
    outputs = {}

    def drain(stream, key):
        outputs[key] = stream.read()

    readers = [threading.Thread(target=drain, args=(process.stdout, "out")), threading.Thread(target=drain, args=(process.stderr, "err"))]
    for reader in readers:
        reader.start()
    try:
        process.wait(timeout=max(20, options.limit * 4))
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise
    finally:
        for reader in readers:
            reader.join()
    return outputs["out"].decode("utf-8", "replace"), outputs["err"].decode("utf-8", "replace"), process.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--geosieve", default=os.path.join(ROOT, ".build/release/geosieve"))
    parser.add_argument("--limit", type=float, default=1.0, help="seconds a case may take (default 1)")
    options = parser.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory(prefix="geosieve-hostile-") as folder:
        all_cases = list(cases(folder)) + [(name, arguments, None, None) for name, arguments, _ in extreme_values(folder)]
        for name, arguments, status, pattern, *stdin in all_cases:
            start = time.monotonic()
            try:
                out, err, code = run(options, arguments, stdin[0] if stdin else None)
                elapsed = time.monotonic() - start
            except subprocess.TimeoutExpired:
                elapsed, out, err, code = time.monotonic() - start, "", "timed out", None
            problems = []
            if status is None:
                # An extreme value: any answer or clear error, no trap.
                if code not in (0, 1, 2):
                    problems.append("exit status %s, expected 0, 1 or 2" % code)
                elif code != 0 and (err.count("\n") != 1 or not err.startswith("error: ") or len(err) > 400):
                    problems.append("stderr is not one short 'error: …' line (%d characters)" % len(err))
            else:
                if code != status:
                    problems.append("exit status %s, expected %d" % (code, status))
                text = out if status == 0 else err
                if not re.search(pattern, text, re.S):
                    problems.append("output does not match %r" % pattern)
            if status is not None and status != 0 and (err.count("\n") != 1 or not err.startswith("error: ") or len(err) > 400):
                problems.append("stderr is not one short 'error: …' line (%d characters)" % len(err))
            if elapsed > options.limit:
                problems.append("took %.2f s, more than %.1f s" % (elapsed, options.limit))
            failures += bool(problems)
            verdict = "ok" if not problems else "FAILED: " + "; ".join(problems) + " | " + (err or out)[:200].strip()
            print("%6.3f s  %-50s %s" % (elapsed, name, verdict))
        print("%d cases, %d failed" % (len(all_cases), failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

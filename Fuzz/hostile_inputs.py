#!/usr/bin/env python3
"""Runs the release `geosieve` on every hostile input the crash-freedom work was asked to survive
(each overflow trap, GEOS crash, hang, memory blow-up and leniency once found) and checks that each
gives a clear error (exit status 2, or 1 for an unreadable file, with one short line on stderr) or
the right answer, within a time limit.

    python3 Fuzz/hostile_inputs.py [--geosieve .build/release/geosieve] [--limit SECONDS]

Prints one line per case with its time; exits 1 when a case fails or takes longer than the limit
(default 1 s). The inputs are generated in a temporary folder (about 2 GB of it is one sparse
file, which takes no space); the hostile GeoParquet files are built here, from files the tool
writes or byte by byte, with a Thrift compact-protocol reader and writer of their own.
"""
import argparse
import json
import os
import re
import struct
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


# --- GeoParquet. Thrift's compact protocol, enough to read, patch and write Parquet's footer and
# page headers: a struct is a list of [field id, type, value], a list (element type, [values]), a
# map (key type, value type, [(key, value)]); booleans in containers are their byte.
T_STOP, T_TRUE, T_FALSE, T_BYTE, T_I16, T_I32, T_I64, T_DOUBLE, T_BINARY, T_LIST, T_SET, T_MAP, T_STRUCT = range(13)


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def zigzag(n):
    return (n << 1) ^ (n >> 63)


class ThriftReader:
    def __init__(self, data, position=0):
        self.data = data
        self.position = position

    def byte(self):
        self.position += 1
        return self.data[self.position - 1]

    def varint(self):
        result = shift = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if b < 0x80:
                return result
            shift += 7

    def zigzag(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def value(self, t):
        if t in (T_TRUE, T_FALSE):
            return t == T_TRUE
        if t == T_BYTE:
            return self.byte()
        if t in (T_I16, T_I32, T_I64):
            return self.zigzag()
        if t == T_DOUBLE:
            self.position += 8
            return struct.unpack("<d", self.data[self.position - 8:self.position])[0]
        if t == T_BINARY:
            n = self.varint()
            self.position += n
            return bytes(self.data[self.position - n:self.position])
        if t in (T_LIST, T_SET):
            header = self.byte()
            size, element = header >> 4, header & 15
            if size == 15:
                size = self.varint()
            return (element, [self.element(element) for _ in range(size)])
        if t == T_MAP:
            size = self.varint()
            if size == 0:
                return (0, 0, [])
            types = self.byte()
            return (types >> 4, types & 15, [(self.element(types >> 4), self.element(types & 15)) for _ in range(size)])
        if t == T_STRUCT:
            return self.struct()
        raise ValueError("Thrift type %d" % t)

    def element(self, t):
        return self.byte() if t in (T_TRUE, T_FALSE) else self.value(t)

    def struct(self):
        fields, last = [], 0
        while True:
            header = self.byte()
            t = header & 15
            if t == T_STOP:
                return fields
            last = last + (header >> 4) if header >> 4 else self.zigzag()
            fields.append([last, t, self.value(t)])


def thrift_struct(fields):
    """The compact-protocol bytes of a struct."""
    out, last = bytearray(), 0
    for fid, t, v in fields:
        if 0 < fid - last <= 15:
            out.append((fid - last) << 4 | t)
        else:
            out.append(t)
            out += varint(zigzag(fid))
        last = fid
        if t not in (T_TRUE, T_FALSE):
            out += thrift_value(t, v)
    out.append(T_STOP)
    return bytes(out)


def thrift_value(t, v):
    if t == T_BYTE:
        return bytes([v & 0xFF])
    if t in (T_I16, T_I32, T_I64):
        return varint(zigzag(v))
    if t == T_DOUBLE:
        return struct.pack("<d", v)
    if t == T_BINARY:
        v = v.encode() if isinstance(v, str) else v
        return varint(len(v)) + v
    if t in (T_LIST, T_SET):
        element, items = v
        out = bytearray([min(len(items), 15) << 4 | element])
        if len(items) >= 15:
            out += varint(len(items))
        for item in items:
            out += bytes([item]) if element in (T_TRUE, T_FALSE) else thrift_value(element, item)
        return bytes(out)
    if t == T_MAP:
        key, value, items = v
        if not items:
            return b"\x00"
        out = bytearray(varint(len(items)) + bytes([key << 4 | value]))
        for k, x in items:
            out += thrift_value(key, k) + thrift_value(value, x)
        return bytes(out)
    if t == T_STRUCT:
        return thrift_struct(v)
    raise ValueError("Thrift type %d" % t)


def get(fields, fid):
    return next((f[2] for f in fields if f[0] == fid), None)


def put(fields, fid, t, v):
    """Sets field `fid` of a struct (added in id order when missing)."""
    for f in fields:
        if f[0] == fid:
            f[1], f[2] = t, v
            return
    fields.append([fid, t, v])
    fields.sort(key=lambda f: f[0])


# The fields of parquet.thrift used here: FileMetaData 2 schema, 3 num_rows, 4 row_groups,
# 5 key_value_metadata; SchemaElement 1 type, 3 repetition_type, 4 name, 5 num_children,
# 6 converted_type; RowGroup 1 columns, 2 total_byte_size, 3 num_rows; ColumnChunk 2 file_offset,
# 3 meta_data; ColumnMetaData 1 type, 2 encodings, 3 path_in_schema, 4 codec, 5 num_values,
# 6 total_uncompressed_size, 7 total_compressed_size, 9 data_page_offset, 11 dictionary_page_offset;
# PageHeader 1 type, 2 uncompressed_page_size, 3 compressed_page_size, 5 data_page_header,
# 7 dictionary_page_header, 8 data_page_header_v2.
BYTE_ARRAY, INT64, FIXED_LEN_BYTE_ARRAY = 6, 2, 7
PLAIN, RLE, RLE_DICTIONARY = 0, 3, 8


def parquet_footer(data):
    """(where the footer starts, its FileMetaData) of a Parquet file's bytes."""
    length = struct.unpack("<I", data[-8:-4])[0]
    start = len(data) - 8 - length
    return start, ThriftReader(data, start).struct()


def with_footer(data, meta=None, footer=None):
    """`data` with its footer replaced by `meta` (or by the bytes `footer`)."""
    start, _ = parquet_footer(data)
    footer = thrift_struct(meta) if footer is None else footer
    return data[:start] + footer + struct.pack("<I", len(footer)) + b"PAR1"


def chunk_meta(meta, group, column):
    """The ColumnMetaData of a column chunk (a column by its name or position)."""
    chunks = get(get(meta, 4)[1][group], 1)[1]
    if isinstance(column, str):
        column = next(k for k, c in enumerate(chunks) if get(get(c, 3), 3)[1] == [column.encode()])
    return get(chunks[column], 3)


def patch_page(data, group, column, change, dictionary=False):
    """`data` with the first data page (or the dictionary page) of a column chunk rewritten:
    `change(header, page)` edits the page header's fields in place and returns the page's new
    bytes, or None to keep them. The offsets after the page move by what its length changed."""
    _, meta = parquet_footer(data)
    chunk = chunk_meta(meta, group, column)
    offset = get(chunk, 11 if dictionary else 9)
    reader = ThriftReader(data, offset)
    header = reader.struct()
    end = reader.position + get(header, 3)
    page = data[reader.position:end]
    new_page = change(header, page)
    replacement = thrift_struct(header) + (page if new_page is None else new_page)
    delta = len(replacement) - (end - offset)
    for g in get(meta, 4)[1]:
        for c in get(g, 1)[1]:
            m = get(c, 3)
            for fid in (9, 10, 11):
                if get(m, fid) is not None and get(m, fid) > offset:
                    put(m, fid, T_I64, get(m, fid) + delta)
    put(chunk, 7, T_I64, get(chunk, 7) + delta)
    return with_footer(data[:offset] + replacement + data[end:], meta)


def data_page(values, payload, encoding=PLAIN, uncompressed=None):
    """A v1 data page (header fields, bytes) of `values` values, uncompressed."""
    size = len(payload) if uncompressed is None else uncompressed
    return ([[1, T_I32, 0], [2, T_I32, size], [3, T_I32, len(payload)],
             [5, T_STRUCT, [[1, T_I32, values], [2, T_I32, encoding], [3, T_I32, RLE], [4, T_I32, RLE]]]], payload)


def dictionary_page(values, payload):
    return ([[1, T_I32, 2], [2, T_I32, len(payload)], [3, T_I32, len(payload)],
             [7, T_STRUCT, [[1, T_I32, values], [2, T_I32, PLAIN]]]], payload)


def plain_bytes(values):
    return b"".join(struct.pack("<I", len(v)) + v for v in values)


def wkb_point(x, y):
    return struct.pack("<BIdd", 1, 1, x, y)


GEO_POINTS = json.dumps({"version": "1.1.0", "primary_column": "geometry",
                         "columns": {"geometry": {"encoding": "WKB", "geometry_types": ["Point"]}}})


def parquet_file(columns, rows, geo=GEO_POINTS, codec=0):
    """A Parquet file written here byte by byte: one row group of `rows` rows, every column
    required; `columns` are (name, physical type, extra SchemaElement fields, [pages])."""
    out = bytearray(b"PAR1")
    chunks = []
    for name, physical, _, pages in columns:
        first, offsets = len(out), {}
        for header, payload in pages:
            offsets.setdefault("dictionary" if get(header, 1) == 2 else "data", len(out))
            out += thrift_struct(header) + payload
        meta = [[1, T_I32, physical], [2, T_LIST, (T_I32, [PLAIN, RLE, RLE_DICTIONARY])], [3, T_LIST, (T_BINARY, [name])],
                [4, T_I32, codec], [5, T_I64, rows], [6, T_I64, len(out) - first], [7, T_I64, len(out) - first],
                [9, T_I64, offsets["data"]]]
        if "dictionary" in offsets:
            meta.append([11, T_I64, offsets["dictionary"]])
        chunks.append([[2, T_I64, first], [3, T_STRUCT, meta]])
    schema = [[[4, T_BINARY, "schema"], [5, T_I32, len(columns)]]]
    for name, physical, extra, _ in columns:
        schema.append(sorted([[1, T_I32, physical], [3, T_I32, 0], [4, T_BINARY, name]] + extra, key=lambda f: f[0]))
    meta = [[1, T_I32, 1], [2, T_LIST, (T_STRUCT, schema)], [3, T_I64, rows],
            [4, T_LIST, (T_STRUCT, [[[1, T_LIST, (T_STRUCT, chunks)], [2, T_I64, len(out) - 4], [3, T_I64, rows]]])]]
    if geo is not None:
        meta.append([5, T_LIST, (T_STRUCT, [[[1, T_BINARY, "geo"], [2, T_BINARY, geo]]])])
    footer = thrift_struct(meta)
    return bytes(out) + footer + struct.pack("<I", len(footer)) + b"PAR1"


def small_parquet(geometries=None, indices=None, dictionary=None, name_values=3, geo=GEO_POINTS, extra_columns=()):
    """Three rows: WKB points in `geometry`, a dictionary-encoded string column `name`
    (dictionary "a", "b"; indices 0, 1, 0 bit-packed at width 1) and INT64 `n` (1, 2, 3); each
    part replaceable."""
    geometries = geometries or [wkb_point(12.5, 41.9), wkb_point(-74.0, 40.7), wkb_point(139.7, 35.7)]
    dictionary = dictionary or dictionary_page(2, plain_bytes([b"a", b"b"]))
    indices = indices if indices is not None else b"\x01\x03\x02"
    columns = [
        ("geometry", BYTE_ARRAY, [], [data_page(len(geometries), plain_bytes(geometries))]),
        ("name", BYTE_ARRAY, [[6, T_I32, 0]], [dictionary, data_page(name_values, indices, RLE_DICTIONARY)]),
        ("n", INT64, [], [data_page(3, struct.pack("<3q", 1, 2, 3))]),
    ] + list(extra_columns)
    return parquet_file(columns, 3, geo)


def snappy_literal(data):
    assert 0 < len(data) <= 60
    return bytes([(len(data) - 1) << 2]) + data


def parquet_cases(folder, geosieve):
    """Hostile GeoParquet files, each built from a valid one (written by GeoSieve from the cities,
    or here byte by byte) with one part broken: each must give exit status 2 and one line naming
    the file and where in it the problem is, quickly."""

    saved = []

    def save(name, data):
        # Numbered: the cases are all written before the first runs.
        saved.append(name)
        path = os.path.join(folder, "%02d-%s" % (len(saved), name))
        with open(path, "wb") as f:
            f.write(data)
        return path

    def count(path):
        return ["query", path, "--return", "count"]

    # The cities as GeoSieve writes them (rows 1-100, 101-200, 201-243; columns fid, name,
    # geometry and the bbox covering), once per codec.
    written = {}
    cities = os.path.join(ROOT, "Tests/Fixtures/naturalearth_cities.geojson")
    for codec in ("none", "snappy", "gzip", "zstd"):
        path = os.path.join(folder, "cities-%s.parquet" % codec)
        subprocess.run([geosieve, "convert", cities, "--output", path, "--compression", codec, "--row-group-size", "100"],
                       check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, SWIFT_BACKTRACE="enable=no"))
        with open(path, "rb") as f:
            written[codec] = f.read()
    base = written["none"]
    start, meta = parquet_footer(base)
    assert thrift_struct(meta) == base[start:-8], "the Thrift codec here does not write back GeoSieve's footer"
    footer = base[start:-8]
    yield ("GeoParquet: the cities as GeoSieve writes them", count(save("cities.parquet", base)), 0, r'\{"count":243\}')
    handmade = save("handmade.parquet", small_parquet())
    yield ("GeoParquet: a file written here byte by byte", ["query", handmade, "--where", "name = 'b' AND n = 2", "--return", "count"],
           0, r'\{"count":1\}')

    # The file's frame and footer.
    yield ("GeoParquet: the first half of a file", count(save("half.parquet", base[:len(base) // 2])), 2,
           r'half\.parquet, byte \d+: the file does not end with "PAR1" \(truncated\?\)')
    yield ("GeoParquet: 11 bytes", count(save("short.parquet", base[:11])), 2, r'short\.parquet, byte 0: not a Parquet file')
    yield ("GeoParquet: a footer cut in half", count(save("cut-footer.parquet", with_footer(base, footer=footer[:len(footer) // 2]))), 2,
           r'cut-footer\.parquet, byte \d+: Thrift: ')
    for name, length in (("file + 1", len(base) + 1), ("2^32 - 1", 0xFFFFFFFF)):
        data = base[:-8] + struct.pack("<I", length) + b"PAR1"
        yield ("GeoParquet: a footer length of %s bytes" % name, count(save("footer-length.parquet", data)), 2,
               r'footer-length\.parquet, byte %d: a footer of %d bytes in a file of %d' % (len(base) - 8, length, len(base)))
    for name, rows in (("2^31", 1 << 31), ("2^63 - 1", (1 << 63) - 1), ("-1", -1)):
        _, m = parquet_footer(base)
        put(m, 3, T_I64, rows)
        put(get(m, 4)[1][0], 3, T_I64, rows)
        yield ("GeoParquet: a footer claiming %s rows" % name, count(save("rows.parquet", with_footer(base, m))), 2,
               r'rows\.parquet: row group 1 counts %d rows in a file of \d+ bytes' % rows)
    _, m = parquet_footer(base)
    put(get(m, 4)[1][1], 3, T_I64, 8 * len(base))
    yield ("GeoParquet: a row group claiming 8 rows a byte", count(save("rows-per-byte.parquet", with_footer(base, m))), 2,
           r'rows-per-byte\.parquet, row group 2, field "geometry", byte \d+: the column chunk ends after 100 of its %d values' % (8 * len(base)))
    _, m = parquet_footer(base)
    columns = get(get(m, 4)[1][1], 1)[1]
    columns.pop()
    yield ("GeoParquet: a row group with a column chunk missing", count(save("columns.parquet", with_footer(base, m))), 2,
           r'columns\.parquet: row group 2 has %d column chunks for %d columns' % (len(columns), len(columns) + 1))
    _, m = parquet_footer(base)
    put(chunk_meta(m, 0, "name"), 7, T_I64, (1 << 63) - 1)
    # (Its pages are read up to the footer.)
    yield ("GeoParquet: a column chunk of 2^63 - 1 bytes", count(save("chunk-size.parquet", with_footer(base, m))), 0, r'\{"count":243\}')
    _, m = parquet_footer(base)
    put(chunk_meta(m, 2, "geometry"), 9, T_I64, len(base) + 1000)
    yield ("GeoParquet: a column chunk past the file's end", count(save("chunk-offset.parquet", with_footer(base, m))), 2,
           r'chunk-offset\.parquet, row group 3, field "geometry": a column chunk at byte %d' % (len(base) + 1000))

    # Thrift nested deeply: an unknown struct field of the footer (skipped) and of a schema
    # element, a list of lists; and a schema tree 10,000 groups deep.
    deep_struct = bytes([T_STRUCT]) + varint(zigzag(100)) + b"\x1c" * 9_999 + b"\x00" * 10_000
    yield ("GeoParquet: a footer struct nested 10,000 deep", count(save("deep-struct.parquet", with_footer(base, footer=footer[:-1] + deep_struct + b"\x00"))),
           2, r'deep-struct\.parquet, byte \d+: Thrift: structs nested more than 64 deep')
    deep_list = bytes([T_LIST]) + varint(zigzag(100)) + b"\x19" * 9_999 + b"\x09"
    yield ("GeoParquet: a footer list nested 10,000 deep", count(save("deep-list.parquet", with_footer(base, footer=footer[:-1] + deep_list + b"\x00"))),
           2, r'deep-list\.parquet, byte \d+: Thrift: containers nested more than 64 deep')
    _, m = parquet_footer(base)
    element = get(m, 2)[1][1]
    element_bytes = thrift_struct(element)
    schema_start = footer.index(element_bytes)
    nested = footer[:schema_start] + element_bytes[:-1] + deep_struct + footer[schema_start + len(element_bytes) - 1:]
    yield ("GeoParquet: a schema element nested 10,000 deep", count(save("deep-element.parquet", with_footer(base, footer=nested))), 2,
           r'deep-element\.parquet, byte \d+: Thrift: structs nested more than 64 deep')
    handmade_bytes = small_parquet()
    _, m = parquet_footer(handmade_bytes)
    groups = [[[3, T_I32, 1], [4, T_BINARY, "g%d" % k], [5, T_I32, 1]] for k in range(10_000)]
    leaf = [[1, T_I32, INT64], [3, T_I32, 1], [4, T_BINARY, "n"]]
    put(m, 2, T_LIST, (T_STRUCT, [[[4, T_BINARY, "schema"], [5, T_I32, 1]]] + groups + [leaf]))
    yield ("GeoParquet: a schema tree 10,000 groups deep", count(save("deep-schema.parquet", with_footer(handmade_bytes, m))), 2,
           r'deep-schema\.parquet: a schema nested more than 64 levels')
    _, m = parquet_footer(handmade_bytes)
    schema = get(m, 2)[1]
    # Four children counted, three trees (one a group around the geometry) in the five elements.
    put(schema[0], 5, T_I32, 4)
    schema[1:2] = [[[3, T_I32, 1], [4, T_BINARY, "group"], [5, T_I32, 1]], schema[1]]
    yield ("GeoParquet: a schema root with more children than its tree", count(save("root-children.parquet", with_footer(handmade_bytes, m))), 2,
           r'root-children\.parquet: the schema ends')

    # Pages: sizes, codecs and encodings.
    for codec in ("none", "snappy", "gzip", "zstd"):
        def gigabyte(header, page):
            put(header, 2, T_I32, 1 << 30)
        yield ("GeoParquet: a %s page declaring 1 GiB" % codec, count(save("gigabyte.parquet", patch_page(written[codec], 0, "geometry", gigabyte))), 2,
               r'gigabyte\.parquet, row group 1, field "geometry", byte \d+: page at byte \d+: a page declares 1073741824 uncompressed bytes from \d+ compressed')
    def past_chunk(header, page):
        put(header, 3, T_I32, (1 << 31) - 1)
    yield ("GeoParquet: a page of 2^31 - 1 compressed bytes", count(save("page-size.parquet", patch_page(base, 1, "name", past_chunk))), 2,
           r'page-size\.parquet, row group 2, field "name", byte \d+: a page of 2147483647 bytes runs past its column chunk')
    for name, offset in (("offset 1000", 1000), ("offset 0", 0)):
        def bad_copy(header, page, offset=offset):
            # 120 bytes of literals, then a 4-byte copy from `offset` bytes back.
            block = varint(2000) + snappy_literal(b"x" * 60) * 2 + bytes([(4 - 1) << 2 | 2]) + struct.pack("<H", offset) + b"\x00" * 8
            put(header, 2, T_I32, 2000)
            put(header, 3, T_I32, len(block))
            return block
        yield ("GeoParquet: a snappy copy at %s" % name, count(save("snappy.parquet", patch_page(written["snappy"], 0, "geometry", bad_copy))), 2,
               r'snappy\.parquet, row group 1, field "geometry", byte \d+: page at byte \d+: snappy: ')
    def bad_gzip(header, page):
        return b"\x1f\x8b\x08\x00" + b"\xff" * (len(page) - 4)
    yield ("GeoParquet: a gzip page of garbage", count(save("gzip.parquet", patch_page(written["gzip"], 1, "geometry", bad_gzip))), 2,
           r'gzip\.parquet, row group 2, field "geometry", byte \d+: page at byte \d+: bad GZIP data')
    def bad_zstd(header, page):
        return page[:4] + b"\xff" * (len(page) - 4)
    yield ("GeoParquet: a zstd page of garbage", count(save("zstd.parquet", patch_page(written["zstd"], 2, "name", bad_zstd))), 2,
           r'zstd\.parquet, row group 3, field "name", byte \d+: page at byte \d+: bad ZSTD data')
    yield ("GeoParquet: a dictionary index out of range", count(save("index.parquet", small_parquet(indices=b"\x08\x06\xc8"))), 2,
           r'index\.parquet, row group 1, field "name", byte \d+: page at byte \d+: dictionary index 200 of a dictionary of 2 values')
    huge_dictionary = small_parquet(dictionary=dictionary_page((1 << 31) - 1, plain_bytes([b"a", b"b"])))
    yield ("GeoParquet: a dictionary page of 2^31 - 1 strings", count(save("dictionary-count.parquet", huge_dictionary)), 2,
           r'dictionary-count\.parquet, row group 1, field "name", byte \d+: page at byte \d+: the page ends inside a value')
    # A run of 2^31 - 1 indices: the page's values count past the chunk's 3 rows.
    long_run = small_parquet(indices=b"\x01" + varint(((1 << 31) - 1) << 1) + b"\x00", name_values=(1 << 31) - 1)
    yield ("GeoParquet: a data page of 2^31 - 1 values in 3 rows", count(save("page-values.parquet", long_run)), 2,
           r'page-values\.parquet, row group 1, field "name", byte \d+: a page of 2147483647 values past the chunk\'s 3 rows')
    for codec, name in ((2, "GZIP"), (6, "ZSTD")):
        # A v2 page whose 4 bytes of levels are more than the 2 bytes it says it holds in all.
        v2 = ([[1, T_I32, 3], [2, T_I32, 2], [3, T_I32, 4 + 8],
               [8, T_STRUCT, [[1, T_I32, 3], [2, T_I32, 0], [3, T_I32, 3], [4, T_I32, PLAIN], [5, T_I32, 4], [6, T_I32, 0]]]],
              b"\x00" * 12)
        data = small_parquet(extra_columns=[("v2", INT64, [], [v2])])
        _, m = parquet_footer(data)
        put(chunk_meta(m, 0, "v2"), 4, T_I32, codec)
        yield ("GeoParquet: a %s v2 page smaller than its levels" % name, count(save("v2.parquet", with_footer(data, m))), 2,
               r'v2\.parquet, row group 1, field "v2", byte \d+: page at byte \d+: ')

    # The geo metadata and the geometries.
    for name, geo, pattern in (
        ("that is not JSON", '{"version": "1.1.0", "primary_column": "geometry", "columns": {', r'the "geo" metadata is not JSON'),
        ("without its primary column", '{"version": "1.1.0", "columns": {}}', r'the "geo" metadata names no primary column'),
        ("with a 10,000-deep array", "[" * 10_000 + "]" * 10_000, r'the "geo" metadata is not JSON'),
        ("with a geometry column of INT64", GEO_POINTS.replace('"geometry"', '"n"'), r'the geometry column "n" is not a top-level BYTE_ARRAY column'),
    ):
        yield ("GeoParquet: geo metadata %s" % name, count(save("geo.parquet", small_parquet(geo=geo))), 2, r'geo\.parquet: .*' + pattern)
    # A CRS whose EPSG code is no integer is an unknown spatial reference.
    for code in (1e300, -1e300, 4326.5):
        geo = json.dumps({"version": "1.1.0", "primary_column": "geometry", "columns": {"geometry": {
            "encoding": "WKB", "crs": {"id": {"authority": "EPSG", "code": code}}}}})
        yield ("GeoParquet: geo metadata with a CRS code of %r" % code, count(save("crs.parquet", small_parquet(geo=geo))), 0, r'\{"count":3\}')
    for name, wkb, pattern in (
        ("random bytes", b"\x01\xff\xfe\xfd\xfc" + b"\x42" * 20, r"unknown geometry type code 4244504319"),
        ("a point cut short", wkb_point(1, 2)[:13], r"unexpected end of input"),
        ("a polygon of 2^32 - 1 rings", struct.pack("<BII", 1, 3, 0xFFFFFFFF) + b"\x00" * 16, r"4294967295 rings cannot fit"),
        ("a line of 2^31 points", struct.pack("<BII", 1, 2, 1 << 31) + b"\x00" * 32, r"2147483648 points cannot fit"),
        ("a collection nested 10,000 deep", struct.pack("<BII", 1, 7, 1) * 10_000 + wkb_point(1, 2), r"nest deeper than"),
        ("an empty byte string", b"", r"unexpected end of input"),
        ("a point at infinity", wkb_point(float("inf"), 0), r"non-finite"),
    ):
        geometries = [wkb_point(0, 0), wkb, wkb_point(1, 1)]
        yield ("GeoParquet: a geometry of %s" % name, count(save("wkb.parquet", small_parquet(geometries=geometries))), 2,
               r'wkb\.parquet, row group 1, record 2: .*' + pattern)


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
        all_cases = (list(cases(folder)) + list(parquet_cases(folder, options.geosieve))
                     + [(name, arguments, None, None) for name, arguments, _ in extreme_values(folder)])
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

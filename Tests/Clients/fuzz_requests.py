#!/usr/bin/env python3
"""Hostile-request fuzzer of `geosieve serve`: proves that the server never crashes, never hangs,
never answers a server error and keeps its memory bounded, whatever it is sent.

Usage:
    fuzz_requests.py BASE_URL SERVER_PID --count 3000 --seed 1
                     [--collections cities,countries,boroughs] [--token T] [--dump-dir DIR] [--verbose]

BASE_URL    the server's root, as printed on its 'serving http://HOST:PORT' line
SERVER_PID  the server's process id (its liveness and memory are read from /proc/PID/status)

The server must serve the named collections (default: Tests/Fixtures/naturalearth_cities.geojson
as cities, naturalearth_lowres.geojson as countries, nybb.geojson as boroughs); their fields,
geometry types, extents and object IDs are read from its layer documents at the start. With
--allow-edits the server rewrites its sources: serve copies. With --token, pass the same --token
here (it is sent with every request).

Plain Python 3, standard library only. Every request is written byte for byte on its own socket
(so that what is sent is exactly what is reported), with a 10 s deadline over all of it.

What it sends:
  * A seeded corpus of valid requests for every route of both protocols (ArcGIS REST
    FeatureServer: directory, service, layer, query GET and POST, attachments, and the edits
    applyEdits/addFeatures/updateFeatures/deleteFeatures/add-, update-, deleteAttachments and the
    service-level applyEdits; OGC API - Features: landing, api, conformance, collections,
    collection, items, item, queryables, and POST/PUT/DELETE of items), each of --count requests a
    seeded mutation of one of them: byte flips, insertions and deletions in the path, the query
    and the body; broken percent-escapes and escapes decoding to NUL or invalid UTF-8; `+`, `&` and
    `=` noise; duplicated parameters; huge values (a 100 KB where clause, 10,000 objectIds,
    parentheses nested 5,000 deep in where and CQL2 text, CQL2 JSON nested 5,000 deep); numbers
    at the extremes (1e308, -0, NaN, 9223372036854775808, resultOffset 2^63); invalid,
    self-intersecting and huge (100,000-vertex) geometries; wrong content types; multipart
    bodies with bad boundaries; the methods PUT, DELETE, PATCH, OPTIONS and HEAD on every route;
    long paths with `..`, `%2e%2e` and encoded slashes; 20,000 form parameters and a multipart
    body of 20,000 parts; lists of 10,000 sort keys, fields, statistics or IDs; a 100,000-point
    multipoint. Each of these kinds is sent at least once
    per run (a fixed list placed at seeded positions, about 225 of the requests, the method sweep
    included); the rest of the run mutates at random, one to three structural mutations and up
    to three byte-level ones per request (bytes a request target cannot carry are then
    percent-encoded three times in four, and sent as they are, malformed HTTP, otherwise).
  * Raw socket requests, spread over the run: malformed request lines, HTTP/0.9 and HTTP/9.9,
    headers without a colon, a 200 KB header, 10,000 headers, a Content-Length larger than the
    body sent then a close, bad chunk sizes, pipelined requests, a client that sends half a
    request and stalls (a normal request must succeed meanwhile), 200 idle connections then a
    normal request, a burst of concurrent requests, abrupt resets. After each, GET /ogc must
    answer within 5 s.

What it checks:
  * No request hangs (no answer within 10 s is a failure, except on the deliberate stalls where
    only the server's liveness counts); no 5xx (a 503 only with Retry-After), including an ArcGIS
    error document whose code is 5xx inside an HTTP 200; every JSON answer parses (strictly: no
    NaN); no HTML answer (OGC f=html pages) shows the markup `<fuzzmarker>` that requests carry in
    values, Host headers and edited properties unescaped; no answer is cut short; a closed
    connection without an answer only for malformed HTTP.
  * Every 100 requests: GET BASE/ogc answers 200 within 5 s, and the server's VmRSS; after every
    request, that the process is alive (if it is gone, the run stops at once and prints the last
    5 requests sent). At the end the peak RSS (VmHWM) must be under 1 GiB.
  * After the run, every collection still answers `query?where=1=1&returnCountOnly=true` with a
    count; when the server allows edits (its /ogc/conformance lists Part 4
    create-replace-delete), also a full query in Esri JSON and GeoJSON, an OGC items page and its
    layer document. The fuzzer's valid edits mostly delete what they added (a huge feature
    that was added is deleted at once).

Prints each failure as it happens (the request's bytes, truncated, and the answer), a note for
each request that took over 3 s, then one summary line
    fuzz: N requests (M raw), statuses {200: ..., 400: ...}, peak RSS X MiB, T s
(N counts the mutated requests and the raw cases, M the raw cases; the statuses count every
answer, those of pipelined and concurrent raw requests included, plus 'closed' for a malformed
request the server closed, 'waiting' for bytes that do not end a request yet, 'hang'), and exits
0 when nothing failed, 1 otherwise (2 for a usage error or a server that cannot be reached at the
start). A run stops early when the server dies, stops answering GET /ogc twice in a row, or
after 5 hung requests. With --dump-dir, the exact bytes of every failing request are saved
there (replay with `nc HOST PORT < FILE`).
"""

import argparse
import collections
import json
import zlib
import math
import os
import random
import re
import select
import socket
import struct
import sys
import threading
import time
import urllib.parse

REQUEST_TIMEOUT = 10.0
LIVENESS_TIMEOUT = 5.0
LIVENESS_EVERY = 100
RSS_LIMIT_KB = 1024 * 1024
MAX_PRINTED_FAILURES = 40
HISTORY = 5
HANG_LIMIT = 5
SLOW_SECONDS = 3.0
HUGE_LIST = 10_000  # items in the huge list parameters (sort keys, fields, statistics, IDs)

# What the fixtures hold (Tests/Fixtures/README.md); the server's layer documents win where they differ.
KNOWN_SCHEMAS = {
    "cities": ("point", [("fid", "int"), ("name", "str")]),
    "countries": ("polygon", [("fid", "int"), ("pop_est", "float"), ("continent", "str"), ("name", "str"),
                              ("iso_a3", "str"), ("gdp_md_est", "float")]),
    "boroughs": ("multipolygon", [("fid", "int"), ("BoroCode", "int"), ("BoroName", "str"), ("Shape_Leng", "float"),
                                  ("Shape_Area", "float")]),
}
OID = "OBJECTID"
EDIT_CONFORMANCE = re.compile(r"ogcapi-features-4/[^\"]*/conf/create-replace-delete")


# --- The process -----------------------------------------------------------------------------


def proc_status(pid):
    """The fields of /proc/PID/status, None when the process is gone (or a zombie)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    state = fields.get("State", "").strip()
    if state.startswith(("Z", "X")):
        return None
    return fields


def kb(fields, name):
    value = fields.get(name, "0 kB").strip().split()
    return int(value[0]) if value else 0


# --- HTTP over a socket ----------------------------------------------------------------------


class Hang(Exception):
    """No answer (or no progress) before the deadline."""


class BadResponse(Exception):
    """An answer that is not HTTP/1.x."""


class Response:
    def __init__(self, status, reason, headers, body, truncated):
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self.truncated = truncated

    def header(self, name):
        name = name.lower()
        for key, value in self.headers:
            if key == name:
                return value
        return None


class Connection:
    """One client socket with a deadline over everything done on it."""

    def __init__(self, host, port, timeout):
        self.deadline = time.monotonic() + timeout
        try:
            self.sock = socket.create_connection((host, port), timeout=timeout)
        except TimeoutError:
            raise Hang("the connection was not accepted within the deadline")
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        self.eof = False
        self.answered_early = False

    def remaining(self):
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise Hang("no answer within the deadline")
        return left

    def wait(self, events):
        poller = select.poll()
        poller.register(self.sock, events)
        ready = poller.poll(self.remaining() * 1000)
        if not ready:
            raise Hang("no answer within the deadline")
        return ready[0][1]

    def send(self, data, stop_on_answer=True):
        """Sends `data`; stops early, without error, when the server answers or closes first
        (a 413 before the whole body, a reset). With `stop_on_answer` false (pipelining), what
        arrives meanwhile is read into the buffer and the sending goes on."""
        view = memoryview(data)
        while view:
            events = self.wait(select.POLLIN | select.POLLOUT)
            if events & (select.POLLIN | select.POLLHUP | select.POLLERR):
                if stop_on_answer or not self.fill():
                    self.answered_early = True
                    return
                continue
            try:
                n = self.sock.send(view[:262144])
            except (BrokenPipeError, ConnectionResetError):
                self.answered_early = True
                return
            except socket.timeout:
                raise Hang("the server takes no more bytes")
            view = view[n:]

    def fill(self):
        """Reads more bytes; False at the end of the stream (a reset counts as an end)."""
        if self.eof:
            return False
        self.wait(select.POLLIN)
        try:
            chunk = self.sock.recv(262144)
        except ConnectionResetError:
            chunk = b""
        except socket.timeout:
            raise Hang("no answer within the deadline")
        if not chunk:
            self.eof = True
            return False
        self.buf += chunk
        return True

    def line(self):
        while True:
            i = self.buf.find(b"\r\n")
            if i >= 0:
                line = bytes(self.buf[:i])
                del self.buf[:i + 2]
                return line
            if len(self.buf) > 1 << 20 or not self.fill():
                return None

    def read_response(self, head=False, skip_interim=True):
        """The next answer; None when the stream ended before any of its bytes."""
        while True:
            while True:
                end = self.buf.find(b"\r\n\r\n")
                if end >= 0:
                    break
                if len(self.buf) > 1 << 20:
                    raise BadResponse("an answer head over 1 MiB")
                if not self.fill():
                    if not self.buf:
                        return None
                    raise BadResponse(f"the connection closed inside an answer head: {bytes(self.buf[:200])!r}")
            lines = bytes(self.buf[:end]).split(b"\r\n")
            del self.buf[:end + 4]
            match = re.match(rb"HTTP/1\.[01] (\d{3})(?: (.*))?$", lines[0])
            if not match:
                raise BadResponse(f"not an HTTP/1.x status line: {lines[0][:200]!r}")
            status = int(match.group(1))
            headers = []
            for line in lines[1:]:
                name, sep, value = line.partition(b":")
                if not sep:
                    raise BadResponse(f"an answer header without a colon: {line[:200]!r}")
                headers.append((name.strip().decode("latin-1").lower(), value.strip().decode("latin-1")))
            if 100 <= status < 200 and status != 101 and skip_interim:
                continue
            response = Response(status, (match.group(2) or b"").decode("latin-1"), headers, b"", False)
            if head or status in (204, 304) or 100 <= status < 200:
                return response
            encoding = (response.header("transfer-encoding") or "").lower()
            length = response.header("content-length")
            if "chunked" in encoding:
                body = bytearray()
                while True:
                    size_line = self.line()
                    if size_line is None:
                        response.truncated = True
                        break
                    try:
                        size = int(size_line.split(b";")[0].strip(), 16)
                    except ValueError:
                        raise BadResponse(f"a bad chunk size in an answer: {size_line[:100]!r}")
                    if size == 0:
                        while True:
                            trailer = self.line()
                            if not trailer:
                                break
                        break
                    while len(self.buf) < size + 2:
                        if not self.fill():
                            response.truncated = True
                            break
                    if response.truncated:
                        body += self.buf
                        self.buf.clear()
                        break
                    body += self.buf[:size]
                    del self.buf[:size + 2]
                response.body = bytes(body)
            elif length is not None:
                try:
                    n = int(length)
                except ValueError:
                    raise BadResponse(f"a bad Content-Length in an answer: {length!r}")
                while len(self.buf) < n:
                    if not self.fill():
                        response.truncated = True
                        break
                response.body = bytes(self.buf[:n])
                del self.buf[:n]
            else:
                while self.fill():
                    pass
                response.body = bytes(self.buf)
                self.buf.clear()
            return response

    def close(self, reset=False):
        try:
            if reset:
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.sock.close()
        except OSError:
            pass


# --- Requests --------------------------------------------------------------------------------


class Raw(str):
    """A query or form value sent as written (already encoded)."""


QUERY_SAFE = "-_.~"


def encode_component(value):
    if isinstance(value, Raw):
        return str(value).encode("latin-1", "surrogateescape")
    return urllib.parse.quote(value, safe=QUERY_SAFE).encode("ascii")


def encode_pairs(pairs):
    out = []
    for item in pairs:
        if isinstance(item, Raw):  # a whole item as written
            out.append(encode_component(item))
            continue
        name, value = item
        out.append(encode_component(name) + b"=" + encode_component(value))
    return b"&".join(out)


class Request:
    """A request before it is written: its query and form as (name, value) pairs."""

    def __init__(self, family, label, method, path, query=None, form=None, body=None, ctype=None, headers=None,
                 kind="read"):
        self.family = family  # "arcgis", "ogc" or "other"
        self.label = label
        self.method = method
        self.path = path
        self.query = query  # None: no '?'
        self.form = form  # None: no form body
        self.body = body  # bytes: a body as is (JSON, multipart)
        self.ctype = ctype  # None: the default for the body; "": no Content-Type
        self.headers = headers or []
        self.kind = kind  # "read", "add", "update", "delete", ...
        self.notes = []

    def params(self, rng, create=True):
        """The pairs a parameter mutation works on: the form when there is one, else the query."""
        if self.form is not None and (self.query is None or rng.random() < 0.8):
            return self.form
        if self.query is None and create:
            self.query = []
        return self.query


TCHAR = set(b"!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


class Wire:
    """A request as bytes, ready to send."""

    def __init__(self, family, label, method, target, headers, body, kind="read"):
        self.family = family
        self.label = label
        self.method = method  # bytes
        self.target = target  # bytes
        self.headers = headers  # [(bytes, bytes)]
        self.body = body  # bytes or None
        self.kind = kind
        self.keep_alive_probe = False

    @property
    def malformed(self):
        """Whether this is not well-formed HTTP/1.1 (then a close without an answer is fine)."""
        if not self.method or any(b not in TCHAR for b in self.method):
            return True
        if not self.target or any(b < 0x21 or b > 0x7E for b in self.target):
            return True
        for name, value in self.headers:
            if not name or any(b not in TCHAR for b in name):
                return True
            if any(b in (0, 10, 13) or (b < 0x20 and b != 9) or b == 0x7F for b in value):
                return True
        return False

    def bytes(self, host_header, close=True):
        lines = [self.method + b" " + self.target + b" HTTP/1.1"]
        names = {name.lower() for name, _ in self.headers}
        if b"host" not in names:
            lines.append(b"Host: " + host_header)
        lines.append(b"User-Agent: geosieve-fuzz")
        if b"accept" not in names:
            lines.append(b"Accept: */*")
        if close and b"connection" not in names:
            lines.append(b"Connection: close")
        for name, value in self.headers:
            lines.append(name + b": " + value)
        body = self.body
        if body is None and self.method in (b"POST", b"PUT", b"PATCH"):
            body = b""
        if body is not None and b"content-length" not in names and b"transfer-encoding" not in names:
            lines.append(b"Content-Length: " + str(len(body)).encode())
        return b"\r\n".join(lines) + b"\r\n\r\n" + (body or b"")


def to_wire(request):
    target = request.path.encode("latin-1", "surrogateescape") if isinstance(request.path, str) else request.path
    if request.query is not None:
        target += b"?" + encode_pairs(request.query)
    headers = [(n.encode("latin-1", "surrogateescape") if isinstance(n, str) else n,
                v.encode("latin-1", "surrogateescape") if isinstance(v, str) else v) for n, v in request.headers]
    body = request.body
    ctype = request.ctype
    if request.form is not None:
        body = encode_pairs(request.form)
        if ctype is None:
            ctype = "application/x-www-form-urlencoded"
    if ctype:
        headers.append((b"Content-Type", ctype.encode("latin-1", "surrogateescape")))
    return Wire(request.family, request.label, request.method.encode("latin-1", "surrogateescape"), target, headers, body,
                request.kind)


# --- Values ----------------------------------------------------------------------------------

EXTREME_NUMBERS = [
    "1e308", "-1e308", "1.7976931348623157e308", "1e309", "-1e309", "-0", "-0.0", "0e-999", "NaN", "nan", "-NaN",
    "Infinity", "-Infinity", "inf", "9223372036854775808", "9223372036854775807", "-9223372036854775808",
    "-9223372036854775809", "18446744073709551616", "340282366920938463463374607431768211457", "1" * 400,
    "0." + "0" * 400 + "1", "4.9e-324", "2.2250738585072014e-308", "1e-400", "0x7fffffff", "1_000", "\uff11\uff12",
    "+5", " 5 ", "-", ".", "e", "1e", "--1", "0" * 1000 + "1", "1.5", "2147483648", "-2147483649", "65536",
]
EXTREME_STRINGS = [
    "", " ", "\t", "null", "true", "[]", "{}", "'", "''", "\"", "\\", "%", "%%", "\x00", "a\x00b", "\x01\x02\x7f",
    "\u202e", "\u00ff", "\U0001d11e" * 50, "A" * 10000, "1=1; DROP TABLE x", "*", ",", ",,,", "..", "../../etc/passwd",
    "\ufeff", "\u0301" * 100, "${jndi:ldap://x}", "<script>", "%s%n%x", "\r\n", "\ud7ff\ue000", "e\u0301",
    "<fuzzmarker>", "\"'><fuzzmarker x=\"", "&lt;fuzzmarker&gt;", "</title><fuzzmarker>",
]
# Sent in values that HTML pages may show; an HTML answer must never carry it as a tag.
HTML_MARKER = b"<fuzzmarker"
EXTREME_IDS = [
    "", "0", "-1", "-0", "00", "01", "1.0", "1e3", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "-9223372036854775809", "0x1", " 1", "%201", "%00", "%2e%2e", "..", ".", "%2F", "1%2F2",
    "x" * 300, "%F0%9F%98%80", "%FF", "1;2", "1,2", "NaN", "18446744073709551616",
]
PERCENT_BROKEN = [b"%", b"%G", b"%4", b"%zz", b"%%", b"%0", b"%-1", b"% 41", b"%4g", b"%%41", b"%\x00"]
PERCENT_BAD_UTF8 = [b"%00", b"%C0%80", b"%ED%A0%80", b"%FF", b"%FE%FF", b"%F4%90%80%80", b"%C3", b"%E2%82", b"%80",
                    b"%F8%88%80%80%80", b"%EF%BF%BF", b"%2500", b"%C0%AE", b"%E0%80%AF", b"%00%00%00"]
SEPARATOR_NOISE = [b"+", b"++++", b"&", b"&&&", b"=", b"==", b"&=", b"=&", b"&=&=", b"a=b=c", b"+&+=+", b"&&=&&",
                   b"=" * 50, b"&" * 500, b"+" * 1000]
BYTE_PALETTE = [b"\x00", b"\xff", b"\x80", b"\xc3", b"'", b"\"", b"\\", b"/", b"?", b"#", b";", b",", b"(", b")", b"[",
                b"]", b"{", b"}", b"*", b"%", b"&", b"=", b"+", b" ", b"\t", b"\r\n", b"..", b"\xef\xbb\xbf"]
JSON_PALETTE = [b"{", b"}", b"[", b"]", b"\"", b",", b":", b"\\", b"\\u0000", b"\\ud800", b"1e308", b"-", b"null",
                b"NaN", b"\x00", b"\xff", b"true", b"{}", b"[]", b"\"\":", b"9223372036854775808"]
PATH_ATTACKS = [
    "/..", "/../..", "/%2e%2e", "/%2E%2E/%2e%2e", "/.%2e", "%2F..%2F", "/%252e%252e", "//", "/./", "/%2f", "%5C..%5C",
    "/..;/", "/%00", "/%ff", "/~", "/%c0%ae%c0%ae/", "/.", "/%2e", "/..%2f..%2f", "/%2e%2e%5c", "/;", "/?", "/%3F",
    "/%23", "/%20", "/ ", "\\..\\",
]
METHODS_SWEEP = ["PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]
CONTENT_TYPES = [
    "application/json", "text/plain", "application/octet-stream", "", "multipart/form-data",
    "multipart/form-data; boundary=", "multipart/form-data; boundary=\"\"", "multipart/form-data; boundary=" + "b" * 201,
    "multipart/form-data; boundary=\x00", "application/x-www-form-urlencoded; charset=utf-16",
    "APPLICATION/X-WWW-FORM-URLENCODED", "application/x-www-form-urlencodedXYZ", "application/geo+json",
    "application/geo+json; charset=latin1", "text/html; boundary=x", "multipart/mixed; boundary=x", ";;;;", "a" * 10000,
    "application/json; charset=\xff", "multipart/form-data; boundary=a; boundary=b", "*/*", "application/x-ndjson",
]


def star_ring(vertices, cx=0.0, cy=0.0, r1=60.0, r2=30.0):
    """A closed star-shaped ring of `vertices` vertices (valid, non-self-intersecting)."""
    points = []
    for i in range(vertices):
        r = r1 if i % 2 == 0 else r2
        a = 2 * math.pi * i / vertices
        points.append((round(cx + r * math.cos(a), 9), round(cy + r * 0.9 * math.sin(a), 9)))
    points.append(points[0])
    return points


class HugeGeometries:
    """The 100,000-vertex polygon in each notation, built once."""

    def __init__(self):
        self._ring = None
        self._cache = {}

    @property
    def ring(self):
        if self._ring is None:
            self._ring = star_ring(100_000)
        return self._ring

    def get(self, notation):
        if notation not in self._cache:
            coords = ",".join(f"[{x!r},{y!r}]" for x, y in self.ring)
            if notation == "esri":
                text = '{"rings":[[' + coords + ']],"spatialReference":{"wkid":4326}}'
            elif notation == "geojson":
                text = '{"type":"Polygon","coordinates":[[' + coords + ']]}'
            elif notation == "multipoint":
                text = '{"points":[' + coords + '],"spatialReference":{"wkid":4326}}'
            else:  # wkt
                text = "POLYGON((" + ",".join(f"{x!r} {y!r}" for x, y in self.ring) + "))"
            self._cache[notation] = text
        return self._cache[notation]


HUGE = HugeGeometries()

BAD_ESRI_GEOMETRIES = [
    # (geometryType, geometry text)
    ("esriGeometryPolygon", '{"rings":[[[0,0],[10,10],[10,0],[0,10],[0,0]]]}'),  # bow tie
    ("esriGeometryPolygon", '{"rings":[[[0,0],[10,0],[10,10],[0,10]]]}'),  # unclosed
    ("esriGeometryPolygon", '{"rings":[[[0,0],[1,1]]]}'),
    ("esriGeometryPolygon", '{"rings":[[[5,5],[5,5],[5,5],[5,5]]]}'),
    ("esriGeometryPolygon", '{"rings":[[[0,0],[10,0],[10,10],[0,10],[0,0]],[[20,20],[30,20],[30,30],[20,20]]]}'),
    ("esriGeometryPolygon", '{"rings":[[[0,0],[10,0],[10,10],[0,10],[0,0]],[[-5,5],[15,5],[15,6],[-5,5]]]}'),
    ("esriGeometryPolygon", '{"rings":[]}'),
    ("esriGeometryPolygon", '{"rings":[[]]}'),
    ("esriGeometryPolygon", '{"rings":[[[]]]}'),
    ("esriGeometryPolygon", '{"rings":[[["0","0"],["1","0"],["1","1"],["0","0"]]]}'),
    ("esriGeometryPolygon", '{"rings":[[[NaN,0],[1,0],[1,1],[NaN,0]]]}'),
    ("esriGeometryPolygon", '{"rings":[[[1e308,1e308],[-1e308,1e308],[-1e308,-1e308],[1e308,1e308]]]}'),
    ("esriGeometryPolygon", '{"rings":[[[-0,-0],[1,-0],[1,1],[-0,-0]]]}'),
    ("esriGeometryPolygon", '{"rings":[[[0,0,0,0,0],[1,0],[1,1,1],[0,0]]]}'),
    ("esriGeometryPolygon", '{"curveRings":[[[0,0],{"c":[[1,1],[0.5,2]]},[0,0]]]}'),
    ("esriGeometryPoint", '{"x":null,"y":null}'),
    ("esriGeometryPoint", '{"x":1e309,"y":-1e309}'),
    ("esriGeometryPoint", '{"x":"NaN","y":0}'),
    ("esriGeometryPoint", '{"x":9223372036854775808,"y":-0}'),
    ("esriGeometryPoint", "1e308,-1e308"),
    ("esriGeometryPoint", "nan,nan"),
    ("esriGeometryPoint", "1,2,3"),
    ("esriGeometryEnvelope", '{"xmin":10,"ymin":10,"xmax":-10,"ymax":-10}'),
    ("esriGeometryEnvelope", '{"xmin":-1e308,"ymin":-1e308,"xmax":1e308,"ymax":1e308}'),
    ("esriGeometryEnvelope", '{"xmin":"a","ymin":0,"xmax":1,"ymax":1}'),
    ("esriGeometryEnvelope", "a,b,c,d"),
    ("esriGeometryEnvelope", "1e308,1e308,-1e308,-1e308"),
    ("esriGeometryEnvelope", "-0,-0,-0,-0"),
    ("esriGeometryEnvelope", ",,,"),
    ("esriGeometryPolyline", '{"paths":[[[0,0]]]}'),
    ("esriGeometryPolyline", '{"paths":[[[0,0],[0,0]]]}'),
    ("esriGeometryPolyline", '{"paths":[]}'),
    ("esriGeometryMultipoint", '{"points":[]}'),
    ("esriGeometryMultipoint", '{"points":[[1e308,NaN]]}'),
    ("esriGeometryPolygon", '{"x":1,"y":2}'),
    ("esriGeometryPoint", '{"rings":[[[0,0],[1,0],[1,1],[0,0]]]}'),
    ("esriGeometryPolygon", "POLYGON((0 0,10 10,10 0,0 10,0 0))"),
    ("esriGeometryBogus", '{"x":1,"y":2}'),
    ("esriGeometryPolygon", '{"rings":[[[0,0],[10,0],[10,10],[0,10],[0,0]]],"spatialReference":{"wkid":999999999}}'),
    ("esriGeometryPolygon", '{"rings":[[[0,0],[10,0],[10,10],[0,10],[0,0]]],"spatialReference":{"wkid":-0}}'),
    ("esriGeometryPolygon", '{"rings":[[[0,0],[10,0],[10,10],[0,10],[0,0]]],"spatialReference":{"wkt":"GARBAGE"}}'),
]
BAD_WKT = [
    "POLYGON((0 0,10 10,10 0,0 10,0 0))", "POLYGON((0 0,10 0,10 10,0 10))", "POLYGON((0 0,1 1))", "POLYGON(())",
    "POLYGON EMPTY", "POINT(NaN NaN)", "POINT(1e309 1e309)", "POINT(-0 -0)", "LINESTRING(0 0)",
    "MULTIPOLYGON(((0 0,10 10,10 0,0 10,0 0)),((0 0,10 10,10 0,0 10,0 0)))", "GEOMETRYCOLLECTION(POINT(1 2),POLYGON EMPTY)",
    "POLYGON((0 0,1e308 0,1e308 1e308,0 0))", "POINT(9223372036854775808 0)", "POLYGON((0 0 0 0 0,1 0,1 1,0 0))",
    "BBOX(10,10,-10,-10)", "BBOX(-1e308,-1e308,1e308,1e308)", "BBOX(1,2,3)", "ENVELOPE(1,2,3,4)",
]
BAD_GEOJSON_GEOMETRIES = [
    '{"type":"Polygon","coordinates":[[[0,0],[10,10],[10,0],[0,10],[0,0]]]}',
    '{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10]]]}',
    '{"type":"Polygon","coordinates":[]}',
    '{"type":"Polygon","coordinates":[[[NaN,0],[1,0],[1,1],[NaN,0]]]}',
    '{"type":"Point","coordinates":[1e309,-1e309]}',
    '{"type":"Point","coordinates":[]}',
    '{"type":"Point","coordinates":[-0,-0]}',
    '{"type":"Point","coordinates":["1","2"]}',
    '{"type":"Point","coordinates":[9223372036854775808,1]}',
    '{"type":"LineString","coordinates":[[0,0]]}',
    '{"type":"MultiPolygon","coordinates":[[[[0,0],[10,10],[10,0],[0,10],[0,0]]]]}',
    '{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[1,2]},{"type":"GeometryCollection","geometries":[]}]}',
    '{"type":"Bogus","coordinates":[1,2]}',
    '{"type":"Point"}',
    'null', '[]', '1', '"POINT(1 2)"', '{}',
]


def deep_json_op(depth, op="not"):
    inner = '{"op":"=","args":[{"property":"fid"},1]}'
    return ('{"op":"%s","args":[' % op) * depth + inner + "]}" * depth


def deep_arrays(depth):
    return "[" * depth + "]" * depth


def deep_objects(depth):
    return '{"a":' * depth + "1" + "}" * depth


def lite_quote(text):
    """Percent-encodes only what HTTP does not take in a request target (keeps URLs short)."""
    return Raw(urllib.parse.quote(text, safe="()[]{},:'\"!*~$;/?=@-._"))


# --- The served collections ------------------------------------------------------------------


class Collection:
    def __init__(self, name, geometry, fields, extent, ids):
        self.name = name
        self.geometry = geometry  # point, polygon, multipolygon, polyline, multipoint, none
        self.fields = fields  # [(name, "int"|"float"|"str"|"date")]
        self.extent = extent  # (xmin, ymin, xmax, ymax) in WGS84
        self.ids = ids  # the object IDs at the start
        self.added = []  # the object IDs the fuzzer's own edits added

    def field(self, rng, kinds=None):
        choices = [f for f in self.fields if kinds is None or f[1] in kinds]
        return rng.choice(choices) if choices else (OID, "int")

    def existing_id(self, rng):
        if self.added and rng.random() < 0.7:
            return rng.choice(self.added)
        if self.ids:
            return rng.choice(self.ids)
        return rng.randint(1, 300)

    def point(self, rng):
        xmin, ymin, xmax, ymax = self.extent
        return round(rng.uniform(xmin, xmax), 6), round(rng.uniform(ymin, ymax), 6)

    def box(self, rng):
        x1, y1 = self.point(rng)
        x2, y2 = self.point(rng)
        return min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)


def esri_type_name(field_type):
    return {
        "esriFieldTypeOID": "oid", "esriFieldTypeInteger": "int", "esriFieldTypeSmallInteger": "int",
        "esriFieldTypeBigInteger": "int", "esriFieldTypeDouble": "float", "esriFieldTypeSingle": "float",
        "esriFieldTypeDate": "date", "esriFieldTypeDateOnly": "date", "esriFieldTypeTimestampOffset": "date",
    }.get(field_type, "str")


def esri_geometry_name(geometry_type, fallback):
    names = {"esriGeometryPoint": "point", "esriGeometryMultipoint": "multipoint", "esriGeometryPolyline": "polyline",
             "esriGeometryPolygon": "polygon"}
    if fallback == "multipolygon" and geometry_type == "esriGeometryPolygon":
        return "multipolygon"
    return names.get(geometry_type, fallback or "none")


# --- Valid requests ---------------------------------------------------------------------------


def value_for(kind, rng):
    if kind in ("int", "oid"):
        return rng.choice([0, 1, 2, 5, 10, 100, -3, rng.randint(-1000, 1000)])
    if kind == "float":
        return rng.choice([0.5, 1e6, -2.25, 123456.789, rng.uniform(-1e6, 1e6)])
    if kind == "date":
        return rng.choice(["2020-01-01", "2001-09-09T01:46:40Z"])
    return rng.choice(["Paris", "Asia", "Brooklyn", "x", "O'Brien", "\u00dcn\u00efc\u00f8d\u00e9", "a b", "Europe", "",
                       "<fuzzmarker>", "\"><fuzzmarker>"])


def sql_literal(kind, value):
    if kind in ("int", "oid", "float"):
        return repr(value)
    if kind == "date":
        return f"DATE '{value[:10]}'"
    return "'" + str(value).replace("'", "''") + "'"


def where_clause(coll, rng, depth=0):
    name, kind = coll.field(rng)
    v = value_for(kind, rng)
    if kind in ("int", "float"):
        options = [f"{name} > {v!r}", f"{name} BETWEEN {v!r} AND {v!r} + 100", f"{name} IN (1, 2, 3, {v!r})",
                   f"{name} IS NOT NULL", f"{name} = {v!r}", f"NOT {name} < {v!r}", f"{name} + 1 > {v!r}",
                   f"ABS({name}) >= 0", f"{name} * 2 <> 7", f"ROUND({name}, 1) > 0"]
    elif kind == "date":
        options = [f"{name} > DATE '2000-01-01'", f"{name} IS NULL"]
    else:
        options = [f"{name} = {sql_literal(kind, v)}", f"{name} LIKE 'A%'", f"UPPER({name}) LIKE '%AN%'",
                   f"{name} IN ('a', 'Paris', 'Asia')", f"CHAR_LENGTH({name}) > 3", f"{name} <> ''",
                   f"LOWER({name}) = 'paris'", f"{name} IS NULL", f"{name} NOT LIKE '_b%' ESCAPE '\\'"]
    options += ["1=1", f"{OID} <= 50", f"{OID} IN (1, 2, 3)"]
    clause = rng.choice(options)
    if depth < 2 and rng.random() < 0.3:
        clause = f"({clause}) {rng.choice(['AND', 'OR'])} ({where_clause(coll, rng, depth + 1)})"
    return clause


def cql2_text(coll, rng, depth=0):
    name, kind = coll.field(rng)
    v = value_for(kind, rng)
    x1, y1, x2, y2 = coll.box(rng)
    if kind in ("int", "float"):
        options = [f"{name} > {v!r}", f"{name} BETWEEN {min(v, 0)!r} AND {max(v, 0)!r}", f"{name} IN (1,2,3)",
                   f"{name} IS NULL", f"NOT ({name} = {v!r})", f"{name} + 2 > 4", f"{name} <> {v!r}"]
    elif kind == "date":
        options = [f"{name} > DATE('2000-01-01')", f"T_INTERSECTS({name}, INTERVAL('2000-01-01','..'))"]
    else:
        options = [f"{name} = {sql_literal(kind, v)}", f"{name} LIKE 'A%'", f"CASEI({name}) = CASEI('paris')",
                   f"ACCENTI({name}) = ACCENTI('Par\u00eds')", f"{name} IN ('a','b')", f"{name} IS NOT NULL"]
    if coll.geometry != "none":
        options += [f"S_INTERSECTS(geometry, BBOX({x1},{y1},{x2},{y2}))",
                    f"S_WITHIN(geometry, POLYGON(({x1} {y1},{x2} {y1},{x2} {y2},{x1} {y2},{x1} {y1})))",
                    f"S_DISJOINT(geometry, POINT({x1} {y1}))"]
    clause = rng.choice(options)
    if depth < 2 and rng.random() < 0.3:
        clause = f"({clause}) {rng.choice(['AND', 'OR'])} ({cql2_text(coll, rng, depth + 1)})"
    return clause


def cql2_json(coll, rng, depth=0):
    name, kind = coll.field(rng, kinds=("int", "float", "str"))
    v = value_for(kind, rng)
    x1, y1, x2, y2 = coll.box(rng)
    options = [
        {"op": rng.choice(["=", "<>", "<", ">", "<=", ">="]), "args": [{"property": name}, v]},
        {"op": "isNull", "args": [{"property": name}]},
        {"op": "in", "args": [{"property": OID}, [1, 2, 3]]},
        {"op": "between", "args": [{"property": OID}, 1, 50]},
        {"op": "like", "args": [{"property": name}, "A%"]} if kind == "str" else {"op": "=", "args": [{"property": OID}, 1]},
    ]
    if coll.geometry != "none":
        options.append({"op": "s_intersects", "args": [{"property": "geometry"}, {"bbox": [x1, y1, x2, y2]}]})
    expr = rng.choice(options)
    if depth < 2 and rng.random() < 0.3:
        expr = {"op": rng.choice(["and", "or"]), "args": [expr, cql2_json(coll, rng, depth + 1)]}
    if rng.random() < 0.1:
        expr = {"op": "not", "args": [expr]}
    return expr


def esri_geometry(coll, rng):
    """(geometryType, geometry text) of a valid query geometry."""
    x1, y1, x2, y2 = coll.box(rng)
    choice = rng.randrange(7)
    if choice == 0:
        return "esriGeometryEnvelope", json.dumps({"xmin": x1, "ymin": y1, "xmax": x2, "ymax": y2,
                                                   "spatialReference": {"wkid": 4326}})
    if choice == 1:
        return "esriGeometryEnvelope", f"{x1},{y1},{x2},{y2}"
    if choice == 2:
        return "esriGeometryPoint", json.dumps({"x": x1, "y": y1})
    if choice == 3:
        return "esriGeometryPoint", f"{x1},{y1}"
    if choice == 4:
        return "esriGeometryPolyline", json.dumps({"paths": [[[x1, y1], [x2, y2], [x1, y2]]]})
    if choice == 5:
        return "esriGeometryMultipoint", json.dumps({"points": [[x1, y1], [x2, y2]]})
    return "esriGeometryPolygon", json.dumps({"rings": [[[x1, y1], [x1, y2], [x2, y2], [x2, y1], [x1, y1]]],
                                              "spatialReference": {"wkid": 4326}})


SPATIAL_RELS = ["esriSpatialRelIntersects", "esriSpatialRelContains", "esriSpatialRelCrosses",
                "esriSpatialRelEnvelopeIntersects", "esriSpatialRelIndexIntersects", "esriSpatialRelOverlaps",
                "esriSpatialRelTouches", "esriSpatialRelWithin", "esriSpatialRelRelation"]


def feature_geometry(coll, rng, notation):
    """A valid geometry of the collection's type, as a Python object (Esri or GeoJSON)."""
    x1, y1, x2, y2 = coll.box(rng)
    if x2 - x1 < 1e-6:
        x2 = x1 + 0.01
    if y2 - y1 < 1e-6:
        y2 = y1 + 0.01
    ring = [[x1, y1], [x1, y2], [x2, y2], [x2, y1], [x1, y1]]
    if coll.geometry == "point":
        return {"x": x1, "y": y1} if notation == "esri" else {"type": "Point", "coordinates": [x1, y1]}
    if coll.geometry == "multipoint":
        return {"points": [[x1, y1], [x2, y2]]} if notation == "esri" else {"type": "MultiPoint", "coordinates": [[x1, y1], [x2, y2]]}
    if coll.geometry == "polyline":
        return {"paths": [[[x1, y1], [x2, y2]]]} if notation == "esri" else {"type": "LineString", "coordinates": [[x1, y1], [x2, y2]]}
    if coll.geometry == "none":
        return None
    if notation == "esri":
        return {"rings": [ring]}
    if coll.geometry == "multipolygon":
        return {"type": "MultiPolygon", "coordinates": [[ring]]}
    return {"type": "Polygon", "coordinates": [ring]}


def attributes(coll, rng, partial=False):
    out = {}
    for name, kind in coll.fields:
        if partial and rng.random() < 0.5:
            continue
        out[name] = value_for(kind, rng)
    return out


class Corpus:
    """The valid requests of every route, built on demand from the served collections."""

    def __init__(self, fuzzer):
        self.fz = fuzzer
        self.prefix = fuzzer.prefix
        self.entries = []  # (weight, name, factory)
        edit_weight = 3 if fuzzer.allow_edits else 0.6
        for coll in fuzzer.collections:
            c = coll
            self.add(1, "arcgis directory", lambda rng: self.arcgis_doc(rng, ""))
            self.add(1, "arcgis service", lambda rng, c=c: self.arcgis_doc(rng, f"/{c.name}/FeatureServer"))
            self.add(1, "arcgis layer", lambda rng, c=c: self.arcgis_doc(rng, f"/{c.name}/FeatureServer/0"))
            self.add(12, "arcgis query", lambda rng, c=c: self.arcgis_query(c, rng))
            self.add(2, "arcgis statistics", lambda rng, c=c: self.arcgis_statistics(c, rng))
            self.add(1, "arcgis attachments", lambda rng, c=c: self.arcgis_attachments(c, rng))
            self.add(1, "ogc landing", lambda rng: self.ogc_doc(rng, "/ogc"))
            self.add(0.5, "ogc api", lambda rng: self.ogc_doc(rng, "/ogc/api"))
            self.add(1, "ogc conformance", lambda rng: self.ogc_doc(rng, "/ogc/conformance"))
            self.add(1, "ogc collections", lambda rng: self.ogc_doc(rng, "/ogc/collections"))
            self.add(1, "ogc collection", lambda rng, c=c: self.ogc_doc(rng, f"/ogc/collections/{c.name}"))
            self.add(1, "ogc queryables", lambda rng, c=c: self.ogc_doc(rng, f"/ogc/collections/{c.name}/queryables"))
            self.add(12, "ogc items", lambda rng, c=c: self.ogc_items(c, rng))
            self.add(2, "ogc item", lambda rng, c=c: self.ogc_item(c, rng))
            self.add(4, "ogc tile", lambda rng, c=c: self.ogc_tile(c, rng))
            self.add(1, "ogc tileset", lambda rng, c=c: self.ogc_doc(rng, f"/ogc/collections/{c.name}/tiles/WebMercatorQuad"))
            self.add(edit_weight, "arcgis applyEdits", lambda rng, c=c: self.arcgis_apply_edits(c, rng))
            self.add(edit_weight, "arcgis addFeatures", lambda rng, c=c: self.arcgis_add(c, rng))
            self.add(edit_weight * 0.6, "arcgis updateFeatures", lambda rng, c=c: self.arcgis_update(c, rng))
            self.add(edit_weight * 0.6, "arcgis deleteFeatures", lambda rng, c=c: self.arcgis_delete(c, rng))
            self.add(edit_weight * 0.5, "arcgis service applyEdits", lambda rng, c=c: self.arcgis_service_edits(c, rng))
            self.add(edit_weight * 0.4, "arcgis attachment edits", lambda rng, c=c: self.arcgis_attachment_edit(c, rng))
            self.add(edit_weight, "ogc create", lambda rng, c=c: self.ogc_create(c, rng))
            self.add(edit_weight * 0.6, "ogc replace", lambda rng, c=c: self.ogc_replace(c, rng))
            self.add(edit_weight * 0.6, "ogc delete", lambda rng, c=c: self.ogc_delete(c, rng))
        self.total = sum(w for w, _, _ in self.entries)

    def add(self, weight, name, factory):
        if weight > 0:
            self.entries.append((weight, name, factory))

    def pick(self, rng, name=None):
        if name is not None:
            matching = [e for e in self.entries if e[1] == name]
            return rng.choice(matching)[2](rng)
        x = rng.uniform(0, self.total)
        for weight, _, factory in self.entries:
            x -= weight
            if x <= 0:
                return factory(rng)
        return self.entries[-1][2](rng)

    # Helpers

    def token_pair(self):
        return [("token", self.fz.token)] if self.fz.token else []

    def bearer(self):
        return [("Authorization", "Bearer " + self.fz.token)] if self.fz.token else []

    def arcgis(self, rng, label, path, params, method=None, kind="read"):
        method = method or rng.choice(["GET", "GET", "POST"])
        params = params + self.token_pair()
        path = self.prefix + "/arcgis/rest/services" + path
        if method == "POST":
            return Request("arcgis", label, "POST", path, query=None, form=params, kind=kind)
        return Request("arcgis", label, method, path, query=params, kind=kind)

    # ArcGIS reads

    def arcgis_doc(self, rng, path):
        params = []
        if rng.random() < 0.7:
            params.append(("f", rng.choice(["json", "pjson", "JSON"])))
        return self.arcgis(rng, "arcgis document", path, params)

    def arcgis_query(self, coll, rng):
        params = []
        if rng.random() < 0.8:
            params.append(("where", where_clause(coll, rng)))
        if rng.random() < 0.15:
            ids = rng.sample(coll.ids or [1], min(len(coll.ids or [1]), rng.randint(1, 10)))
            params.append(("objectIds", ",".join(map(str, ids))))
        if coll.geometry != "none" and rng.random() < 0.35:
            gtype, geometry = esri_geometry(coll, rng)
            params += [("geometry", geometry), ("geometryType", gtype)]
            rel = rng.choice(SPATIAL_RELS)
            params.append(("spatialRel", rel))
            if rel == "esriSpatialRelRelation":
                params.append(("relationParam", rng.choice(["T********", "FF*FF****", "RELATE(T*****FF*)"])))
            if rng.random() < 0.3:
                params.append(("inSR", rng.choice(["4326", '{"wkid":4326}'])))
        mode = rng.random()
        if mode < 0.1:
            params.append(("returnIdsOnly", "true"))
        elif mode < 0.2:
            params.append(("returnCountOnly", "true"))
        elif mode < 0.27:
            params.append(("returnExtentOnly", "true"))
        elif mode < 0.35:
            params += [("returnDistinctValues", "true"), ("outFields", coll.field(rng)[0])]
            if rng.random() < 0.3:
                params.append(("returnCountOnly", "true"))
        else:
            if rng.random() < 0.7:
                params.append(("outFields", rng.choice(["*", ",".join(f for f, _ in coll.fields[:2]), coll.field(rng)[0]])))
            if rng.random() < 0.4:
                name = coll.field(rng)[0]
                params.append(("orderByFields", f"{name} {rng.choice(['ASC', 'DESC'])}"))
            if rng.random() < 0.4:
                params += [("resultOffset", str(rng.randint(0, 50))), ("resultRecordCount", str(rng.randint(1, 20)))]
            if rng.random() < 0.3:
                params.append(("returnGeometry", rng.choice(["true", "false"])))
            if rng.random() < 0.2:
                params.append(("outSR", rng.choice(["3857", "102100", '{"wkid":4326}'])))
            if rng.random() < 0.15:
                params.append(("geometryPrecision", str(rng.randint(0, 17))))
            if rng.random() < 0.15:
                params.append(("maxAllowableOffset", rng.choice(["0", "0.01", "1", "1e-300", "1e300", "-1", "nan"])))
            if rng.random() < 0.15:
                grid = {"mode": rng.choice(["view", "edit", "draw"]), "originPosition": rng.choice(["upperLeft", "lowerLeft", "middle"]),
                        "tolerance": rng.choice([0.001, 1, 1e-300, 0, -1, 1e308]),
                        "extent": rng.choice([{"xmin": -180, "ymin": -90, "xmax": 180, "ymax": 90},
                                              {"xmin": 1, "ymin": 1, "xmax": 0, "ymax": 0}, [], None])}
                params.append(("quantizationParameters", json.dumps(grid)))
        params.append(("f", rng.choice(["json", "json", "pjson", "geojson", "pbf"])))
        rng.shuffle(params)
        return self.arcgis(rng, "arcgis query", f"/{coll.name}/FeatureServer/0/query", params)

    def arcgis_statistics(self, coll, rng):
        numeric = coll.field(rng, kinds=("int", "float"))[0]
        group = coll.field(rng, kinds=("str",))[0]
        stats = [{"statisticType": rng.choice(["count", "sum", "min", "max", "avg", "stddev", "var"]),
                  "onStatisticField": numeric, "outStatisticFieldName": "s"}]
        if rng.random() < 0.3:
            stats.append({"statisticType": "percentile_cont", "onStatisticField": numeric, "outStatisticFieldName": "p",
                          "statisticParameters": {"value": 0.5}})
        params = [("outStatistics", json.dumps(stats)), ("where", where_clause(coll, rng))]
        if rng.random() < 0.6:
            params.append(("groupByFieldsForStatistics", group))
            if rng.random() < 0.5:
                params.append(("havingClause", f"COUNT({numeric}) > 1"))
            if rng.random() < 0.5:
                params.append(("orderByFields", "s DESC"))
        params.append(("f", "json"))
        return self.arcgis(rng, "arcgis statistics", f"/{coll.name}/FeatureServer/0/query", params)

    def arcgis_attachments(self, coll, rng):
        oid = coll.existing_id(rng)
        path = f"/{coll.name}/FeatureServer/0/{oid}/attachments"
        if rng.random() < 0.4:
            path += f"/{rng.randint(1, 3)}"
        return self.arcgis(rng, "arcgis attachments", path, [("f", "json")])

    # ArcGIS edits

    def esri_feature(self, coll, rng, update=False):
        feature = {"attributes": attributes(coll, rng, partial=update)}
        if update:
            feature["attributes"][OID] = coll.existing_id(rng)
        if not update or rng.random() < 0.5:
            geometry = feature_geometry(coll, rng, "esri")
            if geometry is not None:
                feature["geometry"] = geometry
        return feature

    def deletable(self, coll, rng, n=1):
        """IDs to delete: mostly the fuzzer's own additions, rarely an original feature or a missing one."""
        out = []
        for _ in range(n):
            r = rng.random()
            if coll.added and r < 0.8:
                out.append(coll.added.pop(rng.randrange(len(coll.added))))
            elif r < 0.9 or not coll.ids:
                out.append(rng.randint(100000, 200000))
            else:
                out.append(rng.choice(coll.ids))
        return out

    def arcgis_apply_edits(self, coll, rng):
        params = []
        if rng.random() < 0.7:
            params.append(("adds", json.dumps([self.esri_feature(coll, rng) for _ in range(rng.randint(1, 3))])))
        if rng.random() < 0.4:
            params.append(("updates", json.dumps([self.esri_feature(coll, rng, update=True)])))
        if rng.random() < 0.4:
            ids = self.deletable(coll, rng, rng.randint(1, 2))
            params.append(("deletes", ",".join(map(str, ids)) if rng.random() < 0.5 else json.dumps(ids)))
        if rng.random() < 0.3:
            params.append(("rollbackOnFailure", rng.choice(["true", "false"])))
        params.append(("f", "json"))
        return self.arcgis(rng, "arcgis applyEdits", f"/{coll.name}/FeatureServer/0/applyEdits", params, method="POST",
                           kind="add")

    def arcgis_add(self, coll, rng):
        features = [self.esri_feature(coll, rng) for _ in range(rng.randint(1, 3))]
        return self.arcgis(rng, "arcgis addFeatures", f"/{coll.name}/FeatureServer/0/addFeatures",
                           [("features", json.dumps(features)), ("f", "json")], method="POST", kind="add")

    def arcgis_update(self, coll, rng):
        features = [self.esri_feature(coll, rng, update=True)]
        return self.arcgis(rng, "arcgis updateFeatures", f"/{coll.name}/FeatureServer/0/updateFeatures",
                           [("features", json.dumps(features)), ("f", "json")], method="POST", kind="update")

    def arcgis_delete(self, coll, rng):
        if rng.random() < 0.8:
            params = [("objectIds", ",".join(map(str, self.deletable(coll, rng, rng.randint(1, 3)))))]
        else:
            params = [("where", f"{OID} > {rng.randint(100000, 200000)}")]
        params.append(("f", "json"))
        return self.arcgis(rng, "arcgis deleteFeatures", f"/{coll.name}/FeatureServer/0/deleteFeatures", params,
                           method="POST", kind="delete")

    def arcgis_service_edits(self, coll, rng):
        edit = {"id": 0, "adds": [self.esri_feature(coll, rng)]}
        if rng.random() < 0.4:
            edit["deletes"] = self.deletable(coll, rng)
        if rng.random() < 0.3:
            edit["updates"] = [self.esri_feature(coll, rng, update=True)]
        params = [("edits", json.dumps([edit])), ("f", "json")]
        return self.arcgis(rng, "arcgis service applyEdits", f"/{coll.name}/FeatureServer/applyEdits", params,
                           method="POST", kind="add")

    def arcgis_attachment_edit(self, coll, rng):
        oid = coll.existing_id(rng)
        op = rng.choice(["addAttachment", "updateAttachment", "deleteAttachments"])
        path = self.prefix + f"/arcgis/rest/services/{coll.name}/FeatureServer/0/{oid}/{op}"
        if op == "deleteAttachments":
            return Request("arcgis", "arcgis deleteAttachments", "POST", path,
                           form=[("attachmentIds", "1,2")] + self.token_pair() + [("f", "json")], kind="attachment")
        fields = [("f", "json")] + self.token_pair()
        if op == "updateAttachment":
            fields.append(("attachmentId", "1"))
        boundary = "----fuzz" + "".join(rng.choice("0123456789abcdef") for _ in range(16))
        body = multipart_body(boundary, fields, [("attachment", "photo.jpg", "image/jpeg", bytes(rng.randrange(256) for _ in range(rng.randint(0, 300))))])
        return Request("arcgis", "arcgis " + op, "POST", path, body=body,
                       ctype=f"multipart/form-data; boundary={boundary}", kind="attachment")

    # OGC reads

    def ogc(self, label, path, query=None, method="GET", body=None, ctype=None, kind="read"):
        headers = self.bearer()
        return Request("ogc", label, method, self.prefix + path, query=query, body=body, ctype=ctype, headers=headers,
                       kind=kind)

    def ogc_doc(self, rng, path):
        query = [("f", rng.choice(["json", "JSON", "geojson", "html", "html"]))] if rng.random() < 0.4 else None
        return self.ogc("ogc document", path, query)

    def ogc_items(self, coll, rng):
        query = []
        if rng.random() < 0.5:
            query.append(("limit", str(rng.choice([1, 5, 10, 100, 1000]))))
        if rng.random() < 0.3:
            query.append(("offset", str(rng.randint(0, 60))))
        if rng.random() < 0.3:
            x1, y1, x2, y2 = coll.box(rng)
            query.append(("bbox", f"{x1},{y1},{x2},{y2}"))
            if rng.random() < 0.2:
                query.append(("bbox-crs", "http://www.opengis.net/def/crs/OGC/1.3/CRS84"))
        r = rng.random()
        if r < 0.3:
            query.append(("filter", cql2_text(coll, rng)))
            if rng.random() < 0.3:
                query.append(("filter-lang", "cql2-text"))
        elif r < 0.45:
            query += [("filter", json.dumps(cql2_json(coll, rng))), ("filter-lang", "cql2-json")]
        if rng.random() < 0.1 and any(k == "filter" for k, _ in query):
            query.append(("filter-crs", "http://www.opengis.net/def/crs/OGC/1.3/CRS84"))
        if rng.random() < 0.15:
            query.append(("datetime", rng.choice(["2020-01-01", "2000-01-01/..", "../2030-01-01T00:00:00Z"])))
        if rng.random() < 0.2:
            name = coll.field(rng)[0]
            query.append(("sortby", rng.choice(["", "-", "+"]) + name))
        if rng.random() < 0.2:
            query.append(("properties", ",".join(f for f, _ in coll.fields[: rng.randint(1, len(coll.fields))])))
        if rng.random() < 0.15:
            query.append(("crs", rng.choice(["http://www.opengis.net/def/crs/EPSG/0/3857",
                                              "http://www.opengis.net/def/crs/OGC/1.3/CRS84"])))
        if rng.random() < 0.15:
            name, kind = coll.field(rng)
            query.append((name, str(value_for(kind, rng))))
        if rng.random() < 0.3:
            query.append(("f", rng.choice(["json", "geojson", "html"])))
        rng.shuffle(query)
        return self.ogc("ogc items", f"/ogc/collections/{coll.name}/items", query or None)

    def ogc_tile(self, coll, rng):
        z = rng.choice([0, 1, 2, 3, 5, 8, 12, 16, 24, 25, -1])
        size = 1 << max(min(z, 24), 0)
        x = rng.choice([0, size - 1, size, rng.randint(0, size - 1), -1])
        y = rng.choice([0, size - 1, size, rng.randint(0, size - 1)])
        query = []
        if rng.random() < 0.3:
            query.append(("filter", cql2_text(coll, rng)))
        if rng.random() < 0.2:
            query.append(("properties", ",".join(f for f, _ in coll.fields[: rng.randint(0, len(coll.fields))])))
        if rng.random() < 0.1:
            query.append(rng.choice([("f", "mvt"), ("f", "json"), ("limit", "5"), ("datetime", "2020-01-01")]))
        grid = "WebMercatorQuad" if rng.random() < 0.95 else "WorldCRS84Quad"
        return self.ogc("ogc tile", f"/ogc/collections/{coll.name}/tiles/{grid}/{z}/{y}/{x}", query or None)

    def ogc_item(self, coll, rng):
        query = None
        if rng.random() < 0.2:
            query = [("crs", "http://www.opengis.net/def/crs/EPSG/0/3857")]
        if rng.random() < 0.3:
            query = (query or []) + [("f", "html")]
        return self.ogc("ogc item", f"/ogc/collections/{coll.name}/items/{coll.existing_id(rng)}", query)

    # OGC edits

    def geojson_feature(self, coll, rng, with_id=None):
        feature = {"type": "Feature", "geometry": feature_geometry(coll, rng, "geojson"), "properties": attributes(coll, rng)}
        if with_id is not None:
            feature["id"] = with_id
        return json.dumps(feature).encode()

    def ogc_create(self, coll, rng):
        ctype = rng.choice(["application/geo+json", "application/json"])
        return self.ogc("ogc create", f"/ogc/collections/{coll.name}/items", method="POST",
                        body=self.geojson_feature(coll, rng), ctype=ctype, kind="add")

    def ogc_replace(self, coll, rng):
        oid = coll.existing_id(rng)
        return self.ogc("ogc replace", f"/ogc/collections/{coll.name}/items/{oid}", method="PUT",
                        body=self.geojson_feature(coll, rng, with_id=oid), ctype="application/geo+json", kind="update")

    def ogc_delete(self, coll, rng):
        oid = self.deletable(coll, rng)[0]
        return self.ogc("ogc delete", f"/ogc/collections/{coll.name}/items/{oid}", method="DELETE", kind="delete")

    def routes(self, coll):
        """One valid request of every route template, for the method sweep."""
        rng = random.Random(0)
        p = f"/{coll.name}/FeatureServer"
        arc = self.prefix + "/arcgis/rest/services"
        paths = [("arcgis", arc), ("arcgis", arc + p), ("arcgis", arc + p + "/0"), ("arcgis", arc + p + "/0/query?where=1%3D1"),
                 ("arcgis", arc + p + "/applyEdits"), ("arcgis", arc + p + "/0/applyEdits"),
                 ("arcgis", arc + p + "/0/addFeatures"), ("arcgis", arc + p + "/0/updateFeatures"),
                 ("arcgis", arc + p + "/0/deleteFeatures"), ("arcgis", arc + p + "/0/1/attachments"),
                 ("arcgis", arc + p + "/0/1/attachments/1"), ("arcgis", arc + p + "/0/1/addAttachment"),
                 ("arcgis", arc + p + "/0/1/updateAttachment"), ("arcgis", arc + p + "/0/1/deleteAttachments"),
                 ("ogc", "/ogc"), ("ogc", "/ogc/api"), ("ogc", "/ogc/conformance"), ("ogc", "/ogc/collections"),
                 ("ogc", f"/ogc/collections/{coll.name}"), ("ogc", f"/ogc/collections/{coll.name}/items"),
                 ("ogc", f"/ogc/collections/{coll.name}/items/1"), ("ogc", f"/ogc/collections/{coll.name}/queryables")]
        out = []
        for family, path in paths:
            if family == "ogc":
                path = self.prefix + path
            out.append((family, path, self.geojson_feature(coll, rng)))
        return out


def multipart_body(boundary, fields, files, variant="good"):
    """A multipart/form-data body; `variant` breaks it in one of many ways."""
    b = boundary.encode("latin-1", "surrogateescape")
    crlf = b"\r\n" if variant != "lf-only" else b"\n"
    parts = []
    for name, value in fields:
        parts.append(b"Content-Disposition: form-data; name=\"" + name.encode() + b"\"" + crlf + crlf + value.encode("utf-8", "surrogateescape"))
    for name, filename, ctype, data in files:
        parts.append(b"Content-Disposition: form-data; name=\"" + name.encode() + b"\"; filename=\"" + filename.encode("utf-8", "surrogateescape")
                     + b"\"" + crlf + b"Content-Type: " + ctype.encode() + crlf + crlf + data)
    out = b""
    for part in parts:
        out += b"--" + b + crlf + part + crlf
    out += b"--" + b + b"--" + crlf
    return out


# --- Mutations -------------------------------------------------------------------------------

QUERY_PARAMETERS = ["where", "objectIds", "geometry", "geometryType", "inSR", "outSR", "spatialRel", "relationParam",
                    "outFields", "orderByFields", "resultOffset", "resultRecordCount", "returnIdsOnly",
                    "returnCountOnly", "returnExtentOnly", "returnDistinctValues", "outStatistics",
                    "groupByFieldsForStatistics", "havingClause", "f", "returnGeometry", "geometryPrecision", "distance",
                    "time", "quantizationParameters", "token", "adds", "updates", "deletes", "features", "edits",
                    "rollbackOnFailure", "attachmentIds", "attachmentId"]
ITEMS_PARAMETERS = ["bbox", "bbox-crs", "limit", "offset", "datetime", "filter", "filter-lang", "filter-crs", "crs",
                    "sortby", "properties", "f", "token"]
NUMERIC_PARAMETERS = ["resultOffset", "resultRecordCount", "geometryPrecision", "inSR", "outSR", "limit", "offset",
                      "objectIds", "distance"]


class Mutator:
    def __init__(self, fuzzer):
        self.fz = fuzzer

    def names_for(self, request, params):
        names = [n for n, _ in (p for p in params if not isinstance(p, Raw))]
        pool = QUERY_PARAMETERS if request.family == "arcgis" else ITEMS_PARAMETERS
        if request.family == "ogc":
            for coll in self.fz.collections:
                pool = pool + [f for f, _ in coll.fields] + [OID]
        return names, pool

    def set_param(self, params, name, value, replace=True):
        if replace:
            for i, item in enumerate(params):
                if not isinstance(item, Raw) and item[0] == name:
                    params[i] = (name, value)
                    return
        params.append((name, value))

    # Structured mutations; each returns a short description.

    def m_extreme_value(self, request, rng):
        params = request.params(rng)
        names, pool = self.names_for(request, params)
        name = rng.choice(names) if names and rng.random() < 0.7 else rng.choice(pool)
        value = rng.choice(EXTREME_NUMBERS if rng.random() < 0.6 or name in NUMERIC_PARAMETERS else EXTREME_STRINGS)
        self.set_param(params, name, value)
        return f"{name}={value[:40]!r}"

    def m_duplicate(self, request, rng):
        params = request.params(rng)
        items = [p for p in params if not isinstance(p, Raw)]
        if not items:
            params += [("f", "json"), ("f", "json")]
            return "duplicate f"
        name, value = rng.choice(items)
        if request.family == "arcgis" and rng.random() < 0.4:
            name = name.upper() if name != name.upper() else name.lower()
        if rng.random() < 0.3:
            value = rng.choice(EXTREME_STRINGS + EXTREME_NUMBERS)
        params.insert(rng.randint(0, len(params)), (name, value))
        if rng.random() < 0.2:  # the same parameter once in the query and once in the form
            other = request.query if params is request.form else request.form
            if other is not None:
                other.append((name, value))
        return f"duplicate {name}"

    def m_drop(self, request, rng):
        params = request.params(rng, create=False)
        if params:
            params.pop(rng.randrange(len(params)))
        return "drop a parameter"

    def m_noise_name(self, request, rng):
        params = request.params(rng)
        name = rng.choice(["", "=", "&", "a[]", "a[b]", "\u00e9", "\x00", "WHERE", "Where ", " where", "x" * 5000,
                           "filter[", "__proto__", "constructor", "f\x00", "%", "OBJECTID", "objectid", "geometry.x",
                           "token", "Token", "limit\t"])
        params.insert(rng.randint(0, len(params)), (name, rng.choice(["", "1", "x", "*", "null"])))
        return f"noise name {name[:20]!r}"

    def m_huge_where(self, request, rng, into_body=None):
        coll = self.fz.coll_of(request) or self.fz.collections[0]
        name = coll.field(rng)[0]
        variant = rng.randrange(5)
        if variant == 0:
            clause = f"{name} = '" + "x" * 100_000 + "'"
        elif variant == 1:
            clause = " OR ".join(f"{OID} = {i}" for i in range(1, 9000))
        elif variant == 2:
            clause = f"{OID} IN (" + ",".join(str(i) for i in range(20000)) + ")"
        elif variant == 3:
            clause = f"{name} LIKE '" + "%_" * 50_000 + "'"
        else:
            clause = "1=1" + " AND 1=1" * 12_500
        self.fz.route_to_query(request, coll, rng, into_body)
        self.set_param(request.params(rng), "where", clause)
        return f"where of {len(clause)} bytes ({variant})"

    def m_huge_object_ids(self, request, rng, into_body=None):
        coll = self.fz.coll_of(request) or self.fz.collections[0]
        variant = rng.randrange(4)
        if variant == 0:
            ids = ",".join(str(i) for i in range(1, 10001))
        elif variant == 1:
            ids = ",".join(str(rng.choice([1, 2, -1, 0, 9223372036854775807])) for _ in range(10000))
        elif variant == 2:
            ids = ",".join(["9223372036854775808"] * 10000)
        else:
            ids = ",".join([""] * 10000)
        self.fz.route_to_query(request, coll, rng, into_body)
        self.set_param(request.params(rng), "objectIds", ids)
        return f"objectIds of 10,000 items ({variant})"

    def m_deep_where(self, request, rng, into_body=None):
        coll = self.fz.coll_of(request) or self.fz.collections[0]
        depth = 5000
        variant = rng.randrange(6)
        clause = {0: "(" * depth + "1=1" + ")" * depth, 1: "(" * depth + "1=1", 2: "NOT " * depth + "1=1",
                  3: "ABS(" * depth + OID + ")" * depth + " > 0", 4: "-" * depth + "1 = 1",
                  5: "1=1" + ")" * depth}[variant]
        self.fz.route_to_query(request, coll, rng, into_body)
        params = request.params(rng)
        name = "where"
        if rng.random() < 0.25:  # the statistics' having clause, read by the same parser
            name = "havingClause"
            clause = clause.replace("1=1", f"COUNT({OID}) > 1").replace(f"ABS({OID})", f"ABS(COUNT({OID}))")
            numeric = coll.field(rng, kinds=("int", "float"))[0]
            self.set_param(params, "outStatistics", json.dumps([{"statisticType": "count", "onStatisticField": numeric,
                                                                  "outStatisticFieldName": "n"}]))
            self.set_param(params, "groupByFieldsForStatistics", coll.field(rng, kinds=("str",))[0])
        self.set_param(params, name, Raw(lite_quote(clause)) if params is request.query else clause)
        return f"{name} nested {depth} deep ({variant})"

    def m_huge_list(self, request, rng, which=None, repeat=None):
        """A list parameter of HUGE_LIST items: sort keys, fields, statistics, properties, IDs;
        with `repeat`, one text field over and over (sorting then compares every key)."""
        coll = self.fz.coll_of(request) or self.fz.collections[0]
        names = [f for f, _ in coll.fields] + [OID]
        texts = sorted((f for f, kind in coll.fields if kind == "str"), key=len) or [OID]
        repeat = rng.random() < 0.5 if repeat is None else repeat
        which = which or rng.choice(["orderByFields", "outFields", "outStatistics", "groupByFieldsForStatistics", "sortby",
                                     "properties", "objectIds"])

        def pick():
            return texts[0] if repeat else rng.choice(names)

        n = HUGE_LIST
        if which in ("sortby", "properties"):
            self.fz.route_to_items(request, coll)
            items = [("-" if repeat else rng.choice(["", "-", "+"])) + pick() if which == "sortby" else pick() for _ in range(n)]
            # Within the URL limit (64 KiB by default), so that the server reads them.
            total = 0
            for i, item in enumerate(items):
                total += len(item) + 3
                if total > 60_000:
                    del items[i:]
                    break
            self.set_param(request.query, which, Raw(",".join(items)))
            return f"{which} of {len(items)} items"
        self.fz.route_to_query(request, coll, rng, into_body=True)
        params = request.form
        numeric = [f for f, kind in coll.fields if kind in ("int", "float")] or [OID]
        if which == "orderByFields":
            self.set_param(params, which, ",".join(f"{pick()} {'DESC' if repeat else rng.choice(['ASC', 'DESC'])}" for _ in range(n)))
        elif which == "outFields":
            self.set_param(params, which, ",".join(pick() for _ in range(n)))
        elif which == "objectIds":
            self.set_param(params, which, ",".join(str(rng.randint(-5, 500)) for _ in range(n)))
        else:
            stats = [{"statisticType": rng.choice(["count", "sum", "min", "max", "avg"]), "onStatisticField": rng.choice(numeric),
                      "outStatisticFieldName": f"s{i}"} for i in range(n if which == "outStatistics" else 1)]
            self.set_param(params, "outStatistics", json.dumps(stats))
            if which == "groupByFieldsForStatistics":
                self.set_param(params, which, ",".join(pick() for _ in range(n)))
        return f"{which} of {n} items" + (" (one field repeated)" if repeat else "")

    def m_deep_cql_text(self, request, rng):
        coll = self.fz.coll_of(request) or self.fz.collections[0]
        depth = 5000
        variant = rng.randrange(5)
        clause = {0: "(" * depth + "fid=1" + ")" * depth, 1: "NOT " * depth + "fid=1",
                  2: "(" * depth + "fid=1", 3: "fid = " + "-" * depth + "1",
                  4: "S_INTERSECTS(geometry," + "(" * depth + "POINT(1 2)" + ")" * depth + ")"}[variant]
        self.fz.route_to_items(request, coll)
        self.set_param(request.query, "filter", lite_quote(clause))
        self.set_param(request.query, "filter-lang", "cql2-text")
        return f"CQL2 text nested {depth} deep ({variant})"

    def m_deep_cql_json(self, request, rng):
        coll = self.fz.coll_of(request) or self.fz.collections[0]
        variant = rng.randrange(4)
        if variant == 0:
            text = deep_json_op(5000)  # over the URL limit: the limit must answer
        elif variant == 1:
            text = deep_json_op(3000)  # just under it, raw: the parser must refuse it
        elif variant == 2:
            text = '{"op":"=","args":[{"property":"fid"},' + deep_arrays(5000) + "]}"
        else:
            text = deep_arrays(5000)
        self.fz.route_to_items(request, coll)
        self.set_param(request.query, "filter", lite_quote(text))
        self.set_param(request.query, "filter-lang", "cql2-json")
        return f"CQL2 JSON nested deep ({variant}, {len(text)} bytes)"

    def m_deep_json_parameter(self, request, rng):
        """A JSON parameter of an ArcGIS route (geometry, outStatistics, edits) nested 5,000 deep, in a form body."""
        coll = self.fz.coll_of(request) or self.fz.collections[0]
        name = rng.choice(["geometry", "outStatistics", "inSR", "adds", "features", "edits"])
        text = rng.choice([deep_arrays(5000), deep_objects(5000), '{"rings":' + deep_arrays(5000) + "}",
                           '[{"attributes":' + deep_objects(5000) + "}]"])
        base = self.fz.corpus.pick(rng, {"adds": "arcgis applyEdits", "features": "arcgis addFeatures",
                                          "edits": "arcgis service applyEdits"}.get(name, "arcgis query"))
        base.notes = request.notes
        request.__dict__.update(base.__dict__)
        if request.form is None:
            request.form = request.query or []
            request.query = None
            request.method = "POST"
        self.set_param(request.form, name, text)
        if name == "geometry":
            self.set_param(request.form, "geometryType", "esriGeometryPolygon")
        return f"{name} JSON nested 5000 deep"

    def m_extreme_numbers(self, request, rng, which=None):
        """Extreme numbers where numbers go: offsets, counts, SRs, bboxes, geometries, IDs."""
        coll = self.fz.coll_of(request) or self.fz.collections[0]
        number = which or rng.choice(["1e308", "-0", "NaN", "9223372036854775808", "-9223372036854775809", "1e-400",
                                      "Infinity", "1e309", "18446744073709551616"])
        where = rng.randrange(6)
        if request.family == "ogc":
            self.fz.route_to_items(request, coll)
            if where == 0:
                self.set_param(request.query, "bbox", f"{number},{number},{number},{number}")
            elif where == 1:
                self.set_param(request.query, rng.choice(["offset", "limit"]), number)
            elif where == 2:
                self.set_param(request.query, "filter", f"fid > {number}")
            elif where == 3:
                self.set_param(request.query, "filter", f"S_INTERSECTS(geometry, POINT({number} {number}))")
            elif where == 4:
                self.set_param(request.query, "filter", json.dumps({"op": ">", "args": [{"property": "fid"}, 0]}).replace("0]", number + "]"))
                self.set_param(request.query, "filter-lang", "cql2-json")
            else:
                name, kind = coll.field(rng, kinds=("int", "float"))
                self.set_param(request.query, name, number)
        else:
            self.fz.route_to_query(request, coll, rng)
            params = request.params(rng)
            if where == 0:
                self.set_param(params, rng.choice(["resultOffset", "resultRecordCount", "geometryPrecision"]), number)
            elif where == 1:
                self.set_param(params, rng.choice(["inSR", "outSR"]), rng.choice([number, '{"wkid":%s}' % number]))
            elif where == 2:
                self.set_param(params, "geometry", '{"x":%s,"y":%s}' % (number, number))
                self.set_param(params, "geometryType", "esriGeometryPoint")
            elif where == 3:
                self.set_param(params, "geometry", f"{number},{number},{number},{number}")
                self.set_param(params, "geometryType", "esriGeometryEnvelope")
            elif where == 4:
                self.set_param(params, "where", f"{coll.field(rng, kinds=('int', 'float'))[0]} > {number}")
            else:
                self.set_param(params, "objectIds", f"1,{number},2")
        return f"number {number} ({where})"

    def m_bad_geometry(self, request, rng, huge=False):
        coll = self.fz.coll_of(request) or self.fz.collections[0]
        if request.kind in ("add", "update") and request.form:
            # An edit carrying an invalid geometry.
            text = HUGE.get("esri") if huge else rng.choice(BAD_ESRI_GEOMETRIES)[1]
            for i, item in enumerate(request.form):
                if not isinstance(item, Raw) and item[0] in ("adds", "updates", "features", "edits"):
                    request.form[i] = (item[0], replace_geometry(item[1], text))
                    break
            return "edit with a bad geometry" + (" (100,000 vertices)" if huge else f" {text[:40]}")
        if request.family == "ogc" and request.body is not None:
            text = HUGE.get("geojson") if huge else rng.choice(BAD_GEOJSON_GEOMETRIES)
            request.body = replace_geometry(request.body.decode("utf-8", "surrogateescape"), text).encode("utf-8", "surrogateescape")
            return "OGC feature with a bad geometry" + (" (100,000 vertices)" if huge else f" {text[:40]}")
        if request.family == "ogc":
            self.fz.route_to_items(request, coll)
            wkt = HUGE.get("wkt") if huge else rng.choice(BAD_WKT)
            rel = rng.choice(["S_INTERSECTS", "S_WITHIN", "S_CONTAINS", "S_CROSSES", "S_TOUCHES", "S_EQUALS"])
            self.set_param(request.query, "filter", f"{rel}(geometry, {wkt})")
            return f"CQL2 {rel} with a bad geometry" + (" (100,000 vertices)" if huge else "")
        self.fz.route_to_query(request, coll, rng, into_body=True if huge else None)
        params = request.params(rng)
        if huge:
            gtype, text = ("esriGeometryMultipoint", HUGE.get("multipoint")) if rng.random() < 0.2 else ("esriGeometryPolygon", HUGE.get("esri"))
        else:
            gtype, text = rng.choice(BAD_ESRI_GEOMETRIES)
        self.set_param(params, "geometry", text)
        self.set_param(params, "geometryType", gtype)
        if rng.random() < 0.5:
            self.set_param(params, "spatialRel", rng.choice(SPATIAL_RELS))
        return "query with a bad geometry" + (" (100,000 vertices)" if huge else f" {text[:40]}")

    def m_move_to_body(self, request, rng):
        if request.query is not None and request.form is None:
            request.form, request.query = request.query, None
            request.method = "POST"
            return "query moved to a form body"
        if request.form is not None:
            request.query = (request.query or []) + request.form
            request.form = None
            request.method = "GET" if rng.random() < 0.7 else request.method
            return "form moved to the query"
        return "nothing to move"

    def m_method(self, request, rng):
        request.method = rng.choice(METHODS_SWEEP + ["GET", "POST", "TRACE", "PROPFIND", "get", "POST ", "M" * 100])
        return f"method {request.method[:20]}"

    def m_content_type(self, request, rng):
        if request.method in ("GET", "HEAD") and rng.random() < 0.5:
            request.method = "POST"
        if request.body is None and request.form is None:
            request.form = request.query or [("f", "json")]
            request.query = None
        request.ctype = rng.choice(CONTENT_TYPES)
        if rng.random() < 0.1:
            request.headers.append(("Content-Type", rng.choice(CONTENT_TYPES)))
        return f"Content-Type {request.ctype[:40]!r}"

    def m_multipart(self, request, rng, many=None):
        params = [p for p in (request.form or request.query or []) if not isinstance(p, Raw)]
        if not params:
            params = [("f", "json")]
        boundary = "fuzzboundary" if many else rng.choice(["fuzzboundary", "x", "b" * 70, "a b", "\"quoted\"", "--", "-",
                                                           "=?utf-8?", "\u00e9", "b" * 200])
        variant = "many-parts" if many else rng.choice([
            "good", "mismatch", "no-close", "close-no-dashes", "lf-only", "no-headers", "header-no-colon", "many-parts",
            "huge-header", "bad-disposition", "preamble", "truncated", "empty", "nested", "nul"])
        fields = [(n, v if isinstance(v, str) else str(v)) for n, v in params]
        files = [("attachment", rng.choice(["a.jpg", "../../etc/passwd", "", "\u00e9\x00.png", "x" * 300]),
                  rng.choice(["image/jpeg", "", "text/plain\r\nX: y"]), bytes(rng.randrange(256) for _ in range(64)))]
        b = boundary.encode("utf-8")
        body = multipart_body(boundary, fields, files, variant if variant == "lf-only" else "good")
        header_boundary = boundary
        if variant == "mismatch":
            header_boundary = boundary + "X"
        elif variant == "no-close":
            body = body[: body.rfind(b"--" + b + b"--")]
        elif variant == "close-no-dashes":
            body = body.replace(b"--" + b + b"--", b"--" + b)
        elif variant == "no-headers":
            body = b"--" + b + b"\r\n\r\nvalue\r\n--" + b + b"--\r\n"
        elif variant == "header-no-colon":
            body = b"--" + b + b"\r\nContent-Disposition form-data name=x\r\n\r\nv\r\n--" + b + b"--\r\n"
        elif variant == "many-parts":
            parts = many if many else rng.choice([100, 1000])
            body = b"".join(b"--" + b + b"\r\nContent-Disposition: form-data; name=\"p" + str(i).encode() + b"\"\r\n\r\nv\r\n"
                            for i in range(parts)) + b"--" + b + b"--\r\n"
        elif variant == "huge-header":
            body = b"--" + b + b"\r\nContent-Disposition: form-data; name=\"" + b"n" * 100_000 + b"\"\r\n\r\nv\r\n--" + b + b"--\r\n"
        elif variant == "bad-disposition":
            body = b"--" + b + b"\r\nContent-Disposition: form-data; name=\"unterminated; filename=\r\n\r\nv\r\n--" + b + b"--\r\n"
        elif variant == "preamble":
            body = b"garbage before\r\n" + body + b"garbage after"
        elif variant == "truncated":
            body = body[: rng.randint(0, len(body))]
        elif variant == "empty":
            body = b""
        elif variant == "nested":
            inner = multipart_body("inner", fields, [])
            body = (b"--" + b + b"\r\nContent-Disposition: form-data; name=\"x\"\r\nContent-Type: multipart/mixed; boundary=inner\r\n\r\n"
                    + inner + b"\r\n--" + b + b"--\r\n")
        elif variant == "nul":
            body = body.replace(b"name=", b"name=\x00", 1)
        if request.method in ("GET", "HEAD"):
            request.method = "POST"
        request.form = None
        request.query = None if rng.random() < 0.7 else request.query
        request.body = body
        quoted = not many and rng.random() < 0.3
        request.ctype = "multipart/form-data; boundary=" + ('"' + header_boundary + '"' if quoted else header_boundary)
        return f"multipart {variant} boundary {boundary[:20]!r}"

    def m_path(self, request, rng):
        path = request.path
        variant = rng.randrange(7)
        if variant == 0:
            slashes = [i for i, ch in enumerate(path) if ch == "/"]
            i = rng.choice(slashes) if slashes else 0
            path = path[:i] + rng.choice(PATH_ATTACKS) + path[i:]
        elif variant == 1:
            path = path + rng.choice(PATH_ATTACKS) * rng.randint(1, 50)
        elif variant == 2:
            segments = path.split("/")
            i = rng.randrange(1, len(segments)) if len(segments) > 1 else 0
            segments[i] = rng.choice(EXTREME_IDS)
            path = "/".join(segments)
        elif variant == 3:
            path = path + "/" + "a/" * rng.choice([100, 1000, 4000, 40000])
        elif variant == 4:
            path = rng.choice(["/..", "/%2e%2e", "/./", "//", "/%2F"]) * rng.randint(1, 2000) + path
        elif variant == 5:
            path = path.replace("/", rng.choice(["%2F", "%2f", "//", "/./", "%252F", "\\"]), rng.randint(1, 4))
        else:
            path = path.upper() if rng.random() < 0.5 else path + "/"
        request.path = path
        return f"path variant {variant}"

    def m_json_body(self, request, rng):
        """A structural mutation of a JSON value: a JSON parameter or a JSON body."""
        if request.body is not None and request.form is None:
            try:
                value = json.loads(request.body)
            except (ValueError, RecursionError):
                return "body not JSON"
            request.body = mutate_json(value, rng).encode("utf-8", "surrogatepass")
            return "JSON body mutated"
        params = request.params(rng)
        for i in rng.sample(range(len(params)), len(params)):
            item = params[i]
            if isinstance(item, Raw):
                continue
            name, value = item
            if isinstance(value, str) and value[:1] in "[{":
                try:
                    parsed = json.loads(value)
                except (ValueError, RecursionError):
                    continue
                params[i] = (name, mutate_json(parsed, rng))
                return f"JSON {name} mutated"
        return "no JSON to mutate"

    def m_headers(self, request, rng):
        variant = rng.randrange(9)
        if variant == 0:
            request.headers.append(("Accept", rng.choice(["application/xml", "text/html", "*/*;q=0", "", "\u00e9" * 10])))
        elif variant == 1:
            request.headers.append(("Accept-Encoding", rng.choice(["gzip", "br", "deflate, gzip;q=1.0", "identity;q=0"])))
        elif variant == 2:
            request.headers.append(("Authorization", rng.choice(["Bearer " + "x" * 20000, "Bearer", "Basic Zm9vOmJhcg==",
                                                                  "bearer ", "Bearer \u00e9", "Bearer " + (self.fz.token or "t") + "x"])))
        elif variant == 3:
            request.headers.append(("Cookie", "a=" + "b" * 30000))
        elif variant == 4:
            request.headers.append(("Host", rng.choice(["a\"b\\c", "x:99999999999", "[::1]:80", "", "evil.example",
                                                         "\u00e9.example", "h" * 5000, "a/b?c#d", "x y", "\"><fuzzmarker>"])))
        elif variant == 5:
            request.headers.append(("Expect", "100-continue"))
        elif variant == 6:
            request.headers.append(("Range", "bytes=0-1"))
        elif variant == 7:
            request.headers.append(("Origin", "http://evil.example"))
        else:
            request.headers.append(("X-" + "h" * rng.randint(1, 200), "v" * rng.randint(0, 5000)))
        return f"header variant {variant}"

    STRUCTURED = [("m_extreme_value", 8), ("m_duplicate", 5), ("m_drop", 3), ("m_noise_name", 3),
                  ("m_extreme_numbers", 5), ("m_bad_geometry", 4), ("m_move_to_body", 3), ("m_method", 4),
                  ("m_content_type", 3), ("m_multipart", 3), ("m_path", 5), ("m_json_body", 5), ("m_headers", 3),
                  ("m_huge_where", 0.4), ("m_huge_object_ids", 0.4), ("m_deep_where", 0.4), ("m_deep_cql_text", 0.4),
                  ("m_deep_cql_json", 0.4), ("m_deep_json_parameter", 0.3), ("m_huge_list", 0.3)]

    def structured(self, request, rng):
        total = sum(w for _, w in self.STRUCTURED)
        x = rng.uniform(0, total)
        for name, weight in self.STRUCTURED:
            x -= weight
            if x <= 0:
                break
        return getattr(self, name)(request, rng)

    # Byte-level mutations of the written request.

    def bytewise(self, wire, rng):
        where = rng.random()
        if wire.body and where < 0.35:
            body = bytearray(wire.body)
            note = mutate_bytes(body, rng, JSON_PALETTE if body[:1] in b"[{" else BYTE_PALETTE)
            wire.body = bytes(body)
            return "body " + note
        target = bytearray(wire.target)
        q = target.find(b"?")
        if q < 0 and wire.body and rng.random() < 0.5:
            body = bytearray(wire.body)
            note = mutate_bytes(body, rng, JSON_PALETTE if body[:1] in b"[{" else BYTE_PALETTE)
            wire.body = bytes(body)
            return "body " + note
        start = q + 1 if q >= 0 and rng.random() < 0.9 else 0
        note = mutate_bytes(target, rng, BYTE_PALETTE, start=start)
        wire.target = bytes(target)
        return ("query " if start else "path ") + note


def mutate_bytes(buf, rng, palette, start=0):
    """One byte-level mutation of `buf` at or after `start`, in place; returns what it did."""
    n = len(buf)
    pos = rng.randint(start, n) if n >= start else n
    choice = rng.randrange(8)
    if choice == 0 and n > start:
        i = rng.randrange(start, n)
        buf[i] ^= 1 << rng.randrange(8)
        return f"bit flip at {i}"
    if choice == 1:
        piece = rng.choice(palette)
        buf[pos:pos] = piece
        return f"insert {piece!r} at {pos}"
    if choice == 2 and n > start:
        length = rng.randint(1, 16)
        del buf[pos:pos + length]
        return f"delete {length} at {pos}"
    if choice == 3 and n > start:
        length = rng.randint(1, 64)
        buf[pos:pos] = buf[pos:pos + length]
        return f"duplicate {length} at {pos}"
    if choice == 4:
        piece = rng.choice(PERCENT_BROKEN)
        if rng.random() < 0.3:
            pos = n
        buf[pos:pos] = piece
        return f"broken escape {piece!r} at {pos}"
    if choice == 5:
        piece = rng.choice(PERCENT_BAD_UTF8)
        buf[pos:pos] = piece
        return f"escape {piece!r} at {pos}"
    if choice == 6:
        piece = rng.choice(SEPARATOR_NOISE)
        buf[pos:pos] = piece
        return f"noise {piece[:10]!r} at {pos}"
    if n > start:
        i = rng.randrange(start, n)
        buf[i] = rng.randrange(256)
        return f"random byte at {i}"
    buf += b"%"
    return "append %"


SENTINEL = "\u0001FUZZ\u0001"


def replace_geometry(text, geometry_text):
    """JSON `text` (a feature or a list of them, or of edits) with its first "geometry" member written
    as `geometry_text` (one is added to the first feature when none is there)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return text
    done = []

    def walk(node):
        if done:
            return
        if isinstance(node, dict):
            if "geometry" in node:
                node["geometry"] = SENTINEL
                done.append(True)
                return
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(value)
    if not done:
        if isinstance(value, list) and value and isinstance(value[0], dict):
            value[0]["geometry"] = SENTINEL
        elif isinstance(value, dict):
            value["geometry"] = SENTINEL
        else:
            return text
    return json.dumps(value).replace(json.dumps(SENTINEL), geometry_text, 1)
JSON_TOKENS = ["1e308", "-1e308", "1e309", "-0", "NaN", "Infinity", "9223372036854775808", "-9223372036854775809",
               "1e-400", "0.1e-99999", "null", "true", "\"\"", "[]", "{}", "\"\\ud800\"", "\"\\u0000\"",
               "\"" + "x" * 70000 + "\"", "[" * 600 + "]" * 600, "{\"a\":1,\"a\":2}", "\"1\"", "[1,2,3]", "1.5",
               "-1", "0", "\"NaN\""]


def mutate_json(value, rng):
    """`value` written as JSON with one node replaced by a hostile token, a key dropped or duplicated."""
    nodes = []

    def walk(node, parent, key):
        nodes.append((parent, key))
        if isinstance(node, dict):
            for k in list(node):
                walk(node[k], node, k)
        elif isinstance(node, list):
            for i in range(len(node)):
                walk(node[i], node, i)

    walk(value, None, None)
    parent, key = rng.choice(nodes)
    action = rng.randrange(4)
    token = rng.choice(JSON_TOKENS)
    if parent is None:
        return token
    if action == 0 and isinstance(parent, dict):
        del parent[key]
        return json.dumps(value)
    if action == 1 and isinstance(parent, dict):
        text = json.dumps(value)
        dup = json.dumps(str(key))
        return text.replace(dup + ":", dup + ": " + token + ", " + dup + ":", 1)
    parent[key] = SENTINEL
    return json.dumps(value).replace(json.dumps(SENTINEL), token, 1)


# --- The run ---------------------------------------------------------------------------------


class Failure(Exception):
    pass


def strict_json(body):
    def constant(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(body.decode("utf-8"), parse_constant=constant)


class Fuzzer:
    def __init__(self, args):
        parts = urllib.parse.urlsplit(args.base_url)
        if parts.scheme != "http" or not parts.hostname:
            raise SystemExit(f"error: BASE_URL must be http://HOST:PORT, not {args.base_url!r}")
        self.host = parts.hostname
        self.port = parts.port or 80
        self.prefix = parts.path.rstrip("/")
        self.host_header = (parts.netloc).encode()
        self.pid = args.server_pid
        self.token = args.token
        self.count = args.count
        self.seed = args.seed
        self.dump_dir = args.dump_dir
        self.verbose = args.verbose
        self.history = collections.deque(maxlen=HISTORY)
        self.statuses = collections.Counter()
        self.failures = []
        self.sent = 0
        self.raw_sent = 0
        self.hangs = 0
        self.slow = []
        self.rss_kb = 0
        self.peak_kb = 0
        self.start_rss_kb = 0
        self.lock = threading.Lock()
        self.collection_names = [c for c in args.collections.split(",") if c]
        self.allow_edits = False
        self.collections = []

    # Bookkeeping

    def remember(self, data):
        with self.lock:
            self.history.append(data)

    def alive(self):
        return proc_status(self.pid) is not None

    def ensure_alive(self, what=""):
        if not self.alive():
            print(f"FAIL: the server (pid {self.pid}) is gone{(' after ' + what) if what else ''}. The last "
                  f"{len(self.history)} requests sent, oldest first:", flush=True)
            for data in self.history:
                print("  " + repr(data)[:300], flush=True)
            self.summary()
            sys.exit(1)

    def sample_memory(self):
        fields = proc_status(self.pid)
        if fields is None:
            self.ensure_alive("a memory sample")
            return
        self.rss_kb = kb(fields, "VmRSS")
        self.peak_kb = max(self.peak_kb, self.rss_kb, kb(fields, "VmHWM"))
        if self.peak_kb > RSS_LIMIT_KB:
            self.fail("memory", None, f"the server's peak RSS is {self.peak_kb // 1024} MiB, over 1 GiB "
                                      f"(it started at {self.start_rss_kb // 1024} MiB)")
            self.summary()
            sys.exit(1)

    def fail(self, kind, data, message, response=None):
        with self.lock:
            self.failures.append((kind, message))
            number = len(self.failures)
        if number <= MAX_PRINTED_FAILURES:
            lines = [f"FAIL [{kind}] {message}"]
            if data is not None:
                lines.append(f"  request ({len(data)} bytes): {repr(data)[:1500]}")
            if response is not None:
                lines.append(f"  answer: HTTP {response.status} {response.body[:400]!r}")
            if self.dump_dir and data is not None:
                os.makedirs(self.dump_dir, exist_ok=True)
                path = os.path.join(self.dump_dir, f"failure-{number:03d}-{kind}.http")
                with open(path, "wb") as f:
                    f.write(data)
                lines.append(f"  saved as {path}")
            print("\n".join(lines), flush=True)
        elif number == MAX_PRINTED_FAILURES + 1:
            print("(further failures are counted, not printed)", flush=True)

    def count_status(self, status):
        with self.lock:
            self.statuses[status] += 1

    # Judging an answer

    def judge(self, data, response, family="other", head=False, malformed=False, what="request"):
        """Checks one answer; returns False when it failed."""
        if response is None:
            if malformed:
                self.count_status("closed")
                return True
            self.fail("closed", data, f"the server closed the connection without answering a well-formed {what}")
            return False
        self.count_status(response.status)
        if response.status >= 500:
            if response.status == 503 and response.header("retry-after"):
                return True
            self.fail(f"http-{response.status}", data, f"HTTP {response.status} for a {what}", response)
            return False
        if response.truncated:
            self.fail("truncated", data, f"the answer to a {what} was cut short ({len(response.body)} bytes of it)", response)
            return False
        ctype = (response.header("content-type") or "").lower()
        body = response.body
        coding = (response.header("content-encoding") or "").lower()
        if coding in ("gzip", "deflate") and body and not head:
            # A compressed answer (the request accepted it) must inflate; its content is checked.
            try:
                body = zlib.decompress(body, 47)
            except zlib.error as error:
                self.fail("bad-encoding", data, f"a {coding} answer that does not inflate ({error})", response)
                return False
        if "json" in ctype and not head and body:
            try:
                document = strict_json(body)
            except (ValueError, UnicodeDecodeError) as error:
                self.fail("bad-json", data, f"a {ctype} answer that is not JSON ({error})", response)
                return False
            if isinstance(document, dict) and isinstance(document.get("error"), dict):
                code = document["error"].get("code")
                if isinstance(code, int) and code >= 500:
                    self.fail("arcgis-5xx", data, f"an ArcGIS error document with code {code} (HTTP {response.status})", response)
                    return False
        elif "html" in ctype and HTML_MARKER in body.lower():
            self.fail("html-injection", data, "an HTML answer shows a value sent in the request (or stored by an edit) as markup, "
                                              "unescaped", response)
            return False
        elif "json" in ctype and not head and not body and response.status == 200:
            self.fail("empty-json", data, "an empty body labelled JSON with HTTP 200", response)
            return False
        return True

    # Sending

    def exchange(self, data, head=False, timeout=REQUEST_TIMEOUT, follow_up=False):
        """Sends `data` on a new connection; returns (response, follow-up response or None)."""
        self.remember(data)
        conn = Connection(self.host, self.port, timeout)
        try:
            conn.send(data)
            response = conn.read_response(head=head)
            second = None
            # A follow-up only when the whole request went out: bytes of it left unsent would be
            # read as the start of the follow-up.
            if follow_up and response is not None and not conn.answered_early \
                    and (response.header("connection") or "").lower() != "close":
                probe = b"GET " + self.prefix.encode() + b"/ogc HTTP/1.1\r\nHost: " + self.host_header + b"\r\nConnection: close\r\n\r\n"
                conn.deadline = time.monotonic() + timeout
                conn.send(probe)
                second = conn.read_response()
            return response, second
        finally:
            conn.close()

    def liveness(self, why=""):
        """GET BASE/ogc must answer 200 within 5 s."""
        data = (b"GET " + self.prefix.encode() + b"/ogc HTTP/1.1\r\nHost: " + self.host_header + b"\r\n"
                + (b"Authorization: Bearer " + self.token.encode() + b"\r\n" if self.token else b"")
                + b"Connection: close\r\n\r\n")
        started = time.monotonic()
        try:
            conn = Connection(self.host, self.port, LIVENESS_TIMEOUT)
            try:
                conn.send(data)
                response = conn.read_response()
            finally:
                conn.close()
        except Hang:
            return f"GET /ogc did not answer within {LIVENESS_TIMEOUT:.0f} s{why}"
        except (OSError, BadResponse) as error:
            return f"GET /ogc failed: {error}{why}"
        if response is None:
            return f"GET /ogc: the connection closed without an answer{why}"
        if response.status != 200:
            return f"GET /ogc answered HTTP {response.status} ({time.monotonic() - started:.1f} s){why}: {response.body[:200]!r}"
        try:
            strict_json(response.body)
        except (ValueError, UnicodeDecodeError) as error:
            return f"GET /ogc answered something that is not JSON ({error}){why}"
        return None

    def require_liveness(self, why=""):
        problem = self.liveness(why)
        if problem:
            self.ensure_alive("a liveness check")
            self.fail("liveness", None, problem)
            # One more chance before giving up: a hung server makes every further request wait.
            time.sleep(1)
            if self.liveness():
                # A crashing Swift process can take seconds to print its backtrace and exit.
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and self.alive():
                    time.sleep(0.2)
                self.ensure_alive("a liveness check")
                print("FAIL: the server no longer answers GET /ogc (hung or starved); stopping. The last "
                      f"{len(self.history)} requests sent, oldest first:", flush=True)
                for data in self.history:
                    print("  " + repr(data)[:300], flush=True)
                self.summary()
                sys.exit(1)

    # Setup

    def get_json(self, path):
        data = (b"GET " + (self.prefix + path).encode() + b" HTTP/1.1\r\nHost: " + self.host_header + b"\r\n"
                + (b"Authorization: Bearer " + self.token.encode() + b"\r\n" if self.token else b"")
                + b"Connection: close\r\n\r\n")
        response, _ = self.exchange(data)
        if response is None or response.status != 200:
            raise Failure(f"GET {path}: {'no answer' if response is None else 'HTTP %d %r' % (response.status, response.body[:300])}")
        return strict_json(response.body)

    def setup(self):
        if not self.alive():
            raise Failure(f"no process {self.pid} (the server's pid)")
        fields = proc_status(self.pid)
        self.start_rss_kb = kb(fields, "VmRSS")
        self.peak_kb = self.start_rss_kb
        conformance = self.get_json("/ogc/conformance")
        self.allow_edits = any(EDIT_CONFORMANCE.search(c) for c in conformance.get("conformsTo", []))
        token = ("&token=" + urllib.parse.quote(self.token, safe="")) if self.token else ""
        for name in self.collection_names:
            layer = self.get_json(f"/arcgis/rest/services/{name}/FeatureServer/0?f=json{token}")
            if "error" in layer:
                raise Failure(f"collection {name!r}: {layer['error']}")
            known = KNOWN_SCHEMAS.get(name, (None, []))
            fields = [(f["name"], esri_type_name(f.get("type"))) for f in layer.get("fields", [])
                      if f.get("type") not in ("esriFieldTypeOID", "esriFieldTypeGeometry", "esriFieldTypeGlobalID")]
            if not fields:
                fields = known[1]
            geometry = esri_geometry_name(layer.get("geometryType"), known[0])
            extent = layer.get("extent") or {}
            box = (extent.get("xmin"), extent.get("ymin"), extent.get("xmax"), extent.get("ymax"))
            if any(not isinstance(v, (int, float)) or not math.isfinite(v) for v in box) or \
                    (extent.get("spatialReference") or {}).get("wkid") not in (4326, None):
                box = (-180.0, -85.0, 180.0, 85.0)
            ids = self.get_json(f"/arcgis/rest/services/{name}/FeatureServer/0/query?where=1%3D1&returnIdsOnly=true&f=json{token}")
            self.collections.append(Collection(name, geometry, fields, box, list(ids.get("objectIds") or [])))
        self.corpus = Corpus(self)
        self.mutator = Mutator(self)

    # Routing helpers for the mutations that need a given route.

    def coll_of(self, request):
        for coll in self.collections:
            if f"/{coll.name}/" in request.path or request.path.endswith("/" + coll.name):
                return coll
        return None

    def route_to_query(self, request, coll, rng, into_body=None):
        """Makes `request` an ArcGIS query of `coll` (keeping its parameters when it is one)."""
        if not (request.family == "arcgis" and request.path.endswith("/query")):
            base = self.corpus.arcgis_query(coll, rng)
            base.notes = request.notes
            request.__dict__.update(base.__dict__)
        if into_body is True and request.form is None:
            request.form, request.query, request.method = (request.query or []), None, "POST"
        elif into_body is False and request.form is not None:
            request.query, request.form, request.method = (request.query or []) + request.form, None, "GET"

    def route_to_items(self, request, coll):
        if not (request.family == "ogc" and request.path.endswith("/items") and request.method == "GET"):
            request.family, request.label, request.method = "ogc", "ogc items", "GET"
            request.path = self.prefix + f"/ogc/collections/{coll.name}/items"
            request.query, request.form, request.body, request.ctype = [], None, None, None
            request.headers = self.corpus.bearer()
        if request.query is None:
            request.query = []

    # The schedule

    def mandatory(self, rng):
        """The hostile requests every run sends at least once: [(description, factory)], each
        factory making a Request from a seeded Random."""
        m = self.mutator
        out = []
        poly = next((c for c in self.collections if c.geometry in ("polygon", "multipolygon")), self.collections[0])

        def query(coll=None, method=None):
            def make(r):
                req = self.corpus.arcgis_query(coll or r.choice(self.collections), r)
                if method == "POST" and req.form is None:
                    req.form, req.query, req.method = req.query, None, "POST"
                elif method == "GET" and req.form is not None:
                    req.query, req.form, req.method = req.form, None, "GET"
                return req
            return make

        def items(coll=None):
            def make(r):
                req = self.corpus.ogc_items(coll or r.choice(self.collections), r)
                if req.query is None:
                    req.query = []
                return req
            return make

        def edit(factory, coll=None):
            return lambda r: factory(coll or r.choice(self.collections), r)

        def add(description, maker, mutation):
            def make(r):
                req = maker(r)
                mutation(req, r)
                return req
            out.append((description, make))

        def set_ctype(ctype):
            return lambda q, r: setattr(q, "ctype", ctype)

        def set_param(name, value):
            return lambda q, r: m.set_param(q.params(r), name, value)

        for body in (False, True):
            for _ in range(3):
                add("100 KB where", query(), lambda q, r, b=body: m.m_huge_where(q, r, into_body=b))
                add("10,000 objectIds", query(), lambda q, r, b=body: m.m_huge_object_ids(q, r, into_body=b))
                add("where nested 5,000 deep", query(), lambda q, r, b=body: m.m_deep_where(q, r, into_body=b))
        for _ in range(4):
            add("CQL2 text nested 5,000 deep", items(), m.m_deep_cql_text)
            add("CQL2 JSON nested deep", items(), m.m_deep_cql_json)
            add("JSON parameter nested 5,000 deep", query(), m.m_deep_json_parameter)
        for number in ["1e308", "-0", "NaN", "9223372036854775808"]:
            for maker in (query(), items()):
                add(f"number {number}", maker, lambda q, r, n=number: m.m_extreme_numbers(q, r, which=n))
        for name, value in [("resultOffset", str(2 ** 63)), ("resultOffset", str(2 ** 63 - 1)),
                            ("resultRecordCount", str(2 ** 63)), ("resultOffset", "-0")]:
            add(f"{name} {value}", query(), set_param(name, value))
        for name, value in [("offset", str(2 ** 63)), ("offset", str(2 ** 63 - 1)), ("limit", str(2 ** 63)), ("limit", "-0")]:
            add(f"{name} {value}", items(), set_param(name, value))
        for _ in range(6):
            add("bad geometry (query)", query(), m.m_bad_geometry)
            add("bad geometry (CQL2)", items(), m.m_bad_geometry)
        add("100,000-vertex polygon (query)", query(poly, "POST"), lambda q, r: m.m_bad_geometry(q, r, huge=True))
        add("100,000-point multipoint (query, touches)", query(poly, "POST"), lambda q, r: (
            m.set_param(q.form, "geometry", HUGE.get("multipoint")), m.set_param(q.form, "geometryType", "esriGeometryMultipoint"),
            m.set_param(q.form, "spatialRel", "esriSpatialRelTouches")))
        add("100,000-vertex polygon (CQL2, over the URL limit)", items(poly), lambda q, r: m.m_bad_geometry(q, r, huge=True))
        if self.allow_edits:
            for _ in range(3):
                add("bad geometry (ArcGIS edit)", edit(self.corpus.arcgis_add), m.m_bad_geometry)
                add("bad geometry (OGC edit)", edit(self.corpus.ogc_create), m.m_bad_geometry)
            add("100,000-vertex polygon (OGC create)", edit(self.corpus.ogc_create, poly), lambda q, r: m.m_bad_geometry(q, r, huge=True))
            add("100,000-vertex polygon (addFeatures)", edit(self.corpus.arcgis_add, poly), lambda q, r: m.m_bad_geometry(q, r, huge=True))
        for ctype in CONTENT_TYPES[:12]:
            add(f"Content-Type {ctype[:20]!r}", query(method="POST"), set_ctype(ctype))
        for ctype in ["text/plain", "", "application/xml", "multipart/form-data; boundary=x", "application/geo+json; charset=\xff"]:
            add(f"OGC create Content-Type {ctype[:20]!r}", edit(self.corpus.ogc_create), set_ctype(ctype))
        for _ in range(5):
            add("multipart (attachment)", edit(self.corpus.arcgis_attachment_edit), m.m_multipart)
            add("multipart (query)", query(method="POST"), m.m_multipart)
        for which in ["orderByFields", "outFields", "outStatistics", "groupByFieldsForStatistics", "sortby", "properties",
                      "objectIds"]:
            # On every row of the largest collection, so that the whole list is worked through.
            most = max(self.collections, key=lambda c: len(c.ids))
            if which in ("sortby", "properties"):
                maker = lambda r, c=most: self.corpus.ogc("ogc items", f"/ogc/collections/{c.name}/items", [("limit", "10")])
            else:
                maker = lambda r, c=most: self.corpus.arcgis(r, "arcgis query", f"/{c.name}/FeatureServer/0/query",
                                                            [("where", "1=1"), ("f", "json")], method="POST")
            add(f"{which} of {HUGE_LIST} items", maker, lambda q, r, w=which: m.m_huge_list(q, r, which=w, repeat=True))
        add("multipart of 20,000 parts", query(method="POST"), lambda q, r: m.m_multipart(q, r, many=20000))
        add("20,000 form parameters", query(method="POST"),
            lambda q, r: q.form.extend((f"p{i}", "") for i in range(20000)))
        add("5,000 query parameters", query(method="GET"),
            lambda q, r: q.query.extend((f"p{i}", "") for i in range(5000)))
        for attack in ["/..", "/%2e%2e", "/%2F", "/..%2f..%2f", "/%252e%252e", "//"]:
            for repeat in (1, 3, 2000):
                out.append((f"path {attack} x{repeat}", lambda r, a=attack, n=repeat: self.path_attack(r, a, n)))
        out.append(("long path", lambda r: Request("other", "long path", "GET", self.prefix + "/ogc/" + "a/" * 30000)))
        out.append(("encoded collection", lambda r: Request("ogc", "encoded", "GET",
                                                             self.prefix + "/ogc/collections/%2e%2e%2F%2e%2e%2Fetc%2Fpasswd/items")))
        out.append(("encoded service", lambda r: Request("arcgis", "encoded", "GET",
                                                          self.prefix + "/arcgis/rest/services/..%2F..%2F/FeatureServer/0/query")))
        # The method sweep: every route, every unusual method.
        for family, path, feature in self.corpus.routes(self.collections[0]):
            for method in METHODS_SWEEP:
                out.append((f"{method} {path}", lambda r, f=family, p=path, me=method, ft=feature: self.sweep(f, p, me, ft)))
        return out

    def path_attack(self, rng, attack, repeat):
        base = self.corpus.pick(rng)
        base.path = base.path + attack * repeat if rng.random() < 0.5 else attack * repeat + base.path
        return base

    def sweep(self, family, path, method, feature):
        headers = [("Authorization", "Bearer " + self.token)] if self.token else []
        query = None
        if "?" in path:
            path, _, q = path.partition("?")
            query = [Raw(q)]
        body = feature if method in ("PUT", "PATCH") else None
        return Request(family, f"{method} sweep", method, path, query=query, body=body,
                       ctype="application/geo+json" if body else None, headers=headers)

    def build(self, rng, forced=None):
        """One mutated request: (Wire, description)."""
        if forced is not None:
            request = forced(rng)
            notes = ["forced"]
        else:
            request = self.corpus.pick(rng)
            notes = []
            for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
                notes.append(self.mutator.structured(request, rng))
        wire = to_wire(request)
        if forced is None:
            for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
                notes.append(self.mutator.bytewise(wire, rng))
            # Mostly keep the bytes well-formed HTTP so that the application sees them, percent-encoding
            # what a request target cannot carry; sometimes send them as they are.
            if rng.random() < 0.75:
                wire.target = sanitize_target(wire.target)
            wire.keep_alive_probe = rng.random() < 0.1
        wire.label = request.label + ": " + "; ".join(notes)
        return wire

    def send_one(self, wire):
        data = wire.bytes(self.host_header, close=not wire.keep_alive_probe)
        head = wire.method == b"HEAD"
        malformed = wire.malformed
        started = time.monotonic()
        try:
            response, second = self.exchange(data, head=head, follow_up=wire.keep_alive_probe)
        except Hang:
            self.hangs += 1
            self.count_status("hang")
            self.ensure_alive("a request that hung")
            context = (f"; {self.hangs - 1} earlier requests hung, and the server may still be working on them"
                       if self.hangs > 1 else "")
            self.fail("hang", data, f"no answer within {REQUEST_TIMEOUT:.0f} s ({wire.label}){context}")
            self.require_liveness(" after a hung request")
            if self.hangs >= HANG_LIMIT:
                print(f"FAIL: {self.hangs} requests hung; stopping", flush=True)
                self.summary()
                sys.exit(1)
            return None
        except BadResponse as error:
            self.fail("bad-http", data, f"{error} ({wire.label})")
            return None
        except ConnectionRefusedError:
            self.ensure_alive("a refused connection")
            self.fail("refused", data, "the connection was refused")
            return None
        except OSError as error:
            self.ensure_alive("a socket error")
            if malformed:
                self.count_status("closed")
            else:
                self.fail("socket", data, f"{error} ({wire.label})")
            return None
        elapsed = time.monotonic() - started
        if response is None and not malformed:
            # A well-formed request left unanswered: the server may be going down.
            self.judge(data, response, wire.family, what=f"request ({wire.label})")
            self.require_liveness(" after a request left unanswered")
            return None
        if elapsed > SLOW_SECONDS:
            self.slow.append((elapsed, len(data), wire.label))
            print(f"note: {elapsed:.1f} s (under the {REQUEST_TIMEOUT:.0f} s limit) for {len(data)} bytes: {wire.label[:160]}", flush=True)
        self.judge(data, response, wire.family, head=head, malformed=malformed, what=f"request ({wire.label})")
        if second is not None:
            self.judge(data, second, "ogc", what="follow-up GET /ogc on a kept-alive connection")
        if self.verbose:
            status = response.status if response else "closed"
            print(f"{self.sent:5d} {status} {elapsed * 1000:7.1f} ms {len(data):8d} B {wire.label[:120]}", flush=True)
        return response

    def learn(self, wire, response):
        """Keeps the IDs the fuzzer's own valid adds created, for its updates and deletes."""
        if response is None or wire.kind != "add" or response.status not in (200, 201):
            return []
        coll = None
        for c in self.collections:
            if b"/" + c.name.encode() + b"/" in wire.target:
                coll = c
        if coll is None:
            return []
        before = len(coll.added)
        location = response.header("location")
        if location:
            tail = location.rsplit("/", 1)[-1]
            if tail.isdigit():
                coll.added.append(int(tail))
            return [(coll, i) for i in coll.added[before:]]
        try:
            document = strict_json(response.body)
        except (ValueError, UnicodeDecodeError):
            return []
        results = []
        if isinstance(document, dict):
            results = document.get("addResults") or []
        elif isinstance(document, list) and document and isinstance(document[0], dict):
            results = document[0].get("addResults") or []
        for result in results:
            if isinstance(result, dict) and result.get("success") and isinstance(result.get("objectId"), int):
                coll.added.append(result["objectId"])
        return [(coll, i) for i in coll.added[before:]]

    def delete_huge(self, added):
        """Deletes the huge features an edit added at once (each later save of the table would
        write them again, and each later query return them), checking the answer as any other."""
        for coll, oid in added:
            if oid in coll.added:
                coll.added.remove(oid)
            wire = to_wire(self.corpus.ogc("delete a huge feature", f"/ogc/collections/{coll.name}/items/{oid}", method="DELETE",
                                           kind="delete"))
            wire.label = f"cleanup: DELETE the huge feature {oid} of {coll.name}"
            self.send_one(wire)
            self.sent += 1

    def run(self):
        rng = random.Random(self.seed)
        started = time.monotonic()
        self.started = started
        mandatory = self.mandatory(random.Random(self.seed + 1))
        rng.shuffle(mandatory)
        mandatory = mandatory[: self.count]
        slots = {}
        positions = rng.sample(range(self.count), len(mandatory)) if self.count else []
        for position, item in zip(positions, mandatory):
            slots[position] = item
        raw = RawCases(self)
        cases = raw.cases(random.Random(self.seed + 2))
        raw_at = collections.defaultdict(list)
        for i, case in enumerate(cases):
            raw_at[int((i + 0.5) * self.count / len(cases)) if self.count else 0].append(case)
        self.sample_memory()
        for i in range(self.count):
            for case in raw_at.get(i, []):
                raw.run(case)
            forced = slots.get(i)
            wire = self.build(rng, forced[1] if forced else None)
            if forced:
                wire.label = forced[0] + " | " + wire.label
            response = self.send_one(wire)
            self.sent += 1
            added = self.learn(wire, response)
            if added and len(wire.body or b"") > 1 << 20:
                self.delete_huge(added)
            self.ensure_alive("this request")
            if (i + 1) % LIVENESS_EVERY == 0:
                self.require_liveness(f" (after request {i + 1})")
                self.sample_memory()
        for j in sorted(k for k in raw_at if k >= self.count):
            for case in raw_at[j]:
                raw.run(case)
        self.require_liveness(" (at the end)")
        self.sample_memory()
        self.final_checks()
        self.sample_memory()
        self.ensure_alive("the final checks")

    def final_checks(self):
        """Every collection still answers a count (and, after edits, a full query and a page)."""
        token = ("&token=" + urllib.parse.quote(self.token, safe="")) if self.token else ""
        for coll in self.collections:
            paths = [f"/arcgis/rest/services/{coll.name}/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json{token}"]
            if self.allow_edits:
                paths += [f"/arcgis/rest/services/{coll.name}/FeatureServer/0/query?where=1%3D1&outFields=*&f=json{token}",
                          f"/arcgis/rest/services/{coll.name}/FeatureServer/0/query?where=1%3D1&outFields=*&f=geojson{token}",
                          f"/ogc/collections/{coll.name}/items?limit=1000",
                          f"/arcgis/rest/services/{coll.name}/FeatureServer/0?f=json{token}"]
            for path in paths:
                try:
                    document = self.get_json(path)
                except (Failure, Hang, BadResponse, OSError, ValueError) as error:
                    self.fail("final", None, f"{coll.name}: GET {path} failed after the run: {error}")
                    continue
                if isinstance(document, dict) and "error" in document:
                    self.fail("final", None, f"{coll.name}: GET {path} answered an error after the run: {document['error']}")
                elif "returnCountOnly" in path and not isinstance(document.get("count"), int):
                    self.fail("final", None, f"{coll.name}: the count query answered {str(document)[:200]}")
                elif "returnCountOnly" in path and self.verbose:
                    print(f"{coll.name}: {document['count']} features after the run", flush=True)

    def summary(self):
        elapsed = time.monotonic() - getattr(self, "started", time.monotonic())
        statuses = dict(sorted(self.statuses.items(), key=lambda kv: (isinstance(kv[0], str), kv[0])))
        peak = self.peak_kb / 1024
        print(f"fuzz: {self.sent + self.raw_sent} requests ({self.raw_sent} raw), statuses {statuses}, "
              f"peak RSS {peak:.0f} MiB, {elapsed:.1f} s", flush=True)


def sanitize_target(target):
    """`target` with the bytes a request target cannot carry percent-encoded."""
    out = bytearray()
    for b in target:
        if 0x21 <= b <= 0x7E and b != 0x23:
            out.append(b)
        else:
            out += b"%%%02X" % b
    return bytes(out)


# --- Raw socket requests ---------------------------------------------------------------------


class RawCase:
    def __init__(self, name, data=None, malformed=True, responses=1, allow=(), runner=None, may_wait=False):
        self.name = name
        self.may_wait = may_wait  # bytes that do not end a request yet: the server may wait for more
        self.data = data
        self.malformed = malformed
        self.responses = responses
        self.allow = allow  # 5xx statuses that are right here (505 for an unknown version)
        self.runner = runner


class RawCases:
    def __init__(self, fuzzer):
        self.fz = fuzzer
        self.p = fuzzer.prefix.encode()
        self.host = fuzzer.host_header

    def request(self, method=b"GET", target=None, headers=(), body=b"", close=True, version=b"HTTP/1.1"):
        target = target if target is not None else self.p + b"/ogc"
        lines = [method + b" " + target + b" " + version, b"Host: " + self.host]
        if self.fz.token:
            lines.append(b"Authorization: Bearer " + self.fz.token.encode())
        lines += list(headers)
        if close:
            lines.append(b"Connection: close")
        if body and not any(h.lower().startswith((b"content-length", b"transfer-encoding")) for h in headers):
            lines.append(b"Content-Length: " + str(len(body)).encode())
        return b"\r\n".join(lines) + b"\r\n\r\n" + body

    def cases(self, rng):
        p = self.p
        first = self.fz.collections[0].name.encode()
        query = p + b"/arcgis/rest/services/" + first + b"/FeatureServer/0/query"
        items = p + b"/ogc/collections/" + first + b"/items"
        form = b"where=1%3D1&returnCountOnly=true&f=json"
        form_type = b"Content-Type: application/x-www-form-urlencoded"
        r = self.request
        garbage = bytes(rng.randrange(256) for _ in range(4096))
        cases = [
            # Request lines.
            RawCase("empty lines only", b"\r\n\r\n\r\n\r\n", may_wait=True),
            RawCase("method only", b"GET\r\n\r\n"),
            RawCase("HTTP/0.9", b"GET " + p + b"/ogc\r\n\r\n"),
            RawCase("HTTP/9.9", r(version=b"HTTP/9.9"), allow=(505,)),
            RawCase("HTTP/2.0 in HTTP/1 framing", r(version=b"HTTP/2.0"), allow=(505,)),
            RawCase("HTTP/1.2", r(version=b"HTTP/1.2"), allow=(505,)),
            RawCase("version garbage", r(version=b"HTTX/1.1")),
            RawCase("version 1.10", r(version=b"HTTP/1.10"), allow=(505,)),
            RawCase("extra token", r(target=p + b"/ogc HTTP/1.1")),
            RawCase("double spaces", b"GET  " + p + b"/ogc  HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
            RawCase("leading space", b" GET " + p + b"/ogc HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
            RawCase("no method", b"" + p + b"/ogc HTTP/1.1\r\nHost: x\r\n\r\n"),
            RawCase("leading empty lines", b"\r\n\r\n" + r()),
            RawCase("NUL in method", b"G\x00T " + p + b"/ogc HTTP/1.1\r\nHost: x\r\n\r\n"),
            RawCase("NUL in target", r(target=p + b"/og\x00c")),
            RawCase("space in target", r(target=p + b"/o gc")),
            RawCase("UTF-8 in target", r(target=p + "/ogc/collections/\u00e9\u00e8".encode())),
            RawCase("invalid UTF-8 in target", r(target=p + b"/ogc/collections/\xff\xfe")),
            RawCase("DEL in target", r(target=p + b"/ogc?f=json\x7f")),
            RawCase("bare LF", b"GET " + p + b"/ogc HTTP/1.1\nHost: x\nConnection: close\n\n"),
            RawCase("bare CR", b"GET " + p + b"/ogc HTTP/1.1\rHost: x\rConnection: close\r\r"),
            RawCase("garbage", garbage),
            RawCase("TLS ClientHello", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + garbage[:500]),
            RawCase("HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"),
            RawCase("lowercase method", r(method=b"get")),
            RawCase("unknown method", r(method=b"BREW")),
            RawCase("method of 10 KB", r(method=b"A" * 10000)),
            RawCase("target of 1 MB", r(target=p + b"/ogc?f=" + b"a" * (1 << 20))),
            RawCase("target of 100 KB", r(target=items + b"?filter=" + b"(" * 100000)),
            RawCase("absolute-form target", r(target=b"http://example.invalid" + p + b"/ogc"), malformed=False),
            RawCase("asterisk target", r(method=b"OPTIONS", target=b"*")),
            RawCase("authority-form CONNECT", r(method=b"CONNECT", target=b"127.0.0.1:1")),
            RawCase("fragment in target", r(target=p + b"/ogc#x"), malformed=False),
            RawCase("target without slash", r(target=b"ogc")),
            # Headers.
            RawCase("header without colon", r(headers=[b"NoColonHere"])),
            RawCase("header name with space", r(headers=[b"Bad Header: x"])),
            RawCase("empty header name", r(headers=[b": x"])),
            RawCase("NUL in header value", r(headers=[b"X-A: a\x00b"])),
            RawCase("obs-fold", r(headers=[b"X-A: a", b" folded"])),
            RawCase("header of 200 KB", r(headers=[b"X-Big: " + b"a" * 200_000])),
            RawCase("10,000 headers", r(headers=[b"X-H%d: v" % i for i in range(10000)])),
            RawCase("10,000 headers of one name", r(headers=[b"Accept: */*"] * 10000)),
            RawCase("no Host in HTTP/1.1", b"GET " + p + b"/ogc HTTP/1.1\r\nConnection: close\r\n\r\n"),
            RawCase("two Host headers", r(headers=[b"Host: other"])),
            RawCase("Host with quotes and backslashes", self.with_host(b"a\"b\\c</x>{"), malformed=False),
            RawCase("Host with markup, HTML page", self.with_host(b"\"><fuzzmarker>", target=self.p + b"/ogc?f=html"), malformed=False),
            RawCase("Host with UTF-8", self.with_host("\u00e9x.example".encode()), malformed=False),
            RawCase("Host with invalid UTF-8", self.with_host(b"\xff\xfe")),
            RawCase("Host of 60 KB", self.with_host(b"h" * 60000)),
            RawCase("empty Host", self.with_host(b"")),
            # Content-Length.
            RawCase("Content-Length negative", r(method=b"POST", target=query, headers=[form_type, b"Content-Length: -1"], body=form)),
            RawCase("Content-Length not a number", r(method=b"POST", target=query, headers=[form_type, b"Content-Length: abc"], body=form)),
            RawCase("Content-Length overflow", r(method=b"POST", target=query, headers=[form_type, b"Content-Length: 99999999999999999999999"], body=form)),
            RawCase("two Content-Lengths", r(method=b"POST", target=query, headers=[form_type, b"Content-Length: 5", b"Content-Length: 6"], body=form)),
            RawCase("Content-Length with plus", r(method=b"POST", target=query, headers=[form_type, b"Content-Length: +%d" % len(form)], body=form)),
            RawCase("Content-Length and chunked", r(method=b"POST", target=query, headers=[form_type, b"Content-Length: 5", b"Transfer-Encoding: chunked"],
                                                       body=b"%x\r\n" % len(form) + form + b"\r\n0\r\n\r\n")),
            RawCase("GET with a body", r(target=p + b"/ogc", headers=[b"Content-Length: 5"], body=b"hello"), malformed=False),
            RawCase("body over the limit (17 MiB)", r(method=b"POST", target=query, headers=[form_type, b"Content-Length: %d" % (17 << 20)],
                                                          body=b"where=" + b"a" * ((17 << 20) - 6)), malformed=False),
            RawCase("Content-Length larger than the body, then close", runner=self.short_body_close),
            RawCase("Content-Length larger than the body, then half-close", runner=self.short_body_half_close),
            # Chunked bodies.
            RawCase("chunked, valid", r(method=b"POST", target=query, headers=[form_type, b"Transfer-Encoding: chunked"],
                                        body=b"%x\r\n" % len(form) + form + b"\r\n0\r\n\r\n"), malformed=False),
            RawCase("chunk size not hex", self.chunked(query, b"zz\r\nabc\r\n0\r\n\r\n")),
            RawCase("chunk size negative", self.chunked(query, b"-1\r\nabc\r\n0\r\n\r\n")),
            RawCase("chunk size overflow", self.chunked(query, b"FFFFFFFFFFFFFFFFFFFFFF\r\nabc\r\n0\r\n\r\n")),
            RawCase("chunk size 0x prefix", self.chunked(query, b"0x3\r\nabc\r\n0\r\n\r\n")),
            RawCase("chunk shorter than its size", self.chunked(query, b"10\r\nabc\r\n0\r\n\r\n"), may_wait=True),
            RawCase("chunk without CRLF", self.chunked(query, b"3\r\nabcdef0\r\n\r\n")),
            RawCase("chunk extension of 100 KB", self.chunked(query, b"3;" + b"e" * 100_000 + b"\r\nabc\r\n0\r\n\r\n")),
            RawCase("chunked trailer garbage", self.chunked(query, b"3\r\nabc\r\n0\r\nNoColon\r\n\r\n")),
            RawCase("chunked, 17 MiB in 64 KiB chunks", self.chunked(query, (b"10000\r\n" + b"a" * 65536 + b"\r\n") * 272 + b"0\r\n\r\n"), malformed=False),
            RawCase("Transfer-Encoding gzip", r(method=b"POST", target=query, headers=[form_type, b"Transfer-Encoding: gzip"], body=form)),
            RawCase("Transfer-Encoding chunked twice", r(method=b"POST", target=query, headers=[form_type, b"Transfer-Encoding: chunked, chunked"],
                                                             body=b"3\r\nabc\r\n0\r\n\r\n")),
            RawCase("Transfer-Encoding xchunked", r(method=b"POST", target=query, headers=[form_type, b"Transfer-Encoding: xchunked"], body=form)),
            RawCase("Transfer-Encoding in HTTP/1.0", r(method=b"POST", target=query, version=b"HTTP/1.0",
                                                           headers=[form_type, b"Transfer-Encoding: chunked"], body=b"3\r\nabc\r\n0\r\n\r\n")),
            RawCase("chunked, last chunk missing, then close", runner=self.chunked_close),
            # Other framing.
            RawCase("Expect: 100-continue", runner=self.expect_continue),
            RawCase("HTTP/1.0 without Host", b"GET " + p + b"/ogc HTTP/1.0\r\n\r\n", malformed=False),
            RawCase("HTTP/1.0 keep-alive", b"GET " + p + b"/ogc HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", malformed=False),
            RawCase("Upgrade: websocket", r(headers=[b"Upgrade: websocket", b"Connection: Upgrade", b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                                                    b"Sec-WebSocket-Version: 13"], close=False), malformed=False),
            RawCase("Upgrade: h2c", r(headers=[b"Upgrade: h2c", b"HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA"]), malformed=False),
            # Pipelining.
            RawCase("20 pipelined requests", runner=lambda case: self.pipelined(case, rng, 20, malformed_at=None)),
            RawCase("pipelined, a POST in the middle", runner=lambda case: self.pipelined(case, rng, 5, post_at=2)),
            RawCase("pipelined, a malformed third", runner=lambda case: self.pipelined(case, rng, 5, malformed_at=2)),
            RawCase("1,000 pipelined requests", runner=lambda case: self.pipelined(case, rng, 1000)),
            RawCase("pipelined after a body over the limit", runner=self.pipelined_after_large_body),
            # Connections.
            RawCase("stall in the request line", runner=lambda case: self.stall(case, b"GET " + p + b"/og")),
            RawCase("stall in the headers", runner=lambda case: self.stall(case, b"GET " + p + b"/ogc HTTP/1.1\r\nHost: x\r\nX-A: ")),
            RawCase("stall in the body", runner=lambda case: self.stall(case, b"POST " + query + b" HTTP/1.1\r\nHost: x\r\n" + form_type
                                                                        + b"\r\nContent-Length: 1000\r\n\r\nwhere=1", finish=b"a" * 993)),
            RawCase("stall in a chunked body", runner=lambda case: self.stall(case, b"POST " + query + b" HTTP/1.1\r\nHost: x\r\n" + form_type
                                                                              + b"\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n")),
            RawCase("slow client, a byte at a time", runner=self.slow_client),
            RawCase("200 idle connections", runner=lambda case: self.idle(case, 200)),
            RawCase("200 connections each sending a request at once", runner=lambda case: self.idle(case, 200, then_request=True)),
            RawCase("resets during large answers", runner=self.resets),
            RawCase("burst of 100 concurrent queries", runner=lambda case: self.burst(case, 100)),
        ]
        return cases

    def with_host(self, host, target=None):
        return (b"GET " + (target or self.p + b"/ogc") + b" HTTP/1.1\r\nHost: " + host + b"\r\n"
                + (b"Authorization: Bearer " + self.fz.token.encode() + b"\r\n" if self.fz.token else b"")
                + b"Connection: close\r\n\r\n")

    def chunked(self, target, body):
        return (b"POST " + target + b" HTTP/1.1\r\nHost: " + self.host + b"\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + body)

    # Running

    def run(self, case):
        self.fz.raw_sent += 1
        started = time.monotonic()
        before = collections.Counter(self.fz.statuses)
        try:
            if case.runner:
                case.runner(case)
            else:
                self.simple(case)
        except Hang as error:
            self.fz.count_status("hang")
            self.fz.fail("hang", case.data, f"raw case {case.name!r}: {error}")
        except BadResponse as error:
            self.fz.fail("bad-http", case.data, f"raw case {case.name!r}: {error}")
        except OSError as error:
            self.fz.ensure_alive(f"raw case {case.name!r}")
            if not case.malformed:
                self.fz.fail("socket", case.data, f"raw case {case.name!r}: {error}")
            else:
                self.fz.count_status("closed")
        self.fz.ensure_alive(f"raw case {case.name!r}")
        self.fz.require_liveness(f" (after raw case {case.name!r})")
        if self.fz.verbose:
            got = dict(collections.Counter(self.fz.statuses) - before)
            print(f"raw {case.name}: {got} {time.monotonic() - started:.2f} s", flush=True)

    def judge(self, case, data, response, what=None):
        what = what or f"raw case {case.name!r}"
        if response is not None and response.status in case.allow:
            self.fz.count_status(response.status)
            return True
        return self.fz.judge(data, response, head=False, malformed=case.malformed, what=what)

    def simple(self, case):
        self.fz.remember(case.data)
        conn = Connection(self.fz.host, self.fz.port, 1.5 if case.may_wait else REQUEST_TIMEOUT)
        try:
            conn.send(case.data)
            got = 0
            while got < case.responses:
                try:
                    response = conn.read_response()
                except Hang:
                    if case.may_wait and got == 0:
                        self.fz.count_status("waiting")
                        return  # only the server's liveness counts, checked after each raw case
                    raise
                if response is None:
                    if got == 0:
                        self.judge(case, case.data, None)
                    elif not case.malformed:
                        self.fz.fail("closed", case.data, f"raw case {case.name!r}: closed after {got} of {case.responses} answers")
                    return
                got += 1
                self.judge(case, case.data, response)
                if (response.header("connection") or "").lower() == "close" or response.status == 101:
                    return
        finally:
            conn.close()

    def short_body_close(self, case):
        """Content-Length 1000, 20 bytes of body, then the client goes away."""
        first = self.fz.collections[0].name.encode()
        data = (b"POST " + self.p + b"/arcgis/rest/services/" + first + b"/FeatureServer/0/query HTTP/1.1\r\nHost: " + self.host
                + b"\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nwhere=1%3D1&f=json")
        case.data = data
        for reset in (False, True):
            self.fz.remember(data)
            conn = Connection(self.fz.host, self.fz.port, REQUEST_TIMEOUT)
            conn.send(data)
            time.sleep(0.05)
            conn.close(reset=reset)
        time.sleep(0.1)

    def short_body_half_close(self, case):
        """Content-Length 1000, 20 bytes, then a half-close: the server must answer or close, not wait for ever."""
        first = self.fz.collections[0].name.encode()
        data = (b"POST " + self.p + b"/arcgis/rest/services/" + first + b"/FeatureServer/0/query HTTP/1.1\r\nHost: " + self.host
                + b"\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nwhere=1%3D1&f=json")
        case.data = data
        self.fz.remember(data)
        conn = Connection(self.fz.host, self.fz.port, REQUEST_TIMEOUT)
        try:
            conn.send(data)
            conn.sock.shutdown(socket.SHUT_WR)
            response = conn.read_response()
            self.judge(case, data, response)
        finally:
            conn.close()

    def chunked_close(self, case):
        first = self.fz.collections[0].name.encode()
        data = (b"POST " + self.p + b"/arcgis/rest/services/" + first + b"/FeatureServer/0/query HTTP/1.1\r\nHost: " + self.host
                + b"\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nwhere\r\n")
        case.data = data
        self.fz.remember(data)
        conn = Connection(self.fz.host, self.fz.port, REQUEST_TIMEOUT)
        conn.send(data)
        time.sleep(0.05)
        conn.close()

    def expect_continue(self, case):
        first = self.fz.collections[0].name.encode()
        body = b"where=1%3D1&returnCountOnly=true&f=json"
        head = (b"POST " + self.p + b"/arcgis/rest/services/" + first + b"/FeatureServer/0/query HTTP/1.1\r\nHost: " + self.host
                + b"\r\nContent-Type: application/x-www-form-urlencoded\r\nExpect: 100-continue\r\nContent-Length: "
                + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n")
        case.data = head + body
        self.fz.remember(case.data)
        conn = Connection(self.fz.host, self.fz.port, REQUEST_TIMEOUT)
        try:
            conn.send(head)
            poller = select.poll()
            poller.register(conn.sock, select.POLLIN)
            interim = None
            if poller.poll(500):
                interim = conn.read_response(skip_interim=False)
            if interim is not None and interim.status != 100:
                self.judge(case, case.data, interim)
                return
            conn.send(body)
            self.judge(case, case.data, conn.read_response())
        finally:
            conn.close()

    def pipelined(self, case, rng, n, malformed_at=None, post_at=None):
        requests = []
        for i in range(n):
            last = i == n - 1
            if i == malformed_at:
                requests.append(b"GET /o gc HTTP/1.1\r\nHost: x\r\n\r\n")
            elif i == post_at:
                requests.append(self.request(method=b"POST", target=self.p + b"/arcgis/rest/services/" + self.fz.collections[0].name.encode()
                                             + b"/FeatureServer/0/query", headers=[b"Content-Type: application/x-www-form-urlencoded"],
                                             body=b"where=1%3D1&returnCountOnly=true&f=json", close=last))
            else:
                target = rng.choice([b"/ogc", b"/ogc/conformance", b"/ogc/collections", b"/arcgis/rest/services?f=json"])
                requests.append(self.request(target=self.p + target, close=last))
        data = b"".join(requests)
        case.data = data
        case.malformed = malformed_at is not None
        self.fz.remember(data)
        conn = Connection(self.fz.host, self.fz.port, REQUEST_TIMEOUT + n / 100)
        try:
            conn.send(data, stop_on_answer=False)
            expected = malformed_at if malformed_at is not None else n
            got = 0
            while True:
                response = conn.read_response()
                if response is None:
                    break
                got += 1
                self.judge(case, data, response)
                if got <= expected and response.status < 500 and response.status != 200:
                    self.fz.fail("pipelining", data, f"raw case {case.name!r}: answer {got} is HTTP {response.status}", response)
                if (response.header("connection") or "").lower() == "close":
                    break
            if got < expected:
                self.fz.fail("pipelining", data, f"raw case {case.name!r}: {got} answers to {expected} well-formed pipelined requests")
        finally:
            conn.close()

    def pipelined_after_large_body(self, case):
        """A body over the limit, then a second request on the same connection: answered or closed, never mixed up."""
        first = self.fz.collections[0].name.encode()
        size = 17 << 20
        data = (b"POST " + self.p + b"/arcgis/rest/services/" + first + b"/FeatureServer/0/query HTTP/1.1\r\nHost: " + self.host
                + b"\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: " + str(size).encode() + b"\r\n\r\n"
                + b"a" * size + self.request())
        case.data = data[:400] + b"...(17 MiB)..." + self.request()
        case.malformed = False
        self.fz.remember(case.data)
        conn = Connection(self.fz.host, self.fz.port, REQUEST_TIMEOUT)
        try:
            # Everything is sent, even after an early 413: the server must then close the
            # connection or read past the body and answer the second request.
            conn.send(data, stop_on_answer=False)
            response = conn.read_response()
            self.judge(case, case.data, response)
            if response is not None and (response.header("connection") or "").lower() != "close":
                second = conn.read_response()
                if second is not None:
                    self.judge(case, case.data, second, what="request after a body over the limit")
        finally:
            conn.close()

    def stall(self, case, partial, finish=None):
        """Half a request, then nothing: a normal request must succeed meanwhile."""
        case.data = partial
        self.fz.remember(partial)
        conn = Connection(self.fz.host, self.fz.port, REQUEST_TIMEOUT)
        try:
            conn.send(partial)
            time.sleep(0.2)
            problem = self.fz.liveness(f" while a client stalls ({case.name})")
            if problem:
                self.fz.fail("stall", partial, problem)
            if finish is not None:
                conn.send(finish)
                response = conn.read_response()
                self.judge(case, partial + finish, response, what=f"raw case {case.name!r} once finished")
        finally:
            conn.close()

    def slow_client(self, case):
        """A whole request sent a few bytes at a time over about a second, while normal requests run."""
        data = self.request(target=self.p + b"/ogc/conformance")
        case.data = data
        self.fz.remember(data)
        conn = Connection(self.fz.host, self.fz.port, REQUEST_TIMEOUT + 5)
        try:
            step = max(1, len(data) // 40)
            for i in range(0, len(data), step):
                conn.send(data[i:i + step])
                time.sleep(0.025)
                if i == step * 20:
                    problem = self.fz.liveness(" while a slow client sends")
                    if problem:
                        self.fz.fail("stall", data, problem)
            case.malformed = False
            self.judge(case, data, conn.read_response())
        finally:
            conn.close()

    def idle(self, case, n, then_request=False):
        sockets = []
        try:
            for _ in range(n):
                try:
                    sockets.append(Connection(self.fz.host, self.fz.port, REQUEST_TIMEOUT + 10))
                except OSError as error:
                    self.fz.fail("connect", None, f"raw case {case.name!r}: connection {len(sockets) + 1} of {n} failed: {error}")
                    break
            problem = self.fz.liveness(f" with {len(sockets)} idle connections open")
            if problem:
                self.fz.fail("idle", None, problem)
            if then_request:
                data = self.request(target=self.p + b"/ogc/collections")
                case.data = data
                case.malformed = False
                self.fz.remember(data)
                for conn in sockets:
                    conn.send(data)
                for conn in sockets:
                    self.judge(case, data, conn.read_response())
        finally:
            for conn in sockets:
                conn.close()

    def resets(self, case):
        """Asks for large answers and resets the connection before reading them."""
        for coll in self.fz.collections:
            data = self.request(target=self.p + b"/arcgis/rest/services/" + coll.name.encode()
                                + b"/FeatureServer/0/query?where=1%3D1&outFields=*&f=geojson")
            case.data = data
            self.fz.remember(data)
            for delay in (0, 0.005, 0.05):
                conn = Connection(self.fz.host, self.fz.port, REQUEST_TIMEOUT)
                conn.send(data)
                time.sleep(delay)
                conn.close(reset=True)

    def burst(self, case, n):
        """n queries at once from n threads: each answered (503 only with Retry-After)."""
        coll = self.fz.collections[0]
        data = self.request(target=self.p + b"/arcgis/rest/services/" + coll.name.encode()
                            + b"/FeatureServer/0/query?where=1%3D1&outFields=*&resultRecordCount=50&f=json")
        case.data = data
        case.malformed = False
        self.fz.remember(data)
        results = [None] * n
        barrier = threading.Barrier(n)

        def worker(i):
            try:
                conn = Connection(self.fz.host, self.fz.port, REQUEST_TIMEOUT * 2)
                try:
                    barrier.wait(5)
                    conn.send(data)
                    results[i] = conn.read_response()
                finally:
                    conn.close()
            except (Hang, BadResponse, OSError, threading.BrokenBarrierError) as error:
                results[i] = error

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(REQUEST_TIMEOUT * 3)
        for result in results:
            if isinstance(result, Hang):
                self.fz.count_status("hang")
                self.fz.fail("hang", data, f"raw case {case.name!r}: {result}")
            elif isinstance(result, Exception):
                self.fz.fail("socket", data, f"raw case {case.name!r}: {result!r}")
            else:
                self.judge(case, data, result)


# --- Main ------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base_url", help="the server's root, http://HOST:PORT")
    parser.add_argument("server_pid", type=int, help="the server's process id")
    parser.add_argument("--count", type=int, default=3000, help="mutated requests to send (default 3000)")
    parser.add_argument("--seed", type=int, default=1, help="the seed of everything random (default 1)")
    parser.add_argument("--collections", default="cities,countries,boroughs",
                        help="the collections served, comma-separated (default cities,countries,boroughs)")
    parser.add_argument("--token", help="the server's --token, sent with every request")
    parser.add_argument("--dump-dir", help="save the exact bytes of each failing request in this folder")
    parser.add_argument("--verbose", action="store_true", help="print every request's status and time")
    args = parser.parse_args()
    if args.count < 0:
        parser.error("--count must be at least 0")
    if not args.collections.strip(","):
        parser.error("--collections names no collection")

    fuzzer = Fuzzer(args)
    try:
        fuzzer.setup()
    except (Failure, Hang, BadResponse, OSError, ValueError) as error:
        print(f"error: cannot start fuzzing {args.base_url}: {error}", file=sys.stderr)
        return 2
    print(f"fuzzing {args.base_url} (pid {args.server_pid}): seed {args.seed}, {args.count} requests, collections "
          f"{', '.join(c.name for c in fuzzer.collections)}, edits {'allowed' if fuzzer.allow_edits else 'refused'}", flush=True)
    fuzzer.run()
    fuzzer.summary()
    if fuzzer.failures:
        kinds = collections.Counter(kind for kind, _ in fuzzer.failures)
        print(f"FAIL: {len(fuzzer.failures)} failures ({', '.join(f'{k}: {n}' for k, n in sorted(kinds.items()))})", flush=True)
        return 1
    print(f"PASS: no crash, hang, server error or unbounded memory (RSS {fuzzer.start_rss_kb // 1024} MiB at the start, "
          f"{fuzzer.rss_kb // 1024} MiB at the end)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

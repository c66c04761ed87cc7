#!/usr/bin/env python3
"""GeoParquet interoperability of `geosieve` with pyarrow, GeoPandas and DuckDB, both ways.

Usage: geoparquet_test.py GEOSIEVE WORK_DIR

GEOSIEVE  the geosieve binary
WORK_DIR  an empty directory for the files written and read

Theirs to ours: pyarrow, GeoPandas and DuckDB write GeoParquet files in WORK_DIR/theirs (the
shapes of Tests/Fixtures/geoparquet, larger: the capitals 20 times over with jittered points in
5 row groups, for every codec, data page versions 1 and 2, dictionary encoding on and off; the
countries and boroughs with their full geometries). For each file,
  * `GEOSIEVE convert FILE.parquet --output FILE.geojson` must give the features the writing
    library reads back from the file: the same count, every column's value per row (integers
    exactly, doubles within 1e-9 relative, floats equal in single precision, strings exactly,
    dates as "YYYY-MM-DD" or that day's midnight "YYYY-MM-DDT00:00:00.000Z", timestamps as
    "YYYY-MM-DDTHH:MM:SS.mmmZ" in UTC -- one without a zone taken as UTC --, booleans as
    true/false or 1/0, NULL as null), the same geometries, and a `crs` member naming the
    file's projected CRS (none for longitude/latitude);
  * `GEOSIEVE query FILE.parquet --geometry XMIN,YMIN,XMAX,YMAX --output OUT.geojson` must give
    exactly the features whose geometry intersects the box (shapely);
  * `GEOSIEVE query FILE.parquet --where CLAUSE --output OUT.geojson` exactly the rows the same
    condition selects in Python.
Features are paired through their `fid` column. Besides the file's columns, a feature may hold
an object-ID property (OBJECTID, FID, with a _N suffix) and the file's covering column(s);
any other property is an error. The covering column is not compared.

Ours to theirs: `GEOSIEVE convert FIXTURE.geojson --output OURS.parquet [--compression C]`
for the three GeoJSON fixtures and C in (default), none, snappy, zstd, gzip, and the boroughs
with `--out-sr 2263`; then
  * pyarrow: the `geo` metadata is JSON, version 1.1.0, its primary column a WKB binary column
    holding the geometries, its geometry_types, bbox, crs (omitted or PROJJSON) and covering
    (when present: a struct column whose box covers each geometry) right; every column chunk
    compressed with C; the attributes equal the fixture's, with integer and double columns;
  * GeoPandas: read_parquet gives the fixture's CRS, geometries and attributes;
  * DuckDB: read_parquet sees a GEOMETRY column; count(*), count(geometry) and a sum of a
    numeric column equal the fixture's, and its geometries (ST_AsWKB) too.

Geometries are equal when equal vertex for vertex (1e-9) after shapely.normalize, a Multi*
of one part compared as that part; failing that, when topologically equal (a.equals(b)).

Each check prints one line, `PASS [WRITER -> READER] …` or `FAIL [WRITER -> READER] …`; a failed
check does not stop the others. A summary comes last; the exit status is 1 when a check failed.
"""

import datetime
import json
import math
import os
import re
import shlex
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "Fixtures")
sys.path.insert(0, os.path.join(FIXTURES, "geoparquet"))
sys.dont_write_bytecode = True  # no __pycache__ in the fixtures folder

import duckdb  # noqa: E402
import geopandas  # noqa: E402
import make_fixtures as mf  # noqa: E402  (the writers and datasets of the committed fixtures)
import numpy  # noqa: E402
import pandas  # noqa: E402
import pyarrow  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
import pyproj  # noqa: E402
import shapely  # noqa: E402
from shapely.geometry import shape  # noqa: E402

FLOAT_REL_TOL = 1e-9
GEOMETRY_TOL = 1e-9
COMMAND_TIMEOUT = 300
CODECS = ("none", "snappy", "zstd", "gzip")
# pyarrow's names of the codecs in a column chunk's metadata.
CODEC_NAMES = {"none": "UNCOMPRESSED", "snappy": "SNAPPY", "zstd": "ZSTD", "gzip": "GZIP"}
# A property GeoSieve may add: the object-ID field it makes or takes.
OBJECT_ID_NAME = re.compile(r"^(OBJECTID|FID)(_\d+)?$", re.IGNORECASE)
GEOMETRY_TYPES = {"Point", "LineString", "Polygon", "MultiPoint", "MultiLineString", "MultiPolygon",
                  "GeometryCollection"}

# The selections run on every file of a dataset: where clauses with the same condition in Python
# (over the values the writing library reads back), and boxes in the file's CRS.
WHERE = {
    "cities": [
        ("pop_max > 10000000", lambda r: r["pop_max"] is not None and r["pop_max"] > 10000000),
        ("founded < DATE '1900-01-01'",
         lambda r: r["founded"] is not None and r["founded"] < datetime.date(1900, 1, 1)),
        ("name IS NULL", lambda r: r["name"] is None),
    ],
    "countries": [
        ("continent = 'Africa' AND pop_est > 10000000",
         lambda r: r["continent"] == "Africa" and r["pop_est"] is not None and r["pop_est"] > 10000000),
    ],
    "boroughs": [
        ("BoroName LIKE 'B%'", lambda r: r["BoroName"] is not None and r["BoroName"].startswith("B")),
        ("Shape_Area > 1500000000", lambda r: r["Shape_Area"] is not None and r["Shape_Area"] > 1.5e9),
    ],
}
BOXES = {
    ("cities", 4326): (0.5, 40.25, 20.5, 60.25),
    ("countries", 4326): (-17.3, -35.1, 51.7, 37.9),
    ("boroughs", 4326): (-74.02, 40.68, -73.93, 40.76),
    ("boroughs", 2263): (975000.5, 190000.5, 1000000.5, 215000.5),
}
# Ours to theirs: the GeoJSON fixtures, and the numeric column DuckDB sums.
OURS = {
    "cities": ("naturalearth_cities.geojson", "fid"),
    "countries": ("naturalearth_lowres.geojson", "pop_est"),
    "boroughs": ("nybb.geojson", "Shape_Area"),
}


class CheckFailure(Exception):
    pass


def fail(message):
    raise CheckFailure(message)


class Report:
    """PASS/FAIL lines, one per check, and the counts for the summary."""

    def __init__(self):
        self.passed = 0
        self.failed = []

    def check(self, label, subject, function):
        """Runs function(), which returns a description or raises; prints its line."""
        try:
            message = function()
        except CheckFailure as failure:
            self.failed.append(f"[{label}] {subject}")
            print(f"FAIL [{label}] {subject}: {failure}", flush=True)
            return False
        except Exception as error:  # a bug in a library, or in this script: say where
            self.failed.append(f"[{label}] {subject}")
            where = traceback.extract_tb(error.__traceback__)[-1]
            print(f"FAIL [{label}] {subject}: {type(error).__name__}: {error} "
                  f"({os.path.basename(where.filename)}:{where.lineno})", flush=True)
            return False
        self.passed += 1
        print(f"PASS [{label}] {subject}: {message}", flush=True)
        return True


# --- Running geosieve -------------------------------------------------------------------------


def run_geosieve(geosieve, *arguments):
    command = [geosieve, *arguments]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=COMMAND_TIMEOUT)
    except subprocess.TimeoutExpired:
        fail(f"`geosieve {' '.join(arguments)}` did not finish within {COMMAND_TIMEOUT} s")
    if result.returncode != 0:
        fail(f"`{command_text(arguments)}` exited with status {result.returncode}: {result.stderr.strip()[-600:]}")
    return result


def command_text(arguments):
    """The command as a shell would take it, files by their names only."""
    return "geosieve " + " ".join(quoted(os.path.basename(a) if os.sep in a else a) for a in arguments)


def quoted(text):
    """`text` quoted for a shell: as it is when it can be, else in double quotes when nothing in
    it is special there (a where clause's 'string'), else as shlex quotes it."""
    if shlex.quote(text) == text:
        return text
    if not any(c in text for c in '"$`\\!'):
        return f'"{text}"'
    return shlex.quote(text)


def shown(value):
    """A value in a message: dates and timestamps in ISO 8601."""
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return repr(value)


def geosieve_features(geosieve, arguments, out_path):
    """Runs geosieve with `arguments` writing GeoJSON to out_path; returns the document."""
    if os.path.exists(out_path):
        os.remove(out_path)
    run_geosieve(geosieve, *arguments)
    if not os.path.exists(out_path):
        fail(f"geosieve exited with status 0 but wrote no {os.path.basename(out_path)}")
    with open(out_path, encoding="utf-8") as f:
        try:
            document = json.load(f)
        except ValueError as error:
            fail(f"{os.path.basename(out_path)} is not JSON: {error}")
    if document.get("type") != "FeatureCollection" or not isinstance(document.get("features"), list):
        fail(f"{os.path.basename(out_path)} is not a GeoJSON FeatureCollection")
    return document


# --- Values -----------------------------------------------------------------------------------


def plain(value):
    """A value any of the three libraries read, as a plain Python object (None for NULL)."""
    if value is None or value is pandas.NA or value is pandas.NaT:
        return None
    if isinstance(value, pandas.Timestamp):
        return value.to_pydatetime()
    if isinstance(value, numpy.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None  # pandas' NULL in float and categorical columns; the data holds no NaN
    return value


def iso_milliseconds(value):
    """A timestamp as GeoSieve writes it in GeoJSON: UTC, milliseconds, Z (one without a zone
    is taken as UTC)."""
    if value.tzinfo is not None:
        value = value.astimezone(datetime.timezone.utc)
    return f"{value:%Y-%m-%dT%H:%M:%S}.{value.microsecond // 1000:03d}Z"


def same_value(got, want, single=False):
    """Whether GeoSieve's GeoJSON value `got` stands for the library's value `want`; `single`:
    the column is single-precision, compared as floats."""
    if want is None or got is None:
        return want is None and got is None
    if isinstance(want, bool):
        return got is want or (type(got) is int and got == int(want))
    if isinstance(want, int):
        return type(got) is int and got == want
    if isinstance(want, float):
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return False
        if single:
            return numpy.float32(got) == numpy.float32(want)
        return math.isclose(float(got), want, rel_tol=FLOAT_REL_TOL, abs_tol=0.0)
    if isinstance(want, datetime.datetime):
        return got == iso_milliseconds(want)
    if isinstance(want, datetime.date):
        return got in (want.isoformat(), f"{want.isoformat()}T00:00:00.000Z")
    return type(got) is type(want) and got == want


def single_part(geometry):
    if geometry is not None and geometry.geom_type.startswith("Multi") and len(geometry.geoms) == 1:
        return geometry.geoms[0]
    return geometry


def geometry_difference(got, want, tolerance=GEOMETRY_TOL):
    """None when the geometries are equal (see the module's documentation), else a description."""
    if got is None or want is None:
        return None if got is None and want is None else f"{_short(got)} where the library reads {_short(want)}"
    a, b = single_part(got), single_part(want)
    if shapely.normalize(a).equals_exact(shapely.normalize(b), tolerance):
        return None
    try:
        if tolerance <= GEOMETRY_TOL and a.equals(b):
            return None
    except shapely.errors.GEOSException:
        pass
    return f"{_short(a)} where the library reads {_short(b)}"


def _short(geometry):
    if geometry is None:
        return "NULL"
    return f"a {geometry.geom_type} of {shapely.get_num_coordinates(geometry)} coordinates ({geometry.wkt[:120]}…)"


# --- What a library reads ---------------------------------------------------------------------


class Reading:
    """A file as one library reads it: attribute columns in order, their rows (plain values),
    the geometries (shapely or None), the columns left out (the covering ones), the columns of
    single-precision floats, and the CRS's EPSG code (4326 for OGC:CRS84)."""

    def __init__(self, columns, rows, geometries, covering, single, epsg):
        self.columns, self.rows, self.geometries = columns, rows, geometries
        self.covering, self.single, self.epsg = covering, single, epsg

    def keys(self, key):
        return [row[key] for row in self.rows]


def geo_of(path):
    metadata = pq.read_schema(path).metadata or {}
    if b"geo" not in metadata:
        fail("the file has no 'geo' metadata")
    return json.loads(metadata[b"geo"])


def covering_columns(geo):
    column = geo["columns"][geo["primary_column"]]
    return sorted({path[0] for path in column.get("covering", {}).get("bbox", {}).values()})


def crs_epsg(crs_json):
    """The EPSG code of a GeoParquet crs member (None when omitted: OGC:CRS84, taken as 4326)."""
    if crs_json is None:
        return 4326
    crs = pyproj.CRS.from_json_dict(crs_json) if isinstance(crs_json, dict) else pyproj.CRS.from_user_input(crs_json)
    if crs.equals(pyproj.CRS.from_user_input("OGC:CRS84"), ignore_axis_order=True):
        return 4326
    return crs.to_epsg()


def read_pyarrow(path):
    geo = geo_of(path)
    primary, covering = geo["primary_column"], covering_columns(geo)
    table = pq.read_table(path)
    columns = [n for n in table.column_names if n != primary and n not in covering]
    single = {f.name for f in table.schema if pyarrow.types.is_float32(f.type)}
    rows = table.select(columns).to_pylist()
    geometries = [None if b is None else shapely.from_wkb(b) for b in table.column(primary).to_pylist()]
    return Reading(columns, rows, geometries, covering, single, crs_epsg(geo["columns"][primary].get("crs")))


def read_geopandas(path):
    geo = geo_of(path)
    covering = covering_columns(geo)
    frame = geopandas.read_parquet(path)
    geometry_name = frame.geometry.name
    columns = [c for c in frame.columns if c != geometry_name and c not in covering]
    single = {c for c in columns if str(frame[c].dtype).lower() == "float32"}
    values = {c: [plain(v) for v in frame[c].tolist()] for c in columns}
    rows = [{c: values[c][i] for c in columns} for i in range(len(frame))]
    geometries = [None if g is None or g.is_empty else g for g in frame.geometry]
    epsg = 4326 if frame.crs is None else crs_epsg(frame.crs.to_json_dict())
    return Reading(columns, rows, geometries, covering, single, epsg)


def read_duckdb(path):
    geo = geo_of(path)
    primary, covering = geo["primary_column"], covering_columns(geo)
    connection = duckdb.connect()
    connection.execute("SET TimeZone = 'UTC'")
    described = connection.execute("DESCRIBE SELECT * FROM read_parquet(?)", [path]).fetchall()
    types = {name: type_ for name, type_, *_ in described}
    columns = [n for n in types if n != primary and n not in covering]
    geometry = f'ST_AsWKB("{primary}")' if types[primary].startswith("GEOMETRY") else f'"{primary}"'
    select = ", ".join([f'"{c}"' for c in columns] + [geometry])
    result = connection.execute(f"SELECT {select} FROM read_parquet(?)", [path]).fetchall()
    connection.close()
    rows = [{c: plain(v) for c, v in zip(columns, r[:-1])} for r in result]
    geometries = [None if r[-1] is None else shapely.from_wkb(bytes(r[-1])) for r in result]
    single = {c for c in columns if types[c] == "FLOAT"}
    return Reading(columns, rows, geometries, covering, single, crs_epsg(geo["columns"][primary].get("crs")))


READERS = {"pyarrow": read_pyarrow, "geopandas": read_geopandas, "duckdb": read_duckdb}


# --- Theirs to ours ---------------------------------------------------------------------------


def compare_features(features, reading, key, want_keys=None):
    """GeoSieve's GeoJSON features against the rows of `reading` whose key is in want_keys
    (default: every row); returns a description of what was compared."""
    position = {k: i for i, k in enumerate(reading.keys(key))}
    if want_keys is None:
        want_keys = list(position)
    got = {}
    for feature in features:
        properties = feature.get("properties") or {}
        k = properties.get(key)
        if k in got:
            fail(f"two features with {key} {k}")
        got[k] = feature
    if set(got) != set(want_keys):
        missing, extra = sorted(set(want_keys) - set(got), key=str), sorted(set(got) - set(want_keys), key=str)
        fail(f"{len(features)} features where {len(want_keys)} were expected (missing {key} {missing[:10]}, "
             f"unexpected {extra[:10]})")
    allowed = set(reading.columns) | set(reading.covering)
    topological = 0
    for k in want_keys:
        feature, i = got[k], position[k]
        properties = feature.get("properties") or {}
        missing = [c for c in reading.columns if c not in properties]
        if missing:
            fail(f"{key} {k}: no properties {missing} (it has {sorted(properties)})")
        extra = [p for p in properties if p not in allowed and not OBJECT_ID_NAME.match(p)]
        if extra:
            fail(f"{key} {k}: properties {extra} that the file does not have")
        for column in reading.columns:
            want = reading.rows[i][column]
            if not same_value(properties[column], want, column in reading.single):
                fail(f"{key} {k}: {column} = {properties[column]!r}, the library reads {shown(want)}")
        geometry = feature.get("geometry")
        got_geometry = shape(geometry) if geometry else None
        difference = geometry_difference(got_geometry, reading.geometries[i])
        if difference:
            fail(f"{key} {k}: geometry differs: {difference}")
        if got_geometry is not None and not shapely.normalize(single_part(got_geometry)).equals_exact(
                shapely.normalize(single_part(reading.geometries[i])), GEOMETRY_TOL):
            topological += 1
    note = f" ({topological} geometries equal only topologically)" if topological else ""
    return f"{len(want_keys)} features{note}"


def check_crs_member(document, epsg):
    """GeoSieve's GeoJSON names a CRS other than 4326 in a legacy `crs` member."""
    name = ((document.get("crs") or {}).get("properties") or {}).get("name", "")
    if epsg == 4326:
        if name and not re.search(r"(EPSG::?4326|CRS84)$", name):
            fail(f"the GeoJSON names the CRS {name!r}, the file's is OGC:CRS84")
        return "no crs member (longitude/latitude)" if not name else f"crs {name}"
    if not re.search(rf"EPSG::?{epsg}$", name):
        fail(f"the GeoJSON's crs member is {document.get('crs')!r}, the file's CRS is EPSG:{epsg}")
    return f"crs {name}"


def theirs_files(work):
    """(file, writer, dataset, write(path)) for every file written by the other libraries."""
    city = mf.cities(copies=20, jitter=0.5, seed=20)  # 4,860 points
    per_group = math.ceil(len(city) / 5)  # 5 row groups
    country = mf.countries()
    country_sorted = country.sorted_by(lambda r: (r["continent"], -r["pop_est"]))
    borough, borough_feet = mf.nybb(), mf.nybb(epsg=2263)
    files = []

    def add(name, writer, dataset, write):
        files.append((os.path.join(work, name), writer, dataset, write))

    for codec in CODECS:
        for page in ("1.0", "2.0"):
            for dictionary in (True, False):
                name = f"pyarrow_cities_{codec}_v{page[0]}_{'dictionary' if dictionary else 'plain'}.parquet"
                options = dict(compression=codec, row_group_size=per_group, data_page_version=page,
                               use_dictionary=dictionary, data_page_size=8192,
                               covering="float" if page == "2.0" else "double")
                add(name, "pyarrow", city, lambda path, o=options: mf.write_pyarrow(city, path, **o))
    add("pyarrow_cities_encodings.parquet", "pyarrow", city, lambda path: mf.write_pyarrow(
        city, path, compression="zstd", row_group_size=per_group, data_page_version="2.0", use_dictionary=False,
        column_encoding={"fid": "DELTA_BINARY_PACKED", "pop_max": "DELTA_BINARY_PACKED",
                         "big": "DELTA_BINARY_PACKED", "founded": "DELTA_BINARY_PACKED",
                         "updated": "DELTA_BINARY_PACKED", "name": "DELTA_BYTE_ARRAY",
                         "geometry": "DELTA_LENGTH_BYTE_ARRAY", "score": "BYTE_STREAM_SPLIT",
                         "ratio": "BYTE_STREAM_SPLIT", "capital": "RLE"}))
    add("pyarrow_countries_sorted.parquet", "pyarrow", country_sorted, lambda path: mf.write_pyarrow(
        country_sorted, path, compression="zstd", row_group_size=40,
        sorting_columns=[pq.SortingColumn(2), pq.SortingColumn(1, descending=True)]))
    # An empty table: pyarrow writes one row group of zero rows, no geometry types, no bbox.
    empty = mf.Dataset(city.name, city.fields, [], [], city.epsg, city.key)
    add("pyarrow_cities_empty.parquet", "pyarrow", empty, lambda path: mf.write_pyarrow(empty, path))
    add("pyarrow_nybb_2263.parquet", "pyarrow", borough_feet,
        lambda path: mf.write_pyarrow(borough_feet, path, compression="snappy"))
    add("geopandas_cities.parquet", "geopandas", city,
        lambda path: mf.write_geopandas(city, path, row_group_size=per_group))
    add("geopandas_countries_covering.parquet", "geopandas", country,
        lambda path: mf.write_geopandas(country, path, write_covering_bbox=True, compression="zstd"))
    add("geopandas_nybb.parquet", "geopandas", borough, lambda path: mf.write_geopandas(borough, path))
    add("duckdb_cities.parquet", "duckdb", city, lambda path: mf.write_duckdb(
        city, path, row_group_size=2048, extra=mf.DUCKDB_CITY_EXTRA))
    add("duckdb_cities_native.parquet", "duckdb", city, lambda path: mf.write_duckdb(
        city, path, compression="snappy", row_group_size=2048, geoparquet_version="BOTH"))
    add("duckdb_cities_kv.parquet", "duckdb", city, lambda path: mf.write_duckdb(
        city, path, compression="gzip", row_group_size=2048, own_metadata=True))
    add("duckdb_nybb_2263.parquet", "duckdb", borough_feet, lambda path: mf.write_duckdb(borough_feet, path))
    return files


def file_facts(path):
    """Row groups, codecs and page encodings of a file, for its PASS line."""
    metadata = pq.ParquetFile(path).metadata
    chunks = [metadata.row_group(g).column(c)
              for g in range(metadata.num_row_groups) for c in range(metadata.num_columns)]
    codecs = sorted({c.compression for c in chunks})
    encodings = sorted({e for c in chunks for e in c.encodings})
    groups = metadata.num_row_groups
    return f"{groups} row group{'s' if groups != 1 else ''}, {'/'.join(codecs)}, {'/'.join(encodings)}"


def theirs_to_ours(report, geosieve, work):
    os.makedirs(work, exist_ok=True)
    for path, writer, dataset, write in theirs_files(work):
        name = os.path.basename(path)
        label = f"{writer} -> geosieve"
        readings = {}

        def write_and_read():
            write(path)
            readings["reading"] = READERS[writer](path)
            return f"{writer} wrote {len(readings['reading'].rows)} rows ({file_facts(path)})"

        if not report.check(label, f"{name} written", write_and_read):
            continue
        reading = readings["reading"]
        stem = os.path.join(work, name[:-len(".parquet")])

        def convert():
            document = geosieve_features(geosieve, ["convert", path, "--output", f"{stem}.geojson"], f"{stem}.geojson")
            compared = compare_features(document["features"], reading, dataset.key)
            crs = check_crs_member(document, reading.epsg)
            return f"{compared}, every value and geometry equal to {writer}'s; {crs}"

        report.check(label, f"{name} convert", convert)

        box = BOXES[(dataset.name, reading.epsg)]

        def box_query():
            envelope = shapely.box(*box)
            want = [k for k, g in zip(reading.keys(dataset.key), reading.geometries)
                    if g is not None and g.intersects(envelope)]
            out = f"{stem}-box.geojson"
            document = geosieve_features(geosieve, ["query", path, "--geometry", ",".join(map(str, box)),
                                                    "--output", out], out)
            compared = compare_features(document["features"], reading, dataset.key, want)
            return f"{compared}, those whose geometry intersects the box (shapely)"

        report.check(label, f"{name} query --geometry {','.join(map(str, box))}", box_query)

        for number, (clause, predicate) in enumerate(WHERE[dataset.name]):
            def where_query(clause=clause, predicate=predicate, number=number):
                want = [row[dataset.key] for row in reading.rows if predicate(row)]
                out = f"{stem}-where{number}.geojson"
                document = geosieve_features(geosieve, ["query", path, "--where", clause, "--output", out], out)
                compared = compare_features(document["features"], reading, dataset.key, want)
                return f"{compared}, those the same condition selects in Python"

            report.check(label, f"{name} query --where {quoted(clause)}", where_query)


# --- Ours to theirs ---------------------------------------------------------------------------


class Fixture:
    """A GeoJSON fixture read with the json module: properties and shapely geometries in file
    order, and each property's kind (int when every value is a JSON integer, else float or str)."""

    def __init__(self, file, epsg=4326):
        with open(os.path.join(FIXTURES, file), encoding="utf-8") as f:
            features = json.load(f)["features"]
        self.properties = [f["properties"] for f in features]
        self.geometries = [shape(f["geometry"]) if f["geometry"] else None for f in features]
        if epsg != 4326:
            transformer = pyproj.Transformer.from_crs(4326, epsg, always_xy=True)
            self.geometries = [None if g is None else shapely.transform(
                g, lambda c: numpy.column_stack(transformer.transform(c[:, 0], c[:, 1]))) for g in self.geometries]
        self.epsg = epsg
        self.names = list(self.properties[0])
        self.kinds = {}
        for name in self.names:
            values = [p.get(name) for p in self.properties if p.get(name) is not None]
            if all(type(v) is int for v in values):
                self.kinds[name] = int
            elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
                self.kinds[name] = float
            else:
                self.kinds[name] = str

    def by_fid(self):
        return {p["fid"]: i for i, p in enumerate(self.properties)}


def compare_with_fixture(fixture, rows, geometries, tolerance=GEOMETRY_TOL, names=None):
    """A library's rows (dicts of plain values) and geometries against the fixture, paired by
    fid; `names`: the properties to compare (default: all)."""
    position = fixture.by_fid()
    if len(rows) != len(position):
        fail(f"{len(rows)} rows where the fixture has {len(position)} features")
    seen = set()
    for row, geometry in zip(rows, geometries):
        fid = row.get("fid")
        if fid not in position or fid in seen:
            fail(f"a row with fid {fid!r}, not in the fixture or twice")
        seen.add(fid)
        want = fixture.properties[position[fid]]
        for name in fixture.names if names is None else names:
            if name not in row:
                fail(f"no column {name!r} (the columns are {sorted(row)})")
            got, value = row[name], want[name]
            if fixture.kinds[name] is float and type(got) is int:
                fail(f"fid {fid}: {name} is an integer column, the fixture's values are doubles")
            if fixture.kinds[name] is float and value is not None:
                value = float(value)
            if not same_value(got, value):
                fail(f"fid {fid}: {name} = {shown(got)}, the fixture has {value!r}")
        difference = geometry_difference(geometry, fixture.geometries[position[fid]], tolerance)
        if difference:
            fail(f"fid {fid}: geometry differs: {difference}")
    return len(rows)


def check_geo_metadata(path, fixture):
    """The `geo` metadata of one of our files against GeoParquet 1.1.0; returns a summary."""
    raw = (pq.read_schema(path).metadata or {}).get(b"geo")
    if raw is None:
        fail("no 'geo' key in the file's metadata")
    try:
        geo = json.loads(raw)
    except ValueError as error:
        fail(f"the 'geo' metadata is not JSON: {error}")
    if geo.get("version") != "1.1.0":
        fail(f"geo version {geo.get('version')!r}, expected '1.1.0'")
    primary = geo.get("primary_column")
    columns = geo.get("columns") or {}
    if primary not in columns:
        fail(f"primary_column {primary!r} is not among the geo columns {sorted(columns)}")
    column = columns[primary]
    table = pq.read_table(path)
    if primary not in table.column_names:
        fail(f"primary_column {primary!r} is not a column of the file ({table.column_names})")
    field = table.schema.field(primary)
    binary = pyarrow.types.is_binary(field.type) or pyarrow.types.is_large_binary(field.type)
    if column.get("encoding") != "WKB" or not binary:
        fail(f"the primary column's encoding is {column.get('encoding')!r} and its type {field.type}, "
             f"expected WKB in binary")
    geometries = [None if b is None else shapely.from_wkb(b) for b in table.column(primary).to_pylist()]
    present = {g.geom_type for g in geometries if g is not None}
    types = column.get("geometry_types")
    if not isinstance(types, list) or any(t.removesuffix(" Z") not in GEOMETRY_TYPES for t in types):
        fail(f"geometry_types {types!r} is not a list of GeoParquet geometry type names")
    if types and not present <= set(types):
        fail(f"geometry_types {types} lacks {sorted(present - set(types))}, which the column holds")
    bounds = shapely.bounds([g for g in geometries if g is not None])
    actual = [bounds[:, 0].min(), bounds[:, 1].min(), bounds[:, 2].max(), bounds[:, 3].max()]
    if "bbox" in column:
        box = column["bbox"]
        if not isinstance(box, list) or len(box) not in (4, 6):
            fail(f"bbox {box!r} is not a list of 4 or 6 numbers")
        xmax, ymax = (box[3], box[4]) if len(box) == 6 else (box[2], box[3])
        if box[0] > actual[0] or box[1] > actual[1] or xmax < actual[2] or ymax < actual[3]:
            fail(f"bbox {box} does not cover the geometries' extent {actual}")
    epsg = crs_epsg(column["crs"]) if column.get("crs") is not None else (4326 if "crs" not in column else None)
    if epsg != fixture.epsg:
        fail(f"crs {json.dumps(column.get('crs'))[:200]} (EPSG:{epsg}); the data is EPSG:{fixture.epsg}")
    if column.get("edges", "planar") not in ("planar", "spherical"):
        fail(f"edges {column['edges']!r}")
    if "orientation" in column:
        if column["orientation"] != "counterclockwise":
            fail(f"orientation {column['orientation']!r}")
        for g in geometries:
            for polygon in (getattr(g, "geoms", None) or [g]) if g is not None and "Polygon" in g.geom_type else []:
                if not polygon.exterior.is_ccw or any(ring.is_ccw for ring in polygon.interiors):
                    fail("orientation 'counterclockwise' but a polygon's rings are not")
    covering = ""
    if "covering" in column:
        paths = (column["covering"] or {}).get("bbox") or {}
        if sorted(paths) != sorted(mf.BBOX_FIELDS):
            fail(f"covering.bbox {paths!r}: expected xmin, ymin, xmax and ymax")
        struct_names = {p[0] for p in paths.values() if isinstance(p, list) and len(p) == 2}
        if len(struct_names) != 1 or next(iter(struct_names)) not in table.column_names:
            fail(f"covering.bbox {paths!r} does not name fields of one column of the file")
        struct_name = next(iter(struct_names))
        struct_type = table.schema.field(struct_name).type
        if not pyarrow.types.is_struct(struct_type):
            fail(f"the covering column {struct_name!r} is a {struct_type}, not a struct")
        for axis, (_, child) in paths.items():
            child_type = struct_type.field(child).type if struct_type.get_field_index(child) >= 0 else None
            if child_type is None or not pyarrow.types.is_floating(child_type):
                fail(f"covering field {child!r} of {struct_name!r} is {child_type}, expected float or double")
        for i, (box, g) in enumerate(zip(table.column(struct_name).to_pylist(), geometries)):
            if g is None:
                continue
            b = shapely.bounds(g)
            got = [box[paths[axis][1]] if box else None for axis in mf.BBOX_FIELDS]
            if None in got or got[0] > b[0] or got[1] > b[1] or got[2] < b[2] or got[3] < b[3]:
                fail(f"row {i}: the covering box {got} does not cover the geometry's {list(b)}")
        covering = f", a covering column {struct_name!r} covering every geometry"
    crs_text = "crs omitted (OGC:CRS84)" if "crs" not in column else f"crs PROJJSON EPSG:{epsg}"
    return f"geo 1.1.0, WKB column {primary!r}, geometry_types {types}, {crs_text}{covering}"


def ours_to_theirs(report, geosieve, work):
    os.makedirs(work, exist_ok=True)
    cases = []
    for dataset, (file, _) in OURS.items():
        for codec in (None, *CODECS):
            cases.append((dataset, file, codec, []))
    cases.append(("boroughs", "nybb.geojson", "zstd", ["--out-sr", "2263"]))
    fixtures = {}
    for dataset, file, codec, extra in cases:
        epsg = int(extra[1]) if extra else 4326
        if (file, epsg) not in fixtures:
            fixtures[(file, epsg)] = Fixture(file, epsg)
        fixture = fixtures[(file, epsg)]
        # Coordinates projected by GeoSieve's PROJ and by pyproj's may differ in the last bits.
        tolerance = GEOMETRY_TOL if epsg == 4326 else 1e-4
        name = f"ours_{dataset}_{codec or 'default'}{'_' + str(epsg) if epsg != 4326 else ''}.parquet"
        path = os.path.join(work, name)
        arguments = ["convert", os.path.join(FIXTURES, file), "--output", path, *extra]
        if codec:
            arguments += ["--compression", codec]
        subject = command_text(arguments)

        def convert(path=path, arguments=arguments):
            if os.path.exists(path):
                os.remove(path)
            run_geosieve(geosieve, *arguments)
            if not os.path.exists(path):
                fail("geosieve exited with status 0 but wrote no file")
            return f"written, {os.path.getsize(path):,} bytes ({file_facts(path)})"

        if not report.check("geosieve -> parquet", subject, convert):
            continue

        def with_pyarrow(path=path, codec=codec, fixture=fixture, tolerance=tolerance):
            summary = check_geo_metadata(path, fixture)
            metadata = pq.ParquetFile(path).metadata
            if codec:
                codecs = {metadata.row_group(g).column(c).compression
                          for g in range(metadata.num_row_groups) for c in range(metadata.num_columns)}
                if codecs != {CODEC_NAMES[codec]}:
                    fail(f"column chunks compressed with {sorted(codecs)}, expected {CODEC_NAMES[codec]}")
            geo = geo_of(path)
            reading = read_pyarrow(path)
            types = {f.name: f.type for f in pq.read_schema(path)}
            for column, kind in fixture.kinds.items():
                t = types.get(column)
                if t is not None and pyarrow.types.is_dictionary(t):
                    t = t.value_type
                good = {int: pyarrow.types.is_integer, float: pyarrow.types.is_floating,
                        str: lambda t: pyarrow.types.is_string(t) or pyarrow.types.is_large_string(t)}[kind]
                if t is None or not good(t):
                    fail(f"column {column!r} is {t}, the fixture's values are {kind.__name__}")
            extra = [c for c in reading.columns if c not in fixture.names and not OBJECT_ID_NAME.match(c)]
            if extra:
                fail(f"columns {extra} that the fixture does not have")
            count = compare_with_fixture(fixture, reading.rows, reading.geometries, tolerance)
            codec_text = f"{CODEC_NAMES[codec]} in every column chunk, " if codec else ""
            groups = f"{metadata.num_row_groups} row group{'s' if metadata.num_row_groups != 1 else ''}"
            return (f"{summary}; {codec_text}{groups}; {count} rows, attributes and geometries equal to the "
                    f"fixture's (primary column {geo['primary_column']!r})")

        def with_geopandas(path=path, fixture=fixture, tolerance=tolerance):
            frame = geopandas.read_parquet(path)
            if frame.crs is None or crs_epsg(frame.crs.to_json_dict()) != fixture.epsg:
                fail(f"geopandas reads the CRS {frame.crs}, the data is EPSG:{fixture.epsg}")
            reading = read_geopandas(path)
            count = compare_with_fixture(fixture, reading.rows, reading.geometries, tolerance)
            return (f"read_parquet: {count} rows, CRS {frame.crs.to_string()}, attributes and geometries equal "
                    f"to the fixture's")

        def with_duckdb(path=path, dataset=dataset, fixture=fixture, tolerance=tolerance):
            numeric = OURS[dataset][1]
            connection = duckdb.connect()
            described = dict((n, t) for n, t, *_ in
                             connection.execute("DESCRIBE SELECT * FROM read_parquet(?)", [path]).fetchall())
            primary = geo_of(path)["primary_column"]
            if not described.get(primary, "").startswith("GEOMETRY"):
                fail(f"DuckDB reads the column {primary!r} as {described.get(primary)}, not as a GEOMETRY: "
                     f"it did not take the file for GeoParquet")
            count, non_null, total = connection.execute(
                f'SELECT count(*), count("{primary}"), sum("{numeric}") FROM read_parquet(?)', [path]).fetchone()
            want_total = math.fsum(p[numeric] for p in fixture.properties if p[numeric] is not None)
            want_non_null = sum(g is not None for g in fixture.geometries)
            if count != len(fixture.properties) or non_null != want_non_null:
                fail(f"count(*) {count}, count({primary}) {non_null}; the fixture has {len(fixture.properties)} "
                     f"features, {want_non_null} with a geometry")
            if total is None or not math.isclose(float(total), want_total, rel_tol=1e-12):
                fail(f"sum({numeric}) = {total!r}, the fixture's is {want_total!r}")
            rows = connection.execute(f'SELECT fid, ST_AsWKB("{primary}") FROM read_parquet(?)', [path]).fetchall()
            connection.close()
            compared = compare_with_fixture(
                fixture, [{"fid": fid} for fid, _ in rows],
                [None if b is None else shapely.from_wkb(bytes(b)) for _, b in rows], tolerance, names=["fid"])
            return (f"read_parquet: GEOMETRY column {primary!r} ({described[primary][:40]}); count(*) {count}, "
                    f"count({primary}) {non_null}, sum({numeric}) {total!r} equal to the fixture's; {compared} "
                    f"geometries (ST_AsWKB) equal")

        report.check("geosieve -> pyarrow", name, with_pyarrow)
        report.check("geosieve -> geopandas", name, with_geopandas)
        report.check("geosieve -> duckdb", name, with_duckdb)


# --- Main -------------------------------------------------------------------------------------


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    geosieve, work = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    os.makedirs(work, exist_ok=True)
    started = time.monotonic()
    report = Report()
    theirs_to_ours(report, geosieve, os.path.join(work, "theirs"))
    ours_to_theirs(report, geosieve, os.path.join(work, "ours"))
    elapsed = time.monotonic() - started
    print(f"geoparquet: {report.passed} passed, {len(report.failed)} failed ({elapsed:.1f} s)", flush=True)
    for failed in report.failed[:40]:
        print(f"  failed: {failed}", flush=True)
    if len(report.failed) > 40:
        print(f"  … and {len(report.failed) - 40} more", flush=True)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

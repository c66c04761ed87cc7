#!/usr/bin/env python3
"""Writes the GeoParquet fixtures of this folder, expected.json and the table of README.md.

Usage: python3 Tests/Fixtures/geoparquet/make_fixtures.py [--out DIR]

Reads the three GeoJSON fixtures of Tests/Fixtures (naturalearth_cities, naturalearth_lowres and
nybb) and writes small GeoParquet files from them with three independent writers -- pyarrow (the
`geo` metadata written here, GeoParquet 1.1.0), GeoPandas (`to_parquet`, its own metadata) and
DuckDB (`COPY ... TO`, its own metadata or ours through KV_METADATA) -- so that GeoSieve's reader
is tested on files it did not write. Each file exercises a part of a reader: a codec, data page
version 2, dictionary and plain encodings, several row groups and pages, statistics or none,
NULL attributes and NULL geometries, every scalar column type GeoSieve stores, a bbox covering
column, a projected CRS in PROJJSON, a Parquet GEOMETRY logical type, a sorted file.

The values are a pure function of the GeoJSON fixtures: no clock, no random numbers (the jitter
of `cities()` is for geoparquet_test.py), writers on one thread. Running the script again with
the same library versions writes the same bytes (the versions are in each file's `created_by`
and in expected.json). Countries and boroughs are simplified with shapely (`simplify(...,
preserve_topology=True)`) so that the files together stay near 0.6 MB; the attributes are the
fixtures' own, plus, for the cities, synthetic columns derived from each city's `fid` (see
`cities()`).

expected.json holds what pyarrow reads from each written file -- not what this script meant to
write -- so that GeoSieve's Swift tests can compare their reader with an independent one: row and
row-group counts, codecs and encodings, the `geo` metadata in summary, the columns with their
NULL counts, and the values of a few rows. README.md describes its format.

Tests/Clients/geoparquet_test.py imports this module to write larger files of the same shape.
"""

import argparse
import datetime
import hashlib
import json
import math
import os
import sys
from dataclasses import dataclass, field

import duckdb
import geopandas
import numpy
import pandas
import pyarrow
import pyarrow.parquet as pq
import pyproj
import shapely
from shapely.geometry import shape

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.dirname(HERE)

GEOPARQUET_VERSION = "1.1.0"
# The covering column's field names, in GeoParquet's order.
BBOX_FIELDS = ("xmin", "ymin", "xmax", "ymax")
UTC = datetime.timezone.utc
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=UTC)


# --- The datasets -----------------------------------------------------------------------------


@dataclass
class Dataset:
    """Features to write: typed attribute columns, geometries and their CRS.

    `fields` are (name, pyarrow type) in column order; `rows` the attribute values as Python
    objects (int, float, str, bool, datetime.date, datetime.datetime in UTC, or None);
    `geometries` shapely geometries or None. `epsg` 4326 means longitude/latitude, written as
    GeoParquet's default CRS (OGC:CRS84, the `crs` member omitted). `key` names a unique integer
    column that pairs rows across readers; `notable` lists key values whose rows expected.json
    shows besides the first, middle and last (edge values, NULL geometries, holes)."""

    name: str
    fields: list
    rows: list
    geometries: list
    epsg: int = 4326
    key: str = "fid"
    notable: list = field(default_factory=list)

    def __len__(self):
        return len(self.rows)

    def arrow_table(self, covering="double", geo=True):
        """The table pyarrow writes: the attributes, `geometry` as WKB (binary) and, unless
        `covering` is None, the `bbox` struct column of each geometry's bounds in "double" or
        "float"; with `geo`, the GeoParquet 1.1.0 `geo` metadata of ``geo_metadata``."""
        arrays, names = [], []
        for name, type_ in self.fields:
            values = [row[name] for row in self.rows]
            if pyarrow.types.is_dictionary(type_):
                arrays.append(pyarrow.array(values, type_.value_type).dictionary_encode())
            else:
                arrays.append(pyarrow.array(values, type_))
            names.append(name)
        arrays.append(pyarrow.array([None if g is None else shapely.to_wkb(g) for g in self.geometries],
                                    pyarrow.binary()))
        names.append("geometry")
        if covering:
            arrays.append(bbox_array(self.geometries, covering))
            names.append("bbox")
        table = pyarrow.Table.from_arrays(arrays, names=names)
        if geo:
            table = table.replace_schema_metadata({"geo": json.dumps(self.geo_metadata(covering is not None))})
        return table

    def geo_metadata(self, covering=True):
        """GeoParquet 1.1.0 file metadata for ``arrow_table``'s columns."""
        column = {
            "encoding": "WKB",
            "geometry_types": sorted({g.geom_type for g in self.geometries if g is not None}),
        }
        bounds = total_bounds(self.geometries)
        if bounds is not None:  # optional: a table of no geometries has none
            column["bbox"] = bounds
        if covering:
            column["covering"] = {"bbox": {name: ["bbox", name] for name in BBOX_FIELDS}}
        if self.epsg != 4326:
            # OGC:CRS84 is the default: only another CRS is written, as PROJJSON.
            column["crs"] = pyproj.CRS.from_epsg(self.epsg).to_json_dict()
        return {"version": GEOPARQUET_VERSION, "primary_column": "geometry", "columns": {"geometry": column}}

    def sorted_by(self, key):
        order = sorted(range(len(self)), key=lambda i: key(self.rows[i]))
        return Dataset(self.name, self.fields, [self.rows[i] for i in order],
                       [self.geometries[i] for i in order], self.epsg, self.key, self.notable)


def total_bounds(geometries):
    """xmin, ymin, xmax, ymax of the geometries; None when there are none."""
    present = [g for g in geometries if g is not None]
    if not present:
        return None
    bounds = shapely.bounds(present)
    return [float(bounds[:, 0].min()), float(bounds[:, 1].min()), float(bounds[:, 2].max()),
            float(bounds[:, 3].max())]


def bbox_array(geometries, kind="double"):
    """The covering column: a struct of doubles, or of floats rounded outwards (as GeoParquet
    asks, so that the box still covers the geometry), per geometry; NULL for a NULL geometry."""
    values = []
    for g in geometries:
        if g is None:
            values.append(None)
            continue
        bounds = [float(v) for v in shapely.bounds(g)]
        if kind == "float":
            bounds = [float_outwards(v, towards=-math.inf if i < 2 else math.inf) for i, v in enumerate(bounds)]
        values.append(dict(zip(BBOX_FIELDS, bounds)))
    type_ = pyarrow.float32() if kind == "float" else pyarrow.float64()
    return pyarrow.array(values, pyarrow.struct([(name, type_) for name in BBOX_FIELDS]))


def float_outwards(value, towards):
    """The single-precision float nearest `value` on the side of `towards`."""
    single = numpy.float32(value)
    if (towards < 0 and float(single) > value) or (towards > 0 and float(single) < value):
        single = numpy.nextafter(single, numpy.float32(towards))
    return float(single)


def read_geojson(file):
    with open(os.path.join(FIXTURES, file), encoding="utf-8") as f:
        document = json.load(f)
    features = document["features"]
    return [f["properties"] for f in features], [shape(f["geometry"]) if f["geometry"] else None for f in features]


def cities(copies=1, jitter=0.0, seed=0):
    """The 243 capitals (`copies` times, each copy's points moved by up to `jitter` degrees at
    random from `seed`), with synthetic columns derived from `fid` (1, 2, …, the position):

    fid int32 (unique) · name string, NULL when fid % 31 == 0, "" for fid 2 · pop_max int64, NULL
    when fid % 11 == 0 · big int64 over the whole range (beyond 2^53; fid 3 and 4 hold 2^63-1 and
    -2^63), NULL when fid % 37 == 0 · score double, NULL when fid % 13 == 0 · ratio float
    (single precision), NULL when fid % 17 == 0 · capital bool, NULL when fid % 19 == 0 ·
    founded date32 (1800…2128), NULL when fid % 23 == 0 · updated timestamp[ms, UTC] (fid 5 is
    1969-12-31T23:59:59.999Z), NULL when fid % 29 == 0 · zone dictionary<int32, string> (the
    quadrant "NE", "NW", "SE" or "SW"), NULL when fid % 41 == 0 or the geometry is NULL ·
    geometry Point, NULL when fid % 120 == 7."""
    properties, points = read_geojson("naturalearth_cities.geojson")
    rng = numpy.random.default_rng(seed)
    rows, geometries = [], []
    for copy in range(copies):
        offsets = rng.uniform(-jitter, jitter, size=(len(points), 2)) if jitter else numpy.zeros((len(points), 2))
        for position, (p, point) in enumerate(zip(properties, points)):
            fid = copy * len(points) + position + 1
            x = min(180.0, max(-180.0, point.x + offsets[position, 0]))
            y = min(90.0, max(-90.0, point.y + offsets[position, 1]))
            geometry = None if fid % 120 == 7 else shapely.Point(x, y)
            geometries.append(geometry)
            rows.append(city_row(fid, p["name"], geometry))
    fields = [
        ("fid", pyarrow.int32()), ("name", pyarrow.string()), ("pop_max", pyarrow.int64()),
        ("big", pyarrow.int64()), ("score", pyarrow.float64()), ("ratio", pyarrow.float32()),
        ("capital", pyarrow.bool_()), ("founded", pyarrow.date32()),
        ("updated", pyarrow.timestamp("ms", tz="UTC")), ("zone", pyarrow.dictionary(pyarrow.int32(), pyarrow.string())),
    ]
    return Dataset("cities", fields, rows, geometries, notable=[2, 3, 4, 5, 7])


def city_row(fid, name, geometry):
    def unless(divisor, value):
        return None if fid % divisor == 0 else value

    if fid == 3:
        big = 2**63 - 1
    elif fid == 4:
        big = -(2**63)
    else:
        # Golden-ratio hashing spreads the values over the whole signed 64-bit range.
        big = (fid * 0x9E3779B97F4A7C15) % 2**64 - 2**63
    updated = -1 if fid == 5 else 1_577_836_800_000 + fid * 25_200_007  # whole milliseconds
    zone = None
    if geometry is not None:
        zone = ("N" if geometry.y >= 0 else "S") + ("E" if geometry.x >= 0 else "W")
    return {
        "fid": fid,
        "name": "" if fid == 2 else unless(31, name),
        "pop_max": unless(11, (fid * 7919) % 2000 * 9973),
        "big": unless(37, big),
        "score": unless(13, fid / 7.0 - 17.25),
        "ratio": unless(17, fid / 10.0),
        "capital": unless(19, fid % 3 == 0),
        "founded": unless(23, datetime.date(1970, 1, 1) + datetime.timedelta(days=-62000 + fid * 211 % 120000)),
        "updated": unless(29, EPOCH + datetime.timedelta(milliseconds=updated)),
        "zone": None if fid % 41 == 0 else zone,
    }


def countries(simplify=None):
    """The 177 countries, Polygon and MultiPolygon (South Africa, fid 26, has a hole: Lesotho),
    with the fixture's attributes: fid int32, pop_est double, continent dictionary<int32,
    string>, name and iso_a3 string, gdp_md_est int64; `simplify` in degrees."""
    properties, geometries = read_geojson("naturalearth_lowres.geojson")
    if simplify:
        geometries = list(shapely.simplify(geometries, simplify, preserve_topology=True))
    fields = [("fid", pyarrow.int32()), ("pop_est", pyarrow.float64()),
              ("continent", pyarrow.dictionary(pyarrow.int32(), pyarrow.string())), ("name", pyarrow.string()),
              ("iso_a3", pyarrow.string()), ("gdp_md_est", pyarrow.int64())]
    rows = [{name: p[name] for name, _ in fields} for p in properties]
    for row in rows:
        row["pop_est"] = float(row["pop_est"])
    south_africa = next(r["fid"] for r in rows if r["name"] == "South Africa")
    return Dataset("countries", fields, rows, geometries, notable=[south_africa])


def nybb(epsg=4326, simplify=None):
    """The 5 New York City boroughs (MultiPolygon), in EPSG:4326 as the fixture holds them or
    projected with pyproj into `epsg` (2263: NAD83 / New York Long Island, US feet, the CRS the
    boroughs are published in); `simplify` in the units of `epsg`."""
    properties, geometries = read_geojson("nybb.geojson")
    if epsg != 4326:
        transformer = pyproj.Transformer.from_crs(4326, epsg, always_xy=True)
        geometries = [shapely.transform(g, lambda c: numpy.column_stack(transformer.transform(c[:, 0], c[:, 1])))
                      for g in geometries]
    if simplify:
        geometries = list(shapely.simplify(geometries, simplify, preserve_topology=True))
    fields = [("fid", pyarrow.int32()), ("BoroCode", pyarrow.int32()), ("BoroName", pyarrow.string()),
              ("Shape_Leng", pyarrow.float64()), ("Shape_Area", pyarrow.float64())]
    rows = [{name: p[name] for name, _ in fields} for p in properties]
    return Dataset("boroughs", fields, rows, geometries, epsg=epsg)


# --- The writers ------------------------------------------------------------------------------


def write_pyarrow(dataset, path, covering="double", **options):
    """pyarrow.parquet.write_table of ``Dataset.arrow_table`` (the covering column's type
    `covering`, or none) with `options` (compression, row_group_size, data_page_version,
    use_dictionary, …)."""
    pq.write_table(dataset.arrow_table(covering=covering), path, **options)


def write_geopandas(dataset, path, **options):
    """GeoDataFrame.to_parquet: GeoPandas writes the WKB and the `geo` metadata itself (its CRS
    always as PROJJSON, EPSG:4326 included); `options` go to to_parquet (write_covering_bbox,
    compression, row_group_size, …). Columns get the pandas types that keep their values and
    NULLs: nullable Int64/Float32/boolean when a column has NULLs, categorical for a
    dictionary."""
    frame = pandas.DataFrame({name: pandas_column([row[name] for row in dataset.rows], type_)
                              for name, type_ in dataset.fields})
    frame = geopandas.GeoDataFrame(frame, geometry=geopandas.GeoSeries(dataset.geometries, crs=f"EPSG:{dataset.epsg}"))
    frame.to_parquet(path, **options)


def pandas_column(values, type_):
    has_nulls = any(v is None for v in values)
    if pyarrow.types.is_dictionary(type_):
        return pandas.Categorical(values)
    if pyarrow.types.is_timestamp(type_):
        milliseconds = [None if v is None else (v - EPOCH) // datetime.timedelta(milliseconds=1) for v in values]
        return pandas.Series(pandas.to_datetime(milliseconds, unit="ms", utc=True)).astype("datetime64[ms, UTC]")
    if pyarrow.types.is_date32(type_) or pyarrow.types.is_string(type_):
        return pandas.Series(values, dtype=object)  # pyarrow writes date objects as date32
    nullable = {"int32": "Int32", "int64": "Int64", "float": "Float32", "double": "float64", "bool": "boolean"}
    plain = {"int32": "int32", "int64": "int64", "float": "float32", "double": "float64", "bool": "bool"}
    return pandas.Series(values, dtype=(nullable if has_nulls else plain)[str(type_)])


def write_duckdb(dataset, path, compression="zstd", row_group_size=None, geoparquet_version=None,
                 own_metadata=False, extra=()):
    """DuckDB's COPY (SELECT …) TO path (FORMAT parquet, …).

    By default the geometry is a DuckDB GEOMETRY (ST_GeomFromWKB, with the PROJJSON CRS of a
    projected dataset set by ST_SetCRS) and DuckDB writes the `geo` metadata itself (GeoParquet
    1.0.0); `geoparquet_version` 'BOTH' also gives the column Parquet's GEOMETRY logical type.
    With `own_metadata`, the geometry stays a WKB BLOB beside a `bbox` covering struct, and the
    `geo` metadata is ``Dataset.geo_metadata``'s (1.1.0), written with the KV_METADATA option.
    `extra` are more select expressions (DuckDB-only column types)."""
    connection = duckdb.connect()
    connection.execute("SET threads = 1")  # one writer thread: the same bytes every time
    connection.execute("SET TimeZone = 'UTC'")
    connection.register("source", dataset.arrow_table(covering="double" if own_metadata else None, geo=False))
    columns = [f'"{name}"' for name, _ in dataset.fields]
    options = ["FORMAT parquet", f"COMPRESSION {compression}"]
    if row_group_size:
        options.append(f"ROW_GROUP_SIZE {row_group_size}")
    if own_metadata:
        columns += ["geometry", "bbox"]
        text = json.dumps(dataset.geo_metadata(covering=True)).replace("'", "''")
        options.append(f"KV_METADATA {{geo: '{text}'}}")
    else:
        geometry = "ST_GeomFromWKB(geometry)"
        if dataset.epsg != 4326:
            crs = pyproj.CRS.from_epsg(dataset.epsg).to_json().replace("'", "''")
            geometry = f"ST_SetCRS({geometry}, '{crs}')"
        columns.append(f"{geometry} AS geometry")
        if geoparquet_version:
            options.append(f"GEOPARQUET_VERSION '{geoparquet_version}'")
    columns += list(extra)
    connection.execute(f"COPY (SELECT {', '.join(columns)} FROM source) TO '{path}' ({', '.join(options)})")
    connection.close()


# The DuckDB-only columns of the cities files: TINYINT, SMALLINT and a timestamp without a zone
# (TIMESTAMP, written with isAdjustedToUTC false; the wall time of `updated` in UTC).
DUCKDB_CITY_EXTRA = ("CAST(fid % 100 AS TINYINT) AS rank", "CAST(fid * 7 % 30000 AS SMALLINT) AS code",
                     "CAST(updated AS TIMESTAMP) AS updated_local")


# --- What pyarrow reads back ------------------------------------------------------------------


def wkt(geometry):
    """WKT with every coordinate as Python's repr: the shortest text that reads back to the same
    double. (shapely.to_wkt with rounding_precision=-1 keeps 16 significant digits, which loses
    the last bit of some doubles: 0.1 + 0.2 comes out 0.3.)"""
    if geometry is None:
        return None
    kind = geometry.geom_type.upper()
    if geometry.is_empty:
        return f"{kind} EMPTY"

    def sequence(coords):
        return "(" + ", ".join(" ".join(repr(float(v)) for v in c) for c in coords) + ")"

    def polygon(p):
        return "(" + ", ".join(sequence(r.coords) for r in [p.exterior, *p.interiors]) + ")"

    if kind == "POINT":
        return f"POINT {sequence(geometry.coords)}"
    if kind == "LINESTRING":
        return f"LINESTRING {sequence(geometry.coords)}"
    if kind == "POLYGON":
        return f"POLYGON {polygon(geometry)}"
    if kind == "MULTIPOINT":
        return "MULTIPOINT (" + ", ".join(sequence(p.coords) for p in geometry.geoms) + ")"
    if kind == "MULTILINESTRING":
        return "MULTILINESTRING (" + ", ".join(sequence(line.coords) for line in geometry.geoms) + ")"
    if kind == "MULTIPOLYGON":
        return "MULTIPOLYGON (" + ", ".join(polygon(p) for p in geometry.geoms) + ")"
    return "GEOMETRYCOLLECTION (" + ", ".join(wkt(g) for g in geometry.geoms) + ")"


def json_value(value):
    """A value pyarrow read, as expected.json writes it: dates "YYYY-MM-DD", timestamps
    "YYYY-MM-DDTHH:MM:SS.mmmZ" in UTC ("…mmm" without the Z for a timestamp without a zone),
    structs as objects, doubles and floats as the double (a float's exact widened value)."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC)
        zone = "Z" if value.tzinfo is not None else ""
        return f"{value:%Y-%m-%dT%H:%M:%S}.{value.microsecond // 1000:03d}{zone}"
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: json_value(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{value} has no JSON form")
    return value


def geo_summary(geo):
    """The parts of a file's `geo` metadata a reader acts on, its CRS as "OGC:CRS84" (omitted),
    "AUTHORITY:CODE" (a PROJJSON object's id) or None (null: unknown)."""
    primary = geo["primary_column"]
    column = geo["columns"][primary]
    if "crs" not in column:
        crs = "OGC:CRS84"
    elif column["crs"] is None:
        crs = None
    else:
        identifier = column["crs"].get("id", {})
        crs = f"{identifier.get('authority')}:{identifier.get('code')}"
    return {"version": geo["version"], "primary_column": primary, "encoding": column["encoding"],
            "geometry_types": column["geometry_types"], "bbox": column.get("bbox"), "crs": crs,
            "covering": column.get("covering")}


# Parquet's enum values (parquet.thrift), for the page headers.
PAGE_TYPES = {0: "DATA_PAGE", 1: "INDEX_PAGE", 2: "DICTIONARY_PAGE", 3: "DATA_PAGE_V2"}
ENCODINGS = {0: "PLAIN", 2: "PLAIN_DICTIONARY", 3: "RLE", 4: "BIT_PACKED", 5: "DELTA_BINARY_PACKED",
             6: "DELTA_LENGTH_BYTE_ARRAY", 7: "DELTA_BYTE_ARRAY", 8: "RLE_DICTIONARY", 9: "BYTE_STREAM_SPLIT"}


class ThriftCompact:
    """Just enough of Thrift's compact protocol to read a Parquet page header: a struct read into
    {field id: value}, nested structs as dicts, binaries as bytes."""

    def __init__(self, data, offset):
        self.data, self.offset = data, offset

    def byte(self):
        value = self.data[self.offset]
        self.offset += 1
        return value

    def varint(self):
        result = shift = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return result

    def zigzag(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def struct(self):
        fields, last = {}, 0
        while True:
            header = self.byte()
            if header == 0:
                return fields
            delta, kind = header >> 4, header & 0x0F
            last = last + delta if delta else self.zigzag()
            fields[last] = self.value(kind)

    def value(self, kind):
        if kind in (1, 2):  # booleans are held in the type nibble
            return kind == 1
        if kind == 3:
            return self.byte()
        if kind in (4, 5, 6):
            return self.zigzag()
        if kind == 7:
            self.offset += 8
            return None
        if kind == 8:
            size = self.varint()
            self.offset += size
            return self.data[self.offset - size:self.offset]
        if kind in (9, 10):
            header = self.byte()
            count = header >> 4 if header >> 4 != 15 else self.varint()
            return [self.value(header & 0x0F) for _ in range(count)]
        if kind == 12:
            return self.struct()
        raise ValueError(f"Thrift compact type {kind}")


def pages(data, chunk):
    """The pages of a column chunk, each as "KIND ENCODING" (the values' encoding), read from
    the page headers -- which pyarrow does not expose."""
    start = chunk.data_page_offset
    if chunk.has_dictionary_page and chunk.dictionary_page_offset:
        start = min(start, chunk.dictionary_page_offset)
    offset, end, found = start, start + chunk.total_compressed_size, []
    while offset < end:
        reader = ThriftCompact(data, offset)
        header = reader.struct()
        kind = PAGE_TYPES[header[1]]
        # The values' encoding is field 2 of DataPageHeader (PageHeader field 5) and of
        # DictionaryPageHeader (7), field 4 of DataPageHeaderV2 (8).
        encoding = {"DATA_PAGE": (5, 2), "DICTIONARY_PAGE": (7, 2), "DATA_PAGE_V2": (8, 4)}.get(kind)
        found.append(f"{kind} {ENCODINGS[header[encoding[0]][encoding[1]]]}" if encoding else kind)
        offset = reader.offset + header[3]  # the header, then compressed_page_size bytes
    return found


def describe(path, writer, written_with, key="fid", notable=()):
    """The expected.json entry of one file, from pyarrow's reading of it."""
    parquet = pq.ParquetFile(path)
    metadata = parquet.metadata
    geo = json.loads(metadata.metadata[b"geo"])
    summary = geo_summary(geo)
    table = parquet.read()
    geometry_column = summary["primary_column"]
    covering_columns = {path[0] for path in (summary["covering"] or {}).get("bbox", {}).values()}
    with open(path, "rb") as f:
        data = f.read()
    leaves = []
    for i in range(metadata.num_columns):
        chunks = [metadata.row_group(g).column(i) for g in range(metadata.num_row_groups)]
        leaf = parquet.schema.column(i)
        encodings = sorted({e for c in chunks for e in c.encodings})
        leaves.append({"path": leaf.path, "physical_type": leaf.physical_type,
                       "logical_type": str(leaf.logical_type), "encodings": encodings,
                       "compression": sorted({c.compression for c in chunks}),
                       "statistics": all(c.is_stats_set for c in chunks),
                       "pages_of_first_row_group": pages(data, chunks[0]),
                       "page_kinds": sorted({p for c in chunks for p in pages(data, c)})})
    columns = [{"name": f.name, "arrow_type": str(f.type), "nulls": table.column(f.name).null_count,
                "role": "geometry" if f.name == geometry_column else "covering" if f.name in covering_columns
                else "attribute"} for f in table.schema]
    keys = table.column(key).to_pylist()
    positions = {0, len(keys) // 2, len(keys) - 1} | {keys.index(k) for k in notable if k in keys}
    geometries = table.column(geometry_column).to_pylist()
    rows = []
    for i in sorted(positions):
        values = {c["name"]: json_value(table.column(c["name"])[i].as_py()) for c in columns
                  if c["role"] != "geometry"}
        geometry = None if geometries[i] is None else shapely.from_wkb(geometries[i])
        text = wkt(geometry)
        if geometry is not None and not shapely.from_wkt(text).equals_exact(geometry, 0):
            raise AssertionError(f"{path}: row {i}: the WKT does not read back to the same geometry")
        rows.append({"row": i, "values": values, "geometry": text})
    return {
        "writer": writer,
        "written_with": written_with,
        "created_by": metadata.created_by,
        "format_version": metadata.format_version,
        "rows": metadata.num_rows,
        "row_groups": [metadata.row_group(g).num_rows for g in range(metadata.num_row_groups)],
        "key_value_metadata": sorted(k.decode() for k in (metadata.metadata or {})),
        "geo": summary,
        "columns": columns,
        "parquet_columns": leaves,
        "sample_rows": rows,
    }


# --- The fixtures -----------------------------------------------------------------------------


def versions():
    from importlib import metadata as m
    return {name: m.version(name) for name in ("pyarrow", "geopandas", "duckdb", "shapely", "pyproj", "pandas")}


# Simplification tolerances of the committed fixtures (degrees; US feet for EPSG:2263).
COUNTRIES_SIMPLIFY = 0.5
NYBB_SIMPLIFY_DEGREES = 0.003
NYBB_SIMPLIFY_FEET = 800.0


def fixtures():
    """(file name, writer, the options as written down, a function writing the file, the
    dataset), for every fixture."""
    v = versions()
    pa_writer = f"pyarrow {v['pyarrow']}"
    gp_writer = f"geopandas {v['geopandas']} (pyarrow {v['pyarrow']})"
    dd_writer = f"duckdb {v['duckdb']}"
    city = cities()
    country = countries(simplify=COUNTRIES_SIMPLIFY)
    # Sorted by continent, then by population, largest first: the row groups record the order.
    country_sorted = country.sorted_by(lambda r: (r["continent"], -r["pop_est"]))
    borough_feet = nybb(epsg=2263, simplify=NYBB_SIMPLIFY_FEET)
    borough = nybb(simplify=NYBB_SIMPLIFY_DEGREES)
    sorting = [pq.SortingColumn(2), pq.SortingColumn(1, descending=True)]  # continent, pop_est DESC
    items = []

    def pyarrow_file(name, dataset, covering="double", **options):
        described = {"covering": covering,
                     **{key: (str(value) if key == "sorting_columns" else value) for key, value in options.items()}}
        items.append((name, pa_writer, described,
                      lambda path: write_pyarrow(dataset, path, covering=covering, **options), dataset))

    # The covering column in doubles, or in floats rounded outwards (GeoParquet allows both).
    for codec, covering in (("none", "double"), ("snappy", "double"), ("zstd", "float"), ("gzip", "float")):
        pyarrow_file(f"pyarrow_cities_{codec}.parquet", city, covering, compression=codec, row_group_size=50)
    # Two data pages a column chunk; the dictionaries of name and of the WKB outgrow 256 bytes, and
    # the writer goes on with a plain page in the same chunk.
    pyarrow_file("pyarrow_cities_pagev2.parquet", city, "float", compression="zstd", row_group_size=50,
                 data_page_version="2.0", max_rows_per_page=25, dictionary_pagesize_limit=256)
    pyarrow_file("pyarrow_cities_plain.parquet", city, "float", compression="snappy", row_group_size=50,
                 use_dictionary=False, write_statistics=False)
    pyarrow_file("pyarrow_cities_encodings.parquet", city, "float", compression="zstd", row_group_size=50,
                 data_page_version="2.0", use_dictionary=False, column_encoding={
                     "fid": "DELTA_BINARY_PACKED", "pop_max": "DELTA_BINARY_PACKED", "big": "DELTA_BINARY_PACKED",
                     "founded": "DELTA_BINARY_PACKED", "updated": "DELTA_BINARY_PACKED",
                     "name": "DELTA_BYTE_ARRAY",
                     "geometry": "DELTA_LENGTH_BYTE_ARRAY", "score": "BYTE_STREAM_SPLIT", "ratio": "BYTE_STREAM_SPLIT",
                     "capital": "RLE"})
    pyarrow_file("pyarrow_countries_sorted.parquet", country_sorted, compression="zstd", row_group_size=40,
                 sorting_columns=sorting)
    pyarrow_file("pyarrow_nybb_2263.parquet", borough_feet, compression="snappy")

    items.append(("geopandas_cities.parquet", gp_writer, {"row_group_size": 100},
                  lambda path: write_geopandas(city, path, row_group_size=100), city))
    items.append(("geopandas_countries_covering.parquet", gp_writer,
                  {"write_covering_bbox": True, "compression": "zstd"},
                  lambda path: write_geopandas(country, path, write_covering_bbox=True, compression="zstd"), country))
    items.append(("geopandas_nybb.parquet", gp_writer, {},
                  lambda path: write_geopandas(borough, path), borough))

    items.append(("duckdb_cities.parquet", dd_writer, {"COMPRESSION": "zstd", "extra": list(DUCKDB_CITY_EXTRA)},
                  lambda path: write_duckdb(city, path, extra=DUCKDB_CITY_EXTRA), city))
    items.append(("duckdb_cities_native.parquet", dd_writer, {"COMPRESSION": "snappy", "GEOPARQUET_VERSION": "BOTH"},
                  lambda path: write_duckdb(city, path, compression="snappy", geoparquet_version="BOTH"), city))
    items.append(("duckdb_cities_kv.parquet", dd_writer, {"COMPRESSION": "gzip", "KV_METADATA": "geo (1.1.0, ours)"},
                  lambda path: write_duckdb(city, path, compression="gzip", own_metadata=True), city))
    items.append(("duckdb_nybb_2263.parquet", dd_writer, {"COMPRESSION": "zstd", "crs": "ST_SetCRS(PROJJSON)"},
                  lambda path: write_duckdb(borough_feet, path), borough_feet))
    return items


def expected_json_text(document):
    """expected.json's text: one member a line down to each file's members, and one line per
    column and per sample row -- short enough to read, and to diff when a version changes."""
    def compact(value):
        return json.dumps(value, ensure_ascii=False)

    lines = ["{"]
    top = list(document.items())
    for i, (key, value) in enumerate(top):
        comma = "," if i < len(top) - 1 else ""
        if key != "files":
            lines.append(f" {compact(key)}: {compact(value)}{comma}")
            continue
        lines.append(' "files": {')
        files = list(value.items())
        for j, (name, entry) in enumerate(files):
            lines.append(f"  {compact(name)}: {{")
            members = list(entry.items())
            for k, (member, content) in enumerate(members):
                end = "," if k < len(members) - 1 else ""
                if isinstance(content, list) and content and isinstance(content[0], dict):
                    lines.append(f"   {compact(member)}: [")
                    lines.extend(f"    {compact(item)}{',' if n < len(content) - 1 else ''}"
                                 for n, item in enumerate(content))
                    lines.append(f"   ]{end}")
                else:
                    lines.append(f"   {compact(member)}: {compact(content)}{end}")
            lines.append(f"  }}{',' if j < len(files) - 1 else ''}")
        lines.append(f" }}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def readme_table(entries):
    """The README's table of the files: what their footers and page headers hold."""
    short = {"DATA_PAGE": "v1", "DATA_PAGE_V2": "v2", "DICTIONARY_PAGE": "dictionary"}
    lines = ["| file | writer | rows | row groups | codec | geo | pages: kind (value encodings) | statistics | NULLs |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, entry in entries.items():
        leaves = entry["parquet_columns"]
        codecs = sorted({c for leaf in leaves for c in leaf["compression"]})
        kinds = {}
        for page in sorted({p for leaf in leaves for p in leaf["page_kinds"]}):
            kind, _, encoding = page.partition(" ")
            kinds.setdefault(short.get(kind, kind), []).append(encoding)
        order = ["v1", "v2", "dictionary"]
        pages_text = "; ".join(f"{k} ({', '.join(kinds[k])})" for k in sorted(kinds, key=order.index))
        with_statistics = sum(leaf["statistics"] for leaf in leaves)
        statistics = "all" if with_statistics == len(leaves) else "none" if not with_statistics else "some"
        nulls = ", ".join(f"{c['name']} {c['nulls']}" for c in entry["columns"] if c["nulls"]) or "none"
        geo = entry["geo"]
        geo_text = f"{geo['version']}, {geo['crs'] or 'null'}" + (", covering" if geo["covering"] else "")
        groups = entry["row_groups"]
        group_text = f"{len(groups)} ({', '.join(map(str, groups))})" if len(groups) > 1 else "1"
        lines.append(f"| `{name}` | {entry['writer'].split(' (')[0]} | {entry['rows']} | {group_text} | "
                     f"{', '.join(codecs)} | {geo_text} | {pages_text} | {statistics} | {nulls} |")
    return "\n".join(lines)


TABLE_START, TABLE_END = "<!-- table: written by make_fixtures.py -->", "<!-- end of table -->"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--out", default=HERE, help="the folder to write into (default: this script's)")
    out = parser.parse_args(argv[1:]).out
    os.makedirs(out, exist_ok=True)
    entries = {}
    for name, writer, written_with, write, dataset in fixtures():
        path = os.path.join(out, name)
        write(path)
        entries[name] = describe(path, writer, written_with, dataset.key, dataset.notable)
    document = {
        "about": "What pyarrow reads from each GeoParquet fixture of this folder; README.md describes the format.",
        "versions": versions(),
        "conventions": {
            "dates": "YYYY-MM-DD",
            "timestamps": "YYYY-MM-DDTHH:MM:SS.mmmZ in UTC; without the Z for a timestamp stored without a zone "
                          "(isAdjustedToUTC false)",
            "floats": "the double value: a single-precision float widened exactly",
            "integers": "JSON integers, exact (64-bit values beyond 2^53 included)",
            "geometry": "WKT, each coordinate the shortest text reading back to the same double; null for NULL",
            "crs": "OGC:CRS84 when the geo metadata omits it, else the PROJJSON id as AUTHORITY:CODE",
        },
        "files": entries,
    }
    with open(os.path.join(out, "expected.json"), "w", encoding="utf-8") as f:
        f.write(expected_json_text(document))
    table = readme_table(entries)
    readme = os.path.join(out, "README.md")
    if os.path.exists(readme):
        with open(readme, encoding="utf-8") as f:
            text = f.read()
        if TABLE_START in text and TABLE_END in text:
            before, rest = text.split(TABLE_START, 1)
            after = rest.split(TABLE_END, 1)[1]
            with open(readme, "w", encoding="utf-8") as f:
                f.write(f"{before}{TABLE_START}\n{table}\n{TABLE_END}{after}")
    total = 0
    for name in entries:
        size = os.path.getsize(os.path.join(out, name))
        total += size
        with open(os.path.join(out, name), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:16]
        print(f"{name}: {size:,} bytes, sha256 {digest}…")
    print(f"{len(entries)} files, {total:,} bytes")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

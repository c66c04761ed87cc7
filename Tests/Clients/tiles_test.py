#!/usr/bin/env python3
"""The vector tiles of `geosieve serve` (OGC API - Tiles) read by real clients and checked.

Usage: tiles_test.py BASE_URL WORK_DIR

The server must serve Tests/Fixtures/naturalearth_cities.geojson as 'cities',
naturalearth_lowres.geojson as 'countries' and nybb.geojson as 'boroughs'. For tiles of every
layer from zoom 0 to 12:

- mapbox-vector-tile (PyPI) decodes them: one layer named after the collection, extent 4096;
- every feature of a tile is one whose envelope meets the tile grown by its 64-unit buffer, and
  every feature that covers at least 16 square units of the tile (a line: 4 units of length; a
  point: inside the tile and first in its 16-unit square) is in it, computed here with shapely
  from the fixture files and Web Mercator's formulas;
- attributes equal the fixture's properties; points sit on their rounded tile positions; areas
  agree with the clipped, projected fixture geometry within the rounding and simplification;
- GDAL's MVT driver reads the same features, with the same IDs;
- with GEOSIEVE_POSTGIS_URL set (CI starts a server), PostGIS's ST_AsMVTGeom on the same
  fixture and tile keeps the same features, apart from features covering less than a square
  unit of the tile, which the two rules may keep or drop differently (counted and printed);
- the tileset metadata, the TileJSON, the tile matrix set and the conformance classes are there.
"""

import json
import math
import os
import subprocess
import sys
import urllib.parse

import mapbox_vector_tile
import shapely
from shapely.geometry import box, shape

from clientlib import fetch

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "Fixtures")
LAYERS = {"cities": "naturalearth_cities.geojson", "countries": "naturalearth_lowres.geojson", "boroughs": "nybb.geojson"}
R = 6378137.0
HALF = math.pi * R
MAX_LAT = 85.05112877980659
EXTENT, BUFFER, SPACING = 4096, 64, 16
passed = 0


def fail(message):
    print(f"FAIL [tiles] {message}")
    sys.exit(1)


def ok(message):
    global passed
    passed += 1
    print(f"PASS [tiles] {message}")


def mercator(x, y):
    lat = min(max(y, -MAX_LAT), MAX_LAT)
    return x / 180 * HALF, R * math.atanh(math.sin(lat * math.pi / 180))


def project_positions(coordinates):
    return [mercator(x, y) for x, y in coordinates]


def tile_bounds(z, x, y):
    size = 2 * HALF / (1 << z)
    west = -HALF + x * size
    north = HALF - y * size
    return west, north, size


def features_of(layer):
    with open(os.path.join(FIXTURES, LAYERS[layer])) as f:
        features = json.load(f)["features"]
    out = []
    for i, feature in enumerate(features):
        geometry = shape(feature["geometry"]) if feature.get("geometry") else None
        projected = shapely.transform(geometry, project_positions) if geometry is not None else None
        out.append({"id": feature.get("id", i + 1), "properties": feature["properties"], "geometry": geometry, "mercator": projected})
    return out


def to_tile(geometry, z, x, y):
    """`geometry` (Web Mercator) in the tile's units; made valid when it is not (a few fixture
    polygons touch themselves), so that shapely can clip it."""
    west, north, size = tile_bounds(z, x, y)
    scale = EXTENT / size
    local = shapely.transform(geometry, lambda coordinates: [((a - west) * scale, (north - b) * scale) for a, b in coordinates])
    return local if local.is_valid else shapely.make_valid(local)


def check_tile(base, layer, truth, z, x, y, work, postgis):
    status, ctype, body = fetch(f"{base}/ogc/collections/{layer}/tiles/WebMercatorQuad/{z}/{y}/{x}")
    if status != 200 or ctype != "application/vnd.mapbox-vector-tile":
        fail(f"{layer} {z}/{x}/{y}: HTTP {status} {ctype}")
    decoded = mapbox_vector_tile.decode(body, default_options={"y_coord_down": True})
    got = decoded.get(layer, {"features": [], "extent": EXTENT})
    if decoded and (list(decoded) != [layer] or got["extent"] != EXTENT):
        fail(f"{layer} {z}/{x}/{y}: layers {list(decoded)}, extent {got.get('extent')}")
    ids = [f["id"] for f in got["features"]]
    if len(set(ids)) != len(ids):
        fail(f"{layer} {z}/{x}/{y}: repeated feature IDs")
    by_id = {f["id"]: f for f in truth}
    inner = box(0, 0, EXTENT, EXTENT)
    grown = box(-BUFFER, -BUFFER, EXTENT + BUFFER, EXTENT + BUFFER)
    required, allowed = set(), set()
    taken = set()
    for feature in truth:
        if feature["mercator"] is None:
            continue
        local = to_tile(feature["mercator"], z, x, y)
        if not shapely.box(*local.bounds).intersects(grown):
            continue
        allowed.add(feature["id"])
        if local.geom_type == "Point":
            px, py = local.x, local.y
            if -BUFFER <= px <= EXTENT + BUFFER and -BUFFER <= py <= EXTENT + BUFFER:
                cell = (math.floor((px + BUFFER) / SPACING), math.floor((py + BUFFER) / SPACING))
                if cell not in taken:
                    taken.add(cell)
                    required.add(feature["id"])
                else:
                    allowed.discard(feature["id"])
            else:
                allowed.discard(feature["id"])
        elif local.geom_type in ("Polygon", "MultiPolygon"):
            if local.intersection(inner).area >= 16:
                required.add(feature["id"])
        elif local.intersection(inner).length >= 4:
            required.add(feature["id"])
    extra = set(ids) - allowed
    missing = required - set(ids)
    if extra or missing:
        fail(f"{layer} {z}/{x}/{y}: features {sorted(extra)} should not be there, {sorted(missing)} are missing")
    for feature in got["features"]:
        expected = by_id[feature["id"]]
        wanted = {k: v for k, v in expected["properties"].items() if v is not None}
        got_properties = {k: (float(v) if isinstance(v, float) else v) for k, v in feature["properties"].items()}
        if got_properties != wanted:
            fail(f"{layer} {z}/{x}/{y} feature {feature['id']}: properties {got_properties} != {wanted}")
        local = to_tile(expected["mercator"], z, x, y)
        geometry = shape(feature["geometry"])
        if local.geom_type == "Point":
            if (geometry.x, geometry.y) != (round(local.x), round(local.y)) and \
                    (abs(geometry.x - local.x) > 0.5 or abs(geometry.y - local.y) > 0.5):
                fail(f"{layer} {z}/{x}/{y} feature {feature['id']}: point at {geometry} for {local}")
        elif local.geom_type in ("Polygon", "MultiPolygon"):
            want = local.intersection(grown)
            if not geometry.is_valid:
                geometry = geometry.buffer(0)
            tolerance = 0.02 * want.area + 1.5 * want.length + 16
            if abs(geometry.area - want.area) > tolerance:
                fail(f"{layer} {z}/{x}/{y} feature {feature['id']}: area {geometry.area:.1f} for {want.area:.1f} (±{tolerance:.1f})")
    gdal = gdal_ids(body, z, x, y, work, layer)
    if sorted(gdal) != sorted(ids):
        fail(f"{layer} {z}/{x}/{y}: GDAL reads IDs {sorted(gdal)[:10]}, mapbox-vector-tile {sorted(ids)[:10]}")
    differences = 0
    if postgis:
        theirs = postgis_ids(postgis, layer, z, x, y)
        for fid in set(theirs) ^ set(ids):
            local = to_tile(by_id[fid]["mercator"], z, x, y)
            if local.geom_type != "Point" and local.intersection(inner).area >= 1 and local.intersection(inner).length >= 1:
                fail(f"{layer} {z}/{x}/{y}: PostGIS keeps {sorted(theirs)[:12]}, GeoSieve {sorted(ids)[:12]}; feature {fid} differs")
            if local.geom_type == "Point":
                # PostGIS does not thin points: every point GeoSieve keeps it keeps too.
                if fid in ids:
                    fail(f"{layer} {z}/{x}/{y}: GeoSieve keeps point {fid}, PostGIS does not")
                continue
            differences += 1
    return len(ids), len(body), differences


def gdal_ids(body, z, x, y, work, layer):
    path = os.path.join(work, f"{layer}-{z}-{x}-{y}.mvt")
    with open(path, "wb") as f:
        f.write(body)
    out = os.path.join(work, f"{layer}-{z}-{x}-{y}.geojson")
    if os.path.exists(out):
        os.remove(out)
    # CLIP=NO: GDAL keeps what lies in the buffer, as a map does.
    subprocess.run(["ogr2ogr", "-f", "GeoJSON", out, path, "-oo", f"X={x}", "-oo", f"Y={y}", "-oo", f"Z={z}", "-oo", "CLIP=NO"],
                   check=True, capture_output=True)
    with open(out) as f:
        return [feature["properties"]["mvt_id"] for feature in json.load(f)["features"]]


def postgis_connection():
    url = os.environ.get("GEOSIEVE_POSTGIS_URL")
    if not url:
        return None
    parts = urllib.parse.urlparse(url)
    return {"host": parts.hostname, "port": str(parts.port), "user": parts.username or "postgres", "dbname": parts.path.lstrip("/")}


def psql(connection, sql):
    command = ["psql", "-h", connection["host"], "-p", connection["port"], "-U", connection["user"], "-d", connection["dbname"],
               "-At", "-v", "ON_ERROR_STOP=1", "-c", sql]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def load_postgis(connection):
    pg = f"PG:host={connection['host']} port={connection['port']} user={connection['user']} dbname={connection['dbname']}"
    for layer, file in LAYERS.items():
        subprocess.run(["ogr2ogr", "-f", "PostgreSQL", pg, os.path.join(FIXTURES, file), "-nln", f"tiles_{layer}", "-overwrite",
                        "-lco", "FID=tile_id", "-lco", "GEOMETRY_NAME=geom", "-preserve_fid"], check=True, capture_output=True)


def postgis_ids(connection, layer, z, x, y):
    sql = (f"SELECT coalesce(string_agg(tile_id::text, ','), '') FROM ("
           f" SELECT tile_id, ST_AsMVTGeom(ST_Transform(geom, 3857), ST_TileEnvelope({z}, {x}, {y}), {EXTENT}, {BUFFER}, true) AS g"
           f" FROM tiles_{layer} WHERE ST_Transform(geom, 3857) && ST_TileEnvelope({z}, {x}, {y}, margin => {BUFFER / EXTENT})) q"
           f" WHERE g IS NOT NULL")
    text = psql(connection, sql).strip()
    return [int(v) for v in text.split(",")] if text else []


def tiles_for(layer, truth, zooms):
    merc = [f["mercator"] for f in truth if f["mercator"] is not None]
    bounds = shapely.GeometryCollection(merc).bounds
    for z in zooms:
        size = 2 * HALF / (1 << z)
        x0, x1 = int((bounds[0] + HALF) // size), int((bounds[2] + HALF) // size)
        y0, y1 = int((HALF - bounds[3]) // size), int((HALF - bounds[1]) // size)
        clamp = lambda v: min(max(v, 0), (1 << z) - 1)
        coordinates = [(x, y) for x in range(clamp(x0), clamp(x1) + 1) for y in range(clamp(y0), clamp(y1) + 1)]
        step = max(1, len(coordinates) // 12)
        for x, y in coordinates[::step]:
            yield z, x, y


def check_documents(base):
    _, _, body = fetch(f"{base}/ogc/conformance")
    classes = json.loads(body)["conformsTo"]
    for name in ("core", "tileset", "tilesets-list", "geodata-tilesets", "mvt"):
        if f"http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/{name}" not in classes:
            fail(f"conformance lacks OGC API - Tiles {name}")
    _, _, body = fetch(f"{base}/ogc/tileMatrixSets/WebMercatorQuad")
    grid = json.loads(body)
    if grid["id"] != "WebMercatorQuad" or grid["tileMatrices"][0]["matrixWidth"] != 1 or \
            abs(grid["tileMatrices"][0]["cellSize"] - 156543.03392804097) > 1e-6:
        fail("the WebMercatorQuad tile matrix set is wrong")
    for layer in LAYERS:
        _, _, body = fetch(f"{base}/ogc/collections/{layer}/tiles/WebMercatorQuad")
        tileset = json.loads(body)
        templates = [link["href"] for link in tileset["links"] if link["rel"] == "item"]
        if len(templates) != 1 or not templates[0].endswith("/{tileMatrix}/{tileRow}/{tileCol}"):
            fail(f"{layer}: tileset links {tileset['links']}")
        _, _, body = fetch(f"{base}/ogc/collections/{layer}/tiles/WebMercatorQuad?f=tilejson")
        tilejson = json.loads(body)
        if tilejson["tilejson"] != "3.0.0" or tilejson["vector_layers"][0]["id"] != layer or not tilejson["tiles"][0].endswith("/{z}/{y}/{x}"):
            fail(f"{layer}: TileJSON {tilejson}")
    status, _, _ = fetch(f"{base}/ogc/collections/cities/tiles/WebMercatorQuad/3/8/0")
    if status != 404:
        fail(f"a tile outside the grid answered HTTP {status}")
    ok("conformance, tile matrix set, tilesets, TileJSON; a tile outside the grid is 404")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    base, work = sys.argv[1].rstrip("/"), sys.argv[2]
    os.makedirs(work, exist_ok=True)
    print(f"mapbox-vector-tile {getattr(mapbox_vector_tile, '__version__', '?')}; shapely {shapely.__version__}; "
          f"{subprocess.run(['ogrinfo', '--version'], capture_output=True, text=True).stdout.strip()}")
    postgis = postgis_connection()
    if postgis:
        load_postgis(postgis)
        print(f"PostGIS {psql(postgis, 'SELECT postgis_lib_version()').strip()}: the fixtures loaded")
    else:
        print("notice: GEOSIEVE_POSTGIS_URL is not set: the comparison with PostGIS's ST_AsMVTGeom is skipped")
    check_documents(base)
    zooms = {"cities": [0, 1, 2, 3, 4, 6], "countries": [0, 1, 2, 3, 4, 5], "boroughs": [0, 8, 10, 11, 12]}
    for layer in LAYERS:
        truth = features_of(layer)
        tiles = features = size = differences = 0
        for z, x, y in tiles_for(layer, truth, zooms[layer]):
            n, b, d = check_tile(base, layer, truth, z, x, y, work, postgis)
            tiles += 1
            features += n
            size += b
            differences += d
        note = f"; PostGIS keeps the same features but {differences} that cover less than a unit" if postgis else ""
        ok(f"{layer}: {tiles} tiles, {features} features ({size} bytes) as computed here, read alike by GDAL{note}")
    print(f"tiles test: {passed} checks passed")


if __name__ == "__main__":
    main()

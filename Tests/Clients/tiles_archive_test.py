#!/usr/bin/env python3
"""`geosieve tiles` archives read by real readers, tile for tile against the server's tiles.

Usage: tiles_archive_test.py BASE_URL GEOSIEVE WORK_DIR

The server at BASE_URL must serve Tests/Fixtures/naturalearth_lowres.geojson as 'countries' and
naturalearth_cities.geojson as 'cities' (as Scripts/test-clients.sh does). GEOSIEVE writes the
tiles of the same files, zoom 0 to 4, as a PMTiles archive, an MBTiles file and a folder:

- PMTiles: the PyPI `pmtiles` reader lists the tiles and reads the header (MVT, gzip, the zoom
  levels, bounds) and the metadata (`vector_layers` with each layer's fields);
- the tiles written are exactly those where the server's tile holds a feature, and each is the
  server's tile byte for byte (for two layers: the countries' layer, then the cities');
- MBTiles: SQLite reads the same tiles at their TMS rows, gzipped, and the metadata GDAL and
  MapLibre read (`format` pbf, `json` with `vector_layers`); GDAL's MBTiles driver lists both layers;
- the folder holds the same tiles as {z}/{x}/{y}.pbf, and metadata.json is TileJSON 3.0.0;
- mapbox-vector-tile decodes every tile;
- --where and --properties narrow what is written; bad arguments fail with status 2 and a message.
"""

import gzip
import json
import os
import sqlite3
import subprocess
import sys

import mapbox_vector_tile
from pmtiles.reader import MmapSource, Reader, all_tiles
from pmtiles.tile import Compression, TileType

from clientlib import fetch

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "Fixtures")
passed = 0


def fail(message):
    print(f"FAIL [tiles-archive] {message}")
    sys.exit(1)


def ok(message):
    global passed
    passed += 1
    print(f"PASS [tiles-archive] {message}")


def run(geosieve, *arguments):
    return subprocess.run([geosieve, "tiles", *arguments], capture_output=True, text=True, timeout=600)


def server_tiles(base, collection, zooms):
    """Every tile of the zoom levels whose server tile holds a feature: {(z, x, y): bytes}."""
    tiles = {}
    for z in zooms:
        for x in range(2**z):
            for y in range(2**z):
                status, _, body = fetch(f"{base}/ogc/collections/{collection}/tiles/WebMercatorQuad/{z}/{y}/{x}")
                if status != 200:
                    fail(f"the server answered {status} for {collection} {z}/{y}/{x}")
                layers = mapbox_vector_tile.decode(body)
                if layers.get(collection, {}).get("features"):
                    tiles[(z, x, y)] = body
    return tiles


def main():
    if len(sys.argv) != 4:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    base, geosieve, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    countries = os.path.join(FIXTURES, "naturalearth_lowres.geojson")
    cities = os.path.join(FIXTURES, "naturalearth_cities.geojson")
    zooms = range(0, 5)
    expected_countries = server_tiles(base, "countries", zooms)
    expected_cities = server_tiles(base, "cities", zooms)
    addresses = set(expected_countries) | set(expected_cities)
    ok(f"the server's tiles of zoom 0-4: {len(expected_countries)} with countries, {len(expected_cities)} with cities")

    def expected(address):
        return expected_countries.get(address, b"") + expected_cities.get(address, b"")

    outputs = {
        "pmtiles": os.path.join(work, "world.pmtiles"),
        "mbtiles": os.path.join(work, "world.mbtiles"),
        "directory": os.path.join(work, "world"),
    }
    for kind, path in outputs.items():
        done = run(geosieve, f"{countries}:countries", f"{cities}:cities", "--zoom", "0-4", "--output", path)
        if done.returncode != 0:
            fail(f"geosieve tiles --output {path} exited {done.returncode}: {done.stderr.strip()}")
        summary = json.loads(done.stdout)
        if summary["format"] != kind or summary["tiles"] != len(addresses) or len(summary["tilesPerZoom"]) != 5:
            fail(f"{kind}: summary {summary}, expected {len(addresses)} tiles")
        ok(f"{kind}: geosieve tiles wrote {summary['tiles']} tiles ({summary['tilesPerZoom']}) and says so")

    # PMTiles, through the reference Python reader.
    with open(outputs["pmtiles"], "rb") as f:
        reader = Reader(MmapSource(f))
        header = reader.header()
        if header["tile_type"] != TileType.MVT or header["tile_compression"] != Compression.GZIP:
            fail(f"PMTiles header: {header}")
        if (header["min_zoom"], header["max_zoom"]) != (0, 4) or not header["clustered"]:
            fail(f"PMTiles zoom levels or clustering: {header}")
        if not (-180 <= header["min_lon_e7"] / 1e7 < -170 and 170 < header["max_lon_e7"] / 1e7 <= 180):
            fail(f"PMTiles bounds: {header}")
        metadata = reader.metadata()
        layers = {layer["id"]: layer for layer in metadata.get("vector_layers", [])}
        if set(layers) != {"countries", "cities"} or "name" not in layers["countries"]["fields"] or "pop_est" not in layers["countries"]["fields"]:
            fail(f"PMTiles metadata: {metadata}")
        ok(f"pmtiles {header['min_zoom']}-{header['max_zoom']}: header (MVT, gzip, clustered, bounds) and vector_layers metadata read")
        read = {}
        for (z, x, y), data in all_tiles(reader.get_bytes):
            read[(z, x, y)] = gzip.decompress(data)
        if set(read) != addresses:
            fail(f"PMTiles tiles: {len(read)} read, missing {sorted(addresses - set(read))[:5]}, extra {sorted(set(read) - addresses)[:5]}")
        for address, data in read.items():
            if data != expected(address):
                fail(f"PMTiles tile {address} differs from the server's tiles")
            if reader.get(*address) is None:
                fail(f"PMTiles: the reader does not find {address} by its ID")
        ok(f"pmtiles: all {len(read)} tiles found by ID, each the server's tiles byte for byte")

    # MBTiles, through SQLite.
    db = sqlite3.connect(outputs["mbtiles"])
    meta = dict(db.execute("SELECT name, value FROM metadata"))
    if meta.get("format") != "pbf" or meta.get("minzoom") != "0" or meta.get("maxzoom") != "4":
        fail(f"MBTiles metadata: {meta}")
    vector_layers = {layer["id"] for layer in json.loads(meta["json"])["vector_layers"]}
    if vector_layers != {"countries", "cities"}:
        fail(f"MBTiles json: {meta['json']}")
    rows = {}
    for z, column, row, data in db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles"):
        rows[(z, column, (1 << z) - 1 - row)] = gzip.decompress(data)
    db.close()
    if set(rows) != addresses or any(rows[a] != expected(a) for a in rows):
        fail("MBTiles tiles differ from the server's")
    ok(f"mbtiles: metadata and all {len(rows)} tiles at their TMS rows, gzipped, each the server's")
    info = subprocess.run(["ogrinfo", "-ro", "-q", outputs["mbtiles"]], capture_output=True, text=True, timeout=120)
    if "countries" not in info.stdout or "cities" not in info.stdout:
        fail(f"GDAL's MBTiles driver: {info.stdout} {info.stderr}")
    ok("GDAL's MBTiles driver lists the countries and cities layers")

    # The folder.
    found = {}
    root = outputs["directory"]
    for z in os.listdir(root):
        if z == "metadata.json":
            continue
        for x in os.listdir(os.path.join(root, z)):
            for name in os.listdir(os.path.join(root, z, x)):
                with open(os.path.join(root, z, x, name), "rb") as f:
                    found[(int(z), int(x), int(name.removesuffix(".pbf")))] = f.read()
    with open(os.path.join(root, "metadata.json")) as f:
        tilejson = json.load(f)
    if set(found) != addresses or any(found[a] != expected(a) for a in found) or tilejson.get("tilejson") != "3.0.0":
        fail("the folder's tiles or metadata.json differ")
    for data in found.values():
        mapbox_vector_tile.decode(data)
    ok(f"folder: all {len(found)} tiles as {{z}}/{{x}}/{{y}}.pbf, each decoded and the server's; metadata.json is TileJSON 3.0.0")

    # Narrowing: a where clause on one layer's field, and properties.
    path = os.path.join(work, "asia.pmtiles")
    done = run(geosieve, f"{countries}:countries", f"{cities}:cities", "--zoom", "0-2", "--where", "continent = 'Asia'", "--properties", "name", "--output", path)
    if done.returncode != 0:
        fail(f"--where: {done.stderr}")
    with open(path, "rb") as f:
        reader = Reader(MmapSource(f))
        tile = mapbox_vector_tile.decode(gzip.decompress(reader.get(0, 0, 0)))
    names = {feature["properties"].get("name") for feature in tile["countries"]["features"]}
    keys = {key for feature in tile["countries"]["features"] for key in feature["properties"]}
    if "China" not in names or "France" in names or keys != {"name"} or len(tile["cities"]["features"]) == 0:
        fail(f"--where/--properties: {sorted(names)[:10]}, keys {keys}")
    ok("--where applies to the layers with its fields (countries of Asia; cities all), --properties keeps only name")

    # Bad arguments.
    for arguments, status, words in [
        (["--zoom", "5-2", "--output", os.path.join(work, "bad.pmtiles")], 2, "--zoom"),
        (["--zoom", "0-25", "--output", os.path.join(work, "bad.pmtiles")], 2, "--zoom"),
        (["--zoom", "0", "--properties", "nope", "--output", os.path.join(work, "bad.pmtiles")], 2, "nope"),
        (["--zoom", "0", "--where", "nope = 1", "--output", os.path.join(work, "bad.pmtiles")], 2, "--where"),
        (["--zoom", "0", "--output", outputs["directory"]], 2, "not empty"),
    ]:
        done = run(geosieve, countries, *arguments)
        if done.returncode != status or words not in done.stderr:
            fail(f"{arguments}: status {done.returncode}, stderr {done.stderr.strip()}")
    if os.path.exists(os.path.join(work, "bad.pmtiles")):
        fail("a failed run left a file")
    ok("bad zoom levels, unknown properties, bad where clauses and a folder not empty fail with a message and leave no file")
    print(f"{passed} tile archive checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

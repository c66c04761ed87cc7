#!/usr/bin/env python3
"""Real clients against a server started from a service configuration (`geosieve serve --config`).

Usage: configured_test.py BASE_URL WORK_DIR

The server serves the configuration Scripts/test-clients.sh writes: the service 'world' with
naturalearth_lowres.geojson as layer 0 (collection 'countries', definition expression
`pop_est > 10000000`, the field gdp_md_est hidden, 50 features a request) and
naturalearth_cities.geojson as layer 1 (collection 'cities'), and the service 'nyc' with
nybb.geojson (definition `BoroCode <> 5`). GDAL (its ESRIJSON and OAPIF drivers) and esridump
must see only the features inside each layer's definition and never a hidden field; the truth is
read from the fixture files with the json module. Prints PASS lines; exits 1 at the first failure.
"""

import json
import os
import subprocess
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "Fixtures")
passed = 0


def fail(message):
    print(f"FAIL [configured] {message}", flush=True)
    sys.exit(1)


def ok(client, message):
    global passed
    passed += 1
    print(f"PASS [configured] [{client}] {message}", flush=True)


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as file:
        return json.load(file)["features"]


def get_json(url):
    with urllib.request.urlopen(url, timeout=60) as reply:
        return json.load(reply)


def ogr2ogr(work, name, source, *layer):
    out = os.path.join(work, name)
    run = subprocess.run(["ogr2ogr", "-f", "GeoJSON", out, source, *layer], capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        fail(f"ogr2ogr {source} failed: {run.stderr.strip()}")
    with open(out, encoding="utf-8") as file:
        return json.load(file)["features"]


def main():
    if len(sys.argv) != 3:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    base, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    rest = f"{base}/arcgis/rest/services"

    # The truth: each layer's features inside its definition, by object ID (the files' ids).
    populous = sorted(f["id"] for f in fixture("naturalearth_lowres.geojson") if (f["properties"].get("pop_est") or 0) > 10_000_000)
    boroughs = sorted(f["properties"]["BoroCode"] for f in fixture("nybb.geojson") if f["properties"]["BoroCode"] != 5)
    cities = len(fixture("naturalearth_cities.geojson"))

    services = {(s["name"], s["type"]) for s in get_json(f"{rest}?f=json")["services"]}
    if not {("world", "FeatureServer"), ("nyc", "FeatureServer")} <= services:
        fail(f"the directory lists {sorted(services)}")
    world = get_json(f"{rest}/world/FeatureServer?f=json")
    if [(l["id"], l["name"]) for l in world["layers"]] != [(0, "Countries"), (1, "Cities")]:
        fail(f"the world service lists {world['layers']}")
    ok("directory", "two services, world's layers 0 (Countries) and 1 (Cities)")

    # GDAL's ESRIJSON driver pages the query (50 a request) and sees the definition's features only.
    features = ogr2ogr(work, "esrijson-countries.geojson", f"{rest}/world/FeatureServer/0/query?where=1%3D1&outFields=*&f=json")
    ids = sorted(f["properties"]["OBJECTID"] for f in features)
    if ids != populous:
        fail(f"GDAL ESRIJSON read {len(ids)} countries, the definition selects {len(populous)}")
    if any("gdp_md_est" in f["properties"] for f in features):
        fail("GDAL ESRIJSON read the hidden field gdp_md_est")
    if any(f["properties"]["pop_est"] <= 10_000_000 for f in features):
        fail("GDAL ESRIJSON read a country outside the definition")
    ok("GDAL ESRIJSON", f"world/0: the {len(ids)} countries of pop_est > 10000000, without the hidden gdp_md_est")
    features = ogr2ogr(work, "esrijson-nyc.geojson", f"{rest}/nyc/FeatureServer/0/query?where=1%3D1&outFields=*&f=json")
    if sorted(f["properties"]["BoroCode"] for f in features) != boroughs:
        fail(f"GDAL ESRIJSON read the boroughs {[f['properties']['BoroCode'] for f in features]}, the definition selects {boroughs}")
    ok("GDAL ESRIJSON", f"nyc/0: the boroughs {boroughs}, not Staten Island (BoroCode 5)")

    # GDAL's OAPIF driver: the collection holds the same features.
    features = ogr2ogr(work, "oapif-countries.geojson", f"OAPIF:{base}/ogc", "countries")
    ids = sorted(f["properties"]["OBJECTID"] for f in features)
    if ids != populous or any("gdp_md_est" in f["properties"] for f in features):
        fail(f"GDAL OAPIF read {len(ids)} countries (the definition selects {len(populous)}) or the hidden field")
    ok("GDAL OAPIF", f"countries: the same {len(ids)} countries, without the hidden field")

    # esridump (object IDs, then batches): the same, and every city of layer 1.
    from esridump.dumper import EsriDumper

    dumped = list(EsriDumper(f"{rest}/world/FeatureServer/0", timeout=60))
    if sorted(f["properties"]["OBJECTID"] for f in dumped) != populous:
        fail(f"esridump read {len(dumped)} countries, the definition selects {len(populous)}")
    dumped_cities = list(EsriDumper(f"{rest}/world/FeatureServer/1", timeout=60))
    if len(dumped_cities) != cities:
        fail(f"esridump read {len(dumped_cities)} cities of {cities}")
    ok("esridump", f"world/0: {len(populous)} countries; world/1: all {cities} cities")
    print(f"configured: {passed} checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

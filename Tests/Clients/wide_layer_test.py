#!/usr/bin/env python3
"""A realistic layer through `geosieve serve`, against what GDAL reads from the file itself.

Usage: wide_layer_test.py BASE_URL WIDE_GPKG

The server at BASE_URL must serve WIDE_GPKG (Benchmarks/serve_wide_data.py: 25 fields, mostly
texts and many NULL, a 64-bit osm_id, dates, a date-only survey_date) as 'wide', started with
`--time-field created`, as Scripts/test-clients.sh does. GDAL's ogr2ogr exports the file to CSV
(x, y, osm_id, created), and:

- `distance`: the features within 50, 300 and 1,500 km of three points, asked with
  `returnIdsOnly` (and through GDAL's ESRIJSON driver, which reads the query URL), equal those
  whose Vincenty distance (computed here on WGS 84) is within the limit (features within a
  millimetre of it left out);
- `time`: the features whose `created` lies in three intervals equal those counted from the CSV;
  `timeInfo` gives `created` and its extent;
- the answers with `outFields=*` carry every field, osm_id as exact integers (beyond 2^53 where
  the file has them) declared esriFieldTypeDouble, as an 11.1 server declares them.

Prints PASS/FAIL lines; exits 1 on a failure.
"""

import csv
import datetime
import io
import json
import math
import subprocess
import sys
import urllib.parse

from clientlib import fetch

passed = 0


def fail(message):
    print(f"FAIL [wide] {message}")
    sys.exit(1)


def ok(message):
    global passed
    passed += 1
    print(f"PASS [wide] {message}")


def vincenty(lon1, lat1, lon2, lat2):
    """Vincenty's inverse formula on WGS 84, in metres (None when it does not converge)."""
    a, f = 6378137.0, 1 / 298.257223563
    b = a * (1 - f)
    L = math.radians(lon2 - lon1)
    U1, U2 = math.atan((1 - f) * math.tan(math.radians(lat1))), math.atan((1 - f) * math.tan(math.radians(lat2)))
    sinU1, cosU1, sinU2, cosU2 = math.sin(U1), math.cos(U1), math.sin(U2), math.cos(U2)
    lam = L
    for _ in range(200):
        sinLam, cosLam = math.sin(lam), math.cos(lam)
        sinSigma = math.hypot(cosU2 * sinLam, cosU1 * sinU2 - sinU1 * cosU2 * cosLam)
        if sinSigma == 0:
            return 0.0
        cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLam
        sigma = math.atan2(sinSigma, cosSigma)
        sinAlpha = cosU1 * cosU2 * sinLam / sinSigma
        cos2Alpha = 1 - sinAlpha * sinAlpha
        cos2SigmaM = cosSigma - 2 * sinU1 * sinU2 / cos2Alpha if cos2Alpha else 0.0
        C = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
        previous = lam
        lam = L + (1 - C) * f * sinAlpha * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM ** 2)))
        if abs(lam - previous) < 1e-13:
            break
    else:
        return None
    u2 = cos2Alpha * (a * a - b * b) / (b * b)
    A = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)))
    B = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)))
    deltaSigma = B * sinSigma * (cos2SigmaM + B / 4 * (cosSigma * (-1 + 2 * cos2SigmaM ** 2) - B / 6 * cos2SigmaM * (-3 + 4 * sinSigma ** 2) * (-3 + 4 * cos2SigmaM ** 2)))
    return b * A * (sigma - deltaSigma)


def rows_from_gdal(path):
    out = subprocess.run(
        ["ogr2ogr", "-f", "CSV", "/vsistdout/", path, "wide", "-lco", "GEOMETRY=AS_XY", "-select", "osm_id,created"],
        capture_output=True, text=True, timeout=300, check=True).stdout
    rows = []
    for record in csv.DictReader(io.StringIO(out)):
        created = record["created"]
        ms = None
        if created:
            stamp = datetime.datetime.strptime(created[:19], "%Y/%m/%d %H:%M:%S").replace(tzinfo=datetime.timezone.utc)
            ms = int(stamp.timestamp() * 1000) + (int(created[20:23]) if len(created) > 20 else 0)
        rows.append({"x": float(record["X"]), "y": float(record["Y"]), "osm_id": int(record["osm_id"]), "created": ms})
    return rows


def query(base, **parameters):
    parameters.setdefault("f", "json")
    status, _, body = fetch(f"{base}/arcgis/rest/services/wide/FeatureServer/0/query?" + urllib.parse.urlencode(parameters))
    if status != 200:
        fail(f"HTTP {status} for {parameters}")
    answer = json.loads(body)
    if "error" in answer:
        fail(f"{parameters}: {answer['error']}")
    return answer


def main():
    if len(sys.argv) != 3:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    base, gpkg = sys.argv[1:]
    rows = rows_from_gdal(gpkg)
    ids = {row["osm_id"]: row for row in rows}
    layer = json.loads(fetch(f"{base}/arcgis/rest/services/wide/FeatureServer/0?f=json")[2])
    oid = layer["objectIdField"]
    # The server's object IDs against the file's osm_id, through the answer itself.
    object_to_osm = {}
    while True:
        answer = query(base, where="1=1", outFields=f"{oid},osm_id", orderByFields=oid, resultOffset=len(object_to_osm))
        object_to_osm.update({f["attributes"][oid]: f["attributes"]["osm_id"] for f in answer["features"]})
        if not answer.get("exceededTransferLimit") or not answer["features"]:
            break
    if len(object_to_osm) != len(rows) or set(object_to_osm.values()) != set(ids):
        fail(f"{len(object_to_osm)} features through the server, {len(rows)} in the file")

    types = {f["name"]: f["type"] for f in layer["fields"]}
    page = query(base, where="1=1", outFields="*", resultRecordCount=50, orderByFields=oid)
    if len(page["fields"]) != len(layer["fields"]) or types.get("osm_id") != "esriFieldTypeDouble" or types.get("survey_date") != "esriFieldTypeDate":
        fail(f"fields: {types}")
    raw = fetch(f"{base}/arcgis/rest/services/wide/FeatureServer/0/query?where=1%3D1&outFields=osm_id&resultRecordCount=5&orderByFields={oid}&f=json")[2].decode()
    first = min(object_to_osm)
    if f'"osm_id":{object_to_osm[first]}' not in raw.replace(" ", ""):
        fail(f"osm_id of feature 1 not written exactly: {raw[:300]}")
    ok(f"{len(rows)} features of {len(layer['fields'])} fields; osm_id declared esriFieldTypeDouble and written as exact integers ({object_to_osm[first]})")

    for lon, lat in [(2.35, 48.86), (-122.4, 37.8), (179.5, -16.5)]:
        for km in (50, 300, 1500):
            expected, ambiguous = set(), set()
            for oid, osm in object_to_osm.items():
                row = ids[osm]
                d = vincenty(lon, lat, row["x"], row["y"])
                if d is None or abs(d - km * 1000) < 0.001:
                    ambiguous.add(oid)
                elif d <= km * 1000:
                    expected.add(oid)
            found = set(query(base, geometry=f"{lon},{lat}", geometryType="esriGeometryPoint", inSR=4326, distance=km,
                              units="esriSRUnit_Kilometer", returnIdsOnly="true")["objectIds"])
            if found - ambiguous != expected:
                fail(f"within {km} km of {lon},{lat}: {len(found)} found, {len(expected)} expected; "
                     f"missing {sorted(expected - found)[:5]}, extra {sorted(found - expected - ambiguous)[:5]}")
    ok("distance: the features within 50, 300 and 1,500 km of Paris, San Francisco and Fiji (across the antimeridian) are those Vincenty's formula finds")

    url = (f"ESRIJSON:{base}/arcgis/rest/services/wide/FeatureServer/0/query?where=1%3D1&geometry=2.35,48.86"
           "&geometryType=esriGeometryPoint&inSR=4326&distance=1500&units=esriSRUnit_Kilometer&outFields=osm_id&f=json")
    info = subprocess.run(["ogrinfo", "-ro", "-so", url, "ESRIJSON"], capture_output=True, text=True, timeout=120)
    count_line = next((l for l in info.stdout.splitlines() if l.startswith("Feature Count:")), "")
    expected_count = len(query(base, geometry="2.35,48.86", geometryType="esriGeometryPoint", inSR=4326, distance=1500,
                               units="esriSRUnit_Kilometer", returnIdsOnly="true")["objectIds"])
    if count_line != f"Feature Count: {expected_count}":
        fail(f"GDAL's ESRIJSON driver on a distance query: {count_line or info.stderr.strip()}, expected {expected_count}")
    ok(f"GDAL's ESRIJSON driver reads the {expected_count} features of a distance query")

    info = layer.get("timeInfo") or {}
    created = [row["created"] for row in rows if row["created"] is not None]
    if info.get("startTimeField") != "created" or info.get("timeExtent") != [min(created), max(created)]:
        fail(f"timeInfo: {info}, expected created and [{min(created)}, {max(created)}]")
    low, high = min(created), max(created)
    span = high - low
    for a, b in [(low, low + span // 10), (low + span // 3, low + span // 2), (high - span // 20, high)]:
        expected = sum(1 for t in created if a <= t <= b)
        count = query(base, where="1=1", time=f"{a},{b}", returnCountOnly="true")["count"]
        if count != expected:
            fail(f"time={a},{b}: {count}, the file has {expected}")
    ok("time: timeInfo names created and its extent; three intervals count what the file holds")
    print(f"{passed} wide-layer checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

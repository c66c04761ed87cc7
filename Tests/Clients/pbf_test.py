#!/usr/bin/env python3
"""The f=pbf answers of `geosieve serve`, decoded by Google's protobuf runtime, against its JSON.

Usage: pbf_test.py --make-lines OUT.geojson
       pbf_test.py BASE_URL WORK_DIR

--make-lines writes a layer of polylines and multipoints made from the held-in fixtures (country
outlines as MultiLineStrings, cities grouped by initial as MultiPoints), with integer, double,
text, date and NULL attributes, so that every geometry type is served.

Otherwise the server at BASE_URL must serve naturalearth_cities.geojson as 'cities',
naturalearth_lowres.geojson as 'countries', nybb.geojson as 'boroughs', the --make-lines files
as 'lines' and 'multipoints' (OUT.geojson and OUT-points.geojson), and the 25-field layer of
Benchmarks/serve_wide_data.py as 'wide' (a 64-bit ID, 16 texts often NULL, 2 dates, a date-only
field: what real layers hold), as Scripts/test-clients.sh does. Esri's FeatureCollection
messages (Tests/Clients/esri_feature_collection.proto) are compiled with protoc into WORK_DIR,
and for every layer:

- features: f=pbf holds the fields, values and exceededTransferLimit of f=json, and geometries
  whose every vertex, taken back through the answer's transform, lies within half a grid cell of
  the JSON vertex;
- quantizationParameters (view and edit mode, upper and lower left): f=pbf and f=json hold the
  same integer cells, and those cells are the ones this script computes from the unquantized
  JSON coordinates by the documented rule (round half away from zero; in view mode a vertex in
  the cell of the one kept before it is dropped);
- counts, object IDs, statistics and distinct values equal the JSON answers;
- maxAllowableOffset: each path and ring of the JSON answer equals shapely's (GEOS's)
  Douglas-Peucker simplification of the unsimplified one (rings GEOS would collapse excepted);
- returnExtentOnly with f=pbf is an ArcGIS error document with code 400.
"""

import datetime
import importlib
import json
import math
import os
import subprocess
import sys
import urllib.parse

from clientlib import fetch

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "Fixtures")
LAYERS = ["cities", "countries", "boroughs", "lines", "multipoints", "wide"]
passed = 0


def fail(message):
    print(f"FAIL [pbf] {message}")
    sys.exit(1)


def ok(message):
    global passed
    passed += 1
    print(f"PASS [pbf] {message}")


def make_lines(out):
    with open(os.path.join(FIXTURES, "naturalearth_lowres.geojson")) as f:
        countries = json.load(f)["features"]
    with open(os.path.join(FIXTURES, "naturalearth_cities.geojson")) as f:
        cities = json.load(f)["features"]
    features = []
    for i, country in enumerate(countries[:80]):
        geometry = country["geometry"]
        polygons = geometry["coordinates"] if geometry["type"] == "MultiPolygon" else [geometry["coordinates"]]
        outlines = [polygon[0] for polygon in polygons]
        line = {"type": "LineString", "coordinates": outlines[0]} if len(outlines) == 1 else \
            {"type": "MultiLineString", "coordinates": outlines}
        properties = {"name": country["properties"].get("name"), "rank": i - 20,
                      "ratio": None if i % 7 == 0 else i / 8,
                      "since": None if i % 5 == 0 else f"19{50 + i % 40}-0{1 + i % 9}-1{i % 10}T0{i % 10}:30:00Z"}
        features.append({"type": "Feature", "properties": properties, "geometry": line})
    groups = {}
    for city in cities:
        groups.setdefault(city["properties"]["name"][0], []).append(city["geometry"]["coordinates"])
    for i, (initial, points) in enumerate(sorted(groups.items())):
        properties = {"name": initial, "rank": len(points), "ratio": None, "since": None}
        features.append({"type": "Feature", "properties": properties, "geometry": {"type": "MultiPoint", "coordinates": points}})
    lines = {"type": "FeatureCollection", "features": [f for f in features if f["geometry"]["type"] != "MultiPoint"]}
    points = {"type": "FeatureCollection", "features": [f for f in features if f["geometry"]["type"] == "MultiPoint"]}
    with open(out, "w") as f:
        json.dump(lines, f)
    with open(out.replace(".geojson", "-points.geojson"), "w") as f:
        json.dump(points, f)


def query(base, layer, **parameters):
    url = f"{base}/arcgis/rest/services/{layer}/FeatureServer/0/query?" + urllib.parse.urlencode(parameters)
    status, ctype, body = fetch(url)
    if status != 200:
        fail(f"{url}: HTTP {status}: {body[:300]!r}")
    return ctype, body


def json_query(base, layer, **parameters):
    _, body = query(base, layer, f="json", **parameters)
    return json.loads(body)


def pbf_query(base, layer, pb, **parameters):
    ctype, body = query(base, layer, f="pbf", **parameters)
    if ctype != "application/x-protobuf":
        fail(f"{layer}: f=pbf answered {ctype!r}")
    message = pb.FeatureCollectionPBuffer()
    message.ParseFromString(body)
    return message, len(body)


def json_parts(geometry):
    """The vertices of an Esri JSON geometry, part by part."""
    if "x" in geometry:
        return [[(geometry["x"], geometry["y"])]]
    if "points" in geometry:
        return [[tuple(p[:2]) for p in geometry["points"]]]
    return [[tuple(p[:2]) for p in part] for part in geometry.get("paths", geometry.get("rings", []))]


def undelta(parts):
    """Quantized Esri JSON parts (first vertex, then differences) as absolute cells."""
    out = []
    for part in parts:
        x = y = 0
        cells = []
        for i, (dx, dy) in enumerate(part):
            x, y = (dx, dy) if i == 0 else (x + dx, y + dy)
            cells.append((x, y))
        out.append(cells)
    return out


def pbf_cells(geometry):
    coords = list(geometry.coords)
    lengths = list(geometry.lengths) or [len(coords) // 2]
    parts, i = [], 0
    for n in lengths:
        x = y = 0
        cells = []
        for k in range(n):
            x, y = x + coords[i], y + coords[i + 1]
            i += 2
            cells.append((x, y))
        parts.append(cells)
    if i != len(coords):
        fail(f"lengths {lengths} do not cover {len(coords)} coordinates")
    return parts


def half_away(q):
    r = math.floor(abs(q))
    if abs(q) - r >= 0.5:
        r += 1
    return int(math.copysign(r, q))


def expected_cells(parts, grid, is_polygon):
    tol, (xmin, ymin, xmax, ymax), view, upper = grid
    out = []
    for part in parts:
        cells = []
        for x, y in part:
            cell = (half_away((x - xmin) / tol), half_away((ymax - y) / tol if upper else (y - ymin) / tol))
            if view and cells and cells[-1] == cell:
                continue
            cells.append(cell)
        if view and is_polygon and len(cells) < 3 and len(part) >= 2:
            ends = [part[0], part[-1]]
            cells = [(half_away((x - xmin) / tol), half_away((ymax - y) / tol if upper else (y - ymin) / tol)) for x, y in ends]
        out.append(cells)
    return out


def value_of(value):
    kind = value.WhichOneof("value_type")
    return None if kind is None else getattr(value, kind)


# The type f=pbf declares for each JSON field type: its own, and for the types the protocol lacks
# those of ArcGIS before 11.2 (which the JSON answers of a server claiming 11.1 declare too).
PBF_FIELD_TYPE = {
    "esriFieldTypeSmallInteger": 0, "esriFieldTypeInteger": 1, "esriFieldTypeSingle": 2, "esriFieldTypeDouble": 3,
    "esriFieldTypeString": 4, "esriFieldTypeDate": 5, "esriFieldTypeOID": 6, "esriFieldTypeGUID": 10,
    "esriFieldTypeGlobalID": 11, "esriFieldTypeBigInteger": 3, "esriFieldTypeDateOnly": 5,
}


def json_value(value, field_type):
    """A JSON attribute as f=pbf holds it: a date-only day as its midnight in epoch ms."""
    if field_type == "esriFieldTypeDateOnly" and isinstance(value, str):
        day = datetime.date.fromisoformat(value)
        return (day - datetime.date(1970, 1, 1)).days * 86_400_000
    return value


def compare_features(layer, js, pb_result, what):
    fields = [f["name"] for f in js["fields"]]
    types = [f["type"] for f in js["fields"]]
    if [f.name for f in pb_result.fields] != fields:
        fail(f"{layer} {what}: fields {[f.name for f in pb_result.fields]} != {fields}")
    for field, json_type in zip(pb_result.fields, types):
        if field.fieldType != PBF_FIELD_TYPE.get(json_type):
            fail(f"{layer} {what}: {field.name} ({json_type}) declared as field type {field.fieldType}")
    if len(pb_result.features) != len(js["features"]):
        fail(f"{layer} {what}: {len(pb_result.features)} features, JSON has {len(js['features'])}")
    if pb_result.exceededTransferLimit != bool(js.get("exceededTransferLimit", False)):
        fail(f"{layer} {what}: exceededTransferLimit differs")
    for feature, expected in zip(pb_result.features, js["features"]):
        values = [value_of(v) for v in feature.attributes]
        wanted = [json_value(expected["attributes"][name], t) for name, t in zip(fields, types)]
        if values != wanted:
            fail(f"{layer} {what}: attributes {values} != {wanted}")


def check_layer(base, layer, pb):
    js = json_query(base, layer, where="1=1", outFields="*")
    message, size = pbf_query(base, layer, pb, where="1=1", outFields="*")
    result = message.queryResult.featureResult
    if message.version != "1.0" or result.objectIdFieldName != js["objectIdFieldName"]:
        fail(f"{layer}: version {message.version!r}, objectIdFieldName {result.objectIdFieldName!r}")
    compare_features(layer, js, result, "features")
    type_names = {0: "esriGeometryPoint", 1: "esriGeometryMultipoint", 2: "esriGeometryPolyline", 3: "esriGeometryPolygon"}
    if type_names.get(result.geometryType) != js["geometryType"]:
        fail(f"{layer}: geometryType {result.geometryType} for {js['geometryType']}")
    t = result.transform
    sx, sy, tx, ty = t.scale.xScale, t.scale.yScale, t.translate.xTranslate, t.translate.yTranslate
    upper = t.quantizeOriginPostion == 0
    worst = 0.0
    vertices = 0
    for feature, expected in zip(result.features, js["features"]):
        want = json_parts(expected["geometry"])
        got = pbf_cells(feature.geometry)
        if [len(p) for p in got] != [len(p) for p in want]:
            fail(f"{layer}: part lengths {[len(p) for p in got]} != {[len(p) for p in want]}")
        for gp, wp in zip(got, want):
            for (cx, cy), (x, y) in zip(gp, wp):
                wx, wy = tx + cx * sx, (ty - cy * sy) if upper else (ty + cy * sy)
                error = max(abs(wx - x), abs(wy - y))
                worst = max(worst, error)
                vertices += 1
                if error > 0.5 * max(sx, sy) * 1.001 + 1e-12 * max(1.0, abs(x), abs(y)):
                    fail(f"{layer}: vertex ({x}, {y}) came back as ({wx}, {wy}), cell {sx}")
    ok(f"{layer}: {len(result.features)} features, {vertices} vertices within half a cell ({sx:.3g}; worst {worst:.3g}); "
       f"{size} bytes against {len(json.dumps(js))} of JSON")

    extent = json.loads(fetch(f"{base}/arcgis/rest/services/{layer}/FeatureServer/0?f=json")[2])["extent"]
    box = (extent["xmin"], extent["ymin"], extent["xmax"], extent["ymax"])
    for mode, origin in (("view", "upperLeft"), ("edit", "lowerLeft")):
        tolerance = max(box[2] - box[0], box[3] - box[1]) / 800
        parameters = json.dumps({"mode": mode, "originPosition": origin, "tolerance": tolerance,
                                 "extent": {"xmin": box[0], "ymin": box[1], "xmax": box[2], "ymax": box[3],
                                            "spatialReference": extent["spatialReference"]}})
        quantized = json_query(base, layer, where="1=1", outFields="*", quantizationParameters=parameters)
        message, qsize = pbf_query(base, layer, pb, where="1=1", outFields="*", quantizationParameters=parameters)
        qresult = message.queryResult.featureResult
        compare_features(layer, quantized, qresult, f"{mode} quantized")
        transform = quantized["transform"]
        if transform["originPosition"] != origin or transform["scale"][:2] != [tolerance, tolerance]:
            fail(f"{layer}: JSON transform {transform}")
        if abs(qresult.transform.scale.xScale - tolerance) != 0 or (qresult.transform.quantizeOriginPostion == 0) != (origin == "upperLeft"):
            fail(f"{layer}: PBF transform {qresult.transform}")
        grid = (tolerance, box, mode == "view", origin == "upperLeft")
        for feature, qjs, raw in zip(qresult.features, quantized["features"], js["features"]):
            from_pbf = pbf_cells(feature.geometry)
            geometry = qjs["geometry"]
            from_json = [[(geometry["x"], geometry["y"])]] if "x" in geometry else undelta(json_parts(geometry))
            from_rule = expected_cells(json_parts(raw["geometry"]), grid, js["geometryType"] == "esriGeometryPolygon")
            if from_pbf != from_json or from_json != from_rule:
                fail(f"{layer} {mode}: cells differ: pbf {from_pbf[:1]} json {from_json[:1]} rule {from_rule[:1]}")
        ok(f"{layer}: {mode} mode from the {origin}: the same cells in f=pbf, f=json and by the rule; {qsize} bytes")

    count = json_query(base, layer, where="1=1", returnCountOnly="true")["count"]
    message, _ = pbf_query(base, layer, pb, where="1=1", returnCountOnly="true")
    if message.queryResult.WhichOneof("Results") != "countResult" or message.queryResult.countResult.count != count:
        fail(f"{layer}: count {message.queryResult} != {count}")
    ids = json_query(base, layer, where="1=1", returnIdsOnly="true")
    message, _ = pbf_query(base, layer, pb, where="1=1", returnIdsOnly="true")
    if list(message.queryResult.idsResult.objectIds) != ids["objectIds"] or \
            message.queryResult.idsResult.objectIdFieldName != ids["objectIdFieldName"]:
        fail(f"{layer}: object IDs differ")
    field = next(f["name"] for f in js["fields"] if f["type"] in ("esriFieldTypeString",))
    statistics = json.dumps([{"statisticType": "count", "onStatisticField": field, "outStatisticFieldName": "n"}])
    stats = json_query(base, layer, where="1=1", outStatistics=statistics, groupByFieldsForStatistics=field, orderByFields=field)
    message, _ = pbf_query(base, layer, pb, where="1=1", outStatistics=statistics, groupByFieldsForStatistics=field, orderByFields=field)
    if message.queryResult.featureResult.geometryType != 127:
        fail(f"{layer}: statistics have geometryType {message.queryResult.featureResult.geometryType}")
    compare_features(layer, stats, message.queryResult.featureResult, "statistics")
    distinct = json_query(base, layer, where="1=1", outFields=field, returnDistinctValues="true", returnGeometry="false")
    message, _ = pbf_query(base, layer, pb, where="1=1", outFields=field, returnDistinctValues="true", returnGeometry="false")
    compare_features(layer, distinct, message.queryResult.featureResult, "distinct values")
    page = json_query(base, layer, where="1=1", outFields="*", resultRecordCount=3, resultOffset=2)
    message, _ = pbf_query(base, layer, pb, where="1=1", outFields="*", resultRecordCount=3, resultOffset=2)
    compare_features(layer, page, message.queryResult.featureResult, "a page")
    ok(f"{layer}: count {count}, {len(ids['objectIds'])} object IDs, {len(stats['features'])} groups, "
       f"{len(distinct['features'])} distinct values and a page as in JSON")

    status, ctype, body = fetch(f"{base}/arcgis/rest/services/{layer}/FeatureServer/0/query?where=1%3D1&returnExtentOnly=true&f=pbf")
    # ArcGIS sends its error documents with HTTP 200; the code is in the document.
    if "json" not in ctype or json.loads(body).get("error", {}).get("code") != 400:
        fail(f"{layer}: returnExtentOnly with f=pbf answered HTTP {status} {ctype}: {body[:200]!r}")
    ok(f"{layer}: returnExtentOnly with f=pbf is refused with an error document")


def check_generalization(base, layer, offset):
    import shapely
    from shapely.geometry import LineString
    raw = json_query(base, layer, where="1=1", outFields="*")
    generalized = json_query(base, layer, where="1=1", outFields="*", maxAllowableOffset=offset)
    parts = compared = 0
    for a, b in zip(raw["features"], generalized["features"]):
        for part, got in zip(json_parts(a["geometry"]), json_parts(b["geometry"])):
            parts += 1
            if len(part) < 3:
                continue
            want = [tuple(c) for c in LineString(part).simplify(offset, preserve_topology=False).coords]
            if "rings" in a["geometry"] and len(want) < 4:
                continue  # GEOS collapses the ring; GeoSieve keeps a triangle (tested in Swift)
            if got != want:
                fail(f"{layer}: maxAllowableOffset={offset}: {len(got)} vertices, GEOS keeps {len(want)}: {got[:4]} {want[:4]}")
            compared += 1
    ok(f"{layer}: maxAllowableOffset={offset}: {compared} of {parts} parts equal GEOS {shapely.geos_version_string}'s "
       f"Douglas-Peucker simplification")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--make-lines":
        make_lines(sys.argv[2])
        return
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    base, work = sys.argv[1].rstrip("/"), sys.argv[2]
    os.makedirs(work, exist_ok=True)
    subprocess.run(["protoc", f"--python_out={work}", f"-I{HERE}", os.path.join(HERE, "esri_feature_collection.proto")], check=True)
    sys.path.insert(0, work)
    pb = importlib.import_module("esri_feature_collection_pb2")
    import google.protobuf
    print(f"protobuf {google.protobuf.__version__}; {subprocess.run(['protoc', '--version'], capture_output=True, text=True).stdout.strip()}")
    for layer in LAYERS:
        check_layer(base, layer, pb)
    check_generalization(base, "lines", 0.5)
    check_generalization(base, "countries", 0.2)
    print(f"pbf test: {passed} checks passed")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Real-client interoperability test of `geosieve serve`.

Usage: clients_test.py BASE_URL SERVER_LOG WORK_DIR

BASE_URL   the server's root, as printed on its 'serving http://HOST:PORT' line
SERVER_LOG the file the server's standard error (its request log, --log-level info) goes to
WORK_DIR   an empty directory for the files the clients write

The server must serve Tests/Fixtures/naturalearth_cities.geojson as 'cities',
naturalearth_lowres.geojson as 'countries' and nybb.geojson as 'boroughs' with
--max-record-count 100. Real clients read them: GDAL (ogr2ogr, through its ESRIJSON and OAPIF
drivers), esridump and OWSLib. What they read is compared with the truth, read independently
from the fixture files with the json module (geometries compared with shapely). The run stops at
the first failure with a message and a non-zero exit status; each passed check prints one line.
"""

import json
import math
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import shapely
from shapely.geometry import shape

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "Fixtures")
COLLECTIONS = {
    "cities": "naturalearth_cities.geojson",
    "countries": "naturalearth_lowres.geojson",
    "boroughs": "nybb.geojson",
}
MAX_RECORD_COUNT = 100
FLOAT_REL_TOL = 1e-9
GEOMETRY_TOL = 1e-9
COMMAND_TIMEOUT = 90

passed = 0
# The geometries found equal only topologically (not vertex for vertex after normalizing).
topological_matches = []


class CheckFailure(Exception):
    pass


def fail(message):
    raise CheckFailure(message)


def ok(client, message):
    global passed
    passed += 1
    note = ""
    if topological_matches:
        note = f" [{len(topological_matches)} geometries equal only topologically, not vertex for vertex]"
        topological_matches.clear()
    print(f"PASS [{client}] {message}{note}", flush=True)


# --- The truth, from the fixture files --------------------------------------------------------


class Truth:
    """One fixture: its features in file order (OBJECTID = position + 1)."""

    def __init__(self, name, path):
        self.name = name
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
        self.features = document["features"]
        self.geometries = [shape(f["geometry"]) if f["geometry"] else None for f in self.features]
        self.property_names = []
        for feature in self.features:
            for key in feature["properties"]:
                if key not in self.property_names:
                    self.property_names.append(key)

    def __len__(self):
        return len(self.features)

    def objectids_where(self, predicate):
        """The OBJECTIDs (1-based positions) of the features whose properties and geometry match."""
        return [i + 1 for i, f in enumerate(self.features) if predicate(f["properties"], self.geometries[i])]


def point_in_box(geometry, xmin, ymin, xmax, ymax):
    return geometry is not None and xmin <= geometry.x <= xmax and ymin <= geometry.y <= ymax


# --- Comparison -------------------------------------------------------------------------------


def same_value(got, want):
    if want is None or got is None:
        return got is None and want is None
    if isinstance(want, bool) or isinstance(got, bool):
        return got == want
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        if isinstance(want, int) and isinstance(got, int):
            return got == want
        return math.isclose(float(got), float(want), rel_tol=FLOAT_REL_TOL, abs_tol=0.0)
    return got == want


def single_part(geometry):
    """A Multi* geometry of one part as that part (an Esri polygon or point carries no
    single/multi distinction)."""
    if geometry is not None and geometry.geom_type.startswith("Multi") and len(geometry.geoms) == 1:
        return geometry.geoms[0]
    return geometry


def geometry_difference(got, want, tolerance=GEOMETRY_TOL):
    """None when the geometries are equal, else a description of the difference.

    Equal means: equal vertex for vertex within tolerance after shapely.normalize (which makes
    ring orientation, ring start points and the order of parts canonical); failing that, for the
    exact comparison (tolerance GEOMETRY_TOL) only, topologically equal (a.equals(b): the same
    point set, whatever repeated vertices) -- or, where GEOS cannot relate the two (an invalid
    polygon), polygons whose symmetric difference has an area ~0. Each geometry found equal only
    by the fallback is counted and reported on the check's PASS line."""
    if got is None or want is None:
        return None if got is None and want is None else f"geometry {got!r:.80} where the fixture has {want!r:.80}"
    a, b = single_part(got), single_part(want)
    if shapely.normalize(a).equals_exact(shapely.normalize(b), tolerance):
        return None
    difference = (f"got a {a.geom_type} with {shapely.get_num_coordinates(a)} coordinates ({a.wkt[:160]}...) where "
                  f"the fixture has a {b.geom_type} with {shapely.get_num_coordinates(b)} coordinates "
                  f"({b.wkt[:160]}...)")
    if tolerance > GEOMETRY_TOL:
        return difference
    try:
        if a.equals(b):
            topological_matches.append((a.geom_type, b.geom_type))
            return None
        return difference
    except shapely.errors.GEOSException as error:
        polygonal = ("Polygon", "MultiPolygon")
        if a.geom_type in polygonal and b.geom_type in polygonal:
            try:
                area = a.symmetric_difference(b).area
            except shapely.errors.GEOSException:
                return f"{difference}; not comparable topologically ({error})"
            if area <= 1e-12 * max(b.area, 1e-12):
                topological_matches.append((a.geom_type, b.geom_type))
                return None
            return f"{difference}; symmetric difference area {area!r}"
        return f"{difference}; not comparable topologically ({error})"


def compare_features(client, label, features, truth, expected_ids=None, tolerance=GEOMETRY_TOL):
    """Compare GeoJSON-like features (dicts with 'properties' and 'geometry') with the fixture
    features they pair with through their OBJECTID property; expected_ids: the OBJECTIDs that
    must be there (default: all); tolerance: how far a coordinate may be from the fixture's."""
    if expected_ids is None:
        expected_ids = list(range(1, len(truth) + 1))
    if len(features) != len(expected_ids):
        got_ids = sorted(_objectid(client, label, f) for f in features)
        missing = sorted(set(expected_ids) - set(got_ids))
        extra = sorted(set(got_ids) - set(expected_ids))
        fail(f"[{client}] {label}: {len(features)} features where the fixture gives {len(expected_ids)} "
             f"(missing OBJECTIDs {missing[:20]}, unexpected {extra[:20]})")
    seen = set()
    for feature in features:
        objectid = _objectid(client, label, feature)
        if objectid in seen:
            fail(f"[{client}] {label}: OBJECTID {objectid} twice")
        seen.add(objectid)
    if seen != set(expected_ids):
        fail(f"[{client}] {label}: OBJECTIDs {sorted(seen - set(expected_ids))[:20]} not expected, "
             f"{sorted(set(expected_ids) - seen)[:20]} missing")
    for feature in features:
        objectid = _objectid(client, label, feature)
        want = truth.features[objectid - 1]
        properties = feature.get("properties") or {}
        for key, value in want["properties"].items():
            if key not in properties:
                fail(f"[{client}] {label}: feature OBJECTID {objectid} has no property {key!r} "
                     f"(it has {sorted(properties)})")
            if not same_value(properties[key], value):
                fail(f"[{client}] {label}: feature OBJECTID {objectid} property {key!r} = {properties[key]!r}, "
                     f"the fixture has {value!r}")
        geometry = feature.get("geometry")
        difference = geometry_difference(shape(geometry) if geometry else None, truth.geometries[objectid - 1],
                                         tolerance)
        if difference:
            fail(f"[{client}] {label}: feature OBJECTID {objectid} geometry differs: {difference}")


def _objectid(client, label, feature):
    properties = feature.get("properties") or {}
    value = properties.get("OBJECTID")
    if not isinstance(value, int) or isinstance(value, bool):
        fail(f"[{client}] {label}: a feature without an integer OBJECTID property: "
             f"{json.dumps(properties)[:300]}")
    return value


# --- The server's request log -----------------------------------------------------------------


class RequestLog:
    """The request paths the server logged (its standard error, --log-level info) since mark()."""

    # The access log's line ends with the request: `[SieveServer] GET /path?query`.
    PATH = re.compile(r"\[SieveServer\] [A-Z]+ (\S+)")

    def __init__(self, path):
        self.path = path
        self.offset = 0

    def mark(self):
        self.offset = os.path.getsize(self.path)

    def paths_since_mark(self, must_contain=None, wait=3.0):
        deadline = time.monotonic() + wait
        while True:
            with open(self.path, encoding="utf-8", errors="replace") as f:
                f.seek(self.offset)
                paths = self.PATH.findall(f.read())
            if must_contain is None or any(must_contain in p for p in paths) or time.monotonic() > deadline:
                return [urllib.parse.unquote(p) for p in paths]
            time.sleep(0.1)


# --- GDAL -------------------------------------------------------------------------------------


def ogr2ogr(out_path, source, *arguments):
    """ogr2ogr -f GeoJSON out_path source arguments, with GDAL's debug output; returns (features,
    the URLs GDAL fetched)."""
    if os.path.exists(out_path):
        os.remove(out_path)
    command = ["ogr2ogr", "--debug", "ON", "-f", "GeoJSON", out_path, source, *arguments]
    environment = dict(os.environ, GDAL_HTTP_TIMEOUT="60", CPL_CURL_VERBOSE="NO")
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=COMMAND_TIMEOUT, env=environment)
    except subprocess.TimeoutExpired:
        fail(f"{' '.join(command)} did not finish within {COMMAND_TIMEOUT} s")
    if result.returncode != 0 or not os.path.exists(out_path):
        fail(f"{' '.join(command)} exited with status {result.returncode}:\n{result.stderr[-3000:]}")
    fetched = re.findall(r"HTTP: Fetch\((.*)\)", result.stderr)
    with open(out_path, encoding="utf-8") as f:
        document = json.load(f)
    return document["features"], fetched, result.stderr


def check_gdal_esrijson(base, log, work, name, truth):
    client = "GDAL ESRIJSON"
    url = f"{base}/arcgis/rest/services/{name}/FeatureServer/0/query?where=1%3D1&outFields=*&f=json"
    log.mark()
    features, _, _ = ogr2ogr(os.path.join(work, f"esrijson-{name}.geojson"), url)
    paths = log.paths_since_mark(must_contain=f"/services/{name}/")
    queries = [p for p in paths if f"/services/{name}/FeatureServer/0/query" in p]
    compare_features(client, name, features, truth)
    if len(truth) > MAX_RECORD_COUNT:
        paged = [p for p in queries if "resultOffset=" in p]
        expected_pages = math.ceil(len(truth) / MAX_RECORD_COUNT) - 1
        if len(paged) < expected_pages:
            fail(f"[{client}] {name}: expected GDAL to page with resultOffset ({expected_pages} more requests "
                 f"after the first, exceededTransferLimit), the server logged {queries}")
        ok(client, f"{name}: {len(features)} features, properties and geometries equal to the fixture "
                   f"(read in {len(queries)} requests, paged with resultOffset/resultRecordCount)")
    else:
        ok(client, f"{name}: {len(features)} features, properties and geometries equal to the fixture")


def check_gdal_oapif(base, log, work, name, truth):
    client = "GDAL OAPIF"
    log.mark()
    features, fetched, _ = ogr2ogr(os.path.join(work, f"oapif-{name}.geojson"), f"OAPIF:{base}/ogc", name)
    compare_features(client, name, features, truth)
    pages = [u for u in fetched if f"/collections/{name}/items" in u]
    ok(client, f"{name}: {len(features)} features, properties and geometries equal to the fixture "
               f"({len(pages)} item requests)")


def check_gdal_oapif_filters(base, log, work, truths):
    client = "GDAL OAPIF"
    countries, cities = truths["countries"], truths["cities"]

    # The attribute filter: -where. GDAL 3.6 sends it to the server (filter=...&filter-lang=cql-text)
    # when the API definition (/ogc/api, the landing page's service-desc) declares a filter-lang
    # parameter with 'cql-text', which GeoSieve's does: the server must evaluate it.
    want = countries.objectids_where(lambda p, g: p["pop_est"] is not None and p["pop_est"] > 100000000)
    log.mark()
    features, fetched, stderr = ogr2ogr(os.path.join(work, "oapif-countries-where.geojson"),
                                        f"OAPIF:{base}/ogc", "countries", "-where", "pop_est > 100000000")
    paths = log.paths_since_mark(must_contain="/collections/countries/items")
    compare_features(client, "countries -where \"pop_est > 100000000\"", features, countries, want)
    item_requests = [p for p in paths if "/collections/countries/items" in p]
    # The first items request, when opening the layer, reads its fields; every page read after
    # the filter was set must carry it.
    first = next((i for i, p in enumerate(item_requests) if "filter=" in p), None)
    pushed = item_requests[first:] if first is not None else []
    if not pushed or not all("filter=" in p for p in pushed):
        fail(f"[{client}] -where: the filter was not sent to the server with every page: {item_requests}")
    ok(client, f"countries -where \"pop_est > 100000000\": {len(features)} features equal to the fixture's; "
               f"the server evaluated the filter: {pushed[0]}")

    # The spatial filter: -spat, which GDAL sends as bbox=.
    box = (0, 40, 20, 60)
    want = cities.objectids_where(lambda p, g: point_in_box(g, *box))
    log.mark()
    features, fetched, _ = ogr2ogr(os.path.join(work, "oapif-cities-spat.geojson"), f"OAPIF:{base}/ogc", "cities",
                                   "-spat", *map(str, box))
    paths = log.paths_since_mark(must_contain="bbox=")
    compare_features(client, "cities -spat 0 40 20 60", features, cities, want)
    with_bbox = [p for p in paths if "/collections/cities/items" in p and "bbox=" in p]
    if not with_bbox:
        fail(f"[{client}] cities -spat 0 40 20 60: no request with bbox= in the server log; it logged {paths}")
    bbox_value = urllib.parse.parse_qs(urllib.parse.urlsplit(with_bbox[0]).query).get("bbox", [""])[0]
    if [float(v) for v in bbox_value.split(",")] != [float(v) for v in box]:
        fail(f"[{client}] -spat: GDAL sent bbox={bbox_value}, expected {box}")
    ok(client, f"cities -spat 0 40 20 60: {len(features)} features equal to the fixture's points in the box; "
               f"the bbox was sent to the server: {with_bbox[0]} (+{len(with_bbox) - 1} paging requests)")


def check_gdal_esrijson_where(base, log, work, truths):
    client = "GDAL ESRIJSON"
    countries = truths["countries"]
    want = countries.objectids_where(lambda p, g: p["pop_est"] is not None and p["pop_est"] > 100000000)
    url = (f"{base}/arcgis/rest/services/countries/FeatureServer/0/query?"
           f"where=pop_est%3E100000000&outFields=*&f=json")
    log.mark()
    features, _, _ = ogr2ogr(os.path.join(work, "esrijson-countries-where.geojson"), url)
    paths = log.paths_since_mark(must_contain="where=pop_est")
    compare_features(client, "countries where=pop_est>100000000", features, countries, want)
    if not any("where=pop_est>100000000" in p for p in paths):
        fail(f"[{client}] where=pop_est>100000000 not in the requests the server logged: {paths}")
    ok(client, f"countries where=pop_est%3E100000000 (evaluated by the server): {len(features)} features equal "
               f"to the fixture's with pop_est > 1e8")


_gdal_version = None


def gdal_version():
    global _gdal_version
    if _gdal_version is None:
        out = subprocess.run(["ogrinfo", "--version"], capture_output=True, text=True).stdout
        match = re.search(r"GDAL (\S+?),", out)
        _gdal_version = match.group(1) if match else out.strip()
    return _gdal_version


# --- esridump ---------------------------------------------------------------------------------


# EsriDumper asks for geometryPrecision=7 (decimal places) unless told otherwise: the server
# rounds the coordinates it returns to 7 decimals, so they are compared within half a unit of the
# 7th decimal in x and y, that is a distance of sqrt(2)/2 units of it (equals_exact compares the
# distance between vertices), and, for points, checked to be the fixture's rounded to 7 decimals.
ESRIDUMP_PRECISION = 7
ESRIDUMP_TOL = math.sqrt(2) * 0.5 * 10 ** -ESRIDUMP_PRECISION + 1e-12


def check_esridump(base, log, name, truth):
    from esridump.dumper import EsriDumper

    client = "esridump"
    log.mark()
    try:
        features = list(EsriDumper(f"{base}/arcgis/rest/services/{name}/FeatureServer/0", timeout=60))
    except Exception as error:  # esridump raises its own EsriDownloadError and requests' errors
        fail(f"[{client}] {name}: EsriDumper failed: {type(error).__name__}: {error}")
    paths = log.paths_since_mark(must_contain=f"/services/{name}/")
    compare_features(client, name, features, truth, tolerance=ESRIDUMP_TOL)
    for feature in features:
        geometry = feature.get("geometry") or {}
        if geometry.get("type") == "Point":
            want = truth.features[feature["properties"]["OBJECTID"] - 1]["geometry"]["coordinates"]
            rounded = [round(v, ESRIDUMP_PRECISION) for v in want]
            if any(abs(g - r) > 1e-12 for g, r in zip(geometry["coordinates"], rounded)):
                fail(f"[{client}] {name}: OBJECTID {feature['properties']['OBJECTID']}: geometryPrecision=7 gave "
                     f"{geometry['coordinates']}, the fixture's rounded to 7 decimals is {rounded}")
    queries = [p for p in paths if f"/services/{name}/FeatureServer/0/query" in p]
    ok(client, f"{name}: {len(features)} features, properties equal to the fixture, geometries equal within the "
               f"geometryPrecision={ESRIDUMP_PRECISION} esridump asks for ({len(queries)} query requests)")


# --- OWSLib -----------------------------------------------------------------------------------


def check_owslib(base, truths):
    from owslib.ogcapi.features import Features

    client = "OWSLib"
    try:
        w = Features(f"{base}/ogc", timeout=60)
        collections = w.collections()
    except Exception as error:
        fail(f"[{client}] Features({base}/ogc).collections() failed: {type(error).__name__}: {error}")
    ids = [c.get("id") for c in collections.get("collections", [])]
    if sorted(ids) != sorted(COLLECTIONS):
        fail(f"[{client}] collections() lists {ids}, expected {sorted(COLLECTIONS)}")
    feature_ids = w.feature_collections()
    if sorted(feature_ids) != sorted(COLLECTIONS):
        fail(f"[{client}] feature_collections() lists {feature_ids}, expected {sorted(COLLECTIONS)}")
    ok(client, f"collections(): {sorted(ids)}")

    for name, truth in truths.items():
        features, offset, pages = [], 0, 0
        while True:
            page = _owslib_call(client, lambda: w.collection_items(name, limit=50, offset=offset),
                                f"collection_items({name!r}, limit=50, offset={offset})")
            pages += 1
            if page.get("numberMatched") != len(truth):
                fail(f"[{client}] collection_items({name!r}, limit=50, offset={offset}): numberMatched "
                     f"{page.get('numberMatched')!r}, the fixture has {len(truth)}")
            got = page.get("features", [])
            if page.get("numberReturned") is not None and page["numberReturned"] != len(got):
                fail(f"[{client}] collection_items({name!r}, offset={offset}): numberReturned "
                     f"{page['numberReturned']} but {len(got)} features")
            features.extend(got)
            has_next = any(link.get("rel") == "next" for link in page.get("links", []))
            expected_next = offset + len(got) < len(truth)
            if has_next != expected_next:
                fail(f"[{client}] collection_items({name!r}, limit=50, offset={offset}): {len(got)} features, "
                     f"next link {'present' if has_next else 'missing'} with {len(truth)} features in all")
            if not got or not has_next:
                break
            offset += len(got)
            if pages > 100:
                fail(f"[{client}] {name}: more than 100 pages")
        compare_features(client, f"{name} (pages of 50)", features, truth)
        ok(client, f"{name}: {len(features)} features in {pages} pages of limit=50, numberMatched, properties "
                   f"and geometries equal to the fixture")

    cities = truths["cities"]
    box = [0, 40, 20, 60]
    want = cities.objectids_where(lambda p, g: point_in_box(g, *box))
    page = _owslib_call(client, lambda: w.collection_items("cities", bbox=box, limit=1000),
                        "collection_items('cities', bbox=[0, 40, 20, 60], limit=1000)")
    compare_features(client, "cities bbox=0,40,20,60", page.get("features", []), cities, want)
    if page.get("numberMatched") != len(want):
        fail(f"[{client}] cities bbox=0,40,20,60: numberMatched {page.get('numberMatched')!r}, "
             f"the fixture has {len(want)} points in the box")
    ok(client, f"cities bbox=[0, 40, 20, 60]: {len(want)} features and numberMatched equal to the fixture's")

    item = _owslib_call(client, lambda: w.collection_item("cities", "5"), "collection_item('cities', '5')")
    if item.get("type") != "Feature":
        fail(f"[{client}] collection_item('cities', '5'): not a Feature: {json.dumps(item)[:300]}")
    if str(item.get("id")) != "5":
        fail(f"[{client}] collection_item('cities', '5'): id {item.get('id')!r}")
    compare_features(client, "cities item 5", [item], cities, [5])
    ok(client, f"collection_item('cities', '5'): {cities.features[4]['properties'].get('name')!r}, equal to "
               f"fixture feature 5")

    for name, truth in truths.items():
        queryables = _owslib_call(client, lambda: w.collection_queryables(name),
                                  f"collection_queryables({name!r})")
        properties = queryables.get("properties")
        if not isinstance(properties, dict):
            fail(f"[{client}] collection_queryables({name!r}) has no properties object: "
                 f"{json.dumps(queryables)[:300]}")
        missing = [p for p in truth.property_names if p not in properties]
        if missing:
            fail(f"[{client}] collection_queryables({name!r}) lacks {missing}; it has {sorted(properties)}")
        geometry = [k for k, v in properties.items()
                    if isinstance(v, dict) and (str(v.get("format", "")).startswith("geometry")
                                                or "geojson" in str(v.get("$ref", "")).lower())]
        if not geometry:
            fail(f"[{client}] collection_queryables({name!r}) has no geometry entry: {json.dumps(properties)[:400]}")
        ok(client, f"collection_queryables({name!r}): every fixture property ({', '.join(truth.property_names)}) "
                   f"and a geometry ({geometry[0]!r})")

    # A CQL2 filter the server evaluates (what GDAL 3.6 does not send).
    countries = truths["countries"]
    want = countries.objectids_where(lambda p, g: p["pop_est"] is not None and p["pop_est"] > 100000000)
    page = _owslib_call(client, lambda: w.collection_items("countries", filter="pop_est > 100000000",
                                                           **{"filter-lang": "cql2-text"}, limit=100),
                        "collection_items('countries', filter='pop_est > 100000000', filter-lang='cql2-text')")
    compare_features(client, "countries filter=pop_est > 100000000", page.get("features", []), countries, want)
    if page.get("numberMatched") != len(want):
        fail(f"[{client}] countries filter=pop_est > 100000000: numberMatched {page.get('numberMatched')!r}, "
             f"expected {len(want)}")
    ok(client, f"countries filter='pop_est > 100000000' filter-lang=cql2-text (evaluated by the server): "
               f"{len(want)} features equal to the fixture's")


def _owslib_call(client, call, description):
    try:
        return call()
    except Exception as error:
        fail(f"[{client}] {description} failed: {type(error).__name__}: {error}")


# --- Main -------------------------------------------------------------------------------------


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    base, log_path, work = argv[1].rstrip("/"), argv[2], argv[3]
    os.makedirs(work, exist_ok=True)
    log = RequestLog(log_path)
    truths = {name: Truth(name, os.path.join(FIXTURES, file)) for name, file in COLLECTIONS.items()}
    started = time.monotonic()
    try:
        for name, truth in truths.items():
            check_gdal_esrijson(base, log, work, name, truth)
        check_gdal_esrijson_where(base, log, work, truths)
        for name, truth in truths.items():
            check_gdal_oapif(base, log, work, name, truth)
        check_gdal_oapif_filters(base, log, work, truths)
        for name, truth in truths.items():
            check_esridump(base, log, name, truth)
        check_owslib(base, truths)
    except CheckFailure as failure:
        print(f"FAIL {failure}", file=sys.stderr, flush=True)
        print(f"clients: {passed} passed, 1 failed", flush=True)
        return 1
    print(f"clients: {passed} passed, 0 failed ({time.monotonic() - started:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

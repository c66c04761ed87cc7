#!/usr/bin/python3
"""QGIS (Debian's python3-qgis, headless) and GDAL read `geosieve serve` as a desktop GIS does.

Usage: /usr/bin/python3 qgis_test.py BASE_11_1 BASE_11_2 WORK_DIR [BASE_CONFIGURED]

Both servers serve the 25-field layer of Benchmarks/serve_wide_data.py as 'wide' (a 64-bit
osm_id above 2^40, a date-only survey_date) and naturalearth_lowres.geojson as 'countries'; the
first claims ArcGIS 11.1 (the default), the second runs with --arcgis-version 11.2, as
Scripts/test-qgis.sh starts them. Checked:

- ArcGIS feature service, claiming 11.1: QGIS's arcgisfeatureserver provider lists every field,
  osm_id as a double and survey_date as a date, reads every feature, and its osm_id values equal
  the JSON answer's; claiming 11.2, QGIS 3.22 drops osm_id (the reason 11.1 is the default);
- GDAL's ESRIJSON driver reads osm_id as Real when the server claims 11.1;
- OGC API - Features: QGIS's OAPIF provider reads every feature of the wide layer;
- vector tiles: QGIS's vector tile layer over /ogc/collections/countries/tiles renders the
  countries (a screenshot, WORK_DIR/qgis-tiles.png, most of whose land pixels are drawn), and so
  does its ArcGIS vector tile service layer over .../countries/VectorTileServer, which reads the
  service document, its levels and its default style (WORK_DIR/qgis-vectortileserver.png);
- a configured service layer (BASE_CONFIGURED, the server of Scripts/test-qgis.sh's
  configuration: countries with a definition expression, a scale range, a renderer of its own
  and transparency): QGIS's arcgisfeatureserver provider reads only the features inside the
  definition and draws with the layer's renderer. QGIS 3.22's provider reads no layer scale range
  or transparency from a layer document (its source reads scales of labels only): what it reads
  of them is printed, not checked.

Prints PASS/FAIL lines; exits 1 on a failure.
"""

import json
import os
import subprocess
import sys
import urllib.parse
import urllib.request

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if "XDG_RUNTIME_DIR" not in os.environ:
    import tempfile

    os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="qgis-runtime-")

from qgis.core import (  # noqa: E402
    Qgis,
    QgsApplication,
    QgsCoordinateReferenceSystem,
    QgsDataSourceUri,
    QgsMapRendererSequentialJob,
    QgsMapSettings,
    QgsRectangle,
    QgsVectorLayer,
    QgsVectorTileLayer,
)
from qgis.PyQt.QtCore import QSize, QVariant  # noqa: E402
from qgis.PyQt.QtGui import QColor  # noqa: E402

failures = []


def check(ok, what):
    print(("PASS" if ok else "FAIL") + " [qgis] " + what, flush=True)
    if not ok:
        failures.append(what)


def get_json(url):
    with urllib.request.urlopen(url, timeout=60) as reply:
        return json.load(reply)


def arcgis_layer(base, service="wide", name="wide"):
    uri = QgsDataSourceUri()
    uri.setParam("url", f"{base}/arcgis/rest/services/{service}/FeatureServer/0")
    uri.setParam("crs", "EPSG:4326")
    return QgsVectorLayer(uri.uri(False), name, "arcgisfeatureserver")


def check_arcgis(base_11_1, base_11_2):
    layer = arcgis_layer(base_11_1)
    check(layer.isValid(), "arcgisfeatureserver opens the wide layer of a server claiming 11.1")
    fields = {f.name(): f.type() for f in layer.fields()}
    document = get_json(f"{base_11_1}/arcgis/rest/services/wide/FeatureServer/0?f=json")
    names = [f["name"] for f in document["fields"]]
    check(set(names) <= set(fields), f"QGIS lists every field of the layer document ({len(names)}): missing {sorted(set(names) - set(fields))}")
    check(fields.get("osm_id") == QVariant.Double, f"osm_id is a double in QGIS (type {fields.get('osm_id')})")
    check(fields.get("survey_date") in (QVariant.Date, QVariant.DateTime), f"survey_date is a date in QGIS (type {fields.get('survey_date')})")
    count = get_json(f"{base_11_1}/arcgis/rest/services/wide/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json")["count"]
    read = list(layer.getFeatures())
    check(len(read) == count, f"QGIS reads all {count} features ({len(read)})")
    oid_name = document["objectIdField"]
    answer = get_json(
        f"{base_11_1}/arcgis/rest/services/wide/FeatureServer/0/query?"
        + urllib.parse.urlencode({"where": "1=1", "outFields": f"{oid_name},osm_id", "f": "json", "resultRecordCount": 2000}))
    expected = {f["attributes"][oid_name]: f["attributes"]["osm_id"] for f in answer["features"]}
    got = {f[oid_name]: f["osm_id"] for f in read}
    same = sum(1 for oid, value in expected.items() if oid in got and got[oid] == float(value))
    check(same == len(expected) and len(expected) > 0, f"QGIS's osm_id values equal the JSON answer's ({same} of {len(expected)})")

    layer = arcgis_layer(base_11_2)
    check(layer.isValid(), "arcgisfeatureserver opens the wide layer of a server claiming 11.2")
    fields = {f.name(): f.type() for f in layer.fields()}
    check("osm_id" not in fields, "QGIS 3.22 drops the esriFieldTypeBigInteger osm_id when the server claims 11.2 (why 11.1 is the default)")


def check_gdal(base_11_1):
    url = f"{base_11_1}/arcgis/rest/services/wide/FeatureServer/0/query?where=1%3D1&outFields=*&resultRecordCount=10&f=json"
    out = subprocess.run(["ogrinfo", "-so", "-ro", "ESRIJSON:" + url, "ESRIJSON"], capture_output=True, text=True, timeout=120)
    line = next((l for l in out.stdout.splitlines() if l.startswith("osm_id:")), "")
    check(line.startswith("osm_id: Real"), f"GDAL's ESRIJSON driver reads osm_id as Real from a server claiming 11.1 ({line or out.stderr.strip()})")


def check_oapif(base):
    uri = QgsDataSourceUri()
    uri.setParam("url", f"{base}/ogc")
    uri.setParam("typename", "wide")
    layer = QgsVectorLayer(uri.uri(False), "wide-oapif", "OAPIF")
    check(layer.isValid(), "OAPIF opens the wide collection")
    count = sum(1 for _ in layer.getFeatures())
    check(count == 2000, f"OAPIF reads all 2000 features of the wide collection ({count})")


def check_tiles(base, work):
    template = f"{base}/ogc/collections/countries/tiles/WebMercatorQuad/{{z}}/{{y}}/{{x}}"
    layer = QgsVectorTileLayer(f"type=xyz&url={urllib.parse.quote(template, safe=':/{}')}&zmin=0&zmax=14", "countries-tiles")
    check(layer.isValid(), "QGIS opens the countries' vector tiles")
    check_rendered(layer, work, "qgis-tiles.png", "the vector tiles")
    service = f"{base}/arcgis/rest/services/countries/VectorTileServer"
    arcgis = QgsVectorTileLayer(f"type=xyz&serviceType=arcgis&url={urllib.parse.quote(service, safe=':/')}", "countries-vectortileserver")
    check(arcgis.isValid(), "QGIS opens the countries' ArcGIS VectorTileServer")
    check(arcgis.sourceMaxZoom() == 22, f"QGIS reads the levels of the VectorTileServer (0-{arcgis.sourceMaxZoom()})")
    # The style the service names (defaultStyles), as QGIS's browser loads it.
    message, loaded = arcgis.loadDefaultStyle()
    check(loaded, f"QGIS loads the VectorTileServer's default style ({message or 'no message'})")
    check_rendered(arcgis, work, "qgis-vectortileserver.png", "the ArcGIS VectorTileServer and its style")


def check_rendered(layer, work, name, what):
    settings = QgsMapSettings()
    settings.setLayers([layer])
    settings.setDestinationCrs(QgsCoordinateReferenceSystem("EPSG:3857"))
    settings.setExtent(QgsRectangle(-20037508.34, -15000000, 20037508.34, 18000000))
    settings.setOutputSize(QSize(512, 420))
    settings.setBackgroundColor(QColor(255, 255, 255))
    job = QgsMapRendererSequentialJob(settings)
    job.start()
    job.waitForFinished()
    image = job.renderedImage()
    path = os.path.join(work, name)
    image.save(path)
    drawn = 0
    for y in range(0, image.height(), 2):
        for x in range(0, image.width(), 2):
            if image.pixelColor(x, y) != QColor(255, 255, 255):
                drawn += 1
    share = drawn / ((image.width() // 2) * (image.height() // 2))
    # Land is about 29 % of the globe and more of a Mercator map north of -70°: well over 10 %
    # of the pixels are countries when QGIS drew them.
    check(share > 0.10, f"QGIS renders the countries from {what} ({share:.0%} of the pixels drawn; {path})")


def check_configured(base):
    layer = arcgis_layer(base, "world", "countries")
    check(layer.isValid(), "arcgisfeatureserver opens the configured countries layer")
    document = get_json(f"{base}/arcgis/rest/services/world/FeatureServer/0?f=json")
    inside = get_json(f"{base}/arcgis/rest/services/world/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json")["count"]
    read = list(layer.getFeatures())
    check(len(read) == inside and all(f["pop_est"] > 10_000_000 for f in read),
          f"QGIS reads only the {inside} features inside the definition {document['definitionExpression']!r} ({len(read)})")
    renderer = layer.renderer()
    symbol = renderer.symbol() if renderer is not None and hasattr(renderer, "symbol") else None
    color = symbol.color() if symbol is not None else None
    want = document["drawingInfo"]["renderer"]["symbol"]["color"]
    check(color is not None and [color.red(), color.green(), color.blue()] == want[:3],
          f"QGIS draws with the layer's renderer (fill {[color.red(), color.green(), color.blue()] if color else None}, the layer's {want[:3]})")
    print(f"INFO [qgis] the layer says minScale {document['minScale']}, maxScale {document['maxScale']}, transparency "
          f"{document['drawingInfo']['transparency']}; QGIS {Qgis.version()} reads scale-based visibility "
          f"{layer.hasScaleBasedVisibility()}, opacity {layer.opacity()}", flush=True)


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    base_11_1, base_11_2, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    app = QgsApplication([], False)
    app.initQgis()
    print(f"QGIS {Qgis.version()}", flush=True)
    check_arcgis(base_11_1, base_11_2)
    check_gdal(base_11_1)
    check_oapif(base_11_1)
    check_tiles(base_11_1, work)
    if len(sys.argv) == 5:
        check_configured(sys.argv[4])
    app.exitQgis()
    if failures:
        print(f"{len(failures)} QGIS checks failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Checks the answers of the server load benchmark (Benchmarks/run_serve.sh) before it is timed.

    python3 Benchmarks/serve_check.py DATA --geosieve URL [--pygeoapi URL] [--samples 200]
                                      [--category c3] [--limit 10]

For the first --samples boxes of DATA/boxes.txt it counts, straight from DATA/points.gpkg (its
R-tree for candidates, then the exact point-in-box test on the decoded coordinates, edges
included), the points in the box and those of them in --category; then asks

  GeoSieve's ArcGIS query   where category = '…' AND the box (envelope, intersects), outFields=*
  GeoSieve's OGC items      bbox=…&limit=…
  pygeoapi's items          bbox=…&limit=…   (when --pygeoapi is given)

exactly as the load runs do, and checks: the ArcGIS query returns every matching point (and no
exceededTransferLimit); OGC items return min(limit, points in the box) features, and GeoSieve's
numberMatched is the count. Prints one JSON line (workload serve.check) with the mean feature
counts and response sizes; exits 1 when any answer is wrong.
"""
import argparse
import json
import sqlite3
import struct
import sys
import urllib.request


def arcgis_path(box, category):
    where = f"category%20%3D%20%27{category}%27"
    geometry = "%2C".join(box.split(","))
    return ("/arcgis/rest/services/points/FeatureServer/0/query?where=" + where + "&geometry=" + geometry
            + "&geometryType=esriGeometryEnvelope&inSR=4326&spatialRel=esriSpatialRelIntersects&outFields=*&f=json")


def ogc_path(prefix, box, limit):
    return f"{prefix}/collections/points/items?bbox={box}&limit={limit}&f=json"


def fetch(url):
    with urllib.request.urlopen(url, timeout=60) as response:
        body = response.read()
    return json.loads(body), len(body)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("--geosieve", required=True, help="http://HOST:PORT of geosieve serve")
    parser.add_argument("--pygeoapi", help="http://HOST:PORT of pygeoapi")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--category", default="c3")
    parser.add_argument("--limit", type=int, default=10)
    args = parser.parse_args()

    boxes = [line.strip() for line in open(f"{args.data}/boxes.txt") if line.strip()][: args.samples]
    db = sqlite3.connect(f"file:{args.data}/points.gpkg?mode=ro", uri=True)
    point = struct.Struct("<dd")
    sums = {"in_box": 0, "in_box_category": 0, "arcgis_features": 0, "arcgis_bytes": 0,
            "ogc_features": 0, "ogc_bytes": 0, "pygeoapi_features": 0, "pygeoapi_bytes": 0}
    max_arcgis = 0
    wrong = []
    for box in boxes:
        xmin, ymin, xmax, ymax = (float(v) for v in box.split(","))
        rows = db.execute(
            "SELECT p.geom, p.category FROM points p JOIN rtree_points_geom r ON p.fid = r.id "
            "WHERE r.maxx >= ? AND r.minx <= ? AND r.maxy >= ? AND r.miny <= ?", (xmin, xmax, ymin, ymax))
        in_box = in_category = 0
        for geom, category in rows:
            x, y = point.unpack_from(geom, 8 + 5)  # GeoPackage header without envelope, then WKB
            if xmin <= x <= xmax and ymin <= y <= ymax:
                in_box += 1
                in_category += category == args.category
        sums["in_box"] += in_box
        sums["in_box_category"] += in_category

        answer, size = fetch(args.geosieve + arcgis_path(box, args.category))
        got = len(answer.get("features", []))
        sums["arcgis_features"] += got
        sums["arcgis_bytes"] += size
        max_arcgis = max(max_arcgis, got)
        if got != in_category or answer.get("exceededTransferLimit"):
            wrong.append(f"ArcGIS {box}: {got} features (exceededTransferLimit {answer.get('exceededTransferLimit')}), "
                         f"{in_category} expected")

        expected = min(args.limit, in_box)
        answer, size = fetch(args.geosieve + ogc_path("/ogc", box, args.limit))
        got = len(answer.get("features", []))
        sums["ogc_features"] += got
        sums["ogc_bytes"] += size
        if got != expected or answer.get("numberMatched") != in_box:
            wrong.append(f"GeoSieve OGC {box}: {got} features, numberMatched {answer.get('numberMatched')}; "
                         f"{expected} and {in_box} expected")

        if args.pygeoapi:
            answer, size = fetch(args.pygeoapi + ogc_path("", box, args.limit))
            got = len(answer.get("features", []))
            sums["pygeoapi_features"] += got
            sums["pygeoapi_bytes"] += size
            if got != expected:
                wrong.append(f"pygeoapi {box}: {got} features, {expected} expected")

    n = len(boxes)
    line = {"workload": "serve.check", "engine": "geosieve", "samples": n, "category": args.category,
            "limit": args.limit, "wrong": len(wrong), "max_arcgis_features": max_arcgis}
    for key, total in sums.items():
        if key.startswith("pygeoapi") and not args.pygeoapi:
            continue
        line["mean_" + key] = round(total / n, 2)
    print(json.dumps(line, separators=(",", ":")))
    if wrong:
        print(f"serve_check.py: {len(wrong)} wrong answers:", *wrong[:20], sep="\n  ", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

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

    python3 Benchmarks/serve_check.py DATA --wide --geosieve URL [--samples 200]

checks the 25-field table instead (DATA/wide.gpkg, served as `wide`): for the first --samples
boxes of DATA/wide_boxes.txt and of DATA/wide_empty.txt, `query?where=1=1` AND the box with
outFields=* returns every point in the box (none for the empty boxes), each with all 25 fields
and the file's values; prints one JSON line (workload serve.check_wide).
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


def check_wide(args):
    """The --wide check (see the module's description)."""
    db = sqlite3.connect(f"file:{args.data}/wide.gpkg?mode=ro", uri=True)
    columns = [row[1] for row in db.execute("PRAGMA table_info(wide)") if row[1] != "geom"]
    point = struct.Struct("<dd")
    wrong = []
    sums = {"box_features": 0, "box_bytes": 0, "empty_bytes": 0}
    counts = {}
    for kind in ("wide_boxes", "wide_empty"):
        boxes = [line.strip() for line in open(f"{args.data}/{kind}.txt") if line.strip()][: args.samples]
        counts[kind] = len(boxes)
        for box in boxes:
            xmin, ymin, xmax, ymax = (float(v) for v in box.split(","))
            rows = db.execute(
                f"SELECT p.geom, {', '.join('p.' + c for c in columns)} FROM wide p JOIN rtree_wide_geom r ON p.fid = r.id "
                "WHERE r.maxx >= ? AND r.minx <= ? AND r.maxy >= ? AND r.miny <= ?", (xmin, xmax, ymin, ymax))
            expected = {}
            for geom, *values in rows:
                x, y = point.unpack_from(geom, 8 + 5)
                if xmin <= x <= xmax and ymin <= y <= ymax:
                    expected[values[0]] = dict(zip(columns, values))
            geometry = "%2C".join(box.split(","))
            answer, size = fetch(args.geosieve + "/arcgis/rest/services/wide/FeatureServer/0/query?where=1%3D1&geometry=" + geometry
                                 + "&geometryType=esriGeometryEnvelope&inSR=4326&spatialRel=esriSpatialRelIntersects&outFields=*&f=json")
            features = answer.get("features", [])
            if kind == "wide_boxes":
                sums["box_features"] += len(features)
                sums["box_bytes"] += size
            else:
                sums["empty_bytes"] += size
            if len(answer.get("fields", [])) != len(columns):
                wrong.append(f"{kind} {box}: {len(answer.get('fields', []))} fields, {len(columns)} expected")
            got = {f["attributes"]["fid"]: f["attributes"] for f in features}
            if sorted(got) != sorted(expected):
                wrong.append(f"{kind} {box}: fids {sorted(got)}, {sorted(expected)} expected")
                continue
            for fid, attributes in got.items():
                for column in columns:
                    value, truth = attributes.get(column), expected[fid][column]
                    if isinstance(truth, str) and isinstance(value, int):
                        continue  # dates come as epoch milliseconds; their text is the file's
                    if value != truth:
                        wrong.append(f"{kind} {box}: fid {fid} {column} = {value!r}, {truth!r} expected")
    n = counts["wide_boxes"]
    line = {"workload": "serve.check_wide", "engine": "geosieve", "samples": n, "empty_samples": counts["wide_empty"],
            "fields": len(columns), "wrong": len(wrong), "mean_box_features": round(sums["box_features"] / n, 2),
            "mean_box_bytes": round(sums["box_bytes"] / n), "mean_empty_bytes": round(sums["empty_bytes"] / max(1, counts["wide_empty"]))}
    print(json.dumps(line, separators=(",", ":")))
    if wrong:
        print(f"serve_check.py: {len(wrong)} wrong answers:", *wrong[:20], sep="\n  ", file=sys.stderr)
        sys.exit(1)


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
    parser.add_argument("--wide", action="store_true", help="check the 25-field table (DATA/wide.gpkg) instead")
    args = parser.parse_args()
    if args.wide:
        check_wide(args)
        return

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

"""Writes the spatial-query oracle the SieveFeatures tests compare against.

GEOS through another binding (Shapely 2) answers, for every dataset, query geometry and
relationship, which features satisfy "feature REL query geometry" — the feature-first reading
GeoSieve's `QueryParameters.spatialRelationship` uses (`within`: the feature lies within the
query geometry; `relate`: the DE-9IM pattern of feature against query geometry). Every feature
is tested; no index, no envelope shortcut. `envelopeIntersects` compares the bounds (touching
counts).

Run from `Tests/Fixtures` with `python3 oracle/make_spatial_query_oracle.py` (needs `pip
install shapely`); it rewrites `oracle/spatial_query_oracle.json`. The tests never run Python.
"""

import json
import pathlib

from shapely import wkt as shapely_wkt
from shapely.geometry import box, shape

HERE = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = HERE.parent.parent / "Examples"

DATASETS = ["naturalearth_lowres.geojson", "naturalearth_cities.geojson", "nybb.geojson"]

# name -> (text as GeoSieve reads it, datasets it is run against)
QUERIES = {
    "europe": ("POLYGON ((-12 35, 30 35, 40 50, 30 72, -12 72, -25 60, -12 35))", DATASETS[:2]),
    "envelope": ("-20,-10,40,20", DATASETS[:2]),
    "africa_line": ("LINESTRING (-17 14, 10 5, 25 -5, 40 -20, 51 -25)", DATASETS[:2]),
    "paris_point": ("POINT (2.35 46.85)", DATASETS[:2]),
    "south_africa": ((EXAMPLES / "south-africa.geojson").read_text(), DATASETS[:2]),
    "lesotho": ((EXAMPLES / "lesotho.geojson").read_text(), DATASETS[:2]),
    "manhattan_box": ("-74.02,40.70,-73.93,40.80", DATASETS[2:]),
    "nyc_line": ("LINESTRING (-74.2 40.55, -73.95 40.75, -73.75 40.85)", DATASETS[2:]),
}

RELATIONSHIPS = ["intersects", "contains", "within", "touches", "crosses", "overlaps", "equals", "disjoint",
                 "envelopeIntersects"]
PATTERNS = ["T*****FF*", "T*F**F***", "FF*FF****", "****T****", "2********", "F***T****", "1*T***T**"]


def query_geometry(text):
    text = text.strip()
    if text.startswith("{"):
        return shape(json.loads(text))
    if text[0] in "-0123456789":
        numbers = [float(v) for v in text.split(",")]
        return box(*numbers)
    return shapely_wkt.loads(text)


def envelopes_meet(a, b):
    ax0, ay0, ax1, ay1 = a.bounds
    bx0, by0, bx1, by1 = b.bounds
    return ax0 <= bx1 and bx0 <= ax1 and ay0 <= by1 and by0 <= ay1


def answer(features, q, relationship):
    ids = []
    for oid, f in features:
        if f is None or f.is_empty:
            continue
        if relationship == "envelopeIntersects":
            hit = envelopes_meet(f, q)
        elif relationship.startswith("relate:"):
            hit = f.relate_pattern(q, relationship[len("relate:"):])
        else:
            hit = getattr(f, relationship)(q)
        if hit:
            ids.append(oid)
    return sorted(ids)


def main():
    tables = {}
    for name in DATASETS:
        data = json.loads((HERE / name).read_text())
        tables[name] = [(feature["id"], shape(feature["geometry"]) if feature["geometry"] else None)
                        for feature in data["features"]]
    cases = []
    for query_name, (text, datasets) in QUERIES.items():
        q = query_geometry(text)
        for dataset in datasets:
            for relationship in RELATIONSHIPS + ["relate:" + p for p in PATTERNS]:
                cases.append({"query": query_name, "dataset": dataset, "relationship": relationship,
                              "objectIds": answer(tables[dataset], q, relationship)})
    out = {"queries": {name: text for name, (text, _) in QUERIES.items()}, "cases": cases}
    (HERE / "oracle" / "spatial_query_oracle.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()

"""Writes the relationship oracle the SieveGEOS tests compare against.

GEOS through another binding (Shapely 2) computes, for every ordered pair of geometries:
the DE-9IM matrix and the named predicates. Inputs:

* `relate_fixtures.wkt`: the synthetic all-pairs set (every ordered pair);
* the real datasets in this folder: every pair of countries whose envelopes intersect, every
  city against every country whose envelope contains it, and every pair of NYC boroughs.

Run from `Tests/Fixtures` with `python3 oracle/make_relate_oracle.py` (needs `pip install
shapely`); it rewrites `relate_oracle.json`. The tests never run Python.
"""

import json
import pathlib

import shapely
from shapely import wkt as shapely_wkt
from shapely.geometry import shape

HERE = pathlib.Path(__file__).resolve().parent.parent
PREDICATES = ["intersects", "contains", "within", "touches", "crosses", "overlaps", "equals", "disjoint",
              "covers", "covered_by"]


def relation(a, b):
    row = {"relate": a.relate(b)}
    for name in PREDICATES:
        row[name] = bool(getattr(a, name)(b))
    return row


def synthetic():
    fixtures = []
    for line in (HERE / "relate_fixtures.wkt").read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        name, text = line.split("\t")
        fixtures.append((name, shapely_wkt.loads(text)))
    rows = []
    for name_a, a in fixtures:
        for name_b, b in fixtures:
            row = {"a": name_a, "b": name_b}
            row.update(relation(a, b))
            rows.append(row)
    return rows


def load(name):
    data = json.loads((HERE / name).read_text())
    return [(f["properties"]["fid"], shape(f["geometry"])) for f in data["features"]]


def real():
    countries = load("naturalearth_lowres.geojson")
    cities = load("naturalearth_cities.geojson")
    boroughs = load("nybb.geojson")
    rows = []
    for fa, a in countries:
        for fb, b in countries:
            ax0, ay0, ax1, ay1 = a.bounds
            bx0, by0, bx1, by1 = b.bounds
            if ax0 <= bx1 and bx0 <= ax1 and ay0 <= by1 and by0 <= ay1:
                row = {"a": f"country:{fa}", "b": f"country:{fb}"}
                row.update(relation(a, b))
                rows.append(row)
    for fc, c in cities:
        for fk, k in countries:
            x0, y0, x1, y1 = k.bounds
            if x0 <= c.x <= x1 and y0 <= c.y <= y1:
                row = {"a": f"city:{fc}", "b": f"country:{fk}"}
                row.update(relation(c, k))
                rows.append(row)
    for fa, a in boroughs:
        for fb, b in boroughs:
            row = {"a": f"borough:{fa}", "b": f"borough:{fb}"}
            row.update(relation(a, b))
            rows.append(row)
    return rows


def main():
    oracle = {
        "generator": f"shapely {shapely.__version__}, GEOS {shapely.geos_version_string}",
        "synthetic": synthetic(),
        "real": real(),
    }
    text = json.dumps(oracle, separators=(",", ":"))
    # One pair per line keeps diffs readable.
    text = text.replace('},{"a"', '},\n{"a"')
    (HERE / "relate_oracle.json").write_text(text + "\n")


if __name__ == "__main__":
    main()

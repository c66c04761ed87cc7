"""Writes the oracle for collections with point members and for degenerate shapes.

The DE-9IM matrices here are not GEOS's: they are computed exactly, by brute force, over the
arrangement of the two geometries, in rational arithmetic (Python's `fractions`). Every vertex,
isolated point and crossing of segments is a 0-cell, every piece of a segment between them a
1-cell, and the faces are sampled just beside each piece; each cell is located in both geometries
(interior, boundary or exterior), and a matrix entry is the largest dimension of a cell located in
that pair of parts. Locations follow the OGC reading of collections (as GEOS 3.13's RelateNG): an
area's location first, then a line's (its boundary the ends of its paths by the mod-2 rule, over
all lines of the geometry), then a point's. Zero-length paths are their points, and rings that
retrace themselves (no area anywhere) their segments, as GeoSieve defines them.

Inputs are random and small, on the integer grid 0..4: collections of points, lines and polygons
(the lines and polygons of one collection apart from each other, the points anywhere, often on
them), against collections or plain geometries (points, multipoints, lines, multilines with parts
of zero length, polygons); and polygons traced out and back (spurs) against plain geometries.
Shapely (GEOS 3.14) is used only to parse WKT, and its own matrix is recorded beside the exact one
for comparison (`shapely`): GEOS 3.14.1 differs on some of these pairs. `restRelate` is the exact
matrix of the two geometries without their points (their lines and areas), which the tests
compare with what GEOS computes for them.

Run from `Tests/Fixtures` with `python3 oracle/make_point_member_oracle.py` (needs `pip install
shapely`); it rewrites `oracle/point_member_oracle.json`. The tests never run Python.
"""

import json
import pathlib
import random

from fractions import Fraction as F
from collections import Counter
import shapely
from shapely import wkt as swkt

def parse(text):
    """-> dict(points=[...], lines=[[...]], polys=[[ring, hole...]]) with Fraction coordinates.
    Zero-length paths become points; rings that reduce to nothing (zero area everywhere) become lines."""
    g = swkt.loads(text)
    out = {"points": [], "lines": [], "polys": []}
    def P(c): return (F(c[0]), F(c[1]))
    def walk(h, top):
        if h.is_empty: return
        t = h.geom_type
        if t == "Point": out["points"].append(P(h.coords[0]))
        elif t == "LineString":
            cs = [P(c) for c in h.coords]
            if len(set(cs)) == 1: out["points"].append(cs[0])
            else: out["lines"].append(cs)
        elif t == "Polygon":
            rings = [[P(c) for c in h.exterior.coords]] + [[P(c) for c in r.coords] for r in h.interiors]
            if len(set(rings[0])) == 1: out["points"].append(rings[0][0]); return
            if reducible(rings[0]): out["lines"].append(rings[0]); return
            out["polys"].append(rings)
        else:
            for m in h.geoms: walk(m, False)
    walk(g, True)
    out["kind"] = g.geom_type
    return out

def orient(a, b, c):
    d = (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0])
    return (d > 0) - (d < 0)

def reducible(ring):
    v = ring[:-1]
    changed = True
    while len(v) > 1 and changed:
        changed = False
        n = len(v)
        for i in range(n):
            a, b, c = v[i-1], v[i], v[(i+1) % n]
            if orient(a, b, c) == 0:
                del v[i]; changed = True; break
    return len(v) <= 1

def on_segment(p, a, b):
    if orient(a, b, p) != 0: return False
    return min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])

def in_ring(p, ring):
    """parity: strictly inside (p not on ring)."""
    inside = False
    for i in range(len(ring) - 1):
        a, b = ring[i], ring[i+1]
        if (a[1] > p[1]) != (b[1] > p[1]):
            x = a[0] + (p[1]-a[1]) * (b[0]-a[0]) / (b[1]-a[1])
            if x > p[0]: inside = not inside
    return inside

def segments(g):
    segs = []
    for path in g["lines"]:
        segs += [(path[i], path[i+1]) for i in range(len(path)-1) if path[i] != path[i+1]]
    for poly in g["polys"]:
        for ring in poly:
            segs += [(ring[i], ring[i+1]) for i in range(len(ring)-1) if ring[i] != ring[i+1]]
    return segs

def line_boundary(g):
    cnt = Counter()
    for path in g["lines"]:
        cnt[path[0]] += 1; cnt[path[-1]] += 1
    return {p for p, n in cnt.items() if n % 2 == 1}

def loc(g, p, bnd):
    best = None
    for poly in g["polys"]:
        if any(on_segment(p, r[i], r[i+1]) for r in poly for i in range(len(r)-1)): best = best or "B"; continue
        if in_ring(p, poly[0]) and not any(in_ring(p, h) for h in poly[1:]): return "I"
    if best: return best
    for path in g["lines"]:
        if any(on_segment(p, path[i], path[i+1]) for i in range(len(path)-1)):
            return "B" if p in bnd else "I"
    if p in g["points"]: return "I"
    return "E"

def intersection(s, t):
    (a, b), (c, d) = s, t
    r = (b[0]-a[0], b[1]-a[1]); q = (d[0]-c[0], d[1]-c[1])
    den = r[0]*q[1] - r[1]*q[0]
    if den == 0: return []
    tt = ((c[0]-a[0])*q[1] - (c[1]-a[1])*q[0]) / den
    uu = ((c[0]-a[0])*r[1] - (c[1]-a[1])*r[0]) / den
    if 0 <= tt <= 1 and 0 <= uu <= 1: return [(a[0]+tt*r[0], a[1]+tt*r[1])]
    return []

def relate(ta, tb):
    A, B = parse(ta), parse(tb)
    ba, bb = line_boundary(A), line_boundary(B)
    segs = segments(A) + segments(B)
    special = set(A["points"]) | set(B["points"])
    for s in segs: special |= {s[0], s[1]}
    for i in range(len(segs)):
        for j in range(i+1, len(segs)):
            special |= set(intersection(segs[i], segs[j]))
    M = {}
    def mark(p, dim):
        key = (loc(A, p, ba), loc(B, p, bb))
        if key[0] == "E" and key[1] == "E": return
        M[key] = max(M.get(key, -1), dim)
    for p in special: mark(p, 0)
    eps = F(1, 10**12)
    for (a, b) in segs:
        pts = sorted([p for p in special if on_segment(p, a, b)], key=lambda p: (p[0]-a[0])*(b[0]-a[0]) + (p[1]-a[1])*(b[1]-a[1]))
        for k in range(len(pts)-1):
            u, v = pts[k], pts[k+1]
            if u == v: continue
            m = ((u[0]+v[0])/2, (u[1]+v[1])/2)
            mark(m, 1)
            nx, ny = -(v[1]-u[1]), (v[0]-u[0])
            mark((m[0]+eps*nx, m[1]+eps*ny), 2)
            mark((m[0]-eps*nx, m[1]-eps*ny), 2)
    out = ""
    for la in "IBE":
        for lb in "IBE":
            if la == "E" and lb == "E": out += "2"; continue
            d = M.get((la, lb), -1)
            out += "F" if d < 0 else str(d)
    return out



R = random.Random(20261123)


def c():
    return R.randint(0, 4)


def pt():
    return (c(), c())


def fmt(p):
    return f"{p[0]} {p[1]}"


def line():
    return "LINESTRING (" + ", ".join(fmt(pt()) for _ in range(R.randint(2, 4))) + ")"


def poly():
    if R.random() < 0.5:
        x, y = c(), c()
        w, h = R.randint(1, 3), R.randint(1, 3)
        return f"POLYGON (({x} {y}, {x + w} {y}, {x + w} {y + h}, {x} {y + h}, {x} {y}))"
    while True:
        a, b, d = pt(), pt(), pt()
        if (b[0] - a[0]) * (d[1] - a[1]) - (b[1] - a[1]) * (d[0] - a[0]) != 0:
            return f"POLYGON (({fmt(a)}, {fmt(b)}, {fmt(d)}, {fmt(a)}))"


def spur():
    """A ring traced out and back along a random walk of axis-parallel or diagonal steps."""
    start = pt()
    walk = [start]
    for _ in range(R.randint(2, 4)):
        dx, dy = R.choice([(1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1)])
        k = R.randint(1, 2)
        walk.append((walk[-1][0] + k * dx, walk[-1][1] + k * dy))
    ring = walk + walk[-2::-1]
    return "POLYGON ((" + ", ".join(fmt(p) for p in ring) + "))"


def point():
    return f"POINT ({fmt(pt())})"


def collection():
    members, shapes = [], []
    for _ in range(R.randint(1, 3)):
        candidate = line() if R.random() < 0.6 else poly()
        g = swkt.loads(candidate)
        if g.length == 0 or any(g.intersects(s) for s in shapes):
            continue
        shapes.append(g)
        members.append(candidate)
    for _ in range(R.randint(1, 3)):
        members.append(point())
    R.shuffle(members)
    return "GEOMETRYCOLLECTION (" + ", ".join(members) + ")"


def plain():
    k = R.randint(0, 4)
    if k == 0:
        return point()
    if k == 1:
        return "MULTIPOINT (" + ", ".join(f"({fmt(pt())})" for _ in range(R.randint(1, 3))) + ")"
    if k == 2:
        return line()
    if k == 3:
        parts = []
        for _ in range(R.randint(1, 3)):
            if R.random() < 0.35:
                p = pt()
                parts.append(f"({fmt(p)}, {fmt(p)})")
            else:
                parts.append(line()[len("LINESTRING "):])
        return "MULTILINESTRING (" + ", ".join(parts) + ")"
    return poly()


def rest(text):
    """The geometry's lines and areas without its points, as WKT; None when it has none."""
    g = parse(text)
    parts = []
    if g["lines"]:
        parts.append("MULTILINESTRING (" + ", ".join("(" + ", ".join(f"{x} {y}" for x, y in path) + ")" for path in g["lines"]) + ")")
    for poly in g["polys"]:
        parts.append("POLYGON (" + ", ".join("(" + ", ".join(f"{x} {y}" for x, y in ring) + ")" for ring in poly) + ")")
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else "GEOMETRYCOLLECTION (" + ", ".join(parts) + ")"


def main():
    rows = []
    pairs = []
    for _ in range(1400):
        a = collection()
        b = collection() if R.random() < 0.3 else plain()
        pairs.append((a, b) if R.random() < 0.5 else (b, a))
    for _ in range(300):
        a, b = spur(), plain()
        pairs.append((a, b) if R.random() < 0.5 else (b, a))
    for a, b in pairs:
        row = {"a": a, "b": b, "relate": relate(a, b), "shapely": shapely.relate(swkt.loads(a), swkt.loads(b))}
        rest_a, rest_b = rest(a), rest(b)
        # The exact matrix of the two geometries' lines and areas (what GEOS is asked for).
        row["restRelate"] = relate(rest_a, rest_b) if rest_a and rest_b else None
        rows.append(row)
    here = pathlib.Path(__file__).resolve().parent
    text = "[\n" + ",\n".join(json.dumps(row, separators=(",", ":")) for row in rows) + "\n]\n"
    (here / "point_member_oracle.json").write_text(text)
    differ = sum(1 for r in rows if r["relate"] != r["shapely"])
    print(f"{len(rows)} pairs; GEOS 3.14 (Shapely) differs on {differ}")


if __name__ == "__main__":
    main()

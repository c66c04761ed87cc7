import Foundation
import SieveGEOS
import SieveGeometry
import SieveProjection

/// The distance part of a spatial filter (``QueryParameters/distance``): whether a feature
/// comes within a distance of the query geometry, in the plane of a projected table or along
/// the ellipsoid of a geographic one (``QueryDistance`` says the rules).
struct Proximity {
    enum Metric {
        /// A projected table: the plane distance, in the table's unit.
        case planar(Double)
        /// A geographic table (degrees) or Web Mercator (`mercator`): metres along the
        /// ellipsoid.
        case geodesic(Geodesic, metres: Double, mercator: Bool)
    }

    let metric: Metric
    /// The query geometry's points, vertices and edges, in the table's reference.
    let query: Parts

    /// The proximity of `distance` for a table in `reference`.
    /// - Throws: ``FeatureTableError/Kind/invalidQuery`` for a distance that is negative or not
    ///   finite, or a reference whose unit or ellipsoid PROJ does not give.
    init(_ distance: QueryDistance, query: Geometry, reference: SpatialReference) throws(FeatureTableError) {
        guard distance.value.isFinite, distance.value >= 0 else {
            throw FeatureTableError(.invalidQuery, "the distance must be a finite number of at least 0, not \(distance.value)")
        }
        let metres = distance.metres
        do throws(ProjectionError) {
            if reference.latestWkid == 3857 {
                metric = .geodesic(.wgs84, metres: metres, mercator: true)
            } else if reference.isGeographic {
                metric = .geodesic(try Geodesic(of: reference), metres: metres, mercator: false)
            } else {
                let unit = try ProjectionContext.withCurrent { context throws(ProjectionError) in try context.unit(of: reference) }
                if unit.isAngular {
                    metric = .geodesic(try Geodesic(of: reference), metres: metres, mercator: false)
                } else {
                    metric = .planar(metres / unit.toSI)
                }
            }
        } catch {
            throw FeatureTableError(.invalidQuery, "cannot measure a distance in wkid \(reference.wkid): \(error)")
        }
        self.query = Parts(query)
    }

    /// A geometry as what a distance is measured between: its points that lie on no edge
    /// (`points`), every vertex, and its edges (an envelope's corners and sides).
    struct Parts {
        var points: [Point] = []
        var vertices: [Point] = []
        var edges: [(Point, Point)] = []

        init(_ geometry: Geometry) {
            add(geometry)
        }

        private mutating func path(_ path: [Point], closed: Bool) {
            guard path.count > 1 else {
                points += path
                vertices += path
                return
            }
            vertices += path
            for i in path.indices.dropFirst() { edges.append((path[i - 1], path[i])) }
            if closed, let first = path.first, let last = path.last, first != last { edges.append((last, first)) }
        }

        private mutating func add(_ geometry: Geometry) {
            switch geometry {
            case .point(let point):
                if !point.isEmpty { path([point], closed: false) }
            case .multipoint(let multipoint):
                for point in multipoint.points { path([point], closed: false) }
            case .polyline(let polyline): for p in polyline.paths { path(p, closed: false) }
            case .polygon(let polygon): for r in 0..<polygon.ringCount { path(polygon.ring(r), closed: true) }
            case .envelope(let e):
                if !e.isEmpty {
                    path([Point(x: e.xmin, y: e.ymin), Point(x: e.xmax, y: e.ymin), Point(x: e.xmax, y: e.ymax), Point(x: e.xmin, y: e.ymax)], closed: true)
                }
            case .collection(let collection):
                for part in collection.geometries { add(part) }
            }
        }
    }

    // MARK: Windows

    /// The box, in the table's reference, that holds every position within the distance of
    /// `box`. Along the ellipsoid: a degree of latitude is at least 110,574 m, a degree of
    /// longitude at least 111,319.49 m × cos φ at the highest latitude φ the window reaches
    /// (the prime vertical radius is never below the semi-major axis); a window reaching a pole
    /// or crossing ±180° takes every longitude.
    func window(_ box: Envelope) -> Envelope {
        guard !box.isEmpty else { return box }
        switch metric {
        case .planar(let d):
            return Envelope(xmin: box.xmin - d, ymin: box.ymin - d, xmax: box.xmax + d, ymax: box.ymax + d)
        case .geodesic(let geodesic, let metres, let mercator):
            var b = box
            if mercator {
                let low = WebMercator.inverse(x: box.xmin, y: box.ymin), high = WebMercator.inverse(x: box.xmax, y: box.ymax)
                b = Envelope(xmin: low.longitude, ymin: low.latitude, xmax: high.longitude, ymax: high.latitude)
            }
            // Scaled to the ellipsoid (the bounds above are WGS 84's), and widened by a part in
            // a million against rounding.
            let scale = geodesic.semiMajorAxis / 6_378_137 * (1 - Swift.max(geodesic.flattening, 0))
            let dLat = metres / (110_574 * scale) * 1.000001 + 1e-9
            let south = b.ymin - dLat, north = b.ymax + dLat
            var west = -180.0, east = 180.0
            let highest = Swift.max(abs(south), abs(north))
            if highest < 90 {
                let dLon = metres / (111_319.49 * scale * cos(highest * .pi / 180)) * 1.000001 + 1e-9
                if b.xmin - dLon > -180, b.xmax + dLon < 180 { (west, east) = (b.xmin - dLon, b.xmax + dLon) }
            }
            let window = Envelope(xmin: west, ymin: Swift.max(south, -90), xmax: east, ymax: Swift.min(north, 90))
            guard mercator else { return window }
            let half = WebMercator.halfWorld
            func y(_ latitude: Double) -> Double {
                abs(latitude) >= WebMercator.maxLatitude ? (latitude < 0 ? -Double.infinity : .infinity)
                    : WebMercator.forward(longitude: 0, latitude: latitude).y
            }
            return Envelope(
                xmin: west <= -180 ? -Double.infinity : WebMercator.forward(longitude: west, latitude: 0).x,
                ymin: y(window.ymin), xmax: east >= 180 ? Double.infinity : WebMercator.forward(longitude: east, latitude: 0).x,
                ymax: y(window.ymax)
            ).clamped(half)
        }
    }

    // MARK: The exact test

    /// Whether `feature` (in the table's reference; `converted` for GEOS) lies within the
    /// distance of the query geometry, `prepared`: GEOS's plane distance in a projected table;
    /// along the ellipsoid, 0 when the two meet, else the nearest pair of a vertex of one and an
    /// edge of the other (an edge holds its ends), or of two points that lie on no edge.
    func isNear(_ feature: Geometry, _ converted: GEOSGeometry, prepared: PreparedGeometry) throws(GEOSError) -> Bool {
        switch metric {
        case .planar(let distance):
            return try prepared.isWithinDistance(distance, of: converted)
        case .geodesic(let geodesic, let metres, let mercator):
            if try prepared.intersects(converted) { return true }
            let parts = Parts(feature)
            let measure = Measure(geodesic: geodesic, mercator: mercator, limit: metres, proximity: self)
            for v in parts.vertices where measure.near(v, query.edges) { return true }
            for w in query.vertices where measure.near(w, parts.edges) { return true }
            for p in parts.points {
                for q in query.points where measure.distance(p, q) <= metres { return true }
            }
            return false
        }
    }

    /// Geodesic distances between positions of the table's reference.
    struct Measure {
        let geodesic: Geodesic
        let mercator: Bool
        let limit: Double
        let proximity: Proximity

        func lonLat(_ p: Point) -> (Double, Double) {
            guard mercator else { return (p.x, p.y) }
            let g = WebMercator.inverse(x: p.x, y: p.y)
            return (g.longitude, g.latitude)
        }

        func distance(_ a: Point, _ b: Point) -> Double {
            let (x1, y1) = lonLat(a), (x2, y2) = lonLat(b)
            return geodesic.distance(longitude1: x1, latitude1: y1, longitude2: x2, latitude2: y2)
        }

        /// Whether some edge of `edges` comes within the limit of `v`; edges outside `v`'s
        /// window are passed over.
        func near(_ v: Point, _ edges: [(Point, Point)]) -> Bool {
            let window = proximity.window(Envelope(xmin: v.x, ymin: v.y, xmax: v.x, ymax: v.y))
            for (a, b) in edges {
                let box = Envelope(xmin: Swift.min(a.x, b.x), ymin: Swift.min(a.y, b.y), xmax: Swift.max(a.x, b.x), ymax: Swift.max(a.y, b.y))
                guard box.intersects(window) else { continue }
                if nearest(v, a, b) <= limit { return true }
            }
            return false
        }

        /// The distance from `v` to the nearest point of the edge a–b (straight in the
        /// table's reference): the best of nine evenly spaced points, then a golden-section
        /// search around it down to 10⁻⁹ of the edge.
        func nearest(_ v: Point, _ a: Point, _ b: Point) -> Double {
            func at(_ t: Double) -> Double {
                distance(v, Point(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t))
            }
            var best = 0.0, bestDistance = Double.infinity
            for i in 0...8 {
                let t = Double(i) / 8, d = at(t)
                if d < bestDistance { (best, bestDistance) = (t, d) }
            }
            var low = Swift.max(0, best - 0.125), high = Swift.min(1, best + 0.125)
            let ratio = (5.0.squareRoot() - 1) / 2
            var c = high - ratio * (high - low), d = low + ratio * (high - low)
            var fc = at(c), fd = at(d)
            while high - low > 1e-9 {
                if fc < fd {
                    (high, d, fd) = (d, c, fc)
                    c = high - ratio * (high - low)
                    fc = at(c)
                } else {
                    (low, c, fc) = (c, d, fd)
                    d = low + ratio * (high - low)
                    fd = at(d)
                }
            }
            return Swift.min(bestDistance, fc, fd)
        }
    }
}

extension Envelope {
    /// This envelope with infinite sides brought to ±`half`.
    fileprivate func clamped(_ half: Double) -> Envelope {
        Envelope(xmin: Swift.max(xmin, -half), ymin: Swift.max(ymin, -half), xmax: Swift.min(xmax, half), ymax: Swift.min(ymax, half))
    }
}

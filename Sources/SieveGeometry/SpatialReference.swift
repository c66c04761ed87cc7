import Foundation

/// A spatial reference, identified by its well-known ID (WKID).
///
/// SieveGeometry projects exactly between the two references web maps use: WGS 84 geographic
/// (WKID 4326, degrees) and Web Mercator (WKID 3857, metres; 102100, 102113 and 900913 are
/// aliases and compare equal to it). Any other WKID is a label here: geometries in it are
/// stored and compared as they are, and ``Geometry/projected(from:to:)`` throws
/// ``GeometryError/Kind/unsupportedProjection`` for it. SieveProjection's `Projector` projects
/// between any EPSG or ESRI codes through PROJ, and uses the exact formulas here for 4326 ⇄ 3857.
public struct SpatialReference: Hashable, Sendable, CustomStringConvertible {
    /// The WKID as given (e.g. 102100).
    public let wkid: Int

    /// Creates a spatial reference from a WKID.
    public init(wkid: Int) { self.wkid = wkid }

    /// WGS 84, longitude/latitude in degrees (EPSG:4326).
    public static let wgs84 = SpatialReference(wkid: 4326)
    /// Web Mercator (auxiliary sphere), metres (EPSG:3857).
    public static let webMercator = SpatialReference(wkid: 3857)

    /// The EPSG code this WKID stands for: 3857 for the Web Mercator aliases, else the WKID.
    public var latestWkid: Int {
        switch wkid {
        case 102100, 102113, 900913: 3857
        default: wkid
        }
    }

    /// Whether coordinates are longitude/latitude degrees (only 4326 is known to be).
    public var isGeographic: Bool { latestWkid == 4326 }

    /// Whether the exact Web Mercator formulas of this module project to and from this
    /// reference (4326 and 3857 with its aliases); other references go through PROJ.
    public var isProjectable: Bool { latestWkid == 4326 || latestWkid == 3857 }

    public static func == (lhs: SpatialReference, rhs: SpatialReference) -> Bool {
        lhs.latestWkid == rhs.latestWkid
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(latestWkid) }

    public var description: String { "wkid \(wkid)" }
}

/// Exact conversion between WGS 84 degrees and Web Mercator metres on the auxiliary sphere
/// (radius 6,378,137 m), as web maps define it:
/// `x = R·λ`, `y = R·ln(tan(π/4 + φ/2))`, and the inverse `λ = x/R`,
/// `φ = 2·atan(exp(y/R)) − π/2`. They are evaluated in the equivalent forms
/// `y = R·atanh(sin φ)` and `φ = atan(sinh(y/R))`, which keep the equator at exactly 0, and
/// `x = λ/180 · πR`, which maps ±180° to exactly ±πR.
///
/// Latitudes beyond ±85.05112877980659° (where the square map ends) are clamped to it, so that
/// the poles map to finite coordinates, as ArcGIS does when it projects to Web Mercator.
public enum WebMercator {
    /// The radius of the auxiliary sphere, in metres.
    public static let radius = 6_378_137.0
    /// The latitude at which Web Mercator's square ends, in degrees.
    public static let maxLatitude = 85.051_128_779_806_59
    /// Half the width of the world in Web Mercator metres (π·R).
    public static let halfWorld = Double.pi * radius

    /// Degrees (longitude, latitude) to metres.
    @inlinable public static func forward(longitude: Double, latitude: Double) -> (x: Double, y: Double) {
        let lat = Swift.min(Swift.max(latitude, -maxLatitude), maxLatitude)
        let x = longitude / 180 * halfWorld
        let y = radius * atanh(sin(lat * .pi / 180))
        return (x, y)
    }

    /// Metres to degrees (longitude, latitude).
    @inlinable public static func inverse(x: Double, y: Double) -> (longitude: Double, latitude: Double) {
        let longitude = x / halfWorld * 180
        let latitude = atan(sinh(y / radius)) * 180 / .pi
        return (longitude, latitude)
    }
}

extension Geometry {
    /// The geometry projected from one spatial reference to another.
    ///
    /// Projecting to the same reference returns the geometry unchanged. z and m values are kept.
    /// - Throws: ``GeometryError/Kind/unsupportedProjection`` when either reference is neither
    ///   4326 nor 3857 (and its aliases).
    public func projected(from source: SpatialReference, to target: SpatialReference) throws(GeometryError) -> Geometry {
        if source == target { return self }
        guard source.isProjectable, target.isProjectable else {
            throw GeometryError(
                .unsupportedProjection,
                "cannot project from \(source) to \(target); only 4326 and 3857 (102100) are supported")
        }
        let toMercator = target.latestWkid == 3857
        return try mapPositions { x, y in
            if toMercator {
                let result = WebMercator.forward(longitude: x, latitude: y)
                return (result.x, result.y)
            }
            let result = WebMercator.inverse(x: x, y: y)
            return (result.longitude, result.latitude)
        }
    }

    /// The geometry with `transform` applied to every x, y (z and m unchanged). An envelope is
    /// transformed corner by corner, which is exact for the axis-separable Web Mercator formulas.
    func mapPositions(_ transform: (Double, Double) -> (Double, Double)) throws(GeometryError) -> Geometry {
        func mapBuffer(_ buffer: CoordinateBuffer) -> CoordinateBuffer {
            var values = buffer.values
            let stride = buffer.layout.stride
            var i = 0
            while i < values.count {
                let (x, y) = transform(values[i], values[i + 1])
                values[i] = x
                values[i + 1] = y
                i += stride
            }
            return CoordinateBuffer(values: values, layout: buffer.layout)
        }
        switch self {
        case .point(let point):
            guard !point.isEmpty else { return self }
            let (x, y) = transform(point.x, point.y)
            // The other kinds check their coordinates when they are rebuilt; a point must too
            // (a longitude of 1e308 projects beyond the largest Double).
            guard x.isFinite, y.isFinite else {
                throw GeometryError(.invalidCoordinates, "point coordinates must be finite numbers")
            }
            return .point(Point(x: x, y: y, z: point.z, m: point.m))
        case .multipoint(let multipoint):
            return .multipoint(try Multipoint(coordinates: mapBuffer(multipoint.coordinates)))
        case .polyline(let polyline):
            return .polyline(try Polyline(coordinates: mapBuffer(polyline.coordinates), pathOffsets: polyline.pathOffsets))
        case .polygon(let polygon):
            return .polygon(
                try Polygon(
                    coordinates: mapBuffer(polygon.coordinates), ringOffsets: polygon.ringOffsets,
                    partOffsets: polygon.partOffsets))
        case .envelope(let envelope):
            guard !envelope.isEmpty else { return self }
            let (x0, y0) = transform(envelope.xmin, envelope.ymin)
            let (x1, y1) = transform(envelope.xmax, envelope.ymax)
            return .envelope(try Envelope(validating: min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)))
        case .collection(let collection):
            var members: [Geometry] = []
            for member in collection.geometries { members.append(try member.mapPositions(transform)) }
            return .collection(GeometryCollection(members))
        }
    }
}

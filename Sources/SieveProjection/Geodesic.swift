internal import CPROJ
import SieveGeometry

/// Distances along the ellipsoid: the length of the shortest path (the geodesic) between two
/// positions given in degrees, by Karney's algorithms (PROJ's geodesic library), accurate to
/// some nanometres.
///
/// ```swift
/// let metres = Geodesic.wgs84.distance(longitude1: 2.35, latitude1: 48.86, longitude2: -0.13, latitude2: 51.51)
/// ```
public struct Geodesic: Sendable, Hashable {
    /// The ellipsoid's semi-major axis in metres.
    public let semiMajorAxis: Double
    /// The ellipsoid's flattening (0 for a sphere).
    public let flattening: Double
    private let geodesic: Parameters

    /// PROJ's precomputed series of one ellipsoid, a plain C value.
    private struct Parameters: @unchecked Sendable, Hashable {
        var value = geod_geodesic()
        static func == (a: Parameters, b: Parameters) -> Bool { true }
        func hash(into hasher: inout Hasher) {}
    }

    /// The ellipsoid of WGS 84.
    public static let wgs84 = Geodesic(semiMajorAxis: 6_378_137, flattening: 1 / 298.257223563)

    /// The geodesics of the ellipsoid of semi-major axis `semiMajorAxis` (metres) and
    /// `flattening`.
    public init(semiMajorAxis: Double, flattening: Double) {
        self.semiMajorAxis = semiMajorAxis
        self.flattening = flattening
        var parameters = Parameters()
        geod_init(&parameters.value, semiMajorAxis, flattening)
        geodesic = parameters
    }

    /// The geodesics of the ellipsoid of `reference`'s datum (WGS 84's for 4326 and 3857).
    /// - Throws: ``ProjectionError`` when PROJ does not know the reference or gives it no
    ///   ellipsoid.
    public init(of reference: SpatialReference) throws(ProjectionError) {
        if reference.latestWkid == 4326 || reference.latestWkid == 3857 {
            self = .wgs84
            return
        }
        let (a, f) = try ProjectionContext.withCurrent { context throws(ProjectionError) in try context.ellipsoid(of: reference) }
        self.init(semiMajorAxis: a, flattening: f)
    }

    /// The length in metres of the geodesic between two positions (longitude, latitude in
    /// degrees).
    public func distance(longitude1: Double, latitude1: Double, longitude2: Double, latitude2: Double) -> Double {
        var s12 = 0.0
        withUnsafePointer(to: geodesic.value) { g in
            geod_inverse(g, latitude1, longitude1, latitude2, longitude2, &s12, nil, nil)
        }
        return s12
    }
}

internal import CGEOS
import SieveGeometry

/// The result of a validity check: whether the geometry is valid in the OGC sense and, if not,
/// why and where.
public struct Validity: Hashable, Sendable, CustomStringConvertible {
    /// Whether the geometry is valid.
    public let isValid: Bool
    /// GEOS's reason when invalid, e.g. `Self-intersection`; `nil` when valid.
    public let reason: String?
    /// Where the problem is, when GEOS names a location.
    public let location: Point?

    /// `Valid Geometry`, or the reason followed by the location.
    public var description: String {
        guard !isValid else { return "Valid Geometry" }
        var text = reason ?? "Invalid geometry"
        if let location { text += " at (\(location.x) \(location.y))" }
        return text
    }
}

extension GEOSGeometry {
    /// Checks OGC validity (`GEOSisValidDetail_r`): rings that self-intersect, holes outside
    /// their shell, nested shells and the like make a polygon invalid.
    ///
    /// GEOS 3.10–3.12 check in time that grows with the square of the vertex count on some
    /// shapes (a star of 100,000 thin spikes takes 15 s, a circle of 100,000 vertices a
    /// millisecond). With a `costLimit`, geometries whose estimated cost (``ValidityCost``) is
    /// above it are refused before GEOS is called.
    /// - Parameter costLimit: The largest ``ValidityCost/total`` to hand to GEOS
    ///   (``RelateCost/defaultLimit``, about a second); `nil` for no limit.
    /// - Throws: ``GEOSError/Kind/tooComplex`` above the limit; ``GEOSError`` if GEOS fails.
    public func validity(costLimit: Int? = RelateCost.defaultLimit) throws(GEOSError) -> Validity {
        if let costLimit {
            let cost = ValidityCost(geometry, limit: costLimit)
            guard cost.total <= costLimit else {
                throw GEOSError(
                    .tooComplex,
                    "checking the validity of this geometry would take GEOS at least an estimated \(cost.total) steps "
                        + "(\(cost)); the limit is \(costLimit)")
            }
        }
        var reason: UnsafeMutablePointer<CChar>?
        var location: OpaquePointer?
        let h = context.handle
        // Returns 1 when valid, 0 when invalid, 2 on exception. The reason is freed with
        // GEOSFree_r and the location geometry destroyed by the caller.
        let result = GEOSisValidDetail_r(h, handle, 0, &reason, &location)
        defer {
            if let reason { GEOSFree_r(h, reason) }
            if let location { GEOSGeom_destroy_r(h, location) }
        }
        switch result {
        case 1:
            return Validity(isValid: true, reason: nil, location: nil)
        case 0:
            var point: Point?
            if let location {
                var x = 0.0, y = 0.0
                if GEOSGeomGetX_r(h, location, &x) != 0, GEOSGeomGetY_r(h, location, &y) != 0 {
                    point = Point(x: x, y: y)
                }
            }
            return Validity(isValid: false, reason: reason.map { String(cString: $0) }, location: point)
        default:
            throw context.failure("GEOSisValidDetail_r")
        }
    }

    /// Whether the geometry is valid (see ``validity(costLimit:)``).
    public var isValid: Bool {
        get throws(GEOSError) { try validity().isValid }
    }
}

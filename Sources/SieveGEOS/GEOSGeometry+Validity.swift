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
    /// - Throws: ``GEOSError`` if GEOS fails.
    public func validity() throws(GEOSError) -> Validity {
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

    /// Whether the geometry is valid (see ``validity()``).
    public var isValid: Bool {
        get throws(GEOSError) { try validity().isValid }
    }
}

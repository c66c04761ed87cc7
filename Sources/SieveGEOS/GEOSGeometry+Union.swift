internal import CGEOS
import SieveGeometry

extension GEOSGeometry {
    /// The union of the geometry's parts (`GEOSUnaryUnion_r`): overlapping and adjacent polygons
    /// of a collection merged into one polygonal geometry, lines noded, points made unique. It
    /// is what a query by several geometries at once tests against: the point set they cover
    /// together. Returned as a ``/SieveGeometry/Geometry`` (read back from GEOS's WKB; m values are
    /// dropped).
    /// - Throws: ``GEOSError`` when GEOS fails (for example on an invalid polygon).
    public func unaryUnion() throws(GEOSError) -> Geometry {
        guard let union = GEOSUnaryUnion_r(context.handle, handle) else { throw context.failure("GEOSUnaryUnion_r") }
        defer { GEOSGeom_destroy_r(context.handle, union) }
        return try context.geometry(reading: union, madeBy: "GEOSUnaryUnion_r")
    }
}

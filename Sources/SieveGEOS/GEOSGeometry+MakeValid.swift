internal import CGEOS
import SieveGeometry

extension GEOSGeometry {
    /// The geometry repaired by GEOS (`GEOSMakeValidWithParams_r`, the *structure* method,
    /// collapsed parts dropped): a self-intersecting ring becomes the polygons it encloses, a
    /// hole outside its shell a shell of its own. Returned as a ``/SieveGeometry/Geometry`` (read
    /// back from GEOS's WKB; m values, which GEOS does not keep, are dropped). An empty result
    /// means nothing of the geometry survives the repair.
    /// - Throws: ``GEOSError`` when GEOS fails.
    public func madeValid() throws(GEOSError) -> Geometry {
        let h = context.handle
        guard let parameters = GEOSMakeValidParams_create_r(h) else { throw context.failure("GEOSMakeValidParams_create_r") }
        defer { GEOSMakeValidParams_destroy_r(h, parameters) }
        _ = GEOSMakeValidParams_setMethod_r(h, parameters, GEOS_MAKE_VALID_STRUCTURE)
        _ = GEOSMakeValidParams_setKeepCollapsed_r(h, parameters, 0)
        guard let repaired = GEOSMakeValidWithParams_r(h, handle, parameters) else {
            throw context.failure("GEOSMakeValidWithParams_r")
        }
        defer { GEOSGeom_destroy_r(h, repaired) }
        return try context.geometry(reading: repaired, madeBy: "GEOSMakeValidWithParams_r")
    }
}

extension GEOSContext {
    /// `result`, a geometry GEOS made (the caller still owns and destroys it), read back as a
    /// ``/SieveGeometry/Geometry`` through WKB (m values, which GEOS does not keep, are dropped).
    /// - Throws: ``GEOSError`` when GEOS cannot write it or the WKB cannot be read back.
    func geometry(reading result: OpaquePointer, madeBy function: String) throws(GEOSError) -> Geometry {
        let h = handle
        guard let writer = GEOSWKBWriter_create_r(h) else { throw failure("GEOSWKBWriter_create_r") }
        defer { GEOSWKBWriter_destroy_r(h, writer) }
        GEOSWKBWriter_setOutputDimension_r(h, writer, 3)
        var size = 0
        guard let bytes = GEOSWKBWriter_write_r(h, writer, result, &size) else { throw failure("GEOSWKBWriter_write_r") }
        defer { GEOSFree_r(h, bytes) }
        do throws(GeometryError) {
            return try Geometry(wkb: UnsafeBufferPointer(start: bytes, count: size))
        } catch {
            throw GEOSError(.geosException, "the geometry \(function) made cannot be read back: \(error.message)", function: function)
        }
    }
}

internal import CGEOS
import SieveGeometry

/// A geometry owned by GEOS (`GEOSGeometry*`), made from a ``/SieveGeometry/Geometry`` value,
/// destroyed (`GEOSGeom_destroy_r`) when this object goes away.
///
/// Convert a geometry once and keep the handle when it takes part in several tests; prepare it
/// (``PreparedGeometry``) when it is tested against many others. The Swift envelope and
/// dimension are kept beside the handle so that the relationship methods can decide from
/// envelopes alone whenever that is enough (disjoint boxes ⇒ no intersection, …), without
/// calling GEOS.
///
/// Not `Sendable`: use it only with the ``GEOSContext`` it was made with, in that context's
/// isolation region.
public final class GEOSGeometry {
    /// The context the handle belongs to.
    public let context: GEOSContext
    /// The GEOS handle.
    let handle: OpaquePointer
    /// The geometry's bounding box.
    public let envelope: Envelope
    /// Whether the geometry is empty.
    public let isEmpty: Bool
    /// The topological dimension of the point set GEOS holds: 0 points, 1 lines, 2 areas; for a
    /// collection the largest of its non-empty members'; `nil` for an empty collection. A
    /// zero-length line has dimension 0, like the point it is.
    public let dimension: Int?
    /// The geometry as handed to GEOS (its point set, degenerate parts rewritten).
    let geometry: Geometry
    /// The geometry as GEOS holds it: rounded to the grid of `GEOSResolution`, degenerate
    /// parts rewritten (see the GEOS form in `Geometry+GEOSForm.swift`).
    package var form: Geometry { geometry }
    /// When the source was an ``Envelope`` with positive area: that rectangle.
    let rectangle: Envelope?
    /// Whether a polygon ring has zero area without being one position: GEOS's shortcuts and its
    /// DE-9IM matrix disagree about such geometries, so their relationships come from the matrix.
    let hasCollapsedRing: Bool
    /// Whether the geometry is a collection with point members: GEOS 3.10–3.12 relate those
    /// wrongly, so their DE-9IM matrices are assembled from GEOS's matrix of the other members
    /// and the points' locations, and every relationship is read off that matrix.
    let hasPointMembers: Bool
    /// For a collection: the dimension of its boundary (`.some(nil)` when it has none), which
    /// GEOS 3.10–3.12 cannot compute (their `relate` throws "Operation not supported by
    /// GeometryCollection" for collections whose envelope misses the other geometry's);
    /// `nil` for every other geometry.
    let collectionBoundaryDimension: Int??

    /// Converts a geometry to GEOS.
    ///
    /// Coordinates go in with `GEOSCoordSeq_copyFromBuffer_r`, one call per path or ring,
    /// straight from the flat buffer. An envelope becomes a rectangular polygon (a line or a
    /// point when it has no width or no height). A multipoint, a polyline of several paths and a
    /// polygon of several parts become the matching GEOS multi-geometries.
    ///
    /// Coordinates are rounded to the grid of `GEOSResolution` (multiples of 2^-511, which
    /// changes only coordinates below about 1.3·10⁻¹³⁸), and degenerate input is handed over as
    /// the point set it describes, so that every GEOS version answers consistently and none
    /// crashes: empty members of collections are left out (a collection's relationships and
    /// dimension do not depend on them), a path of zero length, or a polygon part whose outer
    /// ring is a single repeated position, becomes that point, and a part whose outer ring
    /// encloses no area (a spur traced out and back, a ring folded onto a line) becomes that
    /// ring as a closed line. ``envelope``, ``isEmpty`` and ``dimension`` describe that point
    /// set.
    /// - Throws: ``GEOSError`` if GEOS rejects the geometry.
    public init(_ geometry: Geometry, context: GEOSContext) throws(GEOSError) {
        let geometry = geometry.geosForm() ?? geometry
        self.geometry = geometry
        self.context = context
        self.handle = try GEOSGeometry.makeHandle(geometry, context.handle, context)
        self.envelope = geometry.envelope
        self.isEmpty = geometry.isEmpty
        self.dimension = geometry.dimension
        self.hasCollapsedRing = geometry.hasCollapsedRing
        self.hasPointMembers = GEOSGeometry.hasPointMembers(geometry)
        if case .collection = geometry {
            self.collectionBoundaryDimension = .some(geometry.boundaryDimension)
        } else {
            self.collectionBoundaryDimension = nil
        }
        if case .envelope(let box) = geometry, box.width > 0, box.height > 0 {
            self.rectangle = box
        } else {
            self.rectangle = nil
        }
    }

    deinit {
        GEOSGeom_destroy_r(context.handle, handle)
    }

    // MARK: Conversion

    private static func makeHandle(_ geometry: Geometry, _ h: OpaquePointer, _ context: GEOSContext) throws(GEOSError) -> OpaquePointer {
        switch geometry {
        case .point(let point):
            if point.isEmpty {
                return try check(GEOSGeom_createEmptyPoint_r(h), "GEOSGeom_createEmptyPoint_r", context)
            }
            if let z = point.z {
                let values = [point.x, point.y, z]
                let sequence = try sequenceFrom(values, count: 1, layout: .xyz, h, context)
                return try check(GEOSGeom_createPoint_r(h, sequence), "GEOSGeom_createPoint_r", context)
            }
            return try check(GEOSGeom_createPointFromXY_r(h, point.x, point.y), "GEOSGeom_createPointFromXY_r", context)

        case .multipoint(let multipoint):
            let buffer = multipoint.coordinates
            var members: [OpaquePointer?] = []
            members.reserveCapacity(buffer.count)
            for i in 0..<buffer.count {
                let member = GEOSGeom_createPointFromXY_r(h, buffer.x(at: i), buffer.y(at: i))
                guard let member else {
                    destroy(members, h)
                    throw context.failure("GEOSGeom_createPointFromXY_r")
                }
                members.append(member)
            }
            return try collection(GEOS_MULTIPOINT, members, h, context)

        case .polyline(let polyline):
            if polyline.isEmpty {
                return try check(GEOSGeom_createEmptyLineString_r(h), "GEOSGeom_createEmptyLineString_r", context)
            }
            var members: [OpaquePointer?] = []
            for i in 0..<polyline.pathCount {
                let range = polyline.pathRange(i)
                do {
                    let sequence = try sequence(polyline.coordinates, range, h, context)
                    members.append(try check(GEOSGeom_createLineString_r(h, sequence), "GEOSGeom_createLineString_r", context))
                } catch {
                    destroy(members, h)
                    throw error
                }
            }
            if members.count == 1, let only = members[0] { return only }
            return try collection(GEOS_MULTILINESTRING, members, h, context)

        case .polygon(let polygon):
            if polygon.isEmpty {
                return try check(GEOSGeom_createEmptyPolygon_r(h), "GEOSGeom_createEmptyPolygon_r", context)
            }
            var parts: [OpaquePointer?] = []
            for p in 0..<polygon.partCount {
                do {
                    parts.append(try polygonPart(polygon, p, h, context))
                } catch {
                    destroy(parts, h)
                    throw error
                }
            }
            if parts.count == 1, let only = parts[0] { return only }
            return try collection(GEOS_MULTIPOLYGON, parts, h, context)

        case .envelope(let box):
            if box.isEmpty {
                return try check(GEOSGeom_createEmptyPolygon_r(h), "GEOSGeom_createEmptyPolygon_r", context)
            }
            if box.width == 0 && box.height == 0 {
                return try check(GEOSGeom_createPointFromXY_r(h, box.xmin, box.ymin), "GEOSGeom_createPointFromXY_r", context)
            }
            if box.width == 0 || box.height == 0 {
                let values = [box.xmin, box.ymin, box.xmax, box.ymax]
                let sequence = try sequenceFrom(values, count: 2, layout: .xy, h, context)
                return try check(GEOSGeom_createLineString_r(h, sequence), "GEOSGeom_createLineString_r", context)
            }
            let ring = box.ring.flatMap { [$0.x, $0.y] }
            let sequence = try sequenceFrom(ring, count: 5, layout: .xy, h, context)
            let shell = try check(GEOSGeom_createLinearRing_r(h, sequence), "GEOSGeom_createLinearRing_r", context)
            return try check(GEOSGeom_createPolygon_r(h, shell, nil, 0), "GEOSGeom_createPolygon_r", context)

        case .collection(let collection):
            var members: [OpaquePointer?] = []
            for member in collection.geometries {
                do {
                    members.append(try makeHandle(member, h, context))
                } catch {
                    destroy(members, h)
                    throw error
                }
            }
            return try GEOSGeometry.collection(GEOS_GEOMETRYCOLLECTION, members, h, context)
        }
    }

    private static func polygonPart(_ polygon: Polygon, _ p: Int, _ h: OpaquePointer, _ context: GEOSContext) throws(GEOSError) -> OpaquePointer {
        var rings: [OpaquePointer?] = []
        for r in polygon.partRingRange(p) {
            do {
                let sequence = try sequence(polygon.coordinates, polygon.ringRange(r), h, context)
                rings.append(try check(GEOSGeom_createLinearRing_r(h, sequence), "GEOSGeom_createLinearRing_r", context))
            } catch {
                destroy(rings, h)
                throw error
            }
        }
        var holes = Array(rings.dropFirst())
        // The shell and the holes pass to the polygon; the caller keeps the array.
        let created = holes.withUnsafeMutableBufferPointer { buffer in
            GEOSGeom_createPolygon_r(h, rings[0], buffer.baseAddress, UInt32(buffer.count))
        }
        return try check(created, "GEOSGeom_createPolygon_r", context)
    }

    private static func collection(_ type: GEOSGeomTypes, _ members: [OpaquePointer?], _ h: OpaquePointer, _ context: GEOSContext) throws(GEOSError) -> OpaquePointer {
        if members.isEmpty {
            return try check(GEOSGeom_createEmptyCollection_r(h, Int32(type.rawValue)), "GEOSGeom_createEmptyCollection_r", context)
        }
        var members = members
        // Ownership of the members passes to the collection; the caller keeps the array.
        let created = members.withUnsafeMutableBufferPointer { buffer in
            GEOSGeom_createCollection_r(h, Int32(type.rawValue), buffer.baseAddress, UInt32(buffer.count))
        }
        return try check(created, "GEOSGeom_createCollection_r", context)
    }

    private static func sequence(_ buffer: CoordinateBuffer, _ range: Range<Int>, _ h: OpaquePointer, _ context: GEOSContext) throws(GEOSError) -> OpaquePointer {
        let stride = buffer.layout.stride
        let created = buffer.values.withUnsafeBufferPointer { values in
            GEOSCoordSeq_copyFromBuffer_r(
                h, values.baseAddress.map { $0 + range.lowerBound * stride }, UInt32(range.count),
                buffer.layout.hasZ ? 1 : 0, buffer.layout.hasM ? 1 : 0)
        }
        return try check(created, "GEOSCoordSeq_copyFromBuffer_r", context)
    }

    private static func sequenceFrom(_ values: [Double], count: Int, layout: CoordinateLayout, _ h: OpaquePointer, _ context: GEOSContext) throws(GEOSError) -> OpaquePointer {
        try sequence(CoordinateBuffer(values: values, layout: layout), 0..<count, h, context)
    }

    private static func check(_ pointer: OpaquePointer?, _ function: String, _ context: GEOSContext) throws(GEOSError) -> OpaquePointer {
        // GEOS constructors return NULL on exception.
        guard let pointer else { throw context.failure(function) }
        return pointer
    }

    private static func destroy(_ handles: [OpaquePointer?], _ h: OpaquePointer) {
        for case let handle? in handles { GEOSGeom_destroy_r(h, handle) }
    }
}

/// Geometries are not `Sendable`: they belong to their context's thread.
@available(*, unavailable)
extension GEOSGeometry: Sendable {}

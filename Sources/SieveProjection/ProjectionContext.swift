#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
internal import CPROJ
import SieveGeometry

/// A PROJ context (`PJ_CONTEXT`) with the spatial references and transformations made with it.
///
/// PROJ objects belong to the context that made them, and a context must never be used by two
/// threads at once. `ProjectionContext` is therefore **not** `Sendable`, exactly like
/// `GEOSContext`: the compiler keeps each context inside one isolation region. Most code never
/// sees one: ``Projector`` borrows the calling thread's context with ``withCurrent(_:)``.
///
/// A context caches what it resolves: each WKID's coordinate reference system and each
/// (source, target) transformation are created once per context (so once per thread) and
/// reused for every later call.
///
/// PROJ's log messages are kept, not printed: the call that sees a failure throws a
/// ``ProjectionError`` carrying PROJ's last message.
public final class ProjectionContext {
    /// The PROJ context and its message box; outlives every PROJ object made with it.
    let handle: ContextHandle
    /// Resolved coordinate reference systems, by `SpatialReference.latestWkid`.
    private var systems: [Int: ProjObject] = [:]
    /// The units read by ``unit(of:)``, by latest WKID.
    private var units: [Int: (isAngular: Bool, toSI: Double)] = [:]
    /// Transformations, by (source, target) `latestWkid`.
    private var transformations: [Pair: Transformation] = [:]

    struct Pair: Hashable {
        var source: Int
        var target: Int
    }

    /// Creates a PROJ context with GeoSieve's log handler (messages are stored, never printed).
    /// - Throws: ``ProjectionError/Kind/initialization`` if PROJ returns no context.
    public init() throws(ProjectionError) {
        guard let context = proj_context_create() else {
            throw ProjectionError(.initialization, "proj_context_create returned no context")
        }
        handle = ContextHandle(context)
    }

    /// The coordinate reference system a WKID names: `EPSG:<latestWkid>`, or, when PROJ's
    /// database has no such EPSG code, `ESRI:<latestWkid>`.
    func system(_ reference: SpatialReference) throws(ProjectionError) -> ProjObject {
        let code = reference.latestWkid
        if let known = systems[code] { return known }
        guard code > 0 else {
            throw ProjectionError(
                .unknownSpatialReference, "wkid \(reference.wkid) is not a positive EPSG or ESRI code", source: reference.wkid)
        }
        for authority in ["EPSG", "ESRI"] {
            if let object = proj_create_from_database(handle.context, authority, "\(code)", PJ_CATEGORY_CRS, 0, nil) {
                handle.takeMessage()
                let system = ProjObject(object, handle: handle)
                if let kind = Self.nonMapKind(proj_get_type(object)) {
                    let name = proj_get_name(object).map { String(cString: $0) } ?? "\(authority):\(code)"
                    throw ProjectionError(
                        .unsupportedSpatialReference,
                        "wkid \(reference.wkid) (\(name)) is a \(kind) reference; only geographic and projected references "
                            + "locate positions on a map",
                        source: reference.wkid)
                }
                systems[code] = system
                return system
            }
        }
        // PROJ logs "crs not found" for each authority; the message says it better.
        handle.takeMessage()
        throw ProjectionError(
            .unknownSpatialReference, "wkid \(reference.wkid) is neither an EPSG nor an ESRI code known to PROJ",
            source: reference.wkid)
    }

    /// What a reference of PROJ type `type` is when it cannot hold map positions: vertical,
    /// geocentric, temporal and engineering references; `nil` for every other (geographic,
    /// projected, compound, bound, …).
    static func nonMapKind(_ type: PJ_TYPE) -> String? {
        switch type {
        case PJ_TYPE_VERTICAL_CRS: "vertical"
        case PJ_TYPE_GEOCENTRIC_CRS: "geocentric"
        case PJ_TYPE_TEMPORAL_CRS: "temporal"
        case PJ_TYPE_ENGINEERING_CRS: "engineering"
        default: nil
        }
    }

    /// The transformation from `source` to `target`, x = easting/longitude on both sides.
    func transformation(from source: SpatialReference, to target: SpatialReference) throws(ProjectionError) -> Transformation {
        let pair = Pair(source: source.latestWkid, target: target.latestWkid)
        if let known = transformations[pair] { return known }
        let from: ProjObject, to: ProjObject
        do {
            from = try system(source)
            to = try system(target)
        } catch {
            var tagged = error
            tagged.source = source.wkid
            tagged.target = target.wkid
            throw tagged
        }
        guard let raw = proj_create_crs_to_crs_from_pj(handle.context, from.object, to.object, nil, nil) else {
            throw ProjectionError(
                .noTransformation,
                "PROJ found no transformation from wkid \(source.wkid) to wkid \(target.wkid)"
                    + handle.takeMessage().map { " (PROJ: \($0))" }.orEmpty,
                source: source.wkid, target: target.wkid)
        }
        let created = ProjObject(raw, handle: handle)
        guard let normalized = proj_normalize_for_visualization(handle.context, created.object) else {
            throw ProjectionError(
                .noTransformation,
                "PROJ could not put the transformation from wkid \(source.wkid) to wkid \(target.wkid) in x = easting order"
                    + handle.takeMessage().map { " (PROJ: \($0))" }.orEmpty,
                source: source.wkid, target: target.wkid)
        }
        let transformation = Transformation(ProjObject(normalized, handle: handle), source: source, target: target)
        transformations[pair] = transformation
        return transformation
    }

    /// PROJ's name of the coordinate reference system a WKID resolves to (e.g.
    /// `NAD83 / New York Long Island (ftUS)` for 2263).
    /// - Throws: ``ProjectionError/Kind/unknownSpatialReference`` when PROJ does not know it.
    public func name(of reference: SpatialReference) throws(ProjectionError) -> String {
        let system = try system(reference)
        return proj_get_name(system.object).map { String(cString: $0) } ?? "wkid \(reference.wkid)"
    }

    /// The linear or angular unit of the reference's first axis: whether it is angular
    /// (geographic references: degrees) and how many metres (linear) or radians (angular) one
    /// unit is — 1 for metres, 0.3048006096… for US survey feet, π/180 for degrees.
    /// - Throws: ``ProjectionError/Kind/unknownSpatialReference`` when PROJ does not know it;
    ///   ``ProjectionError/Kind/unsupportedSpatialReference`` when it has no coordinate system
    ///   PROJ can describe (a compound or bound reference is read through its horizontal part).
    public func unit(of reference: SpatialReference) throws(ProjectionError) -> (isAngular: Bool, toSI: Double) {
        if let known = units[reference.latestWkid] { return known }
        let unit = try readUnit(of: reference)
        units[reference.latestWkid] = unit
        return unit
    }

    /// ``unit(of:)`` read from PROJ.
    private func readUnit(of reference: SpatialReference) throws(ProjectionError) -> (isAngular: Bool, toSI: Double) {
        try withCoordinateSystem(of: reference) { (cs, horizontal) throws(ProjectionError) in
            var factor = 0.0
            guard proj_cs_get_axis_info(handle.context, cs, 0, nil, nil, nil, &factor, nil, nil, nil) != 0, factor > 0,
                factor.isFinite
            else {
                handle.takeMessage()
                throw ProjectionError(
                    .unsupportedSpatialReference, "wkid \(reference.wkid): PROJ gives no unit for its first axis",
                    source: reference.wkid)
            }
            let type = proj_get_type(horizontal)
            let angular = type == PJ_TYPE_GEOGRAPHIC_2D_CRS || type == PJ_TYPE_GEOGRAPHIC_3D_CRS || type == PJ_TYPE_GEOGRAPHIC_CRS
            return (angular, factor)
        }
    }

    /// The directions of the reference's horizontal axes in their official order, as PROJ
    /// names them: `["east", "north"]` for Web Mercator and most projected references,
    /// `["north", "east"]` for EPSG 4326 (latitude first) and some projected ones. An OGC API
    /// `crs` whose first axis is not east writes its coordinates in another order than x, y.
    /// - Throws: As ``unit(of:)``.
    public func axisDirections(of reference: SpatialReference) throws(ProjectionError) -> [String] {
        try withCoordinateSystem(of: reference) { (cs, _) throws(ProjectionError) in
            let count = proj_cs_get_axis_count(handle.context, cs)
            var directions: [String] = []
            for axis in 0..<Swift.max(0, Swift.min(Int(count), 2)) {
                var direction: UnsafePointer<CChar>?
                guard proj_cs_get_axis_info(handle.context, cs, Int32(axis), nil, nil, &direction, nil, nil, nil, nil) != 0 else {
                    handle.takeMessage()
                    throw ProjectionError(
                        .unsupportedSpatialReference, "wkid \(reference.wkid): PROJ gives no direction for axis \(axis + 1)",
                        source: reference.wkid)
                }
                directions.append(direction.map { String(cString: $0).lowercased() } ?? "")
            }
            return directions
        }
    }

    /// The semi-major axis (metres) and flattening of the ellipsoid of a reference's datum
    /// (WGS 84: 6,378,137 m and 1/298.257223563).
    /// - Throws: ``ProjectionError/Kind/unknownSpatialReference`` when PROJ does not know the
    ///   reference; ``ProjectionError/Kind/unsupportedSpatialReference`` when PROJ gives it no
    ///   ellipsoid.
    public func ellipsoid(of reference: SpatialReference) throws(ProjectionError) -> (semiMajorAxis: Double, flattening: Double) {
        let system = try system(reference)
        return try withExtendedLifetime(system) { () throws(ProjectionError) in
            guard let ellipsoid = proj_get_ellipsoid(handle.context, system.object) else {
                handle.takeMessage()
                throw ProjectionError(.unsupportedSpatialReference, "wkid \(reference.wkid): PROJ gives no ellipsoid", source: reference.wkid)
            }
            defer { proj_destroy(ellipsoid) }
            var a = 0.0, inverseFlattening = 0.0
            guard proj_ellipsoid_get_parameters(handle.context, ellipsoid, &a, nil, nil, &inverseFlattening) != 0, a > 0, a.isFinite else {
                handle.takeMessage()
                throw ProjectionError(.unsupportedSpatialReference, "wkid \(reference.wkid): PROJ gives no ellipsoid", source: reference.wkid)
            }
            return (a, inverseFlattening > 0 && inverseFlattening.isFinite ? 1 / inverseFlattening : 0)
        }
    }

    /// Calls `body` with the coordinate system of the reference's horizontal part (a compound
    /// or bound reference read through it) and that part.
    private func withCoordinateSystem<T>(
        of reference: SpatialReference, _ body: (OpaquePointer, OpaquePointer) throws(ProjectionError) -> T
    ) throws(ProjectionError) -> T {
        let system = try system(reference)
        // The system owns the object the pointers below come from: keep it until they are done.
        defer { withExtendedLifetime(system) {} }
        var horizontal = system.object
        var owned: [OpaquePointer] = []
        defer { for object in owned { proj_destroy(object) } }
        if proj_get_type(horizontal) == PJ_TYPE_COMPOUND_CRS, let first = proj_crs_get_sub_crs(handle.context, horizontal, 0) {
            owned.append(first)
            horizontal = first
        }
        if proj_get_type(horizontal) == PJ_TYPE_BOUND_CRS, let base = proj_get_source_crs(handle.context, horizontal) {
            owned.append(base)
            horizontal = base
        }
        guard let cs = proj_crs_get_coordinate_system(handle.context, horizontal) else {
            handle.takeMessage()
            throw ProjectionError(
                .unsupportedSpatialReference, "wkid \(reference.wkid) has no coordinate system PROJ can describe",
                source: reference.wkid)
        }
        owned.append(cs)
        return try body(cs, horizontal)
    }

    /// The OGC WKT 1 definition (GDAL's dialect, as GeoPackage's `gpkg_spatial_ref_sys.definition`
    /// holds it) of the coordinate reference system a WKID resolves to.
    /// - Throws: ``ProjectionError/Kind/unknownSpatialReference`` when PROJ does not know it;
    ///   ``ProjectionError/Kind/unsupportedSpatialReference`` when it has no WKT 1 form.
    public func wkt(of reference: SpatialReference) throws(ProjectionError) -> String {
        let system = try system(reference)
        guard let text = proj_as_wkt(handle.context, system.object, PJ_WKT1_GDAL, nil) else {
            throw ProjectionError(
                .unsupportedSpatialReference, "wkid \(reference.wkid) has no WKT 1 definition",
                source: reference.wkid)
        }
        return String(cString: text)
    }

    /// The ESRI WKT definition (what ArcGIS and GDAL write in a shapefile's `.prj`) of the
    /// coordinate reference system a WKID resolves to.
    /// - Throws: As ``wkt(of:)``.
    public func esriWKT(of reference: SpatialReference) throws(ProjectionError) -> String {
        let system = try system(reference)
        guard let text = proj_as_wkt(handle.context, system.object, PJ_WKT1_ESRI, nil) else {
            handle.takeMessage()
            throw ProjectionError(
                .unsupportedSpatialReference, "wkid \(reference.wkid) has no ESRI WKT definition", source: reference.wkid)
        }
        return String(cString: text)
    }

    /// The PROJJSON definition (what GeoParquet's `geo` metadata holds as `crs`) of the
    /// coordinate reference system a WKID resolves to.
    /// - Throws: As ``wkt(of:)``.
    public func projJSON(of reference: SpatialReference) throws(ProjectionError) -> String {
        let system = try system(reference)
        guard let text = proj_as_projjson(handle.context, system.object, nil) else {
            handle.takeMessage()
            throw ProjectionError(
                .unsupportedSpatialReference, "wkid \(reference.wkid) has no PROJJSON definition", source: reference.wkid)
        }
        return String(cString: text)
    }

    /// The EPSG (else ESRI) code of the reference a WKT text (OGC WKT 1 or 2, or ESRI's dialect
    /// as in a `.prj`) defines: the code the text carries, else the one PROJ identifies it with
    /// at a confidence of 70 % or more (the same reference with other names, as ESRI's
    /// `GCS_WGS_1984` is EPSG 4326); `nil` when there is none.
    /// - Throws: ``ProjectionError/Kind/unknownSpatialReference`` when PROJ cannot read the text.
    public func identify(wkt: String) throws(ProjectionError) -> SpatialReference? {
        guard let created = proj_create(handle.context, wkt) else {
            let message = handle.takeMessage() ?? "not a WKT definition"
            throw ProjectionError(.unknownSpatialReference, "PROJ cannot read the definition: \(message)")
        }
        let object = ProjObject(created, handle: handle)
        if let authority = proj_get_id_auth_name(object.object, 0), let code = proj_get_id_code(object.object, 0),
            ["EPSG", "ESRI"].contains(String(cString: authority)), let wkid = Int(String(cString: code))
        {
            return SpatialReference(wkid: wkid)
        }
        for authority in ["EPSG", "ESRI"] {
            var confidences: UnsafeMutablePointer<Int32>?
            guard let list = proj_identify(handle.context, object.object, authority, nil, &confidences) else {
                handle.takeMessage()
                continue
            }
            defer {
                proj_list_destroy(list)
                proj_int_list_destroy(confidences)
            }
            var best: (wkid: Int, confidence: Int32)?
            for i in 0..<proj_list_get_count(list) {
                let confidence = confidences?[Int(i)] ?? 0
                guard confidence >= 70, confidence > (best?.confidence ?? 0),
                    let candidate = proj_list_get(handle.context, list, i)
                else { continue }
                defer { proj_destroy(candidate) }
                if let code = proj_get_id_code(candidate, 0), let wkid = Int(String(cString: code)) {
                    best = (wkid, confidence)
                }
            }
            if let best { return SpatialReference(wkid: best.wkid) }
        }
        return nil
    }

    /// Runs `body` with the context that belongs to the calling thread, creating it on first use.
    ///
    /// The same rules as `GEOSContext.withCurrent` hold: `body` is synchronous, its result must
    /// be `Sendable` (returning the context does not compile: its `Sendable` conformance is
    /// unavailable), and a context kept in a variable outside `body` is let go by the thread,
    /// which makes a new one next time, so a context never has two users.
    public static func withCurrent<Result: Sendable, Failure: Error>(
        _ body: (ProjectionContext) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try threadSlot.borrow(
            make: {
                guard let created = try? ProjectionContext() else {
                    // proj_context_create only fails when memory is exhausted.
                    preconditionFailure("proj_context_create failed")
                }
                return created
            }, body)
    }

    /// Whether `self` is the calling thread's current context (for tests).
    static func isThreadContext(_ context: ProjectionContext) -> Bool {
        threadSlot.holds(context)
    }
}

/// Contexts are not `Sendable`: a PROJ context must not be used by two threads at once.
@available(*, unavailable)
extension ProjectionContext: Sendable {}

/// Owns one `PJ_CONTEXT` and the last message PROJ logged on it. Every ``ProjObject`` holds its
/// handle, so the context is destroyed only after the last object made with it.
final class ContextHandle {
    let context: OpaquePointer
    private let messages = MessageBox()

    final class MessageBox {
        var last: String?
    }

    init(_ context: OpaquePointer) {
        self.context = context
        let userData = Unmanaged.passUnretained(messages).toOpaque()
        proj_log_func(context, userData) { userData, level, message in
            guard let userData, level <= Int32(PJ_LOG_ERROR.rawValue) else { return }
            let box = Unmanaged<ContextHandle.MessageBox>.fromOpaque(userData).takeUnretainedValue()
            box.last = message.map { String(cString: $0) } ?? "unknown PROJ error"
        }
        _ = proj_log_level(context, PJ_LOG_ERROR)
    }

    deinit {
        proj_context_destroy(context)
    }

    /// The last logged message, cleared.
    @discardableResult
    func takeMessage() -> String? {
        defer { messages.last = nil }
        return messages.last
    }

    /// The text of PROJ's error number `code`.
    func errorText(_ code: Int32) -> String {
        cproj_errno_string(context, code).map { String(cString: $0) } ?? "PROJ error \(code)"
    }
}

/// An owned `PJ *`, destroyed with the object.
final class ProjObject {
    let object: OpaquePointer
    let handle: ContextHandle

    init(_ object: OpaquePointer, handle: ContextHandle) {
        self.object = object
        self.handle = handle
    }

    deinit {
        proj_destroy(object)
    }
}

/// One normalized (x = easting/longitude) PROJ transformation between two references.
final class Transformation {
    let operation: ProjObject
    let source: SpatialReference
    let target: SpatialReference

    init(_ operation: ProjObject, source: SpatialReference, target: SpatialReference) {
        self.operation = operation
        self.source = source
        self.target = target
    }

    /// Transforms the interleaved positions of `values` (x, y and, when `hasZ`, z at offset 2 of
    /// each `stride` doubles) in place.
    /// - Returns: The index of the first position that did not transform (an infinite or NaN
    ///   result), or `nil` when all did; the failed positions hold PROJ's `HUGE_VAL`.
    func transform(_ values: inout [Double], stride: Int, hasZ: Bool) -> Int? {
        let count = values.count / stride
        guard count > 0 else { return nil }
        let step = stride * MemoryLayout<Double>.stride
        _ = proj_errno_reset(operation.object)
        values.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            _ = proj_trans_generic(
                operation.object, PJ_FWD,
                base, step, count,
                base + 1, step, count,
                hasZ ? base + 2 : nil, hasZ ? step : 0, hasZ ? count : 0,
                nil, 0, 0)
        }
        var i = 0
        while i < count {
            let base = i * stride
            if !values[base].isFinite || !values[base + 1].isFinite || (hasZ && !values[base + 2].isFinite) { return i }
            i += 1
        }
        return nil
    }

    /// PROJ's explanation of the last failure, cleared, or a generic text.
    func failureText() -> String {
        let code = proj_errno(operation.object)
        _ = proj_errno_reset(operation.object)
        let logged = operation.handle.takeMessage()
        if code != 0 { return operation.handle.errorText(code) }
        return logged ?? "PROJ gave an infinite or NaN coordinate"
    }
}

extension Optional where Wrapped == String {
    /// The text, or the empty text for `nil`.
    var orEmpty: String { self ?? "" }
}

/// Each thread's context.
private let threadSlot = ThreadSlot<ProjectionContext>()

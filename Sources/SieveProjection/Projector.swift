import SieveGeometry

/// Projects geometries from one spatial reference to another.
///
/// ```swift
/// let projector = try Projector(from: .wgs84, to: SpatialReference(wkid: 2263))
/// let query = try projector.project(polygon, densification: .standard)
/// ```
///
/// Three paths, chosen when the projector is made:
/// - **identity** when the references are equal (`102100` equals `3857`): geometries come back
///   unchanged;
/// - **Web Mercator** between 4326 and 3857 (and its aliases): SieveGeometry's exact spherical
///   formulas (`Geometry.projected(from:to:)`, ``/SieveGeometry/WebMercator``), bit for bit as
///   before PROJ was added; envelopes stay envelopes (the formulas are axis-separable) and no
///   densification is done (lines of longitude and latitude stay straight);
/// - **PROJ** for every other pair: `proj_create_crs_to_crs` between the two references
///   (a WKID is looked up as `EPSG:<code>`, and as `ESRI:<code>` when the EPSG registry lacks
///   it), normalized with `proj_normalize_for_visualization` so that x is always the easting
///   or longitude and y the northing or latitude, whatever the CRS's official axis order.
///
/// A projector is a `Sendable` value: it can be made once and used from any thread. Each thread
/// that uses it works with its own PROJ context and transformation (``ProjectionContext``),
/// created on first use and cached for the life of the thread.
///
/// z values pass through PROJ (unchanged for two-dimensional references); m values are kept.
/// Positions that do not transform (PROJ reports an error, or gives an infinite or NaN
/// coordinate) throw ``ProjectionError/Kind/transformationFailed``; no NaN ever reaches a
/// projected geometry. Positions outside a projection's area of use that still transform to
/// finite numbers are accepted, as PROJ gives them.
public struct Projector: Hashable, Sendable {
    /// How a projector transforms positions.
    public enum Method: Hashable, Sendable {
        /// Source and target are the same reference.
        case identity
        /// The exact 4326 ⇄ 3857 formulas of ``/SieveGeometry/WebMercator``.
        case webMercator
        /// A PROJ transformation.
        case proj
    }

    /// The reference geometries are projected from.
    public let source: SpatialReference
    /// The reference geometries are projected to.
    public let target: SpatialReference
    /// The path chosen for the pair.
    public let method: Method

    /// A projector from `source` to `target`.
    ///
    /// For a PROJ pair, both references are resolved and the transformation created here (on
    /// the calling thread's context), so that unknown codes fail at once.
    /// - Throws: ``ProjectionError/Kind/unknownSpatialReference`` naming a code PROJ does not
    ///   know; ``ProjectionError/Kind/noTransformation`` when PROJ finds no way between them.
    public init(from source: SpatialReference, to target: SpatialReference) throws(ProjectionError) {
        self.source = source
        self.target = target
        if source == target {
            method = .identity
        } else if source.isProjectable, target.isProjectable {
            method = .webMercator
        } else {
            method = .proj
            try ProjectionContext.withCurrent { context throws(ProjectionError) in
                _ = try context.transformation(from: source, to: target)
            }
        }
    }

    /// The projector of the opposite direction.
    /// - Throws: As ``init(from:to:)``.
    public func inverted() throws(ProjectionError) -> Projector {
        try Projector(from: target, to: source)
    }

    /// Whether `reference` is one PROJ knows (4326 and 3857 always are).
    /// - Throws: ``ProjectionError/Kind/unknownSpatialReference`` naming the code otherwise.
    public static func validate(_ reference: SpatialReference) throws(ProjectionError) {
        if reference.isProjectable { return }
        try ProjectionContext.withCurrent { context throws(ProjectionError) in
            _ = try context.system(reference)
        }
    }

    /// `geometry` projected into ``target``, its edges densified by `densification` when given
    /// (see ``Densification``; the identity and Web Mercator paths never densify).
    ///
    /// Kinds keep their kind, except that an envelope projected through PROJ becomes a polygon:
    /// its four corners in order (counter-clockwise from the lower left), each edge densified.
    /// Use ``projectEnvelope(_:densification:)`` for the envelope of that polygon. Empty
    /// geometries come back unchanged.
    /// - Throws: ``ProjectionError/Kind/transformationFailed`` naming the first position that
    ///   does not transform; ``ProjectionError/Kind/tooComplex`` when densifying would add
    ///   more than the densification's
    ///   ``Densification/maximumAddedPositions``.
    public func project(_ geometry: Geometry, densification: Densification? = nil) throws(ProjectionError) -> Geometry {
        // Only PROJ needs the thread's context.
        guard case .proj = method else { return try projectWithoutPROJ(geometry) }
        return try ProjectionContext.withCurrent { context throws(ProjectionError) in
            try project(geometry, densification: densification, context: context)
        }
    }

    /// ``project(_:densification:)`` with an explicit context (one per thread or task).
    public func project(
        _ geometry: Geometry, densification: Densification? = nil, context: ProjectionContext
    ) throws(ProjectionError) -> Geometry {
        guard case .proj = method else { return try projectWithoutPROJ(geometry) }
        let transformation = try context.transformation(from: source, to: target)
        var run = GeometryProjection(transformation: transformation, densification: densification)
        return try run.project(geometry)
    }

    /// The identity and the exact 4326 ⇄ 3857 path.
    private func projectWithoutPROJ(_ geometry: Geometry) throws(ProjectionError) -> Geometry {
        method == .webMercator ? try exactWebMercator(geometry) : geometry
    }

    /// The position (x, y) projected into ``target``.
    /// - Throws: ``ProjectionError/Kind/transformationFailed`` when it does not transform.
    public func project(x: Double, y: Double) throws(ProjectionError) -> (x: Double, y: Double) {
        guard case .point(let point) = try project(.point(Point(x: x, y: y))) else { return (x, y) }
        return (point.x, point.y)
    }

    /// The envelope of `envelope` projected into ``target``.
    ///
    /// On the identity and Web Mercator paths, the corners projected (exact). Through PROJ, the
    /// envelope of the projected boundary, densified by `densification` so that a bulging
    /// edge is included (an extremum strictly inside the box, such as a pole, is not looked
    /// for). An empty envelope stays empty.
    /// - Throws: As ``project(_:densification:)``.
    public func projectEnvelope(
        _ envelope: Envelope, densification: Densification? = .standard
    ) throws(ProjectionError) -> Envelope {
        if envelope.isEmpty { return envelope }
        return try project(.envelope(envelope), densification: densification).envelope
    }

    /// The identity or Web Mercator path, through SieveGeometry's exact formulas.
    private func exactWebMercator(_ geometry: Geometry) throws(ProjectionError) -> Geometry {
        do {
            return try geometry.projected(from: source, to: target)
        } catch {
            throw ProjectionError(
                .transformationFailed,
                "cannot project from wkid \(source.wkid) to wkid \(target.wkid): \(error.message)",
                source: source.wkid, target: target.wkid)
        }
    }
}

/// One geometry projected through PROJ, with the densification budget it shares among its
/// parts.
struct GeometryProjection {
    let transformation: Transformation
    let densification: Densification?
    /// Positions added by densification so far.
    var added = 0

    init(transformation: Transformation, densification: Densification?) {
        self.transformation = transformation
        self.densification = densification
    }

    private var sourceWkid: Int { transformation.source.wkid }
    private var targetWkid: Int { transformation.target.wkid }

    mutating func project(_ geometry: Geometry) throws(ProjectionError) -> Geometry {
        switch geometry {
        case .point(let point):
            guard !point.isEmpty else { return geometry }
            let projected = try projectPosition(Position(point))
            return .point(Point(x: projected.x, y: projected.y, z: point.z.map { _ in projected.z }, m: point.m))
        case .multipoint(let multipoint):
            guard !multipoint.isEmpty else { return geometry }
            let buffer = try projectBuffer(multipoint.coordinates)
            return .multipoint(try rebuild { () throws(GeometryError) in try Multipoint(coordinates: buffer) })
        case .polyline(let polyline):
            guard !polyline.isEmpty else { return geometry }
            let (buffer, offsets) = try projectPaths(polyline.coordinates, offsets: polyline.pathOffsets)
            return .polyline(try rebuild { () throws(GeometryError) in try Polyline(coordinates: buffer, pathOffsets: offsets) })
        case .polygon(let polygon):
            guard !polygon.isEmpty else { return geometry }
            let (buffer, offsets) = try projectPaths(polygon.coordinates, offsets: polygon.ringOffsets)
            return .polygon(
                try rebuild { () throws(GeometryError) in
                    try Polygon(coordinates: buffer, ringOffsets: offsets, partOffsets: polygon.partOffsets)
                })
        case .envelope(let envelope):
            guard !envelope.isEmpty else { return geometry }
            let ring = CoordinateBuffer(
                values: [
                    envelope.xmin, envelope.ymin, envelope.xmax, envelope.ymin, envelope.xmax, envelope.ymax,
                    envelope.xmin, envelope.ymax, envelope.xmin, envelope.ymin,
                ], layout: .xy)
            let (buffer, offsets) = try projectPaths(ring, offsets: [0, 5])
            return .polygon(
                try rebuild { () throws(GeometryError) in try Polygon(coordinates: buffer, ringOffsets: offsets, partOffsets: [0, 1]) })
        case .collection(let collection):
            var members: [Geometry] = []
            members.reserveCapacity(collection.geometries.count)
            for member in collection.geometries { members.append(try project(member)) }
            return .collection(GeometryCollection(members))
        }
    }

    /// Builds a projected geometry; its checks cannot fail on finite projected positions, but
    /// report it as a failed transformation if they do.
    private func rebuild<T>(_ make: () throws(GeometryError) -> T) throws(ProjectionError) -> T {
        do {
            return try make()
        } catch {
            throw ProjectionError(
                .transformationFailed, "the projected geometry is invalid: \(error.message)", source: sourceWkid, target: targetWkid)
        }
    }

    /// The error for `position`, which did not transform.
    private func failure(_ position: Position) -> ProjectionError {
        ProjectionError(
            .transformationFailed,
            "cannot project (\(position.x), \(position.y)) from wkid \(sourceWkid) to wkid \(targetWkid): "
                + transformation.failureText(),
            source: sourceWkid, target: targetWkid)
    }

    /// Every position of `buffer` projected (one PROJ call).
    private func projectBuffer(_ buffer: CoordinateBuffer) throws(ProjectionError) -> CoordinateBuffer {
        var values = buffer.values
        let layout = buffer.layout
        if let bad = transformation.transform(&values, stride: layout.stride, hasZ: layout.hasZ) {
            throw failure(Position(buffer, bad))
        }
        return CoordinateBuffer(values: values, layout: layout)
    }

    /// One position projected.
    private func projectPosition(_ position: Position) throws(ProjectionError) -> Position {
        var values = position.hasZ ? [position.x, position.y, position.z] : [position.x, position.y]
        if transformation.transform(&values, stride: values.count, hasZ: position.hasZ) != nil {
            throw failure(position)
        }
        var result = position
        result.x = values[0]
        result.y = values[1]
        if position.hasZ { result.z = values[2] }
        return result
    }

    /// The paths (or rings) of `buffer` delimited by `offsets`, projected and, with a
    /// densification, densified; with the new offsets.
    private mutating func projectPaths(
        _ buffer: CoordinateBuffer, offsets: [Int]
    ) throws(ProjectionError) -> (CoordinateBuffer, [Int]) {
        let projected = try projectBuffer(buffer)
        guard let densification, buffer.count > 1 else { return (projected, offsets) }
        let tolerance = densification.resolvedTolerance(extent: projected.envelope)
        let layout = buffer.layout
        var values: [Double] = []
        values.reserveCapacity(projected.values.count)
        var newOffsets: [Int] = [0]
        newOffsets.reserveCapacity(offsets.count)
        var path = 0
        while path + 1 < offsets.count {
            let range = offsets[path]..<offsets[path + 1]
            var previous: (source: Position, projected: Position)?
            for i in range {
                let current = (source: Position(buffer, i), projected: Position(projected, i))
                if let previous {
                    try refine(previous.source, previous.projected, current.source, current.projected,
                               depth: 0, tolerance: tolerance, into: &values)
                }
                current.projected.append(to: &values, layout: layout)
                previous = current
            }
            newOffsets.append(values.count / layout.stride)
            path += 1
        }
        return (CoordinateBuffer(values: values, layout: layout), newOffsets)
    }

    /// Appends the vertices strictly between a and b that the densification rule asks for.
    /// Recursion is at most ``Densification/maximumDepth`` deep.
    private mutating func refine(
        _ a: Position, _ pa: Position, _ b: Position, _ pb: Position, depth: Int, tolerance: Double,
        into values: inout [Double]
    ) throws(ProjectionError) {
        guard depth < Densification.maximumDepth else { return }
        let middle = a.midpoint(b)
        let pm = try projectPosition(middle)
        let dx = pm.x - (pa.x / 2 + pb.x / 2), dy = pm.y - (pa.y / 2 + pb.y / 2)
        // Compared without squaring, so that huge coordinates cannot overflow.
        let deviation = Swift.max(abs(dx), abs(dy))
        guard deviation > tolerance else { return }
        added += 1
        let limit = densification?.maximumAddedPositions ?? 0
        guard added <= limit else {
            throw ProjectionError(
                .tooComplex,
                "densifying the geometry from wkid \(sourceWkid) to wkid \(targetWkid) would add more than "
                    + "\(limit) positions",
                source: sourceWkid, target: targetWkid)
        }
        let layout = CoordinateLayout(hasZ: a.hasZ, hasM: a.hasM)
        try refine(a, pa, middle, pm, depth: depth + 1, tolerance: tolerance, into: &values)
        pm.append(to: &values, layout: layout)
        try refine(middle, pm, b, pb, depth: depth + 1, tolerance: tolerance, into: &values)
    }
}

/// One position with the ordinates of its layout.
struct Position {
    var x: Double
    var y: Double
    var z: Double
    var m: Double
    var hasZ: Bool
    var hasM: Bool

    init(_ point: Point) {
        x = point.x
        y = point.y
        z = point.z ?? 0
        m = point.m ?? .nan
        hasZ = point.z != nil
        hasM = point.m != nil
    }

    init(_ buffer: CoordinateBuffer, _ index: Int) {
        let layout = buffer.layout
        let base = index * layout.stride
        let values = buffer.values
        x = values[base]
        y = values[base + 1]
        z = layout.zOffset.map { values[base + $0] } ?? 0
        m = layout.mOffset.map { values[base + $0] } ?? .nan
        hasZ = layout.hasZ
        hasM = layout.hasM
    }

    /// The midpoint in source coordinates: every ordinate halfway (halves added, so that
    /// huge coordinates cannot overflow).
    func midpoint(_ other: Position) -> Position {
        var result = self
        result.x = x / 2 + other.x / 2
        result.y = y / 2 + other.y / 2
        result.z = z / 2 + other.z / 2
        result.m = m / 2 + other.m / 2
        return result
    }

    func append(to values: inout [Double], layout: CoordinateLayout) {
        values.append(x)
        values.append(y)
        if layout.hasZ { values.append(z) }
        if layout.hasM { values.append(m) }
    }
}

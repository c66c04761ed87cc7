import SieveJSON

extension Geometry {
    /// Reads a GeoJSON geometry object (RFC 7946 §3.1).
    ///
    /// All seven geometry types are read: `Point` becomes ``Geometry/point(_:)``, `MultiPoint`
    /// ``Geometry/multipoint(_:)``, `LineString` and `MultiLineString` ``Geometry/polyline(_:)``,
    /// `Polygon` and `MultiPolygon` ``Geometry/polygon(_:)`` (one part per polygon, outer ring
    /// first), and `GeometryCollection` ``Geometry/collection(_:)`` (nested at most 32 deep).
    ///
    /// - A position has 2, 3 or 4 numbers: x, y, then z, then m. A 4th number is read as the m
    ///   (measure) value, which RFC 7946 leaves to implementations; a `null` 4th number means
    ///   "no measure" (m is NaN). When positions of one geometry differ in length, the geometry
    ///   has z (m) if any position has it, and the others get z = 0 (m = NaN).
    /// - `"coordinates": []` gives the empty geometry of that type.
    /// - Ring orientation is kept as written; members other than `type`, `coordinates` and
    ///   `geometries` (e.g. `bbox`) are ignored.
    ///
    /// ```swift
    /// let geometry = try Geometry(geoJSON: #"{"type":"Point","coordinates":[12.45,41.9]}"#)
    /// ```
    ///
    /// - Parameter geoJSON: The JSON text of one geometry object (not a `Feature`).
    /// - Throws: ``GeometryError/Kind/invalidJSON`` when the text is not JSON;
    ///   ``GeometryError/Kind/invalidGeoJSON`` when it is not a valid geometry object: an
    ///   unknown `type`, missing or `null` `coordinates`, a value of the wrong JSON type, a
    ///   position with fewer than 2 or more than 4 numbers, coordinates that are not finite, a
    ///   line string with fewer than 2 positions, a ring with fewer than 4 positions or not
    ///   closed. The error's ``GeometryError/position`` and ``GeometryError/path`` (such as
    ///   `coordinates[0][3]`) point at the offending member.
    public init(geoJSON: String) throws(GeometryError) {
        let value = try JSONReader.parse(geoJSON)
        try self.init(geoJSON: value, path: "")
    }

    /// Reads a GeoJSON geometry object from parsed JSON.
    ///
    /// `path` is the JSON path of `geoJSON` in its document (e.g. `features[3].geometry`, or
    /// `""` for the root); error paths are built on it.
    /// - Throws: ``GeometryError/Kind/invalidGeoJSON`` as ``init(geoJSON:)-(String)`` does.
    package init(geoJSON: JSONValue, path: String) throws(GeometryError) {
        self = try GeoJSONDecoder.geometry(geoJSON, path: path, depth: 1)
    }

    /// The geometry as compact GeoJSON text (RFC 7946).
    ///
    /// - Polygons: outer rings counter-clockwise, holes clockwise (RFC 7946 §3.1.6); one part
    ///   is written as a `Polygon`, several as a `MultiPolygon`, none as
    ///   `{"type":"Polygon","coordinates":[]}`.
    /// - Polylines: one path as a `LineString`, several as a `MultiLineString`, none as an empty
    ///   `LineString`.
    /// - An envelope is written as a `Polygon` (its counter-clockwise ring); the empty envelope
    ///   as an empty `Polygon`.
    /// - The empty point is `{"type":"Point","coordinates":[]}`.
    /// - z is written as the 3rd number when the geometry has z. m is written as the 4th number
    ///   when the geometry has m; a geometry with m but no z then gets 0 as its 3rd number
    ///   (reading it back gives z = 0). A NaN m ("no measure") is written as `null`.
    /// - Collections are written as `GeometryCollection`.
    public var geoJSON: String { JSONWriter.string(geoJSONValue) }

    /// The geometry as a GeoJSON geometry object (see ``geoJSON``).
    package var geoJSONValue: JSONValue {
        switch self {
        case .point(let point):
            if point.isEmpty { return GeoJSONEncoder.object("Point", .array([])) }
            let layout = point.layout
            return GeoJSONEncoder.object(
                "Point", GeoJSONEncoder.position(x: point.x, y: point.y, z: point.z, m: point.m, layout: layout))
        case .multipoint(let multipoint):
            return GeoJSONEncoder.object(
                "MultiPoint", GeoJSONEncoder.positions(multipoint.coordinates, 0..<multipoint.coordinates.count))
        case .polyline(let polyline):
            if polyline.pathCount == 0 { return GeoJSONEncoder.object("LineString", .array([])) }
            if polyline.pathCount == 1 {
                return GeoJSONEncoder.object(
                    "LineString", GeoJSONEncoder.positions(polyline.coordinates, polyline.pathRange(0)))
            }
            let paths = (0..<polyline.pathCount).map {
                GeoJSONEncoder.positions(polyline.coordinates, polyline.pathRange($0))
            }
            return GeoJSONEncoder.object("MultiLineString", .array(paths))
        case .polygon(let polygon):
            let oriented = polygon.outerRingsCounterClockwise(true)
            func rings(ofPart p: Int) -> JSONValue {
                .array(oriented.partRingRange(p).map { GeoJSONEncoder.positions(oriented.coordinates, oriented.ringRange($0)) })
            }
            switch oriented.partCount {
            case 0: return GeoJSONEncoder.object("Polygon", .array([]))
            case 1: return GeoJSONEncoder.object("Polygon", rings(ofPart: 0))
            default: return GeoJSONEncoder.object("MultiPolygon", .array((0..<oriented.partCount).map(rings(ofPart:))))
            }
        case .envelope(let envelope):
            if envelope.isEmpty { return GeoJSONEncoder.object("Polygon", .array([])) }
            let ring = envelope.ring.map { point in
                GeoJSONEncoder.position(x: point.x, y: point.y, z: nil, m: nil, layout: .xy)
            }
            return GeoJSONEncoder.object("Polygon", .array([.array(ring)]))
        case .collection(let collection):
            var object = JSONObject()
            object.append("type", .string("GeometryCollection"))
            object.append("geometries", .array(collection.geometries.map(\.geoJSONValue)))
            return .object(object)
        }
    }
}

// MARK: - Writing

private enum GeoJSONEncoder {
    static func object(_ type: String, _ coordinates: JSONValue) -> JSONValue {
        var object = JSONObject()
        object.append("type", .string(type))
        object.append("coordinates", coordinates)
        return .object(object)
    }

    static func position(x: Double, y: Double, z: Double?, m: Double?, layout: CoordinateLayout) -> JSONValue {
        var numbers: [JSONValue] = [.double(x), .double(y)]
        if layout.hasZ || layout.hasM { numbers.append(.double(z ?? 0)) }
        if layout.hasM {
            let m = m ?? .nan
            numbers.append(m.isNaN ? .null() : .double(m))
        }
        return .array(numbers)
    }

    static func positions(_ buffer: CoordinateBuffer, _ range: Range<Int>) -> JSONValue {
        let layout = buffer.layout
        let stride = layout.stride
        let zOffset = layout.zOffset
        let mOffset = layout.mOffset
        var result: [JSONValue] = []
        result.reserveCapacity(range.count)
        buffer.values.withUnsafeBufferPointer { values in
            for i in range {
                let base = i * stride
                result.append(
                    position(
                        x: values[base], y: values[base + 1], z: zOffset.map { values[base + $0] },
                        m: mOffset.map { values[base + $0] }, layout: layout))
            }
        }
        return .array(result)
    }
}

// MARK: - Reading

enum GeoJSONDecoder {
    static let maximumCollectionDepth = 32

    static func fail(_ message: String, _ value: JSONValue, _ path: String) -> GeometryError {
        GeometryError(.invalidGeoJSON, message, position: value.position, path: path)
    }

    static func geometry(_ value: JSONValue, path: String, depth: Int) throws(GeometryError) -> Geometry {
        guard case .object(let object, _) = value else {
            throw fail("expected a GeoJSON geometry object, found \(value.kindDescription)", value, path)
        }
        let typePath = JSONPath.member(path, "type")
        guard let typeValue = object["type"] else { throw fail("missing member \"type\"", value, typePath) }
        guard case .string(let type, _) = typeValue else {
            throw fail("\"type\" must be a string, found \(typeValue.kindDescription)", typeValue, typePath)
        }
        if type == "GeometryCollection" {
            guard depth <= maximumCollectionDepth else {
                throw fail("geometry collections nest deeper than \(maximumCollectionDepth)", value, path)
            }
            let membersPath = JSONPath.member(path, "geometries")
            guard let membersValue = object["geometries"] else {
                throw fail("missing member \"geometries\"", value, membersPath)
            }
            guard case .array(let elements, _) = membersValue else {
                throw fail("\"geometries\" must be an array, found \(membersValue.kindDescription)", membersValue, membersPath)
            }
            var members: [Geometry] = []
            members.reserveCapacity(elements.count)
            for (i, element) in elements.enumerated() {
                members.append(try geometry(element, path: JSONPath.element(membersPath, i), depth: depth + 1))
            }
            return .collection(GeometryCollection(members))
        }
        let level: Int
        switch type {
        case "Point": level = 0
        case "MultiPoint", "LineString": level = 1
        case "MultiLineString", "Polygon": level = 2
        case "MultiPolygon": level = 3
        case "Feature", "FeatureCollection":
            throw fail("a \(type) is not a geometry object; expected a geometry such as its \"geometry\" member", typeValue, typePath)
        default:
            throw fail(
                "unknown geometry type \"\(type)\"; expected Point, MultiPoint, LineString, MultiLineString, Polygon, "
                    + "MultiPolygon or GeometryCollection", typeValue, typePath)
        }
        let coordinatesPath = JSONPath.member(path, "coordinates")
        guard let coordinates = object["coordinates"] else {
            throw fail("missing member \"coordinates\"", value, coordinatesPath)
        }
        guard case .array(let elements, _) = coordinates else {
            throw fail("\"coordinates\" must be an array, found \(coordinates.kindDescription)", coordinates, coordinatesPath)
        }
        var collector = JSONCoordinateCollector(kind: .invalidGeoJSON, rule: .geoJSON)
        if type == "Point" {
            if elements.isEmpty { return .point(.empty) }
            try collector.collect(coordinates, level: 0, path: coordinatesPath)
            return .point(try collector.point())
        }
        try collector.collect(coordinates, level: level, path: coordinatesPath)
        let buffer = collector.buffer(layout: collector.observedLayout)
        let fallback = (coordinates.position, coordinatesPath)
        do throws(GeometryError) {
            return try shape(
                type, buffer: buffer, ringOffsets: collector.ringOffsets, partOffsets: collector.partOffsets,
                isEmpty: elements.isEmpty)
        } catch {
            let target: JSONCoordinateCollector.Target =
                switch type {
                case "MultiPoint": .multipoint
                case "LineString", "MultiLineString": .polyline
                default: .polygon
                }
            throw collector.locate(error, as: target, fallback: fallback)
        }
    }

    /// The geometry of GeoJSON type `type` (MultiPoint, LineString, MultiLineString, Polygon or
    /// MultiPolygon) from its positions and the ring and part offsets collected with them;
    /// `isEmpty` when its `coordinates` array has no element. Shared by the tree decoder and the
    /// streaming reader, so both build the same geometries.
    /// - Throws: the geometry model's error (the caller locates it).
    static func shape(
        _ type: String, buffer: CoordinateBuffer, ringOffsets: [Int], partOffsets: [Int], isEmpty: Bool
    ) throws(GeometryError) -> Geometry {
        switch type {
        case "MultiPoint":
            return .multipoint(try Multipoint(coordinates: buffer))
        case "LineString", "MultiLineString":
            if isEmpty { return .polyline(.empty) }
            let offsets = type == "LineString" ? [0, buffer.count] : ringOffsets
            return .polyline(try Polyline(coordinates: buffer, pathOffsets: offsets))
        default:  // Polygon, MultiPolygon
            if isEmpty { return .polygon(.empty) }
            let parts = type == "Polygon" ? [0, ringOffsets.count - 1] : partOffsets
            return .polygon(try Polygon(coordinates: buffer, ringOffsets: ringOffsets, partOffsets: parts))
        }
    }
}

// MARK: - Shared by the JSON geometry codecs

extension CoordinateBuffer {
    /// The positions of `values` (x, y, z, m each, z = 0 and m = NaN where absent) in `layout`.
    init(xyzm values: [Double], layout: CoordinateLayout) {
        if layout == .xyzm {
            self.init(values: values, layout: layout)
            return
        }
        var compact: [Double] = []
        compact.reserveCapacity(values.count / 4 * layout.stride)
        var i = 0
        while i + 3 < values.count {
            compact.append(values[i])
            compact.append(values[i + 1])
            if layout.hasZ { compact.append(values[i + 2]) }
            if layout.hasM { compact.append(values[i + 3]) }
            i += 4
        }
        self.init(values: compact, layout: layout)
    }
}

/// Builds JSON paths such as `features[3].geometry.coordinates[0]`.
enum JSONPath {
    /// The path of member `key` of the object at `path`.
    static func member(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : path + "." + key
    }

    /// The path of element `index` of the array at `path`.
    static func element(_ path: String, _ index: Int) -> String {
        path + "[" + String(index) + "]"
    }
}

/// Collects positions from nested JSON arrays into flat storage (always x, y, z, m; compacted to
/// the final layout by ``buffer(layout:)``), with the ring/path and part offsets, and remembers
/// where each ring and part came from so that errors of the geometry model can point at the
/// JSON member at fault.
///
/// Nesting levels: 0 is a position, 1 a list of positions (a path or ring), 2 a list of those,
/// 3 a list of polygons (lists of rings).
struct JSONCoordinateCollector {
    /// How positions are read.
    enum Rule {
        /// GeoJSON: 2 to 4 numbers, x y [z [m]]; a `null` m means no measure.
        case geoJSON
        /// Esri JSON: exactly the ordinates the `hasZ`/`hasM` flags announce (x y [z] [m]);
        /// extra numbers are ignored; a `null` m means no measure.
        case esri(CoordinateLayout)
    }

    /// The kind of the errors thrown.
    let kind: GeometryError.Kind
    let rule: Rule
    /// x, y, z, m of every position (z = 0 and m = NaN when absent).
    private(set) var values: [Double] = []
    /// Whether any position had z (GeoJSON).
    private(set) var sawZ = false
    /// Whether any position had m (GeoJSON).
    private(set) var sawM = false
    /// One more than there are level-1 lists collected through level 2 or 3, starting with 0.
    private(set) var ringOffsets = [0]
    /// Ring offsets of the parts collected through level 3, starting with 0.
    private(set) var partOffsets = [0]
    /// Position and path of every level-1 list, in order.
    private var ringSources: [(position: Int, path: String)] = []
    /// Position and path of every level-2 list collected through level 3.
    private var partSources: [(position: Int, path: String)] = []
    /// The first number that is not finite.
    private var firstNonFinite: (position: Int, path: String)?

    init(kind: GeometryError.Kind, rule: Rule) {
        self.kind = kind
        self.rule = rule
    }

    /// Number of positions collected.
    var count: Int { values.count / 4 }

    /// The layout the positions call for: from the flags for Esri JSON, from the longest
    /// position for GeoJSON.
    var observedLayout: CoordinateLayout {
        switch rule {
        case .geoJSON: CoordinateLayout(hasZ: sawZ || sawM, hasM: sawM)
        case .esri(let layout): layout
        }
    }

    private func fail(_ message: String, _ position: Int, _ path: String) -> GeometryError {
        GeometryError(kind, message, position: position, path: path)
    }

    private static func expectation(level: Int) -> String {
        switch level {
        case 0: "a position (an array of numbers)"
        case 1: "an array of positions"
        case 2: "an array of arrays of positions"
        default: "an array of polygons (arrays of rings)"
        }
    }

    /// Collects the array `value` at nesting `level`.
    mutating func collect(_ value: JSONValue, level: Int, path: String) throws(GeometryError) {
        guard case .array(let elements, let at) = value else {
            throw fail("expected \(Self.expectation(level: level)), found \(value.kindDescription)", value.position, path)
        }
        switch level {
        case 0:
            try position(elements, at: at, parent: path, index: nil)
        case 1:
            ringSources.append((at, path))
            values.reserveGrowing(values.count + elements.count * 4)
            for (i, element) in elements.enumerated() {
                guard case .array(let numbers, let elementAt) = element else {
                    throw fail(
                        "expected \(Self.expectation(level: 0)), found \(element.kindDescription)", element.position,
                        JSONPath.element(path, i))
                }
                try position(numbers, at: elementAt, parent: path, index: i)
            }
        case 2:
            for (i, element) in elements.enumerated() {
                try collect(element, level: 1, path: JSONPath.element(path, i))
                ringOffsets.append(count)
            }
        default:
            for (i, element) in elements.enumerated() {
                let elementPath = JSONPath.element(path, i)
                partSources.append((element.position, elementPath))
                try collect(element, level: 2, path: elementPath)
                partOffsets.append(ringOffsets.count - 1)
            }
        }
    }

    private mutating func position(_ numbers: [JSONValue], at: Int, parent: String, index: Int?) throws(GeometryError) {
        func path() -> String { index.map { JSONPath.element(parent, $0) } ?? parent }
        var ordinates: (Double, Double, Double, Double) = (0, 0, 0, .nan)
        switch rule {
        case .geoJSON:
            guard numbers.count >= 2 && numbers.count <= 4 else {
                throw fail("a position needs 2 to 4 numbers (x, y, z, m), found \(numbers.count)", at, path())
            }
            ordinates.0 = try number(numbers[0], path, 0)
            ordinates.1 = try number(numbers[1], path, 1)
            if numbers.count >= 3 {
                ordinates.2 = try number(numbers[2], path, 2)
                sawZ = true
            }
            if numbers.count == 4 {
                ordinates.3 = try measure(numbers[3], path, 3)
                sawM = true
            }
        case .esri(let layout):
            guard numbers.count >= layout.stride else {
                let names = ["x", "y"] + (layout.hasZ ? ["z"] : []) + (layout.hasM ? ["m"] : [])
                throw fail(
                    "a position needs \(layout.stride) numbers (\(names.joined(separator: ", ")), as hasZ and hasM say), "
                        + "found \(numbers.count)", at, path())
            }
            ordinates.0 = try number(numbers[0], path, 0)
            ordinates.1 = try number(numbers[1], path, 1)
            if let offset = layout.zOffset { ordinates.2 = try number(numbers[offset], path, offset) }
            if let offset = layout.mOffset { ordinates.3 = try measure(numbers[offset], path, offset) }
        }
        values.append(ordinates.0)
        values.append(ordinates.1)
        values.append(ordinates.2)
        values.append(ordinates.3)
    }

    private mutating func number(_ value: JSONValue, _ path: () -> String, _ k: Int) throws(GeometryError) -> Double {
        guard case .number(let number, let at) = value else {
            throw fail("expected a number, found \(value.kindDescription)", value.position, JSONPath.element(path(), k))
        }
        if !number.double.isFinite, firstNonFinite == nil {
            firstNonFinite = (at, JSONPath.element(path(), k))
        }
        return number.double
    }

    private mutating func measure(_ value: JSONValue, _ path: () -> String, _ k: Int) throws(GeometryError) -> Double {
        if case .null = value { return .nan }
        return try number(value, path, k)
    }

    /// The single position collected at level 0, as a point.
    /// - Throws: when a coordinate is not finite (points have no validating initializer).
    func point() throws(GeometryError) -> Point {
        if let firstNonFinite {
            throw fail("point coordinates must be finite numbers", firstNonFinite.position, firstNonFinite.path)
        }
        let layout = observedLayout
        return Point(
            x: values[0], y: values[1], z: layout.hasZ ? values[2] : nil, m: layout.hasM ? values[3] : nil)
    }

    /// Closes every ring of 3 or more positions whose last position differs from its first (in
    /// x or y) by repeating the first, as Esri JSON allows.
    mutating func closeRings() {
        var closed: [Double] = []
        closed.reserveCapacity(values.count + (ringOffsets.count - 1) * 4)
        var offsets = [0]
        for r in 0..<(ringOffsets.count - 1) {
            let start = ringOffsets[r], end = ringOffsets[r + 1]
            closed.append(contentsOf: values[(start * 4)..<(end * 4)])
            if end - start >= 3, values[start * 4] != values[(end - 1) * 4] || values[start * 4 + 1] != values[(end - 1) * 4 + 1] {
                closed.append(contentsOf: values[(start * 4)..<(start * 4 + 4)])
            }
            offsets.append(closed.count / 4)
        }
        values = closed
        ringOffsets = offsets
    }

    /// The positions in `layout`.
    func buffer(layout: CoordinateLayout) -> CoordinateBuffer {
        CoordinateBuffer(xyzm: values, layout: layout)
    }

    /// The positions of ring (or path) `r`.
    func points(ofRing r: Int, layout: CoordinateLayout) -> [Point] {
        (ringOffsets[r]..<ringOffsets[r + 1]).map { i in
            Point(
                x: values[i * 4], y: values[i * 4 + 1], z: layout.hasZ ? values[i * 4 + 2] : nil,
                m: layout.hasM ? values[i * 4 + 3] : nil)
        }
    }

    /// What the geometry model was asked to build, to find the member it rejected.
    enum Target { case multipoint, polyline, polygon }

    /// `error`, thrown by the geometry model for the collected coordinates, with this
    /// collector's kind and the position and path of the member at fault (found with the
    /// model's own criteria, in its order), or of `fallback`.
    func locate(_ error: GeometryError, as target: Target, fallback: (position: Int, path: String)) -> GeometryError {
        let source = culprit(target) ?? fallback
        return GeometryError(kind, error.message, position: source.position, path: source.path)
    }

    private func culprit(_ target: Target) -> (position: Int, path: String)? {
        if let firstNonFinite { return firstNonFinite }
        let ringCount = ringOffsets.count - 1
        switch target {
        case .multipoint:
            return nil
        case .polyline:
            for r in 0..<min(ringCount, ringSources.count) where ringOffsets[r + 1] - ringOffsets[r] < 2 {
                return ringSources[r]
            }
            // A LineString collected at level 1 has no ring offsets of its own.
            if ringCount == 0, let source = ringSources.first, count < 2 { return source }
            return nil
        case .polygon:
            for p in 0..<min(partOffsets.count - 1, partSources.count) where partOffsets[p + 1] <= partOffsets[p] {
                return partSources[p]
            }
            for r in 0..<min(ringCount, ringSources.count) {
                let start = ringOffsets[r], end = ringOffsets[r + 1]
                if end - start < 4 { return ringSources[r] }
                if values[start * 4] != values[(end - 1) * 4] || values[start * 4 + 1] != values[(end - 1) * 4 + 1] {
                    return ringSources[r]
                }
            }
            return nil
        }
    }
}

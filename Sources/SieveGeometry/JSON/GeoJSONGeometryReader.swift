/// A GeoJSON geometry read by ``JSONReader/readGeoJSONGeometry(scratch:)``.
import SieveJSON
package enum StreamedGeometry {
    /// `null`.
    case null
    /// A 2D point (the fast path: no ``Geometry`` value is built).
    case point(x: Double, y: Double)
    /// Any other geometry, with the name of its GeoJSON type.
    case geometry(Geometry, typeName: String)
}

/// Reusable storage for ``JSONReader/readGeoJSONGeometry(scratch:)``: positions (x, y, z, m)
/// and offsets, kept between geometries so that reading one allocates only what the geometry
/// value itself holds.
package struct GeoJSONGeometryScratch {
    var values: [Double] = []
    var ringOffsets: [Int] = [0]
    var partOffsets: [Int] = [0]
    var sawZ = false
    var sawM = false

    package init() {}

    mutating func reset() {
        values.removeAll(keepingCapacity: true)
        ringOffsets.removeAll(keepingCapacity: true)
        ringOffsets.append(0)
        partOffsets.removeAll(keepingCapacity: true)
        partOffsets.append(0)
        sawZ = false
        sawM = false
    }
}

extension JSONReader {
    /// Reads the GeoJSON geometry value (an object or `null`) at the next byte.
    ///
    /// Geometry objects with only `type` and `coordinates` members (in either order), of the
    /// six simple types, are read straight from the text; anything else (collections, other
    /// members such as `bbox`, and every geometry the model rejects) is read again as a tree
    /// by ``Geometry/init(geoJSON:path:)``, so that results and errors, with their positions
    /// and paths, are exactly that initializer's.
    /// - Throws: ``GeometryError`` as ``Geometry/init(geoJSON:path:)`` does, and for text that is
    ///   not JSON.
    package mutating func readGeoJSONGeometry(scratch: inout GeoJSONGeometryScratch) throws(GeometryError) -> StreamedGeometry {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input", at: index) }
        if bytes[index] == UInt8(ascii: "n") {
            _ = try readLiteral()
            return .null
        }
        if let point = compactPoint() { return point }
        let start = mark
        if bytes[index] == UInt8(ascii: "{"), let fast = try? fastGeometry(scratch: &scratch) {
            return fast
        }
        rewind(to: start)
        let value = try parseValue()
        if value.isNull { return .null }
        let geometry = try Geometry(geoJSON: value, path: "")
        return .geometry(geometry, typeName: value["type"]?.stringValue ?? geometry.kind.rawValue)
    }

    /// The most common geometry text of all, `{"type":"Point","coordinates":[x,y]}` without
    /// white space and with two finite numbers, read by comparing bytes; `nil` (the reader
    /// where it was) for anything else, which the general paths read.
    @inline(__always)
    private mutating func compactPoint() -> StreamedGeometry? {
        let prefix: StaticString = #"{"type":"Point","coordinates":["#
        let length = prefix.utf8CodeUnitCount
        guard let base = bytes.baseAddress, bytes.count &- index > length &+ 5, depth &+ 2 <= Self.maximumDepth else { return nil }
        let literal = prefix.utf8Start
        for k in 0..<length where base[index &+ k] != literal[k] { return nil }
        var i = index &+ length
        guard let x = try? Self.scanNumber(bytes, at: i), x.number.double.isFinite, x.end < bytes.count,
            base[x.end] == UInt8(ascii: ",")
        else { return nil }
        i = x.end &+ 1
        guard let y = try? Self.scanNumber(bytes, at: i), y.number.double.isFinite, y.end &+ 1 < bytes.count,
            base[y.end] == UInt8(ascii: "]"), base[y.end &+ 1] == UInt8(ascii: "}")
        else { return nil }
        index = y.end &+ 2
        return .point(x: x.number.double, y: y.number.double)
    }

    /// The fast path: `nil` (or any error) sends the caller to the tree path.
    private mutating func fastGeometry(scratch: inout GeoJSONGeometryScratch) throws(GeometryError) -> StreamedGeometry? {
        try enterContainer()
        var first = true
        var level = -1
        var typeName: StaticString = ""
        var collected = false
        while let key = try nextMember(first: &first) {
            if key.equals("type", in: bytes) {
                guard level < 0 else { return nil }
                let found: (Int, StaticString)? = try readString { text in
                    for (name, level) in Self.simpleTypes where text.equals(name) { return (level, name) }
                    return nil
                }
                guard let found else { return nil }
                (level, typeName) = found
            } else if key.equals("coordinates", in: bytes) {
                // Coordinates before the type, or twice: the tree path.
                guard level >= 0, !collected else { return nil }
                if level == 0, let point = try plainPoint() {
                    // The common 2D point: no scratch storage.
                    guard try closeSimpleObject() else { return nil }
                    return point
                }
                scratch.reset()
                guard try collect(level: level, scratch: &scratch) else { return nil }
                collected = true
            } else {
                return nil
            }
        }
        guard collected else { return nil }
        return try build(level: level, typeName: typeName, scratch: scratch)
    }

    /// A position of exactly two finite numbers at the next byte, as a point; `nil` (the reader
    /// then where it was) for anything else.
    private mutating func plainPoint() throws(GeometryError) -> StreamedGeometry? {
        let start = mark
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return nil }
        try enterContainer(UInt8(ascii: "["))
        var first = true
        var values: (Double, Double) = (0, 0)
        for k in 0..<2 {
            guard try nextElement(first: &first), index < bytes.count,
                bytes[index] == UInt8(ascii: "-") || (bytes[index] &- UInt8(ascii: "0")) <= 9
            else {
                rewind(to: start)
                return nil
            }
            let value = try parseNumber().double
            guard value.isFinite else {
                rewind(to: start)
                return nil
            }
            if k == 0 { values.0 = value } else { values.1 = value }
        }
        guard try !nextElement(first: &first) else {
            rewind(to: start)
            return nil
        }
        return .point(x: values.0, y: values.1)
    }

    /// After the coordinates of a point whose type came first: the rest of the geometry object
    /// must be its closing brace (anything else: `false`, for the tree path).
    private mutating func closeSimpleObject() throws(GeometryError) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "}") else { return false }
        var notFirst = false
        _ = try nextMember(first: &notFirst)
        return true
    }

    private static let simpleTypes: [(StaticString, Int)] = [
        ("Point", 0), ("MultiPoint", 1), ("LineString", 1), ("MultiLineString", 2), ("Polygon", 2), ("MultiPolygon", 3),
    ]

    /// Reads nested arrays of positions at `level` (0: a position) into `scratch`; `false`
    /// when the text is not of that shape (the tree path then reports it).
    private mutating func collect(level: Int, scratch: inout GeoJSONGeometryScratch) throws(GeometryError) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return false }
        if level == 0 { return try position(scratch: &scratch) }
        try enterContainer(UInt8(ascii: "["))
        var first = true
        while try nextElement(first: &first) {
            guard try collect(level: level - 1, scratch: &scratch) else { return false }
            if level == 2 {
                scratch.ringOffsets.append(scratch.values.count / 4)
            } else if level == 3 {
                scratch.partOffsets.append(scratch.ringOffsets.count - 1)
            }
        }
        return true
    }

    /// Reads one position: 2 to 4 finite numbers, a `null` 4th for no measure.
    @inline(__always)
    private mutating func position(scratch: inout GeoJSONGeometryScratch) throws(GeometryError) -> Bool {
        try enterContainer(UInt8(ascii: "["))
        var ordinates: (Double, Double, Double, Double) = (0, 0, 0, .nan)
        var n = 0
        var first = true
        while try nextElement(first: &first) {
            guard n < 4 else { return false }
            if n == 3, index < bytes.count, bytes[index] == UInt8(ascii: "n") {
                guard try readLiteral() == nil else { return false }
                n = 4
                continue
            }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "-") || (bytes[index] &- UInt8(ascii: "0")) <= 9
            else { return false }
            let value = try parseNumber().double
            guard value.isFinite else { return false }
            switch n {
            case 0: ordinates.0 = value
            case 1: ordinates.1 = value
            case 2: ordinates.2 = value
            default: ordinates.3 = value
            }
            n += 1
        }
        guard n >= 2 else { return false }
        if n >= 3 { scratch.sawZ = true }
        if n == 4 { scratch.sawM = true }
        scratch.values.append(ordinates.0)
        scratch.values.append(ordinates.1)
        scratch.values.append(ordinates.2)
        scratch.values.append(ordinates.3)
        return true
    }

    /// The geometry of the collected positions, built as ``Geometry/init(geoJSON:path:)``
    /// builds it; `nil` when the model rejects it.
    private func build(level: Int, typeName: StaticString, scratch: GeoJSONGeometryScratch) throws(GeometryError) -> StreamedGeometry? {
        let layout = CoordinateLayout(hasZ: scratch.sawZ || scratch.sawM, hasM: scratch.sawM)
        let values = scratch.values
        let count = values.count / 4
        if level == 0 {
            guard count == 1 else { return nil }
            if layout == .xy { return .point(x: values[0], y: values[1]) }
            let name = typeName.description
            let point = Point(x: values[0], y: values[1], z: layout.hasZ ? values[2] : nil, m: layout.hasM ? values[3] : nil)
            return .geometry(.point(point), typeName: name)
        }
        let name = typeName.description
        let isEmpty =
            switch name {
            case "LineString": count == 0
            case "MultiLineString", "Polygon": scratch.ringOffsets.count == 1
            default: scratch.partOffsets.count == 1  // MultiPolygon (MultiPoint ignores it)
            }
        do throws(GeometryError) {
            let geometry = try GeoJSONDecoder.shape(
                name, buffer: CoordinateBuffer(xyzm: values, layout: layout), ringOffsets: scratch.ringOffsets,
                partOffsets: scratch.partOffsets, isEmpty: isEmpty)
            return .geometry(geometry, typeName: name)
        } catch {
            return nil
        }
    }
}

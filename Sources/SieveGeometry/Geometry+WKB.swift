// Well-Known Binary (OGC Simple Features / ISO 13249-3, and PostGIS EWKB on input).

/// The byte order of the numbers in Well-Known Binary.
///
/// The raw value is the byte WKB puts in front of every geometry: 1 for little-endian (NDR),
/// 0 for big-endian (XDR).
public enum WKBByteOrder: UInt8, Hashable, Sendable {
    /// Least significant byte first (NDR), the order of x86 and ARM machines.
    case littleEndian = 1
    /// Most significant byte first (XDR, "network order").
    case bigEndian = 0
}

extension Geometry {
    /// Reads a geometry from Well-Known Binary.
    ///
    /// Accepted input:
    /// - either byte order, chosen by each geometry's own first byte (members of multi geometries
    ///   and collections carry their own);
    /// - ISO type codes 1 to 7 (point, line string, polygon, multipoint, multilinestring,
    ///   multipolygon, geometry collection), plus 1000 for Z, 2000 for M, 3000 for ZM;
    /// - PostGIS EWKB flags in the type: `0x80000000` (Z), `0x40000000` (M) and `0x20000000`
    ///   (a 4-byte SRID follows the type; it is read and ignored);
    /// - `POINT EMPTY` as a point whose x and y are NaN;
    /// - NaN m values, the conventional "no measure" (x, y and z must be finite).
    ///
    /// The members of a multi geometry must be of its member type and have its layout; empty
    /// members are skipped. Collections may nest at most 32 levels deep. Line strings and
    /// multilinestrings read as ``Geometry/polyline(_:)``, polygons and multipolygons as
    /// ``Geometry/polygon(_:)``, the other types as the matching case.
    ///
    /// `bytes` may be any collection of bytes (`[UInt8]`, `ArraySlice<UInt8>`, `Data`, …); one
    /// without contiguous storage is copied into an array first. Error positions are 0-based
    /// byte offsets from the start of `bytes`.
    ///
    /// - Parameter wkb: The bytes of exactly one geometry.
    /// - Throws: ``GeometryError`` of kind ``GeometryError/Kind/invalidWKB`` with the offset of
    ///   the problem: the length of the input when it ends too early, the offset of a bad byte
    ///   order, type code, count or coordinate, the first extra byte after the geometry, or the
    ///   start of a geometry whose coordinates do not form a valid one (NaN or infinite values
    ///   other than a NaN m, paths of fewer than 2 points, rings not closed or of fewer than 4
    ///   points).
    public init<Bytes: Collection<UInt8>>(wkb: Bytes) throws(GeometryError) {
        let read = { (buffer: UnsafeBufferPointer<UInt8>) -> Result<Geometry, GeometryError> in
            var reader = WKBReader(bytes: UnsafeRawBufferPointer(buffer))
            return Result { () throws(GeometryError) -> Geometry in try reader.readDocument() }
        }
        if let result = wkb.withContiguousStorageIfAvailable(read) {
            self = try result.get()
        } else {
            self = try Array(wkb).withUnsafeBufferPointer(read).get()
        }
    }

    /// The geometry as ISO Well-Known Binary.
    ///
    /// Type codes are the ISO ones (1 to 7, plus 1000 for Z, 2000 for M, 3000 for ZM); every
    /// geometry, nested ones included, is written in `byteOrder`. The types are chosen as
    /// ``wkt`` chooses them: a polyline with one path is a line string, with several a
    /// multilinestring; a polygon with one part is a polygon, with several a multipolygon; an
    /// envelope is the polygon of its ``Envelope/ring``. `POINT EMPTY` is written with NaN
    /// coordinates, an empty polyline as a line string of no points, an empty polygon or
    /// envelope as a polygon of no rings.
    ///
    /// - Parameter byteOrder: The byte order of all numbers (little-endian by default).
    /// - Returns: The bytes; ``init(wkb:)`` reads them back to an equal geometry (NaN m values,
    ///   "no measure", included), except that an envelope comes back as a polygon.
    public func wkb(byteOrder: WKBByteOrder = .littleEndian) -> [UInt8] {
        var writer = WKBWriter(byteOrder: byteOrder)
        writer.bytes.reserveCapacity(WKBWriter.estimatedSize(of: self))
        writer.write(self)
        return writer.bytes
    }
}

// MARK: - Reader

/// The WKB geometry types, by their ISO base code.
private enum WKBType: UInt32 {
    case point = 1, lineString, polygon, multiPoint, multiLineString, multiPolygon, collection

    /// The WKT name of the type.
    var name: String {
        switch self {
        case .point: "POINT"
        case .lineString: "LINESTRING"
        case .polygon: "POLYGON"
        case .multiPoint: "MULTIPOINT"
        case .multiLineString: "MULTILINESTRING"
        case .multiPolygon: "MULTIPOLYGON"
        case .collection: "GEOMETRYCOLLECTION"
        }
    }
}

/// What the header of one geometry says.
private struct WKBHeader {
    /// Offset of the byte-order byte.
    var start: Int
    /// Offset of the type code.
    var typeOffset: Int
    var littleEndian: Bool
    var type: WKBType
    var layout: CoordinateLayout
}

/// Reads WKB from raw bytes, checking every length before reading or allocating.
struct WKBReader {
    /// How deeply geometry collections may nest.
    static let maxDepth = 32

    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    private var remaining: Int { bytes.count - offset }

    private func failure(_ message: String, at position: Int) -> GeometryError {
        GeometryError(.invalidWKB, message, position: position)
    }

    /// Throws when fewer than `count` bytes remain.
    private func need(_ count: Int, _ what: String) throws(GeometryError) {
        guard remaining >= count else {
            throw failure("unexpected end of input reading \(what)", at: bytes.count)
        }
    }

    private mutating func readUInt32(_ littleEndian: Bool, _ what: String) throws(GeometryError) -> UInt32 {
        try need(4, what)
        let raw = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        offset += 4
        return littleEndian ? UInt32(littleEndian: raw) : UInt32(bigEndian: raw)
    }

    /// Reads a double without checking the length (the caller has).
    private mutating func readDoubleUnchecked(_ littleEndian: Bool) -> Double {
        let raw = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset += 8
        return Double(bitPattern: littleEndian ? UInt64(littleEndian: raw) : UInt64(bigEndian: raw))
    }

    /// Reads a count, and checks that `minimumSize` bytes per item can still follow it.
    private mutating func readCount(
        _ littleEndian: Bool, minimumSize: Int, _ what: String
    ) throws(GeometryError) -> Int {
        let position = offset
        let count = Int(try readUInt32(littleEndian, "a count of \(what)"))
        guard count <= remaining / minimumSize else {
            throw failure(
                "\(count) \(what) cannot fit in the remaining \(remaining) byte(s)", at: position)
        }
        return count
    }

    private mutating func readHeader() throws(GeometryError) -> WKBHeader {
        let start = offset
        try need(1, "a byte order")
        let order = bytes[offset]
        guard order <= 1 else {
            throw failure("invalid byte order \(order); expected 0 or 1", at: start)
        }
        offset += 1
        let littleEndian = order == 1
        let typeOffset = offset
        let code = try readUInt32(littleEndian, "a geometry type")
        var hasZ = code & 0x8000_0000 != 0
        var hasM = code & 0x4000_0000 != 0
        let hasSRID = code & 0x2000_0000 != 0
        let iso = code & 0x1FFF_FFFF
        switch iso / 1000 {
        case 0: break
        case 1: hasZ = true
        case 2: hasM = true
        case 3:
            hasZ = true
            hasM = true
        default: throw failure("unknown geometry type code \(code)", at: typeOffset)
        }
        guard let type = WKBType(rawValue: iso % 1000) else {
            throw failure("unknown geometry type code \(code)", at: typeOffset)
        }
        if hasSRID { _ = try readUInt32(littleEndian, "an SRID") }
        return WKBHeader(
            start: start, typeOffset: typeOffset, littleEndian: littleEndian, type: type,
            layout: CoordinateLayout(hasZ: hasZ, hasM: hasM))
    }

    /// Reads a member header and checks it has the expected type and layout.
    private mutating func readMemberHeader(
        _ type: WKBType, _ layout: CoordinateLayout
    ) throws(GeometryError) -> WKBHeader {
        let header = try readHeader()
        guard header.type == type else {
            throw failure("expected a \(type.name) member, found a \(header.type.name)", at: header.typeOffset)
        }
        guard header.layout == layout else {
            throw failure("member coordinate dimensions differ from the multi geometry's", at: header.typeOffset)
        }
        return header
    }

    /// Reads `count` positions, checking every ordinate is finite, except that an m value may
    /// be NaN ("no measure").
    private mutating func readPositions(
        _ count: Int, _ header: WKBHeader, into values: inout [Double]
    ) throws(GeometryError) {
        let stride = header.layout.stride
        let mOffset = header.layout.mOffset ?? -1
        try need(count * stride * 8, "coordinates")
        values.reserveGrowing(values.count + count * stride)
        for i in 0..<(count * stride) {
            let position = offset
            let value = readDoubleUnchecked(header.littleEndian)
            guard value.isFinite || (value.isNaN && i % stride == mOffset) else {
                throw failure("coordinate \(value) is not a finite number", at: position)
            }
            values.append(value)
        }
    }

    /// Reads a point's ordinates (after its header); `nil` for an empty point (NaN x and y).
    private mutating func readPoint(_ header: WKBHeader) throws(GeometryError) -> Point? {
        let layout = header.layout
        try need(layout.stride * 8, "a point")
        let start = offset
        let x = readDoubleUnchecked(header.littleEndian)
        let y = readDoubleUnchecked(header.littleEndian)
        let third = layout.stride > 2 ? readDoubleUnchecked(header.littleEndian) : 0
        let fourth = layout.stride > 3 ? readDoubleUnchecked(header.littleEndian) : 0
        if x.isNaN, y.isNaN { return nil }
        // Unused ordinates are 0; a NaN m means "no measure".
        let values = [x, y, third, fourth]
        let mIndex = layout.mOffset ?? -1
        if let k = values.indices.first(where: { !values[$0].isFinite && !(values[$0].isNaN && $0 == mIndex) }) {
            throw failure("coordinate \(values[k]) is not a finite number", at: start + 8 * k)
        }
        return Point(
            x: x, y: y,
            z: layout.hasZ ? third : nil,
            m: layout.hasM ? (layout.hasZ ? fourth : third) : nil)
    }

    /// Reads the rings of a polygon (after its header), appending their end offsets.
    private mutating func readRings(
        _ header: WKBHeader, into values: inout [Double], rings: inout [Int]
    ) throws(GeometryError) {
        let ringCount = try readCount(header.littleEndian, minimumSize: 4, "rings")
        let stride = header.layout.stride
        for _ in 0..<ringCount {
            let pointCount = try readCount(header.littleEndian, minimumSize: stride * 8, "points")
            try readPositions(pointCount, header, into: &values)
            rings.append(values.count / stride)
        }
    }

    /// Runs a model initializer, turning its error into an invalid-WKB error at `start`.
    private func validated<T>(at start: Int, _ make: () throws(GeometryError) -> T) throws(GeometryError) -> T {
        do throws(GeometryError) {
            return try make()
        } catch {
            throw failure(error.message, at: start)
        }
    }

    /// Reads the whole input: one geometry and nothing after it.
    mutating func readDocument() throws(GeometryError) -> Geometry {
        let geometry = try readGeometry(depth: 1)
        guard remaining == 0 else {
            throw failure("\(remaining) unexpected byte(s) after the geometry", at: offset)
        }
        return geometry
    }

    /// Reads one geometry; `depth` is its collection nesting level (1 at the top).
    private mutating func readGeometry(depth: Int) throws(GeometryError) -> Geometry {
        let header = try readHeader()
        let layout = header.layout
        let stride = layout.stride
        let start = header.start
        let little = header.littleEndian
        switch header.type {
        case .point:
            if let point = try readPoint(header) { return .point(point) }
            return .point(Point(x: .nan, y: .nan, z: layout.hasZ ? .nan : nil, m: layout.hasM ? .nan : nil))

        case .lineString:
            let count = try readCount(little, minimumSize: stride * 8, "points")
            var values: [Double] = []
            try readPositions(count, header, into: &values)
            let offsets = count == 0 ? [0] : [0, count]
            let buffer = CoordinateBuffer(values: values, layout: layout)
            return .polyline(try validated(at: start) { () throws(GeometryError) in
                try Polyline(coordinates: buffer, pathOffsets: offsets)
            })

        case .polygon:
            var values: [Double] = []
            var rings = [0]
            try readRings(header, into: &values, rings: &rings)
            let parts = rings.count == 1 ? [0] : [0, rings.count - 1]
            let buffer = CoordinateBuffer(values: values, layout: layout)
            return .polygon(try validated(at: start) { () throws(GeometryError) in
                try Polygon(coordinates: buffer, ringOffsets: rings, partOffsets: parts)
            })

        case .multiPoint:
            let count = try readCount(little, minimumSize: 5 + stride * 8, "points")
            var values: [Double] = []
            values.reserveCapacity(count * stride)
            for _ in 0..<count {
                let member = try readMemberHeader(.point, layout)
                if let point = try readPoint(member) {
                    values.append(point.x)
                    values.append(point.y)
                    if let z = point.z { values.append(z) }
                    if let m = point.m { values.append(m) }
                }
            }
            let buffer = CoordinateBuffer(values: values, layout: layout)
            return .multipoint(try validated(at: start) { () throws(GeometryError) in
                try Multipoint(coordinates: buffer)
            })

        case .multiLineString:
            let count = try readCount(little, minimumSize: 9, "line strings")
            var values: [Double] = []
            var offsets = [0]
            for _ in 0..<count {
                let member = try readMemberHeader(.lineString, layout)
                let pointCount = try readCount(member.littleEndian, minimumSize: stride * 8, "points")
                try readPositions(pointCount, member, into: &values)
                if pointCount > 0 { offsets.append(values.count / stride) }
            }
            let buffer = CoordinateBuffer(values: values, layout: layout)
            return .polyline(try validated(at: start) { () throws(GeometryError) in
                try Polyline(coordinates: buffer, pathOffsets: offsets)
            })

        case .multiPolygon:
            let count = try readCount(little, minimumSize: 9, "polygons")
            var values: [Double] = []
            var rings = [0]
            var parts = [0]
            for _ in 0..<count {
                let member = try readMemberHeader(.polygon, layout)
                try readRings(member, into: &values, rings: &rings)
                if rings.count - 1 > parts[parts.count - 1] { parts.append(rings.count - 1) }
            }
            let buffer = CoordinateBuffer(values: values, layout: layout)
            return .polygon(try validated(at: start) { () throws(GeometryError) in
                try Polygon(coordinates: buffer, ringOffsets: rings, partOffsets: parts)
            })

        case .collection:
            guard depth <= Self.maxDepth else {
                throw failure("geometry collections nest deeper than \(Self.maxDepth) levels", at: start)
            }
            let count = try readCount(little, minimumSize: 9, "geometries")
            var members: [Geometry] = []
            members.reserveCapacity(count)
            for _ in 0..<count {
                members.append(try readGeometry(depth: depth + 1))
            }
            return .collection(GeometryCollection(members))
        }
    }
}

// MARK: - Writer

/// Builds WKB bytes; also the WKB part of other formats' blobs (GeoPackage), which append their
/// own header to ``bytes`` first.
package struct WKBWriter {
    let littleEndian: Bool
    /// The bytes written so far.
    package var bytes: [UInt8] = []

    /// A writer of numbers in `byteOrder`.
    package init(byteOrder: WKBByteOrder) {
        littleEndian = byteOrder == .littleEndian
    }

    /// An upper bound of the size of `geometry`'s WKB, good enough to reserve once.
    static func estimatedSize(of geometry: Geometry) -> Int {
        switch geometry {
        case .point: 5 + 32
        case .multipoint(let multipoint):
            9 + multipoint.coordinates.count * (5 + 8 * multipoint.coordinates.layout.stride)
        case .polyline(let polyline): 9 + 9 * polyline.pathCount + 8 * polyline.coordinates.values.count
        case .polygon(let polygon):
            9 + 9 * polygon.partCount + 4 * polygon.ringCount + 8 * polygon.coordinates.values.count
        case .envelope: 9 + 4 + 80
        case .collection(let collection): collection.geometries.reduce(9) { $0 + estimatedSize(of: $1) }
        }
    }

    /// Appends a 32-bit integer in the writer's byte order.
    package mutating func append(_ value: UInt32) {
        let ordered = littleEndian ? value.littleEndian : value.bigEndian
        withUnsafeBytes(of: ordered) { bytes.append(contentsOf: $0) }
    }

    /// Appends a double in the writer's byte order.
    package mutating func append(_ value: Double) {
        let ordered = littleEndian ? value.bitPattern.littleEndian : value.bitPattern.bigEndian
        withUnsafeBytes(of: ordered) { bytes.append(contentsOf: $0) }
    }

    /// Writes a byte-order byte and an ISO type code.
    private mutating func header(_ type: WKBType, _ layout: CoordinateLayout) {
        bytes.append(littleEndian ? 1 : 0)
        append(type.rawValue + (layout.hasZ ? 1000 : 0) + (layout.hasM ? 2000 : 0))
    }

    private mutating func positions(_ coordinates: CoordinateBuffer, _ range: Range<Int>) {
        let stride = coordinates.layout.stride
        coordinates.values.withUnsafeBufferPointer { values in
            for i in (range.lowerBound * stride)..<(range.upperBound * stride) { append(values[i]) }
        }
    }

    private mutating func rings(_ polygon: Polygon, part p: Int) {
        let rings = polygon.partRingRange(p)
        append(UInt32(rings.count))
        for r in rings {
            let range = polygon.ringRange(r)
            append(UInt32(range.count))
            positions(polygon.coordinates, range)
        }
    }

    /// Appends `geometry`'s WKB. With `multi`, polylines, polygons and envelopes are written as
    /// MultiLineString / MultiPolygon even with one part (for a column declared as a multi type);
    /// members of collections never are.
    package mutating func write(_ geometry: Geometry, multi: Bool = false) {
        switch geometry {
        case .point(let point):
            let layout = point.layout
            header(.point, layout)
            if point.isEmpty {
                for _ in 0..<layout.stride { append(Double.nan) }
                return
            }
            append(point.x)
            append(point.y)
            if let z = point.z { append(z) }
            if let m = point.m { append(m) }

        case .multipoint(let multipoint):
            let coordinates = multipoint.coordinates
            header(.multiPoint, coordinates.layout)
            append(UInt32(coordinates.count))
            for i in 0..<coordinates.count {
                header(.point, coordinates.layout)
                positions(coordinates, i..<(i + 1))
            }

        case .polyline(let polyline):
            let layout = polyline.coordinates.layout
            if polyline.pathCount <= 1, !multi {
                header(.lineString, layout)
                let range = polyline.isEmpty ? 0..<0 : polyline.pathRange(0)
                append(UInt32(range.count))
                positions(polyline.coordinates, range)
                return
            }
            header(.multiLineString, layout)
            append(UInt32(polyline.pathCount))
            for p in 0..<polyline.pathCount {
                header(.lineString, layout)
                let range = polyline.pathRange(p)
                append(UInt32(range.count))
                positions(polyline.coordinates, range)
            }

        case .polygon(let polygon):
            let layout = polygon.coordinates.layout
            if polygon.partCount <= 1, !multi {
                header(.polygon, layout)
                if polygon.isEmpty {
                    append(UInt32(0))
                } else {
                    rings(polygon, part: 0)
                }
                return
            }
            header(.multiPolygon, layout)
            append(UInt32(polygon.partCount))
            for p in 0..<polygon.partCount {
                header(.polygon, layout)
                rings(polygon, part: p)
            }

        case .envelope(let envelope):
            if multi {
                header(.multiPolygon, .xy)
                append(UInt32(envelope.isEmpty ? 0 : 1))
                guard !envelope.isEmpty else { return }
            }
            header(.polygon, .xy)
            guard !envelope.isEmpty else {
                append(UInt32(0))
                return
            }
            append(UInt32(1))
            append(UInt32(5))
            for point in envelope.ring {
                append(point.x)
                append(point.y)
            }

        case .collection(let collection):
            header(.collection, WKTWriter.collectionLayout(of: collection.geometries))
            append(UInt32(collection.geometries.count))
            for member in collection.geometries { write(member) }
        }
    }
}

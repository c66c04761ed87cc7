import SieveFeatures
import SieveGeometry

/// The shape types of the ESRI Shapefile Technical Description (July 1998).
enum ShapeType: Int32 {
    case null = 0
    case point = 1
    case polyline = 3
    case polygon = 5
    case multipoint = 8
    case pointZ = 11
    case polylineZ = 13
    case polygonZ = 15
    case multipointZ = 18
    case pointM = 21
    case polylineM = 23
    case polygonM = 25
    case multipointM = 28
    case multipatch = 31

    /// The table's geometry type; `nil` for null and MultiPatch.
    var geometryType: GeometryType? {
        switch self {
        case .point, .pointZ, .pointM: .point
        case .multipoint, .multipointZ, .multipointM: .multipoint
        case .polyline, .polylineZ, .polylineM: .polyline
        case .polygon, .polygonZ, .polygonM: .polygon
        case .null, .multipatch: nil
        }
    }

    var hasZ: Bool { (11...18).contains(rawValue) }
    /// Whether records may carry measures (Z types may; M types do).
    var mayHaveM: Bool { rawValue >= 11 && rawValue != 31 }

    /// The shape type storing `geometryType` with Z and M values as `layout` says.
    static func of(_ geometryType: GeometryType?, layout: CoordinateLayout) -> ShapeType {
        let base: Int32
        switch geometryType {
        case .point: base = 1
        case .multipoint: base = 8
        case .polyline: base = 3
        case .polygon, .envelope: base = 5
        case nil: return .null
        }
        let offset: Int32 = layout.hasZ ? 10 : layout.hasM ? 20 : 0
        return ShapeType(rawValue: base + offset) ?? .null
    }

    /// `PolygonZ`, as messages name the type.
    var name: String {
        switch self {
        case .null: "Null"
        case .point: "Point"
        case .polyline: "PolyLine"
        case .polygon: "Polygon"
        case .multipoint: "MultiPoint"
        case .pointZ: "PointZ"
        case .polylineZ: "PolyLineZ"
        case .polygonZ: "PolygonZ"
        case .multipointZ: "MultiPointZ"
        case .pointM: "PointM"
        case .polylineM: "PolyLineM"
        case .polygonM: "PolygonM"
        case .multipointM: "MultiPointM"
        case .multipatch: "MultiPatch"
        }
    }
}

/// The main file of a shapefile (`.shp`): its header and its records, read into a geometry
/// column. Records are found through the index (`.shx`) when there is one, else one after the
/// other. Polygon rings are grouped as the format says (outer rings clockwise, holes
/// counter-clockwise, each hole in the outer ring that contains it); measures below −10³⁸ are
/// "no data", and a file whose records have no measure at all reads without M.
struct ShapeReader {
    let bytes: UnsafeRawBufferPointer
    let shapeType: ShapeType
    /// The byte offset of each record's header.
    let recordOffsets: [Int]

    /// Reads the header of `bytes` and the record offsets from `index` (the `.shx`), or from
    /// the records themselves without one.
    /// - Throws: ``FileFormatError`` of kind malformed (bad file code, offsets outside the
    ///   file) or unsupported (MultiPatch) with the byte offset, in the member it concerns.
    init(_ bytes: UnsafeRawBufferPointer, index: UnsafeRawBufferPointer?, shpName: String, shxName: String) throws(FileFormatError) {
        self.bytes = bytes
        guard bytes.count >= 100, Self.bigEndianInt32(bytes, 0) == 9994 else {
            throw FileFormatError(.malformed, "not a shapefile: the file does not start with the file code 9994", member: shpName, byteOffset: 0)
        }
        let rawType = Self.int32(bytes, 32)
        guard let type = ShapeType(rawValue: rawType) else {
            throw FileFormatError(.malformed, "shape type \(rawType) is not one the format defines", member: shpName, byteOffset: 32)
        }
        guard type != .multipatch else {
            throw FileFormatError(.unsupported, "MultiPatch shapes (3D surfaces) are not read", member: shpName, byteOffset: 32)
        }
        shapeType = type
        var offsets: [Int] = []
        if let index {
            guard index.count >= 100, Self.bigEndianInt32(index, 0) == 9994, (index.count - 100) % 8 == 0 else {
                throw FileFormatError(.malformed, "not a shapefile index: bad header or length \(index.count)", member: shxName, byteOffset: 0)
            }
            let count = (index.count - 100) / 8
            offsets.reserveCapacity(count)
            for i in 0..<count {
                let at = 100 + 8 * i
                let offset = Int(Self.bigEndianInt32(index, at)) * 2
                guard offset >= 100, offset + 8 <= bytes.count else {
                    throw FileFormatError(
                        .malformed, "record \(i + 1) is said to start at byte \(offset), outside the .shp of \(bytes.count) bytes",
                        member: shxName, record: i + 1, byteOffset: at)
                }
                offsets.append(offset)
            }
        } else {
            var at = 100
            while at + 8 <= bytes.count {
                offsets.append(at)
                let length = Int(Self.bigEndianInt32(bytes, at + 4)) * 2
                guard length >= 0, at + 8 + length <= bytes.count else {
                    throw FileFormatError(
                        .malformed, "record \(offsets.count) of \(length) bytes runs past the end of the file",
                        member: shpName, record: offsets.count, byteOffset: at)
                }
                at += 8 + length
            }
        }
        recordOffsets = offsets
    }

    var recordCount: Int { recordOffsets.count }

    /// The layout of the file's coordinates: Z for Z types, M when any record holds a measure
    /// that is not "no data".
    func layout(records: [Int]) throws(FileFormatError) -> CoordinateLayout {
        guard shapeType.mayHaveM else { return CoordinateLayout(hasZ: shapeType.hasZ) }
        for record in records {
            let shape = try content(record)
            guard shape.type != 0 else { continue }
            if measures(shape).contains(where: { $0 >= -1e38 }) { return CoordinateLayout(hasZ: shapeType.hasZ, hasM: true) }
        }
        return CoordinateLayout(hasZ: shapeType.hasZ)
    }

    /// A record's content: where it starts, its length and its shape type.
    struct Content {
        var start: Int
        var length: Int
        var type: Int32
        var record: Int
    }

    /// The content of record `index` (from 0), checked to lie in the file and to hold the
    /// file's shape type or a null shape.
    func content(_ index: Int) throws(FileFormatError) -> Content {
        let at = recordOffsets[index]
        let length = Int(Self.bigEndianInt32(bytes, at + 4)) * 2
        let start = at + 8
        guard length >= 4, start + length <= bytes.count else {
            throw FileFormatError(.malformed, "a record of \(length) bytes that runs past the end of the file or holds no shape type", record: index + 1, byteOffset: at)
        }
        let type = Self.int32(bytes, start)
        guard type == 0 || type == shapeType.rawValue else {
            let name = ShapeType(rawValue: type)?.name ?? "type \(type)"
            throw FileFormatError(.invalidGeometry, "a \(name) shape in a file of \(shapeType.name) shapes", record: index + 1, byteOffset: start)
        }
        return Content(start: start, length: length, type: type, record: index + 1)
    }

    /// The measures a record holds (empty when it has none).
    private func measures(_ shape: Content) -> [Double] {
        let end = shape.start + shape.length
        switch shapeType {
        case .pointM: return shape.length >= 28 ? [Self.double(bytes, shape.start + 20)] : []
        case .pointZ: return shape.length >= 36 ? [Self.double(bytes, shape.start + 28)] : []
        case .multipointM, .multipointZ, .polylineM, .polylineZ, .polygonM, .polygonZ:
            guard let layout = try? pointLayout(shape) else { return [] }
            guard let mStart = layout.mStart, mStart + 8 * layout.points <= end else { return [] }
            return (0..<layout.points).map { Self.double(bytes, mStart + 8 * $0) }
        default: return []
        }
    }

    /// Where the parts, points, Z and M values of a multipoint, polyline or polygon record lie.
    struct PointLayout {
        var parts: Int
        var points: Int
        var partsStart: Int
        var pointsStart: Int
        var zStart: Int?
        var mStart: Int?
    }

    /// The layout of `shape`, its counts checked against the record's length.
    private func pointLayout(_ shape: Content) throws(FileFormatError) -> PointLayout {
        let multipoint = shapeType.geometryType == .multipoint
        let headerSize = multipoint ? 40 : 44
        guard shape.length >= headerSize else {
            throw FileFormatError(.invalidGeometry, "a \(shapeType.name) record of \(shape.length) bytes is too short for its counts", record: shape.record, byteOffset: shape.start)
        }
        let parts = multipoint ? 1 : Int(Self.int32(bytes, shape.start + 36))
        let points = Int(Self.int32(bytes, shape.start + (multipoint ? 36 : 40)))
        let partsStart = shape.start + headerSize
        let pointsStart = partsStart + (multipoint ? 0 : 4 * parts)
        guard parts >= 0, points >= 0, parts <= shape.length, points <= shape.length,
            pointsStart + 16 * points <= shape.start + shape.length
        else {
            throw FileFormatError(
                .invalidGeometry, "\(parts) parts and \(points) points do not fit a record of \(shape.length) bytes",
                record: shape.record, byteOffset: shape.start + 36)
        }
        let end = shape.start + shape.length
        var zStart: Int?
        var next = pointsStart + 16 * points
        if shapeType.hasZ {
            guard next + 16 + 8 * points <= end else {
                throw FileFormatError(.invalidGeometry, "the record ends before its Z values", record: shape.record, byteOffset: next)
            }
            zStart = next + 16
            next += 16 + 8 * points
        }
        var mStart: Int?
        if shapeType.mayHaveM, next + 16 + 8 * points <= end {
            mStart = next + 16
        } else if shapeType.mayHaveM, !shapeType.hasZ {
            throw FileFormatError(.invalidGeometry, "the record ends before its M values", record: shape.record, byteOffset: next)
        }
        return PointLayout(parts: parts, points: points, partsStart: partsStart, pointsStart: pointsStart, zStart: zStart, mStart: mStart)
    }

    /// Appends the geometry of record `index` to `column` (`nil` for a null shape).
    func append(record index: Int, layout: CoordinateLayout, to column: inout GeometryColumn) throws(FileFormatError) {
        let shape = try content(index)
        if shape.type == 0 {
            column.append(nil)
            return
        }
        let s = shape.start
        switch shapeType {
        case .point, .pointZ, .pointM:
            let needed = shapeType == .point ? 20 : 28
            guard shape.length >= needed else {
                throw FileFormatError(.invalidGeometry, "a \(shapeType.name) record of \(shape.length) bytes", record: shape.record, byteOffset: s)
            }
            let x = Self.double(bytes, s + 4)
            let y = Self.double(bytes, s + 12)
            var z: Double?
            var m: Double?
            if shapeType == .pointZ { z = Self.double(bytes, s + 20) }
            if layout.hasM {
                let mAt = shapeType == .pointM ? s + 20 : s + 28
                let value = mAt + 8 <= s + shape.length ? Self.double(bytes, mAt) : -Double.greatestFiniteMagnitude
                m = value < -1e38 ? .nan : value
            }
            if x.isNaN || y.isNaN {
                column.append(nil)
                return
            }
            column.appendPoint(x: x, y: y, z: z, m: m)
        default:
            let p = try pointLayout(shape)
            var values: [Double] = []
            values.reserveCapacity(p.points * layout.stride)
            for i in 0..<p.points {
                values.append(Self.double(bytes, p.pointsStart + 16 * i))
                values.append(Self.double(bytes, p.pointsStart + 16 * i + 8))
                if layout.hasZ, let zStart = p.zStart { values.append(Self.double(bytes, zStart + 8 * i)) }
                if layout.hasM {
                    let value = p.mStart.map { Self.double(bytes, $0 + 8 * i) } ?? -Double.greatestFiniteMagnitude
                    values.append(value < -1e38 ? .nan : value)
                }
            }
            let coordinates = CoordinateBuffer(values: values, layout: layout)
            if p.points == 0 {
                column.append(nil)
                return
            }
            var offsets: [Int] = []
            if shapeType.geometryType != .multipoint {
                offsets.reserveCapacity(p.parts + 1)
                for k in 0..<p.parts {
                    let start = Int(Self.int32(bytes, p.partsStart + 4 * k))
                    guard start >= 0, start < p.points, start >= (offsets.last ?? 0), k > 0 || start == 0 else {
                        throw FileFormatError(
                            .invalidGeometry, "part \(k + 1) starts at point \(start) of \(p.points)", record: shape.record,
                            byteOffset: p.partsStart + 4 * k)
                    }
                    offsets.append(start)
                }
                offsets.append(p.points)
            }
            do throws(GeometryError) {
                switch shapeType.geometryType {
                case .multipoint:
                    column.append(.multipoint(try Multipoint(coordinates: coordinates)))
                case .polyline:
                    column.append(.polyline(try Polyline(coordinates: coordinates, pathOffsets: offsets)))
                default:
                    let rings = (0..<p.parts).map { k in (offsets[k]..<offsets[k + 1]).map { coordinates[$0] } }
                    column.append(.polygon(try Polygon(esriRings: rings, layout: layout)))
                }
            } catch {
                throw FileFormatError(.invalidGeometry, error.message, record: shape.record, byteOffset: s)
            }
        }
    }

    @inline(__always)
    static func int32(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> Int32 {
        Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: Int32.self))
    }

    @inline(__always)
    static func bigEndianInt32(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> Int32 {
        Int32(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: Int32.self))
    }

    @inline(__always)
    static func double(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> Double {
        Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
    }
}

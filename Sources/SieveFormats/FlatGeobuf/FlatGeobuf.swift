import Foundation
import SieveBase
import SieveColumns
import SieveFeatures
import SieveGeometry
import SieveJSON
import SieveProjection

/// A feature table read from a FlatGeobuf file.
public struct FlatGeobufLayer: Sendable {
    /// A column of a type GeoSieve does not read (`Binary`), left out.
    public struct SkippedColumn: Hashable, Sendable {
        /// The column's name.
        public var name: String
        /// Its FlatGeobuf type (`Binary`).
        public var type: String
    }

    /// The layer's name: the header's, else the file name without extension.
    public var name: String
    /// The features, in file order: `FID` (the position in the file, from 0, as GDAL numbers
    /// them) is the object-ID field, then the header's columns.
    public var table: FeatureTable
    /// The features in the file (the header's count), whether or not a box left some out.
    public var featuresInFile: Int
    /// Whether the file has a spatial index (a read with a box then reads only the features
    /// whose boxes it finds).
    public var hasIndex: Bool
    /// The columns that were not read.
    public var skippedColumns: [SkippedColumn]
}

/// How ``FlatGeobuf/write(_:rows:to:options:)`` writes.
public struct FlatGeobufWriteOptions: Hashable, Sendable {
    /// Whether to write the packed Hilbert R-tree (the default), which sorts the features along
    /// a Hilbert curve; without it the features keep the table's order.
    public var index: Bool
    /// The layer's name in the header (`nil`: none).
    public var layerName: String?

    /// Default options: with the index.
    public init(index: Bool = true, layerName: String? = nil) {
        self.index = index
        self.layerName = layerName
    }
}

/// FlatGeobuf files (version 3): reading them whole or only the features a box meets (through
/// the file's packed Hilbert R-tree, without reading the rest), and writing a table as one.
///
/// ```swift
/// let roads = try FlatGeobuf.read(at: "roads.fgb")
/// let nearby = try FlatGeobuf.read(at: "roads.fgb", intersecting: Envelope(xmin: 8, ymin: 47, xmax: 9, ymax: 48))
/// try FlatGeobuf.write(roads.table, to: "copy.fgb")
/// ```
///
/// The rules are in <doc:FlatGeobufFiles>.
public enum FlatGeobuf {
    /// The column types of the format, by their number.
    static let columnTypeNames = [
        "Byte", "UByte", "Bool", "Short", "UShort", "Int", "UInt", "Long", "ULong", "Float", "Double", "String", "Json", "DateTime", "Binary",
    ]

    /// Whether `path` names a FlatGeobuf file by its extension (`.fgb`, any case).
    public static func hasFlatGeobufExtension(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".fgb")
    }

    /// Reads a FlatGeobuf file: every feature, or with `box`, those whose bounding boxes meet it
    /// (found through the index when the file has one, else by reading every feature's box).
    /// - Throws: ``FileFormatError`` naming the file, the feature (from 1, in file order) and the
    ///   byte offset.
    public static func read(at path: String, intersecting box: Envelope? = nil) throws(FileFormatError) -> FlatGeobufLayer {
        do throws(FileFormatError) {
            let file = try FileBytes(path: path)
            let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            return try file.withUnsafeBytes { (bytes) throws(FileFormatError) in try FlatGeobufReader(bytes).read(box: box, fileName: name) }
        } catch {
            throw error.located(path: path)
        }
    }

    /// Reads FlatGeobuf bytes held in memory (a download, say), as ``read(at:intersecting:)``
    /// reads a file; the layer is named `name` when the header names none.
    public static func read(bytes: [UInt8], name: String = "layer", intersecting box: Envelope? = nil) throws(FileFormatError) -> FlatGeobufLayer {
        try FileBytes(bytes).withUnsafeBytes { (raw) throws(FileFormatError) in try FlatGeobufReader(raw).read(box: box, fileName: name) }
    }
}

/// Reads a FlatGeobuf file held in memory.
struct FlatGeobufReader {
    let bytes: UnsafeRawBufferPointer
    let header: FlatBufferTable
    let geometryType: UInt8
    let hasZ: Bool
    let hasM: Bool
    let featureCount: Int
    let nodeSize: Int
    let featuresStart: Int
    let columns: [(name: String, type: UInt8)]

    init(_ bytes: UnsafeRawBufferPointer) throws(FileFormatError) {
        self.bytes = bytes
        guard bytes.count >= 12, bytes[0] == 0x66, bytes[1] == 0x67, bytes[2] == 0x62, bytes[4] == 0x66, bytes[5] == 0x67, bytes[6] == 0x62
        else {
            throw FileFormatError(.malformed, "not a FlatGeobuf file: it does not start with the magic bytes \"fgb\", 3, \"fgb\"", byteOffset: 0)
        }
        guard bytes[3] == 3 else { throw FileFormatError(.unsupported, "FlatGeobuf version \(bytes[3]) (version 3 is read)", byteOffset: 3) }
        let headerSize = Int(FlatBufferTable.uint32(bytes, 8))
        guard headerSize <= bytes.count - 12 else {
            throw FileFormatError(.malformed, "a header of \(headerSize) bytes in a file of \(bytes.count)", byteOffset: 8)
        }
        header = try FlatBufferTable.root(bytes, start: 12, end: 12 + headerSize)
        geometryType = try header.uint8(2)
        hasZ = try header.bool(3)
        hasM = try header.bool(4)
        let count = try header.uint64(8)
        guard count <= UInt64(bytes.count) else {
            throw FileFormatError(.malformed, "the header counts \(count) features in a file of \(bytes.count) bytes", byteOffset: 12)
        }
        featureCount = Int(count)
        nodeSize = Int(try header.uint16(9, default: 16))
        var columns: [(String, UInt8)] = []
        for column in try header.tables(7) {
            guard let name = try column.text(0) else { throw FileFormatError(.malformed, "a column without a name", byteOffset: column.position) }
            columns.append((name, try column.uint8(1)))
        }
        self.columns = columns
        var indexSize = 0
        if nodeSize > 0, featureCount > 0 {
            guard nodeSize >= 2 else { throw FileFormatError(.malformed, "an index node size of \(nodeSize)", byteOffset: 12) }
            indexSize = PackedRTree.levels(items: featureCount, nodeSize: nodeSize).nodeCount * PackedRTree.nodeBytes
        }
        featuresStart = 12 + headerSize + indexSize
        guard featuresStart <= bytes.count else {
            throw FileFormatError(.malformed, "the index of \(indexSize) bytes runs past the end of the file", byteOffset: 12 + headerSize)
        }
    }

    /// The spatial reference the header's `crs` names (WGS 84 when it has none, as GDAL reads
    /// a file without one: unknown, WKID 0).
    func spatialReference() throws(FileFormatError) -> SpatialReference {
        guard let crs = try header.table(10) else { return SpatialReference(wkid: 0) }
        let code = Int(try crs.int32(1))
        let org = (try crs.text(0) ?? "EPSG").uppercased()
        if code > 0, org == "EPSG" || org == "ESRI" { return SpatialReference(wkid: code) }
        if let wkt = try crs.text(4), !wkt.isEmpty,
            let identified = try? ProjectionContext.withCurrent({ (context) throws(ProjectionError) in try context.identify(wkt: wkt) })
        {
            return identified
        }
        return SpatialReference(wkid: 0)
    }

    func read(box: Envelope?, fileName: String) throws(FileFormatError) -> FlatGeobufLayer {
        // The features to read: (position in the file, byte offset from the first feature).
        var selected: [(index: Int, offset: Int)] = []
        if let box, nodeSize > 0, featureCount > 0 {
            let tree = PackedRTree(bytes, start: featuresStart - PackedRTree.levels(items: featureCount, nodeSize: nodeSize).nodeCount * PackedRTree.nodeBytes,
                items: featureCount, nodeSize: nodeSize)
            selected = try tree.search(box)
        } else {
            var offset = 0
            var index = 0
            while featuresStart + offset + 4 <= bytes.count, featureCount == 0 || index < featureCount {
                selected.append((index, offset))
                let size = Int(FlatBufferTable.uint32(bytes, featuresStart + offset))
                offset += 4 + size
                index += 1
            }
        }
        var builders: [FlatGeobufColumnBuilder] = []
        var skipped: [FlatGeobufLayer.SkippedColumn] = []
        for (k, column) in columns.enumerated() {
            if column.type == 14 || column.type > 14 {
                skipped.append(.init(name: column.name, type: column.type < 15 ? FlatGeobuf.columnTypeNames[Int(column.type)] : "type \(column.type)"))
            }
            builders.append(FlatGeobufColumnBuilder(index: k, name: column.name, type: column.type))
        }
        var tableType = try geometryTableType()
        var geometries = GeometryColumn(storage: tableType == .point ? .points : .shapes)
        var tracker = GeometryTypeTracker()
        var objectIDs: [Int64] = []
        objectIDs.reserveCapacity(selected.count)
        let layout = CoordinateLayout(hasZ: hasZ, hasM: hasM)
        // Without an index, a box is applied to each feature's geometry as it is read.
        let filter = nodeSize > 0 && featureCount > 0 ? nil : box
        var row = 0
        for (index, offset) in selected {
            let at = featuresStart + offset
            do throws(FileFormatError) {
                guard at + 4 <= bytes.count else { throw FileFormatError(.malformed, "the feature starts past the end of the file", byteOffset: at) }
                let size = Int(FlatBufferTable.uint32(bytes, at))
                guard size <= bytes.count - at - 4 else {
                    throw FileFormatError(.malformed, "a feature of \(size) bytes runs past the end of the file", byteOffset: at)
                }
                let feature = try FlatBufferTable.root(bytes, start: at + 4, end: at + 4 + size)
                var decoded: Geometry?
                if let geometry = try feature.table(0) {
                    // A header of type Unknown: each geometry says its type, and the table's
                    // is the one they share (single and multi types of a kind mixing).
                    let type = geometryType == 0 ? try geometry.uint8(6) : geometryType
                    guard geometryType != 0 || [1, 2, 3, 4, 5, 6].contains(type) else {
                        throw FileFormatError(.unsupported, "geometry type \(type) (curves, surfaces and collections are not read)", byteOffset: geometry.position)
                    }
                    decoded = try FlatGeobufGeometry.decode(geometry, type: type, layout: layout)
                    if geometryType == 0, let decoded {
                        do throws(FeatureTableError) {
                            try tracker.add(decoded, name: decoded.kind.rawValue, index: index, objectID: nil)
                        } catch {
                            throw FileFormatError(.invalidGeometry, error.message, byteOffset: geometry.position)
                        }
                    }
                    if tableType == .multipoint, case .point(let point) = decoded {
                        do throws(GeometryError) {
                            decoded = .multipoint(try Multipoint(points: [point], layout: layout))
                        } catch {
                            throw FileFormatError(.invalidGeometry, error.message, byteOffset: geometry.position)
                        }
                    }
                }
                if let filter {
                    guard let e = decoded?.envelope, e.xmin <= filter.xmax, e.xmax >= filter.xmin, e.ymin <= filter.ymax, e.ymax >= filter.ymin
                    else { continue }
                }
                geometries.append(decoded)
                if let (start, count) = try feature.vector(1, elementSize: 1) {
                    try FlatGeobufProperties.read(bytes, start: start, count: count, into: &builders, row: row)
                }
                for k in builders.indices { builders[k].finishRow(row) }
            } catch {
                var located = error
                if located.record == nil { located.record = index + 1 }
                throw located
            }
            objectIDs.append(Int64(index))
            row += 1
        }
        if geometryType == 0, let type = tracker.type {
            tableType = type
            if type == .multipoint, tracker.sawPoint {
                do throws(FeatureTableError) {
                    geometries = GeometryColumn(try GeometryTypeTracker.pointsAsMultipoints((0..<geometries.count).map { geometries[$0] }))
                } catch {
                    throw FileFormatError(.invalidGeometry, error.message)
                }
            }
        }
        var fields = [Field(name: "FID", type: .oid)]
        var taken = Set(columns.map { $0.name.lowercased() })
        var suffix = 0
        while taken.contains(fields[0].name.lowercased()) {
            suffix += 1
            fields[0] = Field(name: "FID_\(suffix)", type: .oid)
        }
        taken.insert(fields[0].name.lowercased())
        var tableColumns = [Column.integer(Int64Column(values: objectIDs))]
        for k in builders.indices where !skipped.contains(where: { $0.name == builders[k].name }) {
            let (field, column) = try builders[k].finish(rows: row)
            fields.append(field)
            tableColumns.append(column)
        }
        let name = (try header.text(0)).flatMap { $0.isEmpty ? nil : $0 } ?? fileName
        let reference = try spatialReference()
        do throws(FeatureTableError) {
            let schema = try Schema(
                fields: fields, objectIdFieldName: fields[0].name, geometryType: tableType, spatialReference: reference)
            let table = try FeatureTable(schema: schema, columns: tableColumns, geometryColumn: tableType == nil ? GeometryColumn() : geometries)
            return FlatGeobufLayer(name: name, table: table, featuresInFile: featureCount, hasIndex: nodeSize > 0, skippedColumns: skipped)
        } catch {
            throw FileFormatError(.invalidValue, error.message, fieldName: error.fieldName)
        }
    }

    /// The table's geometry type for the header's: `nil` for Unknown (a type per feature).
    func geometryTableType() throws(FileFormatError) -> GeometryType? {
        switch geometryType {
        case 1: return .point
        case 4: return .multipoint
        case 2, 5: return .polyline
        case 3, 6: return .polygon
        case 0: return nil
        default:
            throw FileFormatError(.unsupported, "geometry type \(geometryType) (curves, surfaces and collections are not read)", byteOffset: 12)
        }
    }
}

/// Decoding and encoding of FlatGeobuf geometries (`Geometry` tables: `ends`, `xy`, `z`, `m`,
/// `parts`).
enum FlatGeobufGeometry {
    static func decode(_ geometry: FlatBufferTable, type: UInt8, layout: CoordinateLayout) throws(FileFormatError) -> Geometry? {
        if type == 6 {
            var parts: [[[Point]]] = []
            for part in try geometry.tables(7) {
                parts.append(try rings(part, layout: layout))
            }
            if parts.isEmpty {
                // A MultiPolygon of one part may be written without parts, as a Polygon.
                let single = try rings(geometry, layout: layout)
                if !single.isEmpty { parts = [single] }
            }
            guard !parts.isEmpty else { return nil }
            return try make(geometry) { () throws(GeometryError) in .polygon(try Polygon(parts: parts, layout: layout)) }
        }
        let points = try coordinates(geometry, layout: layout)
        guard !points.isEmpty else { return nil }
        let ends = try self.ends(geometry, count: points.count)
        switch type {
        // A point of NaN coordinates is POINT EMPTY: no geometry, as the writer writes it.
        case 1: return points[0].isEmpty ? nil : .point(points[0])
        case 4: return try make(geometry) { () throws(GeometryError) in .multipoint(try Multipoint(points: points, layout: layout)) }
        case 2, 5:
            let paths = split(points, ends)
            return try make(geometry) { () throws(GeometryError) in .polyline(try Polyline(paths: paths, layout: layout)) }
        default:
            let rings = split(points, ends)
            return try make(geometry) { () throws(GeometryError) in .polygon(try Polygon(parts: [rings], layout: layout)) }
        }
    }

    private static func make(_ geometry: FlatBufferTable, _ body: () throws(GeometryError) -> Geometry) throws(FileFormatError) -> Geometry {
        do throws(GeometryError) {
            return try body()
        } catch {
            throw FileFormatError(.invalidGeometry, error.message, byteOffset: geometry.position)
        }
    }

    private static func rings(_ geometry: FlatBufferTable, layout: CoordinateLayout) throws(FileFormatError) -> [[Point]] {
        let points = try coordinates(geometry, layout: layout)
        guard !points.isEmpty else { return [] }
        return split(points, try ends(geometry, count: points.count))
    }

    /// The points of `xy` (with `z` and `m` when the layout has them).
    private static func coordinates(_ geometry: FlatBufferTable, layout: CoordinateLayout) throws(FileFormatError) -> [Point] {
        guard let (xy, count) = try geometry.vector(1, elementSize: 8) else { return [] }
        guard count % 2 == 0 else { throw FileFormatError(.invalidGeometry, "an odd number (\(count)) of xy values", byteOffset: xy - 4) }
        let n = count / 2
        let z = layout.hasZ ? try geometry.vector(2, elementSize: 8) : nil
        let m = layout.hasM ? try geometry.vector(3, elementSize: 8) : nil
        // The header's dimensions bind every geometry (a Z file's geometry without z values is
        // corrupt, as GDAL reads it too).
        if layout.hasZ, z == nil { throw FileFormatError(.invalidGeometry, "the file's geometries have Z values; this one has none", byteOffset: geometry.position) }
        if layout.hasM, m == nil { throw FileFormatError(.invalidGeometry, "the file's geometries have M values; this one has none", byteOffset: geometry.position) }
        if let z, z.count != n { throw FileFormatError(.invalidGeometry, "\(z.count) z values for \(n) points", byteOffset: z.start - 4) }
        if let m, m.count != n { throw FileFormatError(.invalidGeometry, "\(m.count) m values for \(n) points", byteOffset: m.start - 4) }
        var points: [Point] = []
        points.reserveCapacity(n)
        for i in 0..<n {
            points.append(
                Point(
                    x: geometry.double(at: xy, 2 * i), y: geometry.double(at: xy, 2 * i + 1), z: z.map { geometry.double(at: $0.start, i) },
                    m: m.map { geometry.double(at: $0.start, i) }))
        }
        return points
    }

    /// The part ends (`ends`, each the index one past a part's last point), checked; one part
    /// of every point without them.
    private static func ends(_ geometry: FlatBufferTable, count: Int) throws(FileFormatError) -> [Int] {
        guard let (start, n) = try geometry.vector(0, elementSize: 4), n > 0 else { return [count] }
        var ends: [Int] = []
        var last = 0
        for k in 0..<n {
            let end = Int(geometry.uint32(at: start, k))
            guard end > last, end <= count else {
                throw FileFormatError(.invalidGeometry, "part end \(end) after \(last), of \(count) points", byteOffset: start + 4 * k)
            }
            ends.append(end)
            last = end
        }
        guard last == count else { throw FileFormatError(.invalidGeometry, "the parts end at point \(last) of \(count)", byteOffset: start) }
        return ends
    }

    private static func split(_ points: [Point], _ ends: [Int]) -> [[Point]] {
        var parts: [[Point]] = []
        var start = 0
        for end in ends {
            parts.append(Array(points[start..<end]))
            start = end
        }
        return parts
    }
}

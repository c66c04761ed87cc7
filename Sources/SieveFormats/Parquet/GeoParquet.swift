import Foundation
import SieveBase
import SieveColumns
import SieveFeatures
import SieveGeometry
import SieveJSON
import SieveProjection

/// A feature table read from a GeoParquet (or plain Parquet) file.
public struct GeoParquetLayer: Sendable {
    /// A column GeoSieve does not read (a list, a map, a struct other than the bounding-box
    /// covering, plain binary, a time of day), left out.
    public struct SkippedColumn: Hashable, Sendable {
        /// The column's name.
        public var name: String
        /// Its Parquet type, in words (`list`, `BYTE_ARRAY`, `TIME`).
        public var type: String
    }

    /// The layer's name: the file name without extension.
    public var name: String
    /// The rows read, in file order: `FID` (the row's position in the file, from 0, as GDAL
    /// numbers them) is the object-ID field, then the columns.
    public var table: FeatureTable
    /// The rows in the file, whether or not a box or a where clause left some out.
    public var rowsInFile: Int
    /// The file's row groups, and how many of them were read (the others skipped by their
    /// statistics).
    public var rowGroups: Int
    public var rowGroupsRead: Int
    /// The geometry column (`nil` for a Parquet file without one).
    public var geometryColumn: String?
    /// The columns that were not read.
    public var skippedColumns: [SkippedColumn]
}

/// How ``GeoParquet/read(at:options:)`` reads.
public struct GeoParquetReadOptions: Sendable {
    /// Only the rows whose geometry's bounding box meets this box (row groups whose covering
    /// statistics say they hold none are not read).
    public var box: Envelope?
    /// Only these columns (besides the geometry); `nil` for every column.
    public var columns: [String]?
    /// Row groups this predicate rules out by their statistics are not read; the rows of the
    /// others are all read (the caller applies the where clause to them).
    public var rowGroupFilter: ParquetStatisticsFilter?

    /// Every row and column.
    public init(box: Envelope? = nil, columns: [String]? = nil, rowGroupFilter: ParquetStatisticsFilter? = nil) {
        self.box = box
        self.columns = columns
        self.rowGroupFilter = rowGroupFilter
    }
}

/// GeoParquet files (versions 1.0 and 1.1, and Parquet files whose geometry column has
/// Parquet's `GEOMETRY` type): reading them, whole, by a box (skipping the row groups the
/// `bbox` covering's statistics rule out) or by columns, and writing a table as one.
///
/// ```swift
/// let buildings = try GeoParquet.read(at: "buildings.parquet")
/// let nearby = try GeoParquet.read(at: "buildings.parquet", options: GeoParquetReadOptions(box: Envelope(xmin: 8, ymin: 47, xmax: 9, ymax: 48)))
/// try GeoParquet.write(buildings.table, to: "copy.parquet")
/// ```
///
/// The rules are in <doc:GeoParquetFiles>.
public enum GeoParquet {
    /// Whether `path` names a Parquet file by its extension (`.parquet` or `.geoparquet`, any
    /// case).
    public static func hasParquetExtension(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".parquet") || lower.hasSuffix(".geoparquet")
    }

    /// Reads a GeoParquet file.
    /// - Throws: ``FileFormatError`` naming the file, the row group (from 1), the column and
    ///   the byte offset.
    public static func read(at path: String, options: GeoParquetReadOptions = GeoParquetReadOptions()) throws(FileFormatError) -> GeoParquetLayer {
        do throws(FileFormatError) {
            let file = try FileBytes(path: path)
            let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            return try file.withUnsafeBytes { (bytes) throws(FileFormatError) in
                try GeoParquetReader(try ParquetFile(bytes), options: options).read(name: name)
            }
        } catch {
            throw error.located(path: path)
        }
    }

    /// Reads GeoParquet bytes held in memory, as ``read(at:options:)`` reads a file; the layer
    /// is named `name`.
    public static func read(bytes: [UInt8], name: String = "layer", options: GeoParquetReadOptions = GeoParquetReadOptions()) throws(FileFormatError)
        -> GeoParquetLayer
    {
        try bytes.withBytes { (raw) throws(FileFormatError) in
            try GeoParquetReader(try ParquetFile(raw), options: options).read(name: name)
        }
    }
}

/// What the `geo` metadata says of the primary geometry column.
struct GeoParquetGeometryColumn {
    var name: String
    var encoding: String = "WKB"
    var spatialReference = SpatialReference(wkid: 4326)
    var geometryTypes: [String] = []
    /// The covering's paths of xmin, ymin, xmax, ymax (`["bbox", "xmin"]` …).
    var covering: [[String]]?

    /// The primary column of a `geo` document.
    static func parse(_ text: String) throws(FileFormatError) -> GeoParquetGeometryColumn {
        let document: JSONValue
        do throws(JSONSyntaxError) {
            document = try JSONTextReader<JSONSyntaxError>.parse(text)
        } catch {
            throw FileFormatError(.malformed, "the \"geo\" metadata is not JSON: \(error.message)")
        }
        guard let primary = document["primary_column"]?.stringValue, let column = document["columns"]?[primary] else {
            throw FileFormatError(.malformed, "the \"geo\" metadata names no primary column, or not one of its columns")
        }
        var result = GeoParquetGeometryColumn(name: primary)
        if let encoding = column["encoding"]?.stringValue { result.encoding = encoding }
        result.geometryTypes = column["geometry_types"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if let crs = column["crs"] {
            result.spatialReference = try spatialReference(crs)
        }
        if let bbox = column["covering"]?["bbox"] {
            let paths = ["xmin", "ymin", "xmax", "ymax"].map { bbox[$0]?.arrayValue?.compactMap(\.stringValue) ?? [] }
            if paths.allSatisfy({ !$0.isEmpty }) { result.covering = paths }
        }
        return result
    }

    /// The spatial reference of a PROJJSON `crs` (null: unknown).
    static func spatialReference(_ crs: JSONValue) throws(FileFormatError) -> SpatialReference {
        if crs.isNull { return SpatialReference(wkid: 0) }
        if let id = crs["id"], let authority = id["authority"]?.stringValue?.uppercased() {
            let code = id["code"]?.doubleValue.flatMap { Int(exactly: $0) }.map { String($0) } ?? id["code"]?.stringValue ?? ""
            if authority == "OGC", code.uppercased() == "CRS84" { return SpatialReference(wkid: 4326) }
            if authority == "EPSG" || authority == "ESRI", let wkid = Int(code) { return SpatialReference(wkid: wkid) }
        }
        if let text = crs.stringValue, text.uppercased().hasPrefix("EPSG:"), let wkid = Int(text.dropFirst(5)) {
            return SpatialReference(wkid: wkid)
        }
        let text = crs.stringValue ?? crs.description
        if let identified = try? ProjectionContext.withCurrent({ (context) throws(ProjectionError) in try context.identify(wkt: text) }) {
            return identified
        }
        return SpatialReference(wkid: 0)
    }
}

/// Reads a Parquet file into a feature table.
struct GeoParquetReader {
    let file: ParquetFile
    let options: GeoParquetReadOptions
    /// The geometry column, when there is one.
    let geometry: GeoParquetGeometryColumn?

    init(_ file: ParquetFile, options: GeoParquetReadOptions) throws(FileFormatError) {
        self.file = file
        self.options = options
        if let geo = file.metadata.keyValues.last(where: { $0.key == "geo" })?.value {
            let column = try GeoParquetGeometryColumn.parse(geo)
            guard column.encoding.uppercased() == "WKB" else {
                throw FileFormatError(.unsupported, "geometry encoding \"\(column.encoding)\" of column \"\(column.name)\" (WKB is read)")
            }
            geometry = column
        } else if let leaf = file.leaves.first(where: {
            if case .geometry = $0.element.logicalType { return $0.path.count == 1 }
            return false
        }) {
            // Parquet's own GEOMETRY type (WKB, the CRS in the type).
            var column = GeoParquetGeometryColumn(name: leaf.path[0])
            if case .geometry(let crs) = leaf.element.logicalType, let crs {
                column.spatialReference = try GeoParquetGeometryColumn.spatialReference(
                    (try? JSONTextReader<JSONSyntaxError>.parse(crs)) ?? .string(crs))
            }
            geometry = column
        } else {
            geometry = nil
        }
    }

    /// The leaf of a top-level column (`path` one name) or of a struct's member.
    private func leaf(_ path: [String]) -> ParquetLeaf? {
        file.leaves.first { $0.path == path }
    }

    func read(name: String) throws(FileFormatError) -> GeoParquetLayer {
        // The geometry's leaf, the covering's and the attribute columns.
        var geometryLeaf: ParquetLeaf?
        if let geometry {
            guard let found = leaf([geometry.name]), found.element.type == .byteArray, found.maxRepetition == 0 else {
                throw FileFormatError(.malformed, "the geometry column \"\(geometry.name)\" is not a top-level BYTE_ARRAY column")
            }
            geometryLeaf = found
        }
        let coveringLeaves: [ParquetLeaf]? = geometry?.covering.flatMap { paths in
            let found = paths.compactMap { leaf($0) }
            return found.count == 4 && found.allSatisfy { $0.element.type == .double || $0.element.type == .float } ? found : nil
        }
        let coveringField = coveringLeaves?.first?.path.first
        var attributes: [(leaf: ParquetLeaf, builder: GeoParquetColumnBuilder)] = []
        var skipped: [GeoParquetLayer.SkippedColumn] = []
        let wanted = options.columns.map { Set($0.map { $0.lowercased() }) }
        if let columns = options.columns {
            let names = Set(file.fields.map { $0.element.name.lowercased() })
            if let unknown = columns.first(where: { !names.contains($0.lowercased()) }) {
                throw FileFormatError(.invalidOption, "the file has no column \"\(unknown)\"; its columns: " + file.fields.map(\.element.name).joined(separator: ", "))
            }
        }
        for field in file.fields {
            let name = field.element.name
            if name == geometry?.name || name == coveringField { continue }
            if let wanted, !wanted.contains(name.lowercased()) { continue }
            guard field.leaves.count == 1, field.element.childCount == nil, let leaf = field.leaves.first.map({ file.leaves[$0] }) else {
                skipped.append(.init(name: name, type: field.element.convertedType == 3 || field.element.logicalType == .other(3) ? "list" : "group"))
                continue
            }
            guard leaf.maxRepetition == 0 else {
                skipped.append(.init(name: name, type: "list"))
                continue
            }
            if let builder = GeoParquetColumnBuilder(leaf.element) {
                attributes.append((leaf, builder))
            } else {
                skipped.append(.init(name: name, type: GeoParquetColumnBuilder.typeName(leaf.element)))
            }
        }
        // The row groups to read.
        let groups = file.metadata.rowGroups
        var selected: [Int] = []
        var firstRow: [Int] = []
        var rowsInFile = 0
        for (g, group) in groups.enumerated() {
            firstRow.append(rowsInFile)
            rowsInFile += Int(group.rowCount)
            if let box = options.box, !mayMeet(box, group: group, covering: coveringLeaves, geometry: geometryLeaf) { continue }
            if let filter = options.rowGroupFilter, !filter.mayMatch(file: file, group: group) { continue }
            selected.append(g)
        }
        // The rows.
        var geometries = GeometryColumn(storage: .points)
        var tracker = GeometryTypeTracker()
        var objectIDs: [Int64] = []
        for g in selected {
            do throws(FileFormatError) {
                let rows = Int(groups[g].rowCount)
                // Which rows of the group are kept: by the covering's boxes, then the geometries'.
                var keep: [Bool]?
                if let box = options.box, let coveringLeaves {
                    keep = try coveringMask(box, leaves: coveringLeaves, group: g, rows: rows)
                }
                // The group's rows the geometry chunk gives back (those the covering kept).
                var candidates = keep.map { mask in mask.indices.filter { mask[$0] } } ?? Array(0..<rows)
                if keep != nil, candidates.isEmpty { continue }
                if let geometryLeaf {
                    let chunk = try file.chunk(geometryLeaf, group: g, keep: keep)
                    let accepted = try appendGeometries(
                        chunk, rows: candidates, box: coveringLeaves == nil ? options.box : nil, boxRead: options.box != nil, into: &geometries,
                        tracker: &tracker, firstRow: firstRow[g])
                    if let accepted { candidates = candidates.indices.filter { accepted[$0] }.map { candidates[$0] } }
                }
                var mask: [Bool]?
                if candidates.count < rows {
                    var flags = [Bool](repeating: false, count: rows)
                    for row in candidates { flags[row] = true }
                    mask = flags
                }
                for row in candidates { objectIDs.append(Int64(firstRow[g] + row)) }
                for k in attributes.indices {
                    let chunk = try file.chunk(attributes[k].leaf, group: g, keep: mask)
                    do throws(FileFormatError) {
                        try attributes[k].builder.append(chunk, rows: nil)
                    } catch {
                        var located = error
                        located.fieldName = located.fieldName ?? attributes[k].leaf.element.name
                        throw located
                    }
                }
            } catch {
                var located = error
                located.rowGroup = located.rowGroup ?? g + 1
                throw located
            }
        }
        var tableType: GeometryType? = tracker.type
        if geometryLeaf != nil, tableType == nil { tableType = Self.declaredType(geometry?.geometryTypes ?? []) }
        if tableType == .multipoint, tracker.sawPoint {
            do throws(FeatureTableError) {
                geometries = GeometryColumn(try GeometryTypeTracker.pointsAsMultipoints((0..<geometries.count).map { geometries[$0] }))
            } catch {
                throw FileFormatError(.invalidGeometry, error.message)
            }
        }
        // The object ID's name against every column of the file, read or not, so that it is the
        // same whichever columns a read asks for.
        var fields = [Field(name: "FID", type: .oid)]
        let taken = Set(file.fields.map { $0.element.name.lowercased() })
        var suffix = 0
        while taken.contains(fields[0].name.lowercased()) {
            suffix += 1
            fields[0] = Field(name: "FID_\(suffix)", type: .oid)
        }
        var columns = [Column.integer(Int64Column(values: objectIDs))]
        for k in attributes.indices {
            let (field, column) = attributes[k].builder.finish(name: attributes[k].leaf.element.name)
            fields.append(field)
            columns.append(column)
        }
        do throws(FeatureTableError) {
            // A layer whose geometry type stays unknown (no rows with a geometry, no types
            // declared) keeps the file's reference, as an empty GeoJSON or GeoPackage layer does.
            let schema = try Schema(
                fields: fields, objectIdFieldName: fields[0].name, geometryType: tableType,
                spatialReference: geometry?.spatialReference ?? SpatialReference(wkid: 0))
            let table = try FeatureTable(schema: schema, columns: columns, geometryColumn: tableType == nil ? GeometryColumn() : geometries)
            return GeoParquetLayer(
                name: name, table: table, rowsInFile: rowsInFile, rowGroups: groups.count, rowGroupsRead: selected.count,
                geometryColumn: geometry?.name, skippedColumns: skipped)
        } catch {
            throw FileFormatError(.invalidValue, error.message, fieldName: error.fieldName)
        }
    }

    /// The table type the `geometry_types` of the metadata declare, for a table of no rows.
    static func declaredType(_ types: [String]) -> GeometryType? {
        let kinds = Set(types.map { $0.replacingOccurrences(of: " Z", with: "").replacingOccurrences(of: " M", with: "") })
        if kinds.isEmpty { return nil }
        if kinds.isSubset(of: ["Point"]) { return .point }
        if kinds.isSubset(of: ["Point", "MultiPoint"]) { return .multipoint }
        if kinds.isSubset(of: ["LineString", "MultiLineString"]) { return .polyline }
        if kinds.isSubset(of: ["Polygon", "MultiPolygon"]) { return .polygon }
        return nil
    }

    /// Whether a row group's statistics leave it possible that a row's box meets `box`.
    private func mayMeet(_ box: Envelope, group: ParquetRowGroup, covering: [ParquetLeaf]?, geometry: ParquetLeaf?) -> Bool {
        if let geometry, let bounds = group.columns[geometry.index].geospatialBox {
            if bounds.xmin > box.xmax || bounds.xmax < box.xmin || bounds.ymin > box.ymax || bounds.ymax < box.ymin { return false }
        }
        guard let covering else { return true }
        // The smallest xmin and ymin, the largest xmax and ymax of the group.
        func bound(_ leaf: ParquetLeaf, max: Bool) -> Double? {
            let meta = group.columns[leaf.index]
            guard let statistics = meta.statistics, let bytes = max ? statistics.max : statistics.min else { return nil }
            let value: Double? =
                meta.type == .double && bytes.count == 8
                ? Double(bitPattern: bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) })
                : meta.type == .float && bytes.count == 4
                    ? Double(Float(bitPattern: bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) })) : nil
            return value.flatMap { $0.isNaN ? nil : $0 }
        }
        if let xmin = bound(covering[0], max: false), xmin > box.xmax { return false }
        if let ymin = bound(covering[1], max: false), ymin > box.ymax { return false }
        if let xmax = bound(covering[2], max: true), xmax < box.xmin { return false }
        if let ymax = bound(covering[3], max: true), ymax < box.ymin { return false }
        return true
    }

    /// Which rows of a group have covering boxes that meet `box` (rows without one are kept,
    /// for their geometry to decide).
    private func coveringMask(_ box: Envelope, leaves: [ParquetLeaf], group: Int, rows: Int) throws(FileFormatError) -> [Bool] {
        var keep = [Bool](repeating: true, count: rows)
        for (k, leaf) in leaves.enumerated() {
            let chunk = try file.chunk(leaf, group: group)
            guard case .doubles(let values) = chunk.values else { continue }
            var v = 0
            for row in 0..<rows {
                if let present = chunk.present, !present[row] { continue }
                let value = values[v]
                v += 1
                switch k {
                case 0: if value > box.xmax { keep[row] = false }
                case 1: if value > box.ymax { keep[row] = false }
                case 2: if value < box.xmin { keep[row] = false }
                default: if value < box.ymin { keep[row] = false }
                }
            }
        }
        return keep
    }

    /// Decodes the WKB of a geometry chunk whose rows are the group's `rows` into `geometries`;
    /// returns which of them are kept (`nil`: all): those whose geometry meets `box`, when given,
    /// and in a read by box (`boxRead`) none without a geometry.
    private func appendGeometries(
        _ chunk: ParquetChunkValues, rows: [Int], box: Envelope?, boxRead: Bool, into geometries: inout GeometryColumn,
        tracker: inout GeometryTypeTracker, firstRow: Int
    ) throws(FileFormatError) -> [Bool]? {
        guard case .bytes(let wkb) = chunk.values else { throw FileFormatError(.malformed, "the geometry column holds no byte strings") }
        guard chunk.rowCount == rows.count else { throw FileFormatError(.malformed, "\(chunk.rowCount) geometries for \(rows.count) rows") }
        var result: [Bool]? = boxRead ? [Bool](repeating: true, count: rows.count) : nil
        var v = 0
        try wkb.storage.withBytes { (storage) throws(FileFormatError) in
            for k in 0..<chunk.rowCount {
                let row = firstRow + rows[k]
                let present = chunk.present?[k] ?? true
                guard present else {
                    if boxRead {
                        result?[k] = false
                    } else {
                        geometries.append(nil)
                    }
                    continue
                }
                let bytes = UnsafeRawBufferPointer(rebasing: storage[wkb.offsets[v]..<wkb.offsets[v + 1]])
                v += 1
                // The common case first: a 2D point, little endian.
                if bytes.count == 21, bytes[0] == 1, bytes.loadUnaligned(fromByteOffset: 1, as: UInt32.self) == UInt32(1).littleEndian {
                    let x = Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 5, as: UInt64.self)))
                    let y = Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 13, as: UInt64.self)))
                    if let box, !(x >= box.xmin && x <= box.xmax && y >= box.ymin && y <= box.ymax) {
                        result?[k] = false
                        continue
                    }
                    guard x.isFinite && y.isFinite || x.isNaN && y.isNaN else {
                        throw FileFormatError(.invalidGeometry, "a point with a non-finite coordinate", record: row + 1)
                    }
                    if !tracker.settledOnPoints { try track(.point(Point(x: x, y: y)), &tracker, row: row) }
                    geometries.appendPoint(x: x, y: y)
                    continue
                }
                let geometry: Geometry
                do throws(GeometryError) {
                    geometry = try Geometry(wkb: bytes)
                } catch {
                    throw FileFormatError(.invalidGeometry, error.message, record: row + 1)
                }
                if let box {
                    let e = geometry.envelope
                    guard !e.isEmpty, e.xmin <= box.xmax, e.xmax >= box.xmin, e.ymin <= box.ymax, e.ymax >= box.ymin else {
                        result?[k] = false
                        continue
                    }
                }
                try track(geometry, &tracker, row: row)
                geometries.append(geometry)
            }
        }
        return result
    }

    private func track(_ geometry: Geometry, _ tracker: inout GeometryTypeTracker, row: Int) throws(FileFormatError) {
        do throws(FeatureTableError) {
            try tracker.add(geometry, name: geometry.kind.rawValue, index: row, objectID: Int64(row))
        } catch {
            throw FileFormatError(.invalidGeometry, error.message, record: row + 1)
        }
    }
}

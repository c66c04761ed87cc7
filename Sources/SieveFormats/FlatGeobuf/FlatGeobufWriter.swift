import Foundation
import SieveColumns
import SieveFeatures
import SieveGeometry

extension FlatGeobuf {
    /// Writes `table` (or its `rows`) as a FlatGeobuf file.
    ///
    /// With the index (the default), the features are sorted along a Hilbert curve of their
    /// boxes' centres and the packed R-tree is written before them; without it they keep their
    /// order. The object-ID field is written as a `Long` column unless it holds the positions
    /// 0, 1, 2, … (a table read from a FlatGeobuf file or a shapefile) or is named `FID`: the
    /// position gives the FID again. How each field type is written is in <doc:FlatGeobufFiles>.
    ///
    /// - Throws: ``FileFormatError/Kind/cannotWrite`` for a geometry collection or more than
    ///   65,535 columns; ``FileFormatError/Kind/writeFailed`` when the file cannot be written.
    ///   The file is written beside its target and renamed into place.
    public static func write(
        _ table: FeatureTable, rows: [Int]? = nil, to path: String, options: FlatGeobufWriteOptions = FlatGeobufWriteOptions()
    ) throws(FileFormatError) {
        do throws(FileFormatError) {
            let writer = try FlatGeobufWriter(table, rows: rows ?? table.liveRows, options: options)
            if writer.indexed {
                try AtomicFile.write(try writer.bytes(), to: path)
            } else {
                // Without the index the features keep their order: streamed, one at a time.
                try AtomicFile.write(to: path) { (sink) throws(FileFormatError) in try writer.stream(to: sink) }
            }
        } catch {
            throw error.located(path: path)
        }
    }
}

extension FlatGeobuf {
    /// The bytes of the FlatGeobuf file ``write(_:rows:to:options:)`` would write, in memory.
    /// - Throws: As ``write(_:rows:to:options:)``, but for the file errors.
    public static func encode(
        _ table: FeatureTable, rows: [Int]? = nil, options: FlatGeobufWriteOptions = FlatGeobufWriteOptions()
    ) throws(FileFormatError) -> [UInt8] {
        try FlatGeobufWriter(table, rows: rows ?? table.liveRows, options: options).bytes()
    }
}

/// Writes a table as FlatGeobuf bytes.
struct FlatGeobufWriter {
    let table: FeatureTable
    let rows: [Int]
    let options: FlatGeobufWriteOptions
    /// The columns written: (field index, FlatGeobuf type).
    let columns: [(field: Int, type: UInt8)]
    let geometryType: UInt8
    let layout: CoordinateLayout

    init(_ table: FeatureTable, rows: [Int], options: FlatGeobufWriteOptions) throws(FileFormatError) {
        self.table = table
        self.rows = rows
        self.options = options
        let schema = table.schema
        let objectIDIndex = schema.index(ofField: schema.objectIdFieldName)
        var skipped: Int?
        if let objectIDIndex, case .integer(let ids) = table.columns[objectIDIndex],
            FeatureTable.isPositionalObjectIDName(table.schema.objectIdFieldName)
                || rows.enumerated().allSatisfy({ ids.values[$0.element] == Int64($0.offset) })
        {
            skipped = objectIDIndex
        }
        var columns: [(Int, UInt8)] = []
        for (k, field) in schema.fields.enumerated() where k != skipped {
            let type: UInt8
            switch field.type {
            case .smallInteger: type = 3
            case .integer: type = 5
            case .oid, .bigInteger: type = 7
            case .single: type = 9
            case .double: type = 10
            case .string, .guid, .globalID: type = 11
            case .date, .dateOnly: type = 13
            }
            columns.append((k, type))
        }
        guard columns.count <= Int(UInt16.max) else {
            throw FileFormatError(.cannotWrite, "\(columns.count) columns; a FlatGeobuf feature names at most 65,535")
        }
        self.columns = columns
        var layout = CoordinateLayout()
        var multi = false
        if schema.geometryType != nil {
            for row in rows {
                guard let geometry = table.geometry(row: row) else { continue }
                layout.hasZ = layout.hasZ || geometry.layout.hasZ
                layout.hasM = layout.hasM || geometry.layout.hasM
                if case .polygon(let polygon) = geometry, polygon.partCount > 1 { multi = true }
                if case .polyline(let polyline) = geometry, polyline.pathCount > 1 { multi = true }
            }
        }
        self.layout = layout
        switch schema.geometryType {
        case .point: geometryType = 1
        case .multipoint: geometryType = 4
        case .polyline: geometryType = multi ? 5 : 2
        case .polygon, .envelope: geometryType = multi ? 6 : 3
        case nil: geometryType = 0
        }
    }

    /// Whether the file gets the index (asked for, and features with a geometry type to index).
    var indexed: Bool { options.index && !rows.isEmpty && geometryType != 0 }

    /// The file without the index, handed to `sink` piece by piece: the header (its extent from a
    /// first pass over the geometries), then each feature as it is encoded. The same bytes as
    /// ``bytes()`` writes without the index.
    func stream(to sink: (UnsafeRawBufferPointer) throws(FileFormatError) -> Void) throws(FileFormatError) {
        var extent = Envelope.empty
        for row in rows {
            if let box = table.geometry(row: row)?.envelope, !box.isEmpty { extent.expand(toInclude: box) }
        }
        let header = self.header(extent: extent, indexed: false)
        var start = LittleEndianWriter()
        start.bytes = [0x66, 0x67, 0x62, 0x03, 0x66, 0x67, 0x62, 0x01]
        start.uint32(UInt32(header.count))
        try start.bytes.withBytes(sink)
        try header.withBytes(sink)
        for row in rows {
            try feature(row: row, geometry: table.geometry(row: row)).withBytes(sink)
        }
    }

    /// The whole file.
    func bytes() throws(FileFormatError) -> [UInt8] {
        // Each feature's bytes and box.
        var features: [[UInt8]] = []
        var boxes: [Envelope] = []
        features.reserveCapacity(rows.count)
        boxes.reserveCapacity(rows.count)
        var extent = Envelope.empty
        for row in rows {
            let geometry = table.geometry(row: row)
            let box = geometry.map(\.envelope) ?? .empty
            if !box.isEmpty { extent.expand(toInclude: box) }
            features.append(try feature(row: row, geometry: geometry))
            boxes.append(box)
        }
        var order = Array(rows.indices)
        if indexed, !extent.isEmpty {
            let width = extent.xmax - extent.xmin
            let height = extent.ymax - extent.ymin
            let keys = boxes.map { box -> UInt32 in
                guard !box.isEmpty else { return UInt32.max }
                let x = width > 0 ? ((box.xmin + box.xmax) / 2 - extent.xmin) / width * 65535 : 0
                let y = height > 0 ? ((box.ymin + box.ymax) / 2 - extent.ymin) / height * 65535 : 0
                return PackedRTree.hilbert(UInt32(max(0, min(65535, x))), UInt32(max(0, min(65535, y))))
            }
            order.sort { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : $0 < $1 }
        }
        var out: [UInt8] = [0x66, 0x67, 0x62, 0x03, 0x66, 0x67, 0x62, 0x01]
        let header = self.header(extent: extent, indexed: indexed)
        var size = LittleEndianWriter()
        size.uint32(UInt32(header.count))
        out += size.bytes
        out += header
        if indexed {
            var offsets: [Int] = []
            var offset = 0
            for k in order {
                offsets.append(offset)
                offset += features[k].count
            }
            out += PackedRTree.build(boxes: order.map { boxes[$0] }, offsets: offsets, nodeSize: 16)
        }
        for k in order { out += features[k] }
        return out
    }

    /// The header, size not included.
    private func header(extent: Envelope, indexed: Bool) -> [UInt8] {
        var builder = FlatBufferBuilder()
        let schema = table.schema
        var fields: [(id: Int, value: FlatBufferBuilder.Value)] = []
        if let name = options.layerName { fields.append((0, .offset { $0.string(name) })) }
        if !extent.isEmpty {
            let values = [extent.xmin, extent.ymin, extent.xmax, extent.ymax]
            fields.append((1, .offset { $0.doubles(values) }))
        }
        fields.append((2, .uint8(geometryType)))
        if layout.hasZ { fields.append((3, .uint8(1))) }
        if layout.hasM { fields.append((4, .uint8(1))) }
        let columnTables: [(inout FlatBufferBuilder) -> Int] = columns.map { column in
            let field = schema.fields[column.field]
            return { builder in
                var columnFields: [(id: Int, value: FlatBufferBuilder.Value)] = [(0, .offset { $0.string(field.name) }), (1, .uint8(column.type))]
                if let length = field.length, column.type == 11 { columnFields.append((4, .int32(Int32(clamping: length)))) }
                if !field.nullable { columnFields.append((7, .uint8(0))) }
                return builder.table(columnFields)
            }
        }
        fields.append((7, .offset { $0.tables(columnTables) }))
        fields.append((8, .uint64(UInt64(rows.count))))
        fields.append((9, .uint16(indexed ? 16 : 0)))
        let wkid = schema.spatialReference.wkid
        if wkid > 0 {
            fields.append((10, .offset { builder in
                builder.table([(0, .offset { $0.string(wkid >= 100_000 ? "ESRI" : "EPSG") }), (1, .int32(Int32(clamping: wkid)))])
            }))
        }
        let root = builder.table(fields)
        return builder.finish(root: root)
    }

    /// One feature: its size and its FlatBuffers table.
    private func feature(row: Int, geometry: Geometry?) throws(FileFormatError) -> [UInt8] {
        var builder = FlatBufferBuilder()
        var fields: [(id: Int, value: FlatBufferBuilder.Value)] = []
        if let geometry, !geometry.isEmpty {
            let encoded = try encode(geometry, row: row)
            fields.append((0, .offset { builder in encoded(&builder) }))
        }
        let properties = self.properties(row: row)
        if !properties.isEmpty { fields.append((1, .offset { $0.byteVector(properties) })) }
        let root = builder.table(fields)
        let bytes = builder.finish(root: root)
        var out = LittleEndianWriter()
        out.uint32(UInt32(bytes.count))
        return out.bytes + bytes
    }

    /// The writer of a `Geometry` table for `geometry`.
    private func encode(_ geometry: Geometry, row: Int) throws(FileFormatError) -> (inout FlatBufferBuilder) -> Int {
        let layout = self.layout
        func simple(_ parts: [[Point]]) -> (inout FlatBufferBuilder) -> Int {
            let points = parts.flatMap { $0 }
            var ends: [UInt32] = []
            var end = 0
            for part in parts {
                end += part.count
                ends.append(UInt32(end))
            }
            return { builder in
                var fields: [(id: Int, value: FlatBufferBuilder.Value)] = []
                if ends.count > 1 { fields.append((0, .offset { $0.uint32s(ends) })) }
                let xy = points.flatMap { [$0.x, $0.y] }
                fields.append((1, .offset { $0.doubles(xy) }))
                if layout.hasZ {
                    let z = points.map { $0.z ?? 0 }
                    fields.append((2, .offset { $0.doubles(z) }))
                }
                if layout.hasM {
                    let m = points.map { $0.m ?? .nan }
                    fields.append((3, .offset { $0.doubles(m) }))
                }
                return builder.table(fields)
            }
        }
        switch geometry {
        case .point(let point): return simple([[point]])
        case .multipoint(let multipoint): return simple([multipoint.points])
        case .polyline(let polyline): return simple(polyline.paths)
        case .polygon(let polygon):
            if geometryType == 6 {
                let parts = polygon.parts.map { simple($0) }
                return { builder in builder.table([(7, .offset { $0.tables(parts) })]) }
            }
            return simple(polygon.parts.first ?? [])
        case .envelope(let e):
            let ring = [Point(x: e.xmin, y: e.ymin), Point(x: e.xmax, y: e.ymin), Point(x: e.xmax, y: e.ymax), Point(x: e.xmin, y: e.ymax), Point(x: e.xmin, y: e.ymin)]
            if geometryType == 6 {
                let part = simple([ring])
                return { builder in builder.table([(7, .offset { $0.tables([part]) })]) }
            }
            return simple([ring])
        case .collection:
            throw FileFormatError(.cannotWrite, "a geometry collection cannot be a FlatGeobuf feature of a one-type layer", record: row + 1)
        }
    }

    /// The properties buffer of `row`: the non-NULL values, by column index.
    private func properties(row: Int) -> [UInt8] {
        var out = LittleEndianWriter()
        for (k, column) in columns.enumerated() {
            func key() { out.uint16(UInt16(k)) }
            switch table.columns[column.field] {
            case .integer(let c):
                guard c.validity?.isValid(row) ?? true else { continue }
                key()
                let value = c.values[row]
                switch column.type {
                case 3: out.uint16(UInt16(bitPattern: Int16(truncatingIfNeeded: value)))
                case 5: out.int32(Int32(truncatingIfNeeded: value))
                default:
                    out.uint32(UInt32(truncatingIfNeeded: value))
                    out.uint32(UInt32(truncatingIfNeeded: value >> 32))
                }
            case .double(let c):
                guard c.validity?.isValid(row) ?? true else { continue }
                key()
                if column.type == 9 {
                    out.uint32(Float(c.values[row]).bitPattern)
                } else {
                    out.double(c.values[row])
                }
            case .string(let c):
                guard let text = c[row] else { continue }
                key()
                let bytes = Array(text.utf8)
                out.uint32(UInt32(bytes.count))
                out.bytes += bytes
            case .date(let c):
                guard c.validity?.isValid(row) ?? true else { continue }
                key()
                let d = CivilTime.components(milliseconds: c.values[row])
                let text: String
                if table.schema.fields[column.field].type == .dateOnly {
                    text = String(format: "%04lld-%02lld-%02lld", d.year, d.month, d.day)
                } else {
                    text = String(format: "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ", d.year, d.month, d.day, d.hour, d.minute, d.second, d.millisecond)
                }
                let bytes = Array(text.utf8)
                out.uint32(UInt32(bytes.count))
                out.bytes += bytes
            }
        }
        return out.bytes
    }
}

import SieveColumns
import SieveFeatures
import SieveFormats
import SieveGeometry

extension QueryAnswer {
    /// The answer as the ArcGIS REST API's `f=pbf` writes it: a `FeatureCollectionPBuffer`
    /// message of Esri's `FeatureCollection.proto` (version 1.0 of that protocol), or `nil` for
    /// an extent, which that protocol has no message for (ask for it as JSON).
    ///
    /// - Features, distinct values and statistics are a `FeatureResult`: the fields (name,
    ///   type, alias), then each feature's attribute values in field order and its geometry as
    ///   integer cells of a grid (`quantization`, or ``/SieveFormats/CoordinateQuantization/fine(for:)`` of the
    ///   result's extent when `nil`), with the grid as the result's `transform`. Values and
    ///   geometries as `FeatureQueryResult.pbf(quantization:)` writes them.
    /// - A count is a `CountResult`; object IDs an `ObjectIdsResult`.
    public func pbf(quantization: CoordinateQuantization? = nil) -> [UInt8]? {
        var writer = ProtobufWriter()
        switch self {
        case .features(let result):
            return result.pbf(quantization: quantization)
        case .count(let count):
            PBFAnswer.open(&writer) { result in
                result.message(PBFAnswer.QueryResult.countResult) { $0.unsigned(1, UInt64(Swift.max(count, 0))) }
            }
        case .objectIDs(let ids, let name):
            PBFAnswer.open(&writer) { result in
                result.message(PBFAnswer.QueryResult.idsResult) { answer in
                    answer.string(1, name)
                    answer.packed(3) { packed in
                        for id in ids { packed.varint(UInt64(bitPattern: id)) }
                    }
                }
            }
        case .values(let values):
            PBFAnswer.open(&writer) { result in
                result.message(PBFAnswer.QueryResult.featureResult) { answer in
                    answer.unsigned(7, PBFAnswer.noGeometry)
                    for field in values.fields { PBFAnswer.writeField(field, into: &answer) }
                    for row in values.rows {
                        answer.message(15) { feature in
                            for (value, field) in zip(row, values.fields) {
                                feature.message(1) { PBFAnswer.writeValue(value, type: field.type, into: &$0) }
                            }
                        }
                    }
                }
            }
        case .extent:
            return nil
        }
        return writer.bytes
    }
}

extension FeatureQueryResult {
    /// The features as the ArcGIS REST API's `f=pbf` writes them: a `FeatureCollectionPBuffer`
    /// holding a `FeatureResult` (Esri's `FeatureCollection.proto`).
    ///
    /// - The result's `objectIdFieldName`, `uniqueIdField`, `globalIdFieldName`,
    ///   `geometryType` (`esriGeometryTypeNone` without geometries; an envelope layer's as
    ///   polygons), `spatialReference` (`wkid`, `latestWkid`), `exceededTransferLimit`, and the
    ///   `transform` of the grid.
    /// - Fields: name, alias and type, with `sqlType` `sqlTypeOther`. The protocol has no
    ///   64-bit integer or date-only type: a ``/SieveFeatures/FieldType/bigInteger`` field is declared
    ///   `esriFieldTypeDouble` and a ``/SieveFeatures/FieldType/dateOnly`` field `esriFieldTypeDate`, as
    ///   ArcGIS published them before it had those types; their values stay exact.
    /// - Values, one per field in order: small and 32-bit integers as `sint_value`; object IDs
    ///   as `uint_value` (`uint64_value` above 2³²−1, `int64_value` when negative); 64-bit
    ///   integers as `int64_value`; singles and doubles as `double_value`; texts and GUIDs as
    ///   `string_value`; dates (and date-only days, at their midnight UTC) as `sint64_value`
    ///   epoch milliseconds; NULL as a value with none of them set.
    /// - A geometry (none for a feature without one) is its cells on the grid
    ///   (``/SieveFormats/CoordinateQuantization/parts(of:)``): `lengths` holds the positions of each part
    ///   (left out for a point), and `coords` each part's first position in cells from the
    ///   origin and every following one as its difference from the one before, as zigzag
    ///   varints.
    ///
    /// Without `quantization` the grid is ``/SieveFormats/CoordinateQuantization/fine(for:)`` of the
    /// result's extent: every position kept, within a 2⁻⁴¹ part of that extent of where it is.
    public func pbf(quantization: CoordinateQuantization? = nil) -> [UInt8] {
        var grid = quantization
        if returnsGeometry, grid == nil {
            // The answer's own extent, whatever else the table holds: the same features give
            // the same bytes from any source (a page a database sent, a table in memory).
            var extent = Envelope.empty
            if let projectedGeometries {
                for case let geometry? in projectedGeometries { extent.expand(toInclude: geometry.envelope) }
            } else {
                for row in rows { if let envelope = table.envelope(row: Int(row)) { extent.expand(toInclude: envelope) } }
            }
            grid = .fine(for: extent)
        }
        let schema = table.schema
        let fields = self.fields
        // The JSON writers' cells, for their pointers into the columns (dates as milliseconds).
        let cells = CellWriter.writers(of: fieldIndices, in: table, datesAsText: false, layout: JSONLayout(pretty: false, coordinates: .shortest))
        let types = fieldIndices.map { schema.fields[$0].type }
        let columns = fieldIndices.map { table.columns[$0] }
        var writer = ProtobufWriter()
        writer.bytes.reserveCapacity(64 + rows.count * (16 + 8 * fields.count))
        PBFAnswer.open(&writer) { result in
            result.message(PBFAnswer.QueryResult.featureResult) { answer in
                answer.string(1, schema.objectIdFieldName)
                answer.message(2) { unique in
                    unique.string(1, schema.objectIdFieldName)
                    unique.bool(2, true)
                }
                if let name = schema.globalIdFieldName { answer.string(3, name) }
                let geometryType = returnsGeometry ? schema.geometryType : nil
                answer.unsigned(7, PBFAnswer.geometryType(geometryType))
                if geometryType != nil {
                    answer.message(8) { reference in
                        reference.unsigned(1, UInt64(clamping: spatialReference.wkid))
                        reference.unsigned(2, UInt64(clamping: spatialReference.latestWkid))
                    }
                }
                answer.bool(9, exceededTransferLimit)
                if geometryType != nil, let grid {
                    answer.message(12) { transform in
                        transform.unsigned(1, grid.originPosition == .upperLeft ? 0 : 1)
                        transform.message(2) { scale in
                            scale.double(1, grid.tolerance)
                            scale.double(2, grid.tolerance)
                        }
                        let origin = grid.origin
                        transform.message(3) { translate in
                            translate.double(1, origin.x)
                            translate.double(2, origin.y)
                        }
                    }
                }
                for field in fields { PBFAnswer.writeField(field, into: &answer) }
                cells.withUnsafeBufferPointer { cells in
                    for (position, row) in rows.enumerated() {
                        answer.message(15) { feature in
                            for j in cells.indices {
                                if !PBFAnswer.writeValue(cells[j].pointers.raw(row: row), type: types[j], into: &feature) {
                                    feature.message(1) { PBFAnswer.writeValue(columns[j][row], type: types[j], into: &$0) }
                                }
                            }
                            if let grid, returnsGeometry, let geometry = geometry(at: position) {
                                if case .point(let point) = geometry {
                                    // A point: its two cells, no parts to build.
                                    if !point.isEmpty { PBFAnswer.writePoint(grid.x(point.x), grid.y(point.y), into: &feature) }
                                } else if let parts = grid.parts(of: geometry) {
                                    feature.message(2) { PBFAnswer.writeGeometry(parts, into: &$0) }
                                }
                            }
                        }
                    }
                }
            }
        }
        return writer.bytes
    }
}

/// The pieces of `FeatureCollection.proto` the answers share.
enum PBFAnswer {
    /// The field numbers of `QueryResult`'s `oneof`.
    enum QueryResult {
        static let featureResult: UInt64 = 1
        static let countResult: UInt64 = 2
        static let idsResult: UInt64 = 3
    }

    /// `esriGeometryTypeNone`.
    static let noGeometry: UInt64 = 127

    /// The `FeatureCollectionPBuffer` around a `QueryResult` that `body` writes: `version`
    /// "1.0" (of the protocol) and `queryResult`.
    static func open(_ writer: inout ProtobufWriter, _ body: (inout ProtobufWriter) -> Void) {
        writer.string(1, "1.0")
        writer.message(2, body)
    }

    /// The `GeometryType` of a layer's geometry type (`nil`: none).
    static func geometryType(_ type: GeometryType?) -> UInt64 {
        switch type {
        case .point: 0
        case .multipoint: 1
        case .polyline: 2
        case .polygon, .envelope: 3
        case nil: noGeometry
        }
    }

    /// The `FieldType` of a field type.
    static func fieldType(_ type: FieldType) -> UInt64 {
        switch type {
        case .smallInteger: 0
        case .integer: 1
        case .single: 2
        case .double, .bigInteger: 3
        case .string: 4
        case .date, .dateOnly: 5
        case .oid: 6
        case .guid: 10
        case .globalID: 11
        }
    }

    /// `sqlTypeOther`.
    static let sqlTypeOther: UInt64 = 16

    /// A `fields` element (field 13 of `FeatureResult`).
    static func writeField(_ field: Field, into writer: inout ProtobufWriter) {
        writer.message(13) { message in
            message.string(1, field.name)
            message.unsigned(2, fieldType(field.type))
            message.string(3, field.alias)
            message.unsigned(4, sqlTypeOther)
        }
    }

    /// A value of a field of `type` (the content of a `Value` message): nothing for NULL.
    static func writeValue(_ value: ScalarValue, type: FieldType, into writer: inout ProtobufWriter) {
        switch value {
        case .null: break
        case .integer(let integer): writeInteger(integer, type: type, into: &writer)
        case .double(let double): writer.double(3, double, always: true)
        case .string(let string): writer.string(1, string, always: true)
        case .date(let milliseconds): writeInteger(milliseconds, type: .date, into: &writer)
        case .boolean(let bool): writer.presentVarint(9, bool ? 1 : 0)
        }
    }

    /// A feature's attribute (field 1 of `Feature`): the `Value` message of `raw`, a stored value
    /// of a field of `type`, written with its length known up front, so that nothing moves;
    /// `false`, writing nothing, for ``CellWriter/RawValue/other``, which the caller writes from
    /// the column's value.
    @inline(__always)
    static func writeValue(_ raw: CellWriter.RawValue, type: FieldType, into writer: inout ProtobufWriter) -> Bool {
        switch raw {
        case .null:
            writer.bytes.append(0x0A)
            writer.bytes.append(0x00)
        case .integer(let integer):
            let (field, encoded) = integerField(integer, type: type)
            writer.bytes.append(0x0A)
            writer.varint(UInt64(1 + varintLength(encoded)))
            writer.key(field, .varint)
            writer.varint(encoded)
        case .double(let double):
            writer.bytes.append(0x0A)
            writer.bytes.append(9)
            writer.double(3, double, always: true)
        case .text(let utf8):
            writer.bytes.append(0x0A)
            writer.varint(UInt64(1 + varintLength(UInt64(utf8.count)) + utf8.count))
            writer.string(1, utf8: utf8)
        case .other:
            return false
        }
        return true
    }

    /// How many bytes `value` takes as a varint.
    @inline(__always)
    static func varintLength(_ value: UInt64) -> Int {
        Swift.max(1, (64 - value.leadingZeroBitCount + 6) / 7)
    }

    /// An integer of a field of `type`: `sint_value` for small and 32-bit integers that fit,
    /// `uint_value`/`uint64_value` for object IDs of 0 and more, `sint64_value` for dates,
    /// `int64_value` otherwise.
    @inline(__always)
    static func writeInteger(_ integer: Int64, type: FieldType, into writer: inout ProtobufWriter) {
        let (field, encoded) = integerField(integer, type: type)
        writer.presentVarint(field, encoded)
    }

    /// The `Value` field an integer of a field of `type` takes, and its varint.
    @inline(__always)
    static func integerField(_ integer: Int64, type: FieldType) -> (field: UInt64, varint: UInt64) {
        switch type {
        case .smallInteger, .integer:
            if let small = Int32(exactly: integer) { return (4, ProtobufWriter.zigzag(Int64(small))) }
        case .oid where integer >= 0:
            return (integer <= Int64(UInt32.max) ? 5 : 7, UInt64(integer))
        case .date, .dateOnly:
            return (8, ProtobufWriter.zigzag(integer))
        default: break
        }
        return (6, UInt64(bitPattern: integer))
    }

    /// A point's `Geometry` message (field 2 of `Feature`): `coords` [x, y].
    @inline(__always)
    static func writePoint(_ x: Int64, _ y: Int64, into writer: inout ProtobufWriter) {
        let zx = ProtobufWriter.zigzag(x), zy = ProtobufWriter.zigzag(y)
        let packed = varintLength(zx) + varintLength(zy)
        writer.bytes.append(0x12)
        writer.varint(UInt64(2 + packed))
        writer.bytes.append(0x1A)
        writer.varint(UInt64(packed))
        writer.varint(zx)
        writer.varint(zy)
    }

    /// A `Geometry` message's content: `lengths` (not for a point) and `coords`, each part's
    /// first position as it is and the others as differences, zigzag-encoded.
    static func writeGeometry(_ parts: CoordinateQuantization.Parts, into writer: inout ProtobufWriter) {
        if parts.type != .point {
            writer.packed(2) { packed in
                for length in parts.lengths { packed.varint(UInt64(length)) }
            }
        }
        writer.packed(3) { packed in
            var index = 0
            for length in parts.lengths {
                var previous: (Int64, Int64) = (0, 0)
                for _ in 0..<length {
                    let cell = (parts.cells[index], parts.cells[index + 1])
                    packed.varint(ProtobufWriter.zigzag(cell.0 &- previous.0))
                    packed.varint(ProtobufWriter.zigzag(cell.1 &- previous.1))
                    previous = cell
                    index += 2
                }
            }
        }
    }
}

extension ProtobufWriter {
    /// A varint field written even when 0 (a member of a `oneof`, whose presence is its
    /// meaning).
    @inline(__always)
    mutating func presentVarint(_ field: UInt64, _ value: UInt64) {
        key(field, .varint)
        varint(value)
    }
}

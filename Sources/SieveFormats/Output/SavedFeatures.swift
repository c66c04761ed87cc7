import SieveFeatures
import SieveColumns
import SieveGeometry
import SieveJSON

extension FeatureTable {
    /// The features to write back into the file the table was loaded from (with
    /// ``FeatureWriterOptions/keepsFileRepresentation``): every field, the geometries as
    /// stored, and the features in the file's order — an updated feature where it was, added
    /// features at the end in the order they were added — rather than in object-ID order.
    public func savedFeatures() -> FeatureQueryResult {
        FeatureQueryResult(
            table: self, rows: liveRowsInFeatureOrder, fieldIndices: Array(schema.fields.indices),
            returnsGeometry: schema.geometryType != nil, exceededTransferLimit: false)
    }

    /// Whether writing the table in `format` with ``FeatureWriterOptions/keepsFileRepresentation``
    /// keeps the shape of the file it was loaded from: it was loaded from a GeoJSON
    /// FeatureCollection and `format` is ``FeatureOutputFormat/geoJSON``, or from an Esri JSON
    /// FeatureSet and `format` is ``FeatureOutputFormat/esriJSON``.
    public func keepsFileRepresentation(in format: FeatureOutputFormat) -> Bool {
        switch (fileRepresentation?.format, format) {
        case (.geoJSON?, .geoJSON), (.esriJSON?, .esriJSON): true
        default: false
        }
    }
}

/// What writing a table back into its file needs to know per feature, from its
/// ``FileRepresentation``: the order of a feature's members, where its `id` comes from, and how
/// each field's values are written (the fields the loader added left out).
struct SavedFeatureShape {
    /// Where a feature's `id` comes from.
    private enum IDs {
        /// The file had no ids: none is written.
        case none
        /// The object IDs (read from the ids, or equal to them).
        case objectIDs
        /// A field the loader added to keep ids that are not the object IDs.
        case column(Column)
        /// Integer ids that are not the object IDs, by object ID.
        case byObjectID([Int64: Int64])
    }

    /// A feature's members, in the file's order.
    let members: [FileRepresentation.FeatureMember]
    private let ids: IDs
    private let representation: FileRepresentation
    /// The fields the loader added (not written as attributes).
    private let added: Set<Int>

    init(_ representation: FileRepresentation, table: FeatureTable) {
        self.representation = representation
        members = representation.featureMembers
        let schema = table.schema
        var added = Set<Int>()
        if let name = representation.addedObjectIDField, let index = schema.index(ofField: name) { added.insert(index) }
        if let name = representation.featureIDField, let index = schema.index(ofField: name) {
            added.insert(index)
            ids = .column(table.columns[index])
        } else if representation.objectIDs == .featureIDs || representation.featureIDsAreObjectIDs {
            ids = .objectIDs
        } else if !representation.featureIDsByObjectID.isEmpty {
            ids = .byObjectID(representation.featureIDsByObjectID)
        } else {
            ids = .none
        }
        self.added = added
    }

    /// The cell writers of the fields at `fieldIndices` the file had, each writing values as
    /// the file wrote them.
    func cells(_ fieldIndices: [Int], table: FeatureTable, datesAsText: Bool, colon: [UInt8]) -> [CellWriter] {
        fieldIndices.filter { !added.contains($0) }.map { index in
            let column = table.columns[index]
            var cell = CellWriter(column, field: table.schema.fields[index], datesAsText: datesAsText, colon: colon)
            if representation.booleanFields.contains(index) { cell = cell.writingBooleans() }
            if representation.jsonFields.contains(index) { cell = cell.writingJSON(column) }
            if let style = representation.dateStyles[index] { cell = cell.writingDates(style) }
            return cell
        }
    }

    /// Whether the feature of row `row` (whose object ID `objectIDs` holds) has an `id` to write.
    func hasID(row: Int, objectIDs: ColumnBuffer<Int64>) -> Bool {
        switch ids {
        case .none: false
        case .objectIDs: true
        case .column(let column): !column[row].isNull
        case .byObjectID(let byObjectID): byObjectID[objectIDs[row]] != nil
        }
    }

    /// Appends the `id` value of row `row` (see ``hasID(row:objectIDs:)``).
    func appendID(row: Int, objectIDs: ColumnBuffer<Int64>, into bytes: inout [UInt8]) {
        switch ids {
        case .none:
            bytes.append(contentsOf: "null".utf8)
        case .objectIDs:
            JSONOutput.appendInteger(objectIDs[row], to: &bytes)
        case .byObjectID(let byObjectID):
            if let id = byObjectID[objectIDs[row]] {
                JSONOutput.appendInteger(id, to: &bytes)
            } else {
                bytes.append(contentsOf: "null".utf8)
            }
        case .column(let column):
            switch column[row] {
            case .integer(let value): JSONOutput.appendInteger(value, to: &bytes)
            case .double(let value): JSONWriter.writeAttributeDouble(value, into: &bytes)
            case .string(let text): JSONWriter.writeString(text, into: &bytes)
            case .date(let milliseconds): JSONWriter.writeString(CivilTime.format(milliseconds: milliseconds), into: &bytes)
            case .boolean(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
            case .null: bytes.append(contentsOf: "null".utf8)
            }
        }
    }
}

extension FeatureQueryResult {
    /// The features as the GeoJSON FeatureCollection the table was loaded from wrote them
    /// (see ``FeatureWriterOptions/keepsFileRepresentation``): the root's members as the file
    /// had them, in its order, `features` holding the result's features.
    func writeSavedGeoJSON<Failure: Error>(
        _ saved: FileRepresentation, into bytes: inout [UInt8], layout: JSONLayout, output: inout OutputChunks,
        flush: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        let feature = GeoJSONFeatureWriter(self, layout: layout, representation: saved)
        try writeSavedRoot(saved, into: &bytes, layout: layout) { (bytes: inout [UInt8]) throws(Failure) in
            try writeFeatureArray(feature, into: &bytes, layout: layout, output: &output, flush: flush)
        }
    }

    /// The features as the Esri JSON FeatureSet the table was loaded from wrote them (see
    /// ``FeatureWriterOptions/keepsFileRepresentation``): the root's members (`fields`,
    /// `objectIdFieldName`, …) as the file had them, in its order, `features` holding the
    /// result's features, each with its `attributes` and `geometry` in the file's order.
    func writeSavedEsriJSON<Failure: Error>(
        _ saved: FileRepresentation, into bytes: inout [UInt8], layout: JSONLayout, output: inout OutputChunks,
        flush: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        let shape = SavedFeatureShape(saved, table: table)
        let cells = shape.cells(fieldIndices, table: table, datesAsText: false, colon: layout.colon)
        let members = shape.members.filter { $0 == .attributes || $0 == .geometry }
        let stored = storedGeometries
        try writeSavedRoot(saved, into: &bytes, layout: layout) { (bytes: inout [UInt8]) throws(Failure) in
            bytes.append(UInt8(ascii: "["))
            for (i, row) in rows.enumerated() {
                layout.element(first: i == 0, depth: 2, into: &bytes)
                bytes.append(UInt8(ascii: "{"))
                var first = true
                for member in members {
                    if member == .attributes {
                        writeEsriAttributes(cells, row: row, first: first, layout: layout, into: &bytes)
                        first = false
                    } else if writeEsriGeometry(position: i, row: row, stored: stored, first: first, layout: layout, into: &bytes) {
                        first = false
                    }
                }
                layout.close(UInt8(ascii: "}"), depth: 2, empty: first, into: &bytes)
                try output.featureWritten(&bytes, flush: flush)
            }
            layout.close(UInt8(ascii: "]"), depth: 1, empty: rows.isEmpty, into: &bytes)
        }
    }

    /// A GeoJSON root `bbox` for the features saved: `original` while it still contains them
    /// all (RFC 7946 asks a bbox to contain, not to be tight; kept as the file wrote it), else
    /// their envelope now (an edit added or moved a feature outside it); `original` too when it
    /// is not four numbers (a 3D box is not redone).
    private func savedBoundingBox(_ original: JSONValue) -> JSONValue {
        guard case .array(let numbers, _) = original, numbers.count == 4 else { return original }
        let geometries = table.geometryColumn
        var extent = Envelope.empty
        for row in rows where !geometries.xmin[row].isNaN {
            extent.expand(
                toInclude: Envelope(xmin: geometries.xmin[row], ymin: geometries.ymin[row], xmax: geometries.xmax[row], ymax: geometries.ymax[row]))
        }
        let before = numbers.map { value -> Double in
            if case .number(let number, _) = value { return number.double }
            return .nan
        }
        if extent.isEmpty
            || (before[0] <= extent.xmin && before[1] <= extent.ymin && before[2] >= extent.xmax && before[3] >= extent.ymax)
        {
            return original
        }
        // Whole numbers written as the file wrote its box: as integers when it did.
        let integers = numbers.allSatisfy { value in
            if case .number(let number, _) = value { return number.isIntegerLiteral }
            return false
        }
        return .array(
            [extent.xmin, extent.ymin, extent.xmax, extent.ymax].map { value in
                if integers, value == value.rounded(), let whole = Int64(exactly: value) { return .number(JSONNumber(whole)) }
                return .number(JSONNumber(value))
            })
    }

    /// The root object of a saved file: its members as the file had them, `features` (added at
    /// the end if the file had none) written by `features`.
    private func writeSavedRoot<Failure: Error>(
        _ saved: FileRepresentation, into bytes: inout [UInt8], layout: JSONLayout,
        features: (inout [UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        bytes.append(UInt8(ascii: "{"))
        var first = true
        var wroteFeatures = false
        for member in saved.root.members {
            if member.key == "features", wroteFeatures { continue }
            layout.element(first: first, depth: 1, into: &bytes)
            first = false
            JSONWriter.writeString(member.key, into: &bytes)
            bytes.append(contentsOf: layout.colon)
            if member.key == "features" {
                wroteFeatures = true
                try features(&bytes)
            } else {
                let value = member.key == "bbox" ? savedBoundingBox(member.value) : member.value
                layout.write(value, depth: 1, numbers: .reread, into: &bytes)
            }
        }
        if !wroteFeatures {
            layout.member(#""features""#, first: first, depth: 1, into: &bytes)
            try features(&bytes)
        }
        layout.close(UInt8(ascii: "}"), depth: 0, empty: false, into: &bytes)
    }
}

import SieveFeatures
import SieveColumns
import SieveGeometry
import SieveJSON

extension FeatureQueryResult {
    /// The features as a compact GeoJSON FeatureCollection:
    ///
    /// ```json
    /// {"type":"FeatureCollection","features":[
    ///   {"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[1,2]},
    ///    "properties":{"OBJECTID":7,"name":"Oslo","founded":"1048-01-01T00:00:00.000Z"}}]}
    /// ```
    ///
    /// - `id` is the object ID; `properties` holds the result's fields in order (the object-ID
    ///   field included).
    /// - Integers are written as integers, doubles in the shortest text that reads back to the
    ///   same value (whole ones with a fraction, `889953.0`), dates as ISO 8601 UTC texts
    ///   `yyyy-mm-ddThh:mm:ss.sssZ`, NULL as `null`.
    /// - `geometry` is `null` when the result returns no geometries or the feature has none;
    ///   polygons follow RFC 7946 orientation. Coordinates are written as stored (or as
    ///   projected into the query's output reference); when the result's
    ///   ``/SieveFeatures/FeatureQueryResult/spatialReference`` is not 4326, a legacy `crs` member
    ///   names its EPSG code (`urn:ogc:def:crs:EPSG::2263`), as GDAL writes, so the file loads back
    ///   the same.
    /// - When the page ended before the last selected row, the collection carries
    ///   `"properties":{"exceededTransferLimit":true}`, as ArcGIS does.
    public var geoJSON: String { text(.geoJSON) }

    /// The features as an OGC API – Features items document: ``geoJSON`` with `members`
    /// (`numberMatched`, `numberReturned`, `links`, …) after `type`, and neither the legacy
    /// `crs` member (OGC API names the CRS in the `Content-Crs` header) nor
    /// `exceededTransferLimit` (it links the next page instead).
    package func ogcFeatureCollection(members: JSONObject, options: FeatureWriterOptions) -> [UInt8] {
        var bytes: [UInt8] = []
        var unchunked = OutputChunks(chunkSize: .max)
        writeGeoJSON(into: &bytes, layout: JSONLayout(options), output: &unchunked, ogcMembers: members) { (_: [UInt8]) -> Void in }
        return bytes
    }

    /// The feature at `position` as a GeoJSON Feature document with `members` (`links`) after
    /// its properties, as OGC API – Features answers `/items/{featureId}`.
    package func ogcFeature(at position: Int, members: JSONObject, options: FeatureWriterOptions) -> [UInt8] {
        var bytes: [UInt8] = []
        GeoJSONFeatureWriter(self, layout: JSONLayout(options)).write(position: position, depth: 0, extraMembers: members, into: &bytes)
        return bytes
    }

    /// Appends ``geoJSON`` to `bytes` as UTF-8.
    public func writeGeoJSON(into bytes: inout [UInt8]) {
        var unchunked = OutputChunks(chunkSize: .max)
        writeGeoJSON(into: &bytes, layout: JSONLayout(FeatureWriterOptions()), output: &unchunked) { (_: [UInt8]) -> Void in }
    }

    /// Writes ``geoJSON`` as UTF-8 in pieces: `flush` is given the next piece whenever at least
    /// `chunkSize` bytes have accumulated (after a whole feature), and the rest at the end. The
    /// pieces joined are ``geoJSON``; memory stays about one piece, however many features the
    /// result holds.
    ///
    /// ```swift
    /// try result.writeGeoJSON(chunkSize: 1 << 20) { piece in
    ///     try handle.write(contentsOf: piece)
    /// }
    /// ```
    public func writeGeoJSON<Failure: Error>(
        chunkSize: Int, flush: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        try write(.geoJSON, chunkSize: chunkSize, flush: flush)
    }

    /// The features as text in `format`, laid out as `options` say.
    ///
    /// ```swift
    /// let lines = result.text(.geoJSONSeq, options: FeatureWriterOptions(coordinatePrecision: 6))
    /// ```
    public func text(_ format: FeatureOutputFormat, options: FeatureWriterOptions = FeatureWriterOptions()) -> String {
        var text: [UInt8] = []
        write(format, options: options, chunkSize: .max) { (piece: [UInt8]) -> Void in text.append(contentsOf: piece) }
        return String(decoding: text, as: UTF8.self)
    }

    /// Writes the features in `format` as UTF-8 in pieces, streaming: `flush` is given the next
    /// piece whenever at least `chunkSize` bytes have accumulated (after a whole feature), and
    /// the rest at the end, so memory stays about one piece however many features the result
    /// holds. The pieces joined are ``text(_:options:)``.
    ///
    /// - ``FeatureOutputFormat/geoJSON``: ``geoJSON``, indented with
    ///   ``FeatureWriterOptions/pretty``.
    /// - ``FeatureOutputFormat/geoJSONSeq``: each feature of ``geoJSON`` on its own line,
    ///   compact whatever ``FeatureWriterOptions/pretty`` says, followed by a line feed and
    ///   preceded by RS (U+001E) with ``FeatureWriterOptions/recordSeparator``; no `crs` and no
    ///   `exceededTransferLimit` (see ``FeatureOutputFormat/geoJSONSeq``).
    /// - ``FeatureOutputFormat/esriJSON``: ``esriJSON``, indented with
    ///   ``FeatureWriterOptions/pretty``.
    /// - ``FeatureOutputFormat/csv``: ``csv(options:)``.
    ///
    /// Geometry coordinates are written with ``FeatureWriterOptions/coordinatePrecision`` in
    /// every format. The JSON documents end without a line break; GeoJSONSeq and CSV records
    /// each end with one.
    ///
    /// `progress`, when given, is called after each piece with the features and bytes written
    /// so far (and once at the end), for a progress display.
    public func write<Failure: Error>(
        _ format: FeatureOutputFormat, options: FeatureWriterOptions = FeatureWriterOptions(), chunkSize: Int,
        progress: ((WriteProgress) -> Void)? = nil, flush: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Swift.min(Swift.max(chunkSize, 0), 1 << 16) + 4096)
        var output = OutputChunks(chunkSize: chunkSize, totalFeatures: rows.count, progress: progress)
        let saved = options.keepsFileRepresentation ? table.fileRepresentation : nil
        switch format {
        case .geoJSON:
            if let saved, saved.format == .geoJSON {
                try writeSavedGeoJSON(saved, into: &bytes, layout: JSONLayout(options), output: &output, flush: flush)
            } else {
                try writeGeoJSON(into: &bytes, layout: JSONLayout(options), output: &output, flush: flush)
            }
        case .geoJSONSeq:
            try writeGeoJSONSeq(into: &bytes, options: options, output: &output, flush: flush)
        case .esriJSON:
            if let saved, saved.format == .esriJSON {
                try writeSavedEsriJSON(saved, into: &bytes, layout: JSONLayout(options), output: &output, flush: flush)
            } else {
                try writeEsriJSON(
                    into: &bytes, layout: JSONLayout(options), quantization: options.quantization, types: options.esriFieldTypes,
                    output: &output, flush: flush)
            }
        case .csv:
            try writeCSV(into: &bytes, options: options, output: &output, flush: flush)
        }
        try output.hand(&bytes, flush: flush)
    }

    /// The writer of the table's stored geometries, straight from its geometry column, when the
    /// result returns them as stored (not projected); `nil` otherwise.
    var storedGeometries: StoredGeometryWriter? {
        returnsGeometry && projectedGeometries == nil ? StoredGeometryWriter(table.geometryColumn) : nil
    }

    /// ``geoJSON`` appended to `bytes`, handed to `flush` whenever they reach the chunk size.
    private func writeGeoJSON<Failure: Error>(
        into bytes: inout [UInt8], layout: JSONLayout, output: inout OutputChunks, ogcMembers: JSONObject? = nil,
        flush: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        let feature = GeoJSONFeatureWriter(self, layout: layout)
        bytes.append(UInt8(ascii: "{"))
        layout.member(#""type""#, first: true, depth: 1, into: &bytes)
        bytes.append(contentsOf: #""FeatureCollection""#.utf8)
        for member in ogcMembers?.members ?? [] {
            layout.element(first: false, depth: 1, into: &bytes)
            JSONWriter.writeString(member.key, into: &bytes)
            bytes.append(contentsOf: layout.colon)
            layout.write(member.value, depth: 1, numbers: .plain, into: &bytes)
        }
        let reference = spatialReference
        if reference.latestWkid != 4326, ogcMembers == nil {
            layout.member(#""crs""#, depth: 1, into: &bytes)
            var properties = JSONObject()
            properties.append("name", .string("urn:ogc:def:crs:EPSG::\(reference.latestWkid)"))
            var crs = JSONObject()
            crs.append("type", .string("name"))
            crs.append("properties", .object(properties))
            layout.write(.object(crs), depth: 1, numbers: .plain, into: &bytes)
        }
        layout.member(#""features""#, depth: 1, into: &bytes)
        try writeFeatureArray(feature, into: &bytes, layout: layout, output: &output, flush: flush)
        if exceededTransferLimit, ogcMembers == nil {
            layout.member(#""properties""#, depth: 1, into: &bytes)
            var properties = JSONObject()
            properties.append("exceededTransferLimit", .bool(true))
            layout.write(.object(properties), depth: 1, numbers: .plain, into: &bytes)
        }
        layout.close(UInt8(ascii: "}"), depth: 0, empty: false, into: &bytes)
    }

    /// An Esri JSON feature's `"attributes":{…}` member for `row`, after a comma unless `first`.
    func writeEsriAttributes(_ cells: [CellWriter], row: Int, first: Bool, layout: JSONLayout, into bytes: inout [UInt8]) {
        layout.member(#""attributes""#, first: first, depth: 3, into: &bytes)
        bytes.append(UInt8(ascii: "{"))
        // Each writer used in place: copying one per cell would retain and release its buffers.
        cells.withUnsafeBufferPointer { cells in
            for j in cells.indices {
                layout.element(first: j == 0, depth: 4, into: &bytes)
                CellWriter.write(cells, j, row: row, into: &bytes)
            }
        }
        layout.close(UInt8(ascii: "}"), depth: 3, empty: cells.isEmpty, into: &bytes)
    }

    /// An Esri JSON feature's `"geometry":…` member for the feature at `position` (table row
    /// `row`), after a comma unless `first`: straight from the column when it can be, else
    /// materialized (an envelope or a collection). Nothing, and `false`, for a feature without
    /// geometry. Esri JSON has no geometry collection: a collection is written as its Esri form
    /// (``Geometry/esriJSONForm``, the multi-part geometry of its dimension), an empty one as
    /// no geometry.
    @discardableResult
    func writeEsriGeometry(
        position: Int, row: Int, stored: StoredGeometryWriter?, first: Bool, layout: JSONLayout, into bytes: inout [UInt8]
    ) -> Bool {
        if let stored {
            // The member is taken back when the row needs the materializing path or has no
            // geometry.
            let mark = bytes.count
            layout.member(#""geometry""#, first: first, depth: 3, into: &bytes)
            if stored.writeEsriJSON(row: row, layout: layout, depth: 3, into: &bytes) { return true }
            bytes.removeSubrange(mark...)
        }
        guard let value = geometry(at: position)?.esriJSONFormValue() else { return false }
        layout.member(#""geometry""#, first: first, depth: 3, into: &bytes)
        layout.write(value, depth: 3, numbers: .coordinates, into: &bytes)
        return true
    }

    /// The value of a FeatureCollection's `features`: an array of every feature, as `feature`
    /// writes it, handed to `flush` whenever the bytes reach the chunk size.
    func writeFeatureArray<Failure: Error>(
        _ feature: GeoJSONFeatureWriter, into bytes: inout [UInt8], layout: JSONLayout, output: inout OutputChunks,
        flush: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        bytes.append(UInt8(ascii: "["))
        if rows.count <= 4096 {
            // A page: its size at once (and its cells in the cache), and room for the geometries.
            bytes.reserveCapacity(bytes.count + feature.estimatedSize() + rows.count * 96)
        }
        for i in rows.indices {
            layout.element(first: i == 0, depth: 2, into: &bytes)
            feature.write(position: i, depth: 2, into: &bytes)
            try output.featureWritten(&bytes, flush: flush)
        }
        layout.close(UInt8(ascii: "]"), depth: 1, empty: rows.isEmpty, into: &bytes)
    }

    /// The GeoJSONSeq records appended to `bytes`, handed to `flush` whenever they reach the
    /// chunk size.
    private func writeGeoJSONSeq<Failure: Error>(
        into bytes: inout [UInt8], options: FeatureWriterOptions, output: inout OutputChunks,
        flush: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        let feature = GeoJSONFeatureWriter(self, layout: JSONLayout(pretty: false, coordinates: options.coordinateFormat))
        for i in rows.indices {
            if options.recordSeparator { bytes.append(0x1E) }
            feature.write(position: i, depth: 0, into: &bytes)
            bytes.append(UInt8(ascii: "\n"))
            try output.featureWritten(&bytes, flush: flush)
        }
    }

    /// The features as a compact Esri JSON FeatureSet, the shape of an ArcGIS REST query
    /// response:
    ///
    /// ```json
    /// {"objectIdFieldName":"OBJECTID","displayFieldName":"name","geometryType":"esriGeometryPoint",
    ///  "spatialReference":{"wkid":4326},"fields":[{"name":"OBJECTID","type":"esriFieldTypeOID",…}],
    ///  "features":[{"attributes":{"OBJECTID":7,"name":"Oslo"},"geometry":{"x":10.7,"y":59.9}}]}
    /// ```
    ///
    /// - `globalIdFieldName` and `displayFieldName` appear when the schema has them;
    ///   `geometryType` and `spatialReference` when the table has a geometry type.
    /// - `"hasZ":true` and `"hasM":true` follow when the returned geometries carry them
    ///   (``/SieveFeatures/FeatureQueryResult/geometryLayout``), as each such geometry says too.
    /// - `fields` describes the result's fields (Esri layer-JSON field objects), also when
    ///   there are no features.
    /// - Attribute values as in ``geoJSON`` except dates, written as epoch milliseconds.
    /// - A feature has a `geometry` member only when the result returns geometries and the
    ///   feature has one (written without its own spatial reference).
    /// - Esri JSON has no geometry collection: a feature whose geometry is one gets the Esri
    ///   multi-part geometry of the collection's dimension — its points as a multipoint, its
    ///   lines as a polyline, its areas as a polygon — which holds every member of that
    ///   dimension (members of a lower dimension, beside areas or lines, are left out); an empty
    ///   collection is written as no geometry.
    /// - `"exceededTransferLimit":true` ends the object when the page ended before the last
    ///   selected row.
    public var esriJSON: String { text(.esriJSON) }

    /// Appends ``esriJSON`` to `bytes` as UTF-8.
    public func writeEsriJSON(into bytes: inout [UInt8]) {
        var unchunked = OutputChunks(chunkSize: .max)
        writeEsriJSON(into: &bytes, layout: JSONLayout(FeatureWriterOptions()), quantization: nil, types: .all, output: &unchunked) {
            (_: [UInt8]) -> Void in
        }
    }

    /// Writes ``esriJSON`` as UTF-8 in pieces, as
    /// ``writeGeoJSON(chunkSize:flush:)`` writes GeoJSON.
    public func writeEsriJSON<Failure: Error>(
        chunkSize: Int, flush: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        try write(.esriJSON, chunkSize: chunkSize, flush: flush)
    }

    /// ``esriJSON`` appended to `bytes`, handed to `flush` whenever they reach the chunk size.
    private func writeEsriJSON<Failure: Error>(
        into bytes: inout [UInt8], layout: JSONLayout, quantization: CoordinateQuantization?, types: EsriFieldTypes,
        output: inout OutputChunks,
        flush: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        let schema = table.schema
        let schemaJSON = table.schemaJSON
        let cells = CellWriter.writers(
            of: fieldIndices, in: table, datesAsText: false, daysAsMilliseconds: types == .before11_2, layout: layout)
        bytes.append(UInt8(ascii: "{"))
        layout.member(#""objectIdFieldName""#, first: true, depth: 1, into: &bytes)
        JSONWriter.writeString(schema.objectIdFieldName, into: &bytes)
        if let name = schema.globalIdFieldName {
            layout.member(#""globalIdFieldName""#, depth: 1, into: &bytes)
            JSONWriter.writeString(name, into: &bytes)
        }
        if let name = schema.displayFieldName {
            layout.member(#""displayFieldName""#, depth: 1, into: &bytes)
            JSONWriter.writeString(name, into: &bytes)
        }
        if let geometryType = schema.geometryType {
            layout.member(#""geometryType""#, depth: 1, into: &bytes)
            JSONWriter.writeString(geometryType.rawValue, into: &bytes)
            layout.member(#""spatialReference""#, depth: 1, into: &bytes)
            layout.write(JSONOutput.spatialReferenceValue(spatialReference), depth: 1, numbers: .plain, into: &bytes)
            let ordinates = geometryLayout
            if ordinates.hasZ { layout.member(#""hasZ""#, depth: 1, into: &bytes); bytes.append(contentsOf: "true".utf8) }
            if ordinates.hasM { layout.member(#""hasM""#, depth: 1, into: &bytes); bytes.append(contentsOf: "true".utf8) }
            if let quantization {
                layout.member(#""transform""#, depth: 1, into: &bytes)
                layout.write(quantization.transformJSON, depth: 1, numbers: .plain, into: &bytes)
            }
        }
        layout.member(#""fields""#, depth: 1, into: &bytes)
        if layout.pretty {
            layout.write(.array(fieldIndices.map { schema.fields[$0].esriJSONValue(types: types) }), depth: 1, numbers: .plain, into: &bytes)
        } else {
            schemaJSON.appendEsriFields(fieldIndices, types: types, to: &bytes)
        }
        layout.member(#""features""#, depth: 1, into: &bytes)
        bytes.append(UInt8(ascii: "["))
        let stored = quantization == nil ? storedGeometries : nil
        if rows.count <= 4096 {
            // A page: its size at once (and its cells in the cache), and room for the geometries.
            bytes.reserveCapacity(bytes.count + CellWriter.estimatedSize(cells, rows: rows) + rows.count * 64)
        }
        for (i, row) in rows.enumerated() {
            layout.element(first: i == 0, depth: 2, into: &bytes)
            bytes.append(UInt8(ascii: "{"))
            writeEsriAttributes(cells, row: row, first: true, layout: layout, into: &bytes)
            if let quantization {
                if returnsGeometry, let geometry = geometry(at: i), let parts = quantization.parts(of: geometry) {
                    layout.member(#""geometry""#, depth: 3, into: &bytes)
                    parts.writeEsriJSON(layout: layout, depth: 3, into: &bytes)
                }
            } else {
                writeEsriGeometry(position: i, row: row, stored: stored, first: false, layout: layout, into: &bytes)
            }
            layout.close(UInt8(ascii: "}"), depth: 2, empty: false, into: &bytes)
            try output.featureWritten(&bytes, flush: flush)
        }
        layout.close(UInt8(ascii: "]"), depth: 1, empty: rows.isEmpty, into: &bytes)
        if exceededTransferLimit {
            layout.member(#""exceededTransferLimit""#, depth: 1, into: &bytes)
            bytes.append(contentsOf: "true".utf8)
        }
        layout.close(UInt8(ascii: "}"), depth: 0, empty: false, into: &bytes)
    }
}

/// Writes the GeoJSON Feature objects of a result, for the FeatureCollection and GeoJSONSeq
/// writers alike: one set of cell writers, made once.
struct GeoJSONFeatureWriter {
    private let result: FeatureQueryResult
    private let layout: JSONLayout
    private let cells: [CellWriter]
    private let ids: ColumnBuffer<Int64>
    /// The stored geometries' writer, when the result returns them as stored.
    private let stored: StoredGeometryWriter?
    /// Writing a table back into the file it was loaded from: the file's feature shape.
    private let saved: SavedFeatureShape?

    /// A writer of `result`'s features; with `representation`, in the shape of the file the
    /// table was loaded from (see ``FeatureWriterOptions/keepsFileRepresentation``).
    init(_ result: FeatureQueryResult, layout: JSONLayout, representation: FileRepresentation? = nil) {
        self.result = result
        self.layout = layout
        stored = result.storedGeometries
        let table = result.table
        let colon = layout.colon
        if let representation {
            let shape = SavedFeatureShape(representation, table: table)
            cells = shape.cells(result.fieldIndices, table: table, datesAsText: true, colon: colon)
            saved = shape
        } else {
            cells = CellWriter.writers(of: result.fieldIndices, in: table, datesAsText: true, layout: layout)
            saved = nil
        }
        ids = table.objectIDs
    }

    /// About how many bytes the properties of the result's features take written (see
    /// ``CellWriter/estimatedSize(_:rows:)``).
    func estimatedSize() -> Int { CellWriter.estimatedSize(cells, rows: result.rows) }

    /// Appends the Feature at `position` of the result, its first line at `depth`:
    /// `{"type":"Feature","id":…,"geometry":…,"properties":{…}}`.
    func write(position: Int, depth: Int, extraMembers: JSONObject? = nil, into bytes: inout [UInt8]) {
        let row = result.rows[position]
        if let saved {
            writeSaved(saved, position: position, row: row, depth: depth, into: &bytes)
            return
        }
        bytes.append(UInt8(ascii: "{"))
        layout.member(#""type""#, first: true, depth: depth + 1, into: &bytes)
        bytes.append(contentsOf: #""Feature""#.utf8)
        layout.member(#""id""#, depth: depth + 1, into: &bytes)
        JSONOutput.appendInteger(ids[row], to: &bytes)
        layout.member(#""geometry""#, depth: depth + 1, into: &bytes)
        writeGeometry(position: position, row: row, depth: depth, into: &bytes)
        layout.member(#""properties""#, depth: depth + 1, into: &bytes)
        writeProperties(row: row, depth: depth, into: &bytes)
        for member in extraMembers?.members ?? [] {
            layout.element(first: false, depth: depth + 1, into: &bytes)
            JSONWriter.writeString(member.key, into: &bytes)
            bytes.append(contentsOf: layout.colon)
            layout.write(member.value, depth: depth + 1, numbers: .plain, into: &bytes)
        }
        layout.close(UInt8(ascii: "}"), depth: depth, empty: false, into: &bytes)
    }

    /// Appends the Feature at `position` (row `row`) in the file's shape: its members in the
    /// file's order, the id from where the file had it.
    private func writeSaved(_ saved: SavedFeatureShape, position: Int, row: Int, depth: Int, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for member in saved.members {
            switch member {
            case .type:
                layout.member(#""type""#, first: first, depth: depth + 1, into: &bytes)
                bytes.append(contentsOf: #""Feature""#.utf8)
            case .id:
                guard saved.hasID(row: row, objectIDs: ids) else { continue }
                layout.member(#""id""#, first: first, depth: depth + 1, into: &bytes)
                saved.appendID(row: row, objectIDs: ids, into: &bytes)
            case .geometry:
                layout.member(#""geometry""#, first: first, depth: depth + 1, into: &bytes)
                writeGeometry(position: position, row: row, depth: depth, into: &bytes)
            case .attributes:
                layout.member(#""properties""#, first: first, depth: depth + 1, into: &bytes)
                writeProperties(row: row, depth: depth, into: &bytes)
            }
            first = false
        }
        layout.close(UInt8(ascii: "}"), depth: depth, empty: first, into: &bytes)
    }

    /// Appends the `properties` object of row `row` (of a feature at `depth`).
    @inline(__always)
    private func writeProperties(row: Int, depth: Int, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        // Each writer used in place: copying one per cell would retain and release its buffers.
        cells.withUnsafeBufferPointer { cells in
            for j in cells.indices {
                layout.element(first: j == 0, depth: depth + 2, into: &bytes)
                CellWriter.write(cells, j, row: row, into: &bytes)
            }
        }
        layout.close(UInt8(ascii: "}"), depth: depth + 1, empty: cells.isEmpty, into: &bytes)
    }

    /// Appends the `geometry` value of the feature at `position` (row `row`, at `depth`).
    @inline(__always)
    private func writeGeometry(position: Int, row: Int, depth: Int, into bytes: inout [UInt8]) {
        if let stored, stored.writeGeoJSON(row: row, layout: layout, depth: depth + 1, into: &bytes) {
            // Written straight from the column.
        } else if let geometry = result.geometry(at: position) {
            if case .point(let point) = geometry, point.layout == .xy, !point.isEmpty {
                // The common case without building a JSON value: the same text.
                bytes.append(UInt8(ascii: "{"))
                layout.member(#""type""#, first: true, depth: depth + 2, into: &bytes)
                bytes.append(contentsOf: #""Point""#.utf8)
                layout.member(#""coordinates""#, depth: depth + 2, into: &bytes)
                bytes.append(UInt8(ascii: "["))
                layout.coordinates.appendJSON(point.x, to: &bytes)
                bytes.append(UInt8(ascii: ","))
                if layout.pretty { bytes.append(UInt8(ascii: " ")) }
                layout.coordinates.appendJSON(point.y, to: &bytes)
                bytes.append(UInt8(ascii: "]"))
                layout.close(UInt8(ascii: "}"), depth: depth + 1, empty: false, into: &bytes)
            } else {
                layout.write(geometry.geoJSONValue, depth: depth + 1, numbers: .coordinates, into: &bytes)
            }
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
    }
}

import SieveColumns
import SieveGeometry

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
    ///   same value (whole ones without a fraction), dates as ISO 8601 UTC texts
    ///   `yyyy-mm-ddThh:mm:ss.sssZ`, NULL as `null`.
    /// - `geometry` is `null` when the result returns no geometries or the feature has none;
    ///   polygons follow RFC 7946 orientation. Coordinates are written as stored (or as
    ///   projected into the query's output reference); when the result's
    ///   ``spatialReference`` is not 4326, a legacy `crs` member names its EPSG code
    ///   (`urn:ogc:def:crs:EPSG::2263`), as GDAL writes, so the file loads back the same.
    /// - When the page ended before the last selected row, the collection carries
    ///   `"properties":{"exceededTransferLimit":true}`, as ArcGIS does.
    public var geoJSON: String {
        var bytes: [UInt8] = []
        writeGeoJSON(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``geoJSON`` to `bytes` as UTF-8.
    public func writeGeoJSON(into bytes: inout [UInt8]) {
        writeGeoJSON(into: &bytes, chunkSize: .max) { (_: [UInt8]) -> Void in }
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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Swift.min(Swift.max(chunkSize, 0), 1 << 24) + 4096)
        try writeGeoJSON(into: &bytes, chunkSize: chunkSize, flush: flush)
        try flush(bytes)
    }

    /// ``geoJSON`` appended to `bytes`, handed to `flush` whenever it reaches `chunkSize` bytes.
    private func writeGeoJSON<Failure: Error>(
        into bytes: inout [UInt8], chunkSize: Int, flush: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        let cells = fieldIndices.map { CellWriter(table.columns[$0], name: table.schema.fields[$0].name, datesAsText: true) }
        bytes.append(contentsOf: #"{"type":"FeatureCollection","#.utf8)
        let reference = spatialReference
        if reference.latestWkid != 4326 {
            bytes.append(contentsOf: #""crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::"#.utf8)
            JSONOutput.appendInteger(Int64(reference.latestWkid), to: &bytes)
            bytes.append(contentsOf: #""}},"#.utf8)
        }
        bytes.append(contentsOf: #""features":["#.utf8)
        let ids = table.objectIDs
        for (i, row) in rows.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: #"{"type":"Feature","id":"#.utf8)
            JSONOutput.appendInteger(ids[row], to: &bytes)
            bytes.append(contentsOf: #","geometry":"#.utf8)
            if let geometry = geometry(at: i) {
                JSONWriter.write(geometry.geoJSONValue, into: &bytes)
            } else {
                bytes.append(contentsOf: "null".utf8)
            }
            bytes.append(contentsOf: #","properties":{"#.utf8)
            for (j, cell) in cells.enumerated() {
                if j > 0 { bytes.append(UInt8(ascii: ",")) }
                cell.write(row: row, into: &bytes)
            }
            bytes.append(contentsOf: "}}".utf8)
            if bytes.count >= chunkSize {
                try flush(bytes)
                bytes.removeAll(keepingCapacity: true)
            }
        }
        bytes.append(UInt8(ascii: "]"))
        if exceededTransferLimit {
            bytes.append(contentsOf: #","properties":{"exceededTransferLimit":true}"#.utf8)
        }
        bytes.append(UInt8(ascii: "}"))
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
    /// - `fields` describes the result's fields (Esri layer-JSON field objects), also when
    ///   there are no features.
    /// - Attribute values as in ``geoJSON`` except dates, written as epoch milliseconds.
    /// - A feature has a `geometry` member only when the result returns geometries and the
    ///   feature has one (written without its own spatial reference).
    /// - `"exceededTransferLimit":true` ends the object when the page ended before the last
    ///   selected row.
    public var esriJSON: String {
        var bytes: [UInt8] = []
        writeEsriJSON(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``esriJSON`` to `bytes` as UTF-8.
    public func writeEsriJSON(into bytes: inout [UInt8]) {
        writeEsriJSON(into: &bytes, chunkSize: .max) { (_: [UInt8]) -> Void in }
    }

    /// Writes ``esriJSON`` as UTF-8 in pieces, as
    /// ``writeGeoJSON(chunkSize:flush:)`` writes GeoJSON.
    public func writeEsriJSON<Failure: Error>(
        chunkSize: Int, flush: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Swift.min(Swift.max(chunkSize, 0), 1 << 24) + 4096)
        try writeEsriJSON(into: &bytes, chunkSize: chunkSize, flush: flush)
        try flush(bytes)
    }

    /// ``esriJSON`` appended to `bytes`, handed to `flush` whenever it reaches `chunkSize` bytes.
    private func writeEsriJSON<Failure: Error>(
        into bytes: inout [UInt8], chunkSize: Int, flush: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        let schema = table.schema
        let cells = fieldIndices.map { CellWriter(table.columns[$0], name: schema.fields[$0].name, datesAsText: false) }
        bytes.append(contentsOf: #"{"objectIdFieldName":"#.utf8)
        JSONWriter.writeString(schema.objectIdFieldName, into: &bytes)
        if let name = schema.globalIdFieldName {
            bytes.append(contentsOf: #","globalIdFieldName":"#.utf8)
            JSONWriter.writeString(name, into: &bytes)
        }
        if let name = schema.displayFieldName {
            bytes.append(contentsOf: #","displayFieldName":"#.utf8)
            JSONWriter.writeString(name, into: &bytes)
        }
        if let geometryType = schema.geometryType {
            bytes.append(contentsOf: #","geometryType":"#.utf8)
            JSONWriter.writeString(geometryType.rawValue, into: &bytes)
            bytes.append(contentsOf: #","spatialReference":"#.utf8)
            JSONOutput.appendSpatialReference(spatialReference, to: &bytes)
        }
        bytes.append(contentsOf: #","fields":"#.utf8)
        JSONWriter.write(.array(fieldIndices.map { schema.fields[$0].esriJSONValue }), into: &bytes)
        bytes.append(contentsOf: #","features":["#.utf8)
        for (i, row) in rows.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: #"{"attributes":{"#.utf8)
            for (j, cell) in cells.enumerated() {
                if j > 0 { bytes.append(UInt8(ascii: ",")) }
                cell.write(row: row, into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
            if let geometry = geometry(at: i), let value = try? geometry.esriJSONValue() {
                bytes.append(contentsOf: #","geometry":"#.utf8)
                JSONWriter.write(value, into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
            if bytes.count >= chunkSize {
                try flush(bytes)
                bytes.removeAll(keepingCapacity: true)
            }
        }
        bytes.append(UInt8(ascii: "]"))
        if exceededTransferLimit {
            bytes.append(contentsOf: #","exceededTransferLimit":true"#.utf8)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}

/// The JSON documents of the query responses that carry no features, shaped as the ArcGIS REST
/// API answers `returnCountOnly`, `returnIdsOnly` and `returnExtentOnly`.
public enum QueryResponseJSON {
    /// `{"count":N}`.
    public static func count(_ count: Int) -> String {
        var bytes = Array(#"{"count":"#.utf8)
        JSONOutput.appendInteger(Int64(count), to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `{"objectIdFieldName":"OBJECTID","objectIds":[1,2,3]}`, the IDs in the order given.
    public static func objectIDs(_ ids: [Int64], objectIdFieldName: String) -> String {
        var bytes = Array(#"{"objectIdFieldName":"#.utf8)
        JSONWriter.writeString(objectIdFieldName, into: &bytes)
        bytes.append(contentsOf: #","objectIds":["#.utf8)
        for (i, id) in ids.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONOutput.appendInteger(id, to: &bytes)
        }
        bytes.append(contentsOf: "]}".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `{"count":N,"extent":{"xmin":…,"ymin":…,"xmax":…,"ymax":…,"spatialReference":{"wkid":4326}}}`.
    ///
    /// An empty extent (no selected row has a geometry) is written as Esri JSON writes an empty
    /// envelope: `{"xmin":null,"ymin":null,"xmax":null,"ymax":null,"spatialReference":{…}}`.
    /// The spatial reference carries `latestWkid` when it differs from `wkid`
    /// (`{"wkid":102100,"latestWkid":3857}`).
    public static func extent(count: Int, extent: Envelope, spatialReference: SpatialReference) -> String {
        var bytes = Array(#"{"count":"#.utf8)
        JSONOutput.appendInteger(Int64(count), to: &bytes)
        bytes.append(contentsOf: #","extent":{"#.utf8)
        let empty = extent.isEmpty
        for (i, (name, value)) in [("xmin", extent.xmin), ("ymin", extent.ymin), ("xmax", extent.xmax), ("ymax", extent.ymax)]
            .enumerated()
        {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(name, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            if empty {
                bytes.append(contentsOf: "null".utf8)
            } else {
                JSONWriter.writeDouble(value, into: &bytes)
            }
        }
        bytes.append(contentsOf: #","spatialReference":"#.utf8)
        JSONOutput.appendSpatialReference(spatialReference, to: &bytes)
        bytes.append(contentsOf: "}}".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Small byte-level JSON helpers for the writers.
enum JSONOutput {
    /// Appends the decimal digits of `value`.
    static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 20 digits, filled from the end
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                count += 1
                buffer[buffer.count - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: buffer[(buffer.count - count)...])
        }
    }

    /// Appends `{"wkid":N}` (with `"latestWkid"` when it differs).
    static func appendSpatialReference(_ reference: SpatialReference, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"wkid":"#.utf8)
        appendInteger(Int64(reference.wkid), to: &bytes)
        if reference.latestWkid != reference.wkid {
            bytes.append(contentsOf: #","latestWkid":"#.utf8)
            appendInteger(Int64(reference.latestWkid), to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}

/// Writes one field's `"name":value` member for any row, set up once per field: the member
/// name is escaped once, and a dictionary column's strings are escaped once per distinct
/// value.
struct CellWriter {
    private enum Source {
        case integer([Int64])
        case double([Double])
        case dateText([Int64])
        case dateMilliseconds([Int64])
        case dictionary(codes: [UInt32], escaped: [[UInt8]])
        case plain(StringStorage)
    }

    private let key: [UInt8]
    private let source: Source
    private let validity: ValidityBitmap?

    /// A writer for `column`, whose field is `name`; dates as ISO 8601 text when `datesAsText`,
    /// else as epoch milliseconds.
    init(_ column: Column, name: String, datesAsText: Bool) {
        var key: [UInt8] = []
        JSONWriter.writeString(name, into: &key)
        key.append(UInt8(ascii: ":"))
        self.key = key
        validity = column.validity
        switch column {
        case .integer(let column): source = .integer(column.values)
        case .double(let column): source = .double(column.values)
        case .date(let column): source = datesAsText ? .dateText(column.values) : .dateMilliseconds(column.values)
        case .string(let column):
            switch column.encoding {
            case .dictionary(let codes, let dictionary):
                let escaped = (0..<dictionary.count).map { i -> [UInt8] in
                    var bytes: [UInt8] = []
                    JSONWriter.writeString(dictionary[i], into: &bytes)
                    return bytes
                }
                source = .dictionary(codes: codes, escaped: escaped)
            case .plain(let strings):
                source = .plain(strings)
            }
        }
    }

    /// Appends `"name":value` for `row`.
    @inline(__always)
    func write(row: Int, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: key)
        if let validity, !validity.isValid(row) {
            bytes.append(contentsOf: "null".utf8)
            return
        }
        switch source {
        case .integer(let values), .dateMilliseconds(let values):
            JSONOutput.appendInteger(values[row], to: &bytes)
        case .double(let values):
            JSONWriter.writeAttributeDouble(values[row], into: &bytes)
        case .dateText(let values):
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: CivilTime.format(milliseconds: values[row]).utf8)
            bytes.append(UInt8(ascii: "\""))
        case .dictionary(let codes, let escaped):
            bytes.append(contentsOf: escaped[Int(codes[row])])
        case .plain(let strings):
            JSONWriter.writeString(strings[row], into: &bytes)
        }
    }
}

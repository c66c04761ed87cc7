import Foundation
import SieveColumns
import SieveGeometry
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats
import SieveJSON

/// The output formats of a query result: GeoJSON, GeoJSONSeq, Esri JSON and CSV, compact and
/// pretty, with and without coordinate precision; each read back and compared with the result.
@Suite("Output formats")
struct OutputFormatTests {
    /// Polygons (one with a hole, a multipolygon, an empty one, one without geometry) with
    /// awkward strings, doubles, NULLs and dates.
    static func polygons(spatialReference: SpatialReference = .wgs84) throws -> FeatureTable {
        let fields = [
            Field(name: "OBJECTID", type: .oid), Field(name: "name", type: .string), Field(name: "score", type: .double),
            Field(name: "count", type: .bigInteger), Field(name: "when", type: .date),
        ]
        let schema = try Schema(
            fields: fields, objectIdFieldName: "OBJECTID", displayFieldName: "name", geometryType: .polygon,
            spatialReference: spatialReference)
        let names: [String?] = ["plain", "Smith, John", "say \"hi\"\nbye", " padded ", "", nil, "Zürich\tend"]
        let scores: [Double?] = [1.0 / 3.0, -3, 1e-7, nil, 2.5, 12345678.9, 0]
        let counts: [Int64?] = [1, nil, -7, 0, Int64.max, Int64.min, 42]
        let dates: [Int64?] = [0, -500, nil, 1_709_296_200_000, 86_400_000, nil, 951_782_400_000]
        let wkts: [String?] = [
            "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 4 2, 2 2))",
            "MULTIPOLYGON (((20 20, 30 20, 30 30, 20 20)), ((40 40, 50 40, 50 50, 40 40)))",
            nil,
            "POLYGON ((-73.98765432109876 40.123456789, -73.5 40.123456789, -73.5 41.000000001, -73.98765432109876 40.123456789))",
            "POLYGON EMPTY",
            "POLYGON ((0.125 0.375, 1.0000000000000002 0.375, 1.0000000000000002 2.5, 0.125 0.375))",
            "POLYGON ((1e-300 0, 1 0, 1 1e300, 1e-300 0))",
        ]
        let n = names.count
        var nameValidity = ValidityBitmap(count: n, allValid: true)
        var scoreValidity = ValidityBitmap(count: n, allValid: true)
        var countValidity = ValidityBitmap(count: n, allValid: true)
        var dateValidity = ValidityBitmap(count: n, allValid: true)
        for i in 0..<n {
            nameValidity.set(i, valid: names[i] != nil)
            scoreValidity.set(i, valid: scores[i] != nil)
            countValidity.set(i, valid: counts[i] != nil)
            dateValidity.set(i, valid: dates[i] != nil)
        }
        let columns: [Column] = [
            .integer(Int64Column(values: [70, 10, 60, 20, 50, 30, 40])),
            .string(StringColumn(names)),
            .double(DoubleColumn(values: scores.map { $0 ?? 0 }, validity: scoreValidity)),
            .integer(Int64Column(values: counts.map { $0 ?? 0 }, validity: countValidity)),
            .date(Int64Column(values: dates.map { $0 ?? 0 }, validity: dateValidity)),
        ]
        let geometries = try wkts.map { wkt in try wkt.map { try Geometry(wkt: $0) } }
        return try FeatureTable(schema: schema, columns: columns, geometries: geometries)
    }

    /// Lines with z and m (one multi-part).
    static func lines() throws -> FeatureTable {
        let schema = try Schema(
            fields: [Field(name: "OBJECTID", type: .oid), Field(name: "kind", type: .string)], objectIdFieldName: "OBJECTID",
            geometryType: .polyline)
        let geometries = try [
            "LINESTRING ZM (1 2 3 4, 5.5 6 7 8)", "MULTILINESTRING ZM ((0 0 0 0, 1 1 1 1), (2 2 2.25 2, 3 3 3 3.75))",
        ].map { Optional(try Geometry(wkt: $0)) }
        return try FeatureTable(
            schema: schema,
            columns: [.integer(Int64Column(values: [1, 2])), .string(StringColumn(["a", "b"]))],
            geometries: geometries)
    }

    static func parse(_ text: String) throws -> JSONValue {
        try JSONReader.parse(bytes: Array(text.utf8))
    }

    /// The reloaded table holds the result's features: same object IDs, values and
    /// geometries (compared in their normalized GeoJSON form: writers orient rings).
    static func expectSameFeatures(
        _ reloaded: FeatureTable, _ result: FeatureQueryResult, geometries: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(reloaded.count == result.count, sourceLocation: sourceLocation)
        for (i, feature) in result.enumerated() {
            guard let row = reloaded.row(forObjectID: feature.objectID) else {
                Issue.record("object ID \(feature.objectID) is missing", sourceLocation: sourceLocation)
                continue
            }
            for (name, value) in feature.attributes {
                #expect(reloaded.value(row: row, field: name) == value, "\(feature.objectID).\(name)", sourceLocation: sourceLocation)
            }
            if geometries {
                #expect(
                    reloaded.geometry(row: row)?.geoJSON == result.geometry(at: i)?.geoJSON, "\(feature.objectID)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    // MARK: GeoJSON and Esri JSON

    @Test func defaultOptionsWriteTheCompactText() throws {
        let result = try Self.polygons().queryFeatures(QueryParameters())
        #expect(result.text(.geoJSON) == result.geoJSON)
        #expect(result.text(.esriJSON) == result.esriJSON)
        var bytes: [UInt8] = []
        result.writeGeoJSON(into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == result.geoJSON)
        #expect(!result.geoJSON.contains("\n  "))
    }

    @Test func geoJSONAndEsriJSONLoadBack() throws {
        for table in [try Self.polygons(), try Self.lines()] {
            let result = try table.queryFeatures(QueryParameters(orderBy: [SortField("OBJECTID", ascending: false)]))
            for options in [FeatureWriterOptions(), FeatureWriterOptions(pretty: true)] {
                Self.expectSameFeatures(try FeatureTable.load(geoJSON: result.text(.geoJSON, options: options)), result)
                Self.expectSameFeatures(try FeatureTable.load(esriJSON: result.text(.esriJSON, options: options)), result)
            }
        }
    }

    /// Pretty text is the same JSON value as the compact text, for every shape the writers
    /// produce: a `crs` member, exceededTransferLimit, an empty page, no geometries.
    @Test func prettyIsTheSameValue() throws {
        let projected = try Self.polygons(spatialReference: SpatialReference(wkid: 3857))
        let queries = [
            QueryParameters(), QueryParameters(maxFeatures: 2), QueryParameters(maxFeatures: 0),
            QueryParameters(outFields: ["OBJECTID"], returnGeometry: false), QueryParameters(whereClause: "1=0"),
        ]
        for table in [try Self.polygons(), projected, try Self.lines()] {
            for query in queries {
                let result = try table.queryFeatures(query)
                for format in [FeatureOutputFormat.geoJSON, .esriJSON] {
                    for precision in [nil, 3] {
                        let compact = result.text(format, options: FeatureWriterOptions(coordinatePrecision: precision))
                        let pretty = result.text(format, options: FeatureWriterOptions(pretty: true, coordinatePrecision: precision))
                        #expect(pretty != compact)
                        #expect(pretty.contains("\n  "))
                        #expect(try Self.parse(pretty) == Self.parse(compact), "\(format) \(query)")
                    }
                }
            }
        }
    }

    /// The layout itself, written out by hand.
    @Test func prettyLayout() throws {
        let schema = try Schema(
            fields: [Field(name: "OBJECTID", type: .oid), Field(name: "name", type: .string)], objectIdFieldName: "OBJECTID",
            geometryType: .point)
        let table = try FeatureTable(
            schema: schema, columns: [.integer(Int64Column(values: [1])), .string(StringColumn(["a"]))],
            geometries: [.point(Point(x: 1.5, y: -2))])
        let result = try table.queryFeatures(QueryParameters())
        let expected = """
            {
              "type": "FeatureCollection",
              "features": [
                {
                  "type": "Feature",
                  "id": 1,
                  "geometry": {
                    "type": "Point",
                    "coordinates": [1.5, -2]
                  },
                  "properties": {
                    "OBJECTID": 1,
                    "name": "a"
                  }
                }
              ]
            }
            """
        #expect(result.text(.geoJSON, options: FeatureWriterOptions(pretty: true)) == expected)
        let empty = try table.queryFeatures(QueryParameters(whereClause: "1=0"))
        #expect(
            empty.text(.geoJSON, options: FeatureWriterOptions(pretty: true))
                == "{\n  \"type\": \"FeatureCollection\",\n  \"features\": []\n}")
    }

    /// Coordinates are rounded (checked against C's printf), attributes and the spatial
    /// reference are not.
    @Test func precisionRoundsCoordinatesOnly() throws {
        let table = try Self.polygons(spatialReference: SpatialReference(wkid: 102100))
        let result = try table.queryFeatures(QueryParameters())
        for n in [0, 2, 6, 17] {
            let options = FeatureWriterOptions(coordinatePrecision: n)
            let geoJSON = try Self.parse(result.text(.geoJSON, options: options))
            let esri = try Self.parse(result.text(.esriJSON, options: options))
            guard case .array(let features, _)? = geoJSON["features"], case .array(let esriFeatures, _)? = esri["features"] else {
                Issue.record("no features")
                return
            }
            #expect(esri["spatialReference"] == Self.parsedOrNull(#"{"wkid":102100,"latestWkid":3857}"#))
            for (i, feature) in result.enumerated() {
                // Expected: each coordinate of the unrounded output, through printf.
                func rounded(_ value: JSONValue?) -> [Double?] {
                    Self.numbers(value).map { x in x.map { Double(CoordinatePrecisionTests.printf($0, n)) ?? .nan } }
                }
                let plainGeo = try Self.parse(result[i].geometry?.geoJSON ?? "null")
                #expect(Self.numbers(features[i]["geometry"]) == rounded(plainGeo), "\(feature.objectID) to \(n)")
                let plainEsri = try Self.parse(result.geometry(at: i).map { (try? $0.esriJSON()) ?? "null" } ?? "null")
                #expect(Self.numbers(esriFeatures[i]["geometry"]) == rounded(plainEsri), "\(feature.objectID) to \(n)")
                // The attribute double keeps every digit.
                #expect(features[i]["properties"]?["score"] == Self.parsedOrNull(Self.attributeText(feature.value(ofField: "score"))))
            }
        }
        // 1/3 stays whole in the attributes, 1e300 becomes its exact digits in the geometry.
        let text = result.text(.geoJSON, options: FeatureWriterOptions(coordinatePrecision: 1))
        #expect(text.contains("0.3333333333333333"))
        #expect(text.contains("[0,0],[1,0],[1,1000000000000000052504760255204420248704468581108159154915854"))
    }

    static func parsedOrNull(_ text: String) -> JSONValue? { try? parse(text) }

    static func attributeText(_ value: ScalarValue?) -> String {
        if case .double(let x)? = value { return "\(x)" }
        return "null"
    }

    /// Every number of a JSON value in document order (`nil` for `null`s inside arrays).
    static func numbers(_ value: JSONValue?) -> [Double?] {
        switch value {
        case .number(let number, _)?: return [number.double]
        case .array(let elements, _)?:
            return elements.flatMap { element -> [Double?] in element.isNull ? [nil] : numbers(element) }
        case .object(let object, _)?: return object.members.flatMap { numbers($0.value) }
        default: return []
        }
    }

    // MARK: GeoJSONSeq

    /// One line per feature, each the collection's feature object; no crs; RS on request;
    /// every line loads back (wrapped in a collection) to its feature, and the whole text loads
    /// back as a GeoJSONSeq.
    @Test func geoJSONSeqIsOneFeaturePerLine() throws {
        for table in [try Self.polygons(), try Self.polygons(spatialReference: SpatialReference(wkid: 2263)), try Self.lines()] {
            let result = try table.queryFeatures(QueryParameters(orderBy: [SortField("OBJECTID", ascending: false)]))
            let collection = try Self.parse(result.geoJSON)
            guard case .array(let features, _)? = collection["features"] else {
                Issue.record("no features")
                return
            }
            for options in [FeatureWriterOptions(), FeatureWriterOptions(pretty: true), FeatureWriterOptions(recordSeparator: true)] {
                let text = result.text(.geoJSONSeq, options: options)
                #expect(text.hasSuffix("}\n"))
                #expect(!text.contains("\"crs\""))
                var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                #expect(lines.removeLast() == "")
                #expect(lines.count == result.count)
                for (i, line) in lines.enumerated() {
                    var record = line
                    if options.recordSeparator {
                        #expect(record.unicodeScalars.first == "\u{1E}")
                        record.removeFirst()
                    } else {
                        #expect(record.first == "{")
                    }
                    #expect(try Self.parse(record) == features[i])
                    let one = try FeatureTable.load(geoJSON: #"{"type":"FeatureCollection","features":["# + record + "]}")
                    #expect(one.count == 1)
                    #expect(one.objectID(row: 0) == result[i].objectID)
                    #expect(one.geometry(row: 0)?.geoJSON == result[i].geometry?.geoJSON)
                }
                // All the lines as one collection, and the GeoJSONSeq text itself loaded as it
                // is: the result's features.
                let records = lines.map { options.recordSeparator ? String($0.dropFirst()) : $0 }
                let all = try FeatureTable.load(
                    geoJSON: #"{"type":"FeatureCollection","features":["# + records.joined(separator: ",") + "]}")
                Self.expectSameFeatures(all, result)
                Self.expectSameFeatures(try FeatureTable.load(json: Array(text.utf8)), result)
            }
            #expect(try table.queryFeatures(QueryParameters(whereClause: "1=0")).text(.geoJSONSeq).isEmpty)
        }
    }

    // MARK: CSV

    /// An RFC 4180 reader, written from the RFC: records of fields separated by commas, a field
    /// quoted when it starts with `"` (a doubled `""` inside is one quote), CRLF or LF ending a
    /// record. Each field comes with whether it was quoted.
    static func readCSV(_ text: String) -> [[(text: String, quoted: Bool)]] {
        var records: [[(text: String, quoted: Bool)]] = []
        var record: [(text: String, quoted: Bool)] = []
        var field: [UInt8] = []
        var quoted = false
        var inQuotes = false
        let bytes = Array(text.utf8)
        var i = 0
        func endField() {
            record.append((String(decoding: field, as: UTF8.self), quoted))
            field = []
            quoted = false
        }
        while i < bytes.count {
            let byte = bytes[i]
            if inQuotes {
                if byte == UInt8(ascii: "\"") {
                    if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        i += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    field.append(byte)
                }
            } else if byte == UInt8(ascii: "\""), field.isEmpty, !quoted {
                inQuotes = true
                quoted = true
            } else if byte == UInt8(ascii: ",") {
                endField()
            } else if byte == UInt8(ascii: "\n") || (byte == UInt8(ascii: "\r") && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "\n")) {
                if byte == UInt8(ascii: "\r") { i += 1 }
                endField()
                records.append(record)
                record = []
            } else {
                field.append(byte)
            }
            i += 1
        }
        if !field.isEmpty || !record.isEmpty || quoted {
            endField()
            records.append(record)
        }
        return records
    }

    @Test func csvRecordsHoldTheResult() throws {
        let table = try Self.polygons()
        let result = try table.queryFeatures(QueryParameters(outFields: ["when", "name", "score", "count"], orderBy: [SortField("name")]))
        let geoJSON = try Self.parse(result.geoJSON)
        for n in [nil, 4] {
            let text = result.text(.csv, options: FeatureWriterOptions(coordinatePrecision: n))
            #expect(text.hasSuffix("\n") && !text.contains("\r\n"))
            let records = Self.readCSV(text)
            #expect(records.count == result.count + 1)
            #expect(records[0].map(\.text) == ["WKT", "OBJECTID", "when", "name", "score", "count"])
            for (i, feature) in result.enumerated() {
                let record = records[i + 1]
                #expect(record.count == 6)
                guard record.count == 6 else { continue }
                // The geometry: its WKT (rounded as printf rounds), or an empty field.
                if let geometry = result.geometry(at: i) {
                    let read = try Geometry(wkt: record[0].text)
                    if let n {
                        let expected = try Geometry(wkt: geometry.wkt).wkt
                        #expect(Self.numbers(try Self.parse(read.geoJSON)) == Self.numbers(try Self.parse(geometry.geoJSON)).map { x in
                            x.map { Double(CoordinatePrecisionTests.printf($0, n)) ?? .nan }
                        }, "\(expected)")
                    } else {
                        #expect(read == geometry)
                    }
                } else {
                    #expect(record[0].text.isEmpty && !record[0].quoted)
                }
                #expect(record[1].text == String(feature.objectID) && !record[1].quoted)
                // NULL: an empty unquoted field; the empty string: quoted.
                for (k, name) in ["when", "name", "score", "count"].enumerated() {
                    let cell = record[k + 2]
                    switch feature.value(ofField: name) {
                    case .null?, nil:
                        #expect(cell.text.isEmpty && !cell.quoted, "\(feature.objectID).\(name)")
                    case .string(let string)?:
                        #expect(cell.text == string, "\(feature.objectID).\(name)")
                        let needsQuotes =
                            string.isEmpty || string.contains(",") || string.contains("\"") || string.contains("\n")
                            || string.hasPrefix(" ") || string.hasSuffix(" ") || string.hasSuffix("\t")
                        #expect(cell.quoted == needsQuotes, "\(feature.objectID).\(name)")
                    case .integer(let value)?:
                        #expect(cell.text == String(value))
                    case .double(let value)?:
                        #expect(Double(cell.text) == value && (cell.text.contains(".") || cell.text.contains("e")))
                    case .date?:
                        // As the GeoJSON writer writes it.
                        let written: JSONValue? = {
                            guard case .array(let features, _)? = geoJSON["features"] else { return nil }
                            return features[i]["properties"]?["when"]
                        }()
                        #expect(written?.stringValue == cell.text)
                    case .boolean?:
                        Issue.record("no boolean fields")
                    }
                }
            }
        }
        // Without geometries there is no WKT column.
        let bare = try table.queryFeatures(QueryParameters(outFields: ["count"], returnGeometry: false))
        #expect(bare.csv() == "OBJECTID,count\n10,\n20,0\n30,-9223372036854775808\n40,42\n50,9223372036854775807\n60,-7\n70,1\n")
    }

    /// Python's csv module, an independent reader, when python3 is on PATH.
    @Test(.enabled(if: executable("python3") != nil, "needs python3 on PATH"))
    func csvReadsInPython() throws {
        let python = try #require(Self.executable("python3"))
        let result = try Self.polygons().queryFeatures(QueryParameters())
        let text = result.csv(options: FeatureWriterOptions(coordinatePrecision: 3))
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", "import csv, json, sys; print(json.dumps(list(csv.reader(sys.stdin))))"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let rows = try JSONDecoder().decode([[String]].self, from: data)
        #expect(rows == Self.readCSV(text).map { $0.map(\.text) })
        #expect(rows.count == result.count + 1)
    }

    static func executable(_ name: String) -> URL? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let url = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    // MARK: Streaming

    /// A point table of `rows` rows: OBJECTID 1…rows, a double field `v` and a point per row.
    static func pointTable(rows: Int, value: (Int) -> Double, point: (Int) -> Point) throws -> FeatureTable {
        let schema = try Schema(
            fields: [Field(name: "OBJECTID", type: .oid), Field(name: "v", type: .double)], objectIdFieldName: "OBJECTID",
            geometryType: .point)
        return try FeatureTable(
            schema: schema,
            columns: [.integer(Int64Column(values: (1...Int64(rows)).map { $0 })), .double(DoubleColumn(values: (0..<rows).map(value)))],
            geometries: (0..<rows).map { .point(point($0)) })
    }

    /// Every format is written in pieces of about the chunk size, joined to the whole text.
    @Test func everyFormatStreams() throws {
        let table = try Self.pointTable(rows: 2_000, value: { Double($0) / 3 }, point: { Point(x: Double($0) / 7, y: -Double($0) / 9) })
        let result = try table.queryFeatures(QueryParameters())
        for format in FeatureOutputFormat.allCases {
            for options in [FeatureWriterOptions(), FeatureWriterOptions(pretty: true, coordinatePrecision: 5)] {
                var pieces: [[UInt8]] = []
                result.write(format, options: options, chunkSize: 4_096) { (piece: [UInt8]) -> Void in pieces.append(piece) }
                #expect(pieces.count > 10, "\(format)")
                #expect(pieces.dropLast().allSatisfy { $0.count >= 4_096 && $0.count < 4_096 + 1_024 }, "\(format)")
                #expect(String(decoding: pieces.joined(), as: UTF8.self) == result.text(format, options: options), "\(format)")
            }
        }
    }

    /// Progress comes after each piece: features and bytes grow, the last report counts every
    /// feature and every byte of the text, and the features of a report are whole features in
    /// the bytes handed on so far.
    @Test func writeProgressFollowsThePieces() throws {
        let table = try Self.pointTable(rows: 1_500, value: { Double($0) }, point: { Point(x: Double($0), y: 1) })
        let result = try table.queryFeatures(QueryParameters(whereClause: "v < 1200"))
        for format in FeatureOutputFormat.allCases {
            var handed = 0
            var reports: [WriteProgress] = []
            var handedAtReport: [Int] = []
            result.write(format, chunkSize: 2_000, progress: { report in
                reports.append(report)
            }) { (piece: [UInt8]) -> Void in
                handed += piece.count
                handedAtReport.append(handed)
            }
            let text = result.text(format)
            #expect(reports.count == handedAtReport.count && reports.count > 5, "\(format)")
            #expect(reports.last == WriteProgress(features: 1_200, totalFeatures: 1_200, bytesWritten: text.utf8.count), "\(format)")
            #expect(reports.map(\.bytesWritten) == handedAtReport.map { Optional($0) }, "\(format)")
            #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.features <= $1.features }, "\(format)")
            #expect(reports.allSatisfy { $0.totalFeatures == 1_200 }, "\(format)")
            // Features counted by a report are in the bytes handed on by then: a GeoJSONSeq
            // piece holds exactly that many lines.
            if format == .geoJSONSeq {
                for report in reports {
                    let prefix = text.utf8.prefix(report.bytesWritten ?? 0)
                    #expect(prefix.filter { $0 == UInt8(ascii: "\n") }.count == report.features)
                }
            }
        }
    }

    // MARK: A result as a table

    @Test func resultAsTable() throws {
        let table = try Self.polygons()
        let all = try table.queryFeatures(QueryParameters())
        #expect(all.isTableSubset)
        let result = try table.queryFeatures(
            QueryParameters(
                whereClause: "count IS NULL OR count > 0", outFields: ["score", "name"], orderBy: [SortField("score", ascending: false)],
                outSpatialReference: SpatialReference(wkid: 3857)))
        #expect(!result.isTableSubset)
        let made = try result.makeTable()
        #expect(made.schema.fieldNames == ["OBJECTID", "score", "name"])
        #expect(made.schema.displayFieldName == "name")
        #expect(made.spatialReference == SpatialReference(wkid: 3857))
        #expect(made.objectIDs.array == result.objectIDs)
        for (i, feature) in result.enumerated() {
            #expect(made.geometry(row: i) == feature.geometry)
            #expect(made.value(row: i, field: "score") == feature.value(ofField: "score"))
            #expect(made.value(row: i, field: "name") == feature.value(ofField: "name"))
        }
        let attributesOnly = try table.queryFeatures(QueryParameters(outFields: ["count"], returnGeometry: false)).makeTable()
        #expect(attributesOnly.schema.geometryType == nil && attributesOnly.schema.displayFieldName == nil)
        #expect(attributesOnly.value(row: 1, field: "count") == .integer(0))
        #expect(attributesOnly.value(row: 0, field: "count") == .null)
    }
}

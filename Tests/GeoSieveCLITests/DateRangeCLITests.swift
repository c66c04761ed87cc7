import Foundation
import Testing
import SieveTestSupport

/// Dates at the ends of the 64-bit millisecond range, loaded from Esri JSON and GeoJSON and
/// written by every output of `query` and by `identify`.
///
/// Expected texts were derived independently of the code (exact integer arithmetic in the
/// proleptic Gregorian calendar; they match Java's `Instant.ofEpochMilli`):
/// -9223372036854775808 ms is -292275055-05-16T16:47:04.192Z, one millisecond later .193Z,
/// -9223372036854775000 is 808 ms after the first, 16:47:05.000Z, and 9223372036854775807 is
/// +292278994-08-17T07:12:55.807Z. Years 0000…9999 have four digits, earlier years a "-" and
/// later years a "+" (ISO 8601 expanded form).
@Suite("geosieve dates at the ends of the range", .tags(.cli))
struct DateRangeCLITests {
    /// An Esri JSON FeatureSet whose date field `d` holds the extremes; `label` is the display
    /// field unless `displayField` says otherwise.
    static func featureSet(displayField: String = "label") -> String {
        let dates: [(Int, String, String)] = [
            (1, "min", "-9223372036854775808"), (2, "min+1", "-9223372036854775807"),
            (3, "near min", "-9223372036854775000"), (4, "max", "9223372036854775807"), (5, "epoch", "0"),
        ]
        let features = dates.map { id, label, d in
            #"{"attributes":{"OID":\#(id),"label":"\#(label)","d":\#(d)},"geometry":{"x":\#(id - 1),"y":0}}"#
        }
        return #"{"objectIdFieldName":"OID","displayFieldName":"\#(displayField)","geometryType":"esriGeometryPoint","#
            + #""spatialReference":{"wkid":4326},"fields":[{"name":"OID","type":"esriFieldTypeOID"},"#
            + #"{"name":"label","type":"esriFieldTypeString"},{"name":"d","type":"esriFieldTypeDate"}],"#
            + #""features":["# + features.joined(separator: ",") + "]}"
    }

    static let isoTexts = [
        "-292275055-05-16T16:47:04.192Z", "-292275055-05-16T16:47:04.193Z", "-292275055-05-16T16:47:05.000Z",
        "+292278994-08-17T07:12:55.807Z", "1970-01-01T00:00:00.000Z",
    ]

    static func withFile<T>(_ text: String, name: String = "dates.json", _ body: (String) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-dates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return try body(file.path)
    }

    static func output(_ arguments: [String]) throws -> String {
        let result = try CLI.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr.prefix(300))")
        #expect(result.stderr.isEmpty)
        return result.stdout
    }

    /// Esri JSON output writes epoch milliseconds: exact at both ends.
    @Test func esriJSONOutputKeepsTheMilliseconds() throws {
        try Self.withFile(Self.featureSet()) { (path: String) throws in
            let text = try Self.output(["query", path, "--format", "esrijson", "--no-return-geometry", "--out-fields", "d"])
            #expect(text.contains(#""features":[{"attributes":{"OID":1,"d":-9223372036854775808}},{"attributes":{"OID":2,"d":-9223372036854775807}},{"attributes":{"OID":3,"d":-9223372036854775000}},{"attributes":{"OID":4,"d":9223372036854775807}},{"attributes":{"OID":5,"d":0}}]"#))
            // Ordered by the dates, descending.
            let ordered = try Self.output(["query", path, "--format", "esrijson", "--no-return-geometry", "--out-fields", "OID", "--order-by", "d DESC"])
            #expect(ordered.contains(#""features":[{"attributes":{"OID":4}},{"attributes":{"OID":5}},{"attributes":{"OID":3}},{"attributes":{"OID":2}},{"attributes":{"OID":1}}]"#))
        }
    }

    @Test func countsIdsAndExtents() throws {
        try Self.withFile(Self.featureSet()) { (path: String) throws in
            #expect(try Self.output(["query", path, "--return", "count"]) == "{\"count\":5}\n")
            #expect(try Self.output(["query", path, "--where", "d < DATE '1970-01-01'", "--return", "ids"])
                == "{\"objectIdFieldName\":\"OID\",\"objectIds\":[1,2,3]}\n")
            #expect(try Self.output(["query", path, "--where", "d >= TIMESTAMP '1970-01-01 00:00:00'", "--return", "ids"])
                == "{\"objectIdFieldName\":\"OID\",\"objectIds\":[4,5]}\n")
            #expect(try Self.output(["query", path, "--where", "d IS NOT NULL", "--return", "extent"])
                == #"{"count":5,"extent":{"xmin":0,"ymin":0,"xmax":4,"ymax":0,"spatialReference":{"wkid":4326}}}"# + "\n")
        }
    }

    /// GeoJSON output writes ISO 8601 texts. Depends on CivilTime being total over Int64 (it
    /// trapped for milliseconds near Int64.min) and writing years beyond 9999 with a "+".
    @Test func geoJSONOutputWritesTheExtremeDates() throws {
        try Self.withFile(Self.featureSet()) { (path: String) throws in
            let text = try Self.output(["query", path, "--no-return-geometry", "--out-fields", "d"])
            for (i, iso) in Self.isoTexts.enumerated() {
                #expect(text.contains(#"{"type":"Feature","id":\#(i + 1),"geometry":null,"properties":{"OID":\#(i + 1),"d":"\#(iso)"}}"#), "\(iso)")
            }
        }
    }

    /// Identify's attributes are epoch milliseconds; a where clause on the dates selects them.
    @Test func identifyWithAWhereClauseOnTheDates() throws {
        try Self.withFile(Self.featureSet()) { (path: String) throws in
            let text = try Self.output([
                "identify", path, "--point", "0,0", "--tolerance", "100", "--map-extent", "-10,-10,10,10", "--size", "10,10",
                "--max-results", "0", "--where", "d < DATE '1970-01-01'",
            ])
            #expect(text.contains(#""objectId":1,"displayFieldName":"label","value":"min","attributes":{"OID":1,"label":"min","d":-9223372036854775808}"#))
            #expect(text.contains(#""objectId":3,"displayFieldName":"label","value":"near min","attributes":{"OID":3,"label":"near min","d":-9223372036854775000}"#))
            #expect(!text.contains(#""objectId":4"#) && !text.contains(#""objectId":5"#))
        }
    }

    /// Identify shows a date display field as ISO 8601 text. Depends on the CivilTime fix.
    @Test func identifyShowsExtremeDatesAsText() throws {
        try Self.withFile(Self.featureSet(displayField: "d")) { (path: String) throws in
            let text = try Self.output([
                "identify", path, "--point", "0,0", "--tolerance", "100", "--map-extent", "-10,-10,10,10", "--size", "10,10",
                "--max-results", "0",
            ])
            for (i, iso) in Self.isoTexts.enumerated() {
                #expect(text.contains(#""objectId":\#(i + 1),"displayFieldName":"d","value":"\#(iso)""#), "\(iso)")
            }
        }
    }

    /// EXTRACT on the extreme dates, through identify's where clause. Depends on the
    /// where-clause date functions being total over Int64 (they trapped near Int64.min).
    @Test func identifyWhereExtractOnExtremeDates() throws {
        try Self.withFile(Self.featureSet()) { (path: String) throws in
            let text = try Self.output([
                "identify", path, "--point", "0,0", "--tolerance", "100", "--map-extent", "-10,-10,10,10", "--size", "10,10",
                "--max-results", "0", "--where", "EXTRACT(YEAR FROM d) < 0",
            ])
            let ids = text.components(separatedBy: #""objectId":"#).dropFirst().compactMap { $0.split(separator: ",").first }
            #expect(ids == ["1", "2", "3"])
        }
    }

    /// GeoJSON date texts at the ends of four-digit years, moved across them by the largest
    /// offsets: 0000-01-01T00:00:00+18:00 is 18 h before year 0 began, in year -1;
    /// 9999-12-31T23:59:59.999-18:00 is in year 10000.
    @Test func geoJSONDateTextsAcrossFourDigitYears() throws {
        let collection = #"{"type":"FeatureCollection","features":["#
            + #"{"type":"Feature","id":1,"geometry":null,"properties":{"d":"0000-01-01T00:00:00+18:00"}},"#
            + #"{"type":"Feature","id":2,"geometry":null,"properties":{"d":"0000-01-01"}},"#
            + #"{"type":"Feature","id":3,"geometry":null,"properties":{"d":"9999-12-31T23:59:59.999Z"}},"#
            + #"{"type":"Feature","id":4,"geometry":null,"properties":{"d":"9999-12-31T23:59:59.999-18:00"}}]}"#
        try Self.withFile(collection, name: "dates.geojson") { (path: String) throws in
            let esri = try Self.output(["query", path, "--format", "esrijson", "--out-fields", "d"])
            #expect(esri.contains(#""features":[{"attributes":{"OBJECTID":1,"d":-62167284000000}},{"attributes":{"OBJECTID":2,"d":-62167219200000}},{"attributes":{"OBJECTID":3,"d":253402300799999}},{"attributes":{"OBJECTID":4,"d":253402365599999}}]"#))
            let geoJSON = try Self.output(["query", path, "--out-fields", "d"])
            #expect(geoJSON.contains(#""properties":{"OBJECTID":1,"d":"-0001-12-31T06:00:00.000Z"}"#))
            #expect(geoJSON.contains(#""properties":{"OBJECTID":2,"d":"0000-01-01T00:00:00.000Z"}"#))
            #expect(geoJSON.contains(#""properties":{"OBJECTID":3,"d":"9999-12-31T23:59:59.999Z"}"#))
            // Depends on the CivilTime fix: years beyond 9999 with a "+".
            #expect(geoJSON.contains(#""properties":{"OBJECTID":4,"d":"+10000-01-01T17:59:59.999Z"}"#))
        }
    }
}

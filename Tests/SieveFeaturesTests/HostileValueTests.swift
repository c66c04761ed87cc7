import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import Testing
import SieveMap
import SieveTestSupport

/// Extreme values through queries, identify and the writers: answers or clear errors, never
/// traps.
@Suite("Hostile values")
struct HostileValueTests {
    /// Points at the given coordinates, object IDs 1, 2, …
    static func points(_ coordinates: [(Double, Double)]) throws -> FeatureTable {
        let geometries = coordinates.map { #"{"type":"Point","coordinates":["# + "\($0.0),\($0.1)]}" }
        return try FeatureTable.load(
            geoJSON: featureCollection(coordinates.indices.map { #"{"n":\#($0 + 1)}"# }, geometries: geometries))
    }

    // MARK: Identify

    @Test func aMapExtentWiderThanTheDoublesIsAnError() throws {
        let table = try Self.points([(0, 0)])
        // xmax − xmin = 2e308 overflows: the radius would be infinite (or NaN with tolerance 0).
        for tolerance in [0.0, 1.0] {
            let parameters = IdentifyParameters(
                x: 0, y: 0, tolerance: tolerance, mapExtent: Envelope(xmin: -1e308, ymin: -1, xmax: 1e308, ymax: 1),
                width: 100, height: 100, maxResults: 0)
            let error = featureTableError { _ = try table.identify(parameters) }
            #expect(error?.kind == .invalidQuery)
            #expect(error?.message == "the map extent's width (xmax − xmin) must be finite, not inf")
        }
    }

    @Test func aSearchRadiusBeyondTheDoublesIsAnError() throws {
        let table = try Self.points([(0, 0)])
        // 100 px × 360 / 1e-307 px overflows.
        let tiny = IdentifyParameters(
            x: 0, y: 0, tolerance: 100, mapExtent: Envelope(xmin: -180, ymin: -90, xmax: 180, ymax: 90), width: 1e-307,
            height: 1)
        #expect(tiny.mapTolerance == .infinity)
        let error = featureTableError { _ = try table.identify(tiny) }
        #expect(error?.kind == .invalidQuery)
        #expect(error?.message.hasPrefix("the search radius (tolerance × map extent width / view width) must be finite") == true)
    }

    /// Distances whose squares overflow or underflow are measured, not taken as infinite or 0.
    @Test func distancesNearTheEndsOfTheDoubles() throws {
        // Radius 1e308 around the origin: (9e307, 0) is within it although 9e307² overflows;
        // (1e308, 1e308) is 1.41e308 away, and (-1e308, -1e308) too.
        let far = try Self.points([(9e307, 0), (1e308, 1e308), (-1e308, -1e308), (0, -1e308)])
        let wide = IdentifyParameters(
            x: 0, y: 0, tolerance: 1, mapExtent: Envelope(xmin: 0, ymin: 0, xmax: 1e308, ymax: 1), width: 1, height: 1,
            maxResults: 0)
        #expect(wide.mapTolerance == 1e308)
        let hits = try far.identify(wide)
        #expect(hits.objectIDs == [1, 4])
        #expect(hits.map(\.distance) == [9e307, 1e308])
        // Radius 1e-300: (1e-300, 1e-300) is 1.41e-300 away although its squares underflow to 0;
        // (7e-301, 7e-301) is 9.9e-301 away.
        let near = try Self.points([(1e-300, 1e-300), (7e-301, 7e-301)])
        let narrow = IdentifyParameters(
            x: 0, y: 0, tolerance: 1, mapExtent: Envelope(xmin: 0, ymin: 0, xmax: 1e-300, ymax: 1e-300), width: 1,
            height: 1, maxResults: 0)
        #expect(narrow.mapTolerance == 1e-300)
        #expect(try near.identify(narrow).objectIDs == [2])
    }

    @Test func identifyMaxResultsAtTheEndsOfInt() throws {
        let table = try Self.points([(0, 0), (1, 0), (2, 0)])
        var parameters = IdentifyParameters(
            x: 0, y: 0, tolerance: 3, mapExtent: Envelope(xmin: 0, ymin: 0, xmax: 10, ymax: 10), width: 10, height: 10,
            maxResults: .max)
        #expect(try table.identify(parameters).objectIDs == [1, 2, 3])
        parameters.maxResults = .min
        #expect(featureTableError { _ = try table.identify(parameters) }?.kind == .invalidQuery)
    }

    // MARK: Paging

    @Test func pagingAtTheEndsOfInt() throws {
        let table = try Self.points([(0, 0), (1, 0), (2, 0)])
        func page(_ offset: Int?, _ limit: Int?) throws -> ([Int64], Bool) {
            let result = try table.queryFeatures(QueryParameters(resultOffset: offset, maxFeatures: limit))
            return (result.objectIDs, result.exceededTransferLimit)
        }
        #expect(try page(.max, .max) == ([], false))
        #expect(try page(0, .max) == ([1, 2, 3], false))
        #expect(try page(1, .max) == ([2, 3], false))
        #expect(try page(.max, 0) == ([], false))
        #expect(try page(2, 0) == ([], true))
        #expect(try page(nil, 2) == ([1, 2], true))
        #expect(try page(3, nil) == ([], false))
        for (offset, limit) in [(Int.min, 1), (-1, nil), (nil, Int.min), (0, -1)] as [(Int?, Int?)] {
            let error = featureTableError { _ = try page(offset, limit) }
            #expect(error?.kind == .invalidQuery)
        }
        // Counts, ids and extents check paging but ignore it.
        let query = QueryParameters(resultOffset: .max, maxFeatures: .max)
        #expect(try table.queryFeatureCount(query) == 3)
        #expect(try table.queryObjectIDs(query) == [1, 2, 3])
        #expect(try table.queryExtent(query).count == 3)
    }

    @Test func orderingExtremeValues() throws {
        let text = featureCollection([
            #"{"i":9223372036854775807,"d":1.7976931348623157e308}"#, #"{"i":-9223372036854775808,"d":-1.7976931348623157e308}"#,
            #"{"i":0,"d":5e-324}"#, #"{"i":null,"d":-0.0}"#,
        ])
        let table = try FeatureTable.load(geoJSON: text)
        func order(_ sort: String) throws -> [Int64] {
            try table.queryFeatures(QueryParameters(orderBy: try SortField.list(sort))).objectIDs
        }
        #expect(try order("i") == [4, 2, 3, 1])
        #expect(try order("i DESC") == [1, 3, 2, 4])
        #expect(try order("d") == [2, 4, 3, 1])
        #expect(try table.queryObjectIDs(QueryParameters(whereClause: "i < 0")) == [2])
    }

    // MARK: Writers

    @Test func extremeNumbersAreWrittenExactly() throws {
        let text = featureCollection([
            #"{"i":9223372036854775807,"d":1.7976931348623157e308}"#, #"{"i":-9223372036854775808,"d":-5e-324}"#,
            #"{"i":-1,"d":-0.0}"#,
        ], ids: ["-9223372036854775808", "9223372036854775807", "0"])
        let table = try FeatureTable.load(geoJSON: text)
        let result = try table.queryFeatures(QueryParameters(returnGeometry: false))
        #expect(result.objectIDs == [Int64.min, 0, Int64.max])
        let geoJSON = result.geoJSON
        #expect(geoJSON.contains(#"{"type":"Feature","id":-9223372036854775808,"geometry":null,"properties":{"OBJECTID":-9223372036854775808,"i":9223372036854775807,"d":1.7976931348623157e+308}}"#))
        #expect(geoJSON.contains(#""properties":{"OBJECTID":9223372036854775807,"i":-9223372036854775808,"d":-5e-324}"#))
        #expect(geoJSON.contains(#""properties":{"OBJECTID":0,"i":-1,"d":-0.0}"#))
        // Reading the output back gives the same values.
        let again = try FeatureTable.load(geoJSON: geoJSON)
        for row in 0..<3 {
            let other = try #require(again.row(forObjectID: table.objectID(row: row)))
            #expect(again.value(row: other, field: "i") == table.value(row: row, field: "i"))
            #expect(again.value(row: other, field: "d") == table.value(row: row, field: "d"))
        }
        guard case .double(let negativeZero) = again.value(row: 1, field: "d") else {
            Issue.record("d is not a double")
            return
        }
        #expect(negativeZero == 0 && negativeZero.sign == .minus)
        #expect(result.esriJSON.contains(#"{"attributes":{"OBJECTID":-9223372036854775808,"i":9223372036854775807,"d":1.7976931348623157e+308}}"#))
    }

    /// The pieces of a streamed result join into the whole document, whatever the piece size.
    @Test func writingInPiecesGivesTheSameDocument() throws {
        let table = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_cities.geojson"))
        for query in [QueryParameters(), QueryParameters(maxFeatures: 10), QueryParameters(whereClause: "1 = 0")] {
            let result = try table.queryFeatures(query)
            for chunkSize in [Int.min, 0, 1, 100, 4096, 1 << 20, Int.max] {
                var pieces: [[UInt8]] = []
                result.writeGeoJSON(chunkSize: chunkSize) { pieces.append($0) }
                #expect(String(decoding: pieces.joined(), as: UTF8.self) == result.geoJSON, "\(chunkSize)")
                if chunkSize > 0, chunkSize < 1 << 20, result.geoJSON.utf8.count > chunkSize + 100, result.count > 1 {
                    #expect(pieces.count > 1)
                    // Every piece but the last ends after a whole feature.
                    #expect(pieces.dropLast().allSatisfy { $0.last == UInt8(ascii: "}") })
                }
                var esri: [[UInt8]] = []
                result.writeEsriJSON(chunkSize: chunkSize) { esri.append($0) }
                #expect(String(decoding: esri.joined(), as: UTF8.self) == result.esriJSON, "\(chunkSize)")
            }
        }
        // A failing sink stops the writing with its error.
        struct Stop: Error {}
        let result = try table.queryFeatures(QueryParameters())
        var calls = 0
        #expect(throws: Stop.self) {
            try result.writeGeoJSON(chunkSize: 10) { (_: [UInt8]) throws(Stop) in
                calls += 1
                if calls == 3 { throw Stop() }
            }
        }
        #expect(calls == 3)
    }

    // MARK: Messages

    /// Echoed names and values are one line and at most about 80 characters, however long or
    /// strange the input.
    @Test func messagesEchoAtMostEightyCharacters() throws {
        let long = String(repeating: "x", count: 100_000)
        let schema = [Field(name: long, type: .integer)]
        let error = featureTableError {
            _ = try FeatureTable.load(geoJSON: featureCollection(["{\"\(long)\":\"\(long)\"}"]), schema: schema)
        }
        #expect(error?.kind == .conversionFailed)
        let description = error?.description ?? ""
        #expect(description.count < 330)
        #expect(description == "conversion failed at line 1, column \(long.count + 76) (byte offset \(long.count + 75)) in features[0] (object ID 1), field \"\(String(repeating: "x", count: 80))…\": "
            + "cannot convert the string \"\(String(repeating: "x", count: 80))…\" to Integer")
        // A name with a line break stays on one line.
        let broken = featureTableError {
            _ = try FeatureTable.load(geoJSON: featureCollection([#"{"a\nb":"x"}"#]), schema: [Field(name: "a\nb", type: .double)])
        }
        #expect(broken?.description.contains("\n") == false)
        #expect(broken?.description.contains(#"field "a\nb""#) == true)
        // Sort fields.
        let sort = featureTableError { _ = try SortField.list("name " + long) }
        #expect((sort?.message.count ?? .max) < 200)
        let table = try FeatureTable.load(geoJSON: featureCollection([#"{"name":"a"}"#]))
        let unknown = featureTableError { _ = try table.queryFeatures(QueryParameters(outFields: [long])) }
        #expect(unknown?.kind == .invalidQuery)
        #expect((unknown?.message.count ?? .max) < 200)
        let type = featureTableError { _ = try Field.fields(esriJSON: #"[{"name":"a","type":""# + long + #""}]"#) }
        #expect((type?.message.count ?? .max) < 400)
        let esri = featureTableError { _ = try FeatureTable.load(esriJSON: #"{"geometryType":""# + long + #"","features":[]}"#) }
        #expect((esri?.message.count ?? .max) < 400)
    }
}

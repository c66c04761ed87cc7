import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveSQL
import Testing
import SieveTestSupport

/// The expected answers below were computed independently with Python's `sqlite3` module: the
/// fixtures' GeoJSON properties loaded into an in-memory SQLite table (object ID = the
/// feature's `id`), `PRAGMA case_sensitive_like=ON` for LIKE, `COLLATE NOCASE` (and
/// `case_sensitive_like=OFF`) for the nocase cases, `ORDER BY …, oid` for tie order, and
/// min/max over every coordinate of the selected geometries for extents (a throwaway script,
/// not kept in the repository).
@Suite("Queries over the real fixtures")
struct QueryTests {
    static let countries = Result { try FeatureTable.load(contentsOf: fixtureURL("naturalearth_lowres.geojson")) }
    static let cities = Result { try FeatureTable.load(contentsOf: fixtureURL("naturalearth_cities.geojson")) }

    static let countryCases: [(String, [Int64])] = [
        ("pop_est > 100000000", [5, 9, 19, 28, 30, 57, 99, 100, 103, 140, 148, 156, 164, 166]),
        ("continent = 'Africa' AND gdp_md_est < 10000", [3, 13, 27, 54, 59, 63, 64, 65, 67, 72, 74, 76, 81, 155, 167]),
        (
            "name LIKE 'S%'",
            [13, 15, 26, 43, 52, 65, 97, 109, 111, 128, 133, 136, 139, 151, 153, 159, 168, 173, 177]
        ),
        ("iso_a3 = '-99'", [175]),
        (
            "NOT (continent = 'Africa') AND gdp_md_est BETWEEN 100000 AND 500000",
            [
                6, 10, 11, 22, 32, 33, 41, 45, 46, 48, 77, 85, 86, 87, 88, 95, 100, 103, 108, 113, 115, 116, 118, 124,
                132, 134, 137, 143, 148, 149, 152, 153, 154,
            ]
        ),
        (
            "name LIKE '%land%' OR iso_a3 LIKE '_S_'",
            [3, 5, 21, 23, 27, 77, 80, 92, 114, 121, 128, 131, 133, 134, 137, 145, 152, 168, 177]
        ),
        ("name LIKE 'united%'", []),
    ]

    @Test(arguments: countryCases)
    func countsAndIDsMatchSQLite(whereClause: String, expected: [Int64]) throws {
        let table = try Self.countries.get()
        let query = QueryParameters(whereClause: whereClause)
        #expect(try table.queryFeatureCount(query) == expected.count)
        #expect(try table.queryObjectIDs(query) == expected)
        #expect(try table.queryFeatures(query).objectIDs == expected)
    }

    @Test func largerSelection() throws {
        let table = try Self.countries.get()
        let query = QueryParameters(whereClause: "continent IN ('Europe', 'Asia') OR pop_est < 1000000")
        let ids = try table.queryObjectIDs(query)
        #expect(ids.count == 100)
        #expect(Array(ids.prefix(8)) == [1, 3, 6, 7, 9, 19, 20, 21])
        #expect(Array(ids.suffix(5)) == [171, 172, 173, 174, 175])
        #expect(try table.queryFeatureCount(QueryParameters()) == 177)
        #expect(try table.queryFeatureCount(QueryParameters(whereClause: "")) == 177)
    }

    @Test func cities() throws {
        let table = try Self.cities.get()
        #expect(try table.queryFeatureCount(QueryParameters(whereClause: "name LIKE '%an%'")) == 44)
        #expect(try table.queryObjectIDs(QueryParameters(whereClause: "name LIKE 'San%'")) == [2, 90, 91, 148, 163, 176, 237])
    }

    @Test func objectIDsAndWhere() throws {
        let table = try Self.countries.get()
        // 9999 is no object ID of the table; 3 is listed twice.
        let query = QueryParameters(
            whereClause: "continent = 'Africa'", objectIDs: [177, 9999, 1, 2, 3, 3, 4, 5, 50, 100, 176])
        #expect(try table.queryObjectIDs(query) == [2, 3, 50, 177])
        #expect(try table.queryFeatureCount(query) == 4)
        #expect(try table.queryFeatures(query).objectIDs == [2, 3, 50, 177])
        #expect(try table.queryFeatureCount(QueryParameters(objectIDs: [])) == 0)
        #expect(try table.queryObjectIDs(QueryParameters(objectIDs: [9999, -1])) == [])
        #expect(try table.queryObjectIDs(QueryParameters(objectIDs: [12, 7])) == [7, 12])
    }

    @Test func orderByWithTiesAndPaging() throws {
        let table = try Self.countries.get()
        var query = QueryParameters(orderBy: try SortField.list("continent ASC, pop_est desc"))
        query.resultOffset = 5
        query.maxFeatures = 7
        let page = try table.queryFeatures(query)
        #expect(page.objectIDs == [2, 14, 169, 83, 15, 163, 75])
        #expect(page.exceededTransferLimit)
        // Ties on continent keep object-ID order.
        let byContinent = try table.queryFeatures(
            QueryParameters(orderBy: [SortField("CONTINENT", ascending: false)], maxFeatures: 10))
        #expect(byContinent.objectIDs == [10, 11, 21, 29, 30, 31, 32, 33, 41, 42])
        let byISO = try table.queryFeatures(QueryParameters(orderBy: [SortField("iso_a3")], maxFeatures: 12))
        #expect(byISO.objectIDs == [175, 104, 75, 126, 85, 10, 110, 160, 24, 138, 115, 146])
        // Paging after where and order.
        let africa = try table.queryFeatures(
            QueryParameters(
                whereClause: "continent = 'Africa'", orderBy: try SortField.list("gdp_md_est DESC"), resultOffset: 2,
                maxFeatures: 5))
        #expect(africa.objectIDs == [164, 83, 163, 166, 14])
    }

    @Test func pagingWithoutOrderIsByObjectID() throws {
        let table = try Self.countries.get()
        let all = try table.queryObjectIDs(QueryParameters())
        var pages: [Int64] = []
        var offset = 0
        while true {
            let page = try table.queryFeatures(QueryParameters(resultOffset: offset, maxFeatures: 50))
            pages += page.objectIDs
            offset += page.count
            if !page.exceededTransferLimit { break }
        }
        #expect(pages == all)
        #expect(try table.queryFeatures(QueryParameters(resultOffset: 500)).isEmpty)
        #expect(try table.queryFeatures(QueryParameters(maxFeatures: 0)).isEmpty)
        #expect(try !table.queryFeatures(QueryParameters(resultOffset: 170, maxFeatures: 7)).exceededTransferLimit)
        #expect(try table.queryFeatures(QueryParameters(resultOffset: 170, maxFeatures: 6)).exceededTransferLimit)
    }

    @Test func collation() throws {
        let table = try Self.countries.get()
        #expect(try table.queryObjectIDs(QueryParameters(whereClause: "name = 'FRANCE'")) == [])
        #expect(try table.queryObjectIDs(QueryParameters(whereClause: "name = 'FRANCE'", collation: .nocase)) == [44])
        let nocase = table.with(collation: .nocase)
        #expect(nocase.collation == .nocase)
        #expect(table.collation == .binary)
        #expect(try nocase.queryObjectIDs(QueryParameters(whereClause: "name LIKE 'united%'")) == [5, 85, 144])
        #expect(
            try nocase.queryObjectIDs(QueryParameters(whereClause: "name LIKE '%LAND'"))
                == [23, 92, 114, 128, 134, 137, 145, 152, 168])
        // The query's collation overrides the table's.
        #expect(
            try nocase.queryObjectIDs(QueryParameters(whereClause: "name LIKE 'united%'", collation: .binary)) == [])
        // Ordering: binary puts "eSwatini" after "Zimbabwe"; nocase among the E's.
        let binaryDesc = try table.queryFeatures(
            QueryParameters(outFields: ["name"], orderBy: [SortField("name", ascending: false)], maxFeatures: 3))
        #expect(binaryDesc.objectIDs == [74, 49, 71])
        #expect(binaryDesc.first?.value(ofField: "name") == .string("eSwatini"))
        let nocaseDesc = try nocase.queryFeatures(
            QueryParameters(outFields: ["name"], orderBy: [SortField("name", ascending: false)], maxFeatures: 3))
        #expect(nocaseDesc.objectIDs == [49, 71, 158])
        let around = try nocase.queryFeatures(
            QueryParameters(whereClause: "name >= 'Equatorial' AND name < 'F'", orderBy: [SortField("name")]))
        #expect(around.map { $0.value(ofField: "name") } == ["Eritrea", "Estonia", "eSwatini", "Ethiopia"].map(ScalarValue.string))
    }

    @Test func outFields() throws {
        let table = try Self.countries.get()
        let result = try table.queryFeatures(
            QueryParameters(whereClause: "iso_a3 = 'FRA'", outFields: ["NAME", "pop_est", "name"], returnGeometry: false))
        #expect(result.fields.map(\.name) == ["OBJECTID", "name", "pop_est"])
        let feature = try #require(result.first)
        #expect(feature.objectID == 44)
        #expect(feature.geometry == nil)
        #expect(feature.values == [.integer(44), .string("France"), .double(67_059_887)])
        #expect(feature.value(ofField: "continent") == nil)
        #expect(!result.returnsGeometry)
        // The object-ID field where the list puts it; `*` selects everything.
        let listed = try table.queryFeatures(QueryParameters(outFields: ["name", "objectid"], maxFeatures: 1))
        #expect(listed.fields.map(\.name) == ["name", "OBJECTID"])
        #expect(listed.returnsGeometry && listed.first?.geometry != nil)
        let star = try table.queryFeatures(QueryParameters(outFields: ["name", "*"], maxFeatures: 1))
        #expect(star.fields.map(\.name) == table.schema.fieldNames)
        let none = try table.queryFeatures(QueryParameters(outFields: [], maxFeatures: 1))
        #expect(none.fields.map(\.name) == ["OBJECTID"])
    }

    @Test func extentOfFilteredSets() throws {
        let table = try Self.countries.get()
        let (count, extent) = try table.queryExtent(QueryParameters(whereClause: "continent = 'South America'"))
        #expect(count == 13)
        #expect(extent == Envelope(xmin: -81.41094255239946, ymin: -55.61183, xmax: -34.729993455533034, ymax: 12.437303168177309))
        let cities = try Self.cities.get()
        let san = try cities.queryExtent(QueryParameters(whereClause: "name LIKE 'San%'"))
        #expect(san.count == 7)
        #expect(san.extent == Envelope(xmin: -122.39959956304557, ymin: -33.44020506918074, xmax: 44.2046475, ymax: 43.9360958))
        let nothing = try table.queryExtent(QueryParameters(whereClause: "1 = 0"))
        #expect(nothing.count == 0 && nothing.extent.isEmpty)
        // Paging does not apply to the extent.
        let paged = try table.queryExtent(QueryParameters(whereClause: "continent = 'South America'", maxFeatures: 1))
        #expect(paged.count == 13 && paged.extent == extent)
    }

    @Test func errors() throws {
        let table = try Self.countries.get()
        do {
            _ = try table.queryFeatures(QueryParameters(whereClause: "pop_est > 1 AND nmae = 'x'"))
            Issue.record("expected an error")
        } catch let error as WhereClauseError {
            #expect(error.description == #"where clause error at 1:17: unknown field "nmae" (did you mean "name"?)"#)
        }
        let outFieldError = featureTableError { _ = try table.queryFeatures(QueryParameters(outFields: ["nmae"])) }
        #expect(outFieldError?.kind == .invalidQuery)
        #expect(outFieldError?.description == #"invalid query: unknown field "nmae" in outFields (did you mean "name"?)"#)
        let orderError = featureTableError { _ = try table.queryObjectIDs(QueryParameters(orderBy: [SortField("contnent")])) }
        #expect(orderError?.description == #"invalid query: unknown field "contnent" in orderByFields (did you mean "continent"?)"#)
        #expect(featureTableError { _ = try table.queryFeatureCount(QueryParameters(resultOffset: -1)) }?.kind == .invalidQuery)
        #expect(featureTableError { _ = try table.queryExtent(QueryParameters(maxFeatures: -5)) }?.kind == .invalidQuery)
    }

    @Test func orderByParsing() throws {
        #expect(try SortField.list("f1 DESC, f2") == [SortField("f1", ascending: false), SortField("f2")])
        #expect(try SortField.list("  a asc ,b Desc,\"c d\" DESC ") == [SortField("a"), SortField("b", ascending: false), SortField("c d", ascending: false)])
        #expect(try SortField.list("") == [])
        let schema = try Self.countries.get().schema
        #expect(try SortField.list("NAME desc, Pop_Est", schema: schema) == [SortField("name", ascending: false), SortField("pop_est")])
        for bad in ["a,,b", "a DOWN", "a ASC b", ",", "\"a", "\"\" ASC"] {
            #expect(featureTableError { _ = try SortField.list(bad) }?.kind == .invalidQuery, "\(bad)")
        }
        let unknown = featureTableError { _ = try SortField.list("nme DESC", schema: schema) }
        #expect(unknown?.message == #"unknown field "nme" in orderByFields (did you mean "name"?)"#)
    }
}

@Suite("Queries: NULLs, object-ID order and output")
struct QuerySemanticsTests {
    /// Object IDs out of row order, a NULL in each of `score` and `label`, dates, one feature
    /// without geometry.
    static func table() throws -> FeatureTable {
        let text = featureCollection(
            [
                #"{"score":2.5,"label":"b","when":"2024-03-01T12:30:00Z","n":1}"#,
                #"{"score":null,"label":"a","when":null,"n":2}"#,
                #"{"score":1,"label":null,"when":"2020-01-01","n":2}"#,
                #"{"score":2.5,"label":"A","when":"1969-12-31T23:59:59.5Z","n":null}"#,
                #"{"score":-3,"label":"say \"hi\"\n","when":"2000-02-29","n":7}"#,
            ],
            ids: ["30", "10", "50", "20", "40"],
            geometries: [
                #"{"type":"Point","coordinates":[1,2]}"#, "null", #"{"type":"Point","coordinates":[-5,7.5]}"#,
                #"{"type":"Point","coordinates":[3,-1]}"#, #"{"type":"Point","coordinates":[0.1,0.2]}"#,
            ])
        return try FeatureTable.load(geoJSON: text)
    }

    @Test func aStringFieldOfNullsAloneOrders() throws {
        // A text field no feature has a value in (common in real layers, and in a page of a
        // database ordered by it): NULLs tie, and the object ID orders them.
        let schema = try Schema(fields: [Field(name: "oid", type: .oid), Field(name: "city", type: .string)], objectIdFieldName: "oid")
        for cities in [[String?](repeating: nil, count: 4), [nil, nil, "b", "a"]] {
            let table = try FeatureTable(
                schema: schema, columns: [.integer(Int64Column(values: [4, 3, 2, 1])), .string(StringColumn(cities))])
            var query = QueryParameters(outFields: ["oid"], orderBy: [SortField("city", ascending: true)])
            query.returnGeometry = false
            let ascending = try table.queryFeatures(query).objectIDs
            query.orderBy = [SortField("city", ascending: false)]
            let descending = try table.queryFeatures(query).objectIDs
            if cities.allSatisfy({ $0 == nil }) {
                #expect(ascending == [1, 2, 3, 4])
                #expect(descending == [1, 2, 3, 4])
            } else {
                // NULLs first ascending (3, 4), then "a" (1), "b" (2); descending the reverse, NULLs last.
                #expect(ascending == [3, 4, 1, 2])
                #expect(descending == [2, 1, 3, 4])
            }
        }
    }

    @Test func objectIDOrderNotRowOrder() throws {
        let table = try Self.table()
        #expect(try table.queryFeatures(QueryParameters()).objectIDs == [10, 20, 30, 40, 50])
        #expect(try table.queryObjectIDs(QueryParameters()) == [10, 20, 30, 40, 50])
        #expect(try table.queryFeatures(QueryParameters(resultOffset: 1, maxFeatures: 2)).objectIDs == [20, 30])
    }

    @Test func nullsFirstAscendingLastDescending() throws {
        let table = try Self.table()
        func order(_ text: String) throws -> [Int64] {
            try table.queryFeatures(QueryParameters(orderBy: try SortField.list(text))).objectIDs
        }
        // score: 10 NULL, 40 -3, 50 1, 20 and 30 2.5 (tie → object-ID order).
        #expect(try order("score") == [10, 40, 50, 20, 30])
        #expect(try order("score DESC") == [20, 30, 50, 40, 10])
        // label (binary): 50 NULL, "A" 20, "a" 10, "b" 30, "say…" 40.
        #expect(try order("label") == [50, 20, 10, 30, 40])
        #expect(try order("label DESC") == [40, 30, 10, 20, 50])
        // when: 10 NULL, 1969 20, 2000 40, 2020 50, 2024 30.
        #expect(try order("when ASC") == [10, 20, 40, 50, 30])
        // n: 20 NULL; 10 and 50 tie on 2, broken by score DESC (50 has 1, 10 NULL → last).
        #expect(try order("n, score DESC") == [20, 30, 50, 10, 40])
        // nocase: "A" and "a" tie → object-ID order.
        let nocase = try table.queryFeatures(QueryParameters(orderBy: [SortField("label")], collation: .nocase))
        #expect(nocase.objectIDs == [50, 10, 20, 30, 40])
        #expect(try table.queryFeatures(QueryParameters(whereClause: "label = 'A'", collation: .nocase)).objectIDs == [10, 20])
    }

    @Test func extentSkipsRowsWithoutGeometry() throws {
        let table = try Self.table()
        let all = try table.queryExtent(QueryParameters())
        #expect(all.count == 5)
        #expect(all.extent == Envelope(xmin: -5, ymin: -1, xmax: 3, ymax: 7.5))
        let onlyNull = try table.queryExtent(QueryParameters(objectIDs: [10]))
        #expect(onlyNull.count == 1 && onlyNull.extent.isEmpty)
    }

    @Test func geoJSONOutput() throws {
        let table = try Self.table()
        let result = try table.queryFeatures(QueryParameters(objectIDs: [10, 20, 40]))
        let expected = #"{"type":"FeatureCollection","features":["#
            + #"{"type":"Feature","id":10,"geometry":null,"properties":{"OBJECTID":10,"score":null,"label":"a","when":null,"n":2}},"#
            + #"{"type":"Feature","id":20,"geometry":{"type":"Point","coordinates":[3,-1]},"properties":{"OBJECTID":20,"score":2.5,"label":"A","when":"1969-12-31T23:59:59.500Z","n":null}},"#
            + #"{"type":"Feature","id":40,"geometry":{"type":"Point","coordinates":[0.1,0.2]},"properties":{"OBJECTID":40,"score":-3.0,"label":"say \"hi\"\n","when":"2000-02-29T00:00:00.000Z","n":7}}"#
            + "]}"
        #expect(result.geoJSON == expected)
        // It loads back to the same values.
        let reloaded = try FeatureTable.load(geoJSON: result.geoJSON)
        #expect(reloaded.count == 3)
        #expect(reloaded.value(row: 2, field: "label") == .string("say \"hi\"\n"))
        // A whole double is written with a fraction, so the field reads back as Double.
        #expect(reloaded.value(row: 2, field: "score") == .double(-3))
        #expect(reloaded.value(row: 1, field: "when") == table.value(row: 3, field: "when"))
        let noGeometry = try table.queryFeatures(
            QueryParameters(objectIDs: [30], outFields: ["n"], returnGeometry: false, maxFeatures: 1))
        #expect(
            noGeometry.geoJSON
                == #"{"type":"FeatureCollection","features":[{"type":"Feature","id":30,"geometry":null,"properties":{"OBJECTID":30,"n":1}}]}"#)
        let paged = try table.queryFeatures(QueryParameters(outFields: ["n"], returnGeometry: false, maxFeatures: 0))
        #expect(paged.geoJSON == #"{"type":"FeatureCollection","features":[],"properties":{"exceededTransferLimit":true}}"#)
    }

    @Test func esriJSONOutput() throws {
        let table = try Self.table()
        let result = try table.queryFeatures(QueryParameters(objectIDs: [10, 20], outFields: ["when", "label"]))
        let expected = #"{"objectIdFieldName":"OBJECTID","geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},"#
            + #""fields":[{"name":"OBJECTID","type":"esriFieldTypeOID","alias":"OBJECTID","nullable":false,"editable":false},"#
            + #"{"name":"when","type":"esriFieldTypeDate","alias":"when","nullable":true,"editable":true},"#
            + #"{"name":"label","type":"esriFieldTypeString","alias":"label","nullable":true,"editable":true}],"#
            + #""features":[{"attributes":{"OBJECTID":10,"when":null,"label":"a"}},"#
            + #"{"attributes":{"OBJECTID":20,"when":-500,"label":"A"},"geometry":{"x":3,"y":-1}}]}"#
        #expect(result.esriJSON == expected)
        let reloaded = try FeatureTable.load(esriJSON: result.esriJSON)
        #expect(reloaded.objectIDs == [10, 20])
        #expect(reloaded.value(row: 1, field: "when") == .date(-500))
        #expect(reloaded.geometry(row: 1) == .point(Point(x: 3, y: -1)))
        let bare = try table.queryFeatures(QueryParameters(objectIDs: [20], outFields: ["n"], returnGeometry: false))
        #expect(bare.esriJSON.hasSuffix(#""features":[{"attributes":{"OBJECTID":20,"n":null}}]}"#))
    }

    /// A large result is written whole in both formats, and the GeoJSON reads back with every
    /// feature in the requested order. (How fast is a benchmark's question, not a unit test's.)
    @Test func largeResultIsWrittenWhole() throws {
        let rows = 100_000
        let fields = [
            Field(name: "OBJECTID", type: .oid), Field(name: "NAME", type: .string), Field(name: "CAT", type: .string),
            Field(name: "SCORE", type: .double), Field(name: "CREATED", type: .date),
        ]
        let schema = try Schema(fields: fields, objectIdFieldName: "OBJECTID", geometryType: .point)
        let columns: [Column] = [
            .integer(Int64Column(values: (1...Int64(rows)).map { $0 })),
            .string(StringColumn((0..<rows).map { "name \($0)" })),
            .string(StringColumn((0..<rows).map { ["a", "b", "c"][$0 % 3] })),
            .double(DoubleColumn(values: (0..<rows).map { Double($0) / 7 })),
            .date(Int64Column(values: (0..<rows).map { Int64($0) * 86_400_000 })),
        ]
        let geometries = (0..<rows).map { Optional(Geometry.point(Point(x: Double($0 % 360) - 180, y: Double($0 % 180) - 90))) }
        let table = try FeatureTable(schema: schema, columns: columns, geometries: geometries)
        var geoJSONBytes: [UInt8] = []
        var esriBytes: [UInt8] = []
        let result = try table.queryFeatures(QueryParameters(orderBy: [SortField("CAT"), SortField("SCORE", ascending: false)]))
        #expect(result.count == rows)
        result.writeGeoJSON(into: &geoJSONBytes)
        result.writeEsriJSON(into: &esriBytes)
        #expect(geoJSONBytes.count > 10_000_000)
        #expect(esriBytes.count > 8_000_000)
        let again = try FeatureTable.load(geoJSON: String(decoding: geoJSONBytes, as: UTF8.self))
        #expect(again.count == rows)
        // CAT ascending, then SCORE descending: the last row of category "a" comes first.
        let firstID = (0..<rows).last { $0 % 3 == 0 }.map { Int64($0 + 1) }
        #expect(again.objectID(row: 0) == firstID)
    }
}

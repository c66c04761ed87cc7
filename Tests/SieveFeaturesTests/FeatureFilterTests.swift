import SieveCQL
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveSQL
import Testing

@Suite("CQL2 filters on feature tables")
struct FeatureFilterTests {
    /// Five features: points at x = 0…3 on the equator (ids 1…4, n = id) and one without a
    /// geometry (id 5, n NULL), named so that the case of a letter matters.
    static func table() throws -> FeatureTable {
        let text = featureCollection(
            [#"{"n":1,"name":"Alpha"}"#, #"{"n":2,"name":"alpha"}"#, #"{"n":3,"name":"Beta"}"#, #"{"n":4,"name":"beta"}"#, #"{"name":"none"}"#],
            ids: ["1", "2", "3", "4", "5"],
            geometries: [
                #"{"type":"Point","coordinates":[0,0]}"#, #"{"type":"Point","coordinates":[1,0]}"#,
                #"{"type":"Point","coordinates":[2,0]}"#, #"{"type":"Point","coordinates":[3,0]}"#, "null",
            ])
        return try FeatureTable.load(geoJSON: text)
    }

    func ids(_ filter: String, in table: FeatureTable, where clause: String = "1=1") throws -> [Int64] {
        try table.queryObjectIDs(QueryParameters(whereClause: clause, filter: try CQL2Filter(filter)))
    }

    @Test func spatialFunctionsKeepThreeValuedLogic() throws {
        let table = try Self.table()
        #expect(try ids("S_INTERSECTS(geometry, BBOX(0.5, -1, 2.5, 1))", in: table) == [2, 3])
        // NOT of a spatial function: the feature without a geometry stays out (NULL).
        #expect(try ids("NOT S_INTERSECTS(geometry, BBOX(0.5, -1, 2.5, 1))", in: table) == [1, 4])
        #expect(try ids("S_INTERSECTS(geometry, BBOX(0.5, -1, 2.5, 1)) OR name = 'none'", in: table) == [2, 3, 5])
        #expect(try ids("S_DISJOINT(geometry, POINT(0 0))", in: table) == [2, 3, 4])
        #expect(try ids("geometry IS NULL", in: table) == [5])
        #expect(try ids("geom IS NOT NULL AND n > 2", in: table) == [3, 4])
        #expect(try ids("S_WITHIN(geometry, POLYGON((-1 -1, 1.5 -1, 1.5 1, -1 1, -1 -1)))", in: table) == [1, 2])
        #expect(try ids("S_CONTAINS(POLYGON((-1 -1, 1.5 -1, 1.5 1, -1 1, -1 -1)), geometry)", in: table) == [1, 2])
        // Two literals: the same answer at every feature, geometry or not.
        #expect(try ids("S_INTERSECTS(POINT(0 0), BBOX(-1, -1, 1, 1))", in: table) == [1, 2, 3, 4, 5])
        #expect(try ids("NOT S_INTERSECTS(POINT(5 5), BBOX(-1, -1, 1, 1)) AND n < 3", in: table) == [1, 2])
    }

    @Test func filterIsCaseSensitiveWhateverTheTableCollation() throws {
        let table = try Self.table()
        let nocase = QueryParameters(collation: .nocase, filter: try CQL2Filter("name = 'alpha'"))
        #expect(try table.queryObjectIDs(nocase) == [2])
        #expect(try ids("CASEI(name) = CASEI('ALPHA')", in: table) == [1, 2])
        // The where clause keeps its own collation.
        var both = QueryParameters(whereClause: "name = 'BETA'", collation: .nocase, filter: try CQL2Filter("n > 3"))
        #expect(try table.queryObjectIDs(both) == [4])
        both.filter = try CQL2Filter(#"{"op": ">", "args": [{"property": "n"}, 2]}"#)
        #expect(try table.queryFeatureCount(both) == 2)
    }

    @Test func antimeridianBoxesAreSplit() throws {
        let text = featureCollection(
            [#"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#], ids: ["1", "2", "3"],
            geometries: [
                #"{"type":"Point","coordinates":[179,0]}"#, #"{"type":"Point","coordinates":[-179,0]}"#,
                #"{"type":"Point","coordinates":[0,0]}"#,
            ])
        let table = try FeatureTable.load(geoJSON: text)
        #expect(try ids("S_INTERSECTS(geometry, BBOX(170, -10, -170, 10))", in: table) == [1, 2])
        #expect(try ids("S_INTERSECTS(geometry, BBOX(-170, -10, 170, 10))", in: table) == [3])
        #expect(try ids("S_DISJOINT(geometry, BBOX(170, -10, -170, 10))", in: table) == [3])
    }

    @Test func filterLiteralsAreProjectedIntoTheTablesReference() throws {
        // A table in Web Mercator: the filter's literal is longitude/latitude by default.
        let text = featureCollection(
            [#"{"n":1}"#, #"{"n":2}"#], ids: ["1", "2"],
            geometries: [#"{"type":"Point","coordinates":[111319.49,0]}"#, #"{"type":"Point","coordinates":[0,0]}"#],
            crs: #"{"type":"name","properties":{"name":"EPSG:3857"}}"#)
        let table = try FeatureTable.load(geoJSON: text)
        #expect(table.spatialReference.wkid == 3857)
        #expect(try ids("S_INTERSECTS(geometry, BBOX(0.5, -1, 1.5, 1))", in: table) == [1])
        var query = QueryParameters(filter: try CQL2Filter("S_INTERSECTS(geometry, BBOX(-10, -10, 10, 10))"))
        query.filterSpatialReference = SpatialReference(wkid: 3857)
        #expect(try table.queryObjectIDs(query) == [2])
    }

    @Test func errorsAreCQL2Errors() throws {
        let table = try Self.table()
        #expect(throws: CQL2Error.self) { try ids("nam = 'x'", in: table) }
        #expect(throws: CQL2Error.self) { try ids("S_INTERSECTS(name, POINT(0 0))", in: table) }
        let noGeometry = try FeatureTable.load(geoJSON: featureCollection([#"{"n":1}"#]))
        do {
            _ = try ids("S_INTERSECTS(geometry, POINT(0 0))", in: noGeometry)
            Issue.record("a spatial function on a table without geometries binds")
        } catch let error as CQL2Error {
            #expect(error.message.contains("the table has none"))
        }
    }
}

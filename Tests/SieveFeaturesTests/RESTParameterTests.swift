import Foundation
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveSQL
import Testing
import SieveTestSupport

/// The text forms of query parameters (REST and command line) and prepared queries.
@Suite("REST parameters and prepared queries")
struct RESTParameterTests {
    @Test func objectIDsAndOutFields() throws {
        #expect(try QueryParameters.objectIDList("37, 462,-1") == [37, 462, -1])
        #expect(try QueryParameters.objectIDList("9223372036854775807") == [Int64.max])
        for bad in ["", "1,,2", "1.5", "x", "9223372036854775808"] {
            #expect(throws: FeatureTableError.self) { try QueryParameters.objectIDList(bad) }
        }
        let error = try #require(throws: FeatureTableError.self) { try QueryParameters.objectIDList("1, two", parameter: "--object-ids") }
        #expect(error.message == #"--object-ids: "two" is not an integer object ID"#)
        #expect(try QueryParameters.outFieldList(" name , pop_est") == ["name", "pop_est"])
        #expect(try QueryParameters.outFieldList("*") == ["*"])
        #expect(throws: FeatureTableError.self) { try QueryParameters.outFieldList("a,,b") }
    }

    @Test func relationshipNames() throws {
        for relationship in SpatialRelationship.named {
            #expect(try SpatialRelationship(name: relationship.description) == relationship)
            #expect(try SpatialRelationship(name: relationship.description.uppercased()) == relationship)
        }
        #expect(try SpatialRelationship(name: "envelope-intersects") == .envelopeIntersects)
        #expect(try SpatialRelationship(name: "relate", relation: "T*F**F***") == .relate(pattern: "T*F**F***"))
        #expect(throws: FeatureTableError.self) { try SpatialRelationship(name: "relate") }
        #expect(throws: FeatureTableError.self) { try SpatialRelationship(name: "relate", relation: "T*F") }
        #expect(throws: FeatureTableError.self) { try SpatialRelationship(name: "within", relation: "T********") }
        #expect(throws: FeatureTableError.self) { try SpatialRelationship(name: "nearby") }
    }

    @Test func restSpatialRelReadsQueryFirst() throws {
        #expect(try SpatialRelationship(esriSpatialRel: "esriSpatialRelContains") == .within)
        #expect(try SpatialRelationship(esriSpatialRel: "esriSpatialRelWithin") == .contains)
        #expect(try SpatialRelationship(esriSpatialRel: "") == .intersects)
        #expect(try SpatialRelationship(esriSpatialRel: "esriSpatialRelIndexIntersects") == .envelopeIntersects)
        // Cell (row, column) of the query-first pattern is cell (column, row) feature first.
        #expect(try SpatialRelationship(esriSpatialRel: "esriSpatialRelRelation", relationParam: "T*****FF*") == .relate(pattern: "T*F**F***"))
        #expect(SpatialRelationship.transposed("012345678") == "036147258")
        #expect(throws: FeatureTableError.self) { try SpatialRelationship(esriSpatialRel: "esriSpatialRelRelation") }
        #expect(throws: FeatureTableError.self) { try SpatialRelationship(esriSpatialRel: "esriSpatialRelRelation", relationParam: "TTT") }
        #expect(throws: FeatureTableError.self) { try SpatialRelationship(esriSpatialRel: "esriSpatialRelNear") }
        // Writing and reading back gives the same relationship; equals has no REST form.
        for relationship in SpatialRelationship.named + [.relate(pattern: "T*F**F***")] {
            guard let rest = relationship.esriSpatialRel else {
                #expect(relationship == .equals)
                continue
            }
            let back = try SpatialRelationship(esriSpatialRel: rest.spatialRel, relationParam: rest.relationParam)
            #expect(back == (relationship == .envelopeIntersects ? .envelopeIntersects : relationship))
        }
    }

    /// The REST forms select what Shapely says the feature-first relationships select.
    @Test func restFormsAgainstTheShapelyOracle() throws {
        var checked = 0
        for item in SpatialQueryTests.oracle.cases {
            guard let table = SpatialQueryTests.tables[item.dataset] else { continue }
            let rest: (String, String?)
            switch item.relationship {
            case .within: rest = ("esriSpatialRelContains", nil)
            case .contains: rest = ("esriSpatialRelWithin", nil)
            case .relate(let pattern): rest = ("esriSpatialRelRelation", SpatialRelationship.transposed(pattern))
            default: continue
            }
            var query = QueryParameters()
            try query.setSpatialFilter(
                geometry: SpatialQueryTests.oracle.queries[item.query] ?? "",
                relationship: try SpatialRelationship(esriSpatialRel: rest.0, relationParam: rest.1))
            #expect(try table.queryObjectIDs(query) == item.objectIDs.sorted(), "\(item)")
            checked += 1
        }
        #expect(checked >= 48)
    }

    @Test func geometryTypeMustMatch() throws {
        var query = QueryParameters()
        try query.setSpatialFilter(geometry: #"{"x":1,"y":2}"#, geometryType: "esriGeometryPoint")
        #expect(query.geometry == .point(Point(x: 1, y: 2)))
        // The REST simple syntax is typed by its numbers, whatever geometryType says.
        try query.setSpatialFilter(geometry: "0,0,2,2", geometryType: "esriGeometryPolygon")
        #expect(query.geometry?.kind == .envelope)
        try query.setSpatialFilter(geometry: #"{"x":1,"y":2,"spatialReference":{"wkid":3857}}"#)
        #expect(query.inSpatialReference == .webMercator)
        try query.setSpatialFilter(
            geometry: #"{"x":1,"y":2,"spatialReference":{"wkid":3857}}"#, inSpatialReference: .wgs84)
        #expect(query.inSpatialReference == .wgs84)
        #expect(throws: FeatureTableError.self) {
            try query.setSpatialFilter(geometry: #"{"x":1,"y":2}"#, geometryType: "esriGeometryPolygon")
        }
        #expect(throws: FeatureTableError.self) { try query.setSpatialFilter(geometry: "0,0", geometryType: "esriGeometryCircle") }
        #expect(throws: FeatureTableError.self) { try query.setSpatialFilter(geometry: "POLYGON ((0 0, 1 1") }
    }

    @Test func preparedQueriesRunOnEverySnapshot() throws {
        let editable = try EditableFeatureTable(try FeatureTable.load(contentsOf: fixtureURL("naturalearth_cities.geojson")))
        let first = editable.snapshot
        let prepared = try PreparedQuery(QueryParameters(whereClause: "name LIKE 'S%'", returnGeometry: false), table: first)
        let before = try prepared.count(in: first)
        _ = editable.addFeatures([FeatureEdit(attributes: ["name": .string("Sunken")], geometry: .point(Point(x: 0, y: 0)))])
        let second = editable.snapshot
        #expect(try prepared.count(in: second) == before + 1)
        #expect(try prepared.count(in: first) == before)  // an old snapshot keeps its answer
        // ANDing a clause narrows; a clause selecting everything changes nothing.
        let narrowed = prepared.and(try CompiledWhereClause("name = 'Sunken'", schema: second.schema))
        #expect(try narrowed.objectIDs(in: second).count == 1)
        #expect(try prepared.and(.all()).count(in: second) == before + 1)
        #expect(try prepared.features(in: second).count == before + 1)
        // Another table's schema is refused.
        let countries = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_lowres.geojson"))
        #expect(throws: FeatureTableError.self) { try prepared.count(in: countries) }
    }
}

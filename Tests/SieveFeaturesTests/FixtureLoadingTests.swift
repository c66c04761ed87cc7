import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import Testing
import SieveTestSupport

@Suite("Loading the real fixtures")
struct FixtureLoadingTests {
    @Test func naturalEarthCountries() throws {
        let table = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_lowres.geojson"))
        #expect(table.count == 177)
        #expect(table.schema.fieldNames == ["OBJECTID", "fid", "pop_est", "continent", "name", "iso_a3", "gdp_md_est"])
        let types = table.schema.fields.map(\.type)
        #expect(types == [.oid, .integer, .double, .string, .string, .string, .integer])
        #expect(table.schema.objectIdFieldName == "OBJECTID")
        #expect(table.schema.geometryType == .polygon)
        #expect(table.spatialReference == .wgs84)
        // The object ID comes from the features' `id` (= fid).
        #expect(table.objectID(row: 0) == 1)
        #expect(table.objectID(row: 176) == 177)
        #expect(table.row(forObjectID: 177) == 176)
        #expect(table.value(row: 0, field: "name") == .string("Fiji"))
        #expect(table.value(row: 0, field: "POP_EST") == .double(889_953))
        #expect(table.value(row: 0, field: "gdp_md_est") == .integer(5496))
        #expect(table.value(row: 176, field: "iso_a3") == .string("SSD"))
        #expect(table.value(row: 176, field: "pop_est") == .double(11_062_113))
        // `continent` has 8 distinct values: dictionary-encoded.
        guard case .string(let continent)? = table.column(named: "continent"),
            case .dictionary(let codes, let dictionary) = continent.encoding
        else {
            Issue.record("continent is not a dictionary-encoded string column")
            return
        }
        #expect(codes.count == 177)
        #expect(dictionary.count == 8)
        #expect(continent.validity == nil)
        #expect((0..<table.count).allSatisfy { table.geometryColumn.kind(row: $0) == .polygon })
        // Fiji straddles the antimeridian.
        let fiji = try #require(table.envelope(row: 0))
        #expect(fiji.xmin == -180 && fiji.xmax == 180)
    }

    @Test func naturalEarthCities() throws {
        let table = try FeatureTable.load(geoJSON: try fixtureText("naturalearth_cities.geojson"))
        #expect(table.count == 243)
        #expect(table.schema.geometryType == .point)
        #expect(table.schema.fields.map(\.type) == [.oid, .integer, .string])
        #expect(table.value(row: 242, field: "name") == .string("Hong Kong"))
        #expect(table.objectID(row: 242) == 243)
        #expect(table.geometry(row: 242) == .point(Point(x: 114.1830635, y: 22.3069268)))
        let envelope = try #require(table.envelope(row: 242))
        #expect(envelope.xmin == 114.1830635 && envelope.xmax == 114.1830635)
        #expect(table.ymin[242] == 22.3069268)
        // 243 distinct names: too many for a dictionary (more than a quarter of the rows).
        guard case .string(let names)? = table.column(named: "NAME"), case .plain = names.encoding else {
            Issue.record("name should be a plain string column")
            return
        }
    }

    @Test func newYorkBoroughs() throws {
        let table = try FeatureTable.load(contentsOf: fixtureURL("nybb.geojson"))
        #expect(table.count == 5)
        #expect(table.schema.geometryType == .polygon)
        #expect(
            table.schema.fields.map(\.description) == [
                "OBJECTID (OID)", "fid (Integer)", "BoroCode (Integer)", "BoroName (String)", "Shape_Leng (Double)",
                "Shape_Area (Double)",
            ])
        #expect(table.objectIDs == [1, 2, 3, 4, 5])
        #expect(table.value(row: 3, field: "BoroName") == .string("Manhattan"))
        #expect(table.value(row: 3, field: "borocode") == .integer(1))
        #expect(table.value(row: 0, field: "Shape_Area") == .double(1_623_819_823.81))
        #expect(table.xmin[0] < -74.05 && table.ymax[0] > 40.6)
        #expect(table.extent.xmin < -74 && table.extent.xmax > -73.8)
    }
}

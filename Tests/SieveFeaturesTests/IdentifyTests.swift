import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveMap
import SieveGeometry
import Testing
import SieveTestSupport

@Suite("Identify")
struct IdentifyTests {
    static let cities = Result { try FeatureTable.load(contentsOf: fixtureURL("naturalearth_cities.geojson")) }
    static let countries = Result { try FeatureTable.load(contentsOf: fixtureURL("naturalearth_lowres.geojson")) }
    /// 360 map units over 360 pixels: one degree a pixel.
    static let world = Envelope(xmin: -180, ymin: -90, xmax: 180, ymax: 90)

    static func location(_ table: FeatureTable, _ objectID: Int64) throws -> Point {
        let row = try #require(table.row(forObjectID: objectID))
        guard case .point(let point) = try #require(table.geometry(row: row)) else {
            Issue.record("not a point")
            return Point(x: 0, y: 0)
        }
        return point
    }

    /// Every city within `radius` of the point by brute force, ordered by distance then ID.
    static func bruteForce(_ table: FeatureTable, x: Double, y: Double, radius: Double) -> [Int64] {
        var hits: [(Double, Int64)] = []
        for row in 0..<table.count {
            guard case .point(let p) = table.geometry(row: row) else { continue }
            let d = ((p.x - x) * (p.x - x) + (p.y - y) * (p.y - y)).squareRoot()
            if d <= radius { hits.append((d, table.objectID(row: row))) }
        }
        return hits.sorted { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }.map(\.1)
    }

    @Test func toleranceIsACircle() throws {
        let cities = try Self.cities.get()
        let paris = try Self.location(cities, 236)
        // 0.5 px over 1 degree a pixel: a 0.5 degree radius; the diagonal offsets below stay
        // inside the square of that radius in both cases.
        for (factor, hit) in [(0.99, true), (1.01, false)] {
            let offset = 0.5 * factor / 2.0.squareRoot()
            let parameters = IdentifyParameters(
                x: paris.x + offset, y: paris.y + offset, tolerance: 0.5, mapExtent: Self.world, width: 360, height: 180)
            #expect(parameters.mapTolerance == 0.5)
            let result = try cities.identify(parameters)
            #expect(result.objectIDs == (hit ? [236] : []), "factor \(factor)")
            if hit {
                let first = try #require(result.first)
                #expect(abs(first.distance - 0.5 * factor) < 1e-9)
                #expect(first.displayFieldName == "name")
                #expect(first.displayValue == "Paris")
                #expect(first.geometry == nil)
                #expect(first.attributes.map(\.name) == ["OBJECTID", "fid", "name"])
            }
        }
        // The map tolerance scales with the extent's width over the view's width.
        let zoomed = IdentifyParameters(
            x: paris.x + 0.3, y: paris.y, tolerance: 3, mapExtent: Envelope(xmin: 0, ymin: 40, xmax: 10, ymax: 50),
            width: 100, height: 100)
        #expect(zoomed.mapTolerance == 0.30000000000000004 || zoomed.mapTolerance == 0.3)
        #expect(try cities.identify(zoomed).objectIDs == [236])
    }

    @Test func orderedByDistanceAndCut() throws {
        let cities = try Self.cities.get()
        let rome = try Self.location(cities, 1)
        let (x, y) = (rome.x + 1, rome.y + 1)
        let radius = 30.0  // 10 px × 3 degrees a pixel
        let expected = Self.bruteForce(cities, x: x, y: y, radius: radius)
        #expect(expected.count > 10)
        var parameters = IdentifyParameters(
            x: x, y: y, tolerance: 10, mapExtent: Self.world, width: 120, height: 60, maxResults: 0)
        #expect(parameters.mapTolerance == radius)
        let all = try cities.identify(parameters)
        #expect(all.objectIDs == expected)
        #expect(zip(all.dropFirst(), all).allSatisfy { $0.distance >= $1.distance })
        parameters.maxResults = 1
        #expect(try cities.identify(parameters).objectIDs == Array(expected.prefix(1)))
        parameters.maxResults = 5
        #expect(try cities.identify(parameters).objectIDs == Array(expected.prefix(5)))
        parameters.maxResults = 10_000
        #expect(try cities.identify(parameters).objectIDs == expected)
        // The default is one result.
        let single = IdentifyParameters(x: x, y: y, tolerance: 10, mapExtent: Self.world, width: 120, height: 60)
        #expect(try cities.identify(single).count == 1)
        // A where clause limits the candidates.
        parameters.maxResults = 0
        parameters.whereClause = "name LIKE 'B%'"
        let names = try cities.identify(parameters).map(\.displayValue)
        #expect(!names.isEmpty && names.allSatisfy { $0.hasPrefix("B") })
        #expect(names.count == expected.filter { id in
            cities.row(forObjectID: id).map { cities.value(row: $0, field: "name") }.map { value in
                if case .string(let s) = value { s.hasPrefix("B") } else { false }
            } ?? false
        }.count)
    }

    @Test func tiesGoByObjectID() throws {
        let text = featureCollection(
            [#"{"name":"east"}"#, #"{"name":"west"}"#, #"{"name":"far"}"#], ids: ["9", "4", "7"],
            geometries: [
                #"{"type":"Point","coordinates":[1,0]}"#, #"{"type":"Point","coordinates":[-1,0]}"#,
                #"{"type":"Point","coordinates":[0,3]}"#,
            ])
        let table = try FeatureTable.load(geoJSON: text)
        let parameters = IdentifyParameters(
            x: 0, y: 0, tolerance: 2, mapExtent: Envelope(xmin: 0, ymin: 0, xmax: 100, ymax: 100), width: 100, height: 100,
            maxResults: 0)
        #expect(try table.identify(parameters).objectIDs == [4, 9])
        var one = parameters
        one.maxResults = 1
        #expect(try table.identify(one).map(\.displayValue) == ["west"])
    }

    @Test func pointInsideAPolygonIsAHitAtDistanceZero() throws {
        let countries = try Self.countries.get()
        for tolerance in [0.0, 3.0] {
            let parameters = IdentifyParameters(
                x: 2.35, y: 46.85, tolerance: tolerance, mapExtent: Self.world, width: 1440, height: 720, returnGeometry: true)
            let result = try countries.identify(parameters)
            #expect(result.objectIDs == [44])
            let france = try #require(result.first)
            #expect(france.distance == 0)
            #expect(france.geometry != nil)
            #expect(france.displayFieldName == "name")  // the string field named name
            #expect(france.attributes.first { $0.name == "name" }?.value == .string("France"))
        }
        // In the sea off Brittany: nothing within 1 px, France within 20 px (18 map units).
        let sea = IdentifyParameters(x: -8, y: 48, tolerance: 1, mapExtent: Self.world, width: 360, height: 180, maxResults: 0)
        #expect(try countries.identify(sea).objectIDs == [])
        var wide = sea
        wide.tolerance = 4
        let hits = try countries.identify(wide)
        #expect(hits.objectIDs.contains(44))
        #expect(hits.allSatisfy { $0.distance > 0 && $0.distance <= 4 })
    }

    @Test func badParametersThrow() throws {
        let cities = try Self.cities.get()
        let good = IdentifyParameters(x: 0, y: 0, mapExtent: Self.world, width: 100, height: 100)
        var cases: [IdentifyParameters] = []
        for change in [
            { (p: inout IdentifyParameters) in p.tolerance = 100.5 }, { $0.tolerance = -1 }, { $0.tolerance = .nan },
            { $0.width = 0 }, { $0.height = -5 }, { $0.maxResults = -1 }, { $0.x = .infinity },
            { $0.mapExtent = Envelope(xmin: 10, ymin: 0, xmax: 10, ymax: 5) },
        ] as [(inout IdentifyParameters) -> Void] {
            var p = good
            change(&p)
            cases.append(p)
        }
        for parameters in cases {
            let error = featureTableError { _ = try cities.identify(parameters) }
            #expect(error?.kind == .invalidQuery, "\(parameters)")
        }
        var edge = good
        edge.tolerance = 100
        #expect(throws: Never.self) { try cities.identify(edge) }
    }

    @Test func json() throws {
        let cities = try Self.cities.get()
        let paris = try Self.location(cities, 236)
        let parameters = IdentifyParameters(
            x: paris.x, y: paris.y, mapExtent: Self.world, width: 1440, height: 720, returnGeometry: true)
        let text = try cities.identify(parameters).json(layerName: "cities")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let results = try #require(object["results"] as? [[String: Any]])
        #expect(results.count == 1)
        let first = try #require(results.first)
        #expect(Set(first.keys) == ["layerId", "layerName", "objectId", "displayFieldName", "value", "attributes", "geometry"])
        #expect(first["layerId"] as? Int == 0)
        #expect(first["layerName"] as? String == "cities")
        #expect(first["objectId"] as? Int == 236)
        #expect(first["value"] as? String == "Paris")
        #expect((first["attributes"] as? [String: Any])?["name"] as? String == "Paris")
        let x = try #require((first["geometry"] as? [String: Any])?["x"] as? Double)
        #expect(abs(x - paris.x) < 1e-12)  // Foundation's JSON reader rounds the last digit
        #expect(text.contains(#""geometry":{"x":"#))
        #expect(try cities.identify(IdentifyParameters(x: 0, y: -89, mapExtent: Self.world, width: 100_000, height: 50_000))
            .json(layerName: "x") == #"{"results":[]}"#)
    }

    /// The display field a schema without one chooses, as ArcGIS Pro and QGIS guess it: a
    /// string field named `name`, else one whose name contains `name`, else `title` or
    /// `label`, else the first string field; never a number or an ID. (Expected values read off
    /// the field lists by the rule.)
    @Test(arguments: [
        (["pop:int", "continent:str", "name:str"], "name" as String?),
        (["continent:str", "NAME:str", "full_name:str"], "NAME"),
        (["continent:str", "full_name:str", "title:str"], "full_name"),
        (["code:str", "Label:str"], "Label"),
        (["code:str", "kind:str"], "code"),
        (["name_count:int", "kind:str"], "kind"),
        (["pop:int"], nil),
    ])
    func displayFieldIsGuessedAsGISDesktopsDo(fields: [String], expected: String?) throws {
        let schemaFields = [Field(name: "OBJECTID", type: .oid)] + fields.map { spec in
            let parts = spec.split(separator: ":")
            return Field(name: String(parts[0]), type: parts[1] == "int" ? .integer : .string)
        }
        let schema = try Schema(fields: schemaFields, objectIdFieldName: "OBJECTID", geometryType: .point)
        #expect(schema.displayFieldIndex.map { schema.fields[$0].name } == expected)
        let named = try Schema(fields: schemaFields, objectIdFieldName: "OBJECTID", displayFieldName: "OBJECTID", geometryType: .point)
        #expect(named.displayFieldIndex == 0)
    }

    @Test func aChosenDisplayFieldLabelsTheHits() throws {
        let countries = try Self.countries.get()
        var parameters = IdentifyParameters(x: 2.35, y: 46.85, tolerance: 0, mapExtent: Self.world, width: 1440, height: 720)
        parameters.displayFieldName = "ISO_A3"
        let france = try #require(try countries.identify(parameters).first)
        #expect(france.displayFieldName == "iso_a3")
        #expect(france.displayValue == "FRA")
        parameters.displayFieldName = "iso"
        #expect(throws: FeatureTableError.self) { try countries.identify(parameters) }
    }
}

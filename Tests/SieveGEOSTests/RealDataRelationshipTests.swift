import SieveGeometry
import Testing

@testable import SieveGEOS
import SieveTestSupport

/// Real geometries — Natural Earth countries and capitals, the NYC boroughs — related pair by
/// pair, against Shapely's DE-9IM matrices and predicates (`relate_oracle.json`).
@Suite("Real data relationships")
struct RealDataRelationshipTests {
    /// The geometries of a GeoJSON FeatureCollection fixture keyed "prefix:fid".
    static func load(_ file: String, prefix: String) throws -> [String: Geometry] {
        let collection = try JSONReader.parse(try fixtureText(file))
        let features = try #require(collection["features"]?.arrayValue)
        var result: [String: Geometry] = [:]
        for (index, feature) in features.enumerated() {
            let fid = try #require(feature["properties"]?["fid"]?.numberValue?.int64)
            let geometry = try #require(feature["geometry"])
            result["\(prefix):\(fid)"] = try Geometry(geoJSON: geometry, path: "features[\(index)].geometry")
        }
        return result
    }

    @Test func countriesCitiesAndBoroughsAgreeWithShapely() throws {
        var geometries = try Self.load("naturalearth_lowres.geojson", prefix: "country")
        geometries.merge(try Self.load("naturalearth_cities.geojson", prefix: "city")) { $1 }
        geometries.merge(try Self.load("nybb.geojson", prefix: "borough")) { $1 }
        #expect(geometries.count == 177 + 243 + 5)

        let oracle = try Oracle.load()
        #expect(oracle.real.count > 1000)
        let context = try GEOSContext()
        var converted: [String: GEOSGeometry] = [:]
        func geos(_ key: String) throws -> GEOSGeometry {
            if let existing = converted[key] { return existing }
            let made = try GEOSGeometry(try #require(geometries[key], "no geometry \(key)"), context: context)
            converted[key] = made
            return made
        }
        var mismatches = 0
        for row in oracle.real {
            let a = try geos(row.a), b = try geos(row.b)
            let matrix = try a.relate(b).description
            let answers = [
                try a.intersects(b), try a.contains(b), try a.isWithin(b), try a.touches(b), try a.crosses(b),
                try a.overlaps(b), try a.isTopologicallyEqual(to: b), try a.isDisjoint(with: b),
                try a.covers(b), try a.isCovered(by: b),
            ]
            let expected = [
                row.intersects, row.contains, row.within, row.touches, row.crosses, row.overlaps, row.equals,
                row.disjoint, row.covers, row.covered_by,
            ]
            if matrix != row.relate || answers != expected {
                mismatches += 1
                Issue.record("\(row.a) vs \(row.b): GeoSieve \(matrix) \(answers), Shapely \(row.relate) \(expected)")
            }
        }
        #expect(mismatches == 0)
    }

    @Test func preparedCountriesLocateEveryCapitalLikeShapely() throws {
        // Every city row of the oracle, answered by the prepared country through the
        // point fast path (intersects(x:y:), contains(x:y:)).
        let countries = try Self.load("naturalearth_lowres.geojson", prefix: "country")
        let cities = try Self.load("naturalearth_cities.geojson", prefix: "city")
        let context = try GEOSContext()
        var prepared: [String: PreparedGeometry] = [:]
        for row in try Oracle.load().real where row.a.hasPrefix("city:") {
            guard case .point(let city) = try #require(cities[row.a]) else {
                Issue.record("\(row.a) is not a point")
                continue
            }
            let country: PreparedGeometry
            if let existing = prepared[row.b] {
                country = existing
            } else {
                country = try PreparedGeometry(try #require(countries[row.b]), context: context)
                prepared[row.b] = country
            }
            // Oracle rows are city REL country; the prepared tests read country REL city.
            #expect(try country.intersects(x: city.x, y: city.y) == row.intersects, "\(row.a) in \(row.b)")
            #expect(try country.contains(x: city.x, y: city.y) == row.within, "\(row.a) within \(row.b)")
        }
    }
}

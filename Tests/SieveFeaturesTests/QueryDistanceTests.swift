import Foundation
import SieveGeometry
import SieveTestSupport
import Testing

@testable import SieveFeatures
@testable import SieveFormats

/// Queries within a distance (``QueryParameters/distance``) against distances computed here
/// without GeoSieve's code: Vincenty's inverse formula on the WGS 84 ellipsoid for geographic
/// tables, plane geometry for projected ones. Features whose true distance lies within a hair
/// of the limit are left out of the comparison (the oracle's own rounding could put them on
/// either side).
@Suite("Query distance")
struct QueryDistanceTests {
    /// Vincenty's inverse formula (1975) on WGS 84: the geodesic distance in metres, to about
    /// 0.1 mm for points that are not nearly antipodal.
    static func vincenty(_ lon1: Double, _ lat1: Double, _ lon2: Double, _ lat2: Double) -> Double {
        let a = 6_378_137.0, f = 1 / 298.257223563, b = a * (1 - f)
        let L = (lon2 - lon1) * .pi / 180
        let U1 = atan((1 - f) * tan(lat1 * .pi / 180)), U2 = atan((1 - f) * tan(lat2 * .pi / 180))
        let sinU1 = sin(U1), cosU1 = cos(U1), sinU2 = sin(U2), cosU2 = cos(U2)
        var lambda = L
        var sinSigma = 0.0, cosSigma = 0.0, sigma = 0.0, cos2Alpha = 0.0, cos2SigmaM = 0.0
        for _ in 0..<200 {
            let sinLambda = sin(lambda), cosLambda = cos(lambda)
            sinSigma = ((cosU2 * sinLambda) * (cosU2 * sinLambda) + (cosU1 * sinU2 - sinU1 * cosU2 * cosLambda) * (cosU1 * sinU2 - sinU1 * cosU2 * cosLambda)).squareRoot()
            if sinSigma == 0 { return 0 }
            cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            cos2Alpha = 1 - sinAlpha * sinAlpha
            cos2SigmaM = cos2Alpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cos2Alpha : 0
            let C = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
            let previous = lambda
            lambda = L + (1 - C) * f * sinAlpha * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda - previous) < 1e-13 { break }
        }
        let u2 = cos2Alpha * (a * a - b * b) / (b * b)
        let A = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)))
        let B = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)))
        let deltaSigma = B * sinSigma * (cos2SigmaM + B / 4 * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM) - B / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
        return b * A * (sigma - deltaSigma)
    }

    /// Even-odd crossing test over every ring of `polygon` (holes included).
    static func inside(_ p: Point, _ polygon: Polygon) -> Bool {
        var inside = false
        for r in 0..<polygon.ringCount {
            let ring = polygon.ring(r)
            for i in ring.indices.dropFirst() {
                let (a, b) = (ring[i - 1], ring[i])
                if (a.y > p.y) != (b.y > p.y), p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y) { inside.toggle() }
            }
        }
        return inside
    }

    static func ids(_ table: FeatureTable, _ query: QueryParameters) throws -> Set<Int64> {
        var query = query
        query.returnGeometry = false
        let result = try table.queryFeatures(query)
        return Set(result.rows.map { table.objectID(row: $0) })
    }

    @Test func citiesWithinGeodesicDistancesOfParis() throws {
        let table = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_cities.geojson"))
        let (lon, lat) = (2.3522, 48.8566)
        for metres in [50_000.0, 500_000, 1_500_000, 6_000_000] {
            var expected: Set<Int64> = [], ambiguous: Set<Int64> = []
            for row in 0..<table.count {
                guard case .point(let p)? = table.geometry(row: row) else { continue }
                let d = Self.vincenty(lon, lat, p.x, p.y)
                if abs(d - metres) < 0.01 { ambiguous.insert(table.objectID(row: row)) } else if d <= metres { expected.insert(table.objectID(row: row)) }
            }
            var query = QueryParameters(geometry: .point(Point(x: lon, y: lat)))
            query.distance = QueryDistance(metres / 1000, .kilometer)
            let found = try Self.ids(table, query).subtracting(ambiguous)
            #expect(found == expected, "\(metres) m")
            #expect(!expected.isEmpty)
        }
    }

    /// Across the antimeridian and near a pole, where a window in degrees must wrap.
    @Test func distancesWrapTheAntimeridianAndReachOverThePole() throws {
        let table = try FeatureTable.load(
            geoJSON: #"""
                {"type":"FeatureCollection","features":[
                 {"type":"Feature","properties":{"n":"east"},"geometry":{"type":"Point","coordinates":[179.9,0]}},
                 {"type":"Feature","properties":{"n":"west"},"geometry":{"type":"Point","coordinates":[-179.9,0]}},
                 {"type":"Feature","properties":{"n":"far"},"geometry":{"type":"Point","coordinates":[-179.0,0]}},
                 {"type":"Feature","properties":{"n":"pole"},"geometry":{"type":"Point","coordinates":[10,89.9]}},
                 {"type":"Feature","properties":{"n":"over"},"geometry":{"type":"Point","coordinates":[-170,89.9]}}]}
                """#)
        // 0.2° of longitude on the equator is 22.26 km; 0.2° of latitude over the pole 22.34 km.
        #expect(abs(Self.vincenty(179.9, 0, -179.9, 0) - 22_263.9) < 1)
        var query = QueryParameters(geometry: .point(Point(x: 179.9, y: 0)))
        query.distance = QueryDistance(30, .kilometer)
        #expect(try Self.ids(table, query) == [1, 2])
        query.geometry = .point(Point(x: 10, y: 89.9))
        #expect(try Self.ids(table, query) == [4, 5])
        query.distance = QueryDistance(20, .kilometer)
        #expect(try Self.ids(table, query) == [4])
    }

    /// Polygons: a country is within the distance when the point is inside it or one of its
    /// edges comes that close; the oracle samples every edge of the countries near the point
    /// at 400 positions (so it overestimates each distance a little: a band of 0.2 % is left
    /// out).
    @Test func countriesWithinGeodesicDistancesOfAPoint() throws {
        let table = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_lowres.geojson"))
        let (lon, lat) = (8.0, 47.0)  // in Switzerland
        for metres in [100_000.0, 400_000] {
            var expected: Set<Int64> = [], ambiguous: Set<Int64> = []
            for row in 0..<table.count {
                guard case .polygon(let polygon)? = table.geometry(row: row) else { continue }
                let e = Geometry.polygon(polygon).envelope
                guard e.xmin < lon + 12, e.xmax > lon - 12, e.ymin < lat + 8, e.ymax > lat - 8 else { continue }
                let id = table.objectID(row: row)
                if Self.inside(Point(x: lon, y: lat), polygon) {
                    expected.insert(id)
                    continue
                }
                var nearest = Double.infinity
                for r in 0..<polygon.ringCount {
                    let ring = polygon.ring(r)
                    for i in ring.indices.dropFirst() {
                        let (a, b) = (ring[i - 1], ring[i])
                        for k in 0...400 {
                            let t = Double(k) / 400
                            nearest = Swift.min(nearest, Self.vincenty(lon, lat, a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t))
                        }
                    }
                }
                if abs(nearest - metres) < metres * 0.002 { ambiguous.insert(id) } else if nearest <= metres { expected.insert(id) }
            }
            var query = QueryParameters(geometry: .point(Point(x: lon, y: lat)))
            query.distance = QueryDistance(metres)
            #expect(try Self.ids(table, query).subtracting(ambiguous) == expected, "\(metres) m")
            #expect(expected.count >= 2)
        }
    }

    /// A projected table measures in its plane and unit: New York Long Island is in US survey
    /// feet (1200/3937 m), so a statute mile (1,609.344 m) is 5,279.989 of its feet — a point
    /// 5,280 feet away is farther than a mile.
    @Test func projectedTablesMeasureInTheirPlaneAndUnit() throws {
        let table = try FeatureTable.load(
            json: Array(
                #"""
                {"geometryType":"esriGeometryPolygon","spatialReference":{"wkid":2263},
                 "fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"}],
                 "features":[
                  {"attributes":{"OBJECTID":1},"geometry":{"rings":[[[5279.98,-10],[5279.98,10],[5300,10],[5300,-10],[5279.98,-10]]]}},
                  {"attributes":{"OBJECTID":2},"geometry":{"rings":[[[-10,5280],[-10,5300],[10,5300],[10,5280],[-10,5280]]]}},
                  {"attributes":{"OBJECTID":3},"geometry":{"rings":[[[10000,0],[10000,2000],[12000,2000],[12000,0],[10000,0]]]}},
                  {"attributes":{"OBJECTID":4},"geometry":{"rings":[[[-100,-100],[-100,100],[100,100],[100,-100],[-100,-100]]]}}]}
                """#.utf8))
        #expect(abs(1609.344 / (1200.0 / 3937) - 5279.989_44) < 1e-5)
        var query = QueryParameters(geometry: .point(Point(x: 0, y: 0)))
        query.distance = QueryDistance(1, .statuteMile)
        #expect(try Self.ids(table, query) == [1, 4])
        query.distance = QueryDistance(2, .statuteMile)  // 10,559.98 ft: the square at 10,000 ft too
        #expect(try Self.ids(table, query) == [1, 2, 3, 4])
        query.distance = QueryDistance(5280, .foot)  // international feet: 5,279.99 US feet
        #expect(try Self.ids(table, query) == [1, 4])
    }

    /// Web Mercator metres are not ground metres: a table in 3857 measures along the ellipsoid
    /// and selects the same cities as the same table in 4326.
    @Test func webMercatorTablesMeasureOnTheGround() throws {
        let geographic = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_cities.geojson"))
        var features: [String] = []
        for row in 0..<geographic.count {
            guard case .point(let p)? = geographic.geometry(row: row) else { continue }
            let m = WebMercator.forward(longitude: p.x, latitude: p.y)
            features.append(#"{"attributes":{"OBJECTID":\#(geographic.objectID(row: row))},"geometry":{"x":\#(m.x),"y":\#(m.y)}}"#)
        }
        let mercator = try FeatureTable.load(
            json: Array(
                (#"{"geometryType":"esriGeometryPoint","spatialReference":{"wkid":102100},"fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"}],"features":["#
                    + features.joined(separator: ",") + "]}").utf8))
        let oslo = WebMercator.forward(longitude: 10.75, latitude: 59.91)
        var query = QueryParameters(geometry: .point(Point(x: 10.75, y: 59.91)))
        query.distance = QueryDistance(800, .kilometer)
        var inMercator = QueryParameters(geometry: .point(Point(x: oslo.x, y: oslo.y)))
        inMercator.distance = query.distance
        let expected = try Self.ids(geographic, query)
        #expect(expected.count > 3)
        #expect(try Self.ids(mercator, inMercator) == expected)
    }

    @Test func distancesOutOfRangeOrWithOtherRelationshipsAreRefused() throws {
        let table = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_cities.geojson"))
        var query = QueryParameters(geometry: .point(Point(x: 0, y: 0)))
        query.distance = QueryDistance(-1)
        #expect(throws: FeatureTableError.self) { try table.queryFeatureCount(query) }
        query.distance = QueryDistance(.infinity)
        #expect(throws: FeatureTableError.self) { try table.queryFeatureCount(query) }
        query.distance = QueryDistance(10)
        query.spatialRelationship = .within
        #expect(throws: FeatureTableError.self) { try table.queryFeatureCount(query) }
    }

    @Test func unitsAreTheirMetres() {
        #expect(QueryDistance(2, .foot).metres == 0.6096)
        #expect(QueryDistance(1, .statuteMile).metres == 1609.344)
        #expect(QueryDistance(1, .nauticalMile).metres == 1852)
        #expect(QueryDistance(3, .kilometer).metres == 3000)
    }
}

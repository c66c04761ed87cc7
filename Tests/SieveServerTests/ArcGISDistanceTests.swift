import Foundation
import Testing
import SieveServer
import SieveTestSupport

/// `distance` and `units` on the ArcGIS REST query: the wiring and the defaults (the distances
/// themselves are checked against Vincenty's formula in the engine's tests).
@Suite(.tags(.network)) struct ArcGISDistanceTests {
    static let query = "/arcgis/rest/services/cities/FeatureServer/0/query?geometry=2.3522,48.8566&geometryType=esriGeometryPoint&inSR=4326&returnIdsOnly=true&f=json"

    static func ids(_ reply: Reply) -> Set<Int> { Set(reply.object["objectIds"] as? [Int] ?? []) }

    @Test func distanceSelectsWhatLiesWithinItInEveryUnit() async throws {
        try await TestServer.withClient(try TestServer.make()) { client async throws in
            let layer = try await client.get("/arcgis/rest/services/cities/FeatureServer/0?f=json").object
            #expect((layer["advancedQueryCapabilities"] as? [String: Any])?["supportsQueryWithDistance"] as? Bool == true)
            let kilometres = Self.ids(try await client.get(Self.query + "&distance=500&units=esriSRUnit_Kilometer"))
            #expect(kilometres.count >= 5)
            #expect(Self.ids(try await client.get(Self.query + "&distance=500000&units=esriSRUnit_Meter")) == kilometres)
            // Without units, feet, as ArcGIS Enterprise: 500 km is 1,640,419.95 ft.
            #expect(Self.ids(try await client.get(Self.query + "&distance=1640419.95")) == kilometres)
            #expect(Self.ids(try await client.get(Self.query + "&distance=269.9784017278618&units=esriSRUnit_NauticalMile")) == kilometres)
            // Without a distance, only a city exactly at the point; a distance of 0 is the same.
            let none = Self.ids(try await client.get(Self.query))
            #expect(Self.ids(try await client.get(Self.query + "&distance=0&units=esriSRUnit_Meter")) == none)
            #expect(none.count <= 1)
            // POST form and case-insensitive unit names.
            let posted = try await client.post(
                "/arcgis/rest/services/cities/FeatureServer/0/query",
                form: "geometry=2.3522,48.8566&geometryType=esriGeometryPoint&distance=500&units=ESRISRUNIT_KILOMETER&returnIdsOnly=true&f=json")
            #expect(Self.ids(posted) == kilometres)
        }
    }

    @Test func badDistancesAreArcGISErrors() async throws {
        try await TestServer.withClient(try TestServer.make()) { client async throws in
            for bad in ["&distance=-5&units=esriSRUnit_Meter", "&distance=abc", "&distance=5&units=esriSRUnit_Parsec",
                "&distance=5&units=esriSRUnit_Meter&spatialRel=esriSpatialRelWithin"]
            {
                let reply = try await client.get(Self.query + bad)
                #expect(reply.status == 200)
                let error = reply.object["error"] as? [String: Any]
                #expect(error?["code"] as? Int == 400, "\(bad): \(reply.text)")
            }
        }
    }
}

import Foundation
import Testing
import SieveServer
import SieveTestSupport

/// `resultType` chooses which of the layer's record counts bounds a page (with
/// `returnExceededLimitFeatures=false`, a tile query that did not hold every feature answers
/// none); `returnZ` and `returnM` keep the z and m values a layer has, which it declares in
/// `hasZ` and `hasM`.
@Suite(.tags(.network)) struct ArcGISResultTypeTests {
    /// Two lines, the first with z and m on each vertex, the second with x and y only.
    static let lines = """
        {"geometryType":"esriGeometryPolyline","spatialReference":{"wkid":4326},
         "fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"}],
         "features":[
          {"attributes":{"OBJECTID":1},"geometry":{"hasZ":true,"hasM":true,"paths":[[[0,0,5,1],[1,1,6,2]]]}},
          {"attributes":{"OBJECTID":2},"geometry":{"paths":[[[2,2],[3,3]]]}}]}
        """
    static let layer = "/arcgis/rest/services/lines/FeatureServer/0"

    /// Five points without z or m.
    static let points = """
        {"geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},
         "fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"}],
         "features":[\((1...5).map { #"{"attributes":{"OBJECTID":\#($0)},"geometry":{"x":\#($0),"y":\#($0)}}"# }.joined(separator: ","))]}
        """
    static let pointLayer = "/arcgis/rest/services/points/FeatureServer/0"

    /// The paths of each feature of an Esri JSON answer, by object ID.
    static func paths(_ object: [String: Any]) -> [Int: [[[Double]]]] {
        var paths: [Int: [[[Double]]]] = [:]
        for feature in object["features"] as? [[String: Any]] ?? [] {
            guard let id = (feature["attributes"] as? [String: Any])?["OBJECTID"] as? Int,
                let geometry = feature["geometry"] as? [String: Any], let value = geometry["paths"] as? [[[Double]]]
            else { continue }
            paths[id] = value
        }
        return paths
    }

    @Test func theLayerSaysWhetherItHasZAndM() async throws {
        let server = try TestServer.make(
            extra: [TestServer.table("lines", geoJSON: Self.lines), TestServer.table("points", geoJSON: Self.points)])
        try await TestServer.withClient(server) { client async throws in
            let lines = try await client.get("\(Self.layer)?f=json").object
            #expect(lines["hasZ"] as? Bool == true)
            #expect(lines["hasM"] as? Bool == true)
            let points = try await client.get("\(Self.pointLayer)?f=json").object
            #expect(points["hasZ"] as? Bool == false)
            #expect(points["hasM"] as? Bool == false)
        }
    }

    @Test func zAndMAreReturnedWhenAskedFor() async throws {
        let server = try TestServer.make(extra: [TestServer.table("lines", geoJSON: Self.lines)])
        try await TestServer.withClient(server) { client async throws in
            let query = "\(Self.layer)/query?where=1%3D1&orderByFields=OBJECTID"
            // By default, x and y only, and nothing says z or m.
            let plain = try await client.get("\(query)&f=json")
            #expect(Self.paths(plain.object) == [1: [[[0, 0], [1, 1]]], 2: [[[2, 2], [3, 3]]]])
            #expect(!plain.text.contains("hasZ") && !plain.text.contains("hasM"), "\(plain.text)")
            // returnZ: the z values, the answer and the geometry saying so.
            let z = try await client.get("\(query)&returnZ=true&f=json")
            #expect(Self.paths(z.object) == [1: [[[0, 0, 5], [1, 1, 6]]], 2: [[[2, 2], [3, 3]]]])
            #expect(z.object["hasZ"] as? Bool == true)
            #expect(z.object["hasM"] == nil)
            let first = (z.object["features"] as? [[String: Any]])?.first?["geometry"] as? [String: Any]
            #expect(first?["hasZ"] as? Bool == true)
            #expect(first?["hasM"] == nil)
            // A page of the x-y line only says nothing of z, though the layer has it.
            let second = try await client.get("\(query)&objectIds=2&returnZ=true&returnM=true&f=json")
            #expect(Self.paths(second.object) == [2: [[[2, 2], [3, 3]]]])
            #expect(second.object["hasZ"] == nil && second.object["hasM"] == nil, "\(second.text)")
            // returnM alone, then both, in the order x y z m.
            let m = try await client.get("\(query)&returnM=true&f=json")
            #expect(Self.paths(m.object)[1] == [[[0, 0, 1], [1, 1, 2]]])
            #expect(m.object["hasM"] as? Bool == true && m.object["hasZ"] == nil)
            let both = try await client.get("\(query)&returnZ=true&returnM=true&f=json")
            #expect(Self.paths(both.object)[1] == [[[0, 0, 5, 1], [1, 1, 6, 2]]])
            // Projected (the materialized path): z kept as it is, x and y in Web Mercator.
            let mercator = try await client.get("\(query)&returnZ=true&outSR=3857&f=json")
            let projected = Self.paths(mercator.object)[1]?.first
            #expect(projected?.map(\.count) == [3, 3])
            #expect(projected?.first == [0, 0, 5])
            #expect(projected?.last?.last == 6)
            #expect(Self.paths(try await client.get("\(query)&outSR=3857&f=json").object)[1]?.first?.map(\.count) == [2, 2])
            // GeoJSON: z as the third coordinate when asked for.
            let geoJSON = try await client.get("\(query)&returnZ=true&f=geojson").object
            let coordinates = ((geoJSON["features"] as? [[String: Any]])?.first?["geometry"] as? [String: Any])?["coordinates"]
            #expect(coordinates as? [[Double]] == [[0, 0, 5], [1, 1, 6]])
            let flat = try await client.get("\(query)&f=geojson").object
            let flatCoordinates = ((flat["features"] as? [[String: Any]])?.first?["geometry"] as? [String: Any])?["coordinates"]
            #expect(flatCoordinates as? [[Double]] == [[0, 0], [1, 1]])
            // A bad flag is an ArcGIS error.
            let bad = try await client.get("\(query)&returnZ=yes&f=json")
            #expect((bad.object["error"] as? [String: Any])?["code"] as? Int == 400, "\(bad.text)")
        }
    }

    @Test func resultTypeChoosesTheRecordCount() async throws {
        let configuration = ServerConfiguration(maxRecordCount: 2, standardMaxRecordCount: 3, tileMaxRecordCount: 1)
        let server = try TestServer.make(configuration, extra: [TestServer.table("points", geoJSON: Self.points)])
        try await TestServer.withClient(server) { client async throws in
            let layer = try await client.get("\(Self.pointLayer)?f=json").object
            #expect(layer["maxRecordCount"] as? Int == 2)
            #expect(layer["standardMaxRecordCount"] as? Int == 3)
            #expect(layer["tileMaxRecordCount"] as? Int == 1)
            #expect((layer["advancedQueryCapabilities"] as? [String: Any])?["supportsQueryWithResultType"] as? Bool == true)

            let query = "\(Self.pointLayer)/query?where=1%3D1&orderByFields=OBJECTID&f=json"
            func ids(_ extra: String) async throws -> ([Int], Bool?) {
                let object = try await client.get(query + extra).object
                let ids = (object["features"] as? [[String: Any]] ?? []).compactMap { ($0["attributes"] as? [String: Any])?["OBJECTID"] as? Int }
                return (ids, object["exceededTransferLimit"] as? Bool)
            }
            // Five rows: 2, 3 and 1 a page, each page saying that rows follow.
            #expect(try await ids("") == ([1, 2], true))
            #expect(try await ids("&resultType=none") == ([1, 2], true))
            #expect(try await ids("&resultType=standard") == ([1, 2, 3], true))
            #expect(try await ids("&resultType=tile") == ([1], true))
            #expect(try await ids("&resultType=TILE&resultOffset=4") == ([5], nil))
            // resultRecordCount is bounded by the type's count, below it honoured.
            #expect(try await ids("&resultType=standard&resultRecordCount=10") == ([1, 2, 3], true))
            #expect(try await ids("&resultType=standard&resultRecordCount=2&resultOffset=3") == ([4, 5], nil))
            // A tile query that did not hold every feature answers none when asked to ...
            #expect(try await ids("&resultType=tile&returnExceededLimitFeatures=false") == ([], true))
            // ... and its features when they all fit ...
            #expect(try await ids("&resultType=tile&returnExceededLimitFeatures=false&objectIds=4") == ([4], nil))
            // ... but the flag applies to tile queries only, as ArcGIS documents.
            #expect(try await ids("&resultType=standard&returnExceededLimitFeatures=false") == ([1, 2, 3], true))
            #expect(try await ids("&returnExceededLimitFeatures=false") == ([1, 2], true))
            // IDs and counts are never paged.
            let count = try await client.get("\(Self.pointLayer)/query?where=1%3D1&resultType=tile&returnCountOnly=true&f=json")
            #expect(count.object["count"] as? Int == 5)
            for bad in ["&resultType=tiles", "&resultType=tile&returnExceededLimitFeatures=no"] {
                let reply = try await client.get(query + bad)
                #expect((reply.object["error"] as? [String: Any])?["code"] as? Int == 400, "\(bad): \(reply.text)")
            }
        }
    }

    @Test func recordCountsOutOfRangeAreRefused() {
        #expect(throws: ServerRequestError.self) { try ServerConfiguration(tileMaxRecordCount: 0).validate() }
        #expect(throws: ServerRequestError.self) { try ServerConfiguration(standardMaxRecordCount: 1_000_001).validate() }
        #expect(throws: Never.self) { try ServerConfiguration(standardMaxRecordCount: 1, tileMaxRecordCount: 1_000_000).validate() }
    }
}

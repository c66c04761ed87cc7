import HTTPTypes
import SieveEditing
import SieveFeatures
@testable import SieveServer
import SieveTestSupport
import Testing

/// OGC API – Tiles routes: the grid, tilesets, TileJSON and the tiles, their parameters and
/// errors.
@Suite(.tags(.network)) struct OGCTilesTests {
    static let tiles = "/ogc/collections/cities/tiles/WebMercatorQuad"

    /// The one layer of a tile and its features (read with the wire reader of these tests).
    static func features(_ reply: Reply) throws -> (layer: String?, count: Int, keys: [String]) {
        let tile = try WireMessage(reply.bytes)
        guard let layer = try tile.message(3) else { return (nil, 0, []) }
        return (layer.string(1), try layer.messages(2).count, layer.strings(3))
    }

    @Test func documentsDescribeTheGridAndTheTiles() async throws {
        try await TestServer.withClient(try TestServer.make()) { client in
            let grid = try await client.get("/ogc/tileMatrixSets/WebMercatorQuad").object
            #expect(grid["id"] as? String == "WebMercatorQuad")
            #expect((grid["tileMatrices"] as? [[String: Any]])?.count == 25)
            let sets = try await client.get("/ogc/collections/cities/tiles").object["tilesets"] as? [[String: Any]]
            #expect(sets?.count == 1)
            let tileset = try await client.get(Self.tiles).object
            let links = tileset["links"] as? [[String: Any]] ?? []
            #expect(links.contains { $0["rel"] as? String == "item" && ($0["href"] as? String)?.hasSuffix("/{tileMatrix}/{tileRow}/{tileCol}") == true })
            let tilejson = try await client.get(Self.tiles + "?f=tilejson").object
            #expect(tilejson["tilejson"] as? String == "3.0.0")
            #expect((tilejson["tiles"] as? [String])?.first?.hasSuffix("/ogc/collections/cities/tiles/WebMercatorQuad/{z}/{y}/{x}") == true)
            let landing = try await client.get("/ogc").text
            #expect(landing.contains("/ogc/tileMatrixSets"))
            #expect(try await client.get("/ogc/collections/cities").text.contains("tilesets-vector"))
            let conformance = try await client.get("/ogc/conformance").text
            #expect(conformance.contains("http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/mvt"))
            #expect(conformance.contains("http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/oas30"))
        }
    }

    @Test func tilesHoldTheFeaturesOfTheirSquare() async throws {
        try await TestServer.withClient(try TestServer.make()) { client in
            let world = try await client.get(Self.tiles + "/0/0/0")
            #expect(world.status == 200)
            #expect(world.headers[.contentType] == "application/vnd.mapbox-vector-tile")
            #expect(world.headers[.eTag] != nil)
            let all = try Self.features(world)
            #expect(all.layer == "cities")
            #expect(all.count > 200 && all.count <= 243)
            #expect(Set(all.keys) == ["fid", "name"])
            // A filter, as /items reads it, and the properties asked for.
            let vatican = try await client.get(Self.tiles + "/0/0/0?filter=" + encoded("name = 'Vatican City'") + "&properties=name")
            let one = try Self.features(vatican)
            #expect(one.count == 1)
            #expect(one.keys == ["name"])
            // Zoom 2, column 0, row 3 (the south-west Pacific and Antarctica): no city.
            let empty = try Self.features(try await client.get(Self.tiles + "/2/3/0"))
            #expect(empty.layer == "cities")
            #expect(empty.count == 0)
        }
    }

    @Test func anEditRemakesTheTilesTheCacheKeeps() async throws {
        let (_, server) = try TestServer.editablePoint("places")
        try await TestServer.withClient(server) { client in
            let uri = "/ogc/collections/places/tiles/WebMercatorQuad/0/0/0"
            let first = try await client.get(uri)
            #expect(try Self.features(first).count == 1)
            #expect(server.tiles.size == first.bytes.count)
            #expect(try await client.get(uri).bytes == first.bytes)
            let adds = encoded(#"[{"attributes":{"name":"b"},"geometry":{"x":50,"y":50}}]"#)
            _ = try await client.post("/arcgis/rest/services/places/FeatureServer/0/addFeatures", form: "features=\(adds)&f=json")
            #expect(try Self.features(try await client.get(uri)).count == 2)
        }
    }

    @Test func theCacheDropsTheLeastRecentlyUsedTiles() {
        let cache = TileCache(capacity: 400)
        cache.keep([UInt8](repeating: 1, count: 100), as: "a")
        cache.keep([UInt8](repeating: 2, count: 100), as: "b")
        cache.keep([UInt8](repeating: 3, count: 100), as: "c")
        #expect(cache.tile("a") != nil)  // a is now more recent than b
        cache.keep([UInt8](repeating: 4, count: 100), as: "d")
        cache.keep([UInt8](repeating: 5, count: 100), as: "e")
        #expect(cache.tile("b") == nil)
        #expect(cache.tile("a") != nil)
        #expect(cache.size == 400)
        cache.keep([UInt8](repeating: 6, count: 101), as: "big")  // over a quarter: not kept
        #expect(cache.tile("big") == nil)
        #expect(TileCache(capacity: 0).tile("a") == nil)
    }

    @Test func wrongTilesAndParametersAreRefused() async throws {
        try await TestServer.withClient(try TestServer.make()) { client in
            let expected: [(String, Int)] = [
                (Self.tiles + "/1/2/0", 404), (Self.tiles + "/25/0/0", 404), (Self.tiles + "/a/0/0", 404),
                ("/ogc/collections/cities/tiles/WorldCRS84Quad/0/0/0", 404), ("/ogc/collections/nowhere/tiles/WebMercatorQuad/0/0/0", 404),
                (Self.tiles + "/0/0/0?limit=5", 400), (Self.tiles + "/0/0/0?nonsense=1", 400),
                (Self.tiles + "/0/0/0?filter=" + encoded("name = "), 400), (Self.tiles + "/0/0/0?f=png", 400), (Self.tiles + "?f=png", 400),
            ]
            for (uri, status) in expected {
                let reply = try await client.get(uri)
                #expect(reply.status == status, "\(uri)")
            }
        }
    }
}

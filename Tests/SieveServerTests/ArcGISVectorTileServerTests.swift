import Foundation
import Testing
import SieveServer
import SieveTestSupport

/// Each table with geometry is an ArcGIS `VectorTileServer` too: its document as ArcGIS
/// publishes one, the tiles of the OGC API routes byte for byte, and a style drawing them.
@Suite(.tags(.network)) struct ArcGISVectorTileServerTests {
    static let service = "/arcgis/rest/services/cities/VectorTileServer"

    /// A table without geometry.
    static let plain = """
        {"fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"name","type":"esriFieldTypeString"}],
         "features":[{"attributes":{"OBJECTID":1,"name":"a"}}]}
        """

    @Test func theDirectoryListsAVectorTileServiceForEachTableWithGeometry() async throws {
        let server = try TestServer.make(extra: [TestServer.table("plain", geoJSON: Self.plain)])
        try await TestServer.withClient(server) { client async throws in
            let entries = try await client.get("/arcgis/rest/services?f=json").object["services"] as? [[String: Any]] ?? []
            let names = entries.filter { $0["type"] as? String == "VectorTileServer" }.compactMap { $0["name"] as? String }
            #expect(names == ["cities", "countries", "boroughs"])
            let missing = try await client.get("/arcgis/rest/services/plain/VectorTileServer?f=json")
            #expect((missing.object["error"] as? [String: Any])?["code"] as? Int == 404, "\(missing.text)")
            #expect(try await client.get("/arcgis/rest/services/plain/VectorTileServer/tile/0/0/0.pbf").status == 404)
        }
    }

    @Test func theServiceDocumentDescribesTheGrid() async throws {
        // The cities' extent, from the file, in Web Mercator by the spherical formulas.
        let data = try Data(contentsOf: fixturesDirectory.appendingPathComponent("naturalearth_cities.geojson"))
        let collection = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        var longitudes: [Double] = [], latitudes: [Double] = []
        for feature in collection?["features"] as? [[String: Any]] ?? [] {
            if let coordinates = (feature["geometry"] as? [String: Any])?["coordinates"] as? [Double] {
                longitudes.append(coordinates[0])
                latitudes.append(coordinates[1])
            }
        }
        let radius = 6_378_137.0
        let expectedExtent = [
            ("xmin", radius * (longitudes.min() ?? 0) * .pi / 180), ("xmax", radius * (longitudes.max() ?? 0) * .pi / 180),
            ("ymin", radius * log(tan(.pi / 4 + (latitudes.min() ?? 0) * .pi / 360))),
            ("ymax", radius * log(tan(.pi / 4 + (latitudes.max() ?? 0) * .pi / 360))),
        ]

        try await TestServer.withClient(try TestServer.make()) { client async throws in
            let document = try await client.get("\(Self.service)?f=json").object
            #expect(document["tiles"] as? [String] == ["tile/{z}/{y}/{x}.pbf"])
            #expect(document["capabilities"] as? String == "TilesOnly")
            #expect(document["defaultStyles"] as? String == "resources/styles")
            let info = document["tileInfo"] as? [String: Any]
            #expect(info?["rows"] as? Int == 512 && info?["cols"] as? Int == 512)
            #expect(info?["format"] as? String == "pbf")
            let origin = info?["origin"] as? [String: Double]
            #expect(abs((origin?["x"] ?? 0) + .pi * radius) < 1e-6 && abs((origin?["y"] ?? 0) - .pi * radius) < 1e-6)
            #expect((info?["spatialReference"] as? [String: Any])?["latestWkid"] as? Int == 3857)
            #expect((info?["spatialReference"] as? [String: Any])?["wkid"] as? Int == 102_100)
            let lods = info?["lods"] as? [[String: Any]] ?? []
            #expect(lods.count == 23)
            // Level 0: the world's width over 512 pixels; the scale ArcGIS's tiling scheme
            // publishes (1:295,828,763.795777 from a resolution rounded to 78,271.516964).
            let resolution0 = lods.first?["resolution"] as? Double ?? 0
            #expect(abs(resolution0 - 2 * .pi * radius / 512) < 1e-9)
            #expect(abs((lods.first?["scale"] as? Double ?? 0) - 295_828_763.795777) < 1e-3)
            #expect(abs((lods.last?["resolution"] as? Double ?? 0) - resolution0 / 4_194_304) < 1e-12)
            let extent = document["fullExtent"] as? [String: Any]
            for (key, expected) in expectedExtent {
                #expect(abs((extent?[key] as? Double ?? .nan) - expected) < 1e-3, "\(key)")
            }
        }
    }

    @Test func tilesAreTheOGCTiles() async throws {
        try await TestServer.withClient(try TestServer.make()) { client async throws in
            for (service, z, y, x) in [("cities", 0, 0, 0), ("cities", 3, 2, 4), ("countries", 2, 1, 2), ("boroughs", 10, 385, 301)] {
                let arcgis = try await client.get("/arcgis/rest/services/\(service)/VectorTileServer/tile/\(z)/\(y)/\(x).pbf")
                #expect(arcgis.status == 200)
                #expect(arcgis.headers[.contentType] == "application/vnd.mapbox-vector-tile")
                let ogc = try await client.get("/ogc/collections/\(service)/tiles/WebMercatorQuad/\(z)/\(y)/\(x)")
                #expect(arcgis.bytes == ogc.bytes, "\(service) \(z)/\(y)/\(x)")
                #expect(arcgis.bytes.count > 20, "\(service) \(z)/\(y)/\(x)")
            }
            // Outside the grid, or not a tile: 404, as ArcGIS answers.
            for path in ["tile/1/2/0.pbf", "tile/0/0/-1.pbf", "tile/25/0/0.pbf", "tile/a/0/0.pbf"] {
                #expect(try await client.get("\(Self.service)/\(path)").status == 404, "\(path)")
            }
            #expect(try await client.get("/arcgis/rest/services/nosuch/VectorTileServer/tile/0/0/0.pbf").status == 404)
        }
    }

    @Test func theStyleDrawsTheLayer() async throws {
        try await TestServer.withClient(try TestServer.make()) { client async throws in
            for path in ["\(Self.service)/resources/styles?f=json", "\(Self.service)/resources/styles/root.json"] {
                let style = try await client.get(path).object
                #expect(style["version"] as? Int == 8)
                let source = (style["sources"] as? [String: Any])?["esri"] as? [String: Any]
                #expect(source?["type"] as? String == "vector" && source?["url"] as? String == "../../")
                let layers = style["layers"] as? [[String: Any]] ?? []
                #expect(layers.map { $0["type"] as? String } == ["circle"])
                #expect(layers.first?["source-layer"] as? String == "cities")
            }
            let countries = try await client.get("/arcgis/rest/services/countries/VectorTileServer/resources/styles").object
            let layers = countries["layers"] as? [[String: Any]] ?? []
            #expect(layers.map { $0["type"] as? String } == ["fill", "line"])
            #expect(layers.allSatisfy { $0["source-layer"] as? String == "countries" })
        }
    }
}

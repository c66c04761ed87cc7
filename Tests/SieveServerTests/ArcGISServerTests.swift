import Foundation
import Testing
import SieveServer
import SieveTestSupport

/// The ArcGIS REST FeatureServer routes, in-process, against truths read from the fixtures
/// without GeoSieve.
@Suite(.tags(.network)) struct ArcGISServerTests {
    static let layer = "/arcgis/rest/services/cities/FeatureServer/0"

    @Test func directoryServiceAndLayerDescribeTheTables() async throws {
        let server = try TestServer.make()
        let truth = try Truth.features("naturalearth_lowres.geojson")
        let properties = (truth.first?["properties"] as? [String: Any])?.keys.sorted() ?? []
        // The extent is the countries' bounds, computed here from the coordinates.
        var xs: [Double] = []
        for feature in truth {
            let geometry = feature["geometry"] as? [String: Any]
            for polygon in geometry?["coordinates"] as? [[[[Double]]]] ?? [] {
                for ring in polygon { xs += ring.map { $0[0] } }
            }
        }
        let (west, east) = (xs.min(), xs.max())
        let featureCount = truth.count
        try await TestServer.withClient(server) { client async throws in
            let directory = try await client.get("/arcgis/rest/services?f=json").object
            let entries = directory["services"] as? [[String: Any]] ?? []
            // Each table is a feature service, a read-only map service and a vector tile service.
            for kind in ["FeatureServer", "MapServer", "VectorTileServer"] {
                let names = entries.filter { $0["type"] as? String == kind }.compactMap { $0["name"] as? String }
                #expect(names == ["cities", "countries", "boroughs"])
            }
            #expect(entries.count == 9)
            let mapLayer = try await client.get("/arcgis/rest/services/countries/MapServer/0?f=json").object
            #expect(mapLayer["capabilities"] as? String == "Map,Query,Data")
            #expect(mapLayer["allowGeometryUpdates"] as? Bool == false)
            let mapCount = try await client.get("/arcgis/rest/services/countries/MapServer/0/query?where=1%3D1&returnCountOnly=true&f=json").object
            #expect(mapCount["count"] as? Int == featureCount)

            let service = try await client.get("/arcgis/rest/services/countries/FeatureServer?f=json").object
            #expect(service["maxRecordCount"] as? Int == 2000)
            #expect(service["capabilities"] as? String == "Query")
            let layers = service["layers"] as? [[String: Any]]
            #expect(layers?.first?["geometryType"] as? String == "esriGeometryPolygon")

            let layer = try await client.get("/arcgis/rest/services/countries/FeatureServer/0?f=json").object
            let fields = (layer["fields"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(fields?.first == "OBJECTID")
            #expect(Set(fields ?? []) == Set(properties + ["OBJECTID"]))
            #expect(layer["objectIdField"] as? String == "OBJECTID")
            #expect(layer["type"] as? String == "Feature Layer")
            let advanced = layer["advancedQueryCapabilities"] as? [String: Any]
            #expect(advanced?["supportsPagination"] as? Bool == true)
            let renderer = (layer["drawingInfo"] as? [String: Any])?["renderer"] as? [String: Any]
            #expect(renderer?["type"] as? String == "simple")
            let extent = layer["extent"] as? [String: Any]
            #expect(extent?["xmin"] as? Double == west)
            #expect(extent?["xmax"] as? Double == east)

            // pjson indents the same document.
            let pretty = try await client.get("/arcgis/rest/services/countries/FeatureServer/0?f=pjson")
            #expect(pretty.text.contains("\n  \"currentVersion\": "))
            #expect(NSDictionary(dictionary: pretty.object) == NSDictionary(dictionary: layer))
        }
    }

    @Test func pagingFollowsExceededTransferLimitToEveryFeatureOnce() async throws {
        let server = try TestServer.make(ServerConfiguration(maxRecordCount: 50))
        let truth = try Truth.points("naturalearth_cities.geojson")
        try await TestServer.withClient(server) { client async throws in
            var names: [String] = []
            var ids: [Int] = []
            var offset = 0
            var pages = 0
            while true {
                let page = try await client.get("\(Self.layer)/query?where=1%3D1&outFields=*&f=json&resultOffset=\(offset)").object
                let features = page["features"] as? [[String: Any]] ?? []
                for feature in features {
                    let attributes = feature["attributes"] as? [String: Any] ?? [:]
                    names.append(attributes["name"] as? String ?? "")
                    ids.append(attributes["OBJECTID"] as? Int ?? -1)
                }
                pages += 1
                // Exactly the pages before the last carry the flag.
                let more = page["exceededTransferLimit"] as? Bool ?? false
                #expect(more == (offset + features.count < truth.count))
                #expect(features.count == Swift.min(50, truth.count - offset))
                offset += features.count
                if !more { break }
            }
            #expect(pages == 5)
            #expect(names == truth.map(\.name))
            #expect(ids == Array(1...truth.count))
            // A page size over the maximum is clamped to it.
            let big = try await client.get("\(Self.layer)/query?where=1%3D1&resultRecordCount=500").object
            #expect((big["features"] as? [Any])?.count == 50)
            // IDs are never paged.
            let allIDs = try await client.get("\(Self.layer)/query?where=1%3D1&returnIdsOnly=true").object
            #expect((allIDs["objectIds"] as? [Int])?.count == truth.count)
        }
    }

    @Test func whereGeometryAndCountAgreeWithTheFixture() async throws {
        let server = try TestServer.make()
        let truth = try Truth.points("naturalearth_cities.geojson")
        let inBox = truth.filter { $0.x >= 0 && $0.x <= 20 && $0.y >= 40 && $0.y <= 60 }
        try await TestServer.withClient(server) { client async throws in
            let count = try await client.get("\(Self.layer)/query?geometry=0,40,20,60&returnCountOnly=true&f=json").object
            #expect(count["count"] as? Int == inBox.count)
            // Esri JSON geometry, POST form body, where ANDed in.
            let envelope = encoded(#"{"xmin":0,"ymin":40,"xmax":20,"ymax":60,"spatialReference":{"wkid":4326}}"#)
            let posted = try await client.post(
                "\(Self.layer)/query",
                form: "where=\(encoded("name LIKE 'B%'"))&geometry=\(envelope)&geometryType=esriGeometryEnvelope&outFields=name&returnGeometry=false&f=json"
            ).object
            let names = (posted["features"] as? [[String: Any]])?.compactMap { ($0["attributes"] as? [String: Any])?["name"] as? String }
            let expected = inBox.map(\.name).filter { $0.hasPrefix("B") }
            #expect(names == expected)
            #expect(!(expected.isEmpty))
            #expect((posted["features"] as? [[String: Any]])?.first?["geometry"] == nil)
            // The extent of the box's cities, with their count.
            let extent = try await client.get("\(Self.layer)/query?geometry=0,40,20,60&returnExtentOnly=true&returnCountOnly=true").object
            let box = extent["extent"] as? [String: Any]
            #expect(extent["count"] as? Int == inBox.count)
            #expect(box?["xmin"] as? Double == inBox.map(\.x).min())
            #expect(box?["ymax"] as? Double == inBox.map(\.y).max())
        }
    }

    @Test func orderingStatisticsDistinctAndGeoJSON() async throws {
        let server = try TestServer.make()
        let file = "naturalearth_lowres.geojson"
        let names = try Truth.column(file, "name").map { $0 ?? "" }
        let populations = try Truth.column(file, "pop_est").map { Double($0 ?? "") ?? 0 }
        let expected = zip(names, populations).sorted { $0.1 > $1.1 }.prefix(3).map(\.0)
        let byContinent = Dictionary(grouping: try Truth.column(file, "continent"), by: { $0 ?? "" }).mapValues(\.count)
        try await TestServer.withClient(server) { client async throws in
            let base = "/arcgis/rest/services/countries/FeatureServer/0/query"
            let top = try await client.get("\(base)?where=1%3D1&outFields=name,pop_est&orderByFields=\(encoded("pop_est DESC"))&resultRecordCount=3&returnGeometry=false").object
            let topNames = (top["features"] as? [[String: Any]])?.compactMap { ($0["attributes"] as? [String: Any])?["name"] as? String }
            #expect(topNames == expected)
            #expect(top["exceededTransferLimit"] as? Bool == true)

            let statistics = encoded(#"[{"statisticType":"count","onStatisticField":"name","outStatisticFieldName":"n"}]"#)
            let grouped = try await client.get("\(base)?where=1%3D1&outStatistics=\(statistics)&groupByFieldsForStatistics=continent&orderByFields=continent").object
            let rows = (grouped["features"] as? [[String: Any]])?.compactMap { $0["attributes"] as? [String: Any] } ?? []
            #expect(rows.count == byContinent.count)
            for row in rows {
                #expect(row["n"] as? Int == byContinent[row["continent"] as? String ?? ""])
            }

            let distinct = try await client.get("\(base)?where=1%3D1&outFields=continent&returnDistinctValues=true&returnCountOnly=true").object
            #expect(distinct["count"] as? Int == byContinent.count)

            let geoJSON = try await client.get("\(base)?where=\(encoded("iso_a3 = 'FJI'"))&outFields=name&f=geojson")
            #expect(geoJSON.headers[.contentType] == "application/geo+json")
            let collection = geoJSON.object
            #expect(collection["type"] as? String == "FeatureCollection")
            let feature = (collection["features"] as? [[String: Any]])?.first
            #expect((feature?["properties"] as? [String: Any])?["name"] as? String == "Fiji")
            #expect((feature?["geometry"] as? [String: Any])?["type"] as? String == "MultiPolygon")
        }
    }

    @Test func errorsComeAsArcGISDoesWithTheReason() async throws {
        let server = try TestServer.make()
        try await TestServer.withClient(server) { client async throws in
            let badWhere = try await client.get("\(Self.layer)/query?where=\(encoded("name = "))")
            #expect(badWhere.status == 200)
            #expect(badWhere.arcGISErrorCode == 400)
            let details = (badWhere.object["error"] as? [String: Any])?["details"] as? [String]
            #expect(details?.first?.contains("where") == true)

            let unknownField = try await client.get("\(Self.layer)/query?where=1%3D1&outFields=nosuchfield")
            #expect(unknownField.arcGISErrorCode == 400)
            #expect(unknownField.text.contains("nosuchfield"))

            for query in ["returnGeometry=yes", "resultOffset=-1", "resultRecordCount=0", "f=html", "geometry=1,2,3", "outSR=999999",
                "spatialRel=esriSpatialRelNear", "distance=-10", "distance=5&units=esriSRUnit_Parsec", "objectIds=1,x", "returnIdsOnly=true&objectIds=1",
                "groupByFieldsForStatistics=name", "where=1%3D1&where=2%3D2"]
            {
                let reply = try await client.get("\(Self.layer)/query?\(query)")
                #expect(reply.arcGISErrorCode == 400, "\(query): \(reply.text.prefix(300))")
            }
            #expect(try await client.get("/arcgis/rest/services/nosuch/FeatureServer/0/query").arcGISErrorCode == 404)
            #expect(try await client.get("/arcgis/rest/services/cities/FeatureServer/1").arcGISErrorCode == 404)
            #expect(try await client.get("/arcgis/rest/services/cities/FeatureServer/0/nosuch").arcGISErrorCode == 404)
            // Nothing of the above changed the table.
            let count = try await client.get("\(Self.layer)/query?where=1%3D1&returnCountOnly=true").object
            #expect(count["count"] as? Int == 243)
        }
    }
}

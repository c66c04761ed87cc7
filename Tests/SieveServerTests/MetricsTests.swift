import Foundation
import Testing
import SieveServer
import SieveTestSupport

@testable import SieveServer

/// `GET /metrics` (``ServerConfiguration/metrics``): the Prometheus text format, with counts
/// worked out from the requests each test sends.
@Suite(.tags(.network)) struct MetricsTests {
    /// The value of the sample `name` whose labels include every pair of `labels`.
    static func sample(_ text: String, _ name: String, _ labels: [String: String] = [:]) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + "{") || line.hasPrefix(name + " ") {
            let head = line.prefix { $0 != " " }
            guard labels.allSatisfy({ head.contains("\($0.key)=\"\($0.value)\"") }) else { continue }
            return line.split(separator: " ").last.flatMap { Double($0) }
        }
        return nil
    }

    @Test func metricsCountRequestsFeaturesTilesAndRows() async throws {
        let server = try TestServer.make(ServerConfiguration(metrics: true))
        let cities = try Truth.features("naturalearth_cities.geojson").count
        let query = "/arcgis/rest/services/cities/FeatureServer/0/query"
        try await TestServer.withClient(server) { client async throws in
            #expect(try await client.get("\(query)?where=1%3D1&returnCountOnly=true&f=json").status == 200)
            #expect(try await client.get("\(query)?where=1%3D1&outFields=*&resultRecordCount=5&orderByFields=OBJECTID&f=json").status == 200)
            #expect(try await client.get("\(query)?where=1%3D1&outFields=*&resultRecordCount=4&f=pbf").status == 200)
            #expect(try await client.get("/ogc/collections/cities/items?limit=3").status == 200)
            #expect(try await client.get("/ogc/collections/cities/items/1").status == 200)
            for _ in 0..<2 { #expect(try await client.get("/ogc/collections/countries/tiles/WebMercatorQuad/0/0/0").status == 200) }
            #expect(try await client.get("/no/such/route").status == 404)
            let reply = try await client.get("/metrics")
            #expect(reply.status == 200)
            #expect(reply.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
            let text = reply.text
            let queryRoute = "/arcgis/rest/services/{service}/FeatureServer/{layer}/query"
            #expect(Self.sample(text, "geosieve_http_requests_total", ["route": queryRoute, "method": "GET", "status": "200"]) == 3)
            #expect(Self.sample(text, "geosieve_http_request_duration_seconds_count", ["route": queryRoute]) == 3)
            #expect(Self.sample(text, "geosieve_http_requests_total", ["route": "/ogc/collections/{collection}/items/{feature}"]) == 1)
            #expect(Self.sample(text, "geosieve_http_requests_total", ["route": "/ogc/collections/{collection}/tiles/{tileMatrixSet}/{z}/{y}/{x}"]) == 2)
            #expect(Self.sample(text, "geosieve_http_requests_total", ["route": "unmatched", "status": "404"]) == 1)
            // 5 + 4 (PBF) + 3 + 1 features; the count answer served none.
            #expect(Self.sample(text, "geosieve_features_served_total", ["table": "cities"]) == 13)
            #expect(Self.sample(text, "geosieve_tiles_served_total", ["table": "countries", "cache": "miss"]) == 1)
            #expect(Self.sample(text, "geosieve_tiles_served_total", ["table": "countries", "cache": "hit"]) == 1)
            #expect(Self.sample(text, "geosieve_table_rows", ["table": "cities"]) == Double(cities))
            #expect(text.contains("# TYPE geosieve_http_request_duration_seconds histogram"))
            // The request for /metrics counts once it is answered.
            let again = try await client.get("/metrics").text
            #expect(Self.sample(again, "geosieve_http_requests_total", ["route": "/metrics"]) == 1)
        }
    }

    @Test func metricsAreOffUnlessAsked() async throws {
        try await TestServer.withClient(try TestServer.make()) { client async throws in
            #expect(try await client.get("/metrics").status == 404)
        }
    }

    @Test func metricsNeedTheTokenWhenReadsDo() async throws {
        let server = try TestServer.make(ServerConfiguration(token: "s3cret", tokenRequiredForRead: true, metrics: true))
        try await TestServer.withClient(server) { client async throws in
            #expect(try await client.get("/metrics").status != 200)
            #expect(try await client.get("/metrics?token=s3cret").status == 200)
            #expect(try await client.get("/metrics", headers: [.authorization: "Bearer s3cret"]).status == 200)
        }
    }

    /// Routes are named by their templates; a path of other words is `other`, so that what a
    /// client sends never makes a series of its own.
    @Test func routesAreTheirTemplates() {
        let cases = [
            ("/arcgis/rest/services", "/arcgis/rest/services"),
            ("/arcgis/rest/services/cities/MapServer/0/query", "/arcgis/rest/services/{service}/MapServer/{layer}/query"),
            ("/arcgis/rest/services/x/FeatureServer/abc", "/arcgis/rest/services/{service}/FeatureServer/{layer}"),
            ("/arcgis/rest/services/x/FeatureServer/0/17/attachments/3", "/arcgis/rest/services/{service}/FeatureServer/{layer}/{n}/attachments/{attachment}"),
            ("/ogc/collections/c/items/42", "/ogc/collections/{collection}/items/{feature}"),
            ("/ogc/collections/c/tiles/WebMercatorQuad", "/ogc/collections/{collection}/tiles/{tileMatrixSet}"),
            ("/ogc/collections/c/tiles/WebMercatorQuad/3/2/1", "/ogc/collections/{collection}/tiles/{tileMatrixSet}/{z}/{y}/{x}"),
            ("/ogc/tileMatrixSets/WebMercatorQuad", "/ogc/tileMatrixSets/{tileMatrixSet}"),
            ("/ogc/collections/c/<script>", "other"),
            ("/" + String(repeating: "a/", count: 20), "other"),
        ]
        for (path, route) in cases { #expect(ServerMetrics.route(path) == route, "\(path)") }
    }
}

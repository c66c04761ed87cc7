import Foundation
import Logging
import SieveFeatures
import SieveServer
import Testing

@testable import SieveService

/// The client against GeoSieve's own server on a loopback socket: its ArcGIS error documents
/// (HTTP 200), OGC exceptions and token checks come back as the client's typed errors.
@Suite("Service client against geosieve serve")
struct OwnServerTests {
    /// Runs `body` with the base URL of a server of the cities fixture, token `t0k`.
    static func withServer(_ body: @Sendable (String) async throws -> Void) async throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/naturalearth_cities.geojson")
        let table = try EditableFeatureTable(FeatureTable.load(contentsOf: url))
        let catalog = try ServedCatalog([ServedTable(id: "cities", table: table)])
        let server = try GeoSieveServer(
            catalog: catalog, configuration: ServerConfiguration(port: 0, token: "t0k", tokenRequiredForRead: true))
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let logger = {
            var logger = Logger(label: "own-server")
            logger.logLevel = .critical
            return logger
        }()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run(logger: logger) { continuation.yield($0) } }
            var ports = stream.makeAsyncIterator()
            guard let port = await ports.next() else { throw CancellationError() }
            try await body("http://127.0.0.1:\(port)")
            group.cancelAll()
        }
    }

    @Test func errorsAndTokens() async throws {
        try await Self.withServer { base in
            let layer = base + "/arcgis/rest/services/cities/FeatureServer/0"
            var configuration = ServiceClient.Configuration(token: "t0k")
            configuration.sleep = { _ in }
            let client = ServiceClient(configuration: configuration)
            // A query sent as a POST form (idempotent), with the token in the form and header.
            let count = try await client.send(ServiceRequest(
                url: layer + "/query", parameters: [("where", "1=1"), ("returnCountOnly", "true"), ("f", "json")],
                method: .post, idempotent: true))
            #expect(try count.json()["count"]?.doubleValue == 243)
            // A bad where clause: ArcGIS's error document in an HTTP 200, the message kept.
            let bad = await ServiceClientTests.error {
                _ = try await client.send(ServiceRequest(url: layer + "/query", parameters: [("where", "nosuchfield = 1"), ("f", "json")]))
            }
            #expect(bad?.kind == .serviceError)
            #expect(bad?.status == 400)
            #expect(bad?.attempts == 1)
            #expect(bad?.url.contains("where=nosuchfield%20%3D%201") == true)
            #expect(bad?.url.contains("t0k") == false)
            // OGC API: an unknown collection is a 404 exception.
            let missing = await ServiceClientTests.error { _ = try await client.send(ServiceRequest(url: base + "/ogc/collections/nowhere")) }
            #expect(missing?.kind == .serviceError)
            #expect(missing?.status == 404)
            try await client.shutdown()
            // Without the token: ArcGIS's 499, not retried.
            let anonymous = ServiceClient(configuration: ServiceClientTests.configuration())
            let refused = await ServiceClientTests.error { _ = try await anonymous.send(ServiceRequest(url: layer, parameters: [("f", "json")])) }
            #expect(refused?.kind == .serviceError)
            #expect(refused?.status == 499)
            try await anonymous.shutdown()
        }
    }
}

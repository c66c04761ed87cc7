import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveServer

/// The folder `Tests/Fixtures` of this package, found from this source file's location.
let fixturesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

/// One answer of the server, with its body parsed as JSON when it is JSON.
struct Reply: Sendable {
    var status: Int
    var headers: HTTPFields
    var text: String
    /// The body as sent.
    var bytes: [UInt8] = []

    /// The body as a JSON object (empty when it is not one).
    var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// The ArcGIS error code of the body, `nil` when it is no error.
    var arcGISErrorCode: Int? { (object["error"] as? [String: Any])?["code"] as? Int }
}

/// The fixtures read independently of GeoSieve: the GeoJSON file's features, as JSON.
enum Truth {
    static func features(_ name: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: fixturesDirectory.appendingPathComponent(name))
        let root = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return root?["features"] as? [[String: Any]] ?? []
    }

    /// The longitude, latitude and `name` property of each point feature of `file`, in file order.
    static func points(_ file: String) throws -> [(x: Double, y: Double, name: String)] {
        try features(file).map { feature in
            let geometry = feature["geometry"] as? [String: Any]
            let coordinates = geometry?["coordinates"] as? [Double] ?? []
            let name = (feature["properties"] as? [String: Any])?["name"] as? String ?? ""
            return (coordinates.first ?? .nan, coordinates.last ?? .nan, name)
        }
    }

    /// The property `key` of each feature of `file`, as text (`nil` when absent or null).
    static func column(_ file: String, _ key: String) throws -> [String?] {
        try features(file).map { feature in
            switch (feature["properties"] as? [String: Any])?[key] {
            case let text as String: text
            case let number as NSNumber: number.stringValue
            default: nil
            }
        }
    }
}

/// Servers over the fixtures, and requests to them without sockets (Hummingbird's router test
/// mode).
enum TestServer {
    /// A server of the cities (as `cities`), countries (`countries`) and boroughs (`boroughs`)
    /// fixtures, and of `extra` tables.
    static func make(
        _ configuration: ServerConfiguration = ServerConfiguration(), extra: [ServedTable] = []
    ) throws -> GeoSieveServer {
        var tables: [ServedTable] = []
        for (file, id) in [("naturalearth_cities.geojson", "cities"), ("naturalearth_lowres.geojson", "countries"), ("nybb.geojson", "boroughs")] {
            let table = try FeatureTable.load(contentsOf: fixturesDirectory.appendingPathComponent(file))
            tables.append(try ServedTable(id: id, table: EditableFeatureTable(table)))
        }
        return try GeoSieveServer(catalog: ServedCatalog(tables + extra), configuration: configuration)
    }

    /// An editable table of one point feature (`name` "a" at 1, 1) and an editing server of it
    /// as `id`.
    static func editablePoint(_ id: String) throws -> (table: EditableFeatureTable, server: GeoSieveServer) {
        let table = try EditableFeatureTable(
            FeatureTable.load(
                geoJSON: #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"a"},"geometry":{"type":"Point","coordinates":[1,1]}}]}"#
            ))
        let server = try GeoSieveServer(
            catalog: ServedCatalog([ServedTable(id: id, table: table)]), configuration: ServerConfiguration(allowEdits: true))
        return (table, server)
    }

    /// A served table loaded from GeoJSON text.
    static func table(_ id: String, geoJSON: String) throws -> ServedTable {
        try ServedTable(id: id, table: EditableFeatureTable(FeatureTable.load(json: Array(geoJSON.utf8))))
    }

    /// Runs `body` with a client of `server`'s routes.
    static func withClient(_ server: GeoSieveServer, _ body: @Sendable (Client) async throws -> Void) async throws {
        let app = Application(router: server.router())
        try await app.test(.router) { client in try await body(Client(client: client)) }
    }

    /// A client sending requests and collecting the replies.
    struct Client: Sendable {
        let client: any TestClientProtocol

        func get(_ uri: String, headers: HTTPFields = [:]) async throws -> Reply {
            try await send(uri, method: .get, headers: headers)
        }

        /// A form POST of `form` (already encoded).
        func post(_ uri: String, form: String, headers: HTTPFields = [:]) async throws -> Reply {
            var fields = headers
            fields[.contentType] = "application/x-www-form-urlencoded"
            return try await send(uri, method: .post, headers: fields, body: form)
        }

        func send(_ uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: String? = nil) async throws -> Reply {
            let response = try await client.executeRequest(
                uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
            return Reply(
                status: Int(response.status.code), headers: response.headers, text: String(buffer: response.body),
                bytes: Array(response.body.readableBytesView))
        }
    }
}

/// `text` percent-encoded for a query string.
func encoded(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
}

import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveJSON

/// An answer of the service, independent of the HTTP library: status, media type, extra
/// headers and the body bytes.
public struct ServiceResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// The `Content-Type`.
    public var contentType: String
    /// Further headers (name, value).
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]
    /// What the answer served, for ``ServerMetrics``.
    var served: Served?

    /// The table an answer served, its features, and for a tile whether the tile cache held it.
    struct Served: Sendable {
        var table: String
        var features: Int
        var tileFromCache: Bool?
    }

    /// A response of `status` carrying `body` as `contentType`.
    public init(status: Int = 200, contentType: String, headers: [(name: String, value: String)] = [], body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    /// The media type of JSON documents.
    public static let jsonType = "application/json; charset=utf-8"
    /// The media type of GeoJSON documents.
    public static let geoJSONType = "application/geo+json"
    /// The media type of protocol buffer answers (`f=pbf`), as ArcGIS sends them.
    public static let protobufType = "application/x-protobuf"

    /// `value` as a compact JSON document (`pretty`: indented, as ArcGIS `f=pjson`).
    static func json(_ value: JSONValue, pretty: Bool = false, contentType: String = jsonType) -> ServiceResponse {
        var bytes: [UInt8] = []
        JSONLayout(pretty: pretty, coordinates: .shortest).write(value, depth: 0, numbers: .plain, into: &bytes)
        return ServiceResponse(contentType: contentType, body: bytes)
    }

    /// `text` (a JSON document) as the body.
    static func json(text: String, contentType: String = jsonType) -> ServiceResponse {
        ServiceResponse(contentType: contentType, body: Array(text.utf8))
    }

    /// This answer, saying it served `features` features (and a tile, when `tileFromCache` is
    /// given) of `table`.
    func serving(_ table: String, features: Int, tileFromCache: Bool? = nil) -> ServiceResponse {
        var response = self
        response.served = Served(table: table, features: features, tileFromCache: tileFromCache)
        return response
    }

    /// The body as text (for tests and logs).
    public var text: String { String(decoding: body, as: UTF8.self) }
}

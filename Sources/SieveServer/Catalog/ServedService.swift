import SieveEditing

/// One ArcGIS service the server publishes: a FeatureServer (with its MapServer and, when a
/// layer has geometries, its VectorTileServer) at `/arcgis/rest/services/{name}` holding one or
/// more layers, each also an OGC API collection.
///
/// What a service sets overrides the server's ``ServerConfiguration`` for its layers: the most
/// features a request returns, the token its edits (and, with
/// ``ServerConfiguration/tokenRequiredForRead``, its reads) need, the origin browsers may call
/// it from. Its capabilities are those of its layers' tables
/// (``/SieveEditing/EditingOptions/capabilities``), and edits still need the server's
/// ``ServerConfiguration/allowEdits``.
public struct ServedService: Sendable {
    /// The service name: letters, digits, `_`, `-` and `.`, at most 128.
    public let name: String
    /// The service description (`serviceDescription`); empty for the first layer's.
    public var description: String
    /// The copyright text (`copyrightText`).
    public var copyright: String
    /// The most features one request returns from this service's layers (their
    /// `maxRecordCount`, and the largest OGC API page); `nil` for the server's.
    public var maxRecordCount: Int?
    /// The token this service's edits need (and reads, with
    /// ``ServerConfiguration/tokenRequiredForRead``) instead of the server's; `nil` for the
    /// server's.
    public var token: String?
    /// The origin browsers may call this service from (`*` for any) instead of the server's;
    /// `nil` for the server's.
    public var corsOrigin: String?
    /// The layers and tables, in the order given, with distinct layer IDs.
    public internal(set) var layers: [ServedTable]

    /// The service with every layer's edits made as `user` (``ServedTable/acting(as:)``).
    public func acting(as user: String?) -> ServedService {
        var copy = self
        copy.layers = layers.map { $0.acting(as: user) }
        return copy
    }

    /// A service named `name` of `layers`.
    /// - Throws: ``ServerRequestError`` (bad request) for a name that cannot name a service, no
    ///   layer, two layers with one ID, an empty token, or a record count out of 1…1000000.
    public init(
        name: String, description: String = "", copyright: String = "", maxRecordCount: Int? = nil, token: String? = nil,
        corsOrigin: String? = nil, layers: [ServedTable]
    ) throws(ServerRequestError) {
        guard ServedTable.isValidID(name) else {
            throw ServerRequestError(
                .badRequest, "\(RequestParameters.quoted(name)) is not a usable service name: use 1 to 128 letters, digits, '_', '-' or '.'")
        }
        guard !layers.isEmpty else { throw ServerRequestError(.badRequest, "the service \(RequestParameters.quoted(name)) has no layer") }
        var seen = Set<Int>()
        for layer in layers where !seen.insert(layer.layerID).inserted {
            throw ServerRequestError(.badRequest, "the service \(RequestParameters.quoted(name)) has two layers with ID \(layer.layerID)")
        }
        if let maxRecordCount, !(1...1_000_000).contains(maxRecordCount) {
            throw ServerRequestError(.badRequest, "the max record count must be 1 to 1000000, not \(maxRecordCount)")
        }
        if token?.isEmpty == true { throw ServerRequestError(.badRequest, "the token must not be empty") }
        self.name = name
        self.description = description
        self.copyright = copyright
        self.maxRecordCount = maxRecordCount
        self.token = token
        self.corsOrigin = corsOrigin
        self.layers = layers.map { layer in
            var layer = layer
            layer.serviceName = name
            return layer
        }
    }

    /// The layer with ID `id`.
    /// - Throws: ``ServerRequestError`` (not found) naming the IDs there are.
    public func layer(_ id: String) throws(ServerRequestError) -> ServedTable {
        guard let number = Int(id), let layer = layers.first(where: { $0.layerID == number }) else {
            let ids = layers.map { String($0.layerID) }.joined(separator: ", ")
            throw ServerRequestError(
                .notFound, "layer \(RequestParameters.quoted(id)) does not exist: the service has layer\(layers.count == 1 ? "" : "s") \(ids)")
        }
        return layer
    }

    /// The server's configuration as this service changes it: its record count, token and
    /// origin in place of the server's.
    public func configuration(_ server: ServerConfiguration) -> ServerConfiguration {
        var configuration = server
        if let maxRecordCount { configuration.maxRecordCount = maxRecordCount }
        if let token { configuration.token = token }
        if let corsOrigin { configuration.corsOrigin = corsOrigin }
        return configuration
    }

    /// Whether any layer's table allows edits (Create, Update or Delete).
    public var allowsEditing: Bool { layers.contains { $0.capabilities.allowsEditing } }
}

/// The services a server publishes, by name, and their layers, by OGC API collection id, in
/// the order given.
public struct ServedCatalog: Sendable {
    /// The services, in the order given.
    public let services: [ServedService]
    /// Every layer of every service, in order: the OGC API collections.
    public let tables: [ServedTable]
    private let serviceIndex: [String: Int]
    private let tableIndex: [String: (service: Int, layer: Int)]

    /// A catalog of `services`.
    /// - Throws: ``ServerRequestError`` (bad request) when two services share a name, two layers
    ///   share a collection id, or there is no service.
    public init(services: [ServedService]) throws(ServerRequestError) {
        guard !services.isEmpty else { throw ServerRequestError(.badRequest, "no table to serve") }
        var serviceIndex: [String: Int] = [:]
        var tableIndex: [String: (service: Int, layer: Int)] = [:]
        for (s, service) in services.enumerated() {
            if serviceIndex[service.name] != nil {
                throw ServerRequestError(
                    .badRequest, "two services are named \(RequestParameters.quoted(service.name)): name them apart with SOURCE:NAME")
            }
            serviceIndex[service.name] = s
            for (l, layer) in service.layers.enumerated() {
                if tableIndex[layer.id] != nil {
                    throw ServerRequestError(.badRequest, "two layers have the collection id \(RequestParameters.quoted(layer.id))")
                }
                tableIndex[layer.id] = (s, l)
            }
        }
        self.services = services
        tables = services.flatMap(\.layers)
        self.serviceIndex = serviceIndex
        self.tableIndex = tableIndex
    }

    /// A catalog with each table a service of its own, named as its id, the table its layer 0.
    /// - Throws: ``ServerRequestError`` (bad request) when two tables share an id, or none is given.
    public init(_ tables: [ServedTable]) throws(ServerRequestError) {
        try self.init(services: tables.map { table throws(ServerRequestError) in try ServedService(name: table.id, layers: [table]) })
    }

    /// The service named `name`.
    /// - Throws: ``ServerRequestError`` (not found) naming it.
    public func service(_ name: String) throws(ServerRequestError) -> ServedService {
        guard let index = serviceIndex[name] else {
            throw ServerRequestError(.notFound, "service \(RequestParameters.quoted(name)) does not exist")
        }
        return services[index]
    }

    /// The service `table` belongs to.
    public func service(of table: ServedTable) -> ServedService? {
        tableIndex[table.id].map { services[$0.service] }
    }

    /// The table (layer) whose collection id is `id`.
    /// - Throws: ``ServerRequestError`` (not found) naming it.
    public func table(_ id: String, what: String) throws(ServerRequestError) -> ServedTable {
        guard let index = tableIndex[id] else {
            throw ServerRequestError(.notFound, "\(what) \(RequestParameters.quoted(id)) does not exist")
        }
        return services[index.service].layers[index.layer]
    }
}

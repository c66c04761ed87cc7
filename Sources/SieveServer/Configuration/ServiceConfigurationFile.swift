import Foundation
import SieveEditing
import SieveFeatures
import SieveFormats
import SieveGeometry
import SieveJSON
import SieveMap
import SieveSQL
import Yams

/// A service configuration file of `geosieve serve --config`: the server's settings, and the
/// services with their layers, each configured once and honoured by every answer.
///
/// The file is YAML. Every key is checked (an unknown key is an error naming the closest
/// known one), every value has its type, and every error says the file, line, column and key
/// (``ConfigurationError``). Paths (sources, renderer files) are relative to the file's folder.
///
/// ```yaml
/// server:                       # optional: what the command-line flags also set
///   port: 8080
///   allowEdits: true
///   users:                      # editing users and their tokens (editor tracking, ownership)
///     ann: t0ken-of-ann
/// services:
///   world:                      # the service name: /arcgis/rest/services/world/FeatureServer
///     description: Natural Earth countries and cities
///     copyright: Natural Earth (public domain)
///     capabilities: Query,Create,Update,Delete,Editing
///     maxRecordCount: 1000
///     token: s3cret             # this service's edits need it
///     cors: https://maps.example.com
///     layers:
///       - source: countries.geojson
///         id: 0
///         name: Countries
///         definitionExpression: POP_EST > 1000000
///         minScale: 150000000
///         displayField: NAME
///         renderer: countries-renderer.json
///         transparency: 25
///       - source: cities.geojson
///         id: 1
///         collection: cities
///         defaultVisibility: false
///         timeInfo: {startTimeField: FOUNDED}
///         editorTracking: {creatorField: CREATED_BY, ownershipBasedAccessControl: true, allowOthersToUpdate: false}
/// ```
///
/// | layer key | meaning |
/// |---|---|
/// | `source` | what `geosieve` opens: a file, `FILE.gpkg:LAYER`, a `postgresql://` table, a service URL (required) |
/// | `id` | the ArcGIS layer ID (default: its place in the list, from 0) |
/// | `name` | the layer name and collection title (default: the source's) |
/// | `collection` | the OGC API collection id (default: the service name for a service of one layer, else `SERVICE_ID`) |
/// | `description` | the layer's description |
/// | `definitionExpression` | a where clause every answer and edit of the layer is held to |
/// | `minScale`, `maxScale` | the scale range (0 for no bound) |
/// | `defaultVisibility` | whether clients show the layer at first (default `true`) |
/// | `displayField` | the field that labels features |
/// | `drawingInfo` | an ArcGIS `drawingInfo` (renderer, transparency), written in YAML or JSON |
/// | `renderer` | a file holding a `drawingInfo` or a renderer, in ArcGIS JSON |
/// | `transparency` | 0 (opaque) to 100 |
/// | `timeInfo` | `startTimeField` and optional `endTimeField`: the layer is time-aware |
/// | `hiddenFields` | fields clients never see (ArcGIS field visibility): a list, or names separated by commas |
/// | `typeIdField`, `types`, `templates` | the layer's feature types and templates, as in an ArcGIS layer document (YAML or JSON) |
/// | `editorTracking` | `creatorField`, `creationDateField`, `editorField`, `editDateField`, `ownershipBasedAccessControl`, `allowOthersToUpdate`, `allowOthersToDelete`, `allowOthersToQuery`, `allowAnonymousToUpdate`, `allowAnonymousToDelete` |
public struct ServiceConfigurationFile: Sendable {
    /// The file, as given.
    public let path: String
    /// The `server` section.
    public var server: ServerSettings
    /// The services, in the file's order.
    public var services: [ServiceSpec]

    /// What the `server` section sets; `nil` for what it leaves to the flags' defaults.
    public struct ServerSettings: Sendable, Hashable {
        public var host: String?
        public var port: Int?
        public var allowEdits: Bool?
        public var maxRecordCount: Int?
        public var token: String?
        public var tokenRequiredForRead: Bool?
        public var corsOrigin: String?
        public var title: String?
        public var metrics: Bool?
        public var compression: Bool?
        public var queryTimeout: Double?
        public var arcgisVersion: ArcGISVersion?
        /// The editing users and their tokens (``ServerConfiguration/users``).
        public var users: [String: String]?

        /// `configuration` with what the section sets.
        public func applied(to configuration: ServerConfiguration) -> ServerConfiguration {
            var result = configuration
            if let host { result.host = host }
            if let port { result.port = port }
            if let allowEdits { result.allowEdits = allowEdits }
            if let maxRecordCount { result.maxRecordCount = maxRecordCount }
            if let token { result.token = token }
            if let tokenRequiredForRead { result.tokenRequiredForRead = tokenRequiredForRead }
            if let corsOrigin { result.corsOrigin = corsOrigin }
            if let title { result.title = title }
            if let metrics { result.metrics = metrics }
            if let compression { result.compression = compression }
            if let users { result.users = users }
            if let queryTimeout { result.queryTimeout = queryTimeout == 0 ? nil : queryTimeout }
            if let arcgisVersion { result.arcgisVersion = arcgisVersion }
            return result
        }
    }

    /// One service of the file.
    public struct ServiceSpec: Sendable {
        public var name: String
        public var description = ""
        public var copyright = ""
        /// What the service's layers allow; `nil` for everything (edits still need the
        /// server's `allowEdits`).
        public var capabilities: TableCapabilities?
        public var maxRecordCount: Int?
        public var token: String?
        public var corsOrigin: String?
        public var layers: [LayerSpec] = []
        /// Where the service is written, for errors.
        var at: Place
    }

    /// One layer of a service.
    public struct LayerSpec: Sendable {
        /// The source, its path resolved against the file's folder.
        public var source: String
        public var id: Int
        public var name: String?
        public var collection: String?
        public var description = ""
        public var definitionExpression = ""
        public var minScale = 0.0
        public var maxScale = 0.0
        public var defaultVisibility = true
        public var displayField: String?
        public var drawingInfo: DrawingInfo?
        public var transparency: Double?
        public var timeFields: (start: String, end: String?)?
        public var editorTracking: EditorTracking?
        public var hiddenFields: [String] = []
        /// `typeIdField`, `types` and `templates` as an ArcGIS layer JSON object; `nil` for none.
        public var typesJSON: String?
        /// Where each key is written, for errors found once the source is open.
        var places: [String: Place] = [:]
        var at: Place

        /// Where `key` is written (the layer when it is not).
        func place(_ key: String) -> Place { places[key] ?? at }
    }

    /// A position in the file.
    struct Place: Sendable {
        var key: String
        var line: Int?
        var column: Int?

        init(_ node: ConfigurationNode) {
            key = node.key
            line = node.node.mark?.line
            column = node.node.mark?.column
        }

        func error(_ file: String, _ message: String) -> ConfigurationError {
            ConfigurationError(file: file, line: line, column: column, key: key, message)
        }
    }

    /// The largest file read: 1 MiB.
    public static let maximumBytes = 1 << 20

    /// Reads the file at `path`.
    /// - Throws: ``ConfigurationError`` naming the file (and where in it) when it cannot be
    ///   read, is not YAML, or is not a valid configuration.
    public static func load(path: String) throws(ConfigurationError) -> ServiceConfigurationFile {
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            if let size = attributes[.size] as? Int, size > maximumBytes {
                throw ConfigurationError(file: path, key: "", "the file is over \(maximumBytes) bytes")
            }
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(file: path, key: "", "cannot be read: \(error.localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw ConfigurationError(file: path, key: "", "is not UTF-8 text") }
        return try parse(text, path: path)
    }

    /// Reads configuration `text`, written in the file `path` (which names it in errors and
    /// whose folder relative paths start from).
    /// - Throws: ``ConfigurationError``.
    public static func parse(_ text: String, path: String) throws(ConfigurationError) -> ServiceConfigurationFile {
        guard text.utf8.count <= maximumBytes else { throw ConfigurationError(file: path, key: "", "the file is over \(maximumBytes) bytes") }
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else { throw ConfigurationError(file: path, key: "", "the file is empty") }
            root = node
        } catch let error as ConfigurationError {
            throw error
        } catch let error as YamlError {
            throw yamlError(error, file: path)
        } catch {
            throw ConfigurationError(file: path, key: "", "is not YAML: \(error)")
        }
        let folder = (path as NSString).deletingLastPathComponent
        let top = ConfigurationNode(node: root, key: "", file: path)
        var file = ServiceConfigurationFile(path: path, server: ServerSettings(), services: [])
        var sawServices = false
        for (name, value) in try top.members(allowed: ["server", "services"], what: "the file") {
            switch name {
            case "server": file.server = try serverSettings(value)
            default:
                sawServices = true
                for (serviceName, service) in try value.members(allowed: [], anyKey: true, what: "services") {
                    file.services.append(try serviceSpec(serviceName, service, folder: folder))
                }
            }
        }
        guard sawServices, !file.services.isEmpty else {
            throw ConfigurationError(file: path, line: root.mark?.line, column: root.mark?.column, key: "services", "the file serves no service: add services")
        }
        return file
    }

    /// A YAML syntax error with its position.
    private static func yamlError(_ error: YamlError, file: String) -> ConfigurationError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let detail = context.map { "\($0.text) " } ?? ""
            return ConfigurationError(file: file, line: mark.line, column: mark.column, key: "", "is not valid YAML: \(detail)\(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ConfigurationError(
                file: file, line: context.mark.line, column: context.mark.column, key: "",
                "the mapping starting here has the key\(duplicates.count == 1 ? "" : "s") \(duplicates.map { JSONKey.quoted($0) }.joined(separator: ", ")) more than once")
        default:
            return ConfigurationError(file: file, key: "", "is not valid YAML: \(error)")
        }
    }

    private static func serverSettings(_ node: ConfigurationNode) throws(ConfigurationError) -> ServerSettings {
        var settings = ServerSettings()
        let keys = [
            "host", "port", "allowEdits", "maxRecordCount", "token", "tokenRequiredForRead", "cors", "title", "metrics", "compression",
            "queryTimeout", "arcgisVersion", "users",
        ]
        for (name, value) in try node.members(allowed: keys, what: "server") {
            switch name {
            case "host": settings.host = try value.string()
            case "port": settings.port = try value.int(in: 0...65535)
            case "allowEdits": settings.allowEdits = try value.bool()
            case "maxRecordCount": settings.maxRecordCount = try value.int(in: 1...1_000_000)
            case "token": settings.token = try nonEmpty(value)
            case "tokenRequiredForRead": settings.tokenRequiredForRead = try value.bool()
            case "cors": settings.corsOrigin = try nonEmpty(value)
            case "title": settings.title = try value.string()
            case "metrics": settings.metrics = try value.bool()
            case "compression": settings.compression = try value.bool()
            case "queryTimeout": settings.queryTimeout = try value.double(in: 0...86_400)
            case "users":
                var users: [String: String] = [:]
                var tokens: Set<String> = []
                for (user, token) in try value.members(allowed: [], anyKey: true, what: "users") {
                    let text = try nonEmpty(token)
                    guard tokens.insert(text).inserted else { throw token.error("two users have this token: each user's must be their own") }
                    users[user] = text
                }
                settings.users = users
            default:
                let text = try value.string()
                guard let version = ArcGISVersion(rawValue: text) else { throw value.error("must be 11.1 or 11.2, not \(JSONKey.quoted(text))") }
                settings.arcgisVersion = version
            }
        }
        return settings
    }

    private static func serviceSpec(_ name: String, _ node: ConfigurationNode, folder: String) throws(ConfigurationError) -> ServiceSpec {
        guard ServedTable.isValidID(name) else {
            throw node.error("\(JSONKey.quoted(name)) is not a usable service name: use 1 to 128 letters, digits, '_', '-' or '.'")
        }
        var spec = ServiceSpec(name: name, at: Place(node))
        var sawLayers = false
        let keys = ["description", "copyright", "capabilities", "maxRecordCount", "token", "cors", "layers"]
        for (key, value) in try node.members(allowed: keys, what: "a service") {
            switch key {
            case "description": spec.description = try value.string()
            case "copyright": spec.copyright = try value.string()
            case "capabilities":
                let names = try value.strings()
                let known = ["Query", "Create", "Update", "Delete", "Editing"]
                for item in names where !known.contains(where: { $0.lowercased() == item.lowercased() }) {
                    throw value.error("unknown capability \(JSONKey.quoted(item))\(WhereClauseError.didYouMean(item, among: known)): use \(known.joined(separator: ", "))")
                }
                guard names.contains(where: { $0.lowercased() == "query" }) else { throw value.error("the capabilities must include Query") }
                spec.capabilities = TableCapabilities(esriString: names.joined(separator: ","))
            case "maxRecordCount": spec.maxRecordCount = try value.int(in: 1...1_000_000)
            case "token": spec.token = try nonEmpty(value)
            case "cors": spec.corsOrigin = try nonEmpty(value)
            default:
                sawLayers = true
                for (i, item) in try value.items(what: "layers").enumerated() {
                    spec.layers.append(try layerSpec(item, index: i, folder: folder))
                }
            }
        }
        guard sawLayers, !spec.layers.isEmpty else { throw node.error("the service has no layer: add layers") }
        var ids = Set<Int>()
        for layer in spec.layers where !ids.insert(layer.id).inserted {
            throw layer.place("id").error(node.file, "two layers of the service have ID \(layer.id)")
        }
        return spec
    }

    private static func layerSpec(_ node: ConfigurationNode, index: Int, folder: String) throws(ConfigurationError) -> LayerSpec {
        let keys = [
            "source", "id", "name", "collection", "description", "definitionExpression", "minScale", "maxScale", "defaultVisibility",
            "displayField", "drawingInfo", "renderer", "transparency", "timeInfo", "editorTracking", "hiddenFields", "typeIdField", "types",
            "templates",
        ]
        let members = try node.members(allowed: keys, what: "a layer")
        var types = JSONObject()
        guard let source = members.first(where: { $0.name == "source" })?.value else { throw node.error("the layer has no source") }
        var spec = LayerSpec(source: resolve(try source.string(), folder: folder), id: index, at: Place(node))
        for (key, value) in members {
            spec.places[key] = Place(value)
            switch key {
            case "source": break
            case "id": spec.id = try value.int(in: 0...1_000_000)
            case "name": spec.name = try value.string()
            case "collection":
                let id = try value.string()
                guard ServedTable.isValidID(id) else {
                    throw value.error("\(JSONKey.quoted(id)) is not a usable collection id: use 1 to 128 letters, digits, '_', '-' or '.'")
                }
                spec.collection = id
            case "description": spec.description = try value.string()
            case "definitionExpression": spec.definitionExpression = value.isNull ? "" : try value.string()
            case "minScale": spec.minScale = try value.double(in: 0...1e15)
            case "maxScale": spec.maxScale = try value.double(in: 0...1e15)
            case "defaultVisibility": spec.defaultVisibility = try value.bool()
            case "displayField": spec.displayField = try value.string()
            case "transparency": spec.transparency = try value.double(in: 0...100)
            case "drawingInfo", "renderer":
                guard spec.drawingInfo == nil else { throw value.error("give drawingInfo or renderer, not both") }
                spec.drawingInfo = try drawingInfo(value, file: key == "renderer", folder: folder)
            case "timeInfo":
                var start: String?
                var end: String?
                for (name, field) in try value.members(allowed: ["startTimeField", "endTimeField"], what: "timeInfo") {
                    if name == "startTimeField" { start = try field.string() } else { end = field.isNull ? nil : try field.string() }
                }
                guard let start else { throw value.error("timeInfo needs startTimeField") }
                spec.timeFields = (start, end)
            case "hiddenFields": spec.hiddenFields = try value.strings()
            case "typeIdField": types.append("typeIdField", .string(try value.string()))
            case "types", "templates":
                guard case .sequence = value.node else { throw value.error("\(key) must be a list") }
                types.append(key, try value.json())
            default:
                spec.editorTracking = try editorTracking(value)
            }
        }
        if !types.members.isEmpty { spec.typesJSON = JSONWriter.string(.object(types)) }
        if spec.maxScale > 0, spec.minScale > 0, spec.maxScale > spec.minScale {
            throw spec.place("maxScale").error(
                node.file, "maxScale (\(formatNumber(spec.maxScale))) must not be above minScale (\(formatNumber(spec.minScale))): maxScale is the most zoomed-in scale")
        }
        return spec
    }

    /// A drawing info written in the file (`drawingInfo`), or read from the file it names
    /// (`renderer`): a `drawingInfo` object, or a renderer alone.
    private static func drawingInfo(_ node: ConfigurationNode, file: Bool, folder: String) throws(ConfigurationError) -> DrawingInfo {
        let text: String
        if file {
            let path = resolve(try node.string(), folder: folder)
            guard let data = FileManager.default.contents(atPath: path), data.count <= maximumBytes, let contents = String(data: data, encoding: .utf8)
            else {
                throw node.error("the renderer file \(JSONKey.quoted(path)) cannot be read (or is over \(maximumBytes) bytes, or not UTF-8)")
            }
            text = contents
        } else {
            text = JSONWriter.string(try node.json())
        }
        do {
            let value = try JSONReader.parse(text)
            if value["renderer"] != nil { return try DrawingInfo(esriJSON: text) }
            return DrawingInfo(renderer: try Renderer(esriJSON: text))
        } catch {
            throw node.error("not a drawingInfo or renderer: \(error)")
        }
    }

    private static func editorTracking(_ node: ConfigurationNode) throws(ConfigurationError) -> EditorTracking {
        var tracking = EditorTracking()
        let keys = [
            "creatorField", "creationDateField", "editorField", "editDateField", "ownershipBasedAccessControl", "allowOthersToUpdate",
            "allowOthersToDelete", "allowOthersToQuery", "allowAnonymousToUpdate", "allowAnonymousToDelete",
        ]
        for (name, value) in try node.members(allowed: keys, what: "editorTracking") {
            switch name {
            case "creatorField": tracking.creatorField = try value.string()
            case "creationDateField": tracking.creationDateField = try value.string()
            case "editorField": tracking.editorField = try value.string()
            case "editDateField": tracking.editDateField = try value.string()
            case "ownershipBasedAccessControl": tracking.ownershipBasedAccessControl = try value.bool()
            case "allowOthersToUpdate": tracking.allowOthersToUpdate = try value.bool()
            case "allowOthersToDelete": tracking.allowOthersToDelete = try value.bool()
            case "allowOthersToQuery":
                tracking.allowOthersToQuery = try value.bool()
                if !tracking.allowOthersToQuery { throw value.error(ServedTable.unfilteredQueries) }
            case "allowAnonymousToUpdate": tracking.allowAnonymousToUpdate = try value.bool()
            default: tracking.allowAnonymousToDelete = try value.bool()
            }
        }
        return tracking
    }

    private static func nonEmpty(_ node: ConfigurationNode) throws(ConfigurationError) -> String {
        let text = try node.string()
        guard !text.isEmpty else { throw node.error("must not be empty") }
        return text
    }

    /// `source` against `folder`: paths relative to the file's folder; absolute paths, URLs
    /// and standard input as they are.
    static func resolve(_ source: String, folder: String) -> String {
        if source.hasPrefix("/") || source.contains("://") || source == "-" || folder.isEmpty { return source }
        return folder + "/" + source
    }
}

extension ServiceConfigurationFile {
    /// What opening a layer's source gives the catalog.
    public struct OpenedSource: Sendable {
        /// The features, read into memory; `nil` for a source served where it lives.
        public var table: FeatureTable?
        /// The source: the table, or one that answers queries where its data lives (a PostGIS
        /// table), served read-only and never loaded.
        public var source: any FeatureSource
        /// The source's own name (its file, GeoPackage layer or table), the layer's default name.
        public var name: String
        /// How edits are saved into the source; `nil` when they are not.
        public var save: TableSaver?
        /// Whether the source keeps attachments.
        public var hasAttachments: Bool
        /// What the source says of itself (a database table's comment), the layer's description
        /// when the configuration gives none.
        public var description: String = ""

        /// What a source read into memory gives.
        public init(table: FeatureTable, name: String, save: TableSaver? = nil, hasAttachments: Bool = false) {
            self.table = table
            source = table
            self.name = name
            self.save = save
            self.hasAttachments = hasAttachments
        }

        /// A source that answers where its data lives, served read-only; `description` is what
        /// it says of itself.
        public init(source: any FeatureSource, name: String, description: String = "") {
            table = nil
            self.source = source
            self.name = name
            save = nil
            hasAttachments = false
            self.description = description
        }
    }

    /// The services of the file, their layers' sources opened by `open` and every setting
    /// checked against the tables: the definition expression, display field, time and
    /// editor-tracking fields must be fields of the table.
    /// - Throws: ``ConfigurationError`` at the key that is wrong (`source` when the source does
    ///   not open).
    public func catalog(open: (LayerSpec) async throws -> OpenedSource) async throws(ConfigurationError) -> ServedCatalog {
        var services: [ServedService] = []
        for service in self.services {
            var layers: [ServedTable] = []
            for spec in service.layers {
                layers.append(try await table(spec, of: service, open: open))
            }
            do {
                services.append(
                    try ServedService(
                        name: service.name, description: service.description, copyright: service.copyright,
                        maxRecordCount: service.maxRecordCount, token: service.token, corsOrigin: service.corsOrigin, layers: layers))
            } catch {
                throw service.at.error(path, error.message)
            }
        }
        do {
            return try ServedCatalog(services: services)
        } catch {
            throw ConfigurationError(file: path, key: "services", error.message)
        }
    }

    /// The served table of layer `spec` of `service`.
    private func table(_ spec: LayerSpec, of service: ServiceSpec, open: (LayerSpec) async throws -> OpenedSource) async throws(ConfigurationError)
        -> ServedTable
    {
        let opened: OpenedSource
        do {
            opened = try await open(spec)
        } catch {
            throw spec.place("source").error(path, "\(error)")
        }
        guard var table = opened.table else { return try await remoteTable(spec, of: service, opened: opened) }
        if let types = spec.typesJSON {
            do {
                table = try table.withTypes(esriLayerJSON: types)
            } catch {
                let key = ["types", "templates", "typeIdField"].first { spec.places[$0] != nil } ?? "types"
                throw spec.place(key).error(path, error.message)
            }
        }
        let schema = table.schema
        try checkFields(spec, schema: schema)
        let options = EditingOptions(
            capabilities: service.capabilities ?? .all, editorTracking: spec.editorTracking, hasAttachments: opened.hasAttachments,
            definitionExpression: spec.definitionExpression)
        let editable: EditableFeatureTable
        do {
            editable = try EditableFeatureTable(table, options: options)
        } catch {
            throw spec.place("definitionExpression").error(path, error.message)
        }
        let settings = try settings(spec, schema: schema, name: opened.name)
        do {
            return try ServedTable(id: collection(spec, of: service), table: editable, settings: settings, save: opened.save)
        } catch {
            throw publishingError(spec, error)
        }
    }

    /// Where a table that does not take `spec`'s settings is wrong: its hidden fields (the one
    /// setting checked there that the file's own checks leave), else the layer.
    private func publishingError(_ spec: LayerSpec, _ error: any Error) -> ConfigurationError {
        spec.place(spec.hiddenFields.isEmpty ? "" : "hiddenFields").error(path, "\(error)")
    }

    /// The served table of layer `spec` whose source answers where its data lives (a PostGIS
    /// table): it takes no types or templates (they are kept with a table in memory); editor
    /// tracking applies to the edits of a source that edits in place.
    private func remoteTable(_ spec: LayerSpec, of service: ServiceSpec, opened: OpenedSource) async throws(ConfigurationError) -> ServedTable {
        for key in ["types", "templates", "typeIdField"] where spec.places[key] != nil {
            throw spec.place(key).error(path, "\(key) applies to layers held in memory, not to a source served where it lives")
        }
        let schema = opened.source.schema
        try checkFields(spec, schema: schema)
        let editable = opened.source as? any EditableFeatureSource
        if editable == nil, spec.places["editorTracking"] != nil {
            throw spec.place("editorTracking").error(path, "editorTracking applies to a layer that takes edits, and this source is read-only")
        }
        var settings = try settings(spec, schema: schema, name: opened.name)
        if settings.description.isEmpty { settings.description = opened.description }
        if !spec.definitionExpression.allSatisfy(\.isWhitespace) {
            do {
                _ = try CompiledWhereClause(spec.definitionExpression, schema: schema)
            } catch {
                throw spec.place("definitionExpression").error(path, "\(error)")
            }
        }
        let served: ServedTable
        do {
            // What is checked here: the settings (as for a table in memory); what the measuring
            // queries can fail with: the database. A source that edits where its data lives is
            // editable as the service's capabilities say (with the server's allowEdits).
            let id = collection(spec, of: service)
            if let editable {
                let editing = EditingOptions(capabilities: service.capabilities ?? .all, editorTracking: spec.editorTracking)
                served = try await ServedTable.publishing(id: id, source: editable, settings: settings, editing: editing)
            } else {
                served = try await ServedTable.publishing(id: id, source: opened.source, settings: settings)
            }
        } catch let error as ServerRequestError {
            throw publishingError(spec, error)
        } catch {
            throw spec.place("source").error(path, "\(error)")
        }
        return served
    }

    /// The layer's collection id: its own, else the service's name for a service of one layer,
    /// else `SERVICE_ID`.
    private func collection(_ spec: LayerSpec, of service: ServiceSpec) -> String {
        spec.collection ?? (service.layers.count == 1 ? service.name : "\(service.name)_\(spec.id)")
    }

    /// Checks that the display field and editor-tracking fields are fields of `schema`.
    private func checkFields(_ spec: LayerSpec, schema: Schema) throws(ConfigurationError) {
        func checkField(_ name: String?, _ key: String) throws(ConfigurationError) {
            guard let name, schema.index(ofField: name) == nil else { return }
            throw spec.place(key).error(
                path, "\(JSONKey.quoted(name)) is not a field of the table\(WhereClauseError.didYouMean(name, among: schema.fieldNames))")
        }
        try checkField(spec.displayField, "displayField")
        if let tracking = spec.editorTracking {
            for name in [tracking.creatorField, tracking.creationDateField, tracking.editorField, tracking.editDateField] {
                try checkField(name, "editorTracking")
            }
        }
    }

    /// The settings layer `spec` is published with, its time fields checked against `schema`.
    private func settings(_ spec: LayerSpec, schema: Schema, name: String) throws(ConfigurationError) -> LayerSettings {
        var time: LayerTime?
        if let fields = spec.timeFields {
            do {
                time = try LayerTime(startField: fields.start, endField: fields.end, schema: schema)
            } catch {
                throw spec.place("timeInfo").error(path, error.message)
            }
        }
        var drawing = spec.drawingInfo
        if let transparency = spec.transparency {
            drawing = DrawingInfo(
                renderer: drawing?.renderer ?? Renderer.default(for: schema.geometryType ?? .point), transparency: transparency)
        }
        return LayerSettings(
            id: spec.id, name: spec.name ?? name, description: spec.description, definitionExpression: spec.definitionExpression,
            minScale: spec.minScale, maxScale: spec.maxScale, defaultVisibility: spec.defaultVisibility, displayField: spec.displayField,
            drawingInfo: drawing, time: time, hiddenFields: spec.hiddenFields)
    }
}

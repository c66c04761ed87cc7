import Foundation
import SieveBase
import SieveFeatures
import SieveEditing
import SieveGeometry
import SieveFormats
#if RemoteSources
import SievePostGIS
#endif

/// Where a feature source lives, named as the command line names it, and the one call that opens
/// any of them: ``withOpened(_:_:)``.
///
/// | text | source |
/// |---|---|
/// | `FILE.geojson`, `FILE.geojsonl`, `FILE.json`, any other file, `-` | GeoJSON, GeoJSONSeq or Esri JSON, told by content (`-`: standard input) |
/// | `FILE.gpkg`, `FILE.gpkg:LAYER` | a GeoPackage layer (the file's only one when none is named) |
/// | `FILE.shp`, `FILE.zip`, `FILE.shz`, `FILE.zip:LAYER` | an ESRI Shapefile, or one in a zip archive (named when it holds several) |
/// | `FILE.fgb` | a FlatGeobuf file |
/// | `FILE.csv`, `FILE.tsv` | a CSV file, its geometry from a WKT column or x/y columns (``SourceOptions/csv``) |
/// | `postgresql://user@host:port/db?table=NAME` (or `#NAME`) | a PostGIS table |
/// | `https://…/FeatureServer/N`, `https://…/MapServer/N` | an ArcGIS feature (or map) service layer |
/// | `OAPIF:https://…#collection` | an OGC API – Features collection (GDAL's naming) |
///
/// ```swift
/// let count = try await SourceLocator("postgresql://gis@127.0.0.1/gis?table=countries").withOpened { opened in
///     try await opened.source.query(QueryRequest(answer: .count))
/// }
/// ```
public enum SourceLocator: Hashable, Sendable, CustomStringConvertible {
    /// A GeoJSON, GeoJSONSeq or Esri JSON file; `-` for standard input.
    case jsonFile(path: String)
    /// A layer of a GeoPackage file (`nil`: its only feature table).
    case geoPackage(path: String, layer: String?)
    /// A shapefile: a `.shp`, or a zip archive holding one (`layer`: which, when it holds
    /// several).
    case shapefile(path: String, layer: String?)
    /// A CSV file (`.csv`, `.tsv`).
    case csvFile(path: String)
    /// A FlatGeobuf file (`.fgb`).
    case flatGeobuf(path: String)
    /// A GeoParquet (or Parquet) file (`.parquet`, `.geoparquet`).
    case geoParquet(path: String)
    /// A PostGIS table, by connection URL.
    case postGIS(url: String)
    /// An ArcGIS feature service or map service layer, by URL.
    case featureService(url: String)
    /// A collection of an OGC API – Features service.
    case ogcCollection(serviceURL: String, collection: String)

    /// The locator `text` names (see the table above). A name such as `a.gpkg:b` is a
    /// GeoPackage layer only when no file of that full name exists.
    /// - Throws: ``SourceLocatorError`` for an `OAPIF:` locator without a collection.
    public init(_ text: String) throws(SourceLocatorError) {
        if text.hasPrefix("OAPIF:") {
            let rest = String(text.dropFirst("OAPIF:".count))
            guard let hash = rest.lastIndex(of: "#"), !rest[rest.index(after: hash)...].isEmpty else {
                throw SourceLocatorError("\(text): name the collection after '#': OAPIF:https://host/path#collection")
            }
            self = .ogcCollection(serviceURL: String(rest[..<hash]), collection: String(rest[rest.index(after: hash)...]))
            return
        }
        if Self.isServiceURL(text) {
            self = .featureService(url: text)
            return
        }
        if Self.isPostGISURL(text) {
            self = .postGIS(url: text)
            return
        }
        if let source = GeoPackage.source(text), source.layer == nil || !FileManager.default.fileExists(atPath: text) {
            self = .geoPackage(path: source.path, layer: source.layer)
            return
        }
        if let source = Shapefile.source(text), source.layer == nil || !FileManager.default.fileExists(atPath: text) {
            self = .shapefile(path: source.path, layer: source.layer)
            return
        }
        if FlatGeobuf.hasFlatGeobufExtension(text) {
            self = .flatGeobuf(path: text)
            return
        }
        if GeoParquet.hasParquetExtension(text) {
            self = .geoParquet(path: text)
            return
        }
        if text.lowercased().hasSuffix(".csv") || text.lowercased().hasSuffix(".tsv") {
            self = .csvFile(path: text)
            return
        }
        self = .jsonFile(path: text)
    }

    /// Whether `text` names a feature service layer or an OGC API collection.
    public static func isServiceURL(_ text: String) -> Bool {
        if text.hasPrefix("OAPIF:") { return true }
        let lowered = text.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return false }
        return lowered.contains("/featureserver/") || lowered.contains("/mapserver/")
    }

    /// Whether `text` is a PostgreSQL connection URL (`postgresql://` or `postgres://`).
    public static func isPostGISURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// Whether the source lives elsewhere (a database or a service) rather than in a file.
    public var isRemote: Bool {
        switch self {
        case .jsonFile, .geoPackage, .shapefile, .csvFile, .flatGeobuf, .geoParquet: false
        case .postGIS, .featureService, .ogcCollection: true
        }
    }

    /// The locator as text.
    public var description: String {
        switch self {
        case .jsonFile(let path), .csvFile(let path), .flatGeobuf(let path), .geoParquet(let path): path
        case .geoPackage(let path, let layer), .shapefile(let path, let layer): layer.map { "\(path):\($0)" } ?? path
        case .postGIS(let url), .featureService(let url): url
        case .ogcCollection(let url, let collection): "OAPIF:\(url)#\(collection)"
        }
    }
}

/// A locator that names no source GeoSieve can open, or options that do not fit the source.
public struct SourceLocatorError: GeoSieveError, Hashable {
    /// What is wrong.
    public let message: String
    /// How it is reported.
    public let category: ErrorCategory

    /// An error saying `message`.
    public init(_ message: String, category: ErrorCategory = .invalidRequest) {
        self.message = message
        self.category = category
    }

    /// The message.
    public var description: String { message }

    /// The error for a remote `locator` in a build without the `RemoteSources` trait.
    public static func withoutRemoteSources(_ locator: SourceLocator) -> SourceLocatorError {
        SourceLocatorError(
            "\(locator): this build of GeoSieve reads no remote sources (feature services, OGC API collections, PostGIS "
                + "tables): it was built without the RemoteSources trait; build with the default traits (swift build -c release)",
            category: .unsupported)
    }
}

/// How ``SourceLocator/withOpened(_:_:)`` opens a source.
public struct SourceOptions: Sendable {
    /// The fields to load a GeoJSON or Esri JSON file with (`nil`: inferred). Other sources have
    /// typed fields of their own: giving a schema for them is an error.
    public var schema: [Field]?
    /// How files are loaded (threads, bad features, progress, remembering the file's shape).
    public var load = LoadOptions()
    /// The most read from standard input, a pipe or a device.
    public var streamLimit: Int? = FeatureTable.defaultStreamLimit
    /// Whether a PostGIS table is read whole into memory (`true`), or queried where it lives
    /// (`false`, the default: each query runs in the database).
    public var readsDatabaseIntoMemory = false
    /// How a service layer is read: whole (snapshot, the default), the features of an extent
    /// (on demand) or of a selection.
    public var serviceMode: FeatureRequestMode = .snapshot
    /// What an on-demand or selection read fetches: the extent (in the layer's reference) and
    /// the where clause.
    public var serviceScope: (extent: Envelope?, whereClause: String?) = (nil, nil)
    /// A definition expression sent with every service fetch.
    public var serviceDefinitionExpression = ""
    #if RemoteSources
    /// The HTTP client for service sources; `nil`: one made for the call and shut down after.
    public var client: ServiceClient?
    #endif
    /// How a CSV file is read: its delimiter, the columns of its geometry and their reference.
    public var csv = CSVReadOptions()
    /// The encoding of a shapefile's texts when its `.cpg` and `.dbf` do not say it right
    /// (``/SieveFormats/ShapefileReadOptions/encoding``).
    public var shapefileEncoding: String?
    /// Only the features whose bounding boxes meet this extent are needed: a FlatGeobuf file
    /// reads just those through its index, a GeoParquet file skips the row groups and rows
    /// its covering rules out (other sources read everything; the query filters either way).
    public var readExtent: Envelope?
    /// How a GeoParquet file is read: a box (``readExtent`` when it has none) and a where clause
    /// whose row groups alone are read (each row still to be filtered by the query), the columns
    /// (all of them when one is not in the file).
    public var parquet = GeoParquetReadOptions()
    /// Called as a GeoPackage layer is read.
    public var geoPackageProgress: (@Sendable (GeoPackageReadProgress) -> Void)?

    /// The default options.
    public init() {}
}

/// A source opened by ``SourceLocator/withOpened(_:_:)``: the source, its name, and what the
/// opening left out.
public struct OpenedSource: Sendable {
    /// The source.
    public let source: any FeatureSource
    /// Its name: the GeoPackage layer, the database table, the service layer's name or the
    /// collection, else the file name without extension (`standard input` for `-`).
    public let name: String
    /// The features a file load skipped (with ``/SieveFormats/LoadOptions`` that skip bad
    /// features).
    public let loadReport: LoadReport?
    /// The GeoPackage columns (or shapefile fields) GeoSieve does not read, left out.
    public let skippedFields: [GeoPackageLayer.SkippedField]
    /// What else the reader of the source should know (a shapefile's `.prj` that names no known
    /// reference).
    public var notes: [String] = []
}

extension SourceLocator {
    /// Opens the source, runs `body` on it and closes it (a database connection, an HTTP
    /// client made for the call), also when `body` throws.
    /// - Throws: ``SourceLocatorError`` for options that do not fit the source (a schema for
    ///   a typed source, a service mode for a file); ``/SieveFeatures/FeatureTableError``,
    ///   ``/SieveFormats/GeoPackageError``, `PostGISError` or ``ServiceError`` when opening fails;
    ///   what `body` throws.
    public func withOpened<T: Sendable>(
        _ options: SourceOptions = SourceOptions(), _ body: (OpenedSource) async throws -> T
    ) async throws -> T {
        if options.schema != nil {
            switch self {
            case .jsonFile: break
            case .geoPackage: throw SourceLocatorError("a schema applies to GeoJSON and Esri JSON sources, not to a GeoPackage (its columns are typed)")
            case .shapefile: throw SourceLocatorError("a schema applies to GeoJSON and Esri JSON sources, not to a shapefile (its fields are typed)")
            case .csvFile: throw SourceLocatorError("a schema applies to GeoJSON and Esri JSON sources, not to a CSV file (its columns are typed by their values)")
            case .flatGeobuf: throw SourceLocatorError("a schema applies to GeoJSON and Esri JSON sources, not to a FlatGeobuf file (its columns are typed)")
            case .geoParquet: throw SourceLocatorError("a schema applies to GeoJSON and Esri JSON sources, not to a Parquet file (its columns are typed)")
            case .postGIS: throw SourceLocatorError("a schema does not apply to a PostGIS table: its fields come from the catalogue")
            case .featureService, .ogcCollection:
                throw SourceLocatorError("a schema does not apply to a feature service: its fields come from the service")
            }
        }
        if options.serviceMode != .snapshot, !isServiceLocator {
            throw SourceLocatorError("request modes other than snapshot apply to feature service sources")
        }
        switch self {
        case .jsonFile(let path):
            let (table, report) = try FeatureTable.loadReporting(
                path: path, streamLimit: options.streamLimit, schema: options.schema, options: options.load)
            let name = path == "-" ? "standard input" : URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            return try await body(OpenedSource(source: table, name: name, loadReport: report, skippedFields: []))
        case .geoPackage(let path, let layer):
            let read = try GeoPackage.read(
                at: path, layer: layer, options: GeoPackageReadOptions(unsupportedFields: .skip), progress: options.geoPackageProgress)
            return try await body(OpenedSource(source: read.table, name: read.name, loadReport: nil, skippedFields: read.skippedFields))
        case .flatGeobuf(let path):
            let read = try FlatGeobuf.read(at: path, intersecting: options.readExtent)
            return try await body(
                OpenedSource(
                    source: read.table, name: read.name, loadReport: nil,
                    skippedFields: read.skippedColumns.map { GeoPackageLayer.SkippedField(name: $0.name, declaredType: $0.type) }))
        case .geoParquet(let path):
            var parquet = options.parquet
            if parquet.box == nil { parquet.box = options.readExtent }
            var everyColumn = parquet
            everyColumn.columns = nil
            let read: GeoParquetLayer
            do throws(FileFormatError) {
                read = try GeoParquet.read(at: path, options: parquet)
            } catch {
                // A column the file lacks: read them all, so that the query names it in its own
                // error (with the file's fields to suggest).
                guard error.kind == .invalidOption, parquet.columns != nil else { throw error }
                read = try GeoParquet.read(at: path, options: everyColumn)
            }
            var opened = OpenedSource(
                source: read.table, name: read.name, loadReport: nil,
                skippedFields: read.skippedColumns.map { GeoPackageLayer.SkippedField(name: $0.name, declaredType: $0.type) })
            if read.rowGroupsRead < read.rowGroups {
                opened.notes.append("\(read.rowGroups - read.rowGroupsRead) of \(read.rowGroups) row groups skipped: their statistics rule out the command's extent or where clause")
            }
            return try await body(opened)
        case .csvFile(let path):
            var csv = options.csv
            if csv.threads == nil { csv.threads = options.load.threads }
            let table = try CSVFile.read(at: path, options: csv)
            return try await body(
                OpenedSource(source: table, name: URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent, loadReport: nil, skippedFields: []))
        case .shapefile(let path, let layer):
            let read = try Shapefile.read(at: path, layer: layer, options: ShapefileReadOptions(encoding: options.shapefileEncoding))
            var opened = OpenedSource(
                source: read.table, name: read.name, loadReport: nil,
                skippedFields: read.skippedFields.map { GeoPackageLayer.SkippedField(name: $0.name, declaredType: $0.declaration) })
            if let projection = read.unidentifiedProjection {
                opened.notes.append("the .prj names a spatial reference PROJ cannot identify with an EPSG or ESRI code; the layer's is unknown (\(projection.prefix(60))…)")
            }
            return try await body(opened)
        #if RemoteSources
        case .postGIS(let url):
            let connection = try PostGISConnectionOptions(url: url)
            return try await PostGISFeatureSource.using(connection) { source in
                let opened: any FeatureSource = options.readsDatabaseIntoMemory ? try await source.readTable() : source
                return try await body(OpenedSource(source: opened, name: connection.table, loadReport: nil, skippedFields: []))
            }
        case .featureService, .ogcCollection:
            let client = options.client ?? ServiceClient()
            do {
                let (service, name) = try await openService(client: client)
                let table = try ServiceFeatureTable(service: service, mode: options.serviceMode, definitionExpression: options.serviceDefinitionExpression)
                try await table.load()
                switch options.serviceMode {
                case .snapshot, .manualCache: break
                case .onDemand: if let extent = options.serviceScope.extent { _ = try await table.display(extent) }
                case .selection:
                    _ = try await table.selectFeatures(whereClause: options.serviceScope.whereClause ?? "1=1", envelope: options.serviceScope.extent)
                }
                let value = try await body(OpenedSource(source: table, name: name, loadReport: nil, skippedFields: []))
                if options.client == nil { try await client.shutdown() }
                return value
            } catch {
                if options.client == nil { try? await client.shutdown() }
                throw error
            }
        #else
        case .postGIS, .featureService, .ogcCollection:
            throw SourceLocatorError.withoutRemoteSources(self)
        #endif
        }
    }

    /// Whether the locator names a service layer or collection.
    private var isServiceLocator: Bool {
        switch self {
        case .featureService, .ogcCollection: true
        default: false
        }
    }

    #if RemoteSources
    /// The service the locator names, its metadata read, and its name.
    public func openService(client: ServiceClient) async throws -> (ServiceFeatureTable.Service, String) {
        switch self {
        case .ogcCollection(let url, let collection):
            return (.ogc(try await OGCCollectionReader.open(url, collection: collection, client: client)), collection)
        case .featureService(let url):
            let reader = try await ArcGISLayerReader.open(url, client: client)
            return (.arcGIS(reader), reader.info.name.isEmpty ? "layer" : reader.info.name)
        default:
            throw SourceLocatorError("\(self) is not a feature service layer or an OGC API collection")
        }
    }
    #endif
}

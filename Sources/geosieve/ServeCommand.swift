import ArgumentParser
import Foundation
import GeoSieve
import Logging
import SieveServer
import UnixSignals

/// `geosieve serve SOURCE[:NAME]... [--port 8080] [--host 127.0.0.1] …`: the sources as ArcGIS
/// REST FeatureServer services and OGC API – Features collections, until SIGTERM or SIGINT.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve feature files as an ArcGIS FeatureServer and an OGC API – Features service.",
        discussion: """
            Each SOURCE becomes the service http://HOST:PORT/arcgis/rest/services/NAME/FeatureServer \
            (its table is layer 0) and the collection http://HOST:PORT/ogc/collections/NAME. NAME \
            defaults to the file (or GeoPackage layer, or PostGIS table) name; give it as \
            SOURCE:NAME (a GeoPackage as FILE.gpkg:LAYER:NAME). Files are read into memory at \
            start; a PostGIS table (postgresql://…?table=NAME) is never loaded: every query runs \
            in the database, on a pool of --pg-connections connections, each statement bounded \
            by --query-timeout; with --allow-edits, its edits run in the database, each batch one transaction. When the server accepts connections it prints one line, \
            'serving http://HOST:PORT', on standard output (with --port 0, the port picked), and \
            the pages to open on standard error: the ArcGIS REST services directory, the OGC API \
            landing page and each table's layer and items. \
            Requests are logged on standard error (--log-level). The server is read-only unless \
            --allow-edits: then ArcGIS applyEdits/addFeatures/updateFeatures/deleteFeatures (and \
            attachments, for GeoPackage sources) and OGC API create/replace/delete change the \
            tables, each batch saved into its source before it is answered (a GeoPackage in place, \
            a JSON file rewritten through a temporary file); with --token, edits need it. SIGTERM or SIGINT stops \
            accepting connections, lets the requests in flight finish and exits with status 0. \
            ArcGIS queries return at most --max-record-count features per request \
            (exceededTransferLimit when more follow); OGC API pages are clamped to it. \
            More than --max-concurrent-requests requests at once get 503 at once. A client \
            has --header-timeout seconds to send a request head (a slow one gets 408 and is \
            closed); a connection receiving nothing for --idle-timeout seconds while no answer \
            is being prepared (keep-alive between requests, a stalled body) is closed. At most \
            --max-connections connections are open: a new one takes the place of the one idle \
            longest, or gets 503 when every one has a request in progress. An HTTP/1.1 request \
            without a Host header, or one with two, gets 400; a body declared over \
            --max-body-bytes gets 413 from the headers; refusals close the connection.

            Examples:
              geosieve serve countries.geojson cities.geojson:places --port 8080
              curl 'http://127.0.0.1:8080/ogc/collections/places/items?limit=2'
              ogrinfo -so ESRIJSON:'http://127.0.0.1:8080/arcgis/rest/services/'\\
              'places/FeatureServer/0/query?where=1%3D1&outFields=*&f=json'
              ogrinfo OAPIF:http://127.0.0.1:8080/ogc countries
            """
    )

    @Argument(help: "Feature files (GeoJSON, Esri JSON, FILE.gpkg[:LAYER]) or postgresql:// tables, each optionally :NAME (or --config).")
    var sources: [String] = []

    @Option(
        name: .customLong("config"),
        help: "A service configuration file (YAML): services, their layers and settings, and the server's; flags given override its server section. SIGHUP reloads its services.")
    var config: String?

    @Option(help: "The port to listen on (0: any free port; default 8080).")
    var port: Int?

    @Option(help: "The address to listen on (default 127.0.0.1: this machine only).")
    var host: String?

    @Option(name: .customLong("max-record-count"), help: "The most features one request returns (default 2000).")
    var maxRecordCount: Int?

    @Option(
        name: .customLong("standard-max-record-count"),
        help: "The most features an ArcGIS query with resultType=standard returns (standardMaxRecordCount).")
    var standardMaxRecordCount: Int = 16_000

    @Option(
        name: .customLong("tile-max-record-count"),
        help: "The most features an ArcGIS query with resultType=tile returns (tileMaxRecordCount).")
    var tileMaxRecordCount: Int = 8_000

    @Flag(name: .customLong("allow-edits"), help: "Accept edits (applyEdits, OGC API create/replace/delete), saved into the sources.")
    var allowEdits = false

    @Option(name: .customLong("token"), help: "A token edits need (and reads, with --token-required-for-read): token= or Authorization: Bearer.")
    var token: String?

    @Flag(name: .customLong("token-required-for-read"), help: "Require --token (or a service's token) for every request.")
    var tokenRequiredForRead = false

    @Option(name: .customLong("cors"), help: "The origin browsers may call from ('*' for any); no CORS headers without it.")
    var cors: String?

    @Option(name: .customLong("max-concurrent-requests"), help: "Requests served at once; more get 503.")
    var maxConcurrentRequests: Int = 256

    @Option(name: .customLong("max-body-bytes"), help: "The largest request body accepted.")
    var maxBodyBytes: Int = 16 << 20

    @Option(name: .customLong("query-timeout"), help: "Seconds a query may run before it is answered 503 (0: no limit; default 30).")
    var queryTimeout: Double?

    @Option(name: .customLong("pg-connections"), help: "Connections to PostgreSQL each PostGIS source may open at once (default 4).")
    var pgConnections: Int = 4

    @Option(
        name: .customLong("primary"),
        help: "HOST[:PORT] of the primary server when a PostGIS source's URL names a hot-standby replica: queries run on the replica, edits (with --allow-edits) on the primary, each answered once the replica has replayed it.")
    var primary: String?

    @Option(name: .customLong("header-timeout"), help: "Seconds a client has to send a request head before it is closed.")
    var headerTimeout: Double = 20

    @Option(name: .customLong("idle-timeout"), help: "Seconds a connection may stay idle (keep-alive, a stalled body) before it is closed.")
    var idleTimeout: Double = 75

    @Option(name: .customLong("max-connections"), help: "Connections open at once; the one idle longest makes room for a new one.")
    var maxConnections: Int = 512

    @Option(
        name: .customLong("inline-row-limit"),
        help: "The most rows a query may read to run on the request's own task (0 to 1000000; 0: every query on the engine's threads).")
    var inlineRowLimit: Int = 10_000

    @Option(name: .customLong("tile-cache-mb"), help: "MiB of vector tiles kept for the next request of the same tile (0: none).")
    var tileCacheMB: Int = 64

    @Flag(name: .customLong("no-compression"), help: "Never gzip answers (behind a proxy that compresses).")
    var noCompression = false

    @Option(
        name: .customLong("arcgis-version"),
        help: "The ArcGIS release the REST documents claim: 11.1 (the default: 64-bit integers declared as doubles, days as dates, as every client reads) or 11.2 (esriFieldTypeBigInteger and esriFieldTypeDateOnly).")
    var arcgisVersion: ArcGISVersion?

    @Option(
        name: .customLong("time-field"), parsing: .unconditional,
        help: "Make the tables that have this date field time-aware (ArcGIS timeInfo and time, OGC datetime): FIELD, or START,END for intervals.")
    var timeField: String?

    @Flag(name: .customLong("metrics"), help: "Answer GET /metrics in the Prometheus text format (requests, latency, features and tiles served, table rows).")
    var metrics = false

    /// Request logging.
    enum LogLevel: String, ExpressibleByArgument, CaseIterable {
        case debug, info, warning, error
    }

    @Option(name: .customLong("log-level"), help: "What is logged on standard error: debug, info (every request), warning, error.")
    var logLevel: LogLevel = .info

    func validate() throws {
        if config == nil, sources.isEmpty { throw ValidationError("give the sources to serve, or --config FILE") }
        if config != nil, !sources.isEmpty { throw ValidationError("give the sources to serve or --config FILE, not both") }
        if config != nil, timeField != nil { throw ValidationError("--time-field is for sources on the command line: give timeInfo in the configuration") }
    }

    /// The server's configuration: the flags given, over the configuration file's `server`
    /// section, over the defaults.
    func serverConfiguration(_ file: ServiceConfigurationFile?) -> ServerConfiguration {
        var configuration = ServerConfiguration(
            maxBodyBytes: maxBodyBytes, maxConcurrentRequests: maxConcurrentRequests, headerReadTimeout: headerTimeout,
            idleTimeout: idleTimeout, maxConnections: maxConnections, inlineQueryRowLimit: inlineRowLimit,
            tileCacheBytes: tileCacheMB < 0 || tileCacheMB > 1 << 20 ? -1 : tileCacheMB << 20,
            standardMaxRecordCount: standardMaxRecordCount, tileMaxRecordCount: tileMaxRecordCount)
        if let file { configuration = file.server.applied(to: configuration) }
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let maxRecordCount { configuration.maxRecordCount = maxRecordCount }
        if allowEdits { configuration.allowEdits = true }
        if let token { configuration.token = token }
        if tokenRequiredForRead { configuration.tokenRequiredForRead = true }
        if let cors { configuration.corsOrigin = cors }
        if let queryTimeout { configuration.queryTimeout = queryTimeout == 0 ? nil : queryTimeout }
        if noCompression { configuration.compression = false }
        if let arcgisVersion { configuration.arcgisVersion = arcgisVersion }
        if metrics { configuration.metrics = true }
        return configuration
    }

    func run() async throws {
        let file = try config.map { path in try ServiceConfigurationFile.load(path: path) }
        let configuration = serverConfiguration(file)
        let allowEdits = configuration.allowEdits
        guard pgConnections >= 1 else { throw CommandFailure("--pg-connections must be 1 or more, not \(pgConnections)") }
        if primary != nil {
            guard allowEdits else { throw CommandFailure("--primary sends edits to the primary: it needs --allow-edits") }
            guard file == nil else { throw CommandFailure("--primary applies to PostGIS sources on the command line, not to --config") }
        }
        if let file {
            let catalog = try await Self.catalog(file, allowEdits: allowEdits, pgConnections: pgConnections, timeout: configuration.queryTimeout)
            try await serve(catalog, configuration: configuration, reloading: file.path)
            return
        }
        var tables: [ServedTable] = []
        let timeFields = try timeField.map { text -> (String, String?) in
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard (1...2).contains(parts.count), !parts.contains(where: \.isEmpty) else {
                throw CommandFailure("--time-field must be FIELD or START,END, not \(text)")
            }
            return (parts[0], parts.count == 2 ? parts[1] : nil)
        }
        for argument in sources {
            let (source, name) = Self.split(argument)
            let geoPackage = CommandSource.geoPackage(source)
            if PostGISSource.isURL(source) {
                do {
                    tables.append(try await servedDatabaseTable(source, name: name, timeFields: timeFields, configuration: configuration))
                } catch {
                    throw CommandFailure("\(argument): ", error)
                }
                continue
            }
            // Whether edits can be saved is known before reading anything.
            if allowEdits { try Self.checkSavable(source) }
            let (table, layerName) = try await CommandSource.loadTable(source, keepingFileShape: allowEdits)
            let saver = allowEdits ? Self.saver(source: source, geoPackage: geoPackage?.path, layerName: layerName) : nil
            do {
                let editable = try EditableFeatureTable(table, options: EditingOptions(hasAttachments: geoPackage != nil))
                // Time-aware when it has the time fields (an error only when no table has them, below).
                let time = timeFields.flatMap { fields in try? LayerTime(startField: fields.0, endField: fields.1, schema: table.schema) }
                tables.append(
                    try ServedTable(id: name ?? ServedTable.sanitizedID(layerName), title: layerName, table: editable, time: time, save: saver))
            } catch {
                throw CommandFailure("\(argument): ", error)
            }
        }
        if let timeFields, let first = tables.first, !tables.contains(where: { $0.time != nil }) {
            // The first table's reason: a missing field or one that is not a date.
            do {
                _ = try LayerTime(startField: timeFields.0, endField: timeFields.1, schema: first.layer.schema)
            } catch {
                throw CommandFailure("--time-field: ", error)
            }
        }
        let catalog: ServedCatalog
        do {
            catalog = try ServedCatalog(tables)
        } catch {
            throw CommandFailure("", error)
        }
        try await serve(catalog, configuration: configuration, reloading: nil)
    }

    /// The PostGIS table `url` names, served where it lives (never loaded); with
    /// `--allow-edits`, edited there (each batch one transaction).
    func servedDatabaseTable(
        _ url: String, name: String?, timeFields: (String, String?)?, configuration: ServerConfiguration
    ) async throws -> ServedTable {
        let (source, tableName, description) = try await PostGISSource.openForServing(
            url, connections: pgConnections, timeout: configuration.queryTimeout, primary: configuration.allowEdits ? primary : nil)
        let time = timeFields.flatMap { fields in try? LayerTime(startField: fields.0, endField: fields.1, schema: source.schema) }
        let id = name ?? ServedTable.sanitizedID(tableName)
        let settings = LayerSettings(name: tableName, description: description, time: time)
        if configuration.allowEdits, let editable = source as? any EditableFeatureSource {
            return try await ServedTable.publishing(id: id, source: editable, settings: settings, editing: EditingOptions())
        }
        return try await ServedTable.publishing(id: id, source: source, settings: settings)
    }

    /// Serves `catalog` until SIGTERM or SIGINT; with a configuration file, SIGHUP reloads its
    /// services (a file that fails validation is refused, logged, and the services stay).
    func serve(_ catalog: ServedCatalog, configuration: ServerConfiguration, reloading path: String?) async throws {
        let server: GeoSieveServer
        do {
            server = try GeoSieveServer(catalog: catalog, configuration: configuration)
        } catch {
            throw CommandFailure("", error)
        }
        var logger = Logger(label: "geosieve.serve")
        logger.logLevel = Logger.Level(rawValue: logLevel.rawValue) ?? .info
        let host = configuration.host
        let serverLogger = logger
        let pgConnections = self.pgConnections
        try await withThrowingTaskGroup(of: Void.self) { group in
            if let path {
                let signals = await UnixSignalsSequence(trapping: .sighup)
                group.addTask {
                    for await _ in signals {
                        await Self.reload(path, into: server, pgConnections: pgConnections, logger: serverLogger)
                    }
                }
            }
            group.addTask {
                try await server.run(logger: serverLogger) { port in
                    // One line on standard output, which scripts wait for; the pages to open on
                    // standard error, with the log.
                    FileHandle.standardOutput.write(Data("serving http://\(host):\(port)\n".utf8))
                    FileHandle.standardError.write(Data(Self.landingPages(host: host, port: port, catalog: catalog).utf8))
                }
            }
            // The server has stopped (or failed): stop listening for SIGHUP.
            try await group.next()
            group.cancelAll()
        }
    }

    /// Reads the configuration file again and serves its services, or logs why not and keeps
    /// those served.
    static func reload(_ path: String, into server: GeoSieveServer, pgConnections: Int, logger: Logger) async {
        // The database sources of the catalog served now: closed once the new one is served
        // and the requests in flight on them had time to finish.
        let former = PostGISSource.takeServed()
        do {
            let file = try ServiceConfigurationFile.load(path: path)
            let catalog = try await Self.catalog(
                file, allowEdits: server.configuration.allowEdits, pgConnections: pgConnections, timeout: server.configuration.queryTimeout)
            server.replaceCatalog(catalog)
            logger.notice("reloaded \(path): \(catalog.services.count) services, \(catalog.tables.count) layers")
            Task {
                try? await Task.sleep(for: .seconds(Self.closingGrace(server.configuration)))
                for close in former { await close() }
            }
        } catch {
            for close in PostGISSource.takeServed() { await close() }
            PostGISSource.restoreServed(former)
            logger.error("\(error) — the configuration was not reloaded; the services stay as they were")
        }
    }

    /// How long the database sources of a replaced catalog stay open: the longest a query may
    /// run, and a minute without a query timeout.
    static func closingGrace(_ configuration: ServerConfiguration) -> Double {
        (configuration.queryTimeout ?? 60) + 5
    }

    /// The catalog of a configuration file, each layer's source opened as the command line
    /// opens sources (and saved into, when edits are allowed); a PostGIS table is served where
    /// it lives, read-only, on a pool of `pgConnections` connections whose statements
    /// `timeout` bounds.
    static func catalog(_ file: ServiceConfigurationFile, allowEdits: Bool, pgConnections: Int, timeout: Double?) async throws -> ServedCatalog {
        try await file.catalog { spec in
            let source = spec.source
            if PostGISSource.isURL(source) {
                let (opened, name, description) = try await PostGISSource.openForServing(source, connections: pgConnections, timeout: timeout)
                return ServiceConfigurationFile.OpenedSource(source: opened, name: name, description: description)
            }
            if allowEdits { try checkSavable(source) }
            let (table, layerName) = try await CommandSource.loadTable(source, keepingFileShape: allowEdits)
            let geoPackage = CommandSource.geoPackage(source)
            return ServiceConfigurationFile.OpenedSource(
                table: table, name: layerName,
                save: allowEdits ? saver(source: source, geoPackage: geoPackage?.path, layerName: layerName) : nil,
                hasAttachments: geoPackage != nil)
        }
    }

    /// What the server prints on standard error once it accepts connections (after
    /// `serving http://HOST:PORT` on standard output): the landing pages to open, and each
    /// layer's FeatureServer layer and OGC API items.
    static func landingPages(host: String, port: Int, catalog: ServedCatalog) -> String {
        let base = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        var text = "  ArcGIS REST services: \(base)/arcgis/rest/services\n"
        text += "  OGC API – Features:   \(base)/ogc\n"
        for table in catalog.tables {
            text += "  \(table.id): \(base)/arcgis/rest/services/\(table.serviceName)/FeatureServer/\(table.layerID) and \(base)/ogc/collections/\(table.id)/items\n"
        }
        return text
    }

    /// How edits of `source` are saved: a GeoPackage in place, one transaction per batch (its
    /// other tables kept, attachments in `LAYER__ATTACH`); a GeoJSON or Esri JSON file rewritten
    /// whole, to a temporary file renamed over it. Standard input and PostGIS tables cannot be
    /// edited.
    static func saver(source: String, geoPackage: String?, layerName: String) -> TableSaver {
        if let path = geoPackage {
            return { table, written, deleted in
                try GeoPackage.save(table, writing: written, deleting: deleted, to: path, layer: layerName)
            }
        }
        return { table, _, _ in try EditCommand.write(table, source: source, output: nil, layerName: layerName) }
    }

    /// Refuses `--allow-edits` for sources edits cannot be saved into.
    static func checkSavable(_ source: String) throws {
        if source == "-" { throw CommandFailure("--allow-edits: standard input cannot be saved; serve a file") }
        try EditCommand.checkSavable(source, option: "--allow-edits")
    }

    /// SOURCE[:NAME]: the name after the last colon when what is before it is a source of its
    /// own (a file that exists, a PostGIS URL, a GeoPackage or zip archive with its layer) and
    /// the whole is not a file.
    static func split(_ argument: String) -> (source: String, name: String?) {
        guard !FileManager.default.fileExists(atPath: argument), let colon = argument.lastIndex(of: ":") else { return (argument, nil) }
        let source = String(argument[..<colon])
        let name = String(argument[argument.index(after: colon)...])
        guard ServedTable.isValidID(name), !source.isEmpty else { return (argument, nil) }
        if PostGISSource.isURL(source) { return (source, name) }
        let lower = source.lowercased()
        // FILE.gpkg:LAYER, FILE.zip:LAYER: the layer of a GeoPackage or an archive of shapefiles.
        if lower.hasSuffix(".gpkg") || lower.hasSuffix(".zip") || lower.hasSuffix(".shz") { return (argument, nil) }
        if FileManager.default.fileExists(atPath: source) || CommandSource.geoPackage(source) != nil
            || Shapefile.source(source)?.layer != nil
        {
            return (source, name)
        }
        return (argument, nil)
    }
}

extension ArcGISVersion: ExpressibleByArgument {}

import ArgumentParser
import Foundation
import GeoSieve

/// `geosieve query SOURCE [--where SQL] …`: the ArcGIS REST `query` operation over a GeoJSON
/// FeatureCollection or Esri JSON FeatureSet file, printing one JSON document.
///
/// Exit status: 0 on success; 1 when SOURCE, the `--schema` file or a `--geometry @FILE` cannot
/// be read (missing, a directory, no permission, an I/O error); 2 for everything else (an
/// argument file over 64 MiB included) — bad arguments, a where clause that does
/// not parse or bind (the line is `error: where clause error at L:C: …`), unknown fields in
/// `--out-fields`/`--order-by`, a file that reads but is not a valid FeatureCollection /
/// FeatureSet (or fields JSON), a `--geometry` that does not parse or that GEOS rejects, a
/// `--relation` without `--spatial-rel relate` (or the reverse) or that is not a DE-9IM
/// pattern, an `--in-sr` or `--out-sr` that PROJ does not know, and a geometry that cannot be
/// projected between the references.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Query a feature file (GeoJSON, Esri JSON, GeoPackage) with a where clause and a geometry.",
        discussion: """
            Rows pass when the where clause is TRUE, (with --filter) the CQL2 filter is TRUE and \
            (with --object-ids) their object ID is listed. The filter names the features' \
            geometry 'geometry' (or geom, shape, …); its geometry literals are longitude/latitude \
            unless --filter-crs says otherwise. \
            Features come in ascending object-ID order unless --order-by is given (NULLs first \
            ascending, last descending, ties by object ID); --offset and --limit then page them. \
            --return ids, count and extent ignore ordering and paging (as ArcGIS does), though the \
            arguments are still checked. An empty extent is written with null coordinates. \
            With --geometry, rows must also stand in --spatial-rel (default intersects) to the \
            geometry, read from the feature's side: 'within' selects features inside the \
            geometry, 'contains' features containing it, 'relate' matches the DE-9IM pattern \
            of --relation (feature first). A geometry in another spatial reference than the \
            table's (--in-sr, or an Esri JSON spatialReference; GeoJSON is 4326; else the \
            table's) is projected into the table's: 4326 and 3857 exactly, any other EPSG or \
            ESRI code through PROJ, its edges densified. --out-sr projects the returned \
            geometries and the extent. Features are written as --format says (geojson, \
            geojsonseq, esrijson, csv or gpkg) to standard output or to --output FILE, which is \
            replaced only when complete; --precision rounds their coordinates. \
            Exit status: 1 when a file cannot be read or written, 2 for any other error.

            Examples:
              geosieve query countries.geojson --where "pop_est > 5e7" \\
                  --order-by 'pop_est DESC' --out-fields name --no-return-geometry
              geosieve query cities.geojson --geometry @fr.geojson --return count
              geosieve query boroughs.gpkg --geometry -74,40.7,-73.9,40.8 --return ids
              geosieve query parcels.geojson --where @clause.sql --out-sr 3857
              geosieve query cities.geojson --format csv --precision 5 --output cities.csv
              geosieve query countries.geojson --filter "S_INTERSECTS(geometry, BBOX(170, -20, -170, 0))" \\
                  --return count
            """
    )

    /// What to print.
    enum ReturnMode: String, ExpressibleByArgument, CaseIterable {
        case features, ids, count, extent
    }

    /// String comparison.
    enum CollationOption: String, ExpressibleByArgument, CaseIterable {
        case binary, nocase
    }

    @Argument(help: "A GeoJSON FeatureCollection, Feature or GeoJSONSeq, an Esri JSON FeatureSet, '-' for standard input, or a GeoPackage layer: FILE.gpkg or FILE.gpkg:LAYER.")
    var source: String

    // Options whose value may start with "-" (a negative number, a file name) take the next
    // argument whatever it looks like: `.unconditional`.
    @Option(
        name: .customLong("where"), parsing: .unconditional,
        help: "The SQL where clause (1=1 selects every feature), or @FILE to read it from a file.")
    var whereClause: String = "1=1"

    @Option(name: .customLong("object-ids"), parsing: .unconditional, help: "Comma-separated object IDs, ANDed with the where clause.")
    var objectIDs: String?

    @Option(
        name: .customLong("filter"), parsing: .unconditional,
        help: "A CQL2 filter (text or JSON), ANDed with the where clause, or @FILE to read it from a file.")
    var filter: String?

    /// The encoding of `--filter`.
    enum FilterLanguage: String, ExpressibleByArgument, CaseIterable {
        case cql2Text = "cql2-text"
        case cql2JSON = "cql2-json"
    }

    @Option(
        name: .customLong("filter-lang"),
        help: "The encoding of --filter: cql2-text or cql2-json (default: JSON when it starts with '{').")
    var filterLanguage: FilterLanguage?

    @Option(
        name: .customLong("filter-crs"), parsing: .unconditional,
        help: "The spatial reference of --filter's geometry literals (EPSG code; default 4326, longitude/latitude).")
    var filterCRS: Int?

    @Option(name: .customLong("out-fields"), parsing: .unconditional, help: "'*' (default) or comma-separated field names.")
    var outFields: String?

    @Flag(
        name: .customLong("return-geometry"), inversion: .prefixedNo,
        help: "Whether features carry their geometries (--no-return-geometry leaves them out).")
    var returnGeometry = true

    @Option(name: .customLong("order-by"), parsing: .unconditional, help: "Sort fields, e.g. 'pop_est DESC, name'.")
    var orderBy: String?

    @Option(parsing: .unconditional, help: "How many ordered features to skip.")
    var offset: Int?

    @Option(parsing: .unconditional, help: "At most how many features to print.")
    var limit: Int?

    @Option(help: "String comparison: binary (case-sensitive) or nocase.")
    var collation: CollationOption = .binary

    @Option(name: .customLong("return"), help: "What to print: the features, their ids, their count or their extent.")
    var returnMode: ReturnMode = .features

    @Option(parsing: .unconditional, help: "An Esri fields JSON file giving the fields to load the source with (at most 64 MiB).")
    var schema: String?

    @Option(
        name: .customLong("out-sr"), parsing: .unconditional,
        help: "The WKID (EPSG or ESRI code) of the returned geometries and extent (default: the table's).")
    var outSR: Int?

    @OptionGroup var spatialFilter: SpatialFilterOptions

    @OptionGroup var layerOptions: LayerOptions

    @Option(
        parsing: .unconditional,
        help: "Statistics instead of features: TYPE:FIELD[:ALIAS],… with TYPE count, sum, min, max, avg, stddev, var, percentile_cont(P), percentile_disc(P).")
    var statistics: String?

    @Option(name: .customLong("group-by"), parsing: .unconditional, help: "Comma-separated fields to group --statistics by.")
    var groupBy: String?

    @Option(parsing: .unconditional, help: "A condition over aggregates keeping groups of --statistics, e.g. 'COUNT(fid) > 3', or @FILE.")
    var having: String?

    @Flag(help: "The distinct combinations of --out-fields' values instead of features (REST returnDistinctValues).")
    var distinct = false

    @OptionGroup(title: "Loading") var loading: LoadingOptions

    @OptionGroup(title: "Output") var outputOptions: OutputOptions

    func run() throws {
        var query = QueryParameters(whereClause: try argumentText(whereClause, argument: "--where"))
        query.objectIDs = try parseObjectIDs()
        query.outFields = try parseOutFields()
        query.returnGeometry = returnGeometry
        query.resultOffset = offset
        query.maxFeatures = limit
        query.collation = collation == .nocase ? .nocase : .binary
        if let offset, offset < 0 { throw CommandFailure("--offset must not be negative, not \(offset)") }
        if let limit, limit < 0 { throw CommandFailure("--limit must not be negative, not \(limit)") }
        try spatialFilter.apply(to: &query)
        if let filter {
            let encoding: CQL2Error.Encoding? = filterLanguage.map { $0 == .cql2JSON ? .json : .text }
            query.filter = try CQL2Filter(try argumentText(filter, argument: "--filter"), encoding: encoding)
            if let filterCRS {
                query.filterSpatialReference = try Self.spatialReference(filterCRS, option: "--filter-crs")
            }
        } else if filterLanguage != nil || filterCRS != nil {
            throw CommandFailure("--filter-lang and --filter-crs need --filter")
        }
        if let outSR {
            query.outSpatialReference = try Self.spatialReference(outSR, option: "--out-sr")
        }

        let aggregate = statistics != nil || distinct
        try checkAggregateOptions()
        let format = try outputOptions.checkedFormat(returningFeatures: returnMode == .features && !aggregate)
        if PostGISSource.isURL(source), !aggregate, try layerOptions.definitionText() == nil, schema == nil {
            try runInDatabase(query, format: format)
            return
        }
        let fields = try schema.map { path in try loadFields(path) }
        if loading.mode == .selection, collation == .nocase {
            // The service compares text as it does; a case-blind query could select more.
            throw CommandFailure("--mode selection cannot be combined with --collation nocase: the service compares text with its own collation")
        }
        let needs = ServiceSource.Needs(
            command: "query", whereClause: query.whereClause, extent: spatialFilter.readExtent(query), selects: true,
            definitionExpression: try layerOptions.definitionText())
        let (table, layerName) = try Self.loadSource(source, fields: fields, loading: loading, needs: needs)
        // The layer's definition expression (none by default) limits every answer.
        var layer = FeatureLayer(source: table, name: layerName)
        if let definition = try layerOptions.definitionText() { try LayerOptions.apply(definition, to: &layer) }
        do {
            if aggregate {
                // Statistics order by group fields or output names, checked by the statistics query.
                let order = try orderBy.map { try SortField.list($0) } ?? []
                try outputOptions.writeDocument(try aggregateOutput(query, orderBy: order, layer: layer))
                return
            }
            if let orderBy { query.orderBy = try SortField.list(orderBy, schema: table.schema) }
            let output: [UInt8]
            switch returnMode {
            case .count:
                output = Array(QueryResponseJSON.count(try layer.queryFeatureCount(query)).utf8)
            case .ids:
                let ids = try layer.queryObjectIDs(query)
                output = Array(QueryResponseJSON.objectIDs(ids, objectIdFieldName: table.schema.objectIdFieldName).utf8)
            case .extent:
                let (count, extent) = try layer.queryExtent(query)
                output = Array(
                    QueryResponseJSON.extent(
                        count: count, extent: extent,
                        spatialReference: query.outSpatialReference ?? table.spatialReference
                    ).utf8)
            case .features:
                // Written in pieces as they are made: a large result never sits in memory whole.
                let result = try layer.queryFeatures(query)
                try outputOptions.write(
                    result, format: format, sourceLayer: layerName, progress: loading.writeProgressLine(output: outputOptions.output))
                return
            }
            try outputOptions.writeDocument(output)
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    /// The query pushed down to the PostGIS table SOURCE names: the database selects, orders
    /// and pages; the answer is written as for any table.
    private func runInDatabase(_ parameters: QueryParameters, format: OutputOptions.Format) throws {
        let orderText = orderBy
        let mode = returnMode
        do {
            let (output, result, tableName) = try PostGISSource.with(source) { source -> ([UInt8], FeatureQueryResult?, String) in
                var query = parameters
                if let orderText { query.orderBy = try SortField.list(orderText, schema: source.schema) }
                switch mode {
                case .count:
                    return (Array(QueryResponseJSON.count(try await source.queryFeatureCount(query)).utf8), nil, source.table.name)
                case .ids:
                    let ids = try await source.queryObjectIDs(query)
                    return (Array(QueryResponseJSON.objectIDs(ids, objectIdFieldName: source.schema.objectIdFieldName).utf8), nil, source.table.name)
                case .extent:
                    let (count, extent) = try await source.queryExtent(query)
                    let reference = query.outSpatialReference ?? source.table.spatialReference
                    return (Array(QueryResponseJSON.extent(count: count, extent: extent, spatialReference: reference).utf8), nil, source.table.name)
                case .features:
                    return ([], try await source.queryFeatures(query), source.table.name)
                }
            }
            if let result {
                try outputOptions.write(result, format: format, sourceLayer: tableName, progress: loading.writeProgressLine(output: outputOptions.output))
            } else {
                try outputOptions.writeDocument(output)
            }
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    /// Checks that the statistics options go together.
    private func checkAggregateOptions() throws {
        if statistics != nil, distinct { throw CommandFailure("--statistics and --distinct cannot be combined") }
        if statistics == nil {
            if groupBy != nil { throw CommandFailure("--group-by needs --statistics") }
            if having != nil { throw CommandFailure("--having needs --statistics") }
        }
        if statistics != nil || distinct, returnMode != .features {
            throw CommandFailure("--statistics and --distinct print their own result; --return \(returnMode.rawValue) cannot be combined")
        }
        if distinct, outFields == nil { throw CommandFailure("--distinct needs --out-fields naming the fields") }
    }

    /// The statistics or distinct values, as ArcGIS REST writes them.
    private func aggregateOutput(_ query: QueryParameters, orderBy: [SortField], layer: FeatureLayer) throws -> [UInt8] {
        if distinct {
            var query = query
            query.orderBy = orderBy
            return try layer.queryDistinctValues(query).esriJSONBytes
        }
        guard let statistics else { return [] }
        let definitions = try StatisticDefinition.list(try argumentText(statistics, argument: "--statistics"))
        let groups = try groupBy.map { try QueryParameters.outFieldList($0, parameter: "--group-by") } ?? []
        let havingText = try having.map { try argumentText($0, argument: "--having") }
        let parameters = StatisticsQueryParameters(
            query: query, statistics: definitions, groupByFields: groups, having: havingText, orderBy: orderBy)
        return try layer.queryStatistics(parameters).esriJSONBytes
    }

    /// The spatial reference of `--in-sr`/`--out-sr`: a positive WKID that PROJ knows (4326 and
    /// 3857 and its aliases always).
    static func spatialReference(_ code: Int, option: String) throws -> SpatialReference {
        guard code > 0 else { throw CommandFailure("\(option) must be a positive WKID, not \(code)") }
        let reference = SpatialReference(wkid: code)
        do {
            try Projector.validate(reference)
        } catch {
            throw CommandFailure("\(option): \(error)")
        }
        return reference
    }

    /// `--object-ids 1,2,3`.
    private func parseObjectIDs() throws -> [Int64]? {
        guard let objectIDs else { return nil }
        do {
            return try QueryParameters.objectIDList(objectIDs, parameter: "--object-ids")
        } catch {
            throw CommandFailure(error.message)
        }
    }

    /// `--out-fields '*'` or `--out-fields a,b`.
    private func parseOutFields() throws -> [String]? {
        guard let outFields else { return nil }
        do {
            return try QueryParameters.outFieldList(outFields, parameter: "--out-fields")
        } catch {
            throw CommandFailure(error.message)
        }
    }

    /// The fields of a `--schema` file.
    private func loadFields(_ path: String) throws -> [Field] {
        let text = try InputFiles.argumentText(path, option: "--schema")
        do {
            return try Field.fields(esriJSON: text)
        } catch {
            throw CommandFailure("--schema \(path): \(error)")
        }
    }

    /// The table in `path` (a regular file, mapped whatever its size; a pipe, a device or `-`,
    /// standard input, read up to its first byte that is not JSON, at most
    /// ``InputFiles/streamLimit``; `FILE.gpkg[:LAYER]` a GeoPackage layer), loaded as `loading`
    /// asks, and its layer name: the GeoPackage layer read, else the file name without
    /// extension. With `keepingFileShape`, a GeoJSON or Esri JSON table remembers the file's
    /// shape, for saving edits into it.
    static func loadSource(
        _ path: String, fields: [Field]?, loading: LoadingOptions? = nil, needs: ServiceSource.Needs = .everything("this command"),
        keepingFileShape: Bool = false
    ) throws -> (table: FeatureTable, layerName: String) {
        if ServiceSource.isURL(path) {
            // The layer's fields come from the service.
            guard fields == nil else { throw CommandFailure("--schema does not apply to a feature service: its fields come from the service") }
            return try ServiceSource.load(path, loading: loading, needs: needs)
        }
        if let loading, loading.mode != .snapshot {
            throw CommandFailure("--mode \(loading.mode.rawValue) applies to a feature service SOURCE (…/FeatureServer/N, OAPIF:URL#collection)")
        }
        if PostGISSource.isURL(path) {
            // The table's fields come from the database's catalogue.
            guard fields == nil else { throw CommandFailure("--schema does not apply to a PostGIS table: its fields come from the catalogue") }
            return try PostGISSource.load(path)
        }
        if let source = GeoPackageSource.parse(path) {
            return try GeoPackageSource.load(
                path: source.path, layer: source.layer, fields: fields,
                progress: loading?.progressLine(verb: "loading \(source.path)"))
        }
        let table = try loadTable(path, fields: fields, loading: loading, keepingFileShape: keepingFileShape)
        return (table, URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent)
    }

    /// A GeoJSON or Esri JSON table (see ``loadSource(_:fields:loading:needs:keepingFileShape:)``); with
    /// `keepingFileShape`, remembering the file's shape for saving edits into it.
    private static func loadTable(
        _ path: String, fields: [Field]?, loading: LoadingOptions?, keepingFileShape: Bool
    ) throws -> FeatureTable {
        let name = path == "-" ? "standard input" : path
        // A regular file is mapped and read once by the loader; standard input, a pipe or a
        // device is read until its first byte that is not JSON, at most InputFiles.streamLimit.
        let stream = try InputFiles.openStream(path)
        defer { if let stream { _ = close(stream) } }
        let progress = loading?.progressLine(verb: "loading \(name)")
        defer { progress?.finish() }
        var options = try loading?.options(progress: progress) ?? LoadOptions()
        options.keepsFileRepresentation = keepingFileShape
        do {
            let (table, report) =
                try stream.map {
                    try FeatureTable.loadReporting(
                        fileDescriptor: $0, name: name, limit: InputFiles.streamLimit, schema: fields, options: options)
                }
                ?? FeatureTable.loadReporting(contentsOfFile: path, schema: fields, options: options)
            progress?.finish()
            LoadingOptions.printSkipped(report, source: name)
            return table
        } catch let error as FeatureTableError where error.kind == .unreadableFile {
            throw CommandFailure.unreadable(error.message)
        } catch {
            throw CommandFailure("\(name): \(error)")
        }
    }
}

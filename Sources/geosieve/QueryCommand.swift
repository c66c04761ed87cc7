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
struct QueryCommand: AsyncParsableCommand {
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
              geosieve query countries.geojson --return count \\
                  --filter "S_INTERSECTS(geometry, BBOX(170, -20, -170, 0))"
              geosieve query countries.geojson --where "name = 'France'" > fr.geojson
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
        help: "The WKID (EPSG or ESRI code: 3857, EPSG:3857, ESRI:102100) of the returned geometries and extent (default: the table's).")
    var outSR: SpatialReferenceCode?

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

    func run() async throws {
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
            query.outSpatialReference = try Self.spatialReference(outSR.wkid, option: "--out-sr")
        }

        let aggregate = statistics != nil || distinct
        try checkAggregateOptions()
        let format = try outputOptions.checkedFormat(returningFeatures: returnMode == .features && !aggregate)
        let fields = try schema.map { path in try loadFields(path) }
        if loading.mode == .selection, collation == .nocase {
            // The service compares text as it does; a case-blind query could select more.
            throw CommandFailure("--mode selection cannot be combined with --collation nocase: the service compares text with its own collation")
        }
        let definition = try layerOptions.definitionText()
        var needs = ServiceSource.Needs(
            command: "query", whereClause: query.whereClause, extent: spatialFilter.readExtent(query), selects: true,
            definitionExpression: definition)
        // (A malformed --order-by reads every field; the request below says what is wrong.)
        let sort: [SortField]? = orderBy == nil ? [] : orderBy.flatMap { try? SortField.list($0) }
        if !aggregate, query.filter == nil, let sort {
            needs.columns = Self.columns(query, definition: definition, orderBy: sort)
        }
        let aggregates = try statisticsRequest()
        // A PostGIS table is queried where it lives; every other source is read into memory.
        try await CommandSource.withSource(source, fields: fields, loading: loading, needs: needs, inMemory: false) { opened in
            // The layer's definition expression (none by default) limits every answer.
            var layer = FeatureLayer(source: opened.source, name: opened.name)
            if let definition { try LayerOptions.apply(definition, to: &layer) }
            let answer: QueryAnswer
            do {
                answer = try await layer.query(try request(query, aggregates: aggregates, schema: layer.schema))
            } catch let error as CommandFailure {
                throw error
            } catch {
                throw CommandFailure("", error)
            }
            if case .features(let result) = answer {
                // Written in pieces as they are made: a large result never sits in memory whole.
                try outputOptions.write(
                    result, format: format, sourceLayer: opened.name, progress: loading.writeProgressLine(output: outputOptions.output))
            } else {
                try outputOptions.writeDocument(answer.esriJSON())
            }
        }
    }

    /// The only fields `query` reads: its `--out-fields` (a list, not `*`), the fields of its
    /// where clause, definition expression and `--order-by`; `nil` (every field) when it asks
    /// for all or a clause does not parse (the engine then says why).
    static func columns(_ query: QueryParameters, definition: String?, orderBy: [SortField]) -> [String]? {
        guard let outFields = query.outFields, !outFields.contains("*") else { return nil }
        var names = Set(outFields)
        for clause in [query.whereClause, definition ?? ""] where !clause.isEmpty {
            guard let expression = try? WhereClause.parse(clause) else { return nil }
            names.formUnion(expression.fieldNames)
        }
        names.formUnion(orderBy.map(\.field))
        return names.sorted()
    }

    /// The one request the options make: the answer `--return`, `--distinct` or
    /// `--statistics` asks for; features and distinct values ordered by `--order-by` (named
    /// fields of the source), statistics by group fields or output names.
    private func request(_ parameters: QueryParameters, aggregates: StatisticsRequest?, schema: Schema) throws -> QueryRequest {
        var parameters = parameters
        if let aggregates {
            parameters.orderBy = try orderBy.map { try SortField.list($0) } ?? []
            return QueryRequest(parameters, answer: .statistics(aggregates))
        }
        if distinct {
            parameters.orderBy = try orderBy.map { try SortField.list($0) } ?? []
            return QueryRequest(parameters, answer: returnMode == .count ? .distinctCount : .distinctValues)
        }
        // Field names are checked here, so that errors name the options and suggest fields.
        for name in parameters.outFields ?? [] where name.trimmingWhitespace() != "*" {
            do {
                _ = try QueryPlan.resolve(String(name.trimmingWhitespace()), in: schema, parameter: "--out-fields")
            } catch {
                throw CommandFailure(error.message)
            }
        }
        if let orderBy {
            do {
                parameters.orderBy = try SortField.list(orderBy, schema: schema)
            } catch {
                throw CommandFailure("--order-by: \(error.message)")
            }
        }
        switch returnMode {
        case .features: return QueryRequest(parameters, answer: .features)
        case .ids: return QueryRequest(parameters, answer: .objectIDs)
        case .count: return QueryRequest(parameters, answer: .count)
        case .extent: return QueryRequest(parameters, answer: .extent)
        }
    }

    /// Checks that the statistics options go together.
    private func checkAggregateOptions() throws {
        if statistics != nil, distinct { throw CommandFailure("--statistics and --distinct cannot be combined") }
        if statistics == nil {
            if groupBy != nil { throw CommandFailure("--group-by needs --statistics") }
            if having != nil { throw CommandFailure("--having needs --statistics") }
        }
        if statistics != nil, returnMode != .features {
            throw CommandFailure("--statistics prints its own result; --return \(returnMode.rawValue) cannot be combined")
        }
        if distinct, returnMode != .features, returnMode != .count {
            throw CommandFailure("--distinct prints the distinct values or, with --return count, their count; --return \(returnMode.rawValue) cannot be combined")
        }
        if distinct, outFields == nil { throw CommandFailure("--distinct needs --out-fields naming the fields") }
    }

    /// The aggregates `--statistics`, `--group-by` and `--having` ask for, or `nil`.
    private func statisticsRequest() throws -> StatisticsRequest? {
        guard let statistics else { return nil }
        let definitions = try StatisticDefinition.list(try argumentText(statistics, argument: "--statistics"))
        let groups = try groupBy.map { try QueryParameters.outFieldList($0, parameter: "--group-by") } ?? []
        let havingText = try having.map { try argumentText($0, argument: "--having") }
        return StatisticsRequest(statistics: definitions, groupByFields: groups, having: havingText)
    }

    /// The spatial reference of `--in-sr`/`--out-sr`: a positive WKID that PROJ knows (4326 and
    /// 3857 and its aliases always).
    static func spatialReference(_ code: Int, option: String) throws -> SpatialReference {
        guard code > 0 else { throw CommandFailure("\(option) must be a positive WKID, not \(code)") }
        let reference = SpatialReference(wkid: code)
        do {
            try Projector.validate(reference)
        } catch {
            throw CommandFailure("\(option): ", error)
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
}

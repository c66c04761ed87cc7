import ArgumentParser
import Foundation
import GeoSieve
import SieveClients
import SieveJSON

/// A layer argument: `SOURCE` or `SOURCE:NAME` (the name a layer is shown under). A GeoPackage
/// `FILE.gpkg:LAYER` names its layer that way already; for other sources, `PATH:NAME` is split
/// at the last colon when no file is called `PATH:NAME` and a file `PATH` exists.
struct LayerArgument {
    /// The source, as `CommandSource` opens it.
    let source: String
    /// The name given after the colon, if any.
    let name: String?

    init(_ argument: String) {
        if CommandSource.geoPackage(argument) != nil || argument == "-" || FileManager.default.fileExists(atPath: argument) {
            source = argument
            name = nil
            return
        }
        if let colon = argument.lastIndex(of: ":") {
            let path = String(argument[..<colon])
            let name = String(argument[argument.index(after: colon)...])
            if !name.isEmpty, FileManager.default.fileExists(atPath: path) || CommandSource.geoPackage(path) != nil {
                self.source = path
                self.name = name
                return
            }
        }
        source = argument
        name = nil
    }

    /// The layer this argument names, loaded (a feature service as `needs` and `--mode` say),
    /// with `definitionExpression` applied. A service layer brings what it says of itself: its
    /// renderer, scale range, visibility, display field, opacity, time and the definition the
    /// service applies (``/SieveMap/FeatureLayer/sourceDefinitionExpression``).
    func load(
        definitionExpression: String?, loading: LoadingOptions? = nil, needs: ServiceSource.Needs = .everything("this command")
    ) async throws -> FeatureLayer {
        var needs = needs
        needs.definitionExpression = definitionExpression
        let name = self.name
        var layer = try await CommandSource.withSource(source, loading: loading, needs: needs) { opened in
            guard let table = opened.source.inMemoryTable else { throw CommandFailure("\(source): the source was not read into memory") }
            var layer = FeatureLayer(source: table, name: name ?? opened.name)
            #if RemoteSources
            if let service = opened.source as? ServiceFeatureTable {
                if case .arcGIS(let reader) = service.service, let renderer = reader.info.drawingInfo?.renderer { layer.renderer = renderer }
                layer.takeServiceSettings(of: service)
            }
            #endif
            return layer
        }
        if let definitionExpression {
            try LayerOptions.apply(definitionExpression, to: &layer)
        }
        return layer
    }
}

/// The layer options `query`, `identify`, `count` and `render` share.
struct LayerOptions: ParsableArguments {
    @Option(
        name: .customLong("definition-expression"), parsing: .unconditional,
        help: "A where clause limiting every query, count, selection and identify of the layer, or @FILE.")
    var definitionExpression: String?

    /// The definition expression's text (read from its file for @FILE).
    func definitionText() throws -> String? {
        try definitionExpression.map { try argumentText($0, argument: "--definition-expression") }
    }

    /// Sets `sql` as `layer`'s definition expression, with the option's name in the error.
    static func apply(_ sql: String, to layer: inout FeatureLayer) throws {
        do {
            try layer.setDefinitionExpression(sql)
        } catch {
            throw CommandFailure("--definition-expression: \(error)")
        }
    }
}

/// The filters a command of several layers applies to each layer whose fields they name
/// (`render`, `tiles`): an option is an error only when it fits none of the layers, and then
/// with the first layer's reason.
struct PerLayerOptions {
    private var misfits: [String: (count: Int, error: any Error)] = [:]

    /// Runs `body`, which applies `option` to one layer, noting its failure.
    mutating func apply(_ option: String, _ body: () throws -> Void) {
        do {
            try body()
        } catch {
            let previous = misfits[option]
            misfits[option] = ((previous?.count ?? 0) + 1, previous?.error ?? error)
        }
    }

    /// Throws for the first option (by name) that fitted none of `layerCount` layers.
    func check(layerCount: Int) throws {
        for (option, misfit) in misfits.sorted(by: { $0.key < $1.key }) where misfit.count == layerCount {
            throw CommandFailure("\(option): \(misfit.error)")
        }
    }
}

/// The view options: `--map-extent`, `--size` and `--scale`.
struct ViewOptions: ParsableArguments {
    @Option(name: .customLong("map-extent"), parsing: .unconditional, help: "The map extent shown: XMIN,YMIN,XMAX,YMAX.")
    var mapExtent: String

    @Option(parsing: .unconditional, help: "The view size in pixels: W,H.")
    var size: String

    @Option(
        parsing: .unconditional,
        help: "The map scale (denominator); default: from the extent and the view width at 96 DPI.")
    var scale: Double?

    /// The extent, checked.
    func extent() throws -> Envelope {
        let e = try IdentifyCommand.numbers(mapExtent, count: 4, argument: "--map-extent", form: "XMIN,YMIN,XMAX,YMAX")
        guard e[0] < e[2], e[1] < e[3] else {
            throw CommandFailure("--map-extent: expected XMIN < XMAX and YMIN < YMAX, not \(JSONKey.abbreviated(mapExtent))")
        }
        return Envelope(xmin: e[0], ymin: e[1], xmax: e[2], ymax: e[3])
    }

    /// The view size, checked: positive.
    func viewSize() throws -> (width: Double, height: Double) {
        let wh = try IdentifyCommand.numbers(size, count: 2, argument: "--size", form: "W,H")
        guard wh[0] > 0, wh[1] > 0 else {
            throw CommandFailure("--size: width and height must be positive, not \(JSONKey.abbreviated(size))")
        }
        return (wh[0], wh[1])
    }

    /// `--scale`, or the scale of the view in `spatialReference`.
    func mapScale(spatialReference: SpatialReference) throws -> Double {
        if let scale {
            guard scale.isFinite, scale > 0 else { throw CommandFailure("--scale must be a positive number, not \(scale)") }
            return scale
        }
        do {
            return try MapScale.scale(extent: extent(), width: viewSize().width, spatialReference: spatialReference)
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure("", error)
        }
    }
}

/// `geosieve count SOURCE --map-extent … --size W,H [--definition-expression SQL]
/// [--display-filter SQL] [--scale N]`: how many features of a layer lie in a view, and how
/// many of them are drawn.
struct CountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count",
        abstract: "Count a layer's features in a map view, and those its display filter draws.",
        discussion: """
            Prints {"count":N,"displayedCount":M}; for a feature service layer with a definition \
            expression of its own, "definitionExpression" too: the service's ANDed with \
            --definition-expression, which every counted feature satisfies. count is the number of features whose \
            envelope meets --map-extent and that pass the definition expression; displayedCount \
            is how many of them are drawn: the display filter applies too, and 0 when the scale \
            lies outside --min-scale/--max-scale. A display filter never changes count, as \
            ArcGIS's queryFeatureCount ignores it; a definition expression changes both. The \
            scale is --scale, or the extent's ground width over the view's width at 96 DPI. A \
            feature service layer brings its own scale range (minScale, maxScale) unless \
            --min-scale or --max-scale is given.

            Example:
              geosieve count countries.geojson --map-extent -180,-90,180,90 --size 1440,720 \\
                  --definition-expression "continent = 'Africa'" --display-filter "pop_est > 5e7"
            """
    )

    @Argument(help: "A GeoJSON, Esri JSON or GeoPackage (FILE.gpkg[:LAYER]) source.")
    var source: String

    @OptionGroup var layerOptions: LayerOptions

    @Option(
        name: .customLong("display-filter"), parsing: .unconditional,
        help: "A where clause limiting which features are drawn (not counted), or @FILE.")
    var displayFilter: String?

    @OptionGroup var scaleRange: ScaleRangeOptions

    @OptionGroup var view: ViewOptions

    @OptionGroup(title: "Loading") var loading: LoadingOptions

    func run() async throws {
        let extent = try view.extent()
        _ = try view.viewSize()
        try scaleRange.check()
        var layer = try await LayerArgument(source).load(
            definitionExpression: layerOptions.definitionText(), loading: loading, needs: ServiceSource.Needs(command: "count", extent: extent))
        scaleRange.apply(to: &layer)
        if let displayFilter {
            let sql = try argumentText(displayFilter, argument: "--display-filter")
            do {
                try layer.setDisplayFilter(commandLine: sql)
            } catch {
                throw CommandFailure("--display-filter: \(error)")
            }
        }
        let scale = try view.mapScale(spatialReference: layer.schema.spatialReference)
        let count: Int, displayed: Int
        do {
            count = try layer.queryFeatureCount(
                QueryParameters(returnGeometry: false, geometry: .envelope(extent), spatialRelationship: .envelopeIntersects))
            displayed = try layer.displayedFeatureCount(in: extent, scale: scale)
        } catch {
            throw CommandFailure("", error)
        }
        // A service layer's own definition, ANDed with --definition-expression: what the
        // counted features satisfy.
        let definition =
            layer.sourceDefinitionExpression.isEmpty
            ? "" : ",\"definitionExpression\":" + JSONWriter.string(.string(layer.effectiveDefinitionExpression))
        try OutputFile.write(to: nil) { write in
            try write(Array("{\"count\":\(count),\"displayedCount\":\(displayed)\(definition)}\n".utf8))
        }
    }
}

extension FeatureLayer {
    /// `--display-filter`'s where clause as the layer's one display filter. The clause is
    /// checked against the layer's fields first, so that an error reads `--display-filter: …`
    /// rather than through the name a display filter has in a layer's definition.
    mutating func setDisplayFilter(commandLine sql: String) throws {
        _ = try prepare(QueryParameters(whereClause: sql, returnGeometry: false))
        try setDisplayFilterDefinition(.manual(activeFilter: DisplayFilter(name: "--display-filter", whereClause: sql), availableFilters: []))
    }
}

/// `--min-scale` and `--max-scale`, which `count` and `render` share: a layer's scale range, over
/// what a service layer says of its own.
struct ScaleRangeOptions: ParsableArguments {
    @Option(
        name: .customLong("min-scale"), parsing: .unconditional,
        help: "The layers' minimum scale (0: none; default: a service layer's own, else none).")
    var minScale: Double?

    @Option(
        name: .customLong("max-scale"), parsing: .unconditional,
        help: "The layers' maximum scale (0: none; default: a service layer's own, else none).")
    var maxScale: Double?

    /// Refuses scales that are not finite or are negative.
    func check() throws {
        guard [minScale, maxScale].allSatisfy({ $0.map { $0.isFinite && $0 >= 0 } ?? true }) else {
            throw CommandFailure("--min-scale and --max-scale must be finite and not negative")
        }
    }

    /// Gives `layer` the scales given.
    func apply(to layer: inout FeatureLayer) {
        if let minScale { layer.minScale = minScale }
        if let maxScale { layer.maxScale = maxScale }
    }
}

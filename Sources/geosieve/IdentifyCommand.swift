import ArgumentParser
import Foundation
import GeoSieve
import SieveJSON

/// `geosieve identify SOURCE[:NAME]... --point X,Y --tolerance PX --map-extent XMIN,YMIN,XMAX,YMAX
/// --size W,H [--layer-option top|visible|all] [--definition-expression SQL] [--max-results N]
/// [--return-geometry] [--where SQL] [--output FILE] [--pretty]`: which features a tap at a
/// map point hits, per layer, printed as ArcGIS REST's identify response.
///
/// Exit status: 0 on success; 1 when SOURCE cannot be read; 2 for bad arguments (a tolerance
/// outside 0…100, a size that is not positive, malformed numbers), a bad where clause and a
/// file that is not a valid FeatureCollection / FeatureSet.
struct IdentifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identify",
        abstract: "Identify the features of one or more layers near a map point.",
        discussion: """
            Each SOURCE is a layer (SOURCE:NAME names it); the first is drawn first, at the \
            bottom, and results list the top layer first. --layer-option top (default) answers \
            from the topmost layer with a hit, visible from every layer, all likewise (the \
            command's layers are always visible). --definition-expression and --where limit \
            every layer. The search radius in map units is TOLERANCE × (map extent width / view width); a \
            feature is hit when its geometry lies within that distance of the point (a circle; \
            polygons containing the point are hit at distance 0). Hits come nearest first, ties \
            by object ID, at most --max-results of them (default 1; 0 for all). Output: \
            {"results":[{"layerId":0,"layerName":…,"objectId":…,"displayFieldName":…,"value":…,\
            "attributes":{…},"geometry":{…}}]}; layerName is SOURCE's file name without \
            extension (a GeoPackage's layer name), the display field is --display-field, else the file's \
            displayFieldName, else the string field named "name", else the first whose name contains "name", \
            "title" or "label", else the first string field (as ArcGIS Pro and QGIS choose it); value is its value as text ("Null" for NULL), attributes hold every field \
            (dates as epoch milliseconds), and geometry (Esri JSON with its spatialReference) \
            only with --return-geometry. --output writes the answer to a file (replaced only \
            when complete) instead of standard output; --pretty indents it by two spaces. \
            Exit status: 1 when the file cannot be read, 2 for any other error.

            Examples:
              geosieve identify countries.geojson --point 2.3,46.5 \\
                  --map-extent -180,-90,180,90 --size 1440,720 --display-field iso_a3
              geosieve identify countries.geojson cities.geojson --point 2.35,48.85 \\
                  --map-extent -10,35,30,60 --size 800,600 --tolerance 5 \\
                  --layer-option visible --pretty
            """
    )

    @Argument(help: "Layers, bottom first: GeoJSON, Esri JSON, '-' for standard input, or FILE.gpkg[:LAYER]; SOURCE:NAME names a layer.")
    var sources: [String]

    @Option(name: .customLong("layer-option"), help: "top (default), visible or all.")
    var layerOption: IdentifyLayerOption = .top

    @OptionGroup var layerOptions: LayerOptions

    @OptionGroup(title: "Loading") var loading: LoadingOptions

    @Option(parsing: .unconditional, help: "The map point X,Y, in the file's spatial reference.")
    var point: String

    @Option(parsing: .unconditional, help: "The search radius in pixels, 0…100.")
    var tolerance: Double = 3

    @Option(name: .customLong("map-extent"), parsing: .unconditional, help: "The map extent shown: XMIN,YMIN,XMAX,YMAX.")
    var mapExtent: String

    @Option(parsing: .unconditional, help: "The view size in pixels: W,H.")
    var size: String

    @Option(name: .customLong("max-results"), parsing: .unconditional, help: "At most how many hits (0 for all).")
    var maxResults: Int = 1

    @Flag(
        name: .customLong("return-geometry"), inversion: .prefixedNo,
        help: "Whether each hit carries its geometry, as Esri JSON.")
    var returnGeometry = false

    @Option(
        name: .customLong("where"), parsing: .unconditional,
        help: "A where clause limiting the features that can be hit, or @FILE to read it from a file.")
    var whereClause: String = "1=1"

    @Option(
        name: .customLong("display-field"), parsing: .unconditional,
        help: "The field each hit's value shows, in every layer (default: the layer's display field).")
    var displayField: String?

    @OptionGroup var documentOutput: DocumentOutputOptions

    func run() async throws {
        let xy = try Self.numbers(point, count: 2, argument: "--point", form: "X,Y")
        let extent = try Self.numbers(mapExtent, count: 4, argument: "--map-extent", form: "XMIN,YMIN,XMAX,YMAX")
        let wh = try Self.numbers(size, count: 2, argument: "--size", form: "W,H")
        guard tolerance.isFinite, tolerance >= 0, tolerance <= 100 else {
            throw CommandFailure("--tolerance must be 0…100 pixels, not \(tolerance)")
        }
        guard wh[0] > 0, wh[1] > 0 else { throw CommandFailure("--size: width and height must be positive, not \(JSONKey.abbreviated(size))") }
        guard extent[0] < extent[2], extent[1] < extent[3] else {
            throw CommandFailure("--map-extent: expected XMIN < XMAX and YMIN < YMAX, not \(JSONKey.abbreviated(mapExtent))")
        }
        guard maxResults >= 0 else { throw CommandFailure("--max-results must not be negative, not \(maxResults)") }
        guard !sources.isEmpty else { throw CommandFailure("identify needs at least one SOURCE") }
        if sources.filter({ $0 == "-" }).count > 1 { throw CommandFailure("standard input ('-') can be read once") }
        let whereText = try argumentText(whereClause, argument: "--where")
        var definition = try layerOptions.definitionText()
        if !whereText.allSatisfy(\.isWhitespace), whereText != "1=1" {
            definition = definition.map { "(\($0)) AND (\(whereText))" } ?? whereText
        }
        var layers: [FeatureLayer] = []
        for source in sources {
            // A feature service on demand: what the map shows (the extent tapped in), buffered.
            let shown = Envelope(xmin: extent[0], ymin: extent[1], xmax: extent[2], ymax: extent[3])
            var layer = try await LayerArgument(source).load(
                definitionExpression: nil, loading: loading, needs: ServiceSource.Needs(command: "identify", extent: shown))
            if let definition {
                do {
                    try layer.setDefinitionExpression(definition)
                } catch {
                    throw CommandFailure("", error)
                }
            }
            if let displayField {
                guard layer.schema.index(ofField: displayField) != nil else {
                    let hint = WhereClauseError.didYouMean(displayField, among: layer.schema.fields.map(\.name))
                    throw CommandFailure("--display-field: \(layer.name) has no field \(JSONKey.quoted(displayField))\(hint)")
                }
                layer.displayFieldName = displayField
            }
            layers.append(layer)
        }
        let map = Map(layers: layers)
        let parameters = MapIdentifyParameters(
            point: Point(x: xy[0], y: xy[1]), tolerance: tolerance,
            mapExtent: Envelope(xmin: extent[0], ymin: extent[1], xmax: extent[2], ymax: extent[3]),
            viewWidth: wh[0], viewHeight: wh[1], layerOption: layerOption, maxResultsPerLayer: maxResults,
            returnGeometry: returnGeometry)
        let answers: [IdentifyLayerResult]
        do {
            answers = try map.identify(parameters)
        } catch {
            throw CommandFailure("", error)
        }
        // When every layer identified failed, the command fails with the first error.
        if !answers.isEmpty, answers.allSatisfy({ $0.error != nil }), let error = answers.first?.error {
            throw CommandFailure("", error)
        }
        let json = Map.identifyJSON(answers)
        try documentOutput.write(json)
    }

    /// `count` finite comma-separated numbers.
    static func numbers(_ text: String, count: Int, argument: String, form: String) throws -> [Double] {
        let pieces = text.split(separator: ",", omittingEmptySubsequences: false)
        let values = pieces.compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard pieces.count == count, values.count == count, values.allSatisfy(\.isFinite) else {
            throw CommandFailure("\(argument): expected \(form) (\(count) numbers), not \(JSONKey.quoted(text))")
        }
        return values
    }
}

extension IdentifyLayerOption: ExpressibleByArgument {}

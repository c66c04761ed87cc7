import ArgumentParser
import Foundation
import GeoSieve
import SieveJSON

/// `geosieve render SOURCE[:NAME]... --map-extent XMIN,YMIN,XMAX,YMAX --size W,H
/// [--renderer FILE.json]... [--definition-expression SQL] [--display-filter SQL] [--scale N]
/// [--select SQL] --output map.svg`: draws what the layers display as a standalone SVG map.
struct RenderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Draw the features layers display in a map view as an SVG file.",
        discussion: """
            Each SOURCE is a layer (SOURCE:NAME names it), drawn in order: the first at the \
            bottom. A layer draws the features whose envelope meets the extent (widened to the \
            view's aspect) and that pass --definition-expression and --display-filter (each filter applies to the \
            layers whose fields it names, and is an error when it fits none), each with \
            the symbol of its renderer: --renderer FILE (Esri JSON: a renderer, or a drawingInfo \
            holding one), given once for every layer or once per layer in order; without it a \
            default symbol. --select selects each layer's features passing a where clause; they \
            are drawn again on top in cyan. The map scale is --scale, or the extent's ground \
            width over the view's width at 96 DPI; layers outside --min-scale/--max-scale draw \
            nothing. Prints {"output":…,"width":…,"height":…,"scale":…,"extent":{…},\
            "layers":[{"name":…,"displayed":N,"selected":M}]}. The SVG is written to --output \
            (a file is replaced only when complete; a symbolic link is followed to its target; \
            a FIFO or device is written directly; '-' is standard output, and the summary then \
            goes to standard error). Layers must share one spatial reference. A feature service \
            layer brings its own renderer (unless --renderer), scale range (unless --min-scale or \
            --max-scale), visibility and transparency (its group's SVG opacity), and its \
            definition expression stays the service's, ANDed with --definition-expression.

            Example:
              geosieve render countries.geojson cities.geojson \\
                  --map-extent -180,-90,180,90 --size 1440,720 \\
                  --renderer continents.json --select "pop_est > 1e8" \\
                  --output world.svg
            """
    )

    @Argument(help: "Layers, bottom first: GeoJSON, Esri JSON, '-' for standard input, or FILE.gpkg[:LAYER]; SOURCE:NAME names a layer.")
    var sources: [String]

    @OptionGroup var view: ViewOptions

    @OptionGroup var layerOptions: LayerOptions

    @Option(
        name: .customLong("renderer"), parsing: .unconditionalSingleValue,
        help: "An Esri JSON renderer or drawingInfo file: once for every layer, or once per layer in order.")
    var renderers: [String] = []

    @Option(
        name: .customLong("display-filter"), parsing: .unconditional,
        help: "A where clause limiting which features are drawn, or @FILE.")
    var displayFilter: String?

    @Option(parsing: .unconditional, help: "Select the features passing this where clause (drawn highlighted), or @FILE.")
    var select: String?

    @OptionGroup var scaleRange: ScaleRangeOptions

    @Option(parsing: .unconditional, help: "The SVG file to write ('-': standard output, the summary then on standard error).")
    var output: String

    @OptionGroup(title: "Loading") var loading: LoadingOptions

    func run() async throws {
        guard !sources.isEmpty else { throw CommandFailure("render needs at least one SOURCE") }
        if sources.filter({ $0 == "-" }).count > 1 { throw CommandFailure("standard input ('-') can be read once") }
        guard renderers.count <= 1 || renderers.count == sources.count else {
            throw CommandFailure("--renderer is given once for every layer or once per layer (\(sources.count)), not \(renderers.count) times")
        }
        try scaleRange.check()
        let extent = try view.extent()
        let size = try view.viewSize()
        guard size.width == size.width.rounded(), size.height == size.height.rounded(), size.width <= 100_000,
            size.height <= 100_000
        else {
            throw CommandFailure("--size: width and height must be whole numbers of pixels up to 100000, not \(view.size)")
        }
        let renderersRead = try renderers.map(Self.readRenderer)
        let definition = try layerOptions.definitionText()
        let displayText = try displayFilter.map { try argumentText($0, argument: "--display-filter") }
        let selectText = try select.map { try argumentText($0, argument: "--select") }
        var layers: [FeatureLayer] = []
        // Each filter applies to the layers whose fields it names; it is an error when it fits none.
        var perLayer = PerLayerOptions()
        for (i, source) in sources.enumerated() {
            var layer = try await LayerArgument(source).load(
                definitionExpression: nil, loading: loading, needs: ServiceSource.Needs(command: "render", extent: extent))
            if layers.contains(where: { $0.name == layer.name }) { layer.name += " (\(i + 1))" }
            scaleRange.apply(to: &layer)
            if !renderersRead.isEmpty { layer.renderer = renderersRead.count == 1 ? renderersRead[0] : renderersRead[i] }
            if let definition { perLayer.apply("--definition-expression") { try layer.setDefinitionExpression(definition) } }
            if let displayText {
                perLayer.apply("--display-filter") { try layer.setDisplayFilter(commandLine: displayText) }
            }
            if let selectText {
                perLayer.apply("--select") { try layer.selectFeatures(QueryParameters(whereClause: selectText, returnGeometry: false)) }
            }
            layers.append(layer)
        }
        try perLayer.check(layerCount: layers.count)
        let map = Map(layers: layers)
        let rendering: MapRendering
        do {
            rendering = try map.renderSVG(extent: extent, width: Int(size.width), height: Int(size.height), scale: view.scale)
        } catch {
            throw CommandFailure("", error)
        }
        try OutputFile.write(to: output) { write in try write(rendering.svg) }
        let summary = Self.summary(rendering, output: output, size: size)
        if OutputFile.isStandardOutput(output) {
            // The SVG took standard output: the summary goes to standard error.
            FileHandle.standardError.write(Data(summary))
        } else {
            try OutputFile.write(to: nil) { write in try write(summary) }
        }
    }

    /// A renderer file: a renderer object, or a drawingInfo object holding one.
    static func readRenderer(_ path: String) throws -> Renderer {
        let text = try InputFiles.argumentText(path, option: "--renderer")
        do {
            if let info = try? DrawingInfo(esriJSON: text) { return info.renderer }
            return try Renderer(esriJSON: text)
        } catch {
            throw CommandFailure("--renderer \(path): \(error)")
        }
    }

    /// The JSON line printed after the file is written.
    static func summary(_ rendering: MapRendering, output: String, size: (width: Double, height: Double)) -> [UInt8] {
        var json = Array(#"{"output":"#.utf8)
        JSONWriter.writeString(output, into: &json)
        json += Array(",\"width\":\(Int(size.width)),\"height\":\(Int(size.height)),\"scale\":".utf8)
        json += Array(formatNumber(rendering.scale).utf8)
        let e = rendering.extent
        json += Array(#","extent":{"xmin":"#.utf8)
        json += Array(formatNumber(e.xmin).utf8)
        json += Array(#","ymin":"#.utf8)
        json += Array(formatNumber(e.ymin).utf8)
        json += Array(#","xmax":"#.utf8)
        json += Array(formatNumber(e.xmax).utf8)
        json += Array(#","ymax":"#.utf8)
        json += Array(formatNumber(e.ymax).utf8)
        json += Array(#"},"layers":["#.utf8)
        for (i, layer) in rendering.layers.enumerated() {
            if i > 0 { json.append(UInt8(ascii: ",")) }
            json += Array(#"{"name":"#.utf8)
            JSONWriter.writeString(layer.name, into: &json)
            json += Array(",\"displayed\":\(layer.displayed),\"selected\":\(layer.selected)}".utf8)
        }
        json += Array("]}\n".utf8)
        return json
    }
}

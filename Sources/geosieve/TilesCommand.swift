import ArgumentParser
import Foundation
import GeoSieve
import SieveJSON

/// `geosieve tiles SOURCE[:NAME]... --zoom 0-10 --output DIR|FILE.mbtiles|FILE.pmtiles`: the
/// layers' vector tiles over a range of zoom levels, for static hosting.
struct TilesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiles",
        abstract: "Write the layers' vector tiles over a range of zoom levels to a folder, an MBTiles file or a PMTiles archive.",
        discussion: """
            Each SOURCE is a layer of the tiles (SOURCE:NAME names it; names must differ). \
            Tiles are Mapbox Vector Tiles 2.1 in Web Mercator (WebMercatorQuad), written as \
            `geosieve serve` serves them: clipped at --buffer units around the tile's \
            --extent, lines and rings simplified by one unit, points thinned to one per \
            --point-spacing units. A tile where no layer has a feature is not written. \
            --output names where: FILE.pmtiles (PMTiles 3, gzipped tiles in Hilbert order), \
            FILE.mbtiles (MBTiles 1.3, gzipped tiles), else a new or empty folder of \
            {z}/{x}/{y}.pbf files (not compressed) with metadata.json (TileJSON 3.0.0). A file is \
            written beside its path and moved into place when complete. --where and \
            --definition-expression limit the features (each applies to the layers whose fields \
            it names, and is an error when it fits none); --properties the attributes. Prints \
            {"output":…,"format":…,"tiles":N,"tilesPerZoom":[…],"features":N,"bytes":N,\
            "bounds":[w,s,e,n]}.

            Examples:
              geosieve tiles countries.geojson cities.geojson --zoom 0-6 --output world.pmtiles
              geosieve tiles buildings.gpkg --zoom 12-14 --bounds -74.05,40.68,-73.9,40.8 \\
                  --properties height,use --output tiles/
            """
    )

    @Argument(help: "Layers: GeoJSON, Esri JSON, FILE.gpkg[:LAYER], any source 'query' reads; SOURCE:NAME names a layer.")
    var sources: [String]

    @Option(parsing: .unconditional, help: "The zoom levels: Z or ZMIN-ZMAX (0 to 24).")
    var zoom: String

    @Option(parsing: .unconditional, help: "A folder, FILE.mbtiles or FILE.pmtiles.")
    var output: String

    @OptionGroup var layerOptions: LayerOptions

    @Option(
        name: .customLong("where"), parsing: .unconditional,
        help: "A where clause the features pass, or @FILE (each layer whose fields it names).")
    var whereClause: String?

    @Option(parsing: .unconditional, help: "The attributes written, comma-separated (default: every field).")
    var properties: String?

    @Option(parsing: .unconditional, help: "The area covered in longitude and latitude: W,S,E,N (default: the layers' extent).")
    var bounds: String?

    @Option(name: .customLong("extent"), parsing: .unconditional, help: "Tile units per side (default 4096).")
    var tileExtent: Int = 4096

    @Option(parsing: .unconditional, help: "Units drawn beyond each edge (default 64).")
    var buffer: Int = 64

    @Option(name: .customLong("point-spacing"), parsing: .unconditional, help: "One point per square of this many units (0: every point; default 16).")
    var pointSpacing: Int = 16

    @OptionGroup(title: "Loading") var loading: LoadingOptions

    func run() async throws {
        guard !sources.isEmpty else { throw CommandFailure("tiles needs at least one SOURCE") }
        if sources.filter({ $0 == "-" }).count > 1 { throw CommandFailure("standard input ('-') can be read once") }
        let zooms = try Self.zoomRange(zoom)
        let area = try bounds.map(Self.bounds)
        let definition = try layerOptions.definitionText()
        let filter = try whereClause.map { try argumentText($0, argument: "--where") }
        var layers: [FeatureLayer] = []
        var perLayer = PerLayerOptions()
        for source in sources {
            var layer = try await LayerArgument(source).load(definitionExpression: nil, loading: loading, needs: .everything("tiles"))
            for (option, text) in [("--definition-expression", definition), ("--where", filter)] {
                guard let text else { continue }
                // A where clause narrows the definition expression: both must hold.
                let combined = option == "--where" && !layer.definitionExpression.isEmpty ? "(\(layer.definitionExpression)) AND (\(text))" : text
                perLayer.apply(option) { try layer.setDefinitionExpression(combined) }
            }
            layers.append(layer)
        }
        try perLayer.check(layerCount: layers.count)
        if Set(layers.map(\.name)).count < layers.count {
            throw CommandFailure("the layers' names must differ (\(layers.map(\.name).joined(separator: ", "))): name them SOURCE:NAME")
        }
        var query = QueryParameters()
        if let properties {
            let names = properties.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            for name in names where !layers.contains(where: { layer in layer.schema.fields.contains { $0.name.lowercased() == name.lowercased() } }) {
                throw CommandFailure("--properties: no layer has a field \"\(name)\"")
            }
            query.outFields = names
        }
        let options = VectorTileSet.Options(
            zooms: zooms, tile: VectorTileOptions(extent: tileExtent, buffer: buffer, pointSpacing: pointSpacing), bounds: area, query: query)
        do {
            try options.tile.validate()
        } catch {
            throw CommandFailure("", error)
        }
        let summary: VectorTileSet.Summary
        let writer: TileArchiveWriter
        do {
            writer = try TileArchiveWriter(path: output)
            summary = try VectorTileSet.write(layers, options: options, to: writer)
        } catch {
            throw CommandFailure("", error)
        }
        var json = Array(#"{"output":"#.utf8)
        JSONWriter.writeString(output, into: &json)
        json += Array(#","format":"\#(writer.format.rawValue)","tiles":\#(summary.tiles),"tilesPerZoom":["#.utf8)
        json += Array(summary.tilesPerZoom.map(String.init).joined(separator: ",").utf8)
        json += Array("],\"features\":\(summary.features),\"bytes\":\(summary.bytes),\"bounds\":".utf8)
        let b = summary.bounds
        json += Array((b.isEmpty ? "null" : "[\(formatNumber(b.xmin)),\(formatNumber(b.ymin)),\(formatNumber(b.xmax)),\(formatNumber(b.ymax))]").utf8)
        json += Array("}\n".utf8)
        try OutputFile.write(to: nil) { write in try write(json) }
    }

    /// `Z` or `ZMIN-ZMAX`.
    static func zoomRange(_ text: String) throws -> ClosedRange<Int> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard (1...2).contains(parts.count), let low = parts.first ?? nil, let high = parts.last ?? nil, low >= 0, high <= 24, low <= high else {
            throw CommandFailure("--zoom must be Z or ZMIN-ZMAX with 0 ≤ ZMIN ≤ ZMAX ≤ 24, not \(text)")
        }
        return low...high
    }

    /// `W,S,E,N` in degrees.
    static func bounds(_ text: String) throws -> Envelope {
        let numbers = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count == 4, let w = numbers[0], let s = numbers[1], let e = numbers[2], let n = numbers[3], w.isFinite, s.isFinite,
            e.isFinite, n.isFinite, w <= e, s <= n, w >= -180, e <= 180, s >= -90, n <= 90
        else {
            throw CommandFailure("--bounds must be W,S,E,N in degrees (west ≤ east, south ≤ north), not \(text)")
        }
        return Envelope(xmin: w, ymin: s, xmax: e, ymax: n)
    }
}

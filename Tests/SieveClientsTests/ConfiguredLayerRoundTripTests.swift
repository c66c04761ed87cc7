// Needs the RemoteSources trait (on by default).
#if RemoteSources
import Foundation
import SieveEditing
import SieveFeatures
import SieveFormats
import SieveGeometry
import SieveMap
import SieveServer
import Testing

@testable import SieveClients

/// A layer configured once (a service configuration served by GeoSieve's server) and read back
/// by a `ServiceFeatureTable`: the `FeatureLayer` over it has the configuration's settings, and
/// counts, identifies and draws as the same layer built locally from the file.
@Suite("Configured service layers, read back", .tags(.network))
struct ConfiguredLayerRoundTripTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static let drawingInfo = #"""
        {"renderer":{"type":"classBreaks","field":"pop_est","minValue":0,
         "classBreakInfos":[{"classMaxValue":50000000,"symbol":{"type":"esriSFS","style":"esriSFSSolid","color":[250,200,90,255]}},
                            {"classMaxValue":2000000000,"symbol":{"type":"esriSFS","style":"esriSFSSolid","color":[200,60,20,255]}}]},
         "transparency":30}
        """#

    static let yaml = """
        services:
          world:
            layers:
              - source: \(fixtures.path)/naturalearth_lowres.geojson
                name: Countries
                definitionExpression: pop_est > 10000000
                minScale: 300000000
                maxScale: 1000
                displayField: iso_a3
                drawingInfo: \(drawingInfo.replacingOccurrences(of: "\n", with: " "))
              - source: \(fixtures.path)/naturalearth_cities.geojson
                id: 1
                defaultVisibility: false
        """

    @Test func aServedConfigurationReadsBackAsTheSameLayer() async throws {
        let file = try ServiceConfigurationFile.parse(Self.yaml, path: "services.yaml")
        let catalog = try await file.catalog { spec in
            let url = URL(fileURLWithPath: spec.source)
            return ServiceConfigurationFile.OpenedSource(
                table: try FeatureTable.load(contentsOf: url), name: url.deletingPathExtension().lastPathComponent)
        }
        let server = try GeoSieveServer(catalog: catalog, configuration: ServerConfiguration(port: 0, maxRecordCount: 40))
        // The same layer, built here from the file with the same settings.
        var local = FeatureLayer(
            source: try FeatureTable.load(contentsOf: Self.fixtures.appendingPathComponent("naturalearth_lowres.geojson")), name: "Countries",
            renderer: try DrawingInfo(esriJSON: Self.drawingInfo).renderer)
        try local.setDefinitionExpression("pop_est > 10000000")
        local.minScale = 300_000_000
        local.maxScale = 1000
        local.displayFieldName = "iso_a3"
        local.opacity = 0.7
        try await withLoopbackServer({ logger, onRunning in try await server.run(logger: logger, onRunning: onRunning) }) { base in
            let client = ServiceClient()
            let table = try await ServiceFeatureTable.arcGIS(base + "/arcgis/rest/services/world/FeatureServer/0", client: client)
            try await table.load()
            let remote = FeatureLayer(table)
            #expect(remote.name == "Countries")
            #expect(remote.minScale == 300_000_000)
            #expect(remote.maxScale == 1000)
            #expect(remote.sourceDefinitionExpression == "pop_est > 10000000")
            #expect(remote.definitionExpression.isEmpty)
            #expect(remote.effectiveDefinitionExpression == local.definitionExpression)
            #expect(remote.displayFieldName == "iso_a3")
            #expect(remote.isVisible)
            #expect(remote.opacity == 0.7)
            #expect(remote.renderer == local.renderer)
            let cities = FeatureLayer(try await ServiceFeatureTable.arcGIS(base + "/arcgis/rest/services/world/FeatureServer/1", client: client))
            #expect(!cities.isVisible)

            // Counts: all, and within a where clause and a box.
            #expect(try remote.queryFeatureCount() == local.queryFeatureCount())
            let europe = QueryParameters(
                whereClause: "continent = 'Europe'", geometry: .envelope(Envelope(xmin: -10, ymin: 35, xmax: 30, ymax: 60)))
            #expect(try remote.queryFeatureCount(europe) == local.queryFeatureCount(europe))
            // Identify at Paris: the same feature, labelled by the display field.
            let world = Envelope(xmin: -180, ymin: -90, xmax: 180, ymax: 90)
            let tap = MapIdentifyParameters(point: Point(x: 2.35, y: 48.85), tolerance: 2, mapExtent: world, viewWidth: 1440, viewHeight: 720)
            func hits(_ layer: FeatureLayer) throws -> [String] {
                try Map(layers: [layer]).identify(tap).flatMap { $0.results.map { "\($0.objectID) \($0.displayFieldName ?? "") \($0.displayValue)" } }
            }
            #expect(try hits(remote) == ["44 iso_a3 FRA"])
            #expect(try hits(remote) == hits(local))
            // Drawn alike: the same features with the same symbols, path by path, in a group at
            // opacity 0.7. (Not byte for byte: Esri JSON turns outer rings clockwise, so the
            // service's rings run the other way round from the file's.)
            let drawn = try Map(layers: [remote]).renderSVG(extent: world, width: 720, height: 360)
            let mine = try Map(layers: [local]).renderSVG(extent: world, width: 720, height: 360)
            #expect(drawn.layers.map { "\($0.name) \($0.displayed)" } == mine.layers.map { "\($0.name) \($0.displayed)" })
            func paths(_ svg: [UInt8]) -> [String] {
                String(decoding: svg, as: UTF8.self).split(separator: "\n").map { line in
                    guard let d = line.range(of: " d=\"") else { return String(line) }
                    // The path's attributes and how many rings and paths it holds.
                    return String(line[..<d.lowerBound]) + " \(line[d.upperBound...].filter { $0 == "M" }.count) parts"
                }
            }
            #expect(paths(drawn.svg) == paths(mine.svg))
            #expect(String(decoding: drawn.svg, as: UTF8.self).contains(#"<g id="Countries" class="layer" opacity="0.702">"#))
            let tooFar = try Map(layers: [remote]).renderSVG(extent: world, width: 720, height: 360, scale: 400_000_000)
            #expect(tooFar.layers.first?.displayed == 0)
            try await client.shutdown()
        }
    }
}
#endif

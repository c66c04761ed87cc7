import Foundation
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import Testing

@testable import SieveMap

@Suite("Map rendering")
struct MapRenderTests {
    static let continents = #"""
        {"type":"uniqueValue","field1":"continent",
         "uniqueValueInfos":[
           {"value":"Africa","symbol":{"type":"esriSFS","style":"esriSFSSolid","color":[230,171,2,255],
              "outline":{"type":"esriSLS","style":"esriSLSSolid","color":[255,255,255,255],"width":0.75}}},
           {"value":"Europe","symbol":{"type":"esriSFS","style":"esriSFSSolid","color":[117,112,179,255]}}]}
        """#

    @Test("symbols become draw styles: fills, outlines, markers turned clockwise, nothing for null styles")
    func symbolStyles() throws {
        let fill = try Symbol(
            esriJSON: #"{"type":"esriSFS","style":"esriSFSSolid","color":[1,2,3,255],"outline":{"type":"esriSLS","style":"esriSLSSolid","color":[4,5,6,128],"width":2}}"#)
        #expect(
            DrawStyle(symbol: fill)
                == DrawStyle(fill: RGBAColor(red: 1, green: 2, blue: 3), stroke: RGBAColor(red: 4, green: 5, blue: 6, alpha: 128), strokeWidth: 2))
        let hollow = try Symbol(esriJSON: #"{"type":"esriSFS","style":"esriSFSNull","color":[1,2,3,255]}"#)
        #expect(DrawStyle(symbol: hollow) == nil)
        let marker = try Symbol(
            esriJSON: #"{"type":"esriSMS","style":"esriSMSDiamond","color":[9,9,9,255],"size":10,"angle":30}"#)
        #expect(DrawStyle(symbol: marker)?.marker == .diamond)
        #expect(DrawStyle(symbol: marker)?.markerSize == 10)
        #expect(DrawStyle(symbol: marker)?.markerAngle == -30)
        #expect(DrawStyle(symbol: marker)?.stroke == nil)
        let nullLine = try Symbol(esriJSON: #"{"type":"esriSLS","style":"esriSLSNull","color":[9,9,9,255],"width":3}"#)
        #expect(DrawStyle(symbol: nullLine) == nil)
    }

    @Test("the countries drawn with a unique-value renderer: one path per class drawn, others left out")
    func uniqueValueMap() throws {
        let table = try LayerFixtures.countries.get()
        let records = try LayerFixtures.countryRecords()
        var layer = FeatureLayer(source: table, name: "countries", renderer: try Renderer(esriJSON: Self.continents))
        try layer.selectFeatures(QueryParameters(whereClause: "pop_est > 100000000"))
        let map = Map(layers: [layer])
        let rendering = try map.renderSVG(extent: LayerFixtures.world, width: 720, height: 360)
        let svg = String(decoding: rendering.svg, as: UTF8.self)
        // No default symbol: only Africa's and Europe's classes are drawn, one path each.
        #expect(svg.contains("fill=\"#e6ab02\""))
        #expect(svg.contains("fill=\"#7570b3\""))
        let layerGroup = try #require(svg.range(of: #"<g id="countries""#))
        let selection = svg.range(of: #"class="selection""#)?.lowerBound ?? svg.endIndex
        let paths = svg[layerGroup.lowerBound..<selection].components(separatedBy: "<path").count - 1
        #expect(paths == 2)
        #expect(rendering.layers.first?.displayed == records.count)
        #expect(rendering.layers.first?.selected == records.filter { $0.population > 100_000_000 }.count)
        // The selection is highlighted in cyan above the layer.
        #expect(svg.contains("#00ffff"))
        // A renderer naming a field the table lacks is an error.
        var broken = layer
        broken.renderer = try Renderer(esriJSON: #"{"type":"uniqueValue","field1":"nope","uniqueValueInfos":[]}"#)
        #expect(throws: FeatureTableError.self) { try Map(layers: [broken]).renderSVG(extent: LayerFixtures.world, width: 10, height: 10) }
    }

    @Test("display filters, definition expressions and scale ranges decide what is drawn")
    func filtersDecideWhatIsDrawn() throws {
        let table = try LayerFixtures.countries.get()
        let records = try LayerFixtures.countryRecords()
        var layer = FeatureLayer(source: table, name: "countries")
        try layer.setDefinitionExpression("continent = 'Africa'")
        try layer.setDisplayFilterDefinition(
            .manual(activeFilter: DisplayFilter(name: "big", whereClause: "pop_est > 50000000"), availableFilters: []))
        let drawn = try Map(layers: [layer]).renderSVG(extent: LayerFixtures.world, width: 720, height: 360)
        #expect(drawn.layers.first?.displayed == records.filter { $0.continent == "Africa" && $0.population > 50_000_000 }.count)
        layer.maxScale = 1_000_000_000  // never zoomed out that far: the layer is out of range
        let none = try Map(layers: [layer]).renderSVG(extent: LayerFixtures.world, width: 720, height: 360)
        #expect(none.layers.first?.displayed == 0)
        #expect(!String(decoding: none.svg, as: UTF8.self).contains("<path"))
    }

    @Test("layers in another spatial reference than the map's are refused")
    func otherReference() throws {
        let mercator = try FeatureTable.load(
            esriJSON: #"{"spatialReference":{"wkid":3857},"geometryType":"esriGeometryPoint","#
                + #""fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"}],"features":[{"attributes":{"OBJECTID":1},"geometry":{"x":0,"y":0}}]}"#)
        let map = Map(
            layers: [FeatureLayer(source: try LayerFixtures.cities.get(), name: "cities"), FeatureLayer(source: mercator, name: "m")])
        #expect(throws: FeatureTableError.self) {
            try map.renderSVG(extent: Envelope(xmin: -1, ymin: -1, xmax: 1, ymax: 1), width: 100, height: 100)
        }
    }
}

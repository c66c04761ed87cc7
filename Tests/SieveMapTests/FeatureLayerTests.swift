import Foundation
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveSQL
import Testing

@testable import SieveMap
import SieveTestSupport

/// The countries fixture read by Foundation's JSON parser, not by GeoSieve: the oracle the
/// layer's counts are checked against.
struct CountryRecord {
    let fid: Int64
    let name: String
    let continent: String
    let population: Double
}

enum LayerFixtures {
    static let countries = Result { try FeatureTable.load(contentsOf: fixtureURL("naturalearth_lowres.geojson")) }
    static let cities = Result { try FeatureTable.load(contentsOf: fixtureURL("naturalearth_cities.geojson")) }

    /// Every country's properties, by Foundation.
    static func countryRecords() throws -> [CountryRecord] {
        let data = try Data(contentsOf: fixtureURL("naturalearth_lowres.geojson"))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let features = root["features"] as? [[String: Any]]
        else { throw FeatureTableError(.invalidQuery, "fixture is not a FeatureCollection") }
        return features.compactMap { feature in
            guard let p = feature["properties"] as? [String: Any], let fid = p["fid"] as? NSNumber,
                let name = p["name"] as? String, let continent = p["continent"] as? String,
                let population = p["pop_est"] as? NSNumber
            else { return nil }
            return CountryRecord(fid: fid.int64Value, name: name, continent: continent, population: population.doubleValue)
        }
    }

    static let world = Envelope(xmin: -180, ymin: -90, xmax: 180, ymax: 90)
}

@Suite("Feature layer: definition expressions and display filters")
struct FeatureLayerFilterTests {
    @Test("the seed contract: the count shrinks under a definition expression, not under a display filter")
    func seedContract() throws {
        let table = try LayerFixtures.countries.get()
        let records = try LayerFixtures.countryRecords()
        #expect(records.count == table.featureCount)
        var layer = FeatureLayer(source: table, name: "countries")
        let scale = try MapScale.scale(extent: LayerFixtures.world, width: 1440, spatialReference: table.spatialReference)
        #expect(try layer.queryFeatureCount() == records.count)
        #expect(try layer.displayedFeatureCount(in: LayerFixtures.world, scale: scale) == records.count)

        try layer.setDefinitionExpression("continent = 'Africa'")
        let african = records.filter { $0.continent == "Africa" }
        #expect(african.count > 40)
        #expect(try layer.queryFeatureCount() == african.count)

        try layer.setDisplayFilterDefinition(
            .manual(activeFilter: DisplayFilter(name: "large", whereClause: "pop_est > 50000000"), availableFilters: []))
        // The count ignores the display filter; what is displayed shrinks under both.
        #expect(try layer.queryFeatureCount() == african.count)
        let largeAfrican = african.filter { $0.population > 50_000_000 }.map(\.fid).sorted()
        #expect(!largeAfrican.isEmpty)
        #expect(try layer.displayedFeatureCount(in: LayerFixtures.world, scale: scale) == largeAfrican.count)
        let shown = try layer.displayedFeatures(in: LayerFixtures.world, scale: scale, returnGeometry: false)
        let fidIndex = try #require(table.schema.index(ofField: "fid"))
        let shownFids = shown.map { feature -> Int64 in
            if case .integer(let v) = table.columns[fidIndex][feature.row] { return v }
            return -1
        }
        #expect(shownFids.sorted() == largeAfrican)

        // Removing the definition expression re-filters at once; the display filter still applies.
        try layer.setDefinitionExpression("")
        #expect(try layer.queryFeatureCount() == records.count)
        #expect(
            try layer.displayedFeatureCount(in: LayerFixtures.world, scale: scale)
                == records.filter { $0.population > 50_000_000 }.count)
    }

    @Test("the definition expression ANDs with the caller's where clause, extent and object IDs")
    func definitionExpressionLimitsEveryQuery() throws {
        let table = try LayerFixtures.countries.get()
        let records = try LayerFixtures.countryRecords()
        var layer = FeatureLayer(source: table, name: "countries")
        try layer.setDefinitionExpression("continent = 'Europe'")
        let expected = records.filter { $0.continent == "Europe" && $0.population > 10_000_000 }.map(\.fid).sorted()
        let ids = try layer.queryObjectIDs(QueryParameters(whereClause: "pop_est > 10000000"))
        #expect(ids.count == expected.count)
        // Asking for an object ID outside the definition expression finds nothing.
        let chinaID = try #require(records.first { $0.name == "China" }?.fid)
        let china = try layer.queryObjectIDs(QueryParameters(objectIDs: [chinaID]))
        #expect(china.isEmpty)
        // The extent is the union of the European geometries' envelopes.
        let europe = Set(records.filter { $0.continent == "Europe" }.map(\.fid))
        var union = Envelope.empty
        for row in table.liveRows where europe.contains(table.objectID(row: row)) {
            if let box = table.geometry(row: row)?.envelope {
                union = union.isEmpty ? box : Envelope(
                    xmin: min(union.xmin, box.xmin), ymin: min(union.ymin, box.ymin),
                    xmax: max(union.xmax, box.xmax), ymax: max(union.ymax, box.ymax))
            }
        }
        #expect(try layer.fullExtent() == union)
        #expect(try layer.queryExtent().count == records.filter { $0.continent == "Europe" }.count)
    }

    @Test("a bad definition expression or display filter is an error and leaves the layer as it was")
    func badFiltersLeaveTheLayerUnchanged() throws {
        let table = try LayerFixtures.countries.get()
        var layer = FeatureLayer(source: table, name: "countries")
        try layer.setDefinitionExpression("continent = 'Asia'")
        let before = try layer.queryFeatureCount()
        #expect(throws: WhereClauseError.self) { try layer.setDefinitionExpression("no_such_field = 1") }
        #expect(throws: WhereClauseError.self) { try layer.setDefinitionExpression("continent = ") }
        #expect(layer.definitionExpression == "continent = 'Asia'")
        #expect(try layer.queryFeatureCount() == before)
        #expect(throws: FeatureTableError.self) {
            try layer.setDisplayFilterDefinition(.manual(activeFilter: DisplayFilter(name: "x", whereClause: " "), availableFilters: []))
        }
        #expect(throws: FeatureTableError.self) {
            try layer.setDisplayFilterDefinition(.manual(activeFilterName: "missing", availableFilters: []))
        }
        #expect(throws: FeatureTableError.self) {
            try layer.setDisplayFilterDefinition(.scale([ScaleRangeDisplayFilter(name: "a", whereClause: "1=1", minScale: 1000, maxScale: 5000)]))
        }
        #expect(throws: FeatureTableError.self) {
            try layer.setDisplayFilterDefinition(
                .manual(activeFilter: DisplayFilter(name: "bad", whereClause: "pop_est >"), availableFilters: []))
        }
        #expect(layer.displayFilterDefinition == nil)
    }

    @Test("scale display filters: the first filter whose inclusive range holds the scale applies")
    func scaleDisplayFilters() throws {
        let table = try LayerFixtures.countries.get()
        let records = try LayerFixtures.countryRecords()
        var layer = FeatureLayer(source: table, name: "countries")
        try layer.setDisplayFilterDefinition(
            .scale([
                ScaleRangeDisplayFilter(name: "zoomed out", whereClause: "pop_est > 100000000", minScale: 0, maxScale: 50_000_000),
                ScaleRangeDisplayFilter(name: "middle", whereClause: "pop_est > 10000000", minScale: 50_000_000, maxScale: 1_000_000),
                ScaleRangeDisplayFilter(name: "never first", whereClause: "pop_est > 0", minScale: 50_000_000, maxScale: 0),
            ]))
        let world = LayerFixtures.world
        let huge = records.filter { $0.population > 100_000_000 }.count
        let big = records.filter { $0.population > 10_000_000 }.count
        #expect(try layer.displayedFeatureCount(in: world, scale: 100_000_000) == huge)
        // 50,000,000 lies in both of the first two ranges (bounds inclusive): the first wins.
        #expect(try layer.displayedFeatureCount(in: world, scale: 50_000_000) == huge)
        #expect(try layer.displayedFeatureCount(in: world, scale: 49_999_999) == big)
        #expect(try layer.displayedFeatureCount(in: world, scale: 1_000_000) == big)
        // Below every range: no filter applies and every feature is drawn.
        #expect(try layer.displayedFeatureCount(in: world, scale: 999_999) == records.count)
        #expect(try layer.queryFeatureCount() == records.count)
    }

    @Test("a layer outside its scale range or hidden draws nothing")
    func layerScaleRange() throws {
        let table = try LayerFixtures.countries.get()
        var layer = FeatureLayer(source: table, name: "countries")
        layer.minScale = 10_000_000  // not drawn when zoomed out beyond 1:10M
        layer.maxScale = 100_000  // nor when zoomed in beyond 1:100k
        let world = LayerFixtures.world
        #expect(try layer.displayedFeatureCount(in: world, scale: 20_000_000) == 0)
        #expect(try layer.displayedFeatureCount(in: world, scale: 50_000) == 0)
        #expect(try layer.displayedFeatureCount(in: world, scale: 10_000_000) == table.featureCount)
        #expect(try layer.displayedFeatureCount(in: world, scale: 100_000) == table.featureCount)
        layer.isVisible = false
        #expect(try layer.displayedFeatureCount(in: world, scale: 1_000_000) == 0)
        // Queries are not display: they still count every feature.
        #expect(try layer.queryFeatureCount() == table.featureCount)
    }

    @Test("displayed features are those whose envelope meets the extent")
    func displayedInExtent() throws {
        let table = try LayerFixtures.cities.get()
        let layer = FeatureLayer(source: table, name: "cities")
        // A window around western Europe: count the cities inside by their coordinates.
        let window = Envelope(xmin: -5, ymin: 42, xmax: 10, ymax: 52)
        var expected = 0
        for row in table.liveRows {
            if case .point(let p)? = table.geometry(row: row), p.x >= -5, p.x <= 10, p.y >= 42, p.y <= 52 { expected += 1 }
        }
        #expect(expected > 3)
        #expect(try layer.displayedFeatureCount(in: window, scale: 5_000_000) == expected)
        #expect(throws: FeatureTableError.self) {
            try layer.displayedFeatureCount(in: Envelope(xmin: 1, ymin: 0, xmax: .infinity, ymax: 1), scale: 1)
        }
    }
}

@Suite("Map scale")
struct MapScaleTests {
    @Test("Web Mercator: ground metres over screen metres at 96 DPI")
    func webMercator() throws {
        let extent = Envelope(xmin: 0, ymin: 0, xmax: 10_000, ymax: 5_000)
        let scale = try MapScale.scale(extent: extent, width: 1000, spatialReference: .webMercator)
        // 1000 px = 1000/96 in = 0.26458333 m; 10,000 m / 0.26458333 m = 37,795.2756
        #expect(abs(scale - 37_795.275_590_551) < 1e-6)
    }

    @Test("geographic: a degree is π/180 × 6,378,137 m times the cosine of the centre latitude")
    func geographic() throws {
        let equator = try MapScale.scale(
            extent: Envelope(xmin: 0, ymin: -1, xmax: 1, ymax: 1), width: 96, spatialReference: .wgs84)
        // 96 px is one inch, 0.0254 m: 111,319.4908 m / 0.0254 m.
        #expect(abs(equator - 111_319.490_793_273_57 / 0.0254) < 1e-3)
        let sixty = try MapScale.scale(
            extent: Envelope(xmin: 0, ymin: 59, xmax: 1, ymax: 61), width: 96, spatialReference: .wgs84)
        #expect(abs(sixty - equator / 2) < 1e-3)
    }

    @Test("a projected reference in US survey feet is read from PROJ")
    func feet() throws {
        // NAD83 / New York Long Island (ftUS): 1 ftUS = 1200/3937 m.
        let scale = try MapScale.scale(
            extent: Envelope(xmin: 0, ymin: 0, xmax: 3937, ymax: 100), width: 96, spatialReference: SpatialReference(wkid: 2263))
        #expect(abs(scale - 1200 / 0.0254) < 1e-6)
    }

    @Test("bad extents and widths are errors")
    func errors() {
        #expect(throws: FeatureTableError.self) {
            try MapScale.scale(extent: Envelope(xmin: 1, ymin: 0, xmax: 1, ymax: 1), width: 100, spatialReference: .wgs84)
        }
        #expect(throws: FeatureTableError.self) {
            try MapScale.scale(extent: LayerFixtures.world, width: 0, spatialReference: .wgs84)
        }
        #expect(throws: FeatureTableError.self) {
            try MapScale.scale(extent: LayerFixtures.world, width: 100, spatialReference: SpatialReference(wkid: 987_654_321))
        }
    }
}

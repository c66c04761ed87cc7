import Foundation
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveSQL
import Testing

@testable import SieveMap

@Suite("Feature layer: selection")
struct SelectionTests {
    /// The object IDs of the countries whose record satisfies `predicate`, ascending.
    func ids(_ records: [CountryRecord], _ predicate: (CountryRecord) -> Bool) -> [Int64] {
        records.filter(predicate).map(\.fid).sorted()
    }

    @Test("new, add and subtract compose as set operations")
    func modesCompose() throws {
        let table = try LayerFixtures.countries.get()
        let records = try LayerFixtures.countryRecords()
        var layer = FeatureLayer(source: table, name: "countries")
        try layer.selectFeatures(QueryParameters(whereClause: "continent = 'Africa'"), mode: .new)
        #expect(try layer.selectedObjectIDs == ids(records) { $0.continent == "Africa" })
        try layer.selectFeatures(QueryParameters(whereClause: "continent = 'Europe'"), mode: .add)
        #expect(try layer.selectedObjectIDs == ids(records) { $0.continent == "Africa" || $0.continent == "Europe" })
        try layer.selectFeatures(QueryParameters(whereClause: "pop_est > 50000000"), mode: .subtract)
        let expected = ids(records) { ($0.continent == "Africa" || $0.continent == "Europe") && !($0.population > 50_000_000) }
        #expect(try layer.selectedObjectIDs == expected)
        #expect(try layer.selectedFeatures().count == expected.count)
        try layer.selectFeatures(QueryParameters(whereClause: "continent = 'Oceania'"), mode: .new)
        #expect(try layer.selectedObjectIDs == ids(records) { $0.continent == "Oceania" })
        // By object ID: add, ignoring IDs the table does not have; unselect; clear.
        let chile = try #require(records.first { $0.name == "Chile" }).fid
        try layer.selectFeatures(objectIDs: [chile, 999_999])
        #expect(try layer.selectedObjectIDs == (ids(records) { $0.continent == "Oceania" } + [chile]).sorted())
        layer.unselectFeatures(objectIDs: [chile])
        #expect(try layer.selectedObjectIDs == ids(records) { $0.continent == "Oceania" })
        layer.clearSelection()
        #expect(try layer.selectedObjectIDs.isEmpty)
    }

    @Test("a selection respects the definition expression")
    func selectionRespectsDefinitionExpression() throws {
        let table = try LayerFixtures.countries.get()
        let records = try LayerFixtures.countryRecords()
        var layer = FeatureLayer(source: table, name: "countries")
        try layer.setDefinitionExpression("continent = 'Asia'")
        try layer.selectFeatures(QueryParameters(whereClause: "pop_est > 100000000"))
        #expect(try layer.selectedObjectIDs == ids(records) { $0.continent == "Asia" && $0.population > 100_000_000 })
        // Features outside the expression cannot be selected by ID either.
        let brazil = try #require(records.first { $0.name == "Brazil" }).fid
        try layer.selectFeatures(objectIDs: [brazil])
        #expect(try !layer.selectedObjectIDs.contains(brazil))
        // Narrowing the expression drops the selected features it excludes.
        try layer.setDefinitionExpression("continent = 'Asia' AND pop_est > 1000000000")
        #expect(try layer.selectedObjectIDs == ids(records) { $0.continent == "Asia" && $0.population > 1_000_000_000 })
    }

    @Test("under edits: deleted features leave, updated ones stay, others are untouched, counts are fresh")
    func selectionUnderEdits() throws {
        let editable = try EditableFeatureTable(try LayerFixtures.countries.get())
        let records = try LayerFixtures.countryRecords()
        var layer = FeatureLayer(source: editable, name: "countries")
        try layer.setDefinitionExpression("pop_est > 100000000")
        let big = ids(records) { $0.population > 100_000_000 }
        #expect(try layer.queryFeatureCount() == big.count)
        try layer.selectFeatures(QueryParameters())
        #expect(try layer.selectedObjectIDs == big)

        // A feature edited into the expression is counted at once; it is not selected.
        let chile = try #require(records.first { $0.name == "Chile" }).fid
        let results = editable.updateFeatures([FeatureEdit(objectID: chile, attributes: ["pop_est": .double(2e8)])])
        #expect(results.allSatisfy { $0.error == nil })
        #expect(try layer.queryFeatureCount() == big.count + 1)
        #expect(try layer.selectedObjectIDs == big)

        // A selected feature updated (still inside the expression) stays selected.
        let india = try #require(records.first { $0.name == "India" }).fid
        _ = editable.updateFeatures([FeatureEdit(objectID: india, attributes: ["name": .string("Bharat")])])
        #expect(try layer.selectedObjectIDs == big)
        let names = try layer.selectedFeatures().compactMap { $0.value(ofField: "name") }
        #expect(names.contains(.string("Bharat")))

        // A selected feature edited out of the expression leaves the count and the selection.
        let brazil = try #require(records.first { $0.name == "Brazil" }).fid
        _ = editable.updateFeatures([FeatureEdit(objectID: brazil, attributes: ["pop_est": .double(5)])])
        #expect(try layer.queryFeatureCount() == big.count)
        #expect(try layer.selectedObjectIDs == big.filter { $0 != brazil })

        // A deleted feature leaves the selection.
        _ = editable.deleteFeatures(objectIDs: [india])
        #expect(try layer.selectedObjectIDs == big.filter { $0 != brazil && $0 != india })
        #expect(try layer.queryFeatureCount() == big.count - 1)
    }

    @Test("the row set never holds a deleted row and combines as a set")
    func rowSet() throws {
        let editable = try EditableFeatureTable(try LayerFixtures.cities.get())
        _ = editable.deleteFeatures(objectIDs: [1, 2])
        let table = editable.snapshot
        let all = RowSet(allRowsOf: table)
        #expect(all.count == table.featureCount)
        #expect(!all.contains(try #require(table.row(forObjectID: 3)) - 2))  // row of object 1
        let some = RowSet(rows: [0, 1, 2, 3, 4, 4, -1, 100_000], in: table)
        #expect(some.rows == [2, 3, 4])
        #expect(all.intersection(some) == some)
        #expect(all.subtracting(some).count == all.count - 3)
        #expect(some.union(RowSet(rows: [5], in: table)).rows == [2, 3, 4, 5])
    }
}

@Suite("Map identify")
struct MapIdentifyTests {
    /// Countries below, cities above.
    func worldMap() throws -> Map {
        Map(layers: [
            FeatureLayer(source: try LayerFixtures.countries.get(), name: "countries"),
            FeatureLayer(source: try LayerFixtures.cities.get(), name: "cities"),
        ])
    }

    /// A tap on Paris in a world view 1440 px wide (0.25° a pixel).
    func parisTap(_ option: IdentifyLayerOption, tolerance: Double = 4) -> MapIdentifyParameters {
        MapIdentifyParameters(
            point: Point(x: 2.3522, y: 48.8566), tolerance: tolerance, mapExtent: LayerFixtures.world, viewWidth: 1440,
            viewHeight: 720, layerOption: option)
    }

    /// The `name` attribute of the first hit.
    func name(_ result: IdentifyLayerResult) -> String? {
        guard let hit = result.results.first, case .string(let name)? = hit.attributes.first(where: { $0.name == "name" })?.value
        else { return nil }
        return name
    }

    @Test("visible: one result per drawn layer, top layer first")
    func visible() throws {
        let results = try worldMap().identify(parisTap(.visible))
        #expect(results.map(\.layerName) == ["cities", "countries"])
        #expect(results.map(\.layerIndex) == [1, 0])
        #expect(name(results[0]) == "Paris")
        #expect(name(results[1]) == "France")
    }

    @Test("top: only the topmost layer with a hit")
    func top() throws {
        var map = try worldMap()
        #expect(try map.identify(parisTap(.top)).map(\.layerName) == ["cities"])
        // Off any city (mid-France, 1 px tolerance): the countries layer is the top hit.
        var far = parisTap(.top, tolerance: 1)
        far.point = Point(x: 2.5, y: 46.5)
        let hits = try map.identify(far)
        #expect(hits.map(\.layerName) == ["countries"])
        #expect(hits.first.flatMap(name) == "France")
        // A hidden layer is skipped by top and visible, but not by all.
        map.layers[1].isVisible = false
        #expect(try map.identify(parisTap(.top)).map(\.layerName) == ["countries"])
        #expect(try map.identify(parisTap(.visible)).map(\.layerName) == ["countries"])
        #expect(try map.identify(parisTap(.all)).map(\.layerName) == ["cities", "countries"])
    }

    @Test("scale ranges and definition expressions limit what can be hit")
    func scaleAndDefinition() throws {
        var map = try worldMap()
        // The world at 1440 px is about 1:295M; a cities layer drawn only from 1:50M in.
        map.layers[1].minScale = 50_000_000
        #expect(try map.identify(parisTap(.visible)).map(\.layerName) == ["countries"])
        map.layers[1].minScale = 0
        try map.layers[0].setDefinitionExpression("continent <> 'Europe'")
        let results = try map.identify(parisTap(.visible))
        #expect(results.map(\.layerName) == ["cities", "countries"])
        #expect(results[1].results.isEmpty)
        // A display filter hides features from identify as from drawing.
        try map.layers[1].setDisplayFilterDefinition(
            .manual(activeFilter: DisplayFilter(name: "not Paris", whereClause: "name <> 'Paris'"), availableFilters: []))
        var wide = parisTap(.visible, tolerance: 40)
        wide.maxResultsPerLayer = 0
        #expect(try map.identify(wide)[0].results.count > 1)
        let hidden = try map.identify(wide)
        #expect(!hidden[0].results.isEmpty)
        #expect(hidden[0].results.allSatisfy { $0.displayValue != "Paris" })
    }

    @Test("max results per layer, transfer limit, tolerance clamped to 100 px")
    func limits() throws {
        let map = try worldMap()
        var tap = parisTap(.visible, tolerance: 1000)  // clamped to 100 px = 25°
        tap.maxResultsPerLayer = 3
        let results = try map.identify(tap)
        #expect(results[0].results.count == 3)
        #expect(results[0].isTransferLimitExceeded)
        // Nearest first.
        let distances = results[0].results.map(\.distance)
        #expect(distances == distances.sorted())
        #expect(distances.allSatisfy { $0 <= 25 })
        tap.maxResultsPerLayer = 0
        let everything = try map.identify(tap)
        #expect(everything[0].results.count > 3)
        #expect(!everything[0].isTransferLimitExceeded)
        #expect(everything[0].results.allSatisfy { $0.distance <= 25 })
        // Counts at the end of Int: one more than asked does not fit, and is not needed.
        for largest in [Int.max, Int.max - 1] {
            tap.maxResultsPerLayer = largest
            let all = try map.identify(tap)
            #expect(all[0].results.map(\.objectID) == everything[0].results.map(\.objectID))
            #expect(!all[0].isTransferLimitExceeded)
        }
    }

    @Test("one layer's failure is reported in its result, not thrown")
    func layerError() throws {
        // A layer whose table is in a reference PROJ does not know cannot take map coordinates.
        let unknown = try FeatureTable.load(
            esriJSON: #"{"spatialReference":{"wkid":987654321},"geometryType":"esriGeometryPoint","#
                + #""fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"}],"features":[{"attributes":{"OBJECTID":1},"geometry":{"x":2.35,"y":48.85}}]}"#)
        var map = try worldMap()
        map.layers.append(FeatureLayer(source: unknown, name: "unknown"))
        let results = try map.identify(parisTap(.visible))
        #expect(results.map(\.layerName) == ["unknown", "cities", "countries"])
        #expect(results[0].error != nil)
        #expect(results[0].results.isEmpty)
        #expect(name(results[1]) == "Paris")
        #expect(throws: FeatureTableError.self) {
            var bad = parisTap(.visible)
            bad.viewWidth = 0
            return try map.identify(bad)
        }
    }

    @Test("features the renderer does not draw cannot be hit")
    func undrawnFeaturesAreNotHit() throws {
        var map = try worldMap()
        // Only Europe has a symbol and there is no default: France is drawn, Algeria is not.
        map.layers[0].renderer = try Renderer(
            esriJSON: #"{"type":"uniqueValue","field1":"continent","uniqueValueInfos":[{"value":"Europe","symbol":{"type":"esriSFS","style":"esriSFSSolid","color":[1,2,3,255]}}]}"#)
        var tap = parisTap(.all, tolerance: 1)
        #expect(try map.identify(tap).last.flatMap(name) == "France")
        tap.point = Point(x: 2.6, y: 28.0)  // the Algerian Sahara, far from any city
        let results = try map.identify(tap)
        #expect(results.last?.layerName == "countries")
        #expect(results.last?.results.isEmpty == true)
        map.layers[0].renderer = Renderer.default(for: .polygon)
        #expect(try map.identify(tap).last.flatMap(name) == "Algeria")
    }

    @Test("identify's renderer binding follows a new renderer and an edited table")
    func boundRendererFollowsChanges() throws {
        func only(_ continent: String) throws -> Renderer {
            try Renderer(
                esriJSON: #"{"type":"uniqueValue","field1":"continent","uniqueValueInfos":[{"value":""# + continent
                    + #"","symbol":{"type":"esriSFS","style":"esriSFSSolid","color":[1,2,3,255]}}]}"#)
        }
        let countries = try LayerFixtures.countries.get()
        let editable = try EditableFeatureTable(countries)
        var map = Map(layers: [FeatureLayer(source: editable, name: "countries")])
        var tap = parisTap(.all, tolerance: 1)
        tap.point = Point(x: 2.6, y: 28.0)  // the Algerian Sahara
        map.layers[0].renderer = try only("Europe")
        #expect(try map.identify(tap).first?.results.isEmpty == true)
        map.layers[0].renderer = try only("Africa")
        #expect(try map.identify(tap).first.flatMap(name) == "Algeria")
        map.layers[0].renderer = try only("Europe")
        #expect(try map.identify(tap).first?.results.isEmpty == true)
        // Algeria moved to Europe: the layer's table is a new snapshot, bound anew.
        let row = try #require((0..<countries.count).first { countries.value(row: $0, field: "name") == .string("Algeria") })
        let moved = editable.applyEdits(
            updates: [FeatureEdit(objectID: countries.objectID(row: row), attributes: ["continent": .string("Europe")])])
        #expect(moved.allSucceeded)
        #expect(try map.identify(tap).first.flatMap(name) == "Algeria")
        // A copy of the layer shares the kept binding and still answers for its own renderer.
        var copy = map
        copy.layers[0].renderer = try only("Africa")
        #expect(try copy.identify(tap).first?.results.isEmpty == true)
        #expect(try map.identify(tap).first.flatMap(name) == "Algeria")
    }

    @Test("a display value shows a date-only field's day, a date field's instant")
    func displayTextOfDates() {
        // 2022-04-16 is 19,098 days after 1970-01-01.
        let day: Int64 = 19_098 * 86_400_000
        #expect(FeatureTable.displayText(of: .date(day), dateOnly: true) == "2022-04-16")
        #expect(FeatureTable.displayText(of: .date(day)) == "2022-04-16T00:00:00.000Z")
        #expect(FeatureTable.displayText(of: .null, dateOnly: true) == "Null")
    }
}

import ArgumentParser
import Foundation
import GeoSieve

/// `geosieve-bench layer`: the layer level (SieveMap) — selection by query on a layer, a map
/// drawn as SVG, and identify across the layers of a map — on generated world data (WGS 84).
struct LayerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layer",
        abstract: "Layer workload: selectFeatures, Map.renderSVG and Map.identify.",
        discussion: """
            Builds a --rows point layer over the world (wkid 4326; OBJECTID; CATEGORY, one of 10 \
            strings "cat0" … "cat9"; AMOUNT, an integer in 0 ..< 1,000,000; SCORE, a normal \
            double with mean 1,000 and standard deviation 100; a uniform point in \
            [-180, 180] × [-90, 90]) and a map of five layers (10,000 regions, 40,000 parcels, \
            30,000 roads, 20,000 stations, 50,000 places), and prints one JSON line per \
            measurement: "layer.select" (selectFeatures(AMOUNT < 100000, mode: .new), ~10 % of \
            the rows; result = features selected; with "p95_ms"), "layer.select_defexp" (the same \
            with the definition expression CATEGORY <> 'cat9'), "layer.count" (queryFeatureCount \
            of the same query, for reference), "layer.render" (Map.renderSVG of the point layer, \
            world extent, 1200 × 600, a unique-value renderer on CATEGORY; result = features \
            drawn; with "svg_bytes"), "layer.render_filtered" (the same with the definition \
            expression and a display filter SCORE > 1000, the selection highlighted), and \
            "layer.identify" (--clicks Map.identify calls at random points of the five-layer map, \
            world view of 1200 × 600, 5-pixel tolerance, layerOption .visible, each timed; \
            median_ms is the median call; result = hits; with "p50_us", "p99_us" and "max_us").
            """
    )

    @Option(help: "Point features of the selection and render layer.")
    var rows: Int = 1_000_000

    @Option(help: "Seed of the generator.")
    var seed: UInt64 = 42

    @Option(help: "Measured selections, after one warm-up.")
    var rounds: Int = 21

    @Option(name: .customLong("render-rounds"), help: "Measured renders, after one warm-up.")
    var renderRounds: Int = 5

    @Option(help: "Identify calls measured (each timed alone), after one warm-up pass.")
    var clicks: Int = 5_000

    @Option(
        name: .customLong("only"),
        help: ArgumentHelp(
            "Run only this measurement (select, render, identify; repeatable), e.g. to profile it.",
            valueName: "STAGE"))
    var only: [String] = []

    func validate() throws {
        guard rows >= 1, rounds >= 1, renderRounds >= 1, clicks >= 1 else {
            throw ValidationError("--rows, --rounds, --render-rounds and --clicks must be at least 1")
        }
    }

    /// The world, in degrees.
    static let world = Envelope(xmin: -180, ymin: -90, xmax: 180, ymax: 90)
    /// The view of the render and identify measurements, in pixels.
    static let view = (width: 1200, height: 600)
    /// The selection query: about 10 % of the rows.
    static let selectionWhere = "AMOUNT < 100000"

    func run() throws {
        func runs(_ stage: String) -> Bool { only.isEmpty || only.contains(stage) }
        if runs("select") || runs("render") {
            let layer = try Self.pointLayer(rows: rows, seed: seed)
            note("built \(rows) point features")
            if runs("select") { try selection(layer) }
            if runs("render") { try render(layer) }
        }
        if runs("identify") { try identify() }
    }

    // MARK: Data

    /// The point layer: the stats workload's columns, points over the world.
    static func pointLayer(rows: Int, seed: UInt64) throws -> FeatureLayer {
        var random = SplitMix64(seed: seed)
        var categoryStream = random.split(), amountStream = random.split(), scoreStream = random.split()
        var pointStream = random.split()
        let names = (0..<10).map { "cat\($0)" }
        let categories = (0..<rows).map { _ in Optional(names[categoryStream.nextInt(below: names.count)]) }
        let amounts = (0..<rows).map { _ in Int64(amountStream.nextInt(below: 1_000_000)) }
        let scores = (0..<rows).map { _ in 1000 + 100 * scoreStream.nextNormal() }
        var geometries = GeometryColumn(storage: .points)
        geometries.reserveCapacity(rows)
        for _ in 0..<rows { geometries.appendPoint(x: pointStream.nextUnit() * 360 - 180, y: pointStream.nextUnit() * 180 - 90) }
        let schema = try Schema(
            fields: [
                Field(name: "OBJECTID", type: .oid), Field(name: "CATEGORY", type: .string), Field(name: "AMOUNT", type: .integer),
                Field(name: "SCORE", type: .double),
            ], objectIdFieldName: "OBJECTID", geometryType: .point, spatialReference: .wgs84)
        let table = try FeatureTable(
            schema: schema,
            columns: [
                .integer(Int64Column(values: (1...Int64(rows)).map { $0 })), .string(StringColumn(categories)),
                .integer(Int64Column(values: amounts)), .double(DoubleColumn(values: scores)),
            ],
            geometryColumn: geometries)
        return FeatureLayer(source: table, name: "points", renderer: categoryRenderer(marker: true))
    }

    /// A unique-value renderer on CATEGORY with ten colours: markers, or fills for polygons.
    static func categoryRenderer(marker: Bool) -> Renderer {
        let infos = (0..<10).map { index -> UniqueValueInfo in
            let color = RGBAColor(
                red: UInt8(25 * index), green: UInt8(255 - 20 * index), blue: UInt8((97 * index) % 256))
            let symbol: Symbol =
                marker
                ? .marker(SimpleMarkerSymbol(color: color, size: 4))
                : .fill(SimpleFillSymbol(color: color, outline: SimpleLineSymbol(color: RGBAColor(red: 80, green: 80, blue: 80), width: 0.5)))
            return UniqueValueInfo(value: "cat\(index)", symbol: symbol, label: "cat\(index)")
        }
        return .uniqueValue(UniqueValueRenderer(fields: ["CATEGORY"], uniqueValueInfos: infos))
    }

    /// A layer named `name` of `geometries` (one per row) with a CATEGORY and an AMOUNT field.
    static func layer(
        name: String, type: GeometryType, geometries: GeometryColumn, random: inout SplitMix64, renderer: Renderer? = nil
    ) throws -> FeatureLayer {
        let count = geometries.count
        let schema = try Schema(
            fields: [Field(name: "OBJECTID", type: .oid), Field(name: "CATEGORY", type: .string), Field(name: "AMOUNT", type: .integer)],
            objectIdFieldName: "OBJECTID", geometryType: type, spatialReference: .wgs84)
        let table = try FeatureTable(
            schema: schema,
            columns: [
                .integer(Int64Column(values: (1...Int64(count)).map { $0 })),
                .string(StringColumn((0..<count).map { _ in Optional("cat\(random.nextInt(below: 10))") })),
                .integer(Int64Column(values: (0..<count).map { _ in Int64(random.nextInt(below: 1_000_000)) })),
            ],
            geometryColumn: geometries)
        return FeatureLayer(source: table, name: name, renderer: renderer)
    }

    /// `count` star-shaped polygons (simple: regular angles from a random rotation, a jitter of
    /// at most a quarter step, a radius per vertex), centres uniform over the world.
    static func polygons(count: Int, vertices: ClosedRange<Int>, radius: ClosedRange<Double>, _ random: inout SplitMix64) throws
        -> GeometryColumn
    {
        var column = GeometryColumn(storage: .shapes)
        column.reserveCapacity(count)
        for _ in 0..<count {
            let cx = random.nextUnit() * 360 - 180, cy = random.nextUnit() * 170 - 85
            let n = vertices.lowerBound + random.nextInt(below: vertices.count)
            let r = radius.lowerBound + random.nextUnit() * (radius.upperBound - radius.lowerBound)
            let rotation = random.nextUnit() * 2 * Double.pi
            let step = 2 * Double.pi / Double(n)
            var ring: [Point] = []
            ring.reserveCapacity(n + 1)
            for k in 0..<n {
                let angle = rotation + step * (Double(k) + (random.nextUnit() - 0.5) / 2)
                let length = r * (0.7 + 0.3 * random.nextUnit())
                ring.append(Point(x: cx + length * cos(angle), y: cy + length * sin(angle)))
            }
            ring.reverse()  // clockwise: an Esri outer ring
            ring.append(ring[0])
            column.append(.polygon(try Polygon(exterior: ring)))
        }
        return column
    }

    /// `count` random-walk lines of `vertices` vertices, steps of up to `step` degrees.
    static func lines(count: Int, vertices: ClosedRange<Int>, step: Double, _ random: inout SplitMix64) throws -> GeometryColumn {
        var column = GeometryColumn(storage: .shapes)
        column.reserveCapacity(count)
        for _ in 0..<count {
            var x = random.nextUnit() * 350 - 175, y = random.nextUnit() * 170 - 85
            var heading = random.nextUnit() * 2 * Double.pi
            let n = vertices.lowerBound + random.nextInt(below: vertices.count)
            var path = [Point(x: x, y: y)]
            for _ in 1..<n {
                heading += (random.nextUnit() - 0.5) * 0.8
                let length = step * (0.3 + 0.7 * random.nextUnit())
                x = min(180, max(-180, x + length * cos(heading)))
                y = min(90, max(-90, y + length * sin(heading)))
                path.append(Point(x: x, y: y))
            }
            column.append(.polyline(try Polyline(paths: [path])))
        }
        return column
    }

    /// `count` uniform points over the world.
    static func points(count: Int, _ random: inout SplitMix64) -> GeometryColumn {
        var column = GeometryColumn(storage: .points)
        column.reserveCapacity(count)
        for _ in 0..<count { column.appendPoint(x: random.nextUnit() * 360 - 180, y: random.nextUnit() * 180 - 90) }
        return column
    }

    /// The identify map, bottom first: regions (10,000 polygons of 24–40 vertices, radius
    /// 0.8–2°), parcels (40,000 polygons of 5–12 vertices, radius 0.05–0.4°), roads (30,000
    /// lines of 5–20 vertices, steps up to 0.3°), stations (20,000 points; definition
    /// expression AMOUNT < 500000) and places (50,000 points).
    static func identifyMap(seed: UInt64) throws -> Map {
        var master = SplitMix64(seed: seed ^ 0x1A7E_12)
        var regionRandom = master.split(), parcelRandom = master.split(), roadRandom = master.split()
        var stationRandom = master.split(), placeRandom = master.split(), attributeRandom = master.split()
        let regions = try layer(
            name: "regions", type: .polygon,
            geometries: try polygons(count: 10_000, vertices: 24...40, radius: 0.8...2, &regionRandom),
            random: &attributeRandom, renderer: categoryRenderer(marker: false))
        let parcels = try layer(
            name: "parcels", type: .polygon,
            geometries: try polygons(count: 40_000, vertices: 5...12, radius: 0.05...0.4, &parcelRandom),
            random: &attributeRandom)
        let roads = try layer(
            name: "roads", type: .polyline, geometries: try lines(count: 30_000, vertices: 5...20, step: 0.3, &roadRandom),
            random: &attributeRandom)
        var stations = try layer(
            name: "stations", type: .point, geometries: points(count: 20_000, &stationRandom), random: &attributeRandom)
        try stations.setDefinitionExpression("AMOUNT < 500000")
        let places = try layer(
            name: "places", type: .point, geometries: points(count: 50_000, &placeRandom), random: &attributeRandom,
            renderer: categoryRenderer(marker: true))
        return Map(layers: [regions, parcels, roads, stations, places], spatialReference: .wgs84)
    }

    // MARK: Measurements

    /// The nearest-rank percentile `p` (0 … 1) of `samples` in milliseconds.
    static func percentileMilliseconds(_ samples: [UInt64], _ p: Double) -> String {
        ResultLine.milliseconds(Double(W2.percentile(samples, p)) / 1_000_000)
    }

    private func selection(_ base: FeatureLayer) throws {
        let query = QueryParameters(whereClause: Self.selectionWhere)
        var filtered = base
        try filtered.setDefinitionExpression("CATEGORY <> 'cat9'")
        for (workload, start) in [("layer.select", base), ("layer.select_defexp", filtered)] {
            var layer = start
            var samples: [UInt64] = []
            for round in 0...rounds {
                let timed = try MonotonicClock.measure { try layer.selectFeatures(query, mode: .new).count }
                if round > 0 { samples.append(timed.nanoseconds) }
            }
            let selected = try layer.selectedObjectIDs.count
            emit(ResultLine(
                workload: workload, timing: TimingSummary(nanoseconds: samples), rows: rows, result: selected,
                sizeName: "features", extras: [("p95_ms", Self.percentileMilliseconds(samples, 0.95))]))
        }
        var samples: [UInt64] = []
        var count = 0
        for round in 0...rounds {
            let timed = try MonotonicClock.measure { try base.queryFeatureCount(query) }
            count = timed.result
            if round > 0 { samples.append(timed.nanoseconds) }
        }
        emit(ResultLine(
            workload: "layer.count", timing: TimingSummary(nanoseconds: samples), rows: rows, result: count,
            sizeName: "features", extras: [("p95_ms", Self.percentileMilliseconds(samples, 0.95))]))
    }

    private func render(_ base: FeatureLayer) throws {
        var filtered = base
        try filtered.setDefinitionExpression("CATEGORY <> 'cat9'")
        try filtered.setDisplayFilterDefinition(
            .manual(
                activeFilter: DisplayFilter(name: "high", whereClause: "SCORE > 1000"),
                availableFilters: [DisplayFilter(name: "high", whereClause: "SCORE > 1000")]))
        try filtered.selectFeatures(QueryParameters(whereClause: "AMOUNT < 1000"), mode: .new)
        for (workload, layer) in [("layer.render", base), ("layer.render_filtered", filtered)] {
            let map = Map(layers: [layer], spatialReference: .wgs84)
            var samples: [UInt64] = []
            var rendering: MapRendering?
            for round in 0...renderRounds {
                let timed = try MonotonicClock.measure {
                    try map.renderSVG(extent: Self.world, width: Self.view.width, height: Self.view.height, background: RGBAColor(red: 255, green: 255, blue: 255))
                }
                rendering = timed.result
                if round > 0 { samples.append(timed.nanoseconds) }
            }
            guard let rendering else { throw ValidationError("no rendering") }
            emit(ResultLine(
                workload: workload, timing: TimingSummary(nanoseconds: samples), rows: rows,
                result: rendering.layers.reduce(0) { $0 + $1.displayed }, sizeName: "features",
                extras: [("svg_bytes", "\(rendering.svg.count)"), ("selected", "\(rendering.layers.reduce(0) { $0 + $1.selected })")]))
        }
    }

    /// Checks every layer's identify (all hits, no limit) at `points` against GEOS measuring
    /// each feature whose envelope is within the radius: the same rows, in the same order, at
    /// the same distances.
    static func checkIdentify(_ map: Map, points: [Point]) throws {
        let radius = 5 * world.width / Double(view.width)
        var compared = 0
        for layer in map.layers {
            let table = try layer.table
            let (xmin, ymin, xmax, ymax) = (table.xmin, table.ymin, table.xmax, table.ymax)
            let restriction = layer.definitionWhereClause
            try GEOSContext.withCurrent { context throws in
                for point in points {
                    let query = IdentifyParameters(
                        x: point.x, y: point.y, tolerance: 5, mapExtent: world, width: Double(view.width),
                        height: Double(view.height), maxResults: 0)
                    let found = try table.identify(query, restrictedBy: restriction).results.map { ($0.row, $0.distance) }
                    var limited = query
                    limited.maxResults = 2
                    let firstTwo = try table.identify(limited, restrictedBy: restriction).results.map { ($0.row, $0.distance) }
                    let target = try GEOSGeometry(.point(point), context: context)
                    var expected: [(row: Int, distance: Double)] = []
                    for row in 0..<table.count
                    where xmin[row] <= point.x + radius && xmax[row] >= point.x - radius && ymin[row] <= point.y + radius
                        && ymax[row] >= point.y - radius
                    {
                        guard restriction.selectsEverything
                            || !restriction.matchingRows(in: table.columns, rowCount: table.count, candidates: [UInt32(row)]).isEmpty,
                            let geometry = table.geometry(row: row)
                        else { continue }
                        let distance = try GEOSGeometry(geometry, context: context).distance(to: target)
                        if distance <= radius { expected.append((row, distance)) }
                    }
                    let ids = table.objectIDs
                    expected.sort { $0.distance < $1.distance || ($0.distance == $1.distance && ids[$0.row] < ids[$1.row]) }
                    guard found.map(\.0) == expected.map(\.row), found.map(\.1) == expected.map(\.distance),
                        firstTwo.map(\.0) == expected.prefix(2).map(\.row), firstTwo.map(\.1) == expected.prefix(2).map(\.distance)
                    else {
                        throw ValidationError("identify of \(layer.name) at \(point) differs from GEOS: \(found) vs \(expected)")
                    }
                    compared += found.count
                }
            }
        }
        note("identify checked against GEOS at \(points.count) points: \(compared) hits, same rows, order and distances (all hits and the first two)")
    }

    private func identify() throws {
        let map = try Self.identifyMap(seed: seed)
        note("built the identify map: \(map.layers.map { "\($0.name) \((try? $0.table.count) ?? 0)" }.joined(separator: ", "))")
        var random = SplitMix64(seed: seed &+ 0x1D)
        let points = (0..<clicks).map { _ in Point(x: random.nextUnit() * 360 - 180, y: random.nextUnit() * 180 - 90) }
        func parameters(_ point: Point) -> MapIdentifyParameters {
            MapIdentifyParameters(
                point: point, tolerance: 5, mapExtent: Self.world, viewWidth: Double(Self.view.width),
                viewHeight: Double(Self.view.height), layerOption: .visible)
        }
        var hits = 0
        for point in points.prefix(1000) { hits += try map.identify(parameters(point)).reduce(0) { $0 + $1.results.count } }
        hits = 0
        var failures = 0
        var samples: [UInt64] = []
        samples.reserveCapacity(points.count)
        for point in points {
            let timed = try MonotonicClock.measure { try map.identify(parameters(point)) }
            samples.append(timed.nanoseconds)
            for answer in timed.result {
                hits += answer.results.count
                if answer.error != nil { failures += 1 }
            }
        }
        guard failures == 0 else { throw ValidationError("\(failures) layer identifies failed") }
        try Self.checkIdentify(map, points: Array(points.prefix(500)))
        func micros(_ p: Double) -> String { String(format: "%.1f", Double(W2.percentile(samples, p)) / 1000) }
        emit(ResultLine(
            workload: "layer.identify", timing: TimingSummary(nanoseconds: samples), rows: map.layers.reduce(0) { $0 + ((try? $1.table.count) ?? 0) },
            result: hits, sizeName: "features", extras: [("p50_us", micros(0.5)), ("p99_us", micros(0.99)), ("max_us", micros(1.0))]))
    }
}

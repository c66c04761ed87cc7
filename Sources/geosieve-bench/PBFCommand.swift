import ArgumentParser
import Foundation
import GeoSieve
import SieveFormats

/// `geosieve-bench pbf`: the answer of an ArcGIS query for 2,000 features written as `f=json`
/// and as `f=pbf` (Esri's FeatureCollection protocol buffer), plain and quantized, and the cost
/// of gzip on the JSON: time to write and bytes.
struct PBFCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pbf",
        abstract: "f=json against f=pbf for an ArcGIS query of 2,000 features: time to write and bytes.",
        discussion: """
            Two layers. "points": a generated layer shaped like a real point layer (25 fields: a \
            64-bit ID, 16 texts most of them often NULL, 2 integers, 2 doubles, 3 dates). \
            "polygons": the countries of --polygons (Natural Earth, 177 features) repeated to \
            --features. For each, the query (every field, --features rows) is answered once, then \
            its answer written: "pbf.<layer>.json" (Esri JSON, f=json), "pbf.<layer>.pbf" (f=pbf, \
            the default grid), "pbf.<layer>.json_quantized" and "pbf.<layer>.pbf_quantized" (view \
            mode, a grid of 1/4096 of the layer's extent, as a web map asks at a small scale), and \
            "pbf.<layer>.json_gzip" (the JSON written, then gzip at level 1, as the server \
            compresses). Each line has the answer's "bytes" and, beside f=json, "ratio_bytes" \
            and "ratio_time" (JSON over the line's).
            """
    )

    @Option(help: "Features in the answer.")
    var features: Int = 2_000

    @Option(help: "Seed of the point generator.")
    var seed: UInt64 = 42

    @Option(help: "Measured rounds, after one warm-up round.")
    var rounds: Int = 21

    @Option(help: "The polygons to repeat (GeoJSON).")
    var polygons: String = "Tests/Fixtures/naturalearth_lowres.geojson"

    func validate() throws {
        guard features >= 1 else { throw ValidationError("--features must be at least 1") }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
    }

    func run() throws {
        note("generating \(features) points with 25 fields (seed \(seed))")
        try measure("points", table: try FeatureTable.load(json: Array(Self.pointsGeoJSON(features, seed: seed).utf8)))
        note("repeating the polygons of \(polygons) to \(features) features")
        let countries = try String(contentsOfFile: polygons, encoding: .utf8)
        try measure("polygons", table: try FeatureTable.load(json: Array(Self.repeated(countries, to: features).utf8)))
    }

    /// Writes the lines of one layer.
    private func measure(_ layer: String, table: FeatureTable) throws {
        var query = QueryParameters()
        query.outFields = ["*"]
        query.maxFeatures = features
        let answer = QueryAnswer.features(try table.queryFeatures(query))
        let extent = table.extent
        let side = max(extent.width, extent.height)
        let grid = CoordinateQuantization(mode: .view, tolerance: side / 4096, extent: extent)
        var quantized = FeatureWriterOptions()
        quantized.quantization = grid

        func time(_ body: () -> [UInt8]) -> (samples: [UInt64], bytes: Int) {
            var samples: [UInt64] = []
            var bytes = 0
            for round in 0...rounds {
                let (value, nanoseconds) = MonotonicClock.measure(body)
                bytes = value.count
                if round > 0 { samples.append(nanoseconds) }
            }
            return (samples, bytes)
        }
        let json = time { answer.esriJSON() }
        let jsonTiming = TimingSummary(nanoseconds: json.samples)
        let count = answer.features?.count ?? 0
        func line(_ name: String, _ measured: (samples: [UInt64], bytes: Int)) {
            let timing = TimingSummary(nanoseconds: measured.samples)
            var extras = [("bytes", String(measured.bytes))]
            if name != "json" {
                extras.append(("ratio_bytes", String(format: "%.2f", Double(json.bytes) / Double(max(measured.bytes, 1)))))
                extras.append(("ratio_time", String(format: "%.2f", jsonTiming.medianMilliseconds / max(timing.medianMilliseconds, 1e-9))))
            }
            emit(ResultLine(workload: "pbf.\(layer).\(name)", timing: timing, rows: count, result: count, sizeName: "features", extras: extras))
        }
        line("json", json)
        line("pbf", time { answer.pbf() ?? [] })
        line("json_quantized", time { answer.esriJSON(options: quantized) })
        line("pbf_quantized", time { answer.pbf(quantization: grid) ?? [] })
        line("json_gzip", time { Deflate.compress(answer.esriJSON(), windowBits: 31, level: 1) ?? [] })
    }

    /// A FeatureCollection of `count` points with the 25 fields of a real point layer.
    static func pointsGeoJSON(_ count: Int, seed: UInt64) -> String {
        var random = SplitMix64(seed: seed)
        let categories = (0..<40).map { "category \($0)" }
        let cities = (0..<2_500).map { "City \($0)" }
        func maybe(_ rate: Double, _ text: @autoclosure () -> String) -> String {
            random.nextUnit() < rate ? "\"\(text())\"" : "null"
        }
        var text = #"{"type":"FeatureCollection","features":["#
        for i in 0..<count {
            if i > 0 { text += "," }
            let x = -180 + 360 * random.nextUnit(), y = -85 + 170 * random.nextUnit()
            let id = 4_000_000_000_000 + Int64(random.nextInt(below: 1_000_000_000))
            let created = 1_500_000_000 + random.nextInt(below: 200_000_000)
            let properties = [
                "\"osm_id\":\(id)",
                "\"name\":\(maybe(0.85, "Place \(random.nextInt(below: 1_000_000))"))",
                "\"name_en\":\(maybe(0.10, "Place \(random.nextInt(below: 1_000_000))"))",
                "\"category\":\"\(categories[random.nextInt(below: categories.count)])\"",
                "\"subcategory\":\"sub \(random.nextInt(below: 300))\"",
                "\"street\":\(maybe(0.70, "Street \(random.nextInt(below: 8_000))"))",
                "\"housenumber\":\(maybe(0.50, "\(random.nextInt(below: 600))"))",
                "\"city\":\(maybe(0.80, cities[random.nextInt(below: cities.count)]))",
                "\"postcode\":\(maybe(0.60, "\(10_000 + random.nextInt(below: 4_000))"))",
                "\"country\":\"C\(random.nextInt(below: 200))\"",
                "\"phone\":\(maybe(0.15, "+1 555 \(random.nextInt(below: 10_000_000))"))",
                "\"website\":\(maybe(0.10, "https://example.org/\(random.nextInt(below: 10_000_000))"))",
                "\"email\":\(maybe(0.05, "info\(random.nextInt(below: 10_000_000))@example.org"))",
                "\"opening_hours\":\(maybe(0.30, "Mo-Fr \(8 + random.nextInt(below: 3)):00-\(17 + random.nextInt(below: 4)):00"))",
                "\"operator\":\(maybe(0.20, "Operator \(random.nextInt(below: 900))"))",
                "\"source\":\"source \(random.nextInt(below: 5))\"",
                "\"wikidata\":\(maybe(0.10, "Q\(random.nextInt(below: 100_000_000))"))",
                "\"population\":\(random.nextUnit() < 0.1 ? String(random.nextInt(below: 5_000_000)) : "null")",
                "\"capacity\":\(random.nextUnit() < 0.2 ? String(random.nextInt(below: 500)) : "null")",
                "\"elevation\":\(random.nextUnit() < 0.4 ? String(-50 + 3000 * random.nextUnit()) : "null")",
                "\"rating\":\(random.nextUnit() < 0.7 ? String(1 + 4 * random.nextUnit()) : "null")",
                "\"created\":\"\(Self.iso(created))\"",
                "\"updated\":\(random.nextUnit() < 0.7 ? "\"\(Self.iso(created + random.nextInt(below: 50_000_000)))\"" : "null")",
                "\"survey\":\(random.nextUnit() < 0.3 ? "\"\(Self.iso(created).prefix(10))\"" : "null")",
            ]
            text += #"{"type":"Feature","properties":{"# + properties.joined(separator: ",")
            text += #"},"geometry":{"type":"Point","coordinates":["# + "\(x),\(y)]}}"
        }
        return text + "]}"
    }

    /// `seconds` since 1970 as `yyyy-mm-ddThh:mm:ssZ`.
    static func iso(_ seconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// The features of the FeatureCollection `text` repeated until there are `count`, without
    /// their `id` members (the copies get new object IDs).
    static func repeated(_ text: String, to count: Int) throws -> String {
        guard let root = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let features = root["features"] as? [[String: Any]], !features.isEmpty
        else { throw ValidationError("--polygons must be a GeoJSON FeatureCollection with features") }
        var copies: [[String: Any]] = []
        while copies.count < count {
            for var feature in features where copies.count < count {
                feature["id"] = nil
                copies.append(feature)
            }
        }
        let data = try JSONSerialization.data(withJSONObject: ["type": "FeatureCollection", "features": copies])
        return String(decoding: data, as: UTF8.self)
    }
}

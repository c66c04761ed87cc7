import Foundation
import FuzzSupport
import GeoSieve

/// Writes the seed corpus of every fuzz target from the repository's tests: the geometries of the
/// relationship fixtures and the real datasets in every format, small feature collections cut
/// from the datasets, and the string literals of the where-clause tests.
///
///     fuzz-seeds OUTPUT_FOLDER
///
/// writes `OUTPUT_FOLDER/<target>/<n>` files; `Fuzz/run.sh` calls it before the first run.
@main
struct FuzzSeeds {
    static func main() throws {
        guard CommandLine.arguments.count == 2 else {
            FileHandle.standardError.write(Data("usage: fuzz-seeds OUTPUT_FOLDER\n".utf8))
            exit(2)
        }
        var seeds = SeedWriter(root: URL(fileURLWithPath: CommandLine.arguments[1]))
        let repository = Fuzzing.fixtures.deletingLastPathComponent().deletingLastPathComponent()

        // Geometries: the relationship fixtures, every WKT literal of the geometry tests, and the
        // first features of each dataset (small ones, so that mutations stay fast).
        var geometries: [Geometry] = []
        let fixtureText = try String(contentsOf: Fuzzing.fixtures.appendingPathComponent("relate_fixtures.wkt"), encoding: .utf8)
        for line in fixtureText.split(separator: "\n") where !line.hasPrefix("#") {
            guard let wkt = line.split(separator: "\t").last.map(String.init) else { continue }
            seeds.add("fuzz-wkt", wkt)
            if let geometry = try? Geometry(wkt: wkt) { geometries.append(geometry) }
        }
        for literal in try stringLiterals(in: repository.appendingPathComponent("Tests/SieveGeometryTests")) {
            if literal.range(of: #"^(POINT|LINESTRING|POLYGON|MULTI|GEOMETRYCOLLECTION|SRID)"#, options: .regularExpression) != nil {
                seeds.add("fuzz-wkt", literal)
            } else if literal.hasPrefix("{") {
                seeds.add("fuzz-geojson", literal)
                seeds.add("fuzz-esrijson", literal)
            }
        }
        for dataset in ["naturalearth_lowres.geojson", "naturalearth_cities.geojson", "nybb.geojson"] {
            let table = try FeatureTable.load(contentsOf: Fuzzing.fixtures.appendingPathComponent(dataset))
            let small = (0..<table.count).compactMap { table.geometry(row: $0) }.filter { $0.wkb().count < 4_000 }
            geometries += small.prefix(12)
            for first in stride(from: 0, to: min(table.count, 9), by: 3) {
                let rows = (first..<min(table.count, first + 3)).map { table.objectID(row: $0) }
                let result = try table.queryFeatures(QueryParameters(objectIDs: rows))
                seeds.add("fuzz-features", result.geoJSON)
                seeds.add("fuzz-features", result.esriJSON)
                // The same features as a FlatGeobuf file (0), a zipped shapefile (1), CSV (2) and
                // GeoParquet (3), each behind the byte that picks its reader in fuzz-formats.
                let subset = try result.makeTable()
                for index in [true, false] {
                    seeds.add("fuzz-formats", [0] + (try FlatGeobuf.encode(subset, options: FlatGeobufWriteOptions(index: index))))
                }
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-seeds-\(getpid())")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let archive = folder.appendingPathComponent("seed.shz").path
                try Shapefile.write(subset, to: archive, options: ShapefileWriteOptions(modified: 0))
                seeds.add("fuzz-formats", [1] + [UInt8](try Data(contentsOf: URL(fileURLWithPath: archive))))
                try? FileManager.default.removeItem(at: folder)
                seeds.add("fuzz-formats", [2] + Array(result.text(.csv).utf8))
                // (A Parquet file cut to the target's 64 KiB loses its footer: larger ones are left out.)
                let parquet = try GeoParquet.encode(subset, options: GeoParquetWriteOptions(compression: .none))
                if parquet.count < 65_535 { seeds.add("fuzz-formats", [3] + parquet) }
            }
        }
        try addGeoParquetSeeds(&seeds)
        for geometry in geometries {
            seeds.add("fuzz-wkt", geometry.wkt)
            seeds.add("fuzz-wkb", geometry.wkb())
            seeds.add("fuzz-wkb", geometry.wkb(byteOrder: .bigEndian))
            seeds.add("fuzz-geojson", geometry.geoJSON)
            if let esri = try? geometry.esriJSON(spatialReference: .wgs84) { seeds.add("fuzz-esrijson", esri) }
        }

        // Where clauses: every string literal of the where-clause and query tests that reads as
        // one (the parser is the judge of nothing here: invalid clauses are good seeds too).
        let sqlFolders = ["Tests/SieveSQLTests", "Tests/SieveFeaturesTests", "Tests/GeoSieveCLITests"]
        for folder in sqlFolders {
            for literal in try stringLiterals(in: repository.appendingPathComponent(folder))
            where literal.range(of: #"(?i)(=|<|>|\bLIKE\b|\bIN\b|\bIS\b|\bBETWEEN\b|\bAND\b|\bOR\b|\(|\bCASE\b)"#, options: .regularExpression) != nil {
                seeds.add("fuzz-where", literal)
            }
        }
        // And the hand-written clauses over the fuzz tables' own fields (Fuzz/Seeds/where.txt).
        let clauses = try String(contentsOf: repository.appendingPathComponent("Fuzz/Seeds/where.txt"), encoding: .utf8)
        for clause in clauses.split(separator: "\n") { seeds.add("fuzz-where", String(clause)) }

        // CQL2 filters: both encodings of every pair of the project's corpus.
        let corpus = try String(contentsOf: Fuzzing.fixtures.appendingPathComponent("cql2/corpus.jsonl"), encoding: .utf8)
        for line in corpus.split(separator: "\n") {
            guard let entry = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            if let text = entry["text"] as? String { seeds.add("fuzz-cql2", text) }
            if let json = entry["json"], JSONSerialization.isValidJSONObject(json) {
                seeds.add("fuzz-cql2", String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self))
            }
        }
        print(seeds.summary)
    }

    /// GeoParquet files for fuzz-formats (behind its selector byte 3), small enough for the
    /// target's 64 KiB inputs: the first 20 cities in row groups of 5 with each compression and
    /// without the covering, the fuzz tables' extreme values, and the files of
    /// Tests/Fixtures/geoparquet written by pyarrow, GeoPandas and DuckDB (dictionary pages,
    /// data pages v2, other encodings and types).
    static func addGeoParquetSeeds(_ seeds: inout SeedWriter) throws {
        let cities = try FeatureTable.load(contentsOf: Fuzzing.fixtures.appendingPathComponent("naturalearth_cities.geojson"))
        let first = Array(0..<min(cities.count, 20))
        for compression in GeoParquetWriteOptions.Compression.allCases {
            let options = GeoParquetWriteOptions(compression: compression, rowGroupSize: 5)
            seeds.add("fuzz-formats", [3] + (try GeoParquet.encode(cities, rows: first, options: options)))
        }
        let plain = GeoParquetWriteOptions(compression: .none, rowGroupSize: 5, covering: false)
        seeds.add("fuzz-formats", [3] + (try GeoParquet.encode(cities, rows: first, options: plain)))
        if let extremes = FuzzTables.extremes {
            for compression in [GeoParquetWriteOptions.Compression.none, .snappy] {
                let options = GeoParquetWriteOptions(compression: compression, rowGroupSize: 16)
                seeds.add("fuzz-formats", [3] + (try GeoParquet.encode(extremes, options: options)))
            }
        }
        let folder = Fuzzing.fixtures.appendingPathComponent("geoparquet")
        let files = ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
            .filter { GeoParquet.hasParquetExtension($0.path) }
            .sorted { $0.path < $1.path }
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: file))
            if bytes.count < 65_535 { seeds.add("fuzz-formats", [3] + bytes) }
        }
    }

    /// The plain string literals (no interpolation, one line) of the Swift files in a folder.
    static func stringLiterals(in folder: URL) throws -> [String] {
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }
            .sorted { $0.path < $1.path }
        var literals: [String] = []
        let pattern = try NSRegularExpression(pattern: #""((?:[^"\\\n]|\\[^(])*)""#)
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let range = NSRange(text.startIndex..., in: text)
            for match in pattern.matches(in: text, range: range) {
                guard let body = Range(match.range(at: 1), in: text) else { continue }
                let literal = unescape(String(text[body]))
                if literal.count >= 3 { literals.append(literal) }
            }
        }
        return literals
    }

    /// Resolves the simple escapes of a Swift string literal (`\"`, `\\`, `\n`, `\t`, `\u{…}`).
    static func unescape(_ text: String) -> String {
        var result = ""
        var iterator = text.makeIterator()
        while let character = iterator.next() {
            guard character == "\\", let next = iterator.next() else {
                result.append(character)
                continue
            }
            switch next {
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "0": result.append("\0")
            case "u":
                var hex = ""
                while let digit = iterator.next(), digit != "}" {
                    if digit != "{" { hex.append(digit) }
                }
                if let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) { result.unicodeScalars.append(scalar) }
            default: result.append(next)
            }
        }
        return result
    }
}

/// Writes numbered seed files per target, skipping duplicates.
struct SeedWriter {
    let root: URL
    private var written: [String: Set<[UInt8]>] = [:]

    init(root: URL) { self.root = root }

    mutating func add(_ target: String, _ text: String) { add(target, Array(text.utf8)) }

    mutating func add(_ target: String, _ bytes: [UInt8]) {
        guard written[target, default: []].insert(bytes).inserted else { return }
        let folder = root.appendingPathComponent(target)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let name = String(format: "seed-%04d", written[target, default: []].count)
        FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: Data(bytes))
    }

    var summary: String {
        written.keys.sorted().map { "\($0): \(written[$0, default: []].count) seeds" }.joined(separator: "\n")
    }
}

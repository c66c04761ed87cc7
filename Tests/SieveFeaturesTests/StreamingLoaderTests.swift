import SieveColumns
import SieveFeatures
import SieveEditing
@testable import SieveFormats
import SieveGeometry
import SieveTestSupport
import Testing

@Suite("Streaming loaders", .tags(.slow), .timeLimit(.minutes(10)))
struct StreamingLoaderTests {
    /// Seeded features of every property kind, with kinds that change along the file (so that
    /// columns widen after a split point), escapes, non-ASCII text, nested values, string and
    /// integer ids, and points, lines and polygons as `shape` asks.
    static func features(count: Int, seed: UInt64, shape: String = "Point") -> [String] {
        var random = SeededGenerator(seed: seed)
        var result: [String] = []
        result.reserveCapacity(count)
        for i in 0..<count {
            var properties: [String] = []
            properties.append(#""n":\#(Int.random(in: -1_000_000...1_000_000, using: &random))"#)
            // An integer column that turns double in the last tenth, and text in the last row.
            if i == count - 1 {
                properties.append(#""w":"late""#)
            } else {
                properties.append(i > count * 9 / 10 ? #""w":\#(Double(i) + 0.25)"# : #""w":\#(i)"#)
            }
            properties.append(#""name":"Zürich \"\#(i % 97)\" \u00e9\#(i % 13)""#)
            if i % 3 == 0 { properties.append(#""when":"2024-03-\#(String(format: "%02d", i % 28 + 1))""#) }
            properties.append(#""flag":\#(i % 2 == 0 ? "true" : "false")"#)
            if i % 5 == 0 { properties.append(#""tags":[\#(i),{"k":"v"}]"#) }
            if i % 7 == 0 { properties.append(#""empty":null"#) }
            let x = Double.random(in: -180...180, using: &random)
            let y = Double.random(in: -85...85, using: &random)
            let geometry: String
            switch shape {
            case "Polygon":
                geometry = #"{"type":"Polygon","coordinates":[[[\#(x),\#(y)],[\#(x + 1),\#(y)],[\#(x + 1),\#(y + 1)],[\#(x),\#(y)]]]}"#
            case "LineString":
                geometry = #"{"coordinates":[[\#(x),\#(y)],[\#(x + 0.5),\#(y - 0.5),7]],"type":"LineString"}"#
            default:
                geometry = i % 11 == 0 ? "null" : #"{"type":"Point","coordinates":[\#(x),\#(y)]}"#
            }
            let id = i % 4 == 0 ? #""f\#(i)""# : String(i)
            result.append(#"{"type":"Feature","id":\#(id),"properties":{\#(properties.joined(separator: ","))},"geometry":\#(geometry)}"#)
        }
        return result
    }

    static func collection(_ features: [String]) -> [UInt8] {
        Array((#"{"type":"FeatureCollection","features":[\#n"# + features.joined(separator: ",\n") + "\n]}").utf8)
    }

    /// Every field, value, object ID and geometry of two tables.
    static func expectSame(_ a: FeatureTable, _ b: FeatureTable, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.schema == b.schema, sourceLocation: sourceLocation)
        #expect(a.count == b.count, sourceLocation: sourceLocation)
        #expect(a.objectIDs == b.objectIDs, sourceLocation: sourceLocation)
        guard a.schema == b.schema, a.count == b.count else { return }
        for row in 0..<a.count {
            for field in a.schema.fields where a.value(row: row, field: field.name) != b.value(row: row, field: field.name) {
                Issue.record("row \(row), field \(field.name) differs", sourceLocation: sourceLocation)
                return
            }
            if a.geometry(row: row) != b.geometry(row: row) {
                Issue.record("row \(row): geometries differ", sourceLocation: sourceLocation)
                return
            }
        }
    }

    @Test(arguments: ["Point", "LineString", "Polygon"])
    func threadsGiveIdenticalTables(shape: String) throws {
        // Inputs over 256 KiB are split here (4 MiB by default), so that a few thousand features
        // make several pieces each.
        let features = Self.features(count: shape == "Polygon" ? 2_500 : 4_000, seed: 7, shape: shape)
        let bytes = Self.collection(features)
        func options(threads: Int) -> LoadOptions {
            var options = LoadOptions(threads: threads)
            options.parallelThreshold = 256 << 10
            return options
        }
        #expect(bytes.count > 3 * options(threads: 1).parallelThreshold)
        let one = try FeatureTable.loadReporting(json: bytes, options: options(threads: 1)).table
        #expect(one.count == features.count)
        #expect(one.schema.field(named: "w")?.type == .string)
        #expect(one.schema.field(named: "when")?.type == .date)
        #expect(one.schema.field(named: "flag")?.type == .smallInteger)
        #expect(one.schema.field(named: "id")?.type == .string)
        #expect(one.value(row: 1, field: "w") == .string("1"))
        #expect(one.value(row: 0, field: "id") == .string("f0"))
        #expect(one.value(row: 1, field: "id") == .string("1"))
        #expect(one.value(row: 0, field: "name") == .string("Zürich \"0\" é0"))
        #expect(one.value(row: 5, field: "tags") == .string(#"[5,{"k":"v"}]"#))
        for threads in [2, 3, 4] {
            let many = try FeatureTable.loadReporting(json: bytes, options: options(threads: threads)).table
            Self.expectSame(one, many)
        }
        // Explicit fields: the pieces' typed columns are joined (texts renumbered, NULL rows of
        // missing members kept).
        let fields = [
            Field(name: "n", type: .integer), Field(name: "name", type: .string), Field(name: "when", type: .date),
            Field(name: "flag", type: .smallInteger),
        ]
        let explicitOne = try FeatureTable.loadReporting(json: bytes, schema: fields, options: options(threads: 1)).table
        #expect(explicitOne.value(row: 0, field: "name") == one.value(row: 0, field: "name"))
        #expect(explicitOne.value(row: 3, field: "when") == one.value(row: 3, field: "when"))
        #expect(explicitOne.value(row: 1, field: "when") == .null)
        for threads in [2, 3] {
            Self.expectSame(explicitOne, try FeatureTable.loadReporting(json: bytes, schema: fields, options: options(threads: threads)).table)
        }
        // The same features as GeoJSONSeq (with and without record separators), and the
        // collection loaded through its text.
        let sequence = Array(features.joined(separator: "\n").utf8)
        Self.expectSame(one, try FeatureTable.loadReporting(json: sequence, options: options(threads: 2)).table)
        let separated = Array(features.map { "\u{1E}" + $0 + "\n" }.joined().utf8)
        Self.expectSame(one, try FeatureTable.loadReporting(json: separated, options: options(threads: 3)).table)
    }

    @Test func mostlyIntegerColumnsWidenExactly() throws {
        // Integers beyond 2^53 and -0 keep their text when the column turns to text; doubles
        // keep -0.0.
        let table = try FeatureTable.load(
            geoJSON: featureCollection([
                #"{"a":9007199254740993,"b":-0,"c":-0}"#, #"{"a":"x","b":"y","c":1.5}"#,
            ]))
        #expect(table.value(row: 0, field: "a") == .string("9007199254740993"))
        #expect(table.value(row: 0, field: "b") == .string("-0"))
        guard case .double(let c) = table.value(row: 0, field: "c") else {
            Issue.record("c is not a double")
            return
        }
        #expect(c.sign == .minus && c == 0)
    }

    @Test func skippedFeaturesLeaveNoTrace() throws {
        var features = Self.features(count: 30, seed: 3)
        features[4] = #"{"type":"Feature","properties":{"only_here":1},"geometry":{"type":"Point","coordinates":[1]}}"#
        features[9] = #"{"type":"Feature","properties":{"n":1e999},"geometry":null}"#
        features[20] = #"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}"#
        let bytes = Self.collection(features)
        let strict = featureTableError { _ = try FeatureTable.load(json: bytes) }
        #expect(strict?.kind == .invalidGeometry)
        #expect(strict?.featureIndex == 4)
        #expect(strict?.line == 6)
        let (table, report) = try FeatureTable.loadReporting(json: bytes, options: LoadOptions(onInvalid: .skip))
        #expect(table.count == 27)
        #expect(report.skippedCount == 3)
        #expect(report.firstSkipped.map(\.featureIndex) == [4, 9, 20])
        #expect(report.firstSkipped.map(\.line) == [6, 11, 22])
        #expect(report.firstSkipped.map(\.kind) == [.invalidGeometry, .conversionFailed, .mixedGeometryTypes])
        #expect(table.schema.field(named: "only_here") == nil)
        // Positions stay file positions: the object ID of the feature after a skipped one.
        #expect(table.objectIDs.contains(6) && !table.objectIDs.contains(5))
    }

    /// A feature skipped for an attribute does not decide the geometry type either, with
    /// inferred and with explicit fields.
    @Test func skippedFeaturesDoNotDecideTheGeometryType() throws {
        let text = """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"a":1e400},"geometry":{"type":"Point","coordinates":[1,2]}},
            {"type":"Feature","properties":{"a":1},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}}]}
            """
        for schema in [nil, [Field(name: "a", type: .integer)]] {
            let (table, report) = try FeatureTable.loadReporting(
                json: Array(text.utf8), schema: schema, options: LoadOptions(onInvalid: .skip))
            #expect(report.skippedCount == 1)
            #expect(report.firstSkipped.first?.featureIndex == 0)
            #expect(table.count == 1)
            #expect(table.schema.geometryType == .polygon)
            #expect(table.value(row: 0, field: "a") == .integer(1))
        }
    }

    @Test func errorsCarryLineColumnAndByteOffset() {
        let text = "{\"type\":\"FeatureCollection\",\n\"features\":[\n{\"type\":\"Feature\",\"properties\":{\"é\":1},\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,true]}}]}"
        let error = featureTableError { _ = try FeatureTable.load(geoJSON: text) }
        #expect(error?.kind == .invalidGeometry)
        #expect(error?.line == 3)
        // "[1,true]": true is the 85th character of line 3 and, after the 2-byte é, byte 85.
        let lineStart = text.utf8.count - "{\"type\":\"Feature\",\"properties\":{\"é\":1},\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,true]}}]}".utf8.count
        let trueOffset = text.utf8.count - "true]}}]}".utf8.count
        #expect(error?.byteOffset == trueOffset)
        #expect(error?.column == trueOffset - lineStart)
    }

    @Test func geoJSONSeqAndSingleFeatures() throws {
        let single = try FeatureTable.load(
            json: Array(#"{"type":"Feature","id":"a-1","properties":{"id":5},"geometry":{"type":"Point","coordinates":[1,2]}}"#.utf8))
        #expect(single.count == 1)
        // The feature's string id is kept; the properties' id keeps its name.
        #expect(single.schema.fieldNames == ["OBJECTID", "id", "id_1"])
        #expect(single.value(row: 0, field: "id_1") == .string("a-1"))
        let notAFeature = featureTableError {
            _ = try FeatureTable.load(json: Array("{\"type\":\"Feature\",\"properties\":{}}\n[1]\n".utf8))
        }
        #expect(notAFeature?.kind == .invalidGeoJSON)
        #expect(notAFeature?.line == 2)
    }

    /// Keys are recognized by comparing them with the previous feature's key at the same
    /// position: that shortcut must read exactly what reading each key reads. Seeded features
    /// whose keys (near-duplicates, prefixes, escaped spellings of the same name, non-ASCII
    /// names, white space before the colon) change order, appear and disappear, and whose
    /// feature members change order too; every value lands under its own name.
    @Test(arguments: [UInt64(1), 2, 3])
    func keysMatchedByPositionReadAsKeys(seed: UInt64) throws {
        // (name, spellings in the text)
        let pool: [(String, [String])] = [
            ("a", [#""a""#, #""\u0061""#]), ("ab", [#""ab""#, #""a\u0062""#]), ("abc", [#""abc""#]),
            ("b", [#""b""#]), ("bé", [#""bé""#, #""b\u00e9""#]), ("long_name_of_a_key", [#""long_name_of_a_key""#]),
            ("long_name_of_a_kez", [#""long_name_of_a_kez""#]),
        ]
        var random = SeededGenerator(seed: seed)
        var texts: [String] = []
        var expected: [[String: Int64]] = []
        var order: [Int] = Array(pool.indices)
        for i in 0..<400 {
            // Mostly the previous order; sometimes shuffled, shortened or lengthened.
            switch Int.random(in: 0..<10, using: &random) {
            case 0: order.shuffle(using: &random)
            case 1: if order.count > 1 { order.removeLast() }
            case 2: order = Array(pool.indices).shuffled(using: &random).prefix(Int.random(in: 0...pool.count, using: &random)).map { $0 }
            default: break
            }
            var values: [String: Int64] = [:]
            var members: [String] = []
            for k in order {
                let value = Int64(i * 100 + k)
                values[pool[k].0] = value
                let spelling = pool[k].1[Int.random(in: 0..<pool[k].1.count, using: &random)]
                let colon = Int.random(in: 0..<8, using: &random) == 0 ? " : " : ":"
                members.append(spelling + colon + String(value))
            }
            let properties = #""properties":{"# + members.joined(separator: ",") + "}"
            let geometry = #""geometry":{"type":"Point","coordinates":[\#(i),1]}"#
            let type = #""type":"Feature""#
            let parts = Int.random(in: 0..<6, using: &random) == 0 ? [geometry, properties, type] : [type, properties, geometry]
            texts.append("{" + parts.joined(separator: ",") + "}")
            expected.append(values)
        }
        let table = try FeatureTable.load(json: Self.collection(texts))
        #expect(table.count == texts.count)
        for (row, values) in expected.enumerated() {
            for (name, _) in pool {
                let want: ScalarValue = values[name].map { .integer($0) } ?? .null
                if table.value(row: row, field: name) != want {
                    Issue.record("row \(row), \(name): \(table.value(row: row, field: name)) instead of \(want)")
                    return
                }
            }
            #expect(table.geometry(row: row) == .point(Point(x: Double(row), y: 1)))
        }
        // A repeated key spelled otherwise, where the previous feature had another key, and a
        // key followed by something other than a colon, are still errors.
        let first = #"{"type":"Feature","properties":{"a":1,"ab":2},"geometry":null}"#
        for (bad, message) in [
            (#"{"type":"Feature","properties":{"a":1,"\u0061":2},"geometry":null}"#, "duplicate key \"a\""),
            (#"{"type":"Feature","properties":{"a":1,"ab"x:2},"geometry":null}"#, "expected ':', found 'x'"),
            (#"{"type":"Feature","properties":{"a":1,"ab"},"geometry":null}"#, "expected ':', found '}'"),
            (#"{"type":"Feature","type":"Feature","properties":{},"geometry":null}"#, "duplicate key \"type\""),
        ] {
            let error = featureTableError { _ = try FeatureTable.load(json: Self.collection([first, first, bad])) }
            #expect(error?.message.contains(message) == true, "\(bad): \(String(describing: error))")
            #expect(error?.line == 4, "\(bad)")
        }
    }
}

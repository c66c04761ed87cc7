import Foundation
import SieveCQL
import SieveFeatures
import SieveEditing
import SieveFormats
import Testing
import SieveTestSupport

/// One line of `cql2/eval_oracle.jsonl`: a filter in both encodings over one fixture, and the
/// object IDs independent oracles say it selects (see `Tests/Fixtures/cql2/README.md`).
struct CQL2OracleCase: Sendable {
    let id: String
    let layer: String
    let text: String
    /// The cql2-json form, exactly as written in the file (integers stay integers).
    let json: String
    let ids: [Int64]
}

/// The oracle's filters and the two fixtures they run on, read once.
struct CQL2OracleData: Sendable {
    let cases: [CQL2OracleCase]
    let tables: [String: FeatureTable]

    static let shared = Result { try CQL2OracleData() }

    private struct Line: Decodable {
        let id: String
        let layer: String
        let text: String
        let ids: [Int64]
    }

    init() throws {
        var tables: [String: FeatureTable] = [:]
        for layer in ["naturalearth_lowres", "naturalearth_cities"] {
            tables[layer] = try FeatureTable.load(contentsOf: fixtureURL(layer + ".geojson"))
        }
        var cases: [CQL2OracleCase] = []
        for line in try fixtureText("cql2/eval_oracle.jsonl").split(separator: "\n") where !line.isEmpty {
            let decoded = try JSONDecoder().decode(Line.self, from: Data(line.utf8))
            guard let json = Self.rawMember("json", of: line) else {
                throw CocoaError(
                    .fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "\(decoded.id) has no \"json\""])
            }
            cases.append(
                CQL2OracleCase(
                    id: decoded.id, layer: decoded.layer, text: decoded.text, json: String(json), ids: decoded.ids))
        }
        self.cases = cases
        self.tables = tables
    }

    /// The text of the value of the top-level member `name` of the JSON object `line`, as it
    /// stands (a decoder would turn `1` and `1.0` into the same number; CQL2 tells them apart).
    static func rawMember(_ name: String, of line: Substring) -> Substring? {
        let bytes = Array(line.utf8)
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), comma = UInt8(ascii: ",")
        /// The index just past the string that starts (with its quote) at `start`.
        func endOfString(_ start: Int) -> Int {
            var i = start + 1
            while i < bytes.count, bytes[i] != quote { i += bytes[i] == backslash ? 2 : 1 }
            return i + 1
        }
        /// The index of the `,` or `}` that ends the value starting at `start`.
        func endOfValue(_ start: Int) -> Int {
            var i = start, level = 0
            while i < bytes.count {
                switch bytes[i] {
                case quote:
                    i = endOfString(i)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): level += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if level == 0 { return i }
                    level -= 1
                case comma where level == 0: return i
                default: break
                }
                i += 1
            }
            return i
        }
        func skipSpace(_ i: inout Int) { while i < bytes.count, bytes[i] == UInt8(ascii: " ") { i += 1 } }
        var i = 0
        skipSpace(&i)
        guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        while true {
            skipSpace(&i)
            guard i < bytes.count, bytes[i] == quote else { return nil }
            let keyEnd = endOfString(i)
            let key = String(decoding: bytes[(i + 1)..<(keyEnd - 1)], as: UTF8.self)
            i = keyEnd
            skipSpace(&i)
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipSpace(&i)
            let valueStart = i, valueEnd = endOfValue(i)
            if key == name {
                let utf8 = line.utf8
                return Substring(
                    utf8[
                        utf8.index(
                            utf8.startIndex, offsetBy: valueStart)..<utf8.index(utf8.startIndex, offsetBy: valueEnd)])
            }
            i = valueEnd
            guard i < bytes.count, bytes[i] == comma else { return nil }
            i += 1
        }
    }
}

/// How two sorted ID lists differ, for a message; `nil` when they are equal.
func idDifference(expected: [Int64], got: [Int64]) -> String? {
    guard expected != got else { return nil }
    let missing = Set(expected).subtracting(got).sorted(), extra = Set(got).subtracting(expected).sorted()
    return "expected \(expected.count) ids, got \(got.count); missing \(missing), unexpected \(extra)"
}

@Suite("CQL2 evaluation against independent oracles")
struct CQL2OracleTests {
    /// The selected object IDs, ascending.
    static func objectIDs(_ source: String, encoding: CQL2Error.Encoding, table: FeatureTable) throws -> [Int64] {
        let filter = try CQL2Filter(source, encoding: encoding)
        let rows = try FeatureFilter(filter, table: table).matchingRows(in: table)
        return rows.map { table.objectIDs[Int($0)] }.sorted()
    }

    @Test func theOracleIsThere() throws {
        let data = try CQL2OracleData.shared.get()
        #expect(data.cases.count >= 300)
        #expect(Set(data.cases.map(\.layer)) == ["naturalearth_lowres", "naturalearth_cities"])
        #expect(Set(data.cases.map(\.id)).count == data.cases.count)
        // The loader takes the object IDs from the features' `id`, which the oracle uses.
        for table in data.tables.values { #expect(Array(table.objectIDs) == (1...Int64(table.count)).map { $0 }) }
        // A wrong list of IDs is reported.
        let first = try #require(data.cases.first(where: { !$0.ids.isEmpty }))
        #expect(idDifference(expected: first.ids, got: Array(first.ids.dropLast())) != nil)
        #expect(idDifference(expected: first.ids, got: first.ids) == nil)
    }

    @Test(arguments: [CQL2Error.Encoding.text, .json])
    func filtersSelectWhatTheOraclesSay(encoding: CQL2Error.Encoding) throws {
        let data = try CQL2OracleData.shared.get()
        var failures = 0
        for oracle in data.cases {
            let table = try #require(data.tables[oracle.layer])
            let source = encoding == .text ? oracle.text : oracle.json
            do {
                let got = try Self.objectIDs(source, encoding: encoding, table: table)
                if let difference = idDifference(expected: oracle.ids, got: got) {
                    failures += 1
                    Issue.record("\(oracle.id) [\(oracle.layer), \(encoding.rawValue)] \(oracle.text): \(difference)")
                }
            } catch {
                failures += 1
                Issue.record("\(oracle.id) [\(oracle.layer), \(encoding.rawValue)] \(oracle.text) throws: \(error)")
            }
        }
        #expect(
            failures == 0, "\(failures) of \(data.cases.count) filters disagree with the oracle (\(encoding.rawValue))")
    }

    /// The same filters through a query's `filter` parameter (PreparedQuery's path).
    @Test func queriesWithTheFilterSelectTheSame() throws {
        let data = try CQL2OracleData.shared.get()
        var failures = 0
        for oracle in data.cases {
            let table = try #require(data.tables[oracle.layer])
            do {
                let got = try table.queryObjectIDs(
                    QueryParameters(filter: try CQL2Filter(oracle.text, encoding: .text)))
                if let difference = idDifference(expected: oracle.ids, got: got.sorted()) {
                    failures += 1
                    Issue.record("\(oracle.id) [\(oracle.layer), query] \(oracle.text): \(difference)")
                }
            } catch {
                failures += 1
                Issue.record("\(oracle.id) [\(oracle.layer), query] \(oracle.text) throws: \(error)")
            }
        }
        #expect(failures == 0, "\(failures) of \(data.cases.count) queries disagree with the oracle")
    }
}

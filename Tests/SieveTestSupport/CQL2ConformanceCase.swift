import Foundation

/// One predicate of the CQL2 standard's conformance tests on its test dataset
/// (`Tests/Fixtures/cql2/ats/ats.jsonl`): a row of a test-data table, or a row of basic-cql2's
/// combinations, made into the filter the standard's logical test evaluates. Shared by the
/// test targets that run them (in memory, through PostGIS).
public struct CQL2ConformanceCase: Sendable, CustomStringConvertible {
    /// The conformance class (`basic-cql2`, `spatial-functions`, …).
    public let conformanceClass: String
    /// The dataset's collection the predicate runs on.
    public let collection: String
    /// The predicate, cql2-text.
    public let filter: String
    /// The number of features the standard says it selects.
    public let expected: Int

    public var description: String { "[\(conformanceClass), \(collection)] \(filter)" }

    private struct Line: Decodable {
        let `class`: String
        let collection: String?
        let filter: String?
        let combination: [String]?
        let expected: Int
    }

    /// The cases of the JSON Lines text `jsonl`, in order.
    public static func read(_ jsonl: String) throws -> [CQL2ConformanceCase] {
        var cases: [CQL2ConformanceCase] = []
        for text in jsonl.split(separator: "\n") where !text.isEmpty {
            let line = try JSONDecoder().decode(Line.self, from: Data(text.utf8))
            if let p = line.combination, p.count == 4 {
                // The logical test of basic-cql2 (Annex A, "Conformance Test logical").
                let filter = "(NOT (\(p[1])) AND \(p[0])) OR (\(p[2]) and \(p[3])) or not (\(p[0]) OR \(p[3]))"
                cases.append(
                    CQL2ConformanceCase(
                        conformanceClass: line.class, collection: "ne_110m_populated_places_simple", filter: filter,
                        expected: line.expected))
            } else if let collection = line.collection, let filter = line.filter {
                cases.append(
                    CQL2ConformanceCase(conformanceClass: line.class, collection: collection, filter: filter, expected: line.expected))
            } else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "unreadable line \(text)"])
            }
        }
        return cases
    }
}

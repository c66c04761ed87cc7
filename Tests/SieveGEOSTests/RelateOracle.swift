import Foundation
import SieveGeometry
import SieveTestSupport

/// The named geometries of `relate_fixtures.wkt`, in file order.
func relateFixtures() throws -> [(name: String, geometry: Geometry)] {
    try fixtureText("relate_fixtures.wkt").split(separator: "\n").compactMap { line in
        guard !line.hasPrefix("#"), let tab = line.firstIndex(of: "\t") else { return nil }
        return (String(line[..<tab]), try Geometry(wkt: String(line[line.index(after: tab)...])))
    }
}

/// One row of `relate_oracle.json`: what Shapely (GEOS through another binding) computed for
/// the ordered pair (a, b).
struct OracleRow: Decodable {
    let a: String
    let b: String
    let relate: String
    let intersects: Bool
    let contains: Bool
    let within: Bool
    let touches: Bool
    let crosses: Bool
    let overlaps: Bool
    let equals: Bool
    let disjoint: Bool
    let covers: Bool
    let covered_by: Bool
}

/// The whole oracle file.
struct Oracle: Decodable {
    let generator: String
    let synthetic: [OracleRow]
    let real: [OracleRow]

    static func load() throws -> Oracle {
        try JSONDecoder().decode(Oracle.self, from: Data(try fixtureText("relate_oracle.json").utf8))
    }
}

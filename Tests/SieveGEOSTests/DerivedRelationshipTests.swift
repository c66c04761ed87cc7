import CGEOS
import SieveGeometry
import Testing

@testable import SieveGEOS

/// The relationships read off one DE-9IM matrix (``Relationships``) against Shapely's answers
/// (`relate_oracle.json`, synthetic and real pairs) and against GEOS's own predicates, called
/// raw, one by one, on the same handles.
@Suite("Relationships derived from the matrix")
struct DerivedRelationshipTests {
    /// The ten predicates of a ``Relationships``, in the oracle's order.
    static func flags(_ r: Relationships) -> [Bool] {
        [r.intersects, r.contains, r.within, r.touches, r.crosses, r.overlaps, r.equals, r.disjoint, r.covers, r.coveredBy]
    }

    static func flags(_ row: OracleRow) -> [Bool] {
        [row.intersects, row.contains, row.within, row.touches, row.crosses, row.overlaps, row.equals, row.disjoint,
         row.covers, row.covered_by]
    }

    /// GEOS's own predicates on the handles, without GeoSieve's envelope shortcuts.
    static func rawFlags(_ a: GEOSGeometry, _ b: GEOSGeometry) -> [CChar] {
        let h = a.context.handle
        let functions: [(OpaquePointer?, OpaquePointer?, OpaquePointer?) -> CChar] = [
            GEOSIntersects_r, GEOSContains_r, GEOSWithin_r, GEOSTouches_r, GEOSCrosses_r, GEOSOverlaps_r,
            GEOSEquals_r, GEOSDisjoint_r, GEOSCovers_r, GEOSCoveredBy_r,
        ]
        return functions.map { $0(h, a.handle, b.handle) }
    }

    @Test func fixturePairsAgreeWithShapelyAndWithGEOSPredicates() throws {
        let context = try GEOSContext()
        var fixtures: [String: GEOSGeometry] = [:]
        for (name, geometry) in try relateFixtures() { fixtures[name] = try GEOSGeometry(geometry, context: context) }
        let oracle = try Oracle.load()
        for row in oracle.synthetic {
            let a = try #require(fixtures[row.a]), b = try #require(fixtures[row.b])
            let derived = try a.relationships(b)
            #expect(derived.matrix.description == row.relate, "\(row.a) vs \(row.b)")
            #expect(Self.flags(derived) == Self.flags(row), "\(row.a) vs \(row.b): derived vs Shapely")
            #expect(Self.flags(derived).map { $0 ? 1 : 0 } == Self.rawFlags(a, b), "\(row.a) vs \(row.b): derived vs GEOS")
        }
    }

    @Test func realPairsAgreeWithShapely() throws {
        var geometries = try RealDataRelationshipTests.load("naturalearth_lowres.geojson", prefix: "country")
        geometries.merge(try RealDataRelationshipTests.load("naturalearth_cities.geojson", prefix: "city")) { $1 }
        geometries.merge(try RealDataRelationshipTests.load("nybb.geojson", prefix: "borough")) { $1 }
        let context = try GEOSContext()
        var converted: [String: GEOSGeometry] = [:]
        func geos(_ key: String) throws -> GEOSGeometry {
            if let existing = converted[key] { return existing }
            let made = try GEOSGeometry(try #require(geometries[key]), context: context)
            converted[key] = made
            return made
        }
        for row in try Oracle.load().real {
            let derived = try geos(row.a).relationships(geos(row.b))
            #expect(derived.matrix.description == row.relate, "\(row.a) vs \(row.b)")
            #expect(Self.flags(derived) == Self.flags(row), "\(row.a) vs \(row.b)")
        }
    }

    /// The dimension-dependent definitions, on matrices whose answer is known by reasoning.
    @Test func crossesAndOverlapsDependOnTheDimensions() throws {
        func derive(_ matrix: String, _ a: Int, _ b: Int) throws -> Relationships {
            try #require(IntersectionMatrix(matrix)).relationships(dimensionA: a, dimensionB: b)
        }
        // A line crossing a square (-1 1, 3 1 against 0 0, 2 2): 101FF0212.
        #expect(try derive("101FF0212", 1, 2).crosses)
        #expect(try !derive("101FF0212", 1, 2).overlaps)
        // The square against that line: the transpose, crosses read the other way.
        #expect(try derive("1F20F1102", 2, 1).crosses)
        // Two lines crossing at one interior point: 0F1FF0102.
        #expect(try derive("0F1FF0102", 1, 1).crosses)
        #expect(try !derive("0F1FF0102", 1, 1).overlaps)
        // Two collinear lines sharing a piece: 1010F0102 overlaps, does not cross.
        #expect(try derive("1010F0102", 1, 1).overlaps)
        #expect(try !derive("1010F0102", 1, 1).crosses)
        // Two overlapping squares: 212101212 overlaps; the same matrix for a line and an area
        // cannot overlap (different dimensions).
        #expect(try derive("212101212", 2, 2).overlaps)
        #expect(try !derive("212101212", 2, 2).crosses)
        #expect(try !derive("212101212", 1, 2).overlaps)
        // Two multipoints sharing one point and each with another: 0F0FFF0F2 overlaps.
        #expect(try derive("0F0FFF0F2", 0, 0).overlaps)
        // An empty collection has no dimension: nothing crosses or overlaps it.
        let empty = try #require(IntersectionMatrix("FFFFFF212")).relationships(dimensionA: nil, dimensionB: 2)
        #expect(!empty.crosses && !empty.overlaps && empty.disjoint && !empty.equals)
        // Two empty geometries are equal.
        #expect(try derive("FFFFFFFF2", 0, 2).equals)
    }

    /// `satisfies(_:dimensionA:dimensionB:)` answers every relationship as the named properties do.
    @Test func satisfiesMatchesTheProperties() throws {
        let context = try GEOSContext()
        let fixtures = try relateFixtures().map { try GEOSGeometry($0.geometry, context: context) }
        for a in fixtures {
            for b in fixtures {
                let r = try a.relationships(b)
                let m = r.matrix
                func holds(_ relationship: SpatialRelationship) throws -> Bool? {
                    try m.satisfies(relationship, dimensionA: a.dimension, dimensionB: b.dimension)
                }
                #expect(try holds(.intersects) == r.intersects)
                #expect(try holds(.disjoint) == r.disjoint)
                #expect(try holds(.contains) == r.contains)
                #expect(try holds(.within) == r.within)
                #expect(try holds(.touches) == r.touches)
                #expect(try holds(.crosses) == r.crosses)
                #expect(try holds(.overlaps) == r.overlaps)
                #expect(try holds(.equals) == r.equals)
                #expect(try holds(.envelopeIntersects) == nil)
                #expect(try holds(.relate(pattern: m.description)) == true)
                #expect(try a.satisfies(.equals, b) == r.equals)
            }
        }
        #expect(throws: GEOSError.self) {
            try IntersectionMatrix("FFFFFFFF2")?.satisfies(.relate(pattern: "nonsense"), dimensionA: 0, dimensionB: 0)
        }
    }
}

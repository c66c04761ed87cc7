import CGEOS
import SieveGeometry
import Testing

@testable import SieveGEOS

/// The "all pairs" table: every ordered pair of the fixture geometries (points, lines, polygons
/// with holes, multipolygons, empties; touching, crossing, overlapping, identical cases) through
/// every relationship, checked four ways:
/// 1. hand-derived expectations for the cases whose answer is known by reasoning;
/// 2. Shapely's answers (GEOS through another binding, `relate_oracle.json`);
/// 3. the raw GEOS C predicate without GeoSieve's envelope shortcuts, and the prepared variant;
/// 4. the OGC definitions applied to the DE-9IM matrix.
@Suite("Relationship table")
struct RelationshipTableTests {
    let context: GEOSContext
    let fixtures: [String: SieveGEOS.GEOSGeometry]
    let names: [String]

    init() throws {
        context = try GEOSContext()
        let loaded = try relateFixtures()
        names = loaded.map(\.name)
        var map: [String: SieveGEOS.GEOSGeometry] = [:]
        for (name, geometry) in loaded {
            map[name] = try SieveGEOS.GEOSGeometry(geometry, context: context)
        }
        fixtures = map
    }

    func geometry(_ name: String) throws -> SieveGEOS.GEOSGeometry {
        try #require(fixtures[name], "no fixture \(name)")
    }

    /// Hand-derived: (a, b, relationship, expected), each reasoned from the drawings in
    /// `relate_fixtures.wkt` (A is the square (0 0, 2 2)).
    static let handDerived: [(String, String, SpatialRelationship, Bool)] = [
        ("A", "P_in", .contains, true),            // (1 1) is inside the square
        ("P_in", "A", .within, true),
        ("A", "P_in", .touches, false),
        ("A", "P_edge", .intersects, true),        // (2 1) lies on the right edge
        ("A", "P_edge", .contains, false),         // boundary-only contact is not containment
        ("A", "P_edge", .touches, true),
        ("P_corner", "A", .touches, true),
        ("A", "P_out", .disjoint, true),
        ("A", "P_out", .intersects, false),
        ("L_cross", "A", .crosses, true),          // enters and leaves the square's interior
        ("A", "L_cross", .crosses, true),
        ("L_cross", "A", .within, false),
        ("L_inside", "A", .within, true),
        ("A", "L_inside", .contains, true),
        ("A", "L_edge", .touches, true),           // lies along the bottom edge only
        ("A", "L_edge", .contains, false),
        ("L_touch_end", "A", .touches, true),      // starts on the edge, leaves outward
        ("L_edge", "L_overlap", .overlaps, true),  // collinear, sharing (1 0)–(2 0)
        ("L_edge", "L_overlap", .crosses, false),
        ("L_cross", "L_inside", .crosses, true),   // meet at the single interior point (1 1)
        ("L_ring", "A", .touches, true),           // the closed line is the square's boundary
        ("L_ring", "A", .within, false),
        ("A", "A_rotated", .equals, true),         // same square, other start vertex and direction
        ("A", "A_rotated", .within, true),
        ("A", "A_rotated", .overlaps, false),
        ("A", "B_overlap", .overlaps, true),
        ("A", "B_overlap", .touches, false),
        ("A", "C_touch", .touches, true),          // share the edge x = 2
        ("A", "C_touch", .overlaps, false),
        ("A", "C_corner", .touches, true),         // share the corner (2 2)
        ("D_holed", "P_in", .disjoint, true),      // (1 1) lies in the hole
        ("D_holed", "P_in", .intersects, false),
        ("D_holed", "A", .overlaps, true),         // the hole takes a bite out of A
        ("D_holed", "E_inner", .touches, true),    // E fills the hole exactly
        ("E_inner", "A", .within, true),
        ("MPoly", "A", .overlaps, true),           // one part inside A, one far away
        ("A", "MPoly", .contains, false),
        ("MPoly_holed", "E_inner", .touches, true),
        ("MP", "A", .crosses, true),               // (1 1) inside, (5 5) outside
        ("MP", "A", .overlaps, false),             // different dimensions never overlap
        ("P_in", "MP", .within, true),
        ("MP_in", "A", .within, true),
        ("P_z", "P_in", .equals, true),            // z does not take part in relationships
        ("A", "F_far", .disjoint, true),
        ("ML", "A", .crosses, true),
        ("Empty_polygon", "A", .intersects, false),
        ("Empty_polygon", "A", .disjoint, true),
        ("A", "Empty_point", .contains, false),
        ("Empty_line", "Empty_line", .intersects, false),
    ]

    @Test func handDerivedExpectations() throws {
        for (a, b, relationship, expected) in Self.handDerived {
            let result = try geometry(a).satisfies(relationship, geometry(b))
            #expect(result == expected, "\(a) \(relationship) \(b)")
        }
    }

    @Test func everyPairAgreesWithShapely() throws {
        let oracle = try Oracle.load()
        #expect(oracle.synthetic.count == names.count * names.count)
        for row in oracle.synthetic {
            let a = try geometry(row.a), b = try geometry(row.b)
            let pair = "\(row.a) vs \(row.b)"
            #expect(try a.relate(b).description == row.relate, "\(pair): relate")
            #expect(try a.intersects(b) == row.intersects, "\(pair): intersects")
            #expect(try a.contains(b) == row.contains, "\(pair): contains")
            #expect(try a.isWithin(b) == row.within, "\(pair): within")
            #expect(try a.touches(b) == row.touches, "\(pair): touches")
            #expect(try a.crosses(b) == row.crosses, "\(pair): crosses")
            #expect(try a.overlaps(b) == row.overlaps, "\(pair): overlaps")
            #expect(try a.isTopologicallyEqual(to: b) == row.equals, "\(pair): equals")
            #expect(try a.isDisjoint(with: b) == row.disjoint, "\(pair): disjoint")
            #expect(try a.covers(b) == row.covers, "\(pair): covers")
            #expect(try a.isCovered(by: b) == row.covered_by, "\(pair): coveredBy")
        }
    }

    /// GeoSieve's answers (with envelope shortcuts) equal the bare GEOS C predicates, and the
    /// prepared predicates equal the unprepared ones.
    @Test func shortcutsAndPreparedAgreeWithRawGEOS() throws {
        let h = context.handle
        typealias Raw = (OpaquePointer?, OpaquePointer?, OpaquePointer?) -> CChar
        let raw: [(SpatialRelationship, Raw)] = [
            (.intersects, GEOSIntersects_r), (.contains, GEOSContains_r), (.within, GEOSWithin_r),
            (.touches, GEOSTouches_r), (.crosses, GEOSCrosses_r), (.overlaps, GEOSOverlaps_r),
            (.equals, GEOSEquals_r), (.disjoint, GEOSDisjoint_r),
        ]
        for nameA in names {
            let a = try geometry(nameA)
            let prepared = try PreparedGeometry(a)
            for nameB in names {
                let b = try geometry(nameB)
                for (relationship, function) in raw {
                    let expected = function(h, a.handle, b.handle)
                    #expect(expected != 2, "GEOS raised on \(nameA) \(relationship) \(nameB)")
                    let ours = try a.satisfies(relationship, b)
                    #expect(ours == (expected == 1), "\(nameA) \(relationship) \(nameB)")
                    let viaPrepared = try prepared.satisfies(relationship, b)
                    #expect(viaPrepared == ours, "prepared \(nameA) \(relationship) \(nameB)")
                }
                #expect(a.envelopeIntersects(b) == a.envelope.intersects(b.envelope))
                #expect(try a.relate(b, pattern: a.relate(b).description))
            }
        }
    }

    /// The named predicates are what the OGC definitions say of the DE-9IM matrix, and obey
    /// the converse laws (contains ⇔ converse within, intersects symmetric, disjoint = ¬intersects).
    @Test func predicatesFollowFromTheMatrix() throws {
        for nameA in names {
            for nameB in names {
                let a = try geometry(nameA), b = try geometry(nameB)
                let pair = "\(nameA) vs \(nameB)"
                let matrix = try a.relate(b)
                #expect(try a.intersects(b) == matrix.isIntersects, "\(pair)")
                #expect(try a.isDisjoint(with: b) == matrix.isDisjoint, "\(pair)")
                #expect(try a.contains(b) == matrix.isContains, "\(pair)")
                #expect(try a.isWithin(b) == matrix.isWithin, "\(pair)")
                #expect(try a.covers(b) == matrix.isCovers, "\(pair)")
                #expect(try a.isCovered(by: b) == matrix.isCoveredBy, "\(pair)")
                #expect(try a.touches(b) == matrix.isTouches, "\(pair)")
                if let dimA = a.dimension, let dimB = b.dimension {
                    #expect(try a.crosses(b) == matrix.isCrosses(dimensionA: dimA, dimensionB: dimB), "\(pair)")
                    #expect(try a.overlaps(b) == matrix.isOverlaps(dimensionA: dimA, dimensionB: dimB), "\(pair)")
                }
                if !a.isEmpty && !b.isEmpty {
                    #expect(try a.isTopologicallyEqual(to: b) == matrix.isEquals, "\(pair)")
                }
                #expect(try a.intersects(b) == b.intersects(a), "\(pair)")
                #expect(try a.contains(b) == b.isWithin(a), "\(pair)")
                #expect(try a.isDisjoint(with: b) == !a.intersects(b), "\(pair)")
            }
        }
    }
}

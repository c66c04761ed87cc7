import Foundation
import SieveGeometry
import SieveTestSupport
import Testing

@testable import SieveGEOS

/// The cost bound on GEOS's relate: shapes on which GEOS 3.10–3.12 are quadratic are refused
/// before GEOS runs (a regression shows as a test that hangs for minutes), shapes GEOS handles
/// quickly however large are answered.
@Suite("Relate cost bound")
struct RelateCostTests {
    /// A polygon of `vertices` vertices around (0, 0): a circle, or a star whose vertices
    /// alternate between radius 10 and 6 (every spike is its own pair of monotone chains).
    static func ring(vertices: Int, star: Bool) throws -> Geometry {
        var points: [Point] = []
        points.reserveCapacity(vertices + 1)
        for i in 0..<vertices {
            let angle = Double(i) / Double(vertices) * 2 * Double.pi
            let radius = star && !i.isMultiple(of: 2) ? 6.0 : 10.0
            points.append(Point(x: radius * cos(angle), y: radius * sin(angle)))
        }
        points.append(points[0])
        return .polygon(try Polygon(exterior: points))
    }

    @Test func aStarOfManySpikesIsRefusedBeforeGEOSRuns() throws {
        let context = try GEOSContext()
        // 60,000 spikes: GEOS 3.11 needs about 6 s per matrix (measured: 1.5 s at 30,000,
        // 18 s at 100,000), and much longer for bigger stars.
        let star = try GEOSGeometry(Self.ring(vertices: 60_000, star: true), context: context)
        for other in [Geometry.point(Point(x: 1, y: 1)), .envelope(Envelope(xmin: -5, ymin: -5, xmax: 5, ymax: 5))] {
            let b = try GEOSGeometry(other, context: context)
            #expect(throws: GEOSError.self) { try star.relationships(b) }
            do {
                _ = try star.relationships(b)
            } catch {
                #expect(error.kind == .tooComplex)
                #expect(error.message.contains("limit is 250000000"))
            }
        }
        // Far away: GEOS decides from the envelopes alone, so nothing is refused.
        let far = try GEOSGeometry(.point(Point(x: 100, y: 100)), context: context)
        #expect(try star.relationships(far).disjoint)
    }

    @Test func aLargeCircleIsAnswered() throws {
        let context = try GEOSContext()
        let circle = try GEOSGeometry(Self.ring(vertices: 200_000, star: false), context: context)
        let box = try GEOSGeometry(.envelope(Envelope(xmin: -5, ymin: -5, xmax: 5, ymax: 5)), context: context)
        let cost = RelateCost(circle.geometry, box.geometry)
        // Four chains for the circle, four for the box; the box is located in the circle by a
        // scan of its 200,001 vertices.
        #expect(cost.sweepSteps < 100)
        // (circle in box: one part test; box in circle: one part test and the vertices).
        #expect(cost.locateSteps == 1 + 1 + 200_001)
        // The box lies inside the circle of radius 10: 212FF1FF2, the circle contains it.
        let answer = try circle.relationships(box)
        #expect(answer.matrix.description == "212FF1FF2")
        #expect(answer.contains && !answer.within && answer.intersects)
    }

    /// Many small components inside one big polygon: each is located in the polygon by a scan
    /// of its vertices.
    @Test func manyComponentsInsideABigPolygonAreRefused() throws {
        let context = try GEOSContext()
        var parts: [[[Point]]] = []
        for i in 0..<60 {
            for j in 0..<60 {
                let x = -3 + Double(i) * 0.1, y = -3 + Double(j) * 0.1
                parts.append([[Point(x: x, y: y), Point(x: x + 0.05, y: y), Point(x: x + 0.05, y: y + 0.05), Point(x: x, y: y)]])
            }
        }
        let squares = try GEOSGeometry(.polygon(Polygon(parts: parts)), context: context)
        let circle = try GEOSGeometry(Self.ring(vertices: 100_000, star: false), context: context)
        let cost = RelateCost(squares.geometry, circle.geometry)
        // 3,600 squares each scanning 100,001 vertices: the count stops past the limit.
        #expect(cost.total > RelateCost.defaultLimit)
        #expect(throws: GEOSError.self) { try squares.relationships(circle) }
    }

    @Test func theSweepCountMatchesAHandCount() {
        // Chains [0,2], [1,3], [4,5]: [0,2] holds the start 1; [1,3] none after it; 2 in all... counted
        // per chain: starts in [0,2] other than itself: 1; in [1,3]: 0 (0 is before it); in [4,5]: 0.
        #expect(RelateShape.sweepSteps([(0, 2), (1, 3), (4, 5)], limit: 100) == 1)
        // Three identical chains: each sees the other two.
        #expect(RelateShape.sweepSteps([(0, 1), (0, 1), (0, 1)], limit: 100) == 6)
    }
}

/// ``RelateCostEstimator`` gives the estimate of ``RelateCost`` (which recounts both geometries
/// from scratch) pair by pair, with the query's share counted once.
@Suite("Relate cost of one query against many geometries")
struct RelateCostEstimatorTests {
    /// A small random geometry of every kind, coordinates on a coarse grid so that chains share
    /// starts and ends (the ties of the binary searches).
    static func randomGeometry(_ rng: inout SeededGenerator) throws -> Geometry {
        func coordinate() -> Double { Double(rng.int(40)) / 2 }
        func path(_ n: Int, closed: Bool) -> [Point] {
            var points = (0..<n).map { _ in Point(x: coordinate(), y: coordinate()) }
            if closed { points.append(points[0]) }
            return points
        }
        switch rng.int(6) {
        case 0: return .point(Point(x: coordinate(), y: coordinate()))
        case 1: return .multipoint(try Multipoint(points: path(rng.int(1...29), closed: false)))
        case 2: return .polyline(try Polyline(paths: (0..<rng.int(1...3)).map { _ in path(rng.int(2...24), closed: false) }))
        case 3: return .polygon(try Polygon(parts: (0..<rng.int(1...3)).map { _ in [path(rng.int(3...24), closed: true)] }))
        case 4:
            let x = coordinate(), y = coordinate()
            return .envelope(Envelope(xmin: x, ymin: y, xmax: x + coordinate(), ymax: y + coordinate()))
        default:
            return .collection(GeometryCollection([.point(Point(x: coordinate(), y: coordinate())), .polyline(try Polyline(paths: [path(5, closed: false)]))]))
        }
    }

    @Test func estimatesEqualTheDirectCount() throws {
        var rng = SeededGenerator(seed: 12)
        for _ in 0..<300 {
            let query = try Self.randomGeometry(&rng)
            let estimator = RelateCostEstimator(query)
            for _ in 0..<10 {
                let other = try Self.randomGeometry(&rng)
                #expect(estimator.cost(against: other) == RelateCost(query, other), "\(query) against \(other)")
            }
        }
    }

    @Test func estimatesPastASmallLimitArePastItToo() throws {
        var rng = SeededGenerator(seed: 7)
        var refused = 0
        for _ in 0..<300 {
            let query = try Self.randomGeometry(&rng), other = try Self.randomGeometry(&rng)
            let direct = RelateCost(query, other, limit: 40), estimated = RelateCostEstimator(query, limit: 40).cost(against: other)
            #expect((direct.total > 40) == (estimated.total > 40), "\(query) against \(other)")
            if direct.total <= 40 { #expect(direct == estimated) } else { refused += 1 }
        }
        #expect(refused > 30)
    }

    @Test func aStarIsBeyondTheLimitAloneAndACircleIsNot() throws {
        #expect(RelateCostEstimator(try RelateCostTests.ring(vertices: 60_000, star: true)).exceedsLimitAlone)
        let circle = RelateCostEstimator(try RelateCostTests.ring(vertices: 200_000, star: false))
        #expect(!circle.exceedsLimitAlone)
        // A box inside the circle: the box is located in the circle by a scan of its vertices.
        #expect(circle.cost(against: .envelope(Envelope(xmin: -5, ymin: -5, xmax: 5, ymax: 5))).locateSteps == 1 + 1 + 200_001)
    }
}

/// The validity check's cost bound: shapes GEOS 3.10–3.12 check in quadratic time are refused
/// before GEOS runs, large shapes it checks quickly are checked.
@Suite("Validity cost bound")
struct ValidityCostTests {
    /// A polygon of `teeth` thin teeth along the y axis: every chain spans the same x-range but
    /// only its neighbours' y-ranges, so the x count is quadratic and the y count linear.
    static func comb(teeth: Int) throws -> Geometry {
        var ring: [Point] = []
        for i in 0..<(2 * teeth) { ring.append(Point(x: i.isMultiple(of: 2) ? 0 : 1, y: Double(i) * 0.01)) }
        ring += [Point(x: -5, y: Double(2 * teeth) * 0.01), Point(x: -5, y: 0), Point(x: 0, y: 0)]
        return .polygon(try Polygon(exterior: ring))
    }

    @Test func aStarOfManySpikesIsRefusedBeforeGEOSRuns() throws {
        let context = try GEOSContext()
        // 60,000 spikes: about 5 × 10^8 overlapping chain pairs, some 5 s of GEOS 3.11.
        let star = try GEOSGeometry(RelateCostTests.ring(vertices: 60_000, star: true), context: context)
        do {
            _ = try star.validity()
            Issue.record("the star was checked")
        } catch {
            #expect(error.kind == .tooComplex)
            #expect(error.message.hasPrefix("checking the validity of this geometry would take GEOS at least"))
        }
        // Without a limit GEOS checks it; a smaller star to keep the test short.
        #expect(try GEOSGeometry(RelateCostTests.ring(vertices: 2_000, star: true), context: context).validity(costLimit: nil).isValid)
    }

    @Test func largeShapesGEOSChecksQuicklyAreChecked() throws {
        let context = try GEOSContext()
        #expect(try GEOSGeometry(RelateCostTests.ring(vertices: 200_000, star: false), context: context).validity().isValid)
        // 100,000 teeth: quadratic in x (5 × 10^9 pairs), linear in y; GEOS's STR tree sees
        // the y-ranges, so the check is quick.
        let comb = try Self.comb(teeth: 50_000)
        let cost = ValidityCost(comb)
        #expect(cost.total <= RelateCost.defaultLimit)
        #expect(try GEOSGeometry(comb, context: context).validity().isValid)
    }

    @Test func theCountIsTheSmallerOfTheTwoSweeps() throws {
        // A unit square from (0, 0) counterclockwise: three chains, as the quadrant of the
        // direction changes twice ((0,0)→(1,0)→(1,1) both count as dx ≥ 0, dy ≥ 0):
        // A = x [0, 1] y [0, 1], B = (1,1)→(0,1): x [0, 1] y [1, 1], C = (0,1)→(0,0): x [0, 0]
        // y [0, 1]. In x all three start at 0: each range holds the two other starts, 6 pairs.
        // In y the starts are 0, 1, 0: A and C hold two others each, B ([1, 1]) none: 4.
        let square = Geometry.polygon(try Polygon(exterior: [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1), Point(x: 0, y: 0)]))
        let shape = RelateShape(square)
        #expect(shape.chains.count == 3)
        #expect(RelateShape.sweepSteps(shape.chains, limit: 1000) == 6)
        #expect(RelateShape.sweepSteps(shape.chainsY, limit: 1000) == 4)
        #expect(ValidityCost(square).overlappingChainPairs == 4)
        #expect(ValidityCost(square).total == 12)
    }
}

/// The envelope shortcut of the distance tests with offsets whose squares overflow a Double.
@Suite("Distance shortcut with huge offsets")
struct HugeDistanceTests {
    @Test func farButFiniteEnvelopeDistancesAreNotInfinite() throws {
        let far = Envelope(xmin: 3e160, ymin: 4e160, xmax: 3e160, ymax: 4e160)
        #expect(Envelope(xmin: 0, ymin: 0, xmax: 0, ymax: 0).distance(to: far) == 5e160)
        #expect(Envelope(xmin: -1e308, ymin: 0, xmax: -1e308, ymax: 0).distance(to: Envelope(xmin: 1e308, ymin: 0, xmax: 1e308, ymax: 0)) == .infinity)
        #expect(Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1).distance(to: Envelope(xmin: 1, ymin: 1, xmax: 2, ymax: 2)) == 0)
        #expect(Envelope(xmin: 0, ymin: 0, xmax: 0, ymax: 0).distance(to: Envelope(xmin: 3e-200, ymin: 4e-200, xmax: 3e-200, ymax: 4e-200))
            == 5e-200)
    }
}

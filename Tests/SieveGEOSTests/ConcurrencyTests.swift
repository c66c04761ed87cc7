import SieveGeometry
import Testing

@testable import SieveGEOS

/// Predicates evaluated from many tasks at once, each with its own context (or its thread's),
/// give the answers of a serial run.
@Suite("Concurrency")
struct ConcurrencyTests {
    /// Every relationship of every ordered pair, as one string per pair.
    static func answers(_ geometries: [Geometry], context: GEOSContext) throws -> [String] {
        let converted = try geometries.map { try GEOSGeometry($0, context: context) }
        var rows: [String] = []
        for a in converted {
            let prepared = try PreparedGeometry(a)
            for b in converted {
                let flags = [
                    try a.intersects(b), try a.contains(b), try a.isWithin(b), try a.touches(b),
                    try a.crosses(b), try a.overlaps(b), try a.isTopologicallyEqual(to: b),
                    try a.isDisjoint(with: b), try prepared.intersects(b), try prepared.contains(b),
                ]
                rows.append(flags.map { $0 ? "1" : "0" }.joined() + (try a.relate(b).description))
            }
        }
        return rows
    }

    @Test func manyTasksAgreeWithSerial() async throws {
        let geometries = try relateFixtures().map(\.geometry)
        let serial = try Self.answers(geometries, context: GEOSContext())
        let results = try await withThrowingTaskGroup(of: [String].self) { group in
            for task in 0..<16 {
                group.addTask {
                    // Half the tasks make their own context, half borrow their thread's.
                    if task.isMultiple(of: 2) {
                        return try Self.answers(geometries, context: GEOSContext())
                    }
                    return try GEOSContext.withCurrent { context in try Self.answers(geometries, context: context) }
                }
            }
            var all: [[String]] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 16)
        for result in results {
            #expect(result == serial)
        }
    }

    @Test func errorsStayWithTheirContext() async throws {
        // One task triggers GEOS exceptions over and over while others compute; nobody sees
        // anybody else's message.
        let bowtie = Geometry.polygon(try Polygon(exterior: [
            Point(x: 0, y: 0), Point(x: 2, y: 2), Point(x: 2, y: 0), Point(x: 0, y: 2), Point(x: 0, y: 0),
        ]))
        let square = Geometry.polygon(try Polygon(exterior: Shapes.square(0, 0, 1)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let context = try GEOSContext()
                let a = try GEOSGeometry(bowtie, context: context)
                let b = try GEOSGeometry(square, context: context)
                for _ in 0..<200 {
                    #expect(throws: GEOSError.self) { try a.relate(b) }
                }
            }
            for _ in 0..<3 {
                group.addTask {
                    let context = try GEOSContext()
                    let a = try GEOSGeometry(square, context: context)
                    let b = try GEOSGeometry(.point(Point(x: 0.5, y: 0.5)), context: context)
                    for _ in 0..<200 {
                        #expect(try a.relate(b).description == "0F2FF1FF2")
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

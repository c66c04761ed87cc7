import SieveGeometry
import Testing

@testable import SieveGEOS

/// `GEOSContext.withCurrent` lends the thread's context. Returning it (or a geometry made with
/// it) does not compile (`Result: Sendable`; see the documentation of `withCurrent`). Storing
/// it in a variable outside the closure compiles, so it must be harmless: the thread then lets
/// that context go and uses a new one, and the stored context keeps working for its one owner.
@Suite("Escaping the thread's context")
struct ContextEscapeTests {
    @Test func theThreadKeepsItsContextWhenNothingEscapes() throws {
        let first = GEOSContext.withCurrent { ObjectIdentifier($0) }
        let second = GEOSContext.withCurrent { ObjectIdentifier($0) }
        #expect(first == second)
        // Nested calls work and leave one context with the thread.
        let nested = try GEOSContext.withCurrent { outer throws(GEOSError) -> Bool in
            let inner = try GEOSContext.withCurrent { context throws(GEOSError) -> Bool in
                try GEOSGeometry(.point(Point(x: 1, y: 1)), context: context)
                    .intersects(GEOSGeometry(.point(Point(x: 1, y: 1)), context: context))
            }
            let square = try GEOSGeometry(.envelope(Envelope(xmin: 0, ymin: 0, xmax: 2, ymax: 2)), context: outer)
            let contained = try square.contains(GEOSGeometry(.point(Point(x: 1, y: 1)), context: outer))
            return inner && contained
        }
        #expect(nested)
    }

    @Test func aStoredContextIsNoLongerTheThreads() async throws {
        var escaped: GEOSContext?
        let lent = GEOSContext.withCurrent { context in
            escaped = context
            return ObjectIdentifier(context)
        }
        let stored = try #require(escaped)
        #expect(ObjectIdentifier(stored) == lent)
        #expect(!GEOSContext.isThreadContext(stored))
        let next = GEOSContext.withCurrent { ObjectIdentifier($0) }
        #expect(next != lent)
        escaped = nil

        // The stored context now has one owner, who may hand it to another task and use it
        // there while this thread goes on with its own context.
        let owned = stored
        let answer = try await Task.detached { () throws -> Bool in
            let square = try GEOSGeometry(.envelope(Envelope(xmin: 0, ymin: 0, xmax: 2, ymax: 2)), context: owned)
            return try square.contains(GEOSGeometry(.point(Point(x: 1, y: 1)), context: owned))
        }.value
        #expect(answer)
    }

    @Test func aStoredGeometryTakesItsContextAlong() throws {
        var escaped: GEOSGeometry?
        GEOSContext.withCurrent { context in
            escaped = try? GEOSGeometry(.envelope(Envelope(xmin: 0, ymin: 0, xmax: 2, ymax: 2)), context: context)
        }
        let square = try #require(escaped)
        #expect(!GEOSContext.isThreadContext(square.context))
        let point = try GEOSGeometry(.point(Point(x: 1, y: 1)), context: square.context)
        #expect(try square.contains(point))
        let other = GEOSContext.withCurrent { context in context === square.context }
        #expect(!other)
    }
}

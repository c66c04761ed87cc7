import SieveColumns
import SieveGeometry
import Synchronization
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats
import SieveTestSupport

@Suite("Editable feature table under concurrent readers", .tags(.slow), .timeLimit(.minutes(10)))
struct EditingConcurrencyTests {
    // Small enough to stay quick in debug builds, whose quadtree checks itself after every
    // change, and under ThreadSanitizer.
    static let initial = 1_500
    static let batches = 8
    static let addsPerBatch = 120
    static let updatesPerBatch = 50
    static let deletesPerBatch = 20

    /// A table whose features carry the batch that last wrote them.
    static func table() throws -> EditableFeatureTable {
        let schema = try Schema(
            fields: [Field(name: "OBJECTID", type: .oid), Field(name: "BATCH", type: .integer), Field(name: "NAME", type: .string)],
            objectIdFieldName: "OBJECTID", geometryType: .point)
        let editable = try EditableFeatureTable(emptyTable(schema), options: fixedOptions())
        let adds = (0..<initial).map { i in
            FeatureEdit(attributes: ["BATCH": .integer(0), "NAME": .string("n\(i % 37)")], geometry: point(Double(i % 100), Double(i / 100)))
        }
        let results = editable.addFeatures(adds)
        #expect(results.allSatisfy { $0.success })
        return editable
    }

    /// Batch `k` (from 1): adds, updates of features of the initial load, deletes of others.
    static func batch(_ k: Int) -> (adds: [FeatureEdit], updates: [FeatureEdit], deletes: [Int64]) {
        let adds = (0..<addsPerBatch).map { i in
            FeatureEdit(attributes: ["BATCH": .integer(Int64(k)), "NAME": .string("b\(k)-\(i % 11)")], geometry: point(Double(i % 100), 60 + Double(k)))
        }
        // Updates take object IDs 1 ... , deletes object IDs from the top of the initial load:
        // disjoint, and each feature touched once.
        let updates = (0..<updatesPerBatch).map { i in
            FeatureEdit(objectID: Int64((k - 1) * updatesPerBatch + i + 1), attributes: ["BATCH": .integer(Int64(k))], geometry: point(50, 80 + Double(k)))
        }
        let deletes = (0..<deletesPerBatch).map { i in Int64(initial - (k - 1) * deletesPerBatch - i) }
        return (adds, updates, deletes)
    }

    @Test("readers on other tasks see whole batches only, each snapshot consistent with itself")
    func readersNeverSeeHalfABatch() async throws {
        let editable = try Self.table()
        _ = try editable.snapshot.queryObjectIDs(QueryParameters(geometry: point(1, 1)))  // build the index: edits maintain it
        let done = Flag()
        let everything = Geometry.envelope(Envelope(xmin: -1, ymin: -1, xmax: 200, ymax: 200))
        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for k in 1...Self.batches {
                    let edits = Self.batch(k)
                    let succeeded = editable.applyEdits(adds: edits.adds, updates: edits.updates, deletes: edits.deletes).allSucceeded
                    #expect(succeeded, "batch \(k)")
                }
                done.value.store(true, ordering: .releasing)
                return 0
            }
            for reader in 0..<3 {
                group.addTask {
                    var checks = 0
                    while !done.value.load(ordering: .acquiring) || checks == 0 {
                        let snapshot = editable.snapshot
                        let growth = snapshot.featureCount - Self.initial
                        let perBatch = Self.addsPerBatch - Self.deletesPerBatch
                        #expect(growth % perBatch == 0, "reader \(reader) saw \(snapshot.featureCount) features")
                        let k = growth / perBatch
                        let counted = try snapshot.queryFeatureCount(QueryParameters())
                        let inWindow = try snapshot.queryObjectIDs(QueryParameters(geometry: everything)).count
                        #expect(counted == snapshot.featureCount)
                        #expect(inWindow == snapshot.featureCount)
                        if k > 0 {
                            let written = try snapshot.queryFeatureCount(QueryParameters(whereClause: "BATCH = \(k)"))
                            let next = try snapshot.queryFeatureCount(QueryParameters(whereClause: "BATCH = \(k + 1)"))
                            #expect(written == Self.addsPerBatch + Self.updatesPerBatch)
                            #expect(next == 0)
                            // The last batch's first update moved its feature; its first delete removed one.
                            let moved = Int64((k - 1) * Self.updatesPerBatch + 1)
                            let there = try snapshot.queryObjectIDs(QueryParameters(geometry: point(50, 80 + Double(k))))
                            #expect(there.contains(moved))
                            #expect(snapshot.row(forObjectID: Int64(Self.initial - (k - 1) * Self.deletesPerBatch)) == nil)
                        }
                        checks += 1
                    }
                    return checks
                }
            }
            var total = 0
            for try await checks in group { total += checks }
            #expect(total > 0)
        }
        let final = editable.snapshot
        #expect(final.featureCount == Self.initial + Self.batches * (Self.addsPerBatch - Self.deletesPerBatch))
    }
}

/// A flag shared by tasks.
final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}

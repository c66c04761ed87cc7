import Foundation
import SieveEditing
import SieveFeatures
import SieveFormats
import SieveGeometry
import Synchronization
import Testing

@testable import SieveServer
import SieveTestSupport

/// The editor of a served table saves each batch off the actor, on the engine's threads, and
/// still runs the batches one at a time: a batch that arrives during a save waits for it.
@Suite(.tags(.network)) struct TableEditorTests {
    static func table() throws -> EditableFeatureTable {
        try EditableFeatureTable(FeatureTable.load(geoJSON: EditingServerTests.places))
    }

    static func add(_ name: String) -> FeatureEdit {
        FeatureEdit(attributes: ["name": .string(name), "rank": .integer(9)], geometry: .point(Point(x: 5, y: 5)))
    }

    @Test func savesRunOnTheEngineThreads() async throws {
        let names = Mutex<[String]>([])
        let editor = TableEditor(table: try Self.table()) { _, _, _ in
            names.withLock { $0.append(EngineWorkTests.threadName()) }
        }
        let results = try await editor.run { table in table.addFeatures([Self.add("d")]) }
        #expect(results.allSatisfy { $0.error == nil })
        #expect(names.withLock { $0 } == [EngineExecutor.threadName])
    }

    @Test func aBatchArrivingDuringASaveWaitsForIt() async throws {
        let events = Mutex<[String]>([])
        let saving = Atomic<Bool>(false)
        let editor = TableEditor(table: try Self.table()) { table, written, _ in
            events.withLock { $0.append("save \(written) begins") }
            saving.store(true, ordering: .releasing)
            usleep(200_000)  // a slow disk
            events.withLock { $0.append("save \(written) ends") }
        }
        let first = Task {
            try await editor.run { table in
                events.withLock { $0.append("edit d") }
                return table.addFeatures([Self.add("d")])
            }
        }
        while !saving.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
        let second = try await editor.run { table in
            events.withLock { $0.append("edit e") }
            return table.addFeatures([Self.add("e")])
        }
        _ = try await first.value
        #expect(second.allSatisfy { $0.error == nil })
        #expect(
            events.withLock { $0 } == ["edit d", "save [4] begins", "save [4] ends", "edit e", "save [5] begins", "save [5] ends"])
    }

    @Test func aFailedSaveUndoesItsBatchAndFreesTheTable() async throws {
        let table = try Self.table()
        let fail = Atomic<Bool>(true)
        let editor = TableEditor(table: table) { _, _, _ in
            if fail.load(ordering: .relaxed) { throw CocoaError(.fileWriteNoPermission) }
        }
        var refused: ServerRequestError?
        do {
            _ = try await editor.run { table in table.addFeatures([Self.add("d")]) }
        } catch {
            refused = error
        }
        #expect(refused?.message.hasPrefix("the edits could not be saved") == true)
        #expect(table.snapshot.featureCount == 3)
        fail.store(false, ordering: .relaxed)
        let results = try await editor.run { table in table.addFeatures([Self.add("e")]) }
        #expect(results.allSatisfy { $0.error == nil })
        #expect(table.snapshot.featureCount == 4)
    }
}

import SieveColumns
import SieveGeometry
import SieveTestSupport
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats

/// Random batches of edits against a model: a dictionary of object ID → (name, pop, point),
/// changed by the same rules by hand. After every batch the table answers a where clause, a
/// window, counts and object-ID look-ups as the model says, and every snapshot taken earlier
/// still answers as the model did then.
@Suite("Editing against a model")
struct EditingModelTests {
    struct Feature: Equatable {
        var name: String
        var pop: Int64?
        var x: Double
        var y: Double
    }

    static func schema() throws -> Schema {
        try Schema(
            fields: [
                Field(name: "OBJECTID", type: .oid), Field(name: "NAME", type: .string, length: 6),
                Field(name: "POP", type: .smallInteger),
            ],
            objectIdFieldName: "OBJECTID", geometryType: .point)
    }

    /// What a snapshot must answer, from the model.
    static func answers(_ model: [Int64: Feature]) -> [String] {
        let ids = model.keys.sorted()
        let big = ids.filter { (model[$0]?.pop ?? 0) > 500 }
        let west = ids.filter { (model[$0]?.x ?? 99) <= 5 }
        let named = ids.filter { model[$0]?.name.hasPrefix("a") == true }
        return ["\(ids)", "\(big)", "\(west)", "\(named)", "\(ids.count)"]
    }

    static func answers(_ table: FeatureTable) throws -> [String] {
        let ids = try table.queryObjectIDs(QueryParameters())
        let big = try table.queryObjectIDs(QueryParameters(whereClause: "POP > 500"))
        let west = try table.queryObjectIDs(QueryParameters(geometry: .envelope(Envelope(xmin: -1, ymin: -1, xmax: 5, ymax: 11))))
        let named = try table.queryObjectIDs(QueryParameters(whereClause: "NAME LIKE 'a%'"))
        return ["\(ids)", "\(big)", "\(west)", "\(named)", "\(try table.queryFeatureCount(QueryParameters()))"]
    }

    @Test("random batches, rollbacks, undo and compaction agree with the model", arguments: [1, 2, 3] as [UInt64])
    func randomBatches(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let editable = try EditableFeatureTable(emptyTable(Self.schema()), options: fixedOptions())
        var model: [Int64: Feature] = [:]
        var committed = model
        var nextID: Int64 = 1
        var history: [(FeatureTable, [String])] = []
        let names = ["ann", "bob", "al", "cy", "toolongname"]
        for step in 0..<120 {
            if step == 0 { _ = try editable.snapshot.queryObjectIDs(QueryParameters(geometry: point(1, 1))) }
            switch random.int(20) {
            case 0:
                try editable.compact()
                continue
            case 1:
                editable.undoLocalEdits()
                model = committed
                continue
            case 2:
                editable.commitLocalEdits()
                committed = model
                continue
            default: break
            }
            var adds: [FeatureEdit] = [], updates: [FeatureEdit] = [], deletes: [Int64] = []
            var batchModel = model
            var valid = true
            var touched = Set<Int64>()
            var addCount = 0
            for _ in 0..<(1 + random.int(6)) {
                let name = names[random.int(names.count)]
                let pop: Int64? = random.int(5) == 0 ? nil : Int64(random.int(1200))
                let x = Double(random.int(11)), y = Double(random.int(11))
                let existing = batchModel.keys.sorted()
                switch random.int(3) {
                case 0:
                    var attributes: [String: ScalarValue] = ["NAME": .string(name)]
                    attributes["POP"] = pop.map { .integer($0) } ?? .null
                    adds.append(FeatureEdit(attributes: attributes, geometry: point(x, y)))
                    if name.count > 6 { valid = false }
                    addCount += 1
                case 1 where !existing.isEmpty:
                    let id = existing[random.int(existing.count)]
                    if !touched.insert(id).inserted { valid = false }
                    let moves = random.int(2) == 0
                    updates.append(FeatureEdit(objectID: id, attributes: ["NAME": .string(name)], geometry: moves ? point(x, y) : nil))
                    if name.count > 6 { valid = false }
                    batchModel[id]?.name = name
                    if moves {
                        batchModel[id]?.x = x
                        batchModel[id]?.y = y
                    }
                default:
                    let id = existing.isEmpty || random.int(8) == 0 ? Int64(10_000) : existing[random.int(existing.count)]
                    if id == 10_000 || !touched.insert(id).inserted { valid = false }
                    deletes.append(id)
                    batchModel[id] = nil
                }
            }
            let result = editable.applyEdits(adds: adds, updates: updates, deletes: deletes)
            #expect(result.allSucceeded == valid, "step \(step)")
            if valid {
                // Adds get the next object IDs, in order.
                for edit in adds {
                    let pop: Int64? = if case .integer(let p) = edit.attributes["POP"] { p } else { nil }
                    guard case .string(let name) = edit.attributes["NAME"], case .point(let p) = edit.geometry else { continue }
                    batchModel[nextID] = Feature(name: name, pop: pop, x: p.x, y: p.y)
                    nextID += 1
                }
                model = batchModel
            }
            let snapshot = editable.snapshot
            let expected = Self.answers(model)
            #expect(try Self.answers(snapshot) == expected, "step \(step)")
            for (id, feature) in model {
                guard let row = snapshot.row(forObjectID: id) else {
                    Issue.record("object ID \(id) missing at step \(step)")
                    continue
                }
                #expect(snapshot.value(row: row, field: "NAME") == .string(feature.name))
            }
            history.append((snapshot, expected))
        }
        for (snapshot, expected) in history { #expect(try Self.answers(snapshot) == expected) }
    }
}

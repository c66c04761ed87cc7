import Foundation
import GeoSieve

/// The editing workload's inputs written out for another engine (`Benchmarks/peers/edit_sqlite.c`),
/// so that it applies exactly the edits GeoSieve measures.
///
/// Three tab-separated files, `\N` for NULL, `\n` line ends, doubles in their shortest round-trip
/// form, dates as epoch milliseconds (the generated strings hold no tab or line break):
/// - `edit_table.tsv`: the starting table, `OBJECTID POP NAME CATEGORY SCORE CREATED X Y`;
/// - `edit_adds.tsv`: the single adds, `POP NAME CATEGORY SCORE CREATED X Y` (every round applies
///   these to a fresh copy of the table);
/// - `edit_batches.tsv`: the mixed batches in order, the first being the warm-up,
///   `BATCH OP OBJECTID POP NAME CATEGORY SCORE CREATED X Y`, where OP is `A` (an add, with the
///   object ID GeoSieve gave it), `U` (an update of POP and the point; the other fields `\N`) or
///   `D` (a delete; only the object ID).
struct EditExport {
    /// The attribute fields after OBJECTID, in file order.
    static let fields = ["POP", "NAME", "CATEGORY", "SCORE", "CREATED"]

    private var batches: BufferedFile

    /// Writes `edit_table.tsv` and `edit_adds.tsv`, and opens `edit_batches.tsv` for
    /// ``append(batch:edits:results:)``.
    init(directory: URL, table: FeatureTable, adds: [FeatureEdit]) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var out = try BufferedFile(directory.appendingPathComponent("edit_table.tsv"))
        for row in 0..<table.count where !table.isDeleted(row: row) {
            var line = String(table.objectID(row: row))
            for field in Self.fields { line += "\t" + Self.text(table.value(row: row, field: field)) }
            line += "\t" + Self.point(table.geometry(row: row))
            out.buffer.append(contentsOf: line.utf8)
            out.buffer.append(10)
            try out.flushIfFull()
        }
        _ = try out.close()
        var addsFile = try BufferedFile(directory.appendingPathComponent("edit_adds.tsv"))
        for add in adds {
            addsFile.buffer.append(contentsOf: Self.attributesAndPoint(add).utf8)
            addsFile.buffer.append(10)
            try addsFile.flushIfFull()
        }
        _ = try addsFile.close()
        batches = try BufferedFile(directory.appendingPathComponent("edit_batches.tsv"))
    }

    /// Appends one applied batch: its adds with the object IDs `results` gave them, its updates
    /// and its deletes.
    mutating func append(
        batch: Int, edits: (adds: [FeatureEdit], updates: [FeatureEdit], deletes: [Int64]), results: ApplyEditsResult
    ) throws {
        for (add, result) in zip(edits.adds, results.addResults) {
            batches.buffer.append(contentsOf: "\(batch)\tA\t\(result.objectID)\t\(Self.attributesAndPoint(add))\n".utf8)
        }
        for update in edits.updates {
            let id = update.objectID.map(String.init) ?? "\\N"
            let pop = Self.text(update.attributes["POP"] ?? .null)
            batches.buffer.append(contentsOf: "\(batch)\tU\t\(id)\t\(pop)\t\\N\t\\N\t\\N\t\\N\t\(Self.point(update.geometry))\n".utf8)
        }
        for id in edits.deletes {
            batches.buffer.append(contentsOf: "\(batch)\tD\t\(id)\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\n".utf8)
        }
        try batches.flushIfFull()
    }

    /// Writes what is buffered and closes `edit_batches.tsv`.
    mutating func close() throws { _ = try batches.close() }

    /// An add's fields after OBJECTID, tab-separated.
    private static func attributesAndPoint(_ edit: FeatureEdit) -> String {
        fields.map { text(edit.attributes[$0] ?? .null) }.joined(separator: "\t") + "\t" + point(edit.geometry)
    }

    /// A value as the files write it.
    static func text(_ value: ScalarValue) -> String {
        switch value {
        case .null: "\\N"
        case .integer(let value), .date(let value): String(value)
        case .double(let value): value.description
        case .string(let value): value
        case .boolean(let value): value ? "1" : "0"
        }
    }

    /// `X<tab>Y` of a point, `\N<tab>\N` otherwise.
    static func point(_ geometry: Geometry?) -> String {
        guard case .point(let point) = geometry else { return "\\N\t\\N" }
        return "\(point.x.description)\t\(point.y.description)"
    }
}

extension FeatureTable {
    /// The sum of the integer field `name` over the live rows: a checksum of a table's state that
    /// another engine can compute after the same edits.
    func integerSum(_ name: String) -> Int64 {
        var sum: Int64 = 0
        for row in 0..<count where !isDeleted(row: row) {
            if case .integer(let value) = value(row: row, field: name) { sum &+= value }
        }
        return sum
    }
}

import Foundation
import SieveColumns
import SieveGEOS
import SieveGeometry
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats
import SieveTestSupport

// Helpers of the editing tests (here and in EditingConcurrencyTests), in a file of their own so
// that the ThreadSanitizer package (Sanitize/) can take them without the editing suites.

/// A point table with one field of each kind the validation rules concern, and no rows.
func editingSchema(geometryType: GeometryType = .point) throws -> Schema {
    try Schema(
        fields: [
            Field(name: "OBJECTID", type: .oid),
            Field(name: "NAME", type: .string, length: 10),
            Field(name: "POP", type: .smallInteger),
            Field(name: "RATE", type: .single),
            Field(
                name: "KIND", type: .integer,
                domain: .codedValue(name: "Kinds", codes: [CodedValue(name: "A", code: .integer(1)), CodedValue(name: "B", code: .integer(2))])),
            Field(name: "SCORE", type: .double, domain: .range(name: "Percent", min: .integer(0), max: .integer(100))),
            Field(name: "CODE", type: .string, nullable: false, defaultValue: .string("none")),
            Field(name: "STRICT", type: .integer, nullable: false),
            Field(name: "LOCKED", type: .integer, editable: false),
            Field(name: "GLOBALID", type: .globalID),
            Field(name: "SEEN", type: .date),
            Field(name: "CREATOR", type: .string),
            Field(name: "CREATED", type: .date),
            Field(name: "EDITOR", type: .string),
            Field(name: "EDITED", type: .date),
        ],
        objectIdFieldName: "OBJECTID", globalIdFieldName: "GLOBALID", geometryType: geometryType)
}

/// An empty table of `schema`.
func emptyTable(_ schema: Schema) throws -> FeatureTable {
    let columns: [Column] = schema.fields.map { field in
        switch field.columnType {
        case .integer: .integer(Int64Column(values: [Int64]()))
        case .date: .date(Int64Column(values: [Int64]()))
        case .double: .double(DoubleColumn(values: [Double]()))
        case .string: .string(StringColumn([String?]()))
        }
    }
    return try FeatureTable(schema: schema, columns: columns)
}

/// Options with a fixed clock and numbered global IDs, so that results are reproducible.
func fixedOptions(
    capabilities: TableCapabilities = .all, tracking: EditorTracking? = nil, allowGeometryUpdates: Bool = true
) -> EditingOptions {
    let counter = Counter()
    return EditingOptions(
        capabilities: capabilities, allowGeometryUpdates: allowGeometryUpdates, editorTracking: tracking,
        now: { 1_700_000_000_000 },
        makeGlobalID: { String(format: "{00000000-0000-4000-8000-%012d}", counter.next()) })
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

func point(_ x: Double, _ y: Double) -> Geometry { .point(Point(x: x, y: y)) }

/// A valid add for ``editingSchema()``.
func validAdd(_ name: String, x: Double = 1, y: Double = 1) -> FeatureEdit {
    FeatureEdit(attributes: ["NAME": .string(name), "STRICT": .integer(7)], geometry: point(x, y))
}

/// Everything a snapshot answers, as text: every stored column (buffers included), every row's
/// values, deletion, geometry and envelope, the extent, object-ID look-ups, and the answers of
/// spatial and where queries.
func dump(_ table: FeatureTable) throws -> String {
    var lines: [String] = []
    lines.append("count \(table.count) features \(table.featureCount) extent \(table.extent)")
    lines.append("columns \(table.columns)")
    lines.append("geometry column x \(table.geometryColumn.xmin) y \(table.geometryColumn.ymin)")
    for row in 0..<table.count {
        let values = (0..<table.schema.fields.count).map { table.value(row: row, fieldIndex: $0).description }
        lines.append(
            "\(row) deleted \(table.isDeleted(row: row)) \(values) \(String(describing: table.geometry(row: row))) \(String(describing: table.envelope(row: row)))"
        )
    }
    for id in Int64(-1)...Int64(table.count + 5) { lines.append("oid \(id) → \(String(describing: table.row(forObjectID: id)))") }
    for x in stride(from: -2.0, through: 12.0, by: 3.5) {
        let window = Geometry.envelope(Envelope(xmin: x, ymin: x - 1, xmax: x + 4, ymax: x + 3))
        lines.append("window \(x) \(try table.queryObjectIDs(QueryParameters(geometry: window)))")
    }
    lines.append("all \(try table.queryObjectIDs(QueryParameters()))")
    lines.append("named \(try table.queryFeatureCount(QueryParameters(whereClause: "NAME LIKE 'f%'")))")
    return lines.joined(separator: "\n")
}


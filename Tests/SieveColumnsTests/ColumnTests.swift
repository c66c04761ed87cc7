import Testing

@testable import SieveColumns

@Suite("Columns")
struct ColumnTests {
    @Test func validityBitmap() {
        var bitmap = ValidityBitmap(count: 70, allValid: true)
        #expect(bitmap.nullCount == 0)
        bitmap.set(3, valid: false)
        bitmap.set(69, valid: false)
        #expect(!bitmap.isValid(3) && bitmap.isValid(4) && !bitmap.isValid(69))
        #expect(bitmap.nullCount == 2)
        bitmap.append(valid: false)
        bitmap.append(valid: true)
        #expect(bitmap.count == 72 && bitmap.nullCount == 3 && bitmap.isValid(71))
    }

    @Test func lowCardinalityStringsAreDictionaryEncoded() {
        let values: [String?] = (0..<100).map { $0 % 7 == 0 ? nil : ["Parks", "Graffiti", "Tree"][$0 % 3] }
        let column = StringColumn(values)
        guard case .dictionary(_, let dictionary) = column.encoding else {
            Issue.record("expected a dictionary")
            return
        }
        #expect(dictionary.count == 3)
        for (i, value) in values.enumerated() { #expect(column[i] == value) }
    }

    @Test func highCardinalityStringsArePlain() {
        let values: [String?] = (0..<1000).map { "name \($0)" }
        let column = StringColumn(values)
        guard case .plain = column.encoding else {
            Issue.record("expected plain storage")
            return
        }
        #expect(column[999] == "name 999")
        #expect(Column.string(column)[5] == .string("name 5"))
    }
}

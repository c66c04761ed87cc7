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

    // MARK: Byte-exact strings

    /// "é" precomposed (U+00E9, bytes C3 A9) and decomposed (e + U+0301, bytes 65 CC 81) are
    /// canonically equivalent, so Swift's `==` calls them equal; as data they are two values.
    static let precomposed = "\u{E9}"
    static let decomposed = "e\u{301}"

    @Test func swiftStringEqualityIsCanonicalEquivalence() {
        // The reason for ExactString: without it these would merge.
        #expect(Self.precomposed == Self.decomposed)
        #expect(Array(Self.precomposed.utf8) != Array(Self.decomposed.utf8))
        #expect(ExactString(Self.precomposed) != ExactString(Self.decomposed))
        #expect(Set([ExactString(Self.precomposed), ExactString(Self.decomposed), ExactString("\u{E9}")]).count == 2)
    }

    @Test(arguments: [65_536, 0])
    func dictionaryKeepsNormalizationFormsApart(dictionaryLimit: Int) {
        // 16+ rows so that a dictionary is allowed (at most a quarter of the rows distinct).
        var values: [String?] = []
        for i in 0..<64 {
            switch i % 4 {
            case 0: values.append(Self.precomposed)
            case 1: values.append(Self.decomposed)
            case 2: values.append("\u{212B}")  // ANGSTROM SIGN, canonically equivalent to U+00C5
            default: values.append(i % 8 == 3 ? "\u{C5}" : nil)
            }
        }
        let column = StringColumn(values, dictionaryLimit: dictionaryLimit)
        if dictionaryLimit > 0 {
            guard case .dictionary(_, let dictionary) = column.encoding else {
                Issue.record("expected a dictionary")
                return
            }
            // é, e + ◌́, Å (U+212B), Å (U+00C5): four distinct byte strings.
            #expect(dictionary.count == 4)
        }
        for (i, value) in values.enumerated() {
            #expect(column[i].map { Array($0.utf8) } == value.map { Array($0.utf8) }, "row \(i)")
        }
    }

    @Test func scalarValuesCompareBytes() {
        #expect(ScalarValue.string(Self.precomposed) != .string(Self.decomposed))
        #expect(ScalarValue.string(Self.precomposed) == .string("\u{E9}"))
        #expect(Set<ScalarValue>([.string(Self.precomposed), .string(Self.decomposed)]).count == 2)
        #expect(ScalarValue.null.isNull && !ScalarValue.string("").isNull)
        #expect(ScalarValue.integer(1) != .double(1) && ScalarValue.date(5) != .integer(5))
        #expect(Set<ScalarValue>([.integer(1), .integer(1), .double(1), .null, .null, .boolean(true)]).count == 4)
    }
}

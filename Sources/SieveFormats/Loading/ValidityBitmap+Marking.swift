import SieveColumns

extension ValidityBitmap {
    /// The validity of `count` rows of which `nullRows` are NULL; `nil` (every row valid) when
    /// there are none, as columns store it.
    static func marking(_ nullRows: [Int], count: Int) -> ValidityBitmap? {
        guard !nullRows.isEmpty else { return nil }
        var bitmap = ValidityBitmap(count: count, allValid: true)
        for row in nullRows { bitmap.set(row, valid: false) }
        return bitmap
    }
}

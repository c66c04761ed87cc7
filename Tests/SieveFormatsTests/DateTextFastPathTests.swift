import SieveColumns
import SieveFormats
import Testing

/// The fast reading of GeoPackage date texts (`yyyy-mm-dd`, `yyyy-mm-ddThh:mm:ss.fffZ`) against
/// the general ISO 8601 reader it stands in for: whenever the fast path gives a value, it is the
/// general reader's, and it gives one for every valid text of the canonical forms.
@Suite("GeoPackage date texts, fast path")
struct DateTextFastPathTests {
    /// What the general reader gives for `text` as a DATETIME (or DATE) column reads it.
    func general(_ text: String, dateOnly: Bool) -> Int64? {
        let syntax: CivilTime.Syntax = dateOnly ? .sqlDate : [.isoSeparator, .spaceSeparator, .time, .zulu, .offset]
        return CivilTime.parse(text, syntax: syntax)
    }

    func fast(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { CivilTime.parseCanonical(UnsafeRawBufferPointer($0)) }
    }

    /// Checks `text`: the fast path agrees with the general reader, and (when `valid`) answers.
    func check(_ text: String, valid: Bool? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = general(text, dateOnly: text.utf8.count == 10)
        let value = fast(text)
        if let value { #expect(value == expected, "\(text)", sourceLocation: sourceLocation) }
        if valid == true { #expect(value != nil && expected != nil, "\(text)", sourceLocation: sourceLocation) }
        if valid == false { #expect(value == nil, "\(text)", sourceLocation: sourceLocation) }
        // Through the reader's entry point, which falls back to the general reader.
        let dateOnly = text.utf8.count == 10
        var copy = text
        let parsed = copy.withUTF8 { GeoPackageDates.parse(UnsafeRawBufferPointer($0), dateOnly: dateOnly) }
        #expect(parsed == expected, "\(text)", sourceLocation: sourceLocation)
    }

    func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    @Test func everyDayOfLeapAndCenturyYears() {
        for year in [0, 1, 3, 4, 100, 400, 1582, 1899, 1900, 1970, 1999, 2000, 2023, 2024, 2100, 2400, 9999] {
            for month in 0...13 {
                for day in [0, 1, 2, 15, 27, 28, 29, 30, 31, 32, 39, 99] {
                    let date = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
                    let valid = (1...12).contains(month) && day >= 1 && day <= daysIn(month, year)
                    check(date, valid: valid)
                    check(date + "T00:00:00.000Z", valid: valid)
                    check(date + "T23:59:59.999Z", valid: valid)
                }
            }
        }
    }

    func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    @Test func timesAtTheirLimits() {
        for (time, valid) in [
            ("00:00:00.000", true), ("12:34:56.789", true), ("23:59:59.999", true), ("24:00:00.000", false),
            ("23:60:00.000", false), ("23:59:60.000", false), ("99:99:99.999", false), ("0a:00:00.000", false),
            ("00:00:00:000", false), ("00-00-00.000", false), ("00:00:00.00Z", false),
        ] {
            check("2024-02-29T\(time)Z", valid: valid)
            check("2024-02-29 \(time)Z", valid: false)  // not the canonical form: the general reader's
            check("2024-02-29t\(time)Z", valid: false)
        }
        check("2024-02-29T12:00:00.000z", valid: false)
        check("2024-02-29T12:00:00.000+", valid: false)
    }

    @Test func neighboursOfDigitsAndSeparators() {
        // Bytes just below '0' and above '9', and other separators, at every position.
        let base = Array("2021-06-15T08:09:10.011Z".utf8)
        for position in base.indices {
            for byte: UInt8 in [0x2F, 0x3A, 0x30, 0x39, 0x20, 0x2D, 0x3A, 0x54, 0x00, 0xFF, 0x80] {
                var bytes = base
                bytes[position] = byte
                let text = String(decoding: bytes, as: UTF8.self)
                guard text.utf8.count == 24 else { continue }  // bytes not UTF-8 were repaired
                check(text)
                check(String(text.prefix(10)))
            }
        }
    }

    @Test func randomCanonicalTexts() {
        var state: UInt64 = 0x1234_5678_9ABC_DEF0
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<20_000 {
            let text =
                "\(pad(next(10_000), 4))-\(pad(next(14), 2))-\(pad(next(33), 2))T"
                + "\(pad(next(26), 2)):\(pad(next(62), 2)):\(pad(next(62), 2)).\(pad(next(1000), 3))Z"
            check(text)
            check(String(text.prefix(10)))
        }
    }

    @Test func otherLengthsAreLeftToTheGeneralReader() {
        for text in [
            "2024-01-01T00:00Z", "2024-01-01T00:00:00Z", "2024-01-01T00:00:00.0Z", "2024-1-01", "2024-01-01 ", "",
        ] {
            #expect(fast(text) == nil)
            check(text)
        }
    }
}

/// Numbers as text the way JavaScript's `String(number)` writes them (ECMA-262
/// Number::toString), which is what the ArcGIS JavaScript API compares unique values with:
/// `3` (not `3.0`), `2.5`, `0.000001`, `1e-7`, `123456789012345680000`, `1e+21`, `NaN`,
/// `Infinity`, and `0` for −0.
enum JavaScriptNumberText {
    /// The JavaScript text of `value`.
    static func string(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        if value == 0 { return "0" }
        let (digits, n) = shortestDigits(abs(value))
        let sign = value < 0 ? "-" : ""
        let k = digits.count
        if k <= n && n <= 21 {
            return sign + digits + String(repeating: "0", count: n - k)
        }
        if 0 < n && n <= 21 {
            let split = digits.index(digits.startIndex, offsetBy: n)
            return sign + digits[..<split] + "." + digits[split...]
        }
        if -6 < n && n <= 0 {
            return sign + "0." + String(repeating: "0", count: -n) + digits
        }
        let exponent = n - 1
        let exponentText = (exponent < 0 ? "-" : "+") + String(abs(exponent))
        if k == 1 { return sign + digits + "e" + exponentText }
        let first = digits.index(after: digits.startIndex)
        return sign + digits[..<first] + "." + digits[first...] + "e" + exponentText
    }

    /// The shortest decimal digits that read back as `value` (> 0, finite), without leading or
    /// trailing zeros, and `n` such that `value = 0.digits × 10^n`.
    ///
    /// Swift's `description` of a `Double` is already the shortest round-tripping form (in
    /// plain or exponent notation); this takes its digits and decimal exponent apart.
    static func shortestDigits(_ value: Double) -> (digits: String, n: Int) {
        let text = value.description
        var mantissa = Substring(text)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<e]
            exponent = Int(text[text.index(after: e)...]) ?? 0
        }
        var integerPart = mantissa
        var fraction: Substring = ""
        if let dot = mantissa.firstIndex(of: ".") {
            integerPart = mantissa[..<dot]
            fraction = mantissa[mantissa.index(after: dot)...]
        }
        var digits = Array(integerPart) + Array(fraction)
        // value = 0.digits × 10^(integer digits + exponent)
        var n = integerPart.count + exponent
        while let first = digits.first, first == "0" {
            digits.removeFirst()
            n -= 1
        }
        while let last = digits.last, last == "0" { digits.removeLast() }
        return (String(digits), n)
    }
}

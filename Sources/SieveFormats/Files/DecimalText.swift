import Foundation
import SieveJSON

/// Numbers written as decimal text in the fixed-width and delimited formats (dBase `N` fields,
/// CSV coordinates).
enum DecimalText {
    /// A finite decimal number, correctly rounded: JSON's syntax through the JSON scanner,
    /// else (a leading `+`, `.5`, `5.`, leading zeros) Swift's parser.
    static func double(_ value: UnsafeRawBufferPointer) -> Double? {
        let buffer = value.bindMemory(to: UInt8.self)
        do throws(JSONNumberError) {
            let (number, end) = try JSONTextReader<JSONSyntaxError>.scanNumber(buffer, at: 0)
            if end == buffer.count { return number.double.isFinite ? number.double : nil }
        } catch {}
        for byte in value where !(byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) {
            switch byte {
            case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): continue
            default: return nil
            }
        }
        guard let double = Double(String(decoding: value, as: UTF8.self)), double.isFinite else { return nil }
        return double
    }
}

import Foundation
import SieveColumns

/// The character encoding of a dBase file's texts: from the shapefile's `.cpg`, else from the
/// language driver byte of the `.dbf` header, as GDAL reads them.
enum DBFEncoding: Equatable, Sendable {
    case utf8
    case latin1
    case windows1252
    /// Neither a `.cpg` nor a language driver says: UTF-8 where the bytes are UTF-8, else
    /// ISO-8859-1 (every byte a character), value by value.
    case unspecified
    /// A code page GeoSieve does not convert (named as the file names it): ASCII texts are
    /// read, any other byte is an error naming the code page.
    case other(String)

    /// The name reports use (`UTF-8`, `ISO-8859-1`, `windows-1252`).
    var name: String {
        switch self {
        case .utf8: "UTF-8"
        case .latin1: "ISO-8859-1"
        case .windows1252: "windows-1252"
        case .unspecified: "unspecified (UTF-8, else ISO-8859-1)"
        case .other(let name): name
        }
    }

    /// The encoding a `.cpg` file's text names; `nil` for an empty one.
    static func named(_ text: String) -> DBFEncoding? {
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines).uppercased().replacingOccurrences(of: "_", with: "-")
        switch name {
        case "": return nil
        case "UTF-8", "UTF8", "65001": return .utf8
        case "ISO-8859-1", "ISO8859-1", "ISO88591", "8859-1", "88591", "LATIN1", "LATIN-1", "28591", "ISO-8859-1:1987":
            return .latin1
        case "1252", "CP1252", "WINDOWS-1252", "ANSI 1252", "ANSI1252", "WIN1252": return .windows1252
        default: return .other(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// The encoding a language driver ID (byte 29 of the header) names, as GDAL maps them:
    /// 0x03 windows-1252, 0x57 ISO-8859-1 (GDAL's reading of "ANSI"), 0 none.
    static func languageDriver(_ id: UInt8) -> DBFEncoding {
        switch id {
        case 0: .unspecified
        case 0x03: .windows1252
        case 0x57: .latin1
        case 0x01: .other("code page 437 (language driver 0x01)")
        case 0x02: .other("code page 850 (language driver 0x02)")
        default: .other("language driver 0x" + String(id, radix: 16, uppercase: true))
        }
    }

    /// The bytes of a text in this encoding, appended to `output` as UTF-8; `false` when they
    /// are not text in it (invalid UTF-8; a byte above 0x7F in a code page not converted).
    func appendUTF8(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) -> Bool {
        var ascii = true
        for byte in bytes where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii {
            output.append(contentsOf: bytes)
            return true
        }
        switch self {
        case .utf8:
            guard isValidUTF8(bytes) else { return false }
            output.append(contentsOf: bytes)
            return true
        case .unspecified:
            if isValidUTF8(bytes) {
                output.append(contentsOf: bytes)
            } else {
                for byte in bytes { Self.appendScalar(UInt32(byte), to: &output) }
            }
            return true
        case .latin1:
            for byte in bytes { Self.appendScalar(UInt32(byte), to: &output) }
            return true
        case .windows1252:
            for byte in bytes {
                if byte >= 0x80 && byte < 0xA0 {
                    Self.appendScalar(Self.windows1252High[Int(byte - 0x80)], to: &output)
                } else {
                    Self.appendScalar(UInt32(byte), to: &output)
                }
            }
            return true
        case .other:
            return false
        }
    }

    /// Windows-1252's characters for bytes 0x80…0x9F; the five bytes it leaves undefined map to
    /// the C1 controls of the same number, as Windows converts them.
    private static let windows1252High: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]

    /// Appends the UTF-8 bytes of scalar `value` (below 0x10000 here).
    private static func appendScalar(_ value: UInt32, to output: inout [UInt8]) {
        if value < 0x80 {
            output.append(UInt8(value))
        } else if value < 0x800 {
            output.append(UInt8(0xC0 | (value >> 6)))
            output.append(UInt8(0x80 | (value & 0x3F)))
        } else {
            output.append(UInt8(0xE0 | (value >> 12)))
            output.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            output.append(UInt8(0x80 | (value & 0x3F)))
        }
    }
}

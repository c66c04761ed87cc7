// The byte-level pieces every JSON writer shares: integers, strings and spatial references.
import SieveColumns
import SieveGeometry
import SieveJSON

/// Small byte-level JSON helpers for the writers.
package enum JSONOutput {
    /// Appends the decimal digits of `value`.
    package static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 20 digits, filled from the end
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                count += 1
                buffer[buffer.count - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: buffer[(buffer.count - count)...])
        }
    }

    /// Appends string `index` of `storage` as a JSON string, escaped as
    /// `JSONWriter.writeString` escapes (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other
    /// control characters as `\u00XX`, everything else as it is), straight from the storage's
    /// UTF-8 bytes: runs without a character to escape are copied whole.
    @inline(__always)
    package static func appendString(_ index: Int, of storage: StringStorage, to bytes: inout [UInt8]) {
        let start = storage.offsets[index], end = storage.offsets[index + 1]
        storage.bytes.withUnsafeBufferPointer { all in
            appendString(UnsafeBufferPointer(rebasing: all[start..<end]), to: &bytes)
        }
    }

    /// Appends the UTF-8 text `utf8` as a JSON string (see ``appendString(_:of:to:)``).
    package static func appendString(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        for i in 0..<utf8.count {
            let byte = utf8[i]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            if runStart < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
            runStart = i + 1
            bytes.append(0x5C)
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            default:
                let hex: StaticString = "0123456789abcdef"
                bytes.append(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(hex.utf8Start[Int(byte >> 4)])
                bytes.append(hex.utf8Start[Int(byte & 0xF)])
            }
        }
        if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `{"wkid":N}` (with `"latestWkid"` when it differs) as a value.
    package static func spatialReferenceValue(_ reference: SpatialReference) -> JSONValue {
        var object = JSONObject()
        object.append("wkid", .integer(reference.wkid))
        if reference.latestWkid != reference.wkid { object.append("latestWkid", .integer(reference.latestWkid)) }
        return .object(object)
    }

    /// Appends `{"wkid":N}` (with `"latestWkid"` when it differs).
    package static func appendSpatialReference(_ reference: SpatialReference, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"wkid":"#.utf8)
        appendInteger(Int64(reference.wkid), to: &bytes)
        if reference.latestWkid != reference.wkid {
            bytes.append(contentsOf: #","latestWkid":"#.utf8)
            appendInteger(Int64(reference.latestWkid), to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}

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

    /// Appends string `index` of `storage` as a JSON string (`JSONWriter.writeString(utf8:into:)`),
    /// straight from the storage's UTF-8 bytes.
    @inline(__always)
    package static func appendString(_ index: Int, of storage: StringStorage, to bytes: inout [UInt8]) {
        let start = storage.offsets[index], end = storage.offsets[index + 1]
        storage.bytes.withUnsafeBufferPointer { all in
            JSONWriter.writeString(utf8: UnsafeBufferPointer(rebasing: all[start..<end]), into: &bytes)
        }
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

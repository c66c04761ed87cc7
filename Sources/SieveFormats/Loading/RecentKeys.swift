import SieveFeatures
import Foundation
import SieveColumns
import SieveGeometry
import SieveJSON

/// What a member of a feature object is.
enum MemberRole {
    /// GeoJSON `type`.
    case type
    /// GeoJSON `properties`, Esri JSON `attributes`.
    case attributes
    case geometry
    /// GeoJSON `id`.
    case id
    case other

    init(_ key: JSONKeyToken, format: FeatureFormat, buffer: UnsafeBufferPointer<UInt8>) {
        if format == .geoJSON, key.equals("type", in: buffer) {
            self = .type
        } else if key.equals(format == .geoJSON ? "properties" : "attributes", in: buffer) {
            self = .attributes
        } else if key.equals("geometry", in: buffer) {
            self = .geometry
        } else if format == .geoJSON, key.equals("id", in: buffer) {
            self = .id
        } else {
            self = .other
        }
    }
}

/// A key as it was last read at a member position: where its text lies in the input, when it is
/// plain ASCII (no escapes, nothing a match could misread), so that the next object's key at the
/// position is recognized by comparing bytes.
struct RecentKey {
    var start: Int
    var end: Int

    /// The key's bytes, or `nil` when it cannot be matched that way.
    @inline(__always)
    func bytes(in buffer: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        start < 0 ? nil : UnsafeBufferPointer(rebasing: buffer[start..<end])
    }

    /// The next member of the object `reader` is in: its key, and whether it is `recent`'s key
    /// at `position` (usually the previous object's key at the same position, recognized by one
    /// comparison).
    @inline(__always)
    static func nextMember(
        _ reader: inout JSONReader, first: inout Bool, at position: Int, recent: [RecentKey], buffer: UnsafeBufferPointer<UInt8>
    ) throws(GeometryError) -> (key: JSONKeyToken, matched: Bool)? {
        if position < recent.count, let expected = recent[position].bytes(in: buffer) {
            return try reader.nextMember(first: &first, expecting: expected)
        }
        return try reader.nextMember(first: &first).map { ($0, false) }
    }

    /// Records `key` as the key read at `position` (positions are recorded in order, so the
    /// list grows by at most one).
    static func remember(_ key: JSONKeyToken, at position: Int, in list: inout [RecentKey], buffer: UnsafeBufferPointer<UInt8>) {
        let plain = !key.escaped && !buffer[key.start..<key.end].contains(where: { $0 >= 0x80 })
        list.record(plain ? RecentKey(start: key.start, end: key.end) : RecentKey(start: -1, end: -1), at: position)
    }
}

extension Array {
    /// Records what member position `position` of an object held: replaces the element there,
    /// or appends it when the position is new (positions arrive in order, so the array grows
    /// by at most one).
    @inline(__always)
    mutating func record(_ element: Element, at position: Int) {
        if position < count {
            self[position] = element
        } else if position == count {
            append(element)
        }
    }
}

extension FileRepresentation.FeatureMember {
    /// The member a feature-object member of `role` is, if one of these.
    init?(_ role: MemberRole) {
        switch role {
        case .type: self = .type
        case .id: self = .id
        case .geometry: self = .geometry
        case .attributes: self = .attributes
        case .other: return nil
        }
    }
}

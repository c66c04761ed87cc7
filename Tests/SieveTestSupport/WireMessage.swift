/// A protocol buffer message read into its fields, for checking answers (`f=pbf`, vector
/// tiles): each field's number, and its varint, 64-bit or length-delimited content.
public struct WireMessage: Equatable, Sendable {
    public enum Content: Equatable, Sendable {
        case varint(UInt64)
        case fixed64(UInt64)
        case bytes([UInt8])
    }
    public let fields: [(number: UInt64, content: Content)]

    public struct Malformed: Error {
        public init() {}
    }

    public init(_ bytes: [UInt8]) throws {
        var fields: [(UInt64, Content)] = []
        var i = 0
        func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard i < bytes.count, shift < 64 else { throw Malformed() }
                let byte = bytes[i]
                i += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }
        while i < bytes.count {
            let key = try varint()
            switch key & 7 {
            case 0: fields.append((key >> 3, .varint(try varint())))
            case 1:
                guard i + 8 <= bytes.count else { throw Malformed() }
                var value: UInt64 = 0
                for k in 0..<8 { value |= UInt64(bytes[i + k]) << (8 * UInt64(k)) }
                i += 8
                fields.append((key >> 3, .fixed64(value)))
            case 2:
                let length = Int(try varint())
                guard length >= 0, i + length <= bytes.count else { throw Malformed() }
                fields.append((key >> 3, .bytes(Array(bytes[i..<(i + length)]))))
                i += length
            default: throw Malformed()
            }
        }
        self.fields = fields
    }

    public static func == (a: WireMessage, b: WireMessage) -> Bool {
        a.fields.count == b.fields.count && zip(a.fields, b.fields).allSatisfy { $0.number == $1.number && $0.content == $1.content }
    }

    public func varint(_ number: UInt64) -> UInt64? {
        for field in fields where field.number == number { if case .varint(let v) = field.content { return v } }
        return nil
    }
    public func double(_ number: UInt64) -> Double? {
        for field in fields where field.number == number { if case .fixed64(let v) = field.content { return Double(bitPattern: v) } }
        return nil
    }
    public func string(_ number: UInt64) -> String? {
        for field in fields where field.number == number { if case .bytes(let b) = field.content { return String(decoding: b, as: UTF8.self) } }
        return nil
    }
    public func message(_ number: UInt64) throws -> WireMessage? { try messages(number).first }
    public func messages(_ number: UInt64) throws -> [WireMessage] {
        try fields.filter { $0.number == number }.compactMap { field in
            if case .bytes(let b) = field.content { return try WireMessage(b) }
            return nil
        }
    }
    /// The texts of every field `number` (a repeated string).
    public func strings(_ number: UInt64) -> [String] {
        fields.filter { $0.number == number }.compactMap { field in
            if case .bytes(let b) = field.content { return String(decoding: b, as: UTF8.self) }
            return nil
        }
    }

    /// A packed repeated varint field's elements.
    public func packed(_ number: UInt64) -> [UInt64] {
        guard let field = fields.first(where: { $0.number == number }), case .bytes(let bytes) = field.content else { return [] }
        var values: [UInt64] = []
        var value: UInt64 = 0
        var shift: UInt64 = 0
        for byte in bytes {
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 {
                values.append(value)
                value = 0
                shift = 0
            } else {
                shift += 7
            }
        }
        return values
    }
}

import SieveGeometry
import SieveJSON

/// The parameters of a request: the URL's query string and, for a POST with an
/// `application/x-www-form-urlencoded` body, the form's, read as HTML forms encode them (`+` is a
/// space, `%XX` a byte, the bytes UTF-8).
///
/// ArcGIS REST reads parameter names ignoring case (`WHERE=` is `where=`); OGC API names are
/// exact. A name given twice is an error in both (which value was meant is not knowable).
public struct RequestParameters: Sendable {
    /// The parameters in request order (query string first, then the form body).
    public private(set) var items: [(name: String, value: String)]

    /// Whether names match ignoring ASCII case.
    public let caseInsensitiveNames: Bool

    /// The position in ``items`` of each name given, as compared (lowercased when names ignore
    /// case): lookups are O(1) however many parameters came.
    private var positions: [String: Int] = [:]

    /// The most parameters a request may carry.
    public static let maximumCount = 1000

    /// Reads `query` (the part of the URL after `?`, without it) and `form` (a form body).
    /// - Throws: ``ServerRequestError`` for a malformed escape, bytes that are not UTF-8, a
    ///   name given twice, or more than ``maximumCount`` parameters.
    public init(
        query: Substring?, form: [UInt8]? = nil, fields: [(name: String, value: String)] = [], caseInsensitiveNames: Bool
    ) throws(ServerRequestError) {
        self.caseInsensitiveNames = caseInsensitiveNames
        items = []
        if let query { try append(Array(query.utf8), source: "query string") }
        if let form { try append(form, source: "form body") }
        for field in fields { try append(name: field.name, value: field.value) }
    }

    /// The value of `name`, `nil` when absent.
    public subscript(name: String) -> String? {
        positions[caseInsensitiveNames ? name.lowercased() : name].map { items[$0].value }
    }

    /// The value of `name` with surrounding spaces removed, `nil` when absent or empty (ArcGIS
    /// reads an empty parameter as not given).
    public func nonEmpty(_ name: String) -> String? {
        guard let value = self[name] else { return nil }
        let trimmed = String(value.trimmingWhitespace())
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The names given, as written.
    public var names: [String] { items.map(\.name) }

    /// Appends the `name=value` pairs of `bytes`.
    private mutating func append(_ bytes: [UInt8], source: String) throws(ServerRequestError) {
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "&") { end += 1 }
            if end > start {
                let pair = bytes[start..<end]
                let equals = pair.firstIndex(of: UInt8(ascii: "="))
                let name = try Self.decode(pair[pair.startIndex..<(equals ?? pair.endIndex)], source: source)
                let value = try equals.map { index throws(ServerRequestError) in
                    try Self.decode(pair[(index + 1)...], source: source)
                } ?? ""
                try append(name: name, value: value)
            }
            start = end + 1
        }
    }

    /// Appends one parameter.
    /// - Throws: ``ServerRequestError`` when `name` is already given.
    private mutating func append(name: String, value: String) throws(ServerRequestError) {
        guard items.count < Self.maximumCount else {
            throw ServerRequestError(.badRequest, "the request has more than \(Self.maximumCount) parameters")
        }
        let key = caseInsensitiveNames ? name.lowercased() : name
        guard positions.updateValue(items.count, forKey: key) == nil else {
            throw ServerRequestError(.badRequest, "parameter \(Self.quoted(name)) is given more than once")
        }
        items.append((name, value))
    }

    /// Decodes one form-encoded component.
    static func decode(_ bytes: ArraySlice<UInt8>, source: String) throws(ServerRequestError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let byte = bytes[i]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                guard i + 2 < bytes.endIndex,
                    let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2])
                else {
                    throw ServerRequestError(.badRequest, "malformed percent escape at byte \(i - bytes.startIndex) of a \(source) item")
                }
                out.append(high << 4 | low)
                i += 2
            } else {
                out.append(byte)
            }
            i += 1
        }
        guard let text = String(validating: out, as: UTF8.self) else {
            throw ServerRequestError(.badRequest, "a \(source) item is not UTF-8 text")
        }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `text` as a JSON string for messages: one line, cut after 80 characters.
    static func quoted(_ text: String) -> String { JSONKey.quoted(text) }
}

import SieveFeatures
import SieveEditing
import SieveFormats
/// A `multipart/form-data` body (RFC 7578, RFC 2046 §5.1): its parts, each with its field name,
/// file name and media type when given, and its bytes.
///
/// Read by a strict parser of its own: the body must be `--BOUNDARY CRLF`, parts of header
/// lines (ASCII, `Name: value`), an empty line and the content, separated by `CRLF --BOUNDARY
/// CRLF` and closed by `CRLF --BOUNDARY--`. (vapor/multipart-kit 4.7.1, used before, trapped on a
/// header byte of 0x80 or above: one request could stop the server.)
struct MultipartForm {
    /// One part.
    struct Part {
        var name: String?
        var filename: String?
        var contentType: String?
        var data: [UInt8]
    }

    /// The parts, in order.
    let parts: [Part]

    /// The most parts a body may have.
    static let maximumParts = 100

    /// Reads `body` sent with the `Content-Type` `contentType`.
    /// - Throws: ``ServerRequestError`` (bad request) for a type without a boundary or a body
    ///   that is not well-formed multipart, saying where.
    init(body: [UInt8], contentType: String) throws(ServerRequestError) {
        guard let boundary = Self.parameter("boundary", of: contentType), !boundary.isEmpty, boundary.utf8.count <= 200 else {
            throw ServerRequestError(.badRequest, "a multipart/form-data body needs a boundary parameter (1 to 200 characters)")
        }
        func malformed(_ reason: String) -> ServerRequestError {
            ServerRequestError(.badRequest, "the multipart/form-data body is malformed: \(reason)")
        }
        let crlf: [UInt8] = [13, 10]
        let delimiter = Array("--\(boundary)".utf8)
        // What separates parts: CRLF and the delimiter (the first one needs no CRLF before it).
        let separator = crlf + delimiter
        guard Self.starts(body, with: delimiter, at: 0) else { throw malformed("it does not start with --boundary") }
        var position = delimiter.count
        var parts: [Part] = []
        while true {
            // After a delimiter: `--` ends the body, CRLF starts a part.
            if Self.starts(body, with: [45, 45], at: position) { break }
            guard Self.starts(body, with: crlf, at: position) else { throw malformed("no line break after a boundary at byte \(position)") }
            position += 2
            guard parts.count < Self.maximumParts else { throw malformed("more than \(Self.maximumParts) parts") }
            guard let headerEnd = Self.find(crlf + crlf, in: body, from: position - 2) else { throw malformed("a part's headers do not end") }
            var part = Part(data: [])
            if headerEnd > position - 2 {
                for line in body[position..<headerEnd].split(separator: 10, omittingEmptySubsequences: false) {
                    let text = line.last == 13 ? line.dropLast() : line[...]
                    // The name ASCII; the value UTF-8 (RFC 7578 §4.2: a file name as browsers send
                    // it); no control characters.
                    guard !text.contains(where: { $0 < 32 && $0 != 9 || $0 == 127 }), let colon = text.firstIndex(of: 58),
                        text[..<colon].allSatisfy({ $0 < 128 }), String(validating: text, as: UTF8.self) != nil
                    else {
                        throw malformed("a part header is not a 'Name: value' line (an ASCII name, a UTF-8 value)")
                    }
                    let name = String(decoding: text[text.startIndex..<colon], as: UTF8.self).trimmingWhitespace().lowercased()
                    let value = String(String(decoding: text[(colon + 1)...], as: UTF8.self).trimmingWhitespace())
                    switch name {
                    case "content-disposition":
                        part.name = Self.parameter("name", of: value)
                        part.filename = Self.parameter("filename", of: value)
                    case "content-type":
                        part.contentType = value
                    default:
                        break
                    }
                }
            }
            let contentStart = headerEnd + 4
            guard let contentEnd = Self.find(separator, in: body, from: contentStart) else { throw malformed("a part does not end with the boundary") }
            part.data = Array(body[contentStart..<contentEnd])
            parts.append(part)
            position = contentEnd + separator.count
        }
        self.parts = parts
    }

    /// Whether `bytes` holds `prefix` at `offset`.
    private static func starts(_ bytes: [UInt8], with prefix: [UInt8], at offset: Int) -> Bool {
        offset >= 0 && offset + prefix.count <= bytes.count && bytes[offset..<(offset + prefix.count)].elementsEqual(prefix)
    }

    /// The first offset at or after `start` where `needle` stands in `bytes`.
    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, needle.count <= bytes.count else { return nil }
        var index = Swift.max(start, 0)
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == first, starts(bytes, with: needle, at: index) { return index }
            index += 1
        }
        return nil
    }

    /// The text fields (parts without a file name), as (name, value).
    var fields: [(name: String, value: String)] {
        parts.compactMap { part in
            guard part.filename == nil, let name = part.name else { return nil }
            return (name, String(decoding: part.data, as: UTF8.self))
        }
    }

    /// The first part named `name`.
    func part(named name: String) -> Part? { parts.first { $0.name == name } }

    /// The value of parameter `name` in a header value such as
    /// `form-data; name="attachment"; filename="a.jpg"` (quoted or not).
    static func parameter(_ name: String, of header: String) -> String? {
        for item in header.split(separator: ";").dropFirst() {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingWhitespace().lowercased() == name else { continue }
            var value = String(pair[1].trimmingWhitespace())
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }
}

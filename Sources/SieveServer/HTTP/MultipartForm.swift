import MultipartKit
import NIOCore

/// A `multipart/form-data` body (RFC 7578), read with MultipartKit's parser: its parts, each
/// with its field name, file name and media type when given, and its bytes.
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

    /// Reads `body` sent with the `Content-Type` `contentType`.
    /// - Throws: ``ServerRequestError`` (bad request) for a type without a boundary or a body
    ///   that is not well-formed multipart.
    init(body: [UInt8], contentType: String) throws(ServerRequestError) {
        guard let boundary = Self.parameter("boundary", of: contentType), !boundary.isEmpty, boundary.utf8.count <= 200 else {
            throw ServerRequestError(.badRequest, "a multipart/form-data body needs a boundary parameter (1 to 200 characters)")
        }
        let parser = MultipartParser(boundary: boundary)
        var parts: [Part] = []
        var current = Part(data: [])
        parser.onHeader = { name, value in
            switch name.lowercased() {
            case "content-disposition":
                current.name = Self.parameter("name", of: value)
                current.filename = Self.parameter("filename", of: value)
            case "content-type":
                current.contentType = value
            default:
                break
            }
        }
        parser.onBody = { buffer in current.data += buffer.readBytes(length: buffer.readableBytes) ?? [] }
        parser.onPartComplete = {
            parts.append(current)
            current = Part(data: [])
        }
        do {
            // The parser looks for CRLF before each boundary, the first one included.
            try parser.execute([UInt8(ascii: "\r"), UInt8(ascii: "\n")] + body)
        } catch {
            throw ServerRequestError(.badRequest, "the multipart/form-data body is malformed")
        }
        self.parts = parts
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
            guard pair.count == 2, pair[0].trimmingSpaces().lowercased() == name else { continue }
            var value = String(pair[1].trimmingSpaces())
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }
}

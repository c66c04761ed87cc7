import HTTPTypes
import Hummingbird
import NIOCore
import SieveFormats

/// What browsers and HTTP caches expect of a successful GET (or HEAD) answer: an entity tag,
/// revalidation (`If-None-Match` → 304 Not Modified before any work), and gzip or deflate
/// compression when the client accepts it.
///
/// - **Entity tags** are weak (`W/"…"`): a hash of the server's instance (a random number drawn
///   at start, so that a restarted server never repeats a tag), the version of every served
///   table (``/SieveEditing/EditableFeatureTable/version``, which edits advance), and the
///   request as far as it shapes the answer — its target (path and query), `Host` (OGC
///   documents hold absolute links) and `Accept` (OGC content negotiation). Two answers with
///   one tag hold the same data; they may differ in what is not data (an OGC page's
///   `timeStamp`), which weak tags allow. The tag is known before the answer is computed, so a
///   matching `If-None-Match` is answered 304 without running the query.
/// - **`Cache-Control: no-cache`**: a cache may keep the answer but asks again (cheaply,
///   with the tag) before using it, since edits can change the data at any time.
/// - **Compression**: an answer of at least ``minimumCompressedSize`` bytes is sent gzip (or
///   deflate, the zlib format) when `Accept-Encoding` allows it, at zlib level 1 — the fastest,
///   which keeps most of the gain on JSON; smaller answers are sent as they are, since a
///   packet's worth of bytes gains nothing. Answers that already have a `Content-Encoding`
///   (gzipped vector tiles) are never compressed again. Every compressible answer says
///   `Vary: Accept-Encoding`.
///
/// Errors (ArcGIS's HTTP 200 error documents included) get none of this.
enum ResponseEncoding {
    /// The smallest body compressed: 1,400 bytes, about one TCP segment.
    static let minimumCompressedSize = 1_400

    /// The entity tag of the answer to `request` while the tables are at their current
    /// versions, or `nil` for a method other than GET and HEAD, and when a table is served from a
    /// source whose data may change without this server knowing (a database): no answer then
    /// carries a tag a later request could be wrongly told is still current.
    static func entityTag(for request: Request, server: GeoSieveServer) -> String? {
        guard request.method == .get || request.method == .head else { return nil }
        var hash = FNV1a()
        hash.add(server.instance)
        for served in server.catalog.tables {
            hash.add(served.id)
            hash.add(served.instance)
            guard let version = served.version else { return nil }
            hash.add(version)
        }
        hash.add(request.uri.string)
        hash.add(request.head.authority ?? "")
        hash.add(request.headers[.accept] ?? "")
        return "W/\"" + String(hash.value, radix: 16) + "\""
    }

    /// Whether `If-None-Match` names `tag` (weak comparison, RFC 9110 §13.1.2), or is `*`.
    static func notModified(_ request: Request, tag: String) -> Bool {
        guard let header = request.headers[.ifNoneMatch] else { return false }
        let opaque = tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
        for candidate in header.split(separator: ",") {
            let trimmed = candidate.trimmingSpaces
            if trimmed == "*" { return true }
            let candidateOpaque = trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed
            if candidateOpaque == opaque { return true }
        }
        return false
    }

    /// The 304 answer for `tag`.
    /// The answer `body` makes for `request`, as every GET route gives it: tagged from the
    /// tables' versions before any work (so that `If-None-Match` with the tag is 304 without
    /// it), counted by the metrics, compressed as ``finish(_:request:tag:compression:)`` says.
    static func answer(
        _ request: Request, server: GeoSieveServer, _ body: () async throws -> ServiceResponse
    ) async throws -> Response {
        let tag = entityTag(for: request, server: server)
        if let tag, notModified(request, tag: tag) { return notModifiedResponse(tag: tag) }
        let response = try await body()
        server.metrics?.served(response)
        return finish(response, request: request, tag: tag, compression: server.configuration.compression)
    }

    static func notModifiedResponse(tag: String) -> Response {
        var fields = HTTPFields()
        fields[.eTag] = tag
        fields[.cacheControl] = "no-cache"
        fields[.vary] = "Accept-Encoding"
        return Response(status: .notModified, headers: fields)
    }

    /// `response` with its tag, cache and encoding headers, compressed when `compression` is on,
    /// `request` accepts it and the body is large enough.
    static func finish(_ response: ServiceResponse, request: Request, tag: String?, compression: Bool) -> Response {
        var response = response
        guard response.status == 200, let tag else { return response.response }
        response.headers.append((name: "ETag", value: tag))
        response.headers.append((name: "Cache-Control", value: "no-cache"))
        let encoded = response.headers.contains { $0.name.lowercased() == "content-encoding" }
        guard !encoded else { return response.response }
        response.headers.append((name: "Vary", value: "Accept-Encoding"))
        guard compression, response.body.count >= minimumCompressedSize, let coding = coding(accepted: request.headers[.acceptEncoding]) else {
            return response.response
        }
        if let compressed = Deflate.compress(response.body, windowBits: coding == "gzip" ? 31 : 15, level: 1) {
            response.body = compressed
            response.headers.append((name: "Content-Encoding", value: coding))
        }
        return response.response
    }

    /// The content coding to use for an `Accept-Encoding` header: `gzip` when it allows gzip
    /// (by name or `*`, with a q-value above 0), else `deflate` when it allows that; `nil`
    /// for neither.
    static func coding(accepted header: String?) -> String? {
        guard let header else { return nil }
        var quality: [String: Double] = [:]
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let name = parts.first?.trimmingSpaces.lowercased(), !name.isEmpty else { continue }
            var q = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.trimmingSpaces
                if pair.lowercased().hasPrefix("q="), let value = Double(pair.dropFirst(2)) { q = value }
            }
            quality[name] = q
        }
        func allows(_ coding: String) -> Bool {
            if let q = quality[coding] { return q > 0 }
            return (quality["*"] ?? 0) > 0
        }
        if allows("gzip") { return "gzip" }
        if allows("deflate") { return "deflate" }
        return nil
    }
}

/// 64-bit FNV-1a, for entity tags (not a cryptographic hash: tags only need to differ when the
/// data or the request does).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        // A separator, so that ("ab", "c") and ("a", "bc") hash differently.
        value ^= 0xff
        value = value &* 0x0000_0100_0000_01b3
    }

    mutating func add(_ text: String) { add(text.utf8) }

    mutating func add(_ number: UInt64) {
        withUnsafeBytes(of: number.littleEndian) { add($0) }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}

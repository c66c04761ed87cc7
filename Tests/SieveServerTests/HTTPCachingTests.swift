import HTTPTypes
import SieveEditing
import SieveFeatures
@testable import SieveServer
import SieveTestSupport
import Testing

@testable import SieveFormats

/// Entity tags, 304 Not Modified and gzip/deflate answers (``ResponseEncoding``).
@Suite(.tags(.network)) struct HTTPCachingTests {
    static let query = "/arcgis/rest/services/countries/FeatureServer/0/query?where=1%3D1&outFields=*&f=json"

    static func headers(_ pairs: [(HTTPField.Name, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields[name] = value }
        return fields
    }

    @Test func answersCarryATagThatRevalidatesTo304() async throws {
        try await TestServer.withClient(try TestServer.make()) { client in
            let first = try await client.get(Self.query)
            let tag = try #require(first.headers[.eTag])
            #expect(tag.hasPrefix("W/\"") && tag.hasSuffix("\""))
            #expect(first.headers[.cacheControl] == "no-cache")
            #expect(try await client.get(Self.query).headers[.eTag] == tag)
            #expect(try await client.send(Self.query, method: .head).headers[.eTag] == tag)
            // Another request, another tag; OGC routes too.
            #expect(try await client.get(Self.query + "&resultRecordCount=2").headers[.eTag] != tag)
            #expect(try await client.get("/ogc/collections/countries/items?limit=2").headers[.eTag] != nil)

            for header in [tag, "\"other\", \(tag)", "*", tag.replacingOccurrences(of: "W/", with: "")] {
                let reply = try await client.get(Self.query, headers: Self.headers([(.ifNoneMatch, header)]))
                #expect(reply.status == 304, "If-None-Match: \(header)")
                #expect(reply.bytes.isEmpty)
                #expect(reply.headers[.eTag] == tag)
            }
            #expect(try await client.get(Self.query, headers: Self.headers([(.ifNoneMatch, "W/\"0\"")])).status == 200)
        }
    }

    @Test func errorsAndPostsCarryNoTag() async throws {
        try await TestServer.withClient(try TestServer.make()) { client in
            let error = try await client.get("/arcgis/rest/services/countries/FeatureServer/0/query?where=nonsense%20%3D&f=json")
            #expect(error.arcGISErrorCode == 400)
            #expect(error.headers[.eTag] == nil)
            let missing = try await client.get("/ogc/collections/nowhere/items")
            #expect(missing.status == 404)
            #expect(missing.headers[.eTag] == nil)
            let post = try await client.post("/arcgis/rest/services/countries/FeatureServer/0/query", form: "where=1%3D1&f=json")
            #expect(post.status == 200)
            #expect(post.headers[.eTag] == nil)
        }
    }

    @Test func editsChangeTheTag() async throws {
        let (table, server) = try TestServer.editablePoint("places")
        #expect(table.version == 0)
        try await TestServer.withClient(server) { client in
            let uri = "/arcgis/rest/services/places/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json"
            let before = try #require(try await client.get(uri).headers[.eTag])
            let adds = encoded(#"[{"attributes":{"name":"b"},"geometry":{"x":2,"y":2}}]"#)
            let added = try await client.post("/arcgis/rest/services/places/FeatureServer/0/addFeatures", form: "features=\(adds)&f=json")
            #expect(added.text.contains("\"success\":true"))
            #expect(table.version == 1)
            let after = try await client.get(uri, headers: Self.headers([(.ifNoneMatch, before)]))
            #expect(after.status == 200)
            #expect(after.object["count"] as? Int == 2)
            #expect(after.headers[.eTag] != before)
        }
    }

    @Test func largeAnswersAreCompressedWhenAccepted() async throws {
        try await TestServer.withClient(try TestServer.make()) { client in
            let plain = try await client.get(Self.query)
            #expect(plain.headers[.contentEncoding] == nil)
            #expect(plain.headers[.vary] == "Accept-Encoding")
            for (accept, coding, magic) in [("gzip, deflate, br", "gzip", [UInt8]([0x1F, 0x8B])), ("gzip;q=0, deflate", "deflate", [0x78])] {
                let reply = try await client.get(Self.query, headers: Self.headers([(.acceptEncoding, accept)]))
                #expect(reply.headers[.contentEncoding] == coding, "\(accept)")
                #expect(Array(reply.bytes.prefix(magic.count)) == magic)
                #expect(reply.bytes.count < plain.bytes.count / 2)
                let inflated = try reply.bytes.withUnsafeBytes {
                    try ParquetCompression.decompress($0, codec: 2, expected: plain.bytes.count)
                }
                #expect(inflated == plain.bytes)
                #expect(reply.headers[.eTag] == plain.headers[.eTag])
            }
            for accept in ["identity", "br", "gzip;q=0", "*;q=0"] {
                #expect(try await client.get(Self.query, headers: Self.headers([(.acceptEncoding, accept)])).headers[.contentEncoding] == nil)
            }
            #expect(
                try await client.get(Self.query, headers: Self.headers([(.acceptEncoding, "*")])).headers[.contentEncoding] == "gzip")
            // A small answer goes as it is.
            let count = try await client.get(
                "/arcgis/rest/services/countries/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json",
                headers: Self.headers([(.acceptEncoding, "gzip")]))
            #expect(count.headers[.contentEncoding] == nil)
            #expect(count.text == #"{"count":177}"#)
        }
    }

    @Test func compressionCanBeTurnedOff() async throws {
        try await TestServer.withClient(try TestServer.make(ServerConfiguration(compression: false))) { client in
            let reply = try await client.get(Self.query, headers: Self.headers([(.acceptEncoding, "gzip")]))
            #expect(reply.headers[.contentEncoding] == nil)
            #expect(reply.headers[.eTag] != nil)
            #expect(reply.object["features"] != nil)
        }
    }

    @Test func acceptEncodingIsReadWithItsQValues() {
        #expect(ResponseEncoding.coding(accepted: "gzip") == "gzip")
        #expect(ResponseEncoding.coding(accepted: "GZIP;q=0.5") == "gzip")
        #expect(ResponseEncoding.coding(accepted: "deflate") == "deflate")
        #expect(ResponseEncoding.coding(accepted: "gzip;q=0,*;q=1") == "deflate")
        #expect(ResponseEncoding.coding(accepted: "compress, br") == nil)
        #expect(ResponseEncoding.coding(accepted: nil) == nil)
    }
}

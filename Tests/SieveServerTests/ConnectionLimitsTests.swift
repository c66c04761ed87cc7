import Foundation
import Testing
@testable import SieveServer
import SieveTestSupport

/// What HTTP promises at the connection level, over real loopback sockets: heads read within
/// the header timeout, idle connections closed, a bound on open connections, `Host` required
/// once, bodies declared over the limit refused from the head, refusals closing the connection.
/// Every read has a deadline, so a regression fails instead of hanging.
@Suite(.tags(.network), .serialized) struct ConnectionLimitsTests {
    /// A server of the fixtures on a free loopback port, with 1 s timeouts unless told.
    static func server(
        headerReadTimeout: Double = 1, idleTimeout: Double = 1, maxConnections: Int = 512, maxBodyBytes: Int = 1024,
        maxURLBytes: Int = 2048
    ) throws -> GeoSieveServer {
        try TestServer.make(
            ServerConfiguration(
                port: 0, maxBodyBytes: maxBodyBytes, maxURLBytes: maxURLBytes, headerReadTimeout: headerReadTimeout, idleTimeout: idleTimeout,
                maxConnections: maxConnections))
    }

    static let query = "/arcgis/rest/services/cities/FeatureServer/0/query"

    /// A whole GET of `target`, keeping the connection alive.
    static func get(_ target: String = "/ogc/conformance", headers: String = "Host: x\r\n") -> String {
        "GET \(target) HTTP/1.1\r\n\(headers)\r\n"
    }

    @Test func limitsHaveDefaultsAndAreChecked() throws {
        let defaults = ServerConfiguration()
        #expect(defaults.headerReadTimeout == 20)
        #expect(defaults.idleTimeout == 75)
        #expect(defaults.maxConnections == 512)
        for configuration in [
            ServerConfiguration(headerReadTimeout: 0), ServerConfiguration(headerReadTimeout: .nan), ServerConfiguration(idleTimeout: -1),
            ServerConfiguration(idleTimeout: .infinity), ServerConfiguration(maxConnections: 0),
        ] {
            #expect(throws: ServerRequestError.self) { try configuration.validate() }
        }
        #expect(ConnectionLimits(ServerConfiguration(headerReadTimeout: 0.25)).headerReadTimeout == .milliseconds(250))
    }

    @Test func slowHeadsAreCutOffAtTheHeaderTimeout() async throws {
        let server = try Self.server(headerReadTimeout: 1, idleTimeout: 30)
        try await withLiveServer(server) { port in
            // One byte of the head every 100 ms: answered 408 and closed after about a second.
            let slow = try await offThePool { () throws -> (status: Int?, closed: Bool, seconds: Double) in
                let connection = try RawConnection(port: port)
                let started = Date()
                let head = Array("GET /ogc HTTP/1.1\r\nHost: x\r\nX-Slow: \(String(repeating: "a", count: 100))".utf8)
                var received: [UInt8] = []
                for byte in head {
                    connection.send([byte])
                    let (bytes, closed) = connection.read(timeout: 0.1)
                    received += bytes
                    if closed { return (RawResponse(bytes: received)?.status, true, -started.timeIntervalSinceNow) }
                }
                return (RawResponse(bytes: received)?.status, false, -started.timeIntervalSinceNow)
            }
            #expect(slow.closed)
            #expect(slow.status == 408)
            #expect(slow.seconds >= 0.8 && slow.seconds < 4, "closed after \(slow.seconds) s")
            // A connection that sends nothing is closed too, without an answer.
            let silent = try await offThePool { () throws -> (bytes: Int, closed: Bool, seconds: Double) in
                let connection = try RawConnection(port: port)
                let started = Date()
                let (bytes, closed) = connection.read(timeout: 5)
                return (bytes.count, closed, -started.timeIntervalSinceNow)
            }
            #expect(silent.closed && silent.bytes == 0)
            #expect(silent.seconds >= 0.8 && silent.seconds < 4, "closed after \(silent.seconds) s")
        }
    }

    @Test func idleKeepAliveConnectionsAreClosedAfterTheIdleTimeout() async throws {
        let server = try Self.server(headerReadTimeout: 10, idleTimeout: 1)
        try await withLiveServer(server) { port in
            let result = try await offThePool { () throws -> (first: Int?, second: Int?, closed: Bool, idle: Double) in
                let connection = try RawConnection(port: port)
                connection.send(Self.get())
                let first = connection.response(timeout: 5).response
                // Within the timeout the connection serves another request …
                Thread.sleep(forTimeInterval: 0.5)
                connection.send(Self.get())
                let second = connection.response(timeout: 5).response
                // … then, idle, it is closed.
                let answered = Date()
                let closed = connection.waitForClose(timeout: 5)
                return (first?.status, second?.status, closed, -answered.timeIntervalSinceNow)
            }
            #expect(result.first == 200)
            #expect(result.second == 200)
            #expect(result.closed)
            #expect(result.idle >= 0.8 && result.idle < 4, "closed after \(result.idle) s idle")
        }
    }

    @Test func bodiesDeclaredOverTheLimitAreRefusedFromTheHead() async throws {
        let server = try Self.server(headerReadTimeout: 10, idleTimeout: 10, maxBodyBytes: 1024)
        try await withLiveServer(server) { port in
            for length in ["9223372036854775807", "2048", "99999999999999999999"] {
                let result = try await offThePool { () throws -> (response: RawResponse?, closed: Bool, seconds: Double) in
                    let connection = try RawConnection(port: port)
                    let started = Date()
                    connection.send(
                        "POST \(Self.query) HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                            + "Content-Length: \(length)\r\n\r\nwhere=1")
                    let (response, closed) = connection.response(timeout: 5, closeWithin: 5)
                    return (response, closed, -started.timeIntervalSinceNow)
                }
                // Past what a 64-bit length holds, the parser refuses the header itself (400).
                let expected = length.count > 19 ? [400, 413] : [413]
                #expect(expected.contains(result.response?.status ?? 0), "Content-Length \(length)")
                #expect(result.response?.closes == true)
                #expect(result.closed, "Content-Length \(length)")
                #expect(result.seconds < 1, "Content-Length \(length): \(result.seconds) s")
                if length.count <= 19 {
                    #expect((result.response?.object["error"] as? [String: Any])?["code"] as? Int == 413)
                }
            }
            // A chunked body over the limit: refused by the router once read past the limit, and
            // the connection closed.
            let chunked = try await offThePool { () throws -> (response: RawResponse?, closed: Bool) in
                let connection = try RawConnection(port: port)
                let chunk = String(repeating: "1", count: 1500)
                connection.send(
                    "POST \(Self.query) HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n\(String(chunk.utf8.count, radix: 16))\r\nwhere=\(chunk)\r\n")
                return connection.response(timeout: 5, closeWithin: 5)
            }
            #expect(chunked.response?.status == 413)
            #expect(chunked.response?.closes == true)
            #expect(chunked.closed)
            // A body within the limit is read and answered, the connection kept.
            let small = try await offThePool { () throws -> (response: RawResponse?, closed: Bool) in
                let connection = try RawConnection(port: port)
                let form = "where=1%3D1&returnCountOnly=true&f=json"
                connection.send(
                    "POST \(Self.query) HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                        + "Content-Length: \(form.utf8.count)\r\n\r\n\(form)")
                return connection.response(timeout: 5, closeWithin: 0.3)
            }
            #expect(small.response?.status == 200)
            #expect(small.response?.object["count"] as? Int == 243)
            #expect(!small.closed)
        }
    }

    @Test func oversizedRequestLinesAndHeadersCloseTheConnection() async throws {
        let server = try Self.server(headerReadTimeout: 10, idleTimeout: 10, maxURLBytes: 2048)
        try await withLiveServer(server) { port in
            let huge = String(repeating: "a", count: 1 << 20)
            let cases: [(String, String, Int)] = [
                ("a URL of 1 MiB", Self.get("/ogc?x=\(huge)"), 414),
                ("a header of 1 MiB", Self.get("/ogc", headers: "Host: x\r\nX-Big: \(huge)\r\n"), 431),
                ("a URL over the configured limit", Self.get("/ogc?x=\(String(repeating: "a", count: 3000))"), 414),
                ("a malformed request line", "GET /o gc HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ]
            for (name, request, status) in cases {
                let result = try await offThePool { () throws -> (response: RawResponse?, closed: Bool) in
                    let connection = try RawConnection(port: port)
                    connection.send(request)
                    return connection.response(timeout: 5, closeWithin: 5)
                }
                #expect(result.response?.status == status, "\(name)")
                #expect(result.response?.closes == true, "\(name)")
                #expect(result.closed, "\(name): the connection stays open")
            }
        }
    }

    @Test func hostIsRequiredOnceInHTTP11() async throws {
        let server = try Self.server(headerReadTimeout: 10, idleTimeout: 10)
        try await withLiveServer(server) { port in
            let cases: [(String, String, Int, Bool)] = [
                ("HTTP/1.1 without Host", "GET /ogc HTTP/1.1\r\n\r\n", 400, true),
                ("HTTP/1.1 with two Host headers", Self.get("/ogc", headers: "Host: x\r\nHost: y\r\n"), 400, true),
                ("ArcGIS, without Host", "GET /arcgis/rest/services HTTP/1.1\r\nAccept: */*\r\n\r\n", 400, true),
                ("HTTP/1.0 with two Host headers", "GET /ogc HTTP/1.0\r\nHost: x\r\nHost: y\r\n\r\n", 400, true),
                ("HTTP/1.1 with one Host header", Self.get("/ogc"), 200, false),
                ("HTTP/1.0 without Host", "GET /ogc HTTP/1.0\r\n\r\n", 200, true),
            ]
            for (name, request, status, closes) in cases {
                let result = try await offThePool { () throws -> (response: RawResponse?, closed: Bool) in
                    let connection = try RawConnection(port: port)
                    connection.send(request)
                    return connection.response(timeout: 5, closeWithin: closes ? 5 : 0.3)
                }
                #expect(result.response?.status == status, "\(name)")
                #expect(result.closed == closes, "\(name)")
                if status == 400 {
                    let message = result.response.map { $0.object["description"] as? String ?? ($0.object["error"] as? [String: Any])?["message"] as? String ?? "" }
                    #expect(message?.contains("Host") == true, "\(name): \(result.response?.body ?? "")")
                }
            }
            // A bad request after a good one on the same connection: the first answered, then
            // the refusal, then the close.
            let pipelined = try await offThePool { () throws -> (statuses: [Int], closed: Bool) in
                let connection = try RawConnection(port: port)
                connection.send(Self.get("/ogc") + "GET /ogc HTTP/1.1\r\n\r\n")
                let (bytes, closed) = connection.read(timeout: 5)
                var statuses: [Int] = []
                var rest = bytes[...]
                while let response = RawResponse(bytes: Array(rest)) {
                    statuses.append(response.status)
                    guard let start = String(decoding: rest.dropFirst(), as: UTF8.self).range(of: "HTTP/1.1 ") else { break }
                    rest = rest.dropFirst(1 + String(decoding: rest.dropFirst(), as: UTF8.self)[..<start.lowerBound].utf8.count)
                }
                return (statuses, closed)
            }
            #expect(pipelined.statuses == [200, 400])
            #expect(pipelined.closed)
            // `Connection: close`: answered, then closed.
            let closing = try await offThePool { () throws -> (response: RawResponse?, closed: Bool) in
                let connection = try RawConnection(port: port)
                connection.send(Self.get("/ogc", headers: "Host: x\r\nConnection: close\r\n"))
                return connection.response(timeout: 5, closeWithin: 5)
            }
            #expect(closing.response?.status == 200)
            #expect(closing.closed)
        }
    }

    @Test func openConnectionsAreBoundedIdleOnesMakingRoom() async throws {
        let server = try Self.server(headerReadTimeout: 30, idleTimeout: 30, maxConnections: 4)
        try await withLiveServer(server) { port in
            let result = try await offThePool { () throws -> (status: Int?, seconds: Double, open: Int) in
                // Eight connections stalled in their heads, twice the bound.
                var stalled: [RawConnection] = []
                for _ in 0..<8 {
                    let connection = try RawConnection(port: port)
                    connection.send("GET /ogc HTTP/1.1\r\nHost: x\r\nX-A: ")
                    stalled.append(connection)
                    Thread.sleep(forTimeInterval: 0.02)
                }
                // A normal request is still answered at once.
                let started = Date()
                let connection = try RawConnection(port: port)
                connection.send(Self.get())
                let status = connection.response(timeout: 5).response?.status
                let seconds = -started.timeIntervalSinceNow
                // The oldest stalled connections were closed to make room: at most three left
                // with the one answered.
                let open = stalled.filter { !$0.waitForClose(timeout: 0.2) }.count
                return (status, seconds, open)
            }
            #expect(result.status == 200)
            #expect(result.seconds < 1, "answered after \(result.seconds) s")
            #expect(result.open <= 3, "\(result.open) stalled connections still open")
        }
    }

    @Test func aNewConnectionIsRefusedWhenEveryOneIsBusy() async throws {
        let server = try Self.server(headerReadTimeout: 30, idleTimeout: 30, maxConnections: 2)
        try await withLiveServer(server) { port in
            let result = try await offThePool { () throws -> (response: RawResponse?, closed: Bool, later: Int?) in
                // Two requests whose bodies are still coming: both connections busy.
                var busy: [RawConnection] = []
                for _ in 0..<2 {
                    let connection = try RawConnection(port: port)
                    connection.send(
                        "POST \(Self.query) HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                            + "Content-Length: 100\r\n\r\nwhere=")
                    busy.append(connection)
                }
                Thread.sleep(forTimeInterval: 0.2)
                let refused = try RawConnection(port: port)
                let (response, closed) = refused.response(timeout: 5, closeWithin: 5)
                // Once a busy connection ends, there is room again.
                busy[0].close()
                Thread.sleep(forTimeInterval: 0.2)
                let later = try RawConnection(port: port)
                later.send(Self.get())
                return (response, closed, later.response(timeout: 5).response?.status)
            }
            #expect(result.response?.status == 503)
            #expect(result.response?.headers["retry-after"] == "1")
            #expect(result.closed)
            #expect(result.later == 200)
        }
    }
}

/// `datetime` of OGC API – Features items: an RFC 3339 instant or interval; anything else is a
/// 400 naming the parameter, with or without a temporal property.
@Suite(.tags(.network)) struct DatetimeParameterTests {
    @Test func invalidValuesAre400EvenWithoutATemporalProperty() async throws {
        let server = try TestServer.make(extra: [TestServer.table("events", geoJSON: OGCServerTests.events)])
        try await TestServer.withClient(server) { client async throws in
            let invalid = [
                "garbage", "2020-13-45", "/", "../..", "..", "", "2020-02-30", "2020-01-01T10:00Z", "2020-01-01T25:00:00Z",
                "2020-01-01T00:00:00", "2020-01-01T00:00:00+2", "2020-01-01/2020-01-02/2020-01-03", "2020", "2020-01-01/garbage", " / ",
            ]
            for collection in ["cities", "events"] {
                for value in invalid {
                    let reply = try await client.get("/ogc/collections/\(collection)/items?datetime=\(encoded(value))")
                    #expect(reply.status == 400, "\(collection) datetime=\(value): \(reply.text.prefix(200))")
                    #expect(reply.object["code"] as? String == "InvalidParameterValue", "\(value)")
                    let description = reply.object["description"] as? String ?? ""
                    #expect(description.contains("datetime") && description.contains("\"\(value)\""), "\(description)")
                }
            }
        }
    }

    @Test func validValuesFilterOrAreIgnoredWithoutATemporalProperty() async throws {
        let server = try TestServer.make(extra: [TestServer.table("events", geoJSON: OGCServerTests.events)])
        try await TestServer.withClient(server) { client async throws in
            // No temporal property: every feature.
            for value in [
                "2020-01-01", "2020-01-01T00:00:00Z", "2020-01-01t00:00:00.5z", "2020-01-01T00:00:00.123+02:00", "../2020-01-01",
                "2020-01-01/", "/2020-01-01T00:00:00Z", "2019-01-01/2020-01-01",
            ] {
                let reply = try await client.get("/ogc/collections/cities/items?limit=1&datetime=\(encoded(value))")
                #expect(reply.status == 200, "\(value): \(reply.text.prefix(200))")
                #expect(reply.object["numberMatched"] as? Int == 243, "\(value)")
            }
            // Offsets are instants in UTC; a `+` sent unencoded reads as a space.
            let base = "/ogc/collections/events/items?limit=100"
            for value in ["2021-01-01T00:00:00Z", "2021-01-01T02:00:00+02:00", "2020-12-31T19:00:00-05:00"] {
                #expect(OGCServerTests.ids(try await client.get("\(base)&datetime=\(encoded(value))")) == [2, 3], "\(value)")
            }
            #expect(OGCServerTests.ids(try await client.get("\(base)&datetime=2021-01-01T02:00:00+02:00")) == [2, 3])
            #expect(OGCServerTests.ids(try await client.get("\(base)&datetime=\(encoded("2020-06-01T00:00:00Z/"))")) == [2, 3, 4])
            #expect(OGCServerTests.ids(try await client.get("\(base)&datetime=\(encoded("/2020-06-01"))")) == [1, 3])
        }
    }
}

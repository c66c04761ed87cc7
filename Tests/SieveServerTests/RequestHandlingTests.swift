import Foundation
import HTTPTypes
import Testing
import SieveFeatures
import SieveEditing
import SieveFormats
@testable import SieveServer
import SieveTestSupport

/// Parameters, tokens, limits and CORS: the parts of request handling shared by both protocols.
@Suite(.tags(.network)) struct RequestHandlingTests {
    @Test func formDecodingFollowsHTMLForms() throws {
        let parameters = try RequestParameters(query: "where=a+%3D+%27x%2By%27&outFields=*&empty=&flag", caseInsensitiveNames: true)
        #expect(parameters["WHERE"] == "a = 'x+y'")
        #expect(parameters["outfields"] == "*")
        #expect(parameters["empty"] == "")
        #expect(parameters.nonEmpty("empty") == nil)
        #expect(parameters["flag"] == "")
        #expect(parameters["missing"] == nil)
        let exact = try RequestParameters(query: "a=1", form: Array("B=%C3%A9".utf8), caseInsensitiveNames: false)
        #expect(exact["B"] == "é")
        #expect(exact["b"] == nil)
        #expect(exact.names == ["a", "B"])
        for bad in ["a=%4", "a=%zz", "a=%", "a=1&A=2", "a=%FF"] {
            #expect(throws: ServerRequestError.self, "\(bad)") { try RequestParameters(query: Substring(bad), caseInsensitiveNames: true) }
        }
        // Exact names: a and A are two parameters.
        #expect(try RequestParameters(query: "a=1&A=2", caseInsensitiveNames: false).names == ["a", "A"])
    }

    /// HEAD (RFC 9110 §9.3.2) on the GET routes of both protocols: the GET's status and
    /// headers, `Content-Length` the GET body's, no body; an unknown route's 404 without its body.
    @Test func headAnswersEveryGetRouteWithoutTheBody() async throws {
        let server = try TestServer.make()
        try await TestServer.withClient(server) { client in
            let paths = [
                "/arcgis/rest/services?f=json", "/arcgis/rest/services/countries/FeatureServer?f=json",
                "/arcgis/rest/services/countries/FeatureServer/0?f=json",
                "/arcgis/rest/services/countries/FeatureServer/0/query?where=pop_est%3E1e8&outFields=name&f=json",
                "/ogc", "/ogc/conformance", "/ogc/collections", "/ogc/collections/countries/items?limit=3",
            ]
            for path in paths {
                let get = try await client.get(path)
                let head = try await client.send(path, method: .head)
                #expect(get.status == 200, "\(path)")
                #expect(head.status == get.status, "\(path)")
                #expect(head.text.isEmpty, "\(path)")
                #expect(head.headers[.contentType] == get.headers[.contentType], "\(path)")
                #expect(head.headers[.contentLength] == String(get.text.utf8.count), "\(path)")
            }
            let missing = try await client.send("/ogc/nowhere", method: .head)
            #expect(missing.status == 404)
            #expect(missing.text.isEmpty)
        }
    }

    @Test func tokensGuardReadsWhenAskedAndCompareExactly() async throws {
        let server = try TestServer.make(ServerConfiguration(token: "s3cret", tokenRequiredForRead: true))
        try await TestServer.withClient(server) { client async throws in
            let layer = "/arcgis/rest/services/cities/FeatureServer/0/query?where=1%3D1&returnCountOnly=true"
            #expect(try await client.get(layer).arcGISErrorCode == 499)
            #expect(try await client.get(layer + "&token=wrong").arcGISErrorCode == 498)
            #expect(try await client.get(layer + "&token=s3cre").arcGISErrorCode == 498)
            #expect(try await client.get(layer + "&token=s3cret").object["count"] as? Int == 243)
            #expect(try await client.get(layer, headers: [.authorization: "Bearer s3cret"]).object["count"] as? Int == 243)
            #expect(try await client.get(layer, headers: [.authorization: "Bearer nope"]).arcGISErrorCode == 498)
            #expect(try await client.get("/ogc/collections").status == 401)
            #expect(try await client.get("/ogc/collections?token=s3cret").status == 200)
            #expect(try await client.get("/ogc/collections", headers: [.authorization: "Bearer s3cret"]).status == 200)
        }
        // Without tokenRequiredForRead, reads are open.
        let open = try TestServer.make(ServerConfiguration(token: "s3cret"))
        try await TestServer.withClient(open) { client async throws in
            #expect(try await client.get("/ogc/collections").status == 200)
        }
        #expect(GeoSieveServer.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!GeoSieveServer.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!GeoSieveServer.constantTimeEqual(Array("abc".utf8), Array("abcd".utf8)))
        #expect(!GeoSieveServer.constantTimeEqual([], Array("a".utf8)))
    }

    @Test func oversizedURLsAndBodiesAreRefusedWithTheirStatus() async throws {
        let server = try TestServer.make(ServerConfiguration(maxBodyBytes: 1024, maxURLBytes: 2048))
        try await TestServer.withClient(server) { client async throws in
            let long = String(repeating: "a", count: 3000)
            let url = try await client.get("/arcgis/rest/services/cities/FeatureServer/0/query?where=\(long)")
            #expect(url.status == 414)
            #expect(url.arcGISErrorCode == 414)
            let ogc = try await client.get("/ogc/collections?x=\(long)")
            #expect(ogc.status == 414)
            #expect(ogc.object["code"] as? String == "URITooLong")
            let body = try await client.post("/arcgis/rest/services/cities/FeatureServer/0/query", form: "where=" + String(repeating: "1", count: 2000))
            #expect(body.status == 413)
            let json = try await client.send(
                "/arcgis/rest/services/cities/FeatureServer/0/query", method: .post, headers: [.contentType: "application/json"], body: "{}")
            #expect(json.arcGISErrorCode == 400)
            // A method a route does not take is 405 with the methods it does; an unknown path 404.
            let put = try await client.send("/ogc/collections", method: .put)
            #expect(put.status == 405)
            #expect(put.headers[.allow] == "GET, HEAD")
            #expect(put.object["code"] as? String == "MethodNotAllowed")
            let trace = try await client.send("/ogc/collections/cities/items/7", method: .trace)
            #expect(trace.status == 405)
            #expect(trace.headers[.allow] == "GET, HEAD")
            let query = try await client.send("/arcgis/rest/services/cities/FeatureServer/0/query", method: .delete)
            #expect(query.status == 405)
            #expect(query.headers[.allow] == "GET, HEAD, POST")
            #expect(query.arcGISErrorCode == 405)
            #expect(try await client.send("/ogc/nosuch", method: .put).status == 404)
        }
    }

    @Test func longListsAreRefusedNotWorkedThrough() async throws {
        let server = try TestServer.make()
        try await TestServer.withClient(server) { client async throws in
            let layer = "/arcgis/rest/services/cities/FeatureServer/0/query"
            let order = encoded(Array(repeating: "name DESC", count: 101).joined(separator: ","))
            let sorted = try await client.post(layer, form: "where=1%3D1&orderByFields=\(order)")
            #expect(sorted.arcGISErrorCode == 400)
            #expect(sorted.text.contains("at most 100"))
            #expect(try await client.post(layer, form: "orderByFields=\(encoded(Array(repeating: "name", count: 100).joined(separator: ",")))").arcGISErrorCode == nil)
            let statistic = #"{"statisticType":"count","onStatisticField":"fid"}"#
            let statistics = encoded("[" + Array(repeating: statistic, count: 101).joined(separator: ",") + "]")
            #expect(try await client.post(layer, form: "outStatistics=\(statistics)").text.contains("at most 100"))
            let fields = encoded(Array(repeating: "name", count: 2001).joined(separator: ","))
            #expect(try await client.post(layer, form: "outFields=\(fields)").arcGISErrorCode == 400)
            let many = (0..<1001).map { "p\($0)=1" }.joined(separator: "&")
            let crowded = try await client.post(layer, form: many)
            #expect(crowded.text.contains("more than 1000 parameters"))
        }
    }

    @Test func admissionShedsLoadAboveTheLimit() {
        let admission = Admission(limit: 2)
        #expect(admission.enter())
        #expect(admission.enter())
        #expect(!admission.enter())
        admission.leave()
        #expect(admission.enter())
        admission.leave()
        admission.leave()
        #expect(admission.enter())
    }

    @Test func slowQueriesAreAnswered503WhileTheirWorkKeepsItsPlace() async throws {
        let server = try TestServer.make(ServerConfiguration(maxConcurrentRequests: 3, queryTimeout: 0.05))
        // Work that runs until the test lets it end.
        let release = DispatchSemaphore(value: 0)
        do {
            _ = try await server.timed { () -> Int in
                release.wait()
                return 1
            }
            Issue.record("the slow work was not cut off")
        } catch let error as ServerRequestError {
            #expect(error.kind == .serviceUnavailable)
            #expect(error.headers.first?.name == "Retry-After")
        }
        // The abandoned work still holds one of the three places.
        #expect(server.admission.enter())
        #expect(server.admission.enter())
        #expect(!server.admission.enter())
        server.admission.leave()
        server.admission.leave()
        release.signal()
        var freed = false
        for _ in 0..<500 where !freed {
            try await Task.sleep(for: .milliseconds(10))
            freed = server.admission.enter()
            if freed {
                #expect(server.admission.enter())
                #expect(server.admission.enter())
                for _ in 0..<3 { server.admission.leave() }
            }
        }
        #expect(freed)
        // Quick work gives its value, and its error.
        #expect(try await server.timed { 7 } == 7)
        await #expect(throws: ServerRequestError.self) { try await server.timed { () -> Int in throw ServerRequestError(.badRequest, "no") } }
    }

    @Test func timedOutWorkIsCancelled() async throws {
        let server = try TestServer.make(ServerConfiguration(queryTimeout: 0.05))
        let stopped = DispatchSemaphore(value: 0)
        await #expect(throws: ServerRequestError.self) {
            try await server.timed { () -> Bool in
                // Engine work sees the request's cancellation and, after the timeout, its request.
                guard let cancellation = QueryCancellation.current else { return false }
                while !cancellation.isCancelled { usleep(1_000) }
                stopped.signal()
                return true
            }
        }
        #expect(stopped.wait(timeout: .now() + 10) == .success)
    }

    @Test func corsHeadersOnlyWhenConfigured() async throws {
        let origin: HTTPFields = [.origin: "https://maps.example.org"]
        let plain = try TestServer.make()
        try await TestServer.withClient(plain) { client async throws in
            #expect(try await client.get("/ogc", headers: origin).headers[.accessControlAllowOrigin] == nil)
        }
        let cors = try TestServer.make(ServerConfiguration(corsOrigin: "https://maps.example.org"))
        try await TestServer.withClient(cors) { client async throws in
            #expect(try await client.get("/ogc", headers: origin).headers[.accessControlAllowOrigin] == "https://maps.example.org")
        }
    }

    @Test func namesAndConfigurationsAreChecked() throws {
        #expect(ServedTable.isValidID("cities_2024.v1-a"))
        for bad in ["", ".", "..", "a/b", "a b", "é", String(repeating: "a", count: 129), "a%2F"] {
            #expect(!ServedTable.isValidID(bad), "\(bad)")
        }
        #expect(ServedTable.sanitizedID("New York boroughs") == "New_York_boroughs")
        #expect(ServedTable.sanitizedID("..") == "table")
        #expect(ServedTable.isValidID(ServedTable.sanitizedID("../../etc/passwd")))
        #expect(throws: ServerRequestError.self) { try TestServer.make(extra: [TestServer.table("cities", geoJSON: OGCServerTests.events)]) }
        #expect(throws: ServerRequestError.self) { try ServedCatalog([]) }
        for configuration in [
            ServerConfiguration(port: 70000), ServerConfiguration(maxRecordCount: 0), ServerConfiguration(tokenRequiredForRead: true),
            ServerConfiguration(token: ""), ServerConfiguration(maxConcurrentRequests: 0),
        ] {
            #expect(throws: ServerRequestError.self) { try configuration.validate() }
        }
    }
}

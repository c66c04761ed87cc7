import Foundation
import Testing
import SieveServer
import SieveTestSupport

/// `GET /`, the map page (its drawing and identify are checked in headless Chromium by
/// `Scripts/test-map-page.sh`).
@Suite(.tags(.network)) struct MapPageTests {
    @Test func theMapPageIsSelfContained() async throws {
        try await TestServer.withClient(try TestServer.make()) { client async throws in
            let reply = try await client.get("/?view=10,30,2&click=2.5,46.5")
            #expect(reply.status == 200)
            #expect(reply.headers[.contentType] == "text/html; charset=utf-8")
            let page = reply.text
            #expect(page.contains("<canvas id=\"map\">"))
            // Drawn from the server's own tiles, identified through its own query route.
            #expect(page.contains("/tiles/WebMercatorQuad/"))
            #expect(page.contains("/FeatureServer/0/query?"))
            // Nothing from another host: no absolute URL at all.
            #expect(!page.contains("http://") && !page.contains("https://") && !page.contains("src="))
            // The OGC landing page links to it.
            #expect(try await client.get("/ogc?f=html").text.contains("<a href=\"/\">"))
        }
    }
}

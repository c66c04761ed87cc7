import Foundation
import SieveTestSupport
import Testing
import SieveServer

/// Seeded mutations of valid requests, in-process: every answer is a protocol answer (never a
/// server error), JSON where it says JSON, and the tables are unchanged. (Scripts/test-clients.sh
/// runs the socket-level fuzzer, Tests/Clients/fuzz_requests.py, against a real server.)
@Suite(.tags(.network)) struct MutatedRequestTests {
    static let corpus = [
        "/arcgis/rest/services/cities/FeatureServer/0/query?where=name%20LIKE%20%27B%25%27&outFields=*&f=json",
        "/arcgis/rest/services/countries/FeatureServer/0/query?where=pop_est%3E1e6&geometry=0,40,20,60&geometryType=esriGeometryEnvelope&inSR=4326&spatialRel=esriSpatialRelIntersects&outFields=name,pop_est&orderByFields=pop_est%20DESC&resultOffset=2&resultRecordCount=5&f=pjson",
        "/arcgis/rest/services/countries/FeatureServer/0/query?where=1%3D1&outStatistics=%5B%7B%22statisticType%22%3A%22avg%22%2C%22onStatisticField%22%3A%22pop_est%22%2C%22outStatisticFieldName%22%3A%22p%22%7D%5D&groupByFieldsForStatistics=continent&havingClause=COUNT(fid)%3E3",
        "/arcgis/rest/services/boroughs/FeatureServer/0/query?objectIds=1,2,3&returnExtentOnly=true&returnCountOnly=true&outSR=3857",
        "/arcgis/rest/services/cities/FeatureServer/0/query?geometry=%7B%22x%22%3A2.35%2C%22y%22%3A48.85%7D&geometryType=esriGeometryPoint&spatialRel=esriSpatialRelRelation&relationParam=T********&returnIdsOnly=true",
        "/arcgis/rest/services/countries/FeatureServer/0/query?where=1%3D1&outFields=continent&returnDistinctValues=true&returnGeometry=false&f=geojson",
        "/arcgis/rest/services/countries/FeatureServer/0?f=json",
        "/ogc/collections/cities/items?bbox=170,-50,-170,50&limit=5&offset=1&sortby=-name&properties=name",
        "/ogc/collections/countries/items?filter=S_INTERSECTS(geometry,BBOX(0,40,20,60))%20AND%20pop_est%3E1e6&filter-lang=cql2-text&crs=http%3A%2F%2Fwww.opengis.net%2Fdef%2Fcrs%2FEPSG%2F0%2F3857",
        "/ogc/collections/countries/items?filter=%7B%22op%22%3A%22%3E%22%2C%22args%22%3A%5B%7B%22property%22%3A%22pop_est%22%7D%2C100%5D%7D&filter-lang=cql2-json&continent=Asia",
        "/ogc/collections/boroughs/items/3?crs=http%3A%2F%2Fwww.opengis.net%2Fdef%2Fcrs%2FEPSG%2F0%2F3857",
        "/ogc/collections/cities/queryables",
    ]

    /// Pieces inserted by the mutations.
    static let pieces = [
        "%", "%0", "%00", "%ZZ", "%FF%FE", "+", "&", "=", "&&==", "'", "''", "\"", "(", ")", "((((", "))))", "%27%27%27", "NULL",
        "1e308", "-0", "NaN", "9223372036854775808", "-9223372036854775809", "..", "%2e%2e%2f", "/", "\\", "%C3%A9", "%F0%9F%8C%8D",
        "%E2%80%AE", "*", ",", ",,,", "[", "]", "{", "}", "%7B%7D", "%5B%5D", "esriSpatialRelNear", "TRUE", "OR", "AND NOT",
    ]

    @Test(arguments: [1, 2, 3] as [UInt64])
    func mutatedRequestsGetProtocolAnswers(seed: UInt64) async throws {
        let server = try TestServer.make()
        try await TestServer.withClient(server) { client async throws in
            var random = SeededGenerator(seed: seed)
            for _ in 0..<500 {
                var request = Array(Self.corpus[random.int(Self.corpus.count)].utf8)
                for _ in 0..<random.int(1...4) {
                    let at = random.int(request.count)
                    switch random.int(5) {
                    case 0: request[at] = UInt8(truncatingIfNeeded: random.int(32...126))
                    case 1: request.insert(contentsOf: Array(Self.pieces[random.int(Self.pieces.count)].utf8), at: at)
                    case 2: if request.count > 2 { request.remove(at: at) }
                    case 3: request.insert(contentsOf: Array(String(repeating: "(", count: random.int(1...3000)).utf8), at: at)
                    default:
                        // Duplicate a parameter's tail.
                        let tail = request[at...]
                        request += Array("&".utf8) + tail.prefix(200)
                    }
                }
                var uri = String(decoding: request, as: UTF8.self)
                if !uri.hasPrefix("/") { uri = "/" + uri }
                let post = random.chance(20)
                let reply: Reply
                if post, let question = uri.firstIndex(of: "?") {
                    reply = try await client.post(String(uri[..<question]), form: String(uri[uri.index(after: question)...]))
                } else {
                    reply = try await client.get(uri)
                }
                #expect(reply.status != 500 && reply.arcGISErrorCode != 500, "\(uri.prefix(300)): \(reply.text.prefix(300))")
                let type = reply.headers[.contentType] ?? ""
                if type.contains("json") {
                    #expect((try? JSONSerialization.jsonObject(with: Data(reply.text.utf8))) != nil, "\(uri.prefix(300)): not JSON")
                }
            }
            // Read-only: every table is as it was.
            for (service, count) in [("cities", 243), ("countries", 177), ("boroughs", 5)] {
                let reply = try await client.get("/arcgis/rest/services/\(service)/FeatureServer/0/query?where=1%3D1&returnCountOnly=true")
                #expect(reply.object["count"] as? Int == count)
            }
        }
    }
}

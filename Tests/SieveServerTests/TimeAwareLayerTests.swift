import Foundation
import Testing
import SieveServer
import SieveTestSupport

/// Time-aware layers (``LayerTime``): `timeInfo`, the ArcGIS `time` parameter and OGC
/// `datetime`, on five features whose expected selections are worked out by hand below.
@Suite(.tags(.network)) struct TimeAwareLayerTests {
    // Midnights UTC of 2020 (computed with Python's datetime, UTC).
    static let jan1: Int64 = 1_577_836_800_000, jan2: Int64 = 1_577_923_200_000, jan3: Int64 = 1_578_009_600_000
    static let jan4: Int64 = 1_578_096_000_000, jan5: Int64 = 1_578_182_400_000, jan6: Int64 = 1_578_268_800_000
    static let jan10: Int64 = 1_578_614_400_000, jan10noon: Int64 = 1_578_657_600_000, feb1: Int64 = 1_580_515_200_000
    static let mar1: Int64 = 1_583_020_800_000, mar2: Int64 = 1_583_107_200_000, mar5: Int64 = 1_583_366_400_000

    /// `when`: an instant per feature; `start`/`end`: an interval (NULL: open).
    ///   1: when Jan 1, Jan 1 – Jan 10;   2: when Jan 5, Jan 5 – open;   3: when Feb 1, open – Jan 3;
    ///   4: no when, Mar 1 – Mar 5;       5: when Jan 10 noon, open – open.
    static var events: String {
        func v(_ ms: Int64?) -> String { ms.map(String.init) ?? "null" }
        let rows: [(Int64?, Int64?, Int64?)] = [(jan1, jan1, jan10), (jan5, jan5, nil), (feb1, nil, jan3), (nil, mar1, mar5), (jan10noon, nil, nil)]
        let features = rows.enumerated().map { i, r in
            #"{"attributes":{"OBJECTID":\#(i + 1),"when":\#(v(r.0)),"start":\#(v(r.1)),"end":\#(v(r.2))},"geometry":{"x":\#(i),"y":0}}"#
        }
        return #"{"geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},"fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"when","type":"esriFieldTypeDate"},{"name":"start","type":"esriFieldTypeDate"},{"name":"end","type":"esriFieldTypeDate"}],"features":["#
            + features.joined(separator: ",") + "]}"
    }

    static func server(start: String?, end: String? = nil) throws -> GeoSieveServer {
        let plain = try TestServer.table("events", geoJSON: events)
        let time = try start.map { try LayerTime(startField: $0, endField: end, schema: plain.schema) }
        let served = try ServedTable(id: "events", table: try #require(plain.table), time: time)
        return try GeoSieveServer(catalog: ServedCatalog([served]))
    }

    static let query = "/arcgis/rest/services/events/FeatureServer/0/query?where=1%3D1&returnIdsOnly=true&f=json"

    static func ids(_ client: TestServer.Client, time: String) async throws -> Set<Int> {
        let reply = try await client.get(query + "&time=" + encoded(time))
        return Set(reply.object["objectIds"] as? [Int] ?? [-1])
    }

    static func ogc(_ client: TestServer.Client, datetime: String) async throws -> Set<Int> {
        let reply = try await client.get("/ogc/collections/events/items?limit=100&datetime=" + encoded(datetime))
        let features = reply.object["features"] as? [[String: Any]] ?? []
        return Set(features.compactMap { $0["id"] as? Int })
    }

    @Test func oneFieldSelectsInstantsInTheInterval() async throws {
        try await TestServer.withClient(try Self.server(start: "WHEN")) { client async throws in
            let layer = try await client.get("/arcgis/rest/services/events/FeatureServer/0?f=json").object
            let info = layer["timeInfo"] as? [String: Any]
            #expect(info?["startTimeField"] as? String == "when")
            #expect(info?["endTimeField"] is NSNull)
            #expect((info?["timeExtent"] as? [Int]) == [Int(Self.jan1), Int(Self.feb1)])
            #expect(try await Self.ids(client, time: "\(Self.jan5)") == [2])
            #expect(try await Self.ids(client, time: "\(Self.jan1),\(Self.jan10noon)") == [1, 2, 5])
            #expect(try await Self.ids(client, time: "null,\(Self.jan5)") == [1, 2])
            #expect(try await Self.ids(client, time: "\(Self.jan6), null") == [3, 5])
            #expect(try await Self.ids(client, time: "null,null") == [1, 2, 3, 4, 5])
            // OGC: the whole day of Jan 5, and features without a value (4).
            #expect(try await Self.ogc(client, datetime: "2020-01-05") == [2, 4])
            let bad = try await client.get(Self.query + "&time=yesterday")
            #expect((bad.object["error"] as? [String: Any])?["code"] as? Int == 400)
        }
    }

    @Test func twoFieldsSelectOverlappingIntervalsWithNullEndsOpen() async throws {
        try await TestServer.withClient(try Self.server(start: "start", end: "end")) { client async throws in
            let info = try await client.get("/arcgis/rest/services/events/FeatureServer/0?f=json").object["timeInfo"] as? [String: Any]
            #expect(info?["endTimeField"] as? String == "end")
            // The earliest start and the latest end.
            #expect((info?["timeExtent"] as? [Int]) == [Int(Self.jan1), Int(Self.mar5)])
            // Jan 4 – Jan 6: 1 (Jan 1 – 10), 2 (from Jan 5), 5 (open); not 3 (ends Jan 3) or 4.
            #expect(try await Self.ids(client, time: "\(Self.jan4),\(Self.jan6)") == [1, 2, 5])
            // Mar 2: 2 (from Jan 5, open), 4 (Mar 1 – 5), 5.
            #expect(try await Self.ids(client, time: "\(Self.mar2)") == [2, 4, 5])
            // Until Jan 2: 1 (starts Jan 1), 3 (open start), 5.
            #expect(try await Self.ids(client, time: "null,\(Self.jan2)") == [1, 3, 5])
            #expect(try await Self.ogc(client, datetime: "2020-01-04T00:00:00Z/2020-01-06T00:00:00Z") == [1, 2, 5])
            #expect(try await Self.ogc(client, datetime: "2020-03-02") == [2, 4, 5])
        }
    }

    @Test func layersThatAreNotTimeAwareIgnoreTime() async throws {
        try await TestServer.withClient(try Self.server(start: nil)) { client async throws in
            #expect(try await client.get("/arcgis/rest/services/events/FeatureServer/0?f=json").object["timeInfo"] == nil)
            #expect(try await Self.ids(client, time: "\(Self.jan5)") == [1, 2, 3, 4, 5])
        }
    }

    @Test func timeFieldsMustBeDates() throws {
        let schema = try TestServer.table("events", geoJSON: Self.events).schema
        #expect(throws: ServerRequestError.self) { try LayerTime(startField: "nope", schema: schema) }
        #expect(throws: ServerRequestError.self) { try LayerTime(startField: "OBJECTID", schema: schema) }
        #expect(throws: ServerRequestError.self) { try LayerTime(startField: "start", endField: "OBJECTID", schema: schema) }
    }
}

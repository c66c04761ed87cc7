import Foundation
import Testing
import SieveServer
import SieveTestSupport

/// The release the ArcGIS documents claim decides the field types they declare: 11.1 (the
/// default) has no 64-bit integer and no date-only type, 11.2 has both.
@Suite(.tags(.network)) struct ArcGISVersionTests {
    /// A 64-bit integer beyond 2⁵³ (2⁵³ + 1, which a double cannot hold), a date-only field and a
    /// date field.
    static let table = """
        {"geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},
         "fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"osm_id","type":"esriFieldTypeBigInteger"},
                   {"name":"day","type":"esriFieldTypeDateOnly"},{"name":"seen","type":"esriFieldTypeDate"},
                   {"name":"name","type":"esriFieldTypeString"}],
         "features":[
          {"attributes":{"OBJECTID":1,"osm_id":9007199254740993,"day":"2022-04-16","seen":1650067200123,"name":"a"},"geometry":{"x":1,"y":1}},
          {"attributes":{"OBJECTID":2,"osm_id":-9223372036854775808,"day":null,"seen":null,"name":"b"},"geometry":{"x":2,"y":2}}]}
        """
    static let layer = "/arcgis/rest/services/ids/FeatureServer/0"

    /// Days since 1970-01-01 for 2022-04-16 are 19,098 (52 years with 13 leap days = 18,993
    /// days to 2022-01-01, then 31 + 28 + 31 + 15): 19,098 × 86,400,000 ms.
    static let april16 = 19_098 * 86_400_000

    static func types(_ object: [String: Any]) -> [String: String] {
        var types: [String: String] = [:]
        for field in object["fields"] as? [[String: Any]] ?? [] {
            if let name = field["name"] as? String, let type = field["type"] as? String { types[name] = type }
        }
        return types
    }

    @Test func claiming11_1DeclaresTheTypesThatReleaseHas() async throws {
        #expect(Self.april16 == 1_650_067_200_000)
        let server = try TestServer.make(extra: [TestServer.table("ids", geoJSON: Self.table)])
        try await TestServer.withClient(server) { client async throws in
            for path in ["/arcgis/rest/services", "/arcgis/rest/services/ids/FeatureServer", Self.layer, "/arcgis/rest/services/ids/MapServer/0"] {
                #expect(try await client.get("\(path)?f=json").object["currentVersion"] as? Double == 11.1, "\(path)")
            }
            let expected = ["OBJECTID": "esriFieldTypeOID", "osm_id": "esriFieldTypeDouble", "day": "esriFieldTypeDate", "seen": "esriFieldTypeDate", "name": "esriFieldTypeString"]
            #expect(Self.types(try await client.get("\(Self.layer)?f=json").object) == expected)
            for f in ["json", "pjson"] {
                let reply = try await client.get("\(Self.layer)/query?where=1%3D1&outFields=*&orderByFields=OBJECTID&f=\(f)")
                #expect(Self.types(reply.object) == expected, "\(f)")
                // The 64-bit values stay exact integers; the day is its midnight in epoch ms.
                let text = reply.text.replacingOccurrences(of: " ", with: "")
                #expect(text.contains("\"osm_id\":9007199254740993,"), "\(f)")
                #expect(text.contains("\"osm_id\":-9223372036854775808,"), "\(f)")
                #expect(text.contains("\"day\":\(Self.april16),"), "\(f)")
                #expect(!text.contains("2022-04-16"), "\(f)")
            }
            // A subset without the changed fields keeps its types (the object ID comes along).
            let names = try await client.get("\(Self.layer)/query?where=1%3D1&outFields=name&f=json").object
            #expect(Self.types(names) == ["OBJECTID": "esriFieldTypeOID", "name": "esriFieldTypeString"])
            // Statistics grouped by the day declare a date and write milliseconds.
            let statistics = #"[{"statisticType":"count","onStatisticField":"OBJECTID","outStatisticFieldName":"n"}]"#
            let grouped = try await client.get(
                "\(Self.layer)/query?where=day%20IS%20NOT%20NULL&groupByFieldsForStatistics=day&outStatistics=\(encoded(statistics))&f=json")
            #expect(Self.types(grouped.object)["day"] == "esriFieldTypeDate")
            #expect(grouped.text.contains("\"day\":\(Self.april16)"))
            // A where clause on the day reads as before: the instant of its midnight.
            let count = try await client.get("\(Self.layer)/query?where=\(encoded("day = DATE '2022-04-16'"))&returnCountOnly=true&f=json")
            #expect(count.object["count"] as? Int == 1)
        }
    }

    @Test func claiming11_2DeclaresEveryType() async throws {
        let server = try TestServer.make(ServerConfiguration(arcgisVersion: .v11_2), extra: [TestServer.table("ids", geoJSON: Self.table)])
        try await TestServer.withClient(server) { client async throws in
            #expect(try await client.get("/arcgis/rest/services?f=json").object["currentVersion"] as? Double == 11.2)
            let expected = ["OBJECTID": "esriFieldTypeOID", "osm_id": "esriFieldTypeBigInteger", "day": "esriFieldTypeDateOnly", "seen": "esriFieldTypeDate", "name": "esriFieldTypeString"]
            #expect(Self.types(try await client.get("\(Self.layer)?f=json").object) == expected)
            let reply = try await client.get("\(Self.layer)/query?where=1%3D1&outFields=*&orderByFields=OBJECTID&f=json")
            #expect(Self.types(reply.object) == expected)
            #expect(reply.text.contains("\"osm_id\":9007199254740993,"))
            #expect(reply.text.contains("\"day\":\"2022-04-16\","))
            #expect(reply.text.contains("\"seen\":1650067200123,"))
        }
    }

    /// Edits take a day in either form whatever the server claims: the epoch milliseconds of
    /// an 11.1 client and the `yyyy-mm-dd` of an 11.2 client.
    @Test func editsTakeDaysInEitherForm() async throws {
        for version in ArcGISVersion.allCases {
            let server = try TestServer.make(
                ServerConfiguration(allowEdits: true, arcgisVersion: version), extra: [TestServer.table("ids", geoJSON: Self.table)])
            try await TestServer.withClient(server) { client async throws in
                let adds = #"[{"attributes":{"osm_id":42,"day":\#(Self.april16 + 86_400_000),"name":"ms"},"geometry":{"x":3,"y":3}},"#
                    + #"{"attributes":{"osm_id":43,"day":"2022-04-17","name":"text"},"geometry":{"x":4,"y":4}}]"#
                let reply = try await client.post("\(Self.layer)/applyEdits", form: "adds=\(encoded(adds))&f=json")
                let results = reply.object["addResults"] as? [[String: Any]] ?? []
                #expect(results.count == 2 && results.allSatisfy { $0["success"] as? Bool == true }, "\(version) \(reply.text)")
                let count = try await client.get("\(Self.layer)/query?where=\(encoded("day = DATE '2022-04-17'"))&returnCountOnly=true&f=json")
                #expect(count.object["count"] as? Int == 2, "\(version)")
            }
        }
    }
}

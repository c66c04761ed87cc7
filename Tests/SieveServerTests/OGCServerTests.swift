import Foundation
import HTTPTypes
import Testing
import SieveServer
import SieveTestSupport

/// The OGC API – Features routes, in-process, against truths read from the fixtures without
/// GeoSieve.
@Suite(.tags(.network)) struct OGCServerTests {
    /// A small table with a date field, a feature without geometry and one near the antimeridian.
    static let events = """
        {"geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},
         "fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"kind","type":"esriFieldTypeString","length":8},
                   {"name":"seen","type":"esriFieldTypeDate"}],
         "features":[
          {"attributes":{"OBJECTID":1,"kind":"a","seen":1577836800000},"geometry":{"x":1,"y":1}},
          {"attributes":{"OBJECTID":2,"kind":"b","seen":1609459200000},"geometry":{"x":2,"y":2}},
          {"attributes":{"OBJECTID":3,"kind":"a","seen":null}},
          {"attributes":{"OBJECTID":4,"kind":"c","seen":1640995200000},"geometry":{"x":179.5,"y":0}}]}
        """

    /// The object IDs of an items reply's features.
    static func ids(_ reply: Reply) -> [Int] {
        (reply.object["features"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } ?? []
    }

    @Test func landingConformanceCollectionsAndQueryables() async throws {
        let server = try TestServer.make()
        let truth = try Truth.points("naturalearth_cities.geojson")
        let xs = truth.map(\.x), ys = truth.map(\.y)
        let expectedBox: [Double] = [xs.min() ?? 0, ys.min() ?? 0, xs.max() ?? 0, ys.max() ?? 0]
        try await TestServer.withClient(server) { client async throws in
            let landing = try await client.get("/ogc").object
            let rels = (landing["links"] as? [[String: Any]])?.compactMap { $0["rel"] as? String }
            #expect(Set(rels ?? []).isSuperset(of: ["self", "conformance", "data"]))
            let conformance = try await client.get("/ogc/conformance").object["conformsTo"] as? [String] ?? []
            #expect(conformance.contains("http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core"))
            #expect(conformance.contains("http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter"))
            // The OpenAPI document and the HTML pages are served: their classes are declared.
            #expect(conformance.contains("http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30"))
            #expect(conformance.contains("http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html"))
            let first = (try await client.get("/ogc/collections/cities/items?limit=1").object["features"] as? [[String: Any]])?.first?["id"]
            let item = "/ogc/collections/cities/items/\(first.map { "\($0)" } ?? "none")"
            for path in ["/ogc", "/ogc/conformance", "/ogc/collections", "/ogc/collections/cities", "/ogc/collections/cities/items", item] {
                let page = try await client.get(path + "?f=html")
                #expect(page.headers[.contentType]?.hasPrefix("text/html") == true, "\(path)")
            }
            let collections = try await client.get("/ogc/collections").object["collections"] as? [[String: Any]]
            #expect(collections?.compactMap { $0["id"] as? String } == ["cities", "countries", "boroughs"])

            let cities = try await client.get("/ogc/collections/cities").object
            let bbox = ((cities["extent"] as? [String: Any])?["spatial"] as? [String: Any])?["bbox"] as? [[Double]]
            #expect(bbox == [expectedBox])
            #expect((cities["crs"] as? [String])?.first == "http://www.opengis.net/def/crs/OGC/1.3/CRS84")
            #expect((cities["crs"] as? [String])?.contains("http://www.opengis.net/def/crs/EPSG/0/3857") == true)

            let queryables = try await client.get("/ogc/collections/countries/queryables")
            #expect(queryables.headers[.contentType] == "application/schema+json")
            let properties = queryables.object["properties"] as? [String: Any] ?? [:]
            #expect((properties["geometry"] as? [String: Any])?["format"] as? String == "geometry-any")
            #expect((properties["pop_est"] as? [String: Any])?["type"] as? String == "number")
            #expect((properties["name"] as? [String: Any])?["type"] as? String == "string")
            #expect((properties["gdp_md_est"] as? [String: Any])?["type"] as? String == "integer")

            // The API definition, linked as service-desc, declares every items parameter.
            let links = landing["links"] as? [[String: Any]] ?? []
            #expect(links.contains { ($0["href"] as? String)?.hasSuffix("/ogc/api") == true && $0["rel"] as? String == "service-desc" })
            let api = try await client.get("/ogc/api")
            #expect(api.status == 200)
            let paths = api.object["paths"] as? [String: Any] ?? [:]
            let items = (paths["/collections/countries/items"] as? [String: Any])?["get"] as? [String: Any]
            let parameters = items?["parameters"] as? [[String: Any]] ?? []
            let names = Set(parameters.compactMap { $0["name"] as? String })
            #expect(names.isSuperset(of: ["bbox", "limit", "offset", "filter", "filter-lang", "datetime", "pop_est", "name", "continent"]))
            let language = parameters.first { $0["name"] as? String == "filter-lang" }?["schema"] as? [String: Any]
            #expect(language?["enum"] as? [String] == ["cql2-text", "cql2-json", "cql-text"])
            #expect(paths["/collections/cities/items/{featureId}"] != nil)
            // The CRS parameters list the CRSs offered (countries are stored in 4326: CRS84 and
            // Web Mercator).
            let crs = parameters.first { $0["name"] as? String == "crs" }?["schema"] as? [String: Any]
            #expect(crs?["enum"] as? [String] == ["http://www.opengis.net/def/crs/OGC/1.3/CRS84", "http://www.opengis.net/def/crs/EPSG/0/3857"])
            // The tile routes too (OGC API – Tiles `oas30`), with the tile's filters.
            for path in ["/tileMatrixSets", "/tileMatrixSets/{tileMatrixSetId}", "/collections/countries/tiles", "/collections/countries/tiles/{tileMatrixSetId}"] {
                #expect(paths[path] != nil, "\(path)")
            }
            let tile = (paths["/collections/countries/tiles/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}"] as? [String: Any])?["get"] as? [String: Any]
            let tileNames = Set((tile?["parameters"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
            #expect(tileNames.isSuperset(of: ["tileMatrixSetId", "tileMatrix", "tileRow", "tileCol", "filter", "properties", "pop_est"]))
            #expect(!tileNames.contains("limit"))
            // `limit` among the shared parameters too, with its maximum, where QGIS reads it.
            let shared = (api.object["components"] as? [String: Any])?["parameters"] as? [String: Any]
            let limit = (shared?["limit"] as? [String: Any])?["schema"] as? [String: Any]
            #expect(limit?["maximum"] as? Int == ServerConfiguration().maxRecordCount)
            #expect(limit?["minimum"] as? Int == 1)

            #expect(try await client.get("/ogc/collections/nosuch").status == 404)
            #expect(try await client.get("/ogc/collections/nosuch/items").status == 404)
            #expect(try await client.get("/ogc/nosuch").status == 404)
            let unknown = try await client.get("/ogc/collections?foo=1")
            #expect(unknown.status == 400)
            #expect(unknown.object["code"] as? String == "InvalidParameterValue")
        }
    }

    @Test func nextLinksPageThroughEveryFeatureOnce() async throws {
        let server = try TestServer.make(ServerConfiguration(maxRecordCount: 100))
        let truth = try Truth.points("naturalearth_cities.geojson")
        try await TestServer.withClient(server) { client async throws in
            var url: String? = "/ogc/collections/cities/items?limit=1000"
            var ids: [Int] = []
            var pages = 0
            while let next = url {
                let reply = try await client.get(next)
                #expect(reply.status == 200)
                #expect(reply.headers[.contentType] == "application/geo+json")
                let page = reply.object
                #expect(page["numberMatched"] as? Int == truth.count)
                #expect(page["numberReturned"] as? Int == Self.ids(reply).count)
                ids += Self.ids(reply)
                pages += 1
                let links = page["links"] as? [[String: Any]] ?? []
                let href = links.first { $0["rel"] as? String == "next" }?["href"] as? String
                // Links are absolute; the client follows the path and query.
                url = href.flatMap { URL(string: $0) }.map { $0.path + "?" + ($0.query ?? "") }
                if pages > 1 { #expect(links.contains { $0["rel"] as? String == "prev" }) }
            }
            #expect(pages == 3)
            #expect(ids == Array(1...truth.count))
            // The default page is 10 features.
            #expect(Self.ids(try await client.get("/ogc/collections/cities/items")).count == 10)
        }
    }

    @Test func bboxIncludingAcrossTheAntimeridianMatchesTheFixture() async throws {
        let server = try TestServer.make()
        let truth = try Truth.points("naturalearth_cities.geojson")
        @Sendable func expected(_ keep: (Double, Double) -> Bool) -> [Int] {
            truth.enumerated().filter { keep($0.element.x, $0.element.y) }.map { $0.offset + 1 }
        }
        try await TestServer.withClient(server) { client async throws in
            let europe = try await client.get("/ogc/collections/cities/items?bbox=0,40,20,60&limit=1000")
            #expect(Self.ids(europe) == expected { $0 >= 0 && $0 <= 20 && $1 >= 40 && $1 <= 60 })
            #expect(europe.object["numberMatched"] as? Int == Self.ids(europe).count)
            let pacific = try await client.get("/ogc/collections/cities/items?bbox=170,-50,-170,50&limit=1000")
            let across = expected { ($0 >= 170 || $0 <= -170) && $1 >= -50 && $1 <= 50 }
            #expect(Self.ids(pacific) == across)
            #expect(!across.isEmpty)
            // Six numbers: heights ignored.
            let six = try await client.get("/ogc/collections/cities/items?bbox=0,40,-100,20,60,100&limit=1000")
            #expect(Self.ids(six) == Self.ids(europe))
            // A box in Web Mercator.
            let mercator = try await client.get(
                "/ogc/collections/cities/items?limit=1000&bbox=0,4865942.28,2226389.82,8399737.89&bbox-crs=\(encoded("http://www.opengis.net/def/crs/EPSG/0/3857"))")
            #expect(Self.ids(mercator) == Self.ids(europe))
            let manyKeys = Array(repeating: "-name", count: 101).joined(separator: ",")
            #expect(try await client.get("/ogc/collections/cities/items?sortby=\(manyKeys)").status == 400)
            for bad in ["bbox=1,2,3", "bbox=0,60,20,40", "bbox=a,b,c,d", "bbox-crs=EPSG:3857", "limit=0", "offset=-1", "crs=http://www.opengis.net/def/crs/EPSG/0/4326", "f=xml"] {
                #expect(try await client.get("/ogc/collections/cities/items?\(bad)").status == 400, "\(bad)")
            }
        }
    }

    /// A date-only field: queryable as `format: date`, written as the day, and compared by
    /// `datetime` and CQL2's temporal functions as the whole day.
    @Test func dateOnlyFieldsAreDays() async throws {
        let days = """
            {"geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},
             "fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"day","type":"esriFieldTypeDateOnly"}],
             "features":[
              {"attributes":{"OBJECTID":1,"day":"2022-04-16"},"geometry":{"x":1,"y":1}},
              {"attributes":{"OBJECTID":2,"day":"2022-04-17"},"geometry":{"x":2,"y":2}}]}
            """
        let server = try TestServer.make(extra: [TestServer.table("days", geoJSON: days)])
        try await TestServer.withClient(server) { client async throws in
            let properties = try await client.get("/ogc/collections/days/queryables").object["properties"] as? [String: Any] ?? [:]
            let day = properties["day"] as? [String: Any]
            #expect(day?["type"] as? String == "string")
            #expect(day?["format"] as? String == "date")
            let one = try await client.get("/ogc/collections/days/items/1").object
            #expect((one["properties"] as? [String: Any])?["day"] as? String == "2022-04-16")
            let base = "/ogc/collections/days/items?limit=10"
            // The instant 2022-04-16T12:00Z falls in the first day, not at its midnight.
            #expect(Self.ids(try await client.get("\(base)&datetime=\(encoded("2022-04-16T12:00:00Z"))")) == [1])
            #expect(Self.ids(try await client.get("\(base)&datetime=2022-04-17")) == [2])
            #expect(Self.ids(try await client.get("\(base)&filter=\(encoded("T_EQUALS(day, DATE('2022-04-16'))"))")) == [1])
            #expect(Self.ids(try await client.get("\(base)&filter=\(encoded("day > DATE('2022-04-16')"))")) == [2])
            let html = try await client.get(base, headers: [.accept: "text/html"])
            #expect(html.text.contains("<td>2022-04-16</td>") && !html.text.contains("2022-04-16T"))
        }
    }

    @Test func nullGeometryDatetimeAndPropertyFiltersFollowTheStandard() async throws {
        let server = try TestServer.make(extra: [TestServer.table("events", geoJSON: Self.events)])
        try await TestServer.withClient(server) { client async throws in
            let base = "/ogc/collections/events/items?limit=100"
            // Features without geometry match every bbox (Part 1, fc-bbox-response C).
            #expect(Self.ids(try await client.get("\(base)&bbox=0,0,3,3")) == [1, 2, 3])
            #expect(Self.ids(try await client.get("\(base)&bbox=179,-1,-179,1")) == [3, 4])
            // A CRS84 box past ±180/±90 is the whole range there (the CQL2 literal it becomes
            // would otherwise be refused as no CRS84 position).
            #expect(Self.ids(try await client.get("\(base)&bbox=-200,-95,200,95")) == [1, 2, 3, 4])
            #expect(Self.ids(try await client.get("\(base)&bbox=0,91,10,95")) == [3])
            // Features without a temporal value match every datetime (fc-time-response C).
            #expect(Self.ids(try await client.get("\(base)&datetime=\(encoded("2020-06-01T00:00:00Z/.."))")) == [2, 3, 4])
            #expect(Self.ids(try await client.get("\(base)&datetime=2020-01-01")) == [1, 3])
            #expect(Self.ids(try await client.get("\(base)&datetime=\(encoded("../2019-12-31T23:59:59Z"))")) == [3])
            #expect(Self.ids(try await client.get("\(base)&datetime=\(encoded("2021-01-01T00:00:00Z"))")) == [2, 3])
            // Property equality, ANDed with the rest.
            #expect(Self.ids(try await client.get("\(base)&kind=a")) == [1, 3])
            #expect(Self.ids(try await client.get("\(base)&kind=a&bbox=0,0,3,3")) == [1, 3])
            #expect(Self.ids(try await client.get("\(base)&kind=a&bbox=1.5,1.5,3,3")) == [3])
            // CQL2 text and JSON.
            #expect(Self.ids(try await client.get("\(base)&filter=\(encoded("kind = 'b'"))")) == [2])
            let json = encoded(#"{"op":"=","args":[{"property":"kind"},"c"]}"#)
            #expect(Self.ids(try await client.get("\(base)&filter=\(json)&filter-lang=cql2-json")) == [4])
            #expect(Self.ids(try await client.get("\(base)&filter=\(encoded("S_INTERSECTS(geometry, BBOX(0, 0, 1.5, 1.5))"))")) == [1])
            for bad in ["filter=\(encoded("kind ="))", "filter=\(encoded("nosuch = 1"))", "filter=x&filter-lang=sql", "filter-lang=cql2-text",
                "nosuch=1", "OBJECTID=x", "datetime=2020", "datetime=../.."]
            {
                let reply = try await client.get("\(base)&\(bad)")
                #expect(reply.status == 400, "\(bad): \(reply.text.prefix(300))")
                #expect(!(reply.object["description"] as? String ?? "").isEmpty)
            }
        }
    }

    @Test func itemsSortPropertiesCRSAndSingleFeatures() async throws {
        let server = try TestServer.make()
        let truth = try Truth.points("naturalearth_cities.geojson")
        try await TestServer.withClient(server) { client async throws in
            let sorted = try await client.get("/ogc/collections/cities/items?sortby=-name&limit=3&properties=name").object
            let features = sorted["features"] as? [[String: Any]] ?? []
            let names = features.compactMap { ($0["properties"] as? [String: Any])?["name"] as? String }
            let expected = truth.map(\.name).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            #expect(names == Array(expected.reversed().prefix(3)))
            #expect((features.first?["properties"] as? [String: Any])?["fid"] == nil)

            let one = try await client.get("/ogc/collections/cities/items/5")
            #expect(one.status == 200)
            #expect(one.object["type"] as? String == "Feature")
            #expect((one.object["properties"] as? [String: Any])?["name"] as? String == truth[4].name)
            #expect((one.object["links"] as? [[String: Any]])?.contains { $0["rel"] as? String == "collection" } == true)
            #expect(try await client.get("/ogc/collections/cities/items/9999").status == 404)
            #expect(try await client.get("/ogc/collections/cities/items/abc").status == 404)
            #expect(try await client.get("/ogc/collections/cities/items/5?limit=1").status == 400)

            // Web Mercator output: x = R·λ, y = R·ln(tan(π/4 + φ/2)), named in Content-Crs.
            let mercator = try await client.get("/ogc/collections/cities/items/5?crs=\(encoded("http://www.opengis.net/def/crs/EPSG/0/3857"))")
            #expect(mercator.headers[.init("Content-Crs")!] == "<http://www.opengis.net/def/crs/EPSG/0/3857>")
            let coordinates = (mercator.object["geometry"] as? [String: Any])?["coordinates"] as? [Double] ?? []
            let radius = 6_378_137.0
            let x = radius * truth[4].x * .pi / 180
            let y = radius * log(tan(.pi / 4 + truth[4].y * .pi / 360))
            #expect(abs((coordinates.first ?? 0) - x) < 1e-6)
            #expect(abs((coordinates.last ?? 0) - y) < 1e-6)
            let plain = try await client.get("/ogc/collections/cities/items/5")
            #expect(plain.headers[.init("Content-Crs")!] == "<http://www.opengis.net/def/crs/OGC/1.3/CRS84>")
        }
    }

    @Test func browsersGetHTMLPagesWithAMapAndEscapedText() async throws {
        let markup = Self.events.replacingOccurrences(of: #""kind":"b""#, with: #""kind":"<b>&'""#)
        let server = try TestServer.make(extra: [TestServer.table("events", geoJSON: markup)])
        let browser: HTTPFields = [.accept: "text/html,application/xhtml+xml,*/*;q=0.8"]
        try await TestServer.withClient(server) { client async throws in
            for path in ["/ogc", "/ogc/conformance", "/ogc/collections", "/ogc/collections/events", "/ogc/collections/events/queryables",
                "/ogc/collections/events/items?limit=2", "/ogc/collections/events/items/2"]
            {
                let page = try await client.get(path, headers: browser)
                #expect(page.status == 200, "\(path)")
                #expect(page.headers[.contentType] == "text/html; charset=utf-8", "\(path)")
                #expect(page.text.hasPrefix("<!DOCTYPE html>"), "\(path)")
                #expect(!page.text.contains("<b>&'"), "\(path): unescaped text")
                // Nothing is loaded or linked from elsewhere.
                #expect(!page.text.contains("src=\"http") && !page.text.contains("href=\"http"), "\(path): a link elsewhere")
            }
            let item = try await client.get("/ogc/collections/events/items/2?f=html")
            #expect(item.text.contains("&lt;b&gt;&amp;&#39;"))
            #expect(item.text.contains("<svg"))
            #expect(!item.text.contains("<?xml"))
            let items = try await client.get("/ogc/collections/events/items?limit=2&f=html")
            #expect(items.text.contains("Features 1 to 2 of 4."))
            #expect(items.text.contains("limit=2&amp;f=html&amp;offset=2\">next →</a>"))
            // Clients that ask for JSON (GDAL, OWSLib) or anything get JSON.
            let json = try await client.get("/ogc/collections/events/items", headers: [.accept: "application/geo+json, application/json"])
            #expect(json.headers[.contentType] == "application/geo+json")
            #expect(try await client.get("/ogc", headers: [.accept: "*/*"]).headers[.contentType] == "application/json; charset=utf-8")
            #expect(try await client.get("/ogc?f=xml").status == 400)
        }
    }
}

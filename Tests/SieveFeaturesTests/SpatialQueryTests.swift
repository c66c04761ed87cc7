import Foundation
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGEOS
import SieveGeometry
import Testing
import SieveTestSupport

/// Spatial queries against the oracle `Fixtures/oracle/spatial_query_oracle.json`, written by
/// `Fixtures/oracle/make_spatial_query_oracle.py`: Shapely 2 (GEOS through another binding)
/// testing every feature, feature first, without index or shortcuts.
@Suite("Spatial queries")
struct SpatialQueryTests {
    struct Case: Sendable, CustomStringConvertible {
        var query: String
        var dataset: String
        var relationship: SpatialRelationship
        var objectIDs: [Int64]
        var description: String { "\(dataset) \(relationship) \(query)" }
    }

    static let tables: [String: FeatureTable] = {
        var tables: [String: FeatureTable] = [:]
        for name in ["naturalearth_lowres.geojson", "naturalearth_cities.geojson", "nybb.geojson"] {
            tables[name] = try? FeatureTable.load(contentsOf: fixtureURL(name))
        }
        return tables
    }()

    static let oracle: (queries: [String: String], cases: [Case]) = {
        guard let data = try? Data(contentsOf: fixtureURL("oracle/spatial_query_oracle.json")),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let queries = object["queries"] as? [String: String], let cases = object["cases"] as? [[String: Any]]
        else { return ([:], []) }
        return (
            queries,
            cases.compactMap { item in
                guard let query = item["query"] as? String, let dataset = item["dataset"] as? String,
                    let relationship = (item["relationship"] as? String).flatMap(relationship(named:)),
                    let ids = item["objectIds"] as? [Int]
                else { return nil }
                return Case(query: query, dataset: dataset, relationship: relationship, objectIDs: ids.map(Int64.init))
            }
        )
    }()

    static func relationship(named name: String) -> SpatialRelationship? {
        if name.hasPrefix("relate:") { return .relate(pattern: String(name.dropFirst(7))) }
        let all: [SpatialRelationship] = [
            .intersects, .contains, .within, .touches, .crosses, .overlaps, .equals, .disjoint, .envelopeIntersects,
        ]
        return all.first { $0.description == name }
    }

    static func queryGeometry(_ name: String) throws -> Geometry {
        let text = try #require(oracle.queries[name])
        return try Geometry.parse(text).geometry
    }

    @Test func oracleIsLoaded() {
        #expect(Self.tables.count == 3)
        #expect(Self.oracle.cases.count == 8 * 2 * 16 - 2 * 16)
    }

    @Test(arguments: oracle.cases)
    func matchesOracle(_ item: Case) throws {
        let table = try #require(Self.tables[item.dataset])
        var query = QueryParameters(geometry: try Self.queryGeometry(item.query), spatialRelationship: item.relationship)
        #expect(try table.queryObjectIDs(query) == item.objectIDs)
        #expect(try table.queryFeatureCount(query) == item.objectIDs.count)
        query.returnGeometry = false
        #expect(try table.queryFeatures(query).objectIDs == item.objectIDs)
        let (count, extent) = try table.queryExtent(query)
        #expect(count == item.objectIDs.count)
        var expected = Envelope.empty
        for id in item.objectIDs {
            if let row = table.row(forObjectID: id), let envelope = table.envelope(row: row) {
                expected.expand(toInclude: envelope)
            }
        }
        #expect(extent == expected)
    }

    /// The symmetric relationships evaluated on the prepared query geometry agree with GEOS
    /// evaluated unprepared, feature first, for every country and city against every query.
    @Test func preparedAgreesWithFeatureFirst() throws {
        let symmetric: [SpatialRelationship] = [.touches, .crosses, .overlaps, .disjoint, .intersects]
        for (name, _) in Self.oracle.queries.sorted(by: { $0.key < $1.key }) {
            let q = try Self.queryGeometry(name)
            for dataset in ["naturalearth_lowres.geojson", "naturalearth_cities.geojson", "nybb.geojson"] {
                let table = try #require(Self.tables[dataset])
                for relationship in symmetric + [.within, .contains] {
                    let expected = try GEOSContext.withCurrent { context in
                        let query = try GEOSGeometry(q, context: context)
                        var ids: [Int64] = []
                        for row in 0..<table.count {
                            guard let g = table.geometry(row: row) else { continue }
                            if try GEOSGeometry(g, context: context).satisfies(relationship, query) {
                                ids.append(table.objectID(row: row))
                            }
                        }
                        return ids.sorted()
                    }
                    let got = try table.queryObjectIDs(QueryParameters(geometry: q, spatialRelationship: relationship))
                    #expect(got == expected, "\(dataset) \(relationship) \(name)")
                }
            }
        }
    }

    @Test func webMercatorQueryAgainstGeographicTable() throws {
        let countries = try #require(Self.tables["naturalearth_lowres.geojson"])
        let cities = try #require(Self.tables["naturalearth_cities.geojson"])
        let europe = try Self.queryGeometry("europe")
        let projected = try europe.projected(from: .wgs84, to: .webMercator)
        for table in [countries, cities] {
            for relationship in [SpatialRelationship.intersects, .within, .disjoint] {
                let direct = try table.queryObjectIDs(QueryParameters(geometry: europe, spatialRelationship: relationship))
                let viaMercator = try table.queryObjectIDs(
                    QueryParameters(geometry: projected, inSpatialReference: .webMercator, spatialRelationship: relationship))
                #expect(direct == viaMercator)
                #expect(!direct.isEmpty)
            }
        }
        // An Esri Web Mercator alias names the same reference.
        let alias = try cities.queryObjectIDs(
            QueryParameters(geometry: projected, inSpatialReference: SpatialReference(wkid: 102100)))
        #expect(alias == (try cities.queryObjectIDs(QueryParameters(geometry: europe))))
        // A reference PROJ does not know is an error naming it.
        let error = featureTableError {
            _ = try cities.queryObjectIDs(QueryParameters(geometry: europe, inSpatialReference: SpatialReference(wkid: 999_999)))
        }
        #expect(error?.kind == .invalidQuery)
        #expect(error?.message.contains("999999") == true)
    }

    @Test func combinedWithWhereAndObjectIDs() throws {
        let countries = try #require(Self.tables["naturalearth_lowres.geojson"])
        let europe = try Self.queryGeometry("europe")
        let within = try countries.queryObjectIDs(QueryParameters(geometry: europe, spatialRelationship: .within))
        let rich = try countries.queryObjectIDs(QueryParameters(whereClause: "pop_est > 20000000"))
        let listed: [Int64] = Array(100...140) + [44, 9999]
        let query = QueryParameters(
            whereClause: "pop_est > 20000000", objectIDs: listed, geometry: europe, spatialRelationship: .within)
        let expected = within.filter { rich.contains($0) && listed.contains($0) }
        #expect(!expected.isEmpty)
        #expect(try countries.queryObjectIDs(query) == expected)
        #expect(try countries.queryFeatureCount(query) == expected.count)
        #expect(try countries.queryFeatures(query).objectIDs == expected)
        #expect(try countries.queryExtent(query).count == expected.count)
        // Ordering and paging apply after the spatial filter.
        var paged = query
        paged.orderBy = [SortField("pop_est", ascending: false)]
        paged.maxFeatures = 2
        let result = try countries.queryFeatures(paged)
        #expect(result.count == 2)
        #expect(result.exceededTransferLimit == (expected.count > 2))
        #expect(Set(result.objectIDs).isSubset(of: Set(expected)))
        // The disjoint complement.
        let disjoint = try countries.queryObjectIDs(QueryParameters(geometry: europe, spatialRelationship: .disjoint))
        let intersecting = try countries.queryObjectIDs(QueryParameters(geometry: europe))
        #expect(Set(disjoint).union(intersecting).count == countries.count)
        #expect(Set(disjoint).isDisjoint(with: intersecting))
    }

    @Test func rowsWithoutGeometryNeverMatch() throws {
        let text = featureCollection(
            [#"{"a":1}"#, #"{"a":2}"#, #"{"a":3}"#], ids: ["1", "2", "3"],
            geometries: [#"{"type":"Point","coordinates":[1,1]}"#, "null", #"{"type":"Point","coordinates":[50,50]}"#])
        let table = try FeatureTable.load(geoJSON: text)
        let box = Geometry.envelope(Envelope(xmin: 0, ymin: 0, xmax: 10, ymax: 10))
        #expect(try table.queryObjectIDs(QueryParameters(geometry: box)) == [1])
        #expect(try table.queryObjectIDs(QueryParameters(geometry: box, spatialRelationship: .disjoint)) == [3])
        #expect(try table.queryObjectIDs(QueryParameters(geometry: box, spatialRelationship: .relate(pattern: "FF*FF****"))) == [3])
        #expect(try table.queryFeatureCount(QueryParameters(geometry: box, spatialRelationship: .disjoint)) == 1)
    }

    @Test func badQueryGeometryAndPatternThrow() throws {
        let countries = try #require(Self.tables["naturalearth_lowres.geojson"])
        let europe = try Self.queryGeometry("europe")
        let badPattern = featureTableError {
            _ = try countries.queryFeatureCount(QueryParameters(geometry: europe, spatialRelationship: .relate(pattern: "T*F")))
        }
        #expect(badPattern?.kind == .invalidQuery)
        #expect(badPattern?.message.contains("T*F") == true)
        // A self-intersecting polygon: GEOS 3.11 answers every predicate for it; should a GEOS
        // version refuse it, the refusal must come back as an error, never a crash.
        let bowtie = try Geometry.parse("POLYGON ((-10 -10, 40 40, 40 -10, -10 40, -10 -10))").geometry
        for relationship in [SpatialRelationship.intersects, .within, .contains, .overlaps, .touches, .crosses, .equals] {
            do {
                _ = try countries.queryObjectIDs(QueryParameters(geometry: bowtie, spatialRelationship: relationship))
            } catch let error as FeatureTableError {
                #expect(error.kind == .invalidQuery || error.kind == .invalidGeometry)
            }
        }
    }
}

@Suite("Spatial index sharing")
struct SpatialIndexSharingTests {
    /// Threads racing for the first build of a fresh table's quadtree get the same answers as
    /// one thread alone, and copies of the table share the index.
    @Test func concurrentFirstUse() throws {
        let cities = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_cities.geojson"))
        let box = Geometry.envelope(Envelope(xmin: -20, ymin: -10, xmax: 40, ymax: 60))
        let results = ResultBox()
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            let table = i.isMultiple(of: 2) ? cities : cities.with(collation: .nocase)
            let ids = (try? table.queryObjectIDs(QueryParameters(geometry: box))) ?? []
            results.append(ids)
        }
        let serial = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_cities.geojson"))
            .queryObjectIDs(QueryParameters(geometry: box))
        #expect(!serial.isEmpty)
        #expect(results.all.count == 8)
        #expect(results.all.allSatisfy { $0 == serial })
        #expect(cities.spatialIndex.count == cities.count)
    }

    /// Collects arrays from several threads.
    final class ResultBox: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [[Int64]] = []
        func append(_ value: [Int64]) {
            lock.lock()
            values.append(value)
            lock.unlock()
        }
        var all: [[Int64]] {
            lock.lock()
            defer { lock.unlock() }
            return values
        }
    }
}

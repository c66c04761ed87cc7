import SieveColumns
import SieveGeometry
import SieveTestSupport
import Testing

@testable import SieveArcGISREST
@testable import SieveFeatures
@testable import SieveFormats

/// `f=pbf` answers (Esri's FeatureCollection protocol buffer), quantized coordinates in Esri
/// JSON, and generalization (`maxAllowableOffset`). Expected bytes and cells are worked out by
/// hand from the protobuf wire format and the grid rule; feature answers are read back with
/// the small wire-format reader below, written for these tests.
@Suite("ArcGIS PBF answers and quantization")
struct PBFAnswerTests {
    // MARK: - The grid

    @Test func cellsCountFromTheChosenCorner() {
        let grid = CoordinateQuantization(tolerance: 0.5, extent: Envelope(xmin: 0, ymin: 0, xmax: 10, ymax: 10))
        // 2.3 / 0.5 = 4.6 → 5; (10 − 7.7) / 0.5 = 4.6 → 5 (from the top).
        #expect(grid.x(2.3) == 5)
        #expect(grid.y(7.7) == 5)
        var lower = grid
        lower.originPosition = .lowerLeft
        // 7.7 / 0.5 = 15.4 → 15 (from the bottom).
        #expect(lower.y(7.7) == 15)
        #expect(lower.origin == (0, 0) as (Double, Double))
        #expect(grid.origin == (0, 10) as (Double, Double))
        // Halves go away from zero: 2.5 → 3, −2.5 → −3; beyond 2⁵³ is clamped.
        #expect(grid.x(1.25) == 3)
        #expect(grid.x(-1.25) == -3)
        #expect(grid.x(1e300) == 9_007_199_254_740_992)
        #expect(grid.x(.nan) == 0)
    }

    @Test func viewModeMergesPositionsInOneCellAndEditModeKeepsThem() throws {
        let path = Geometry.polyline(
            try Polyline(paths: [[Point(x: 0, y: 0), Point(x: 0.1, y: 0), Point(x: 0.2, y: 0.3), Point(x: 3, y: 0)]]))
        let extent = Envelope(xmin: 0, ymin: 0, xmax: 10, ymax: 10)
        let view = try #require(CoordinateQuantization(mode: .view, tolerance: 1, extent: extent).parts(of: path))
        #expect(view.type == .polyline)
        #expect(view.lengths == [2])
        #expect(view.cells == [0, 10, 3, 10])
        let edit = try #require(CoordinateQuantization(mode: .edit, tolerance: 1, extent: extent).parts(of: path))
        #expect(edit.lengths == [4])
        #expect(edit.cells == [0, 10, 0, 10, 0, 10, 3, 10])
    }

    @Test func polygonRingsAreWrittenInEsriOrientation() throws {
        // Counter-clockwise outer ring (as GeoJSON stores it): written clockwise.
        let square = Geometry.polygon(
            try Polygon(exterior: [
                Point(x: 0, y: 0), Point(x: 2, y: 0), Point(x: 2, y: 2), Point(x: 0, y: 2), Point(x: 0, y: 0),
            ]))
        let parts = try #require(
            CoordinateQuantization(mode: .edit, originPosition: .lowerLeft, tolerance: 1, extent: Envelope(xmin: 0, ymin: 0, xmax: 2, ymax: 2))
                .parts(of: square))
        #expect(parts.type == .polygon)
        #expect(parts.cells == [0, 0, 0, 2, 2, 2, 2, 0, 0, 0])
    }

    @Test func aRingInFewerThanThreeCellsKeepsItsEnds() throws {
        let speck = Geometry.polygon(
            try Polygon(exterior: [
                Point(x: 0, y: 0), Point(x: 0.1, y: 0), Point(x: 0.1, y: 0.1), Point(x: 0, y: 0.1), Point(x: 0, y: 0),
            ]))
        let parts = try #require(
            CoordinateQuantization(tolerance: 10, extent: Envelope(xmin: 0, ymin: 0, xmax: 10, ymax: 10)).parts(of: speck))
        #expect(parts.lengths == [2])
        #expect(parts.cells == [0, 1, 0, 1])
    }

    @Test func quantizedEsriJSONHoldsTheTransformAndDeltas() throws {
        let table = try FeatureTable.load(
            geoJSON: """
                {"type":"FeatureCollection","features":[
                {"type":"Feature","properties":{"OBJECTID":1},"geometry":{"type":"LineString","coordinates":[[0,0],[3,4],[3.2,4],[5,1]]}}]}
                """,
            schema: [Field(name: "OBJECTID", type: .oid)])
        let points = try FeatureTable.load(
            geoJSON: """
                {"type":"FeatureCollection","features":[
                {"type":"Feature","properties":{"OBJECTID":2},"geometry":{"type":"Point","coordinates":[2,8]}}]}
                """,
            schema: [Field(name: "OBJECTID", type: .oid)])
        var options = FeatureWriterOptions()
        options.quantization = CoordinateQuantization(tolerance: 1, extent: Envelope(xmin: 0, ymin: 0, xmax: 10, ymax: 10))
        let text = try table.queryFeatures(QueryParameters()).text(.esriJSON, options: options)
        #expect(text.contains(#""transform":{"originPosition":"upperLeft","scale":[1,1,0,0],"translate":[0,10,0,0]}"#))
        // The line: cells (0,10) (3,6) (3,6) (5,9); view mode merges the repeated cell, then
        // deltas follow the first position.
        #expect(text.contains(#""geometry":{"paths":[[[0,10],[3,-4],[2,3]]]}"#))
        // A point is its cells, not a delta.
        #expect(try points.queryFeatures(QueryParameters()).text(.esriJSON, options: options).contains(#""geometry":{"x":2,"y":2}"#))
    }

    // MARK: - Protocol buffer answers, byte for byte

    @Test func aCountIsACountResult() throws {
        let bytes = try #require(QueryAnswer.count(5).pbf())
        // version (1) "1.0"; queryResult (2) { countResult (2) { count (1) = 5 } }.
        #expect(bytes == [0x0A, 0x03, 0x31, 0x2E, 0x30, 0x12, 0x04, 0x12, 0x02, 0x08, 0x05])
    }

    @Test func objectIDsArePackedVarints() throws {
        let bytes = try #require(QueryAnswer.objectIDs([1, 300], objectIdFieldName: "OID").pbf())
        // idsResult (3) { objectIdFieldName (1) "OID"; objectIds (3) packed [1, 300 = AC 02] }.
        let ids: [UInt8] = [0x0A, 0x03, 0x4F, 0x49, 0x44, 0x1A, 0x03, 0x01, 0xAC, 0x02]
        #expect(bytes == [0x0A, 0x03, 0x31, 0x2E, 0x30, 0x12, 0x0C, 0x1A, 0x0A] + ids)
    }

    @Test func anExtentHasNoProtocolBufferAnswer() {
        #expect(QueryAnswer.extent(count: 1, extent: Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1), spatialReference: .wgs84).pbf() == nil)
    }

    @Test func aMessageOf128BytesOrMoreHasATwoByteLength() {
        var writer = ProtobufWriter()
        let text = String(repeating: "a", count: 200)
        writer.message(2) { $0.string(1, text) }
        // Field 2: 0x12; length 203 = CB 01; field 1: 0x0A, length 200 = C8 01, the text.
        #expect(Array(writer.bytes.prefix(6)) == [0x12, 0xCB, 0x01, 0x0A, 0xC8, 0x01])
        #expect(writer.bytes.count == 6 + 200)
    }

    @Test func zigzagMapsSignedToUnsigned() {
        #expect(ProtobufWriter.zigzag(0) == 0)
        #expect(ProtobufWriter.zigzag(-1) == 1)
        #expect(ProtobufWriter.zigzag(1) == 2)
        #expect(ProtobufWriter.zigzag(-2) == 3)
        #expect(ProtobufWriter.zigzag(.max) == UInt64.max - 1)
        #expect(ProtobufWriter.zigzag(.min) == UInt64.max)
    }

    @Test func featuresCarryTypedValuesAndDeltaCoordinates() throws {
        let table = try FeatureTable.load(
            geoJSON: """
                {"type":"FeatureCollection","features":[
                {"type":"Feature","properties":{"OBJECTID":7,"N":-3,"BIG":5000000000,"D":2.5,"S":"Oslo","AT":"1969-12-31T23:59:59Z"},
                 "geometry":{"type":"Polygon","coordinates":[[[0,0],[4,0],[4,4],[0,0]],[[1,1],[2,1],[1,2],[1,1]]]}},
                {"type":"Feature","properties":{"OBJECTID":8,"N":null,"BIG":null,"D":null,"S":null,"AT":null},"geometry":null}]}
                """,
            schema: [
                Field(name: "OBJECTID", type: .oid), Field(name: "N", type: .integer), Field(name: "BIG", type: .bigInteger),
                Field(name: "D", type: .double), Field(name: "S", type: .string), Field(name: "AT", type: .date),
            ])
        var query = QueryParameters()
        query.outFields = ["*"]
        let result = try table.queryFeatures(query)
        let grid = CoordinateQuantization(mode: .edit, tolerance: 1, extent: Envelope(xmin: 0, ymin: 0, xmax: 4, ymax: 4))
        let message = try WireMessage(result.pbf(quantization: grid))
        #expect(message.string(1) == "1.0")
        let answer = try #require(try message.message(2)?.message(1))
        #expect(answer.string(1) == "OBJECTID")
        #expect(try answer.message(2)?.string(1) == "OBJECTID")
        #expect(try answer.message(2)?.varint(2) == 1)
        #expect(answer.varint(7) == 3)  // polygon
        #expect(try answer.message(8)?.varint(1) == 4326)
        let transform = try #require(try answer.message(12))
        #expect(transform.varint(1) == nil)  // upperLeft, proto3's default
        #expect(try transform.message(2)?.double(1) == 1)
        #expect(try transform.message(3)?.double(2) == 4)
        // Fields: name, type (OID 6, Integer 1, BigInteger declared Double 3, Double 3, String
        // 4, Date 5), sqlTypeOther 16.
        let fields = try answer.messages(13)
        #expect(fields.map { $0.string(1) } == ["OBJECTID", "N", "BIG", "D", "S", "AT"])
        #expect(fields.map { $0.varint(2) ?? 0 } == [6, 1, 3, 3, 4, 5])
        #expect(fields.allSatisfy { $0.varint(4) == 16 })
        let features = try answer.messages(15)
        #expect(features.count == 2)
        let values = try features[0].messages(1)
        #expect(values[0].varint(5) == 7)  // uint_value
        #expect(values[1].varint(4) == 5)  // sint_value, zigzag(−3) = 5
        #expect(values[2].varint(6) == 5_000_000_000)  // int64_value
        #expect(values[3].double(3) == 2.5)
        #expect(values[4].string(1) == "Oslo")
        #expect(values[5].varint(8) == 1999)  // sint64_value, zigzag(−1000) = 1999
        let geometry = try #require(try features[0].message(2))
        #expect(geometry.packed(2) == [4, 4])
        // The outer ring, counter-clockwise as given, is written clockwise: (0,0) (4,4) (4,0)
        // (0,0), in cells from the upper left (0,4) (4,0) (4,4) (0,4); the hole, already
        // counter-clockwise: (1,3) (2,3) (1,2) (1,3). Each ring's first position, then
        // differences.
        let coordinates = geometry.packed(3).map { Int64(bitPattern: ($0 >> 1) ^ (0 &- ($0 & 1))) }
        #expect(coordinates == [0, 4, 4, -4, 0, 4, -4, 0, 1, 3, 1, 0, -1, -1, 0, 1])
        // NULLs are empty values; no geometry, no geometry member.
        let nulls = try features[1].messages(1)
        #expect(nulls.count == 6)
        #expect(nulls.dropFirst().allSatisfy { $0.fields.isEmpty })
        #expect(try features[1].message(2) == nil)
    }

    @Test func statisticsHaveNoGeometryType() throws {
        let values = StatisticsResult(
            fields: [Field(name: "n", type: .integer), Field(name: "name", type: .string)],
            rows: [[.integer(2), .string("a")], [.integer(1), .null]])
        let message = try WireMessage(try #require(QueryAnswer.values(values).pbf()))
        let answer = try #require(try message.message(2)?.message(1))
        #expect(answer.varint(7) == 127)
        #expect(try answer.message(12) == nil)
        let features = try answer.messages(15)
        #expect(try features.map { try $0.messages(1).count } == [2, 2])
        #expect(try features[0].messages(1)[0].varint(4) == 4)
        #expect(try features[1].messages(1)[1].fields.isEmpty)
    }

    // MARK: - Generalization

    @Test func douglasPeuckerKeepsWhatIsFartherThanTheOffset() throws {
        let line = Geometry.polyline(
            try Polyline(paths: [[Point(x: 0, y: 0), Point(x: 1, y: 0.1), Point(x: 2, y: 0), Point(x: 3, y: 5)]]))
        // (2,0) is 10/√34 ≈ 1.71 from the line (0,0)–(3,5): kept; then (1,0.1) is 0.1 from
        // (0,0)–(2,0): dropped.
        guard case .polyline(let generalized) = line.generalized(maxOffset: 0.5) else {
            Issue.record("not a polyline")
            return
        }
        #expect(Array(generalized.coordinates) == [Point(x: 0, y: 0), Point(x: 2, y: 0), Point(x: 3, y: 5)])
        #expect(line.generalized(maxOffset: 0) == line)
        #expect(line.generalized(maxOffset: 2) == .polyline(try Polyline(paths: [[Point(x: 0, y: 0), Point(x: 3, y: 5)]])))
    }

    @Test func aRingNeverFallsBelowATriangle() throws {
        let ring = [
            Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 2, y: 0.01), Point(x: 3, y: 0), Point(x: 3, y: 0.2),
            Point(x: 0, y: 0),
        ]
        let polygon = Geometry.polygon(try Polygon(exterior: ring))
        guard case .polygon(let generalized) = polygon.generalized(maxOffset: 100) else {
            Issue.record("not a polygon")
            return
        }
        // First (0,0); farthest from it (3,0.2) (√9.04 > 3); farthest from (0,0)–(3,0.2):
        // (3,0), 0.1996 away; closed again.
        #expect(Array(generalized.coordinates) == [Point(x: 0, y: 0), Point(x: 3, y: 0), Point(x: 3, y: 0.2), Point(x: 0, y: 0)])
    }
}

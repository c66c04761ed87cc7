import SieveColumns
import SieveGeometry
import SieveTestSupport
import Testing

@testable import SieveFeatures
@testable import SieveFormats

/// Mapbox Vector Tiles (``FeatureQueryResult/vectorTile(_:layerName:options:)``): the tile grid,
/// geometry commands, clipping, winding, thinning and attributes, with expected integers worked
/// out by hand from the specification (version 2.1) and Web Mercator's formulas.
@Suite("Vector tiles")
struct VectorTileTests {
    static let half = WebMercator.halfWorld

    static func result(_ features: String, fields: [Field] = [Field(name: "OBJECTID", type: .oid)]) throws -> FeatureQueryResult {
        let table = try FeatureTable.load(geoJSON: #"{"type":"FeatureCollection","features":["# + features + "]}", schema: fields)
        var query = QueryParameters()
        query.outFields = ["*"]
        return try table.queryFeatures(query)
    }

    /// The one layer of a tile, and its features.
    static func layer(_ bytes: [UInt8]) throws -> (layer: WireMessage, features: [WireMessage]) {
        let tile = try WireMessage(bytes)
        let layer = try #require(try tile.message(3))
        return (layer, try layer.messages(2))
    }

    /// A feature's geometry integers.
    static func commands(_ feature: WireMessage) -> [UInt64] { feature.packed(4) }

    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

    @Test func tilesCoverTheSquareWorld() throws {
        let northEast = try TileAddress(zoom: 1, x: 1, y: 0)
        #expect(northEast.mercatorBounds == Envelope(xmin: 0, ymin: 0, xmax: Self.half, ymax: Self.half))
        #expect(abs(northEast.geographicBounds.xmax - 180) < 1e-9)
        #expect(northEast.geographicBounds.ymax == 90)  // the first row reaches the pole
        #expect(northEast.geographicBounds.ymin == 0)
        #expect(throws: VectorTileError.self) { try TileAddress(zoom: 1, x: 2, y: 0) }
        #expect(throws: VectorTileError.self) { try TileAddress(zoom: -1, x: 0, y: 0) }
        #expect(throws: VectorTileError.self) { try TileAddress(zoom: 25, x: 0, y: 0) }
        let range = try #require(TileAddress.range(covering: Envelope(xmin: 1, ymin: 1, xmax: Self.half / 2 + 1, ymax: 2), zoom: 2))
        #expect(range.x == 2...3)
        #expect(range.y == 1...1)
    }

    @Test func aPointIsOneMoveTo() throws {
        let result = try Self.result(#"{"type":"Feature","properties":{"OBJECTID":7},"geometry":{"type":"Point","coordinates":[0,0]}}"#)
        let (layer, features) = try Self.layer(try result.vectorTile(try TileAddress(zoom: 0, x: 0, y: 0), layerName: "places"))
        #expect(layer.varint(15) == 2)
        #expect(layer.string(1) == "places")
        #expect(layer.varint(5) == 4096)
        #expect(features.count == 1)
        #expect(features[0].varint(1) == 7)
        #expect(features[0].varint(3) == 1)
        // (0°, 0°) is the tile's centre: (2048, 2048). MoveTo ×1 = 9, then zigzag(2048) = 4096 twice.
        #expect(Self.commands(features[0]) == [9, 4096, 4096])
    }

    @Test func otherReferencesAreProjectedByPROJ() throws {
        // UTM zone 33N (EPSG:32633): x 500,000 m on the equator is 15° E, 0°. At zoom 0 that is
        // (2048 + 15/180 × 2048, 2048) = (2218.7, 2048) → (2219, 2048).
        let table = try FeatureTable.load(
            esriJSON: #"{"geometryType":"esriGeometryPoint","spatialReference":{"wkid":32633},"features":[{"attributes":{"OBJECTID":3},"geometry":{"x":500000,"y":0}}]}"#,
            schema: [Field(name: "OBJECTID", type: .oid)])
        #expect(table.spatialReference.wkid == 32633)
        let result = try table.queryFeatures(QueryParameters())
        let (_, features) = try Self.layer(try result.vectorTile(try TileAddress(zoom: 0, x: 0, y: 0), layerName: "utm"))
        #expect(Self.commands(features[0]) == [9, Self.zigzag(2219), Self.zigzag(2048)])
    }

    @Test func aLineIsClippedAtTheBuffer() throws {
        // Along the equator from 90° W to 90° E, in the north-west tile of zoom 1 (x from −πR to
        // 0, y from 0 to πR): it starts at (2048, 4096) and leaves the tile at x = 4096, cut at the
        // buffer's edge, x = 4160.
        let result = try Self.result(
            #"{"type":"Feature","properties":{"OBJECTID":1},"geometry":{"type":"LineString","coordinates":[[-90,0],[90,0]]}}"#)
        let (_, features) = try Self.layer(try result.vectorTile(try TileAddress(zoom: 1, x: 0, y: 0), layerName: "l"))
        #expect(features.count == 1)
        #expect(features[0].varint(3) == 2)
        #expect(Self.commands(features[0]) == [9, Self.zigzag(2048), Self.zigzag(4096), 10, Self.zigzag(2112), 0])
    }

    @Test func outerRingsArePositiveAndHolesNegative() throws {
        // Outer ring counter-clockwise and hole clockwise in longitude/latitude (GeoJSON's
        // rule); in tile units, y down, the outer ring must have a positive area.
        let result = try Self.result(
            #"{"type":"Feature","properties":{"OBJECTID":1},"geometry":{"type":"Polygon","coordinates":[[[-100,-50],[100,-50],[100,50],[-100,50],[-100,-50]],[[-10,-10],[-10,10],[10,10],[10,-10],[-10,-10]]]}}"#
        )
        let (_, features) = try Self.layer(try result.vectorTile(try TileAddress(zoom: 0, x: 0, y: 0), layerName: "p"))
        let rings = try Self.rings(Self.commands(features[0]))
        #expect(rings.count == 2)
        #expect(Self.area(rings[0]) > 0)
        #expect(Self.area(rings[1]) < 0)
        // Four corners each (the closing position is ClosePath's).
        #expect(rings.map(\.count) == [4, 4])
        // −100° is 2048 − 100/180 × 2048 = 910.2 → 910; 100° → 3185.8 → 3186.
        #expect(Set(rings[0].map(\.0)) == [910, 3186])
    }

    @Test func aRingOutsideTheTileIsLeftOutAndAnEmptyTileHasALayer() throws {
        let result = try Self.result(
            #"{"type":"Feature","properties":{"OBJECTID":1},"geometry":{"type":"Polygon","coordinates":[[[100,10],[110,10],[110,20],[100,20],[100,10]]]}}"#
        )
        // The north-west tile of zoom 1 holds nothing east of 0°, even with its buffer.
        let bytes = try result.vectorTile(try TileAddress(zoom: 1, x: 0, y: 0), layerName: "x")
        // Tile { layers (3) { version (15) 2; name (1) "x"; extent (5) 4096 } }.
        #expect(bytes == [0x1A, 0x08, 0x78, 0x02, 0x0A, 0x01, 0x78, 0x28, 0x80, 0x20])
    }

    @Test func pointsAreThinnedToOnePerSquare() throws {
        // Two points 0.001° apart share a 16-unit square at zoom 0 (0.001° is 0.01 units).
        let features = #"{"type":"Feature","properties":{"OBJECTID":1},"geometry":{"type":"Point","coordinates":[10,10]}},"#
            + #"{"type":"Feature","properties":{"OBJECTID":2},"geometry":{"type":"Point","coordinates":[10.001,10]}}"#
        let result = try Self.result(features)
        let address = try TileAddress(zoom: 0, x: 0, y: 0)
        #expect(try Self.layer(try result.vectorTile(address, layerName: "p")).features.count == 1)
        var every = VectorTileOptions()
        every.pointSpacing = 0
        #expect(try Self.layer(try result.vectorTile(address, layerName: "p", options: every)).features.count == 2)
    }

    @Test func optionsOutOfRangeAreRefused() throws {
        #expect(throws: VectorTileError.self) { try VectorTileOptions(extent: 100).validate() }
        #expect(throws: VectorTileError.self) { try VectorTileOptions(buffer: 2000).validate() }
        #expect(throws: VectorTileError.self) { try VectorTileOptions(simplification: -1).validate() }
        // (4096 + 2 × 64) / 1 = 4224 squares a side: more than 4096.
        #expect(throws: VectorTileError.self) { try VectorTileOptions(pointSpacing: 1).validate() }
        try VectorTileOptions(pointSpacing: 2).validate()
        try VectorTileOptions(pointSpacing: 0).validate()
    }

    @Test func attributesAreTagsWithSharedKeysAndValues() throws {
        let result = try Self.result(
            #"{"type":"Feature","properties":{"OBJECTID":1,"name":"a","n":-2,"d":1.5,"at":"2021-03-04T05:06:07Z"},"geometry":{"type":"Point","coordinates":[1,1]}},"#
                + #"{"type":"Feature","properties":{"OBJECTID":2,"name":"a","n":null,"d":2,"at":null},"geometry":{"type":"Point","coordinates":[50,50]}}"#,
            fields: [
                Field(name: "OBJECTID", type: .oid), Field(name: "name", type: .string), Field(name: "n", type: .integer),
                Field(name: "d", type: .double), Field(name: "at", type: .date),
            ])
        let (layer, features) = try Self.layer(try result.vectorTile(try TileAddress(zoom: 0, x: 0, y: 0), layerName: "t"))
        // Keys in first use, without the object ID; values shared ("a" once).
        #expect(layer.fields.filter { $0.number == 3 }.count == 4)
        let values = try layer.messages(4)
        #expect(values.count == 5)  // "a", −2, 1.5, the date, 2.0
        #expect(values[0].string(1) == "a")
        #expect(values[1].varint(6) == 3)  // sint_value, zigzag(−2)
        #expect(values[2].double(3) == 1.5)
        #expect(values[3].string(1) == "2021-03-04T05:06:07.000Z")
        #expect(features[0].packed(2) == [0, 0, 1, 1, 2, 2, 3, 3])
        // NULLs have no tag.
        #expect(features[1].packed(2) == [0, 0, 2, 4])
    }

    // MARK: Decoding, for the checks

    /// The rings of a polygon's commands, in absolute tile units.
    static func rings(_ commands: [UInt64]) throws -> [[(Int64, Int64)]] {
        var rings: [[(Int64, Int64)]] = []
        var cursor: (Int64, Int64) = (0, 0)
        var i = 0
        func decode(_ value: UInt64) -> Int64 { Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1))) }
        while i < commands.count {
            let id = commands[i] & 7, count = Int(commands[i] >> 3)
            i += 1
            switch id {
            case 1, 2:
                for _ in 0..<count {
                    cursor = (cursor.0 + decode(commands[i]), cursor.1 + decode(commands[i + 1]))
                    i += 2
                    if id == 1 { rings.append([]) }
                    rings[rings.count - 1].append(cursor)
                }
            case 7: break
            default: throw WireMessage.Malformed()
            }
        }
        return rings
    }

    /// Twice the surveyor's area of a ring in tile units.
    static func area(_ ring: [(Int64, Int64)]) -> Int64 {
        var sum: Int64 = 0
        for i in ring.indices {
            let j = (i + 1) % ring.count
            sum += ring[i].0 * ring[j].1 - ring[j].0 * ring[i].1
        }
        return sum
    }
}

import SieveTestSupport
import Testing

@testable import SieveGeometry

/// The streaming geometry reader against the tree decoder: same geometries, same errors.
@Suite("Streaming GeoJSON geometries")
struct GeoJSONGeometryReaderTests {
    /// Reads `text` with the streaming reader: the geometry (a point as a Point geometry) or
    /// the error's description.
    static func streamed(_ text: String) -> String {
        var text = text
        return text.withUTF8 { buffer -> String in
            var reader = JSONReader(pulling: buffer)
            var scratch = GeoJSONGeometryScratch()
            do throws(GeometryError) {
                let result = try reader.readGeoJSONGeometry(scratch: &scratch)
                try reader.finishDocument()
                switch result {
                case .null: return "null"
                case .point(let x, let y): return Geometry.point(Point(x: x, y: y)).wkt
                case .geometry(let geometry, _): return geometry.wkt
                }
            } catch {
                return "error: \(error)"
            }
        }
    }

    /// The same through the tree decoder.
    static func tree(_ text: String) -> String {
        do throws(GeometryError) {
            let value = try JSONReader.parse(text)
            if value.isNull { return "null" }
            return try Geometry(geoJSON: value, path: "").wkt
        } catch {
            return "error: \(error)"
        }
    }

    static let cases: [String] = [
        #"{"type":"Point","coordinates":[1.5,-2]}"#,
        #"{"coordinates":[1.5,-2],"type":"Point"}"#,
        #"{"type":"Point","coordinates":[1,2,3]}"#,
        #"{"type":"Point","coordinates":[1,2,3,null]}"#,
        #"{"type":"Point","coordinates":[1,2,3,4]}"#,
        #"{"type":"Point","coordinates":[]}"#,
        #"{"type":"Point","coordinates":[1]}"#,
        #"{"type":"Point","coordinates":[1,2,3,4,5]}"#,
        #"{"type":"Point","coordinates":[1e999,2]}"#,
        #"{"type":"Point","coordinates":[-1e999,2]}"#,
        #"{"type":"Point","coordinates":[1,2e999]}"#,
        #"{"type":"Point","coordinates":[01,2]}"#,
        #"{"type":"Point","coordinates":[1,-]}"#,
        #"{"type":"Point","coordinates":[1,2}"#,
        #"{"type":"Point","coordinates":[1,2]"#,
        #"{"type":"Point","coordinates":[1,2] }"#,
        #"{"type":"Point","coordinates":[1 ,2]}"#,
        #"{"type":"Point","coordinates":[1,2],}"#,
        #"{"type":"Point","coordinates":[-0.0,17.123456789012345678]}"#,
        #"{"type":"Point","coordinates":[171.92866778536472,-16.078567760711252]}"#,
        #"{"type":"Point","coordinates":[1,2]}x"#,
        #"{"type":"Point","coordinates":[1,"2"]}"#,
        #"{"type":"Point","coordinates":[1,2],"bbox":[1,2,1,2]}"#,
        #"{"type":"Point","type":"Point","coordinates":[1,2]}"#,
        #"{"type":"Point","coordinates":[1,2],"coordinates":[3,4]}"#,
        #"{"type":"Point"}"#,
        #"{"type":"Circle","coordinates":[1,2]}"#,
        #"{"type":"MultiPoint","coordinates":[[1,2],[3,4,5]]}"#,
        #"{"type":"MultiPoint","coordinates":[]}"#,
        #"{"type":"LineString","coordinates":[[0,0],[1,1]]}"#,
        #"{"type":"LineString","coordinates":[[0,0]]}"#,
        #"{"type":"LineString","coordinates":[]}"#,
        #"{"type":"MultiLineString","coordinates":[[[0,0],[1,1]],[[2,2],[3,3,1]]]}"#,
        #"{"type":"MultiLineString","coordinates":[]}"#,
        #"{"type":"MultiLineString","coordinates":[[]]}"#,
        #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}"#,
        #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}"#,
        #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0]]]}"#,
        #"{"type":"Polygon","coordinates":[]}"#,
        #"{"type":"Polygon","coordinates":[[[0,0],[4,0],[4,4],[0,4],[0,0]],[[1,1],[1,2],[2,2],[1,1]]]}"#,
        #"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[5,5],[6,5],[6,6],[5,5]]]]}"#,
        #"{"type":"MultiPolygon","coordinates":[[]]}"#,
        #"{"type":"MultiPolygon","coordinates":[]}"#,
        #"{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[1,2]}]}"#,
        #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]"#,
        #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]],}"#,
        #"null"#,
        #"[1,2]"#,
    ]

    @Test(arguments: cases)
    func sameAsTheTreeDecoder(text: String) {
        #expect(Self.streamed(text) == Self.tree(text))
    }

    @Test func randomGeometriesAgree() {
        var random = SeededGenerator(seed: 11)
        func number() -> String {
            let value = Double.random(in: -1e3...1e3, using: &random)
            return Bool.random(using: &random) ? String(value) : String(Int(value))
        }
        func position(_ dimensions: Int) -> String { "[" + (0..<dimensions).map { _ in number() }.joined(separator: ",") + "]" }
        func ring() -> String {
            let first = position(2)
            let middle = (0..<Int.random(in: 1...5, using: &random)).map { _ in position(Int.random(in: 2...3, using: &random)) }
            return "[" + ([first] + middle + [Bool.random(using: &random) ? first : position(2)]).joined(separator: ",") + "]"
        }
        let types = ["Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon"]
        for _ in 0..<2_000 {
            let type = types[Int.random(in: 0..<types.count, using: &random)]
            let coordinates: String
            switch type {
            case "Point": coordinates = position(Int.random(in: 1...4, using: &random))
            case "MultiPoint", "LineString": coordinates = ring()
            case "MultiLineString", "Polygon": coordinates = "[" + (0..<Int.random(in: 0...3, using: &random)).map { _ in ring() }.joined(separator: ",") + "]"
            default: coordinates = "[[" + ring() + "],[" + ring() + "," + ring() + "]]"
            }
            let text = Bool.random(using: &random)
                ? #"{"type":"\#(type)","coordinates":\#(coordinates)}"#
                : #"{ "coordinates" : \#(coordinates) , "type" : "\#(type)" }"#
            #expect(Self.streamed(text) == Self.tree(text), "\(text)")
        }
    }
}

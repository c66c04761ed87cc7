import Foundation
import GeoSieve

/// The data of the load workload: the w1 attributes (``W1/generate(count:seed:)``) on seeded
/// point or small-polygon geometries, written as the files a user would load.
enum LoadData {
    /// The formats written.
    enum Format: String, CaseIterable {
        /// A GeoJSON FeatureCollection (`.geojson`).
        case geojson
        /// GeoJSONSeq, one feature per line without the RS character (`.geojsonl`), as most
        /// tools write and read it.
        case geojsonseq

        var fileExtension: String {
            switch self {
            case .geojson: "geojson"
            case .geojsonseq: "geojsonl"
            }
        }
    }

    /// The geometries of a data set.
    enum Shape: String {
        /// Points spread uniformly over longitude −180…180 and latitude −85…85.
        case points
        /// Small polygons of 8–20 vertices (radius up to 0.05°) around such points.
        case polygons
    }

    /// Writes `count` features with `shape` geometries to `url` in `format`; returns the bytes
    /// written. Coordinates are printed in full (shortest round-trip form, mostly 15–17
    /// significant digits), as real data exported from a GIS is.
    static func write(shape: Shape, count: Int, seed: UInt64, format: Format, to url: URL) throws -> Int {
        let rows = W1.generate(count: count, seed: seed)
        var random = SplitMix64(seed: seed ^ 0x5EED_6E0)
        var out = try BufferedFile(url)
        func append(_ text: String) { out.buffer.append(contentsOf: text.utf8) }

        if format == .geojson { append(#"{"type":"FeatureCollection","features":["#) }
        for row in 0..<rows.count {
            if format == .geojson, row > 0 { out.buffer.append(UInt8(ascii: ",")) }
            append(#"{"type":"Feature","properties":{"OBJECTID":"#)
            append(String(rows.objectIDs[row]))
            append(#","POP":"#)
            append(String(rows.populations[row]))
            append(#","NAME":"#)
            appendString(rows.names[row], to: &out.buffer)
            append(#","CATEGORY":"#)
            appendString(rows.categories[row], to: &out.buffer)
            append(#","SCORE":"#)
            append(rows.scores[row].map { $0.description } ?? "null")
            append(#","CREATED":""#)
            append(W1.isoDate(days: rows.createdDays[row]))
            append(#""},"geometry":"#)
            let x = random.nextUnit() * 360 - 180
            let y = random.nextUnit() * 170 - 85
            switch shape {
            case .points:
                append(#"{"type":"Point","coordinates":["#)
                append("\(x),\(y)]}")
            case .polygons:
                append(#"{"type":"Polygon","coordinates":[["#)
                let vertices = 8 + random.nextInt(below: 13)
                let radius = 0.005 + random.nextUnit() * 0.045
                var first = ""
                for i in 0..<vertices {
                    // Counter-clockwise, as RFC 7946 wants outer rings.
                    let angle = 2 * Double.pi * Double(i) / Double(vertices)
                    let r = radius * (0.6 + 0.4 * random.nextUnit())
                    let position = "[\(x + r * cos(angle)),\(y + r * sin(angle))]"
                    if i == 0 { first = position } else { out.buffer.append(UInt8(ascii: ",")) }
                    append(position)
                }
                append(",\(first)]]}")
            }
            out.buffer.append(UInt8(ascii: "}"))
            if format == .geojsonseq { out.buffer.append(UInt8(ascii: "\n")) }
            try out.flushIfFull()
        }
        if format == .geojson { append("]}\n") }
        return try out.close()
    }

    /// Appends a JSON string (the generated names need no escapes) or `null`.
    private static func appendString(_ string: String?, to buffer: inout [UInt8]) {
        guard let string else {
            buffer.append(contentsOf: "null".utf8)
            return
        }
        buffer.append(UInt8(ascii: "\""))
        buffer.append(contentsOf: string.utf8)
        buffer.append(UInt8(ascii: "\""))
    }
}

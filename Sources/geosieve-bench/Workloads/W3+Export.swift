import Foundation
import GeoSieve

extension W3 {
    /// Writes the w3 inputs as WKT, one geometry per line, into `directory` (created if needed):
    /// `star.wkt`, `walk.wkt` (one line each) and `polygons.wkt` (one line per small polygon,
    /// polygon `i` having row `i`). Numbers are written in the shortest form that reads back to
    /// the same `Double`, so every engine tests exactly the same coordinates. The points are
    /// w2's `points_uniform.f64`.
    static func export(_ inputs: Inputs, to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func write(_ name: String, _ polygons: [Polygon]) throws {
            var text = ""
            for polygon in polygons {
                text += Geometry.polygon(polygon).wkt
                text += "\n"
            }
            let url = directory.appendingPathComponent(name)
            do {
                try Data(text.utf8).write(to: url)
            } catch {
                throw ExportError(message: "cannot write \(url.path): \(error)")
            }
        }
        try write("star.wkt", [inputs.star])
        try write("walk.wkt", [inputs.walk])
        try write("polygons.wkt", inputs.polygons)
    }
}

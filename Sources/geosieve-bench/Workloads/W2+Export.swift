import Foundation
import GeoSieve

extension W2 {
    /// Writes the inputs as raw little-endian float64 files into `directory` (created if
    /// needed), so that other engines load exactly what GeoSieve measures:
    ///
    /// - `points_uniform.f64`, `points_clustered.f64`: x, y pairs, point `i` having id `i`;
    /// - `windows_small.f64`, `windows_large.f64`: xmin, ymin, xmax, ymax;
    /// - `identify.f64`: x, y, tolerance.
    static func export(_ inputs: Inputs, to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func write(_ name: String, _ columns: [[Double]]) throws {
            let rows = columns.first?.count ?? 0
            var bytes = [UInt8]()
            bytes.reserveCapacity(rows * columns.count * 8)
            for row in 0..<rows {
                for column in columns {
                    let bits = column[row].bitPattern
                    for shift in stride(from: 0, to: 64, by: 8) {
                        bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
                    }
                }
            }
            let url = directory.appendingPathComponent(name)
            do {
                try Data(bytes).write(to: url)
            } catch {
                throw ExportError(message: "cannot write \(url.path): \(error)")
            }
        }
        try write("points_uniform.f64", [inputs.uniform.x, inputs.uniform.y])
        try write("points_clustered.f64", [inputs.clustered.x, inputs.clustered.y])
        for (name, windows) in [("windows_small.f64", inputs.smallWindows), ("windows_large.f64", inputs.largeWindows)] {
            try write(name, [windows.map(\.xmin), windows.map(\.ymin), windows.map(\.xmax), windows.map(\.ymax)])
        }
        try write("identify.f64", [inputs.clicks.map(\.x), inputs.clicks.map(\.y), inputs.clicks.map(\.tolerance)])
    }
}

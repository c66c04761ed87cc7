import SieveFeatures
import SieveGeometry

extension FeatureQueryResult {
    /// The features written in `format` as one byte array.
    public func bytes(_ format: FeatureOutputFormat, options: FeatureWriterOptions = FeatureWriterOptions()) -> [UInt8] {
        var bytes: [UInt8] = []
        write(format, options: options, chunkSize: .max) { (piece: [UInt8]) -> Void in
            if bytes.isEmpty { bytes = piece } else { bytes.append(contentsOf: piece) }
        }
        return bytes
    }
}

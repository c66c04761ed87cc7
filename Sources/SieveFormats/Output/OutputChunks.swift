import SieveFeatures
import SieveColumns
import SieveGeometry

/// How far a streaming write has come (see
/// ``SieveFeatures/FeatureQueryResult/write(_:options:chunkSize:progress:flush:)``).
public struct WriteProgress: Sendable, Hashable {
    /// The features written so far.
    public var features: Int
    /// The features the write will have written when it is done.
    public var totalFeatures: Int
    /// The bytes handed on so far, or `nil` when the writer does not know them (a GeoPackage,
    /// whose file SQLite writes).
    public var bytesWritten: Int?

    /// Creates a progress report.
    public init(features: Int, totalFeatures: Int, bytesWritten: Int? = nil) {
        self.features = features
        self.totalFeatures = totalFeatures
        self.bytesWritten = bytesWritten
    }
}

/// The pieces of a streaming write: hands the bytes on once a piece is full, after a whole
/// feature, and reports progress after each piece.
struct OutputChunks {
    let chunkSize: Int
    let progress: ((WriteProgress) -> Void)?
    private(set) var state: WriteProgress

    init(chunkSize: Int, totalFeatures: Int = 0, progress: ((WriteProgress) -> Void)? = nil) {
        self.chunkSize = chunkSize
        self.progress = progress
        state = WriteProgress(features: 0, totalFeatures: totalFeatures, bytesWritten: 0)
    }

    /// Counts a feature written into `bytes`, handing them to `flush` (and emptying them) once
    /// they reach the chunk size.
    @inline(__always)
    mutating func featureWritten<Failure: Error>(
        _ bytes: inout [UInt8], flush: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        state.features += 1
        if bytes.count >= chunkSize { try hand(&bytes, flush: flush) }
    }

    /// Hands `bytes` to `flush`, empties them and reports progress (also the end of a write).
    mutating func hand<Failure: Error>(_ bytes: inout [UInt8], flush: ([UInt8]) throws(Failure) -> Void) throws(Failure) {
        try flush(bytes)
        state.bytesWritten = (state.bytesWritten ?? 0) + bytes.count
        bytes.removeAll(keepingCapacity: true)
        progress?(state)
    }
}

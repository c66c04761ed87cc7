import SieveFeatures
import SieveGeometry

/// How a load treats what it reads: bad features, the geometry type, threads and progress.
///
/// ```swift
/// var options = LoadOptions()
/// options.onInvalid = .skip
/// let (table, report) = try FeatureTable.loadReporting(json: bytes, options: options)
/// print(report.skippedCount)
/// ```
public struct LoadOptions: Sendable {
    /// What a load does with a feature it cannot store.
    public enum InvalidFeatures: Sendable, Equatable {
        /// The first invalid feature ends the load with its error (the default).
        case fail
        /// Invalid features are left out and counted (``LoadReport``). Text that is not JSON
        /// still ends the load: nothing after it can be read.
        case skip
    }

    /// What to do with invalid features (default ``InvalidFeatures/fail``).
    public var onInvalid = InvalidFeatures.fail
    /// The table's geometry type. Features with geometries of another type are invalid (a point
    /// fits a multipoint table); `nil` (the default): the type of the features, which must
    /// agree.
    public var geometryType: GeometryType?
    /// How many threads parse a large input: `nil` (the default) for one per core, 1 for the
    /// calling thread only. Results are identical whatever the count.
    public var threads: Int?
    /// Called now and then with how far the load has come (from any thread).
    public var progress: (@Sendable (LoadProgress) -> Void)?
    /// Whether the table remembers how the GeoJSON FeatureCollection or Esri JSON FeatureSet
    /// held its features (root members, where the object IDs came from, the fields the loader
    /// added, value forms), so that edits can be saved back in the file's own shape
    /// (``FeatureWriterOptions/keepsFileRepresentation``). Off by default: it costs a pass over
    /// date and id values and keeps the file's non-object-ID ids, which only saving needs.
    public var keepsFileRepresentation = false
    /// Inputs (from the features array on) smaller than this are read on one thread; 4 MiB.
    /// Not public: tests lower it to split small inputs, which keeps the threaded loaders'
    /// tests quick under ThreadSanitizer.
    var parallelThreshold = 4 << 20

    /// Default options: strict, any one geometry type, all cores, no progress.
    public init(
        onInvalid: InvalidFeatures = .fail, geometryType: GeometryType? = nil, threads: Int? = nil,
        progress: (@Sendable (LoadProgress) -> Void)? = nil
    ) {
        self.onInvalid = onInvalid
        self.geometryType = geometryType
        self.threads = threads
        self.progress = progress
    }
}

/// How far a load has come.
public struct LoadProgress: Sendable {
    /// Bytes of the input parsed so far (approximate while several threads parse).
    public var bytesRead: Int
    /// The input's size in bytes.
    public var totalBytes: Int
    /// Features read so far.
    public var features: Int
}

/// What a load left out.
public struct LoadReport: Sendable, Equatable {
    /// How many features were skipped (with ``LoadOptions/InvalidFeatures/skip``).
    public var skippedCount = 0
    /// The first five skipped features' errors, in input order (each with its location).
    public var firstSkipped: [FeatureTableError] = []
    /// Whether the object IDs are the features' 1-based positions (GeoJSON features without an
    /// `OBJECTID` property or integer `id`s): numbers of this load only, not of the features.
    package var objectIDsArePositions = false
    /// The field the loader added to keep GeoJSON feature `id`s that are not object IDs (`id`,
    /// or `id_1`… when a property has that name), if any.
    package var featureIDFieldName: String?

    /// An empty report.
    public init() {}
}

import SieveGeometry

/// The answer of a ``QueryRequest``, one case per ``QueryRequest/Answer``.
///
/// SieveFormats writes it in the ArcGIS REST shape (`esriJSON(options:)`), and features in any of
/// its output formats.
public enum QueryAnswer: Sendable {
    /// The features (``QueryRequest/Answer/features``).
    case features(FeatureQueryResult)
    /// The object IDs, ascending, and the object-ID field's name.
    case objectIDs([Int64], objectIdFieldName: String)
    /// A count (``QueryRequest/Answer/count`` and ``QueryRequest/Answer/distinctCount``).
    case count(Int)
    /// How many rows were selected and their extent, in `spatialReference`
    /// (``/SieveGeometry/Envelope/empty`` when none has a geometry).
    case extent(count: Int, extent: Envelope, spatialReference: SpatialReference)
    /// Distinct values or statistics: output fields and one row per combination or group.
    case values(StatisticsResult)

    /// The features, when the answer is features.
    public var features: FeatureQueryResult? {
        if case .features(let result) = self { return result }
        return nil
    }
}

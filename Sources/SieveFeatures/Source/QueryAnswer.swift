import SieveGeometry

/// The answer of a ``QueryRequest``, one case per ``QueryRequest/Answer``.
///
/// Write it in the ArcGIS REST shape with ``esriJSON(options:)``; features can also be written
/// in any ``FeatureOutputFormat`` through ``FeatureQueryResult``.
public enum QueryAnswer: Sendable {
    /// The features (``QueryRequest/Answer/features``).
    case features(FeatureQueryResult)
    /// The object IDs, ascending, and the object-ID field's name.
    case objectIDs([Int64], objectIdFieldName: String)
    /// A count (``QueryRequest/Answer/count`` and ``QueryRequest/Answer/distinctCount``).
    case count(Int)
    /// How many rows were selected and their extent, in `spatialReference` (``Envelope/empty``
    /// when none has a geometry).
    case extent(count: Int, extent: Envelope, spatialReference: SpatialReference)
    /// Distinct values or statistics: output fields and one row per combination or group.
    case values(StatisticsResult)

    /// The features, when the answer is features.
    public var features: FeatureQueryResult? {
        if case .features(let result) = self { return result }
        return nil
    }

    /// The answer as the ArcGIS REST API writes it: a FeatureSet for features, `{"count":N}`,
    /// `{"objectIdFieldName":…,"objectIds":[…]}`, `{"count":N,"extent":{…}}`, or a FeatureSet of
    /// values without geometry.
    public func esriJSON(options: FeatureWriterOptions = FeatureWriterOptions()) -> [UInt8] {
        switch self {
        case .features(let result): result.bytes(.esriJSON, options: options)
        case .objectIDs(let ids, let name): Array(QueryResponseJSON.objectIDs(ids, objectIdFieldName: name).utf8)
        case .count(let count): Array(QueryResponseJSON.count(count).utf8)
        case .extent(let count, let extent, let reference):
            Array(QueryResponseJSON.extent(count: count, extent: extent, spatialReference: reference).utf8)
        case .values(let values): values.esriJSONBytes
        }
    }
}

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

import SieveFeatures
import SieveFormats
import SieveGeometry

extension QueryAnswer {
    /// The answer as the ArcGIS REST API writes it: a FeatureSet for features, `{"count":N}`,
    /// `{"objectIdFieldName":…,"objectIds":[…]}`, `{"count":N,"extent":{…}}`, or a FeatureSet of
    /// values without geometry. `options` lay out features, and say which field types features and
    /// values declare (``/SieveFormats/FeatureWriterOptions/esriFieldTypes``).
    public func esriJSON(options: FeatureWriterOptions = FeatureWriterOptions()) -> [UInt8] {
        switch self {
        case .features(let result): result.bytes(.esriJSON, options: options)
        case .objectIDs(let ids, let name): Array(QueryResponseJSON.objectIDs(ids, objectIdFieldName: name).utf8)
        case .count(let count): Array(QueryResponseJSON.count(count).utf8)
        case .extent(let count, let extent, let reference):
            Array(QueryResponseJSON.extent(count: count, extent: extent, spatialReference: reference).utf8)
        case .values(let values):
            {
                var bytes: [UInt8] = []
                values.writeEsriJSON(into: &bytes, types: options.esriFieldTypes)
                return bytes
            }()
        }
    }
}

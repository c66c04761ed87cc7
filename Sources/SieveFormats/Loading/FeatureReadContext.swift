import SieveFeatures
import Foundation
import SieveColumns
import SieveGeometry

/// The input formats the streaming loader reads features of.
enum FeatureFormat {
    /// GeoJSON Features (in a FeatureCollection, alone, or as GeoJSONSeq).
    case geoJSON
    /// Esri JSON FeatureSet features.
    case esriJSON
}

/// What a loader knows before it reads features: the format, the explicit fields and the
/// geometry type asked for.
/// (A class: it is shared, never changed, by every piece and passed to every feature.)
final class FeatureReadContext: @unchecked Sendable {
    let format: FeatureFormat
    /// The explicit fields (given or from the file), or `nil` to infer them.
    let explicit: ExplicitFields?
    /// The geometry type the FeatureSet declares (Esri JSON).
    let declaredType: GeometryType?
    let options: LoadOptions
    /// The names of the file's object-ID field (Esri `objectIdFieldName`).
    let objectIdFieldName: String?
    /// With explicit fields (GeoJSON): the field that holds the features' `id`s when they are not
    /// the object IDs, as the inferring loader keeps them.
    let featureIDFieldName: String?

    init(
        format: FeatureFormat, explicit: ExplicitFields?, declaredType: GeometryType? = nil, options: LoadOptions,
        objectIdFieldName: String? = nil, featureIDFieldName: String? = nil
    ) {
        self.format = format
        self.explicit = explicit
        self.declaredType = declaredType
        self.options = options
        self.objectIdFieldName = objectIdFieldName
        self.featureIDFieldName = featureIDFieldName
    }
}

/// Explicit fields: the list, how member names map to them, and the object-ID field (or `nil`
/// when one is synthesized).
struct ExplicitFields {
    var fields: [Field]
    var lookup: [String: Int]
    var objectIdIndex: Int?

    func field(named key: String) -> Int {
        lookup[key] ?? lookup[key.lowercased()] ?? -1
    }
}

import SieveFeatures
import SieveColumns
import SieveGeometry
import SieveJSON

/// Esri JSON members the loaders read as a whole: `spatialReference`.
package enum EsriJSONLoader {
    /// A `spatialReference` object's WKID (`wkid`, else `latestWkid`); `nil` when absent.
    package static func spatialReference(_ value: JSONValue?) throws(FeatureTableError) -> SpatialReference? {
        guard let value, !value.isNull else { return nil }
        if let wkid = value["wkid"]?.numberValue?.exactInt ?? value["latestWkid"]?.numberValue?.exactInt, wkid > 0 {
            return SpatialReference(wkid: wkid)
        }
        throw FeatureTableError(
            .unsupportedSpatialReference,
            "the spatialReference names no WKID (a spatial reference given only as WKT is not supported)",
            position: value.position)
    }
}

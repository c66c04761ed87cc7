import SieveFeatures
import SieveColumns
import SieveGeometry
import SieveJSON

/// GeoJSON members the loaders read as a whole: the legacy `crs` member.
enum GeoJSONLoader {
    /// The spatial reference named by a legacy `crs` member (4326 without one).
    ///
    /// Accepted: `{"type":"name","properties":{"name":…}}` with an EPSG URN or code
    /// (`urn:ogc:def:crs:EPSG::2263`, `urn:ogc:def:crs:EPSG:6.6:2263`, `EPSG:2263`,
    /// `http://www.opengis.net/def/crs/EPSG/0/2263`) or CRS84
    /// (`urn:ogc:def:crs:OGC:1.3:CRS84` → 4326), and the 2008 form
    /// `{"type":"EPSG","properties":{"code":2263}}`.
    static func crs(_ value: JSONValue?) throws(FeatureTableError) -> SpatialReference {
        guard let value, !value.isNull else { return .wgs84 }
        let properties = value["properties"]
        switch value["type"]?.stringValue {
        case "name":
            guard let name = properties?["name"]?.stringValue else { break }
            if let wkid = wkid(crsName: name) { return SpatialReference(wkid: wkid) }
            throw FeatureTableError(
                .unsupportedSpatialReference, "the crs name \(JSONKey.quoted(name)) names no EPSG code", position: value.position)
        case "EPSG", "epsg":
            if let code = properties?["code"]?.numberValue?.exactInt, code > 0 { return SpatialReference(wkid: code) }
        default:
            break
        }
        throw FeatureTableError(
            .unsupportedSpatialReference, "cannot read the crs member \(JSONKey.abbreviated(JSONWriter.string(value)))",
            position: value.position)
    }

    /// The WKID in an OGC CRS name, or `nil`.
    static func wkid(crsName name: String) -> Int? {
        let upper = name.uppercased()
        if upper.hasSuffix("CRS84") || upper.hasSuffix("CRS:84") { return 4326 }
        guard upper.contains("EPSG") else { return nil }
        let tail = upper.split(whereSeparator: { $0 == ":" || $0 == "/" }).last.map(String.init) ?? ""
        guard let code = Int(tail), code > 0 else { return nil }
        return code
    }
}

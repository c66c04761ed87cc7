import SieveColumns
import SieveGeometry

/// Reads a GeoJSON FeatureCollection into a ``FeatureTable``.
enum GeoJSONLoader {
    static func load(_ root: JSONValue, fields: [Field]?) throws(FeatureTableError) -> FeatureTable {
        guard root.objectValue != nil else {
            throw FeatureTableError(
                .invalidGeoJSON, "expected a FeatureCollection object, found \(root.kindDescription)",
                position: root.position)
        }
        guard let type = root["type"], type.stringValue == "FeatureCollection" else {
            var message = "expected \"type\": \"FeatureCollection\""
            switch root["type"] {
            case nil: message += ", found no \"type\" member"
            case .string("Feature", _)?:
                message += ", found a single Feature (wrap it: {\"type\":\"FeatureCollection\",\"features\":[…]})"
            case .string(let name, _)?: message += ", found \(JSONKey.quoted(name))"
            case let other?: message += ", found \(other.kindDescription)"
            }
            throw FeatureTableError(.invalidGeoJSON, message, position: root["type"]?.position ?? root.position)
        }
        guard let featuresValue = root["features"] else {
            throw FeatureTableError(.invalidGeoJSON, "the FeatureCollection has no \"features\" array", position: root.position)
        }
        guard let features = featuresValue.arrayValue else {
            throw FeatureTableError(
                .invalidGeoJSON, "\"features\" must be an array, not \(featuresValue.kindDescription)",
                position: featuresValue.position)
        }
        let spatialReference = try crs(root["crs"])

        var attributes: [JSONObject?] = []
        attributes.reserveCapacity(features.count)
        var ids: [Int64] = []
        ids.reserveCapacity(features.count)
        var everyIDInteger = true
        var geometryValues: [JSONValue?] = []
        geometryValues.reserveCapacity(features.count)
        for (index, feature) in features.enumerated() {
            guard feature.objectValue != nil else {
                throw FeatureTableError(
                    .invalidGeoJSON, "a feature must be an object, not \(feature.kindDescription)",
                    position: feature.position, featureIndex: index)
            }
            guard let type = feature["type"] else {
                throw FeatureTableError(
                    .invalidGeoJSON, "the feature has no \"type\": \"Feature\" member", position: feature.position,
                    featureIndex: index)
            }
            guard type.stringValue == "Feature" else {
                throw FeatureTableError(
                    .invalidGeoJSON, "expected \"type\": \"Feature\"", position: type.position, featureIndex: index)
            }
            switch feature["properties"] {
            case nil, .null?:
                attributes.append(nil)
            case .object(let object, _)?:
                attributes.append(object)
            case let other?:
                throw FeatureTableError(
                    .invalidGeoJSON, "\"properties\" must be an object or null, not \(other.kindDescription)",
                    position: other.position, featureIndex: index)
            }
            if everyIDInteger {
                if case .number(let number, _)? = feature["id"], number.isIntegerLiteral, let id = number.int64 {
                    ids.append(id)
                } else {
                    everyIDInteger = false
                }
            }
            switch feature["geometry"] {
            case nil, .null?: geometryValues.append(nil)
            case let geometry?: geometryValues.append(geometry)
            }
        }
        let assembler = TableAssembler(
            attributes: attributes, featureIDs: everyIDInteger ? ids : nil, explicitFields: fields)
        return try assembler.assemble(spatialReference: spatialReference) { objectIDs throws(FeatureTableError) in
            try geometries(geometryValues, objectIDs: objectIDs)
        }
    }

    /// Reads every geometry and checks that they are of one type.
    private static func geometries(
        _ values: [JSONValue?], objectIDs: [Int64]
    ) throws(FeatureTableError) -> (GeometryType?, [Geometry?]) {
        let (tracker, geometries) = try GeometryTypeTracker.decodeAll(values, objectIDs: objectIDs) {
            (value) throws(GeometryError) -> Geometry in try Geometry(geoJSON: value, path: "")
        } name: { value, geometry, _ in
            value["type"]?.stringValue ?? geometry.kind.rawValue
        }
        return (tracker.type, try tracker.unified(geometries))
    }

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

import SieveColumns
import SieveGeometry

/// Reads an Esri JSON FeatureSet into a ``FeatureTable``.
enum EsriJSONLoader {
    static func load(_ root: JSONValue, fields explicitFields: [Field]?) throws(FeatureTableError) -> FeatureTable {
        guard root.objectValue != nil else {
            throw FeatureTableError(
                .invalidEsriJSON, "expected a FeatureSet object, found \(root.kindDescription)", position: root.position)
        }
        func string(_ key: String) throws(FeatureTableError) -> String? {
            guard let member = root[key], !member.isNull else { return nil }
            guard let string = member.stringValue else {
                throw FeatureTableError(
                    .invalidEsriJSON, "\"\(key)\" must be a string, not \(member.kindDescription)",
                    position: member.position)
            }
            return string.isEmpty ? nil : string
        }
        guard let featuresValue = root["features"] else {
            throw FeatureTableError(
                .invalidEsriJSON, "the FeatureSet has no \"features\" array (nor is it a GeoJSON FeatureCollection)",
                position: root.position)
        }
        guard let features = featuresValue.arrayValue else {
            throw FeatureTableError(
                .invalidEsriJSON, "\"features\" must be an array, not \(featuresValue.kindDescription)",
                position: featuresValue.position)
        }
        var declaredType: GeometryType?
        if let name = try string("geometryType") {
            guard let type = GeometryType(rawValue: name) else {
                let known = GeometryType.allCases.map(\.rawValue).joined(separator: ", ")
                throw FeatureTableError(
                    .invalidEsriJSON, "unknown geometryType \(JSONKey.quoted(name)) (expected one of \(known))",
                    position: root["geometryType"]?.position)
            }
            declaredType = type
        }
        let spatialReference = try Self.spatialReference(root["spatialReference"]) ?? .wgs84
        var fields = explicitFields
        if fields == nil, let fieldsValue = root["fields"], !fieldsValue.isNull {
            fields = try Field.fields(esriJSON: fieldsValue)
        }

        var attributes: [JSONObject?] = []
        attributes.reserveCapacity(features.count)
        var geometryValues: [JSONValue?] = []
        geometryValues.reserveCapacity(features.count)
        for (index, feature) in features.enumerated() {
            guard feature.objectValue != nil else {
                throw FeatureTableError(
                    .invalidEsriJSON, "a feature must be an object, not \(feature.kindDescription)",
                    position: feature.position, featureIndex: index)
            }
            if feature["attributes"] == nil, feature["type"] != nil || feature["properties"] != nil {
                throw FeatureTableError(
                    .invalidEsriJSON,
                    "the feature has GeoJSON members (\"type\", \"properties\"), not \"attributes\": "
                        + "a GeoJSON FeatureCollection needs \"type\": \"FeatureCollection\" at its root",
                    position: feature.position, featureIndex: index)
            }
            switch feature["attributes"] {
            case nil, .null?: attributes.append(nil)
            case .object(let object, _)?: attributes.append(object)
            case let other?:
                throw FeatureTableError(
                    .invalidEsriJSON, "\"attributes\" must be an object, not \(other.kindDescription)",
                    position: other.position, featureIndex: index)
            }
            switch feature["geometry"] {
            case nil, .null?: geometryValues.append(nil)
            case let geometry?: geometryValues.append(geometry)
            }
        }
        let assembler = TableAssembler(
            attributes: attributes, featureIDs: nil, explicitFields: fields,
            objectIdFieldName: try string("objectIdFieldName"), globalIdFieldName: try string("globalIdFieldName"),
            displayFieldName: try string("displayFieldName"))
        return try assembler.assemble(spatialReference: spatialReference) { objectIDs throws(FeatureTableError) in
            try geometries(geometryValues, declaredType: declaredType, objectIDs: objectIDs)
        }
    }

    /// Reads every geometry and checks it against the declared geometry type (or, without one,
    /// that all are of one type).
    private static func geometries(
        _ values: [JSONValue?], declaredType: GeometryType?, objectIDs: [Int64]
    ) throws(FeatureTableError) -> (GeometryType?, [Geometry?]) {
        let (tracker, geometries) = try GeometryTypeTracker.decodeAll(values, objectIDs: objectIDs) {
            (value) throws(GeometryError) -> Geometry in try Geometry.decodeEsriJSON(value, path: "").geometry
        } name: { (value, geometry, index) throws(FeatureTableError) -> String in
            let name = esriName(geometry)
            if let declaredType {
                let fits = name == declaredType.rawValue || (declaredType == .multipoint && name == GeometryType.point.rawValue)
                guard fits else {
                    throw FeatureTableError(
                        .mixedGeometryTypes,
                        "the feature has an \(name) geometry but the FeatureSet's geometryType is \(declaredType.rawValue)",
                        position: value.position, featureIndex: index, objectID: objectIDs[index])
                }
            }
            return name
        }
        if declaredType == .multipoint, tracker.type == .point {
            // Every geometry is a point in a multipoint table: store them as 1-point multipoints.
            return (.multipoint, try GeometryTypeTracker.pointsAsMultipoints(geometries, objectIDs: objectIDs))
        }
        return (declaredType ?? tracker.type, try tracker.unified(geometries))
    }

    /// The Esri name of a geometry's type.
    private static func esriName(_ geometry: Geometry) -> String {
        switch geometry {
        case .point: GeometryType.point.rawValue
        case .multipoint: GeometryType.multipoint.rawValue
        case .polyline: GeometryType.polyline.rawValue
        case .polygon: GeometryType.polygon.rawValue
        case .envelope: GeometryType.envelope.rawValue
        case .collection: "geometry collection"
        }
    }

    /// A `spatialReference` object's WKID (`wkid`, else `latestWkid`); `nil` when absent.
    static func spatialReference(_ value: JSONValue?) throws(FeatureTableError) -> SpatialReference? {
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

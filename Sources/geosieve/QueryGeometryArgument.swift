import GeoSieve
import SieveJSON

/// `--geometry`'s text as the query geometry and the spatial reference it carries.
///
/// Besides one geometry (WKT, GeoJSON, Esri JSON, `xmin,ymin,xmax,ymax`, `x,y`), it takes what
/// commands write, so that answers chain (`geosieve query … > a.geojson`, then
/// `--geometry @a.geojson`):
///
/// - a GeoJSON `Feature`: its geometry;
/// - a GeoJSON `FeatureCollection` or an Esri JSON feature set (`{"features": […]}`): its one
///   geometry when it holds one, else the **union** of its geometries (GEOS's unary union: the
///   point set they cover together), so that `intersects` finds what touches any of them and
///   `within` what lies inside them taken together. Features without a geometry are left out;
///   a collection without any geometry is an error.
///
/// GeoJSON is WGS 84 (RFC 7946); an Esri feature set carries its `spatialReference`. `--in-sr`
/// overrides either.
enum QueryGeometryArgument {
    /// The geometry `text` holds and its spatial reference, if it names one.
    /// - Throws: ``CommandFailure`` naming `option` and what is wrong where.
    static func read(_ text: String, option: String) throws -> (geometry: Geometry, spatialReference: SpatialReference?) {
        do {
            // JSON is read once: a Feature, a collection, or a geometry object.
            guard text.utf8.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) == UInt8(ascii: "{") else {
                return try Geometry.parse(text)
            }
            let value = try JSONReader.parse(text)
            guard let collected = try geometries(value) else { return try Geometry.parse(json: value) }
            return (try combined(collected.geometries, option: option), collected.reference)
        } catch let error as GeometryError {
            throw CommandFailure("\(option): \(error)")
        }
    }

    /// The geometries of a Feature, FeatureCollection or feature set and the spatial reference
    /// they are in, or `nil` when the JSON object is none of them (a geometry).
    private static func geometries(_ value: JSONValue) throws(GeometryError) -> (geometries: [Geometry], reference: SpatialReference?)? {
        switch value["type"]?.stringValue {
        case "Feature":
            guard let geometry = value["geometry"], !geometry.isNull else {
                throw GeometryError(.invalidGeoJSON, "the Feature has no geometry")
            }
            return ([try Geometry(geoJSON: geometry, path: "geometry")], .wgs84)
        case "FeatureCollection":
            guard case .array(let features, _)? = value["features"] else {
                throw GeometryError(.invalidGeoJSON, "the FeatureCollection has no \"features\" array")
            }
            var geometries: [Geometry] = []
            for (i, feature) in features.enumerated() {
                guard let geometry = feature["geometry"], !geometry.isNull else { continue }
                geometries.append(try Geometry(geoJSON: geometry, path: "features[\(i)].geometry"))
            }
            return (geometries, .wgs84)
        case nil:
            guard case .array(let features, _)? = value["features"] else { return nil }
            var geometries: [Geometry] = []
            var reference = try value.objectValue.flatMap { object throws(GeometryError) in
                try Geometry.esriJSONSpatialReference(of: object, path: "")
            }
            for (i, feature) in features.enumerated() {
                guard let geometry = feature["geometry"], !geometry.isNull else { continue }
                let decoded = try Geometry.decodeEsriJSON(geometry, path: "features[\(i)].geometry")
                geometries.append(decoded.geometry)
                reference = reference ?? decoded.spatialReference
            }
            return (geometries, reference)
        default:
            return nil
        }
    }

    /// One geometry as is; several as their union.
    private static func combined(_ geometries: [Geometry], option: String) throws -> Geometry {
        guard let first = geometries.first else {
            throw CommandFailure("\(option): the feature collection holds no geometry to query with")
        }
        guard geometries.count > 1 else { return first }
        do throws(GEOSError) {
            return try GEOSContext.withCurrent { context throws(GEOSError) in
                try GEOSGeometry(.collection(GeometryCollection(geometries)), context: context).unaryUnion()
            }
        } catch {
            throw CommandFailure("\(option): the union of the collection's \(geometries.count) geometries failed: \(error.message)")
        }
    }
}

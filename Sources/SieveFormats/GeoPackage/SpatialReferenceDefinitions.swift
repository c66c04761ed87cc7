import SieveFeatures
import SieveGeometry

/// The rows GeoSieve writes into `gpkg_spatial_ref_sys`, and how it reads a row back into a
/// ``/SieveGeometry/SpatialReference``.
///
/// Every GeoPackage holds the three rows the standard requires: `-1` (undefined Cartesian),
/// `0` (undefined geographic) and `4326` (WGS 84). A table in another reference adds its row,
/// with `srs_id` equal to the code: 3857 with the WKT written here; any other code with the
/// definition a caller supplies (``GeoPackageWriteOptions/spatialReferenceDefinition``, e.g.
/// from PROJ), or else `undefined`. The organization is `EPSG`, or `ESRI` for Esri's own codes
/// (100000 and above, except the Web Mercator aliases, which are written as 3857).
public enum GeoPackageSpatialReferences {
    /// OGC WKT (version 1) of WGS 84 (EPSG:4326), as EPSG defines it.
    public static let wgs84WKT =
        #"GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],"#
        + #"AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],"#
        + #"UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],"#
        + #"AUTHORITY["EPSG","4326"]]"#

    /// OGC WKT (version 1) of Web Mercator (EPSG:3857, "WGS 84 / Pseudo-Mercator").
    public static let webMercatorWKT =
        #"PROJCS["WGS 84 / Pseudo-Mercator",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,"#
        + #"AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],"#
        + #"UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4326"]],"#
        + #"PROJECTION["Mercator_1SP"],PARAMETER["central_meridian",0],PARAMETER["scale_factor",1],"#
        + #"PARAMETER["false_easting",0],PARAMETER["false_northing",0],UNIT["metre",1,AUTHORITY["EPSG","9001"]],"#
        + #"AXIS["Easting",EAST],AXIS["Northing",NORTH],"#
        + #"EXTENSION["PROJ4","+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs"],"#
        + #"AUTHORITY["EPSG","3857"]]"#

    /// The WKID GeoSieve uses for an undefined spatial reference (`srs_id` 0 or -1, or the
    /// organization `NONE`): 0, carried as a label like every reference GeoSieve cannot project.
    public static let undefinedWKID = 0

    /// One `gpkg_spatial_ref_sys` row.
    struct Row: Hashable, Sendable {
        var name: String
        var srsID: Int
        var organization: String
        var organizationID: Int
        var definition: String
        var description: String
    }

    /// The rows every GeoPackage holds.
    static let requiredRows: [Row] = [
        Row(
            name: "Undefined cartesian SRS", srsID: -1, organization: "NONE", organizationID: -1,
            definition: "undefined", description: "undefined cartesian coordinate reference system"),
        Row(
            name: "Undefined geographic SRS", srsID: 0, organization: "NONE", organizationID: 0,
            definition: "undefined", description: "undefined geographic coordinate reference system"),
        Row(
            name: "WGS 84 geodetic", srsID: 4326, organization: "EPSG", organizationID: 4326, definition: wgs84WKT,
            description: "longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid"),
    ]

    /// The `srs_id` a table in `reference` is written with, and the row to add for it (`nil`
    /// when it is one of ``requiredRows``).
    static func row(
        for reference: SpatialReference, definition: ((SpatialReference) -> String?)?
    ) -> (srsID: Int, row: Row?) {
        let code = reference.latestWkid
        if code == 4326 { return (4326, nil) }
        if code == undefinedWKID { return (0, nil) }
        if code < 0 { return (-1, nil) }
        if code == 3857 {
            return (
                3857,
                Row(
                    name: "WGS 84 / Pseudo-Mercator", srsID: 3857, organization: "EPSG", organizationID: 3857,
                    definition: webMercatorWKT, description: "Web Mercator (auxiliary sphere), metres"))
        }
        let organization = code >= 100_000 ? "ESRI" : "EPSG"
        let text = definition?(reference).flatMap { $0.isEmpty ? nil : $0 } ?? "undefined"
        return (
            code,
            Row(
                name: "\(organization):\(code)", srsID: code, organization: organization, organizationID: code,
                definition: text, description: ""))
    }

    /// The spatial reference of a `gpkg_spatial_ref_sys` row: `organization_coordsys_id` for
    /// the organizations EPSG and ESRI (any case); ``undefinedWKID`` for `srs_id` 0 and -1 and
    /// the organization NONE; otherwise the `srs_id` when positive, else undefined.
    static func spatialReference(srsID: Int64, organization: String?, organizationID: Int64?) -> SpatialReference {
        let org = organization?.uppercased() ?? ""
        if srsID == 0 || srsID == -1 || org == "NONE" { return SpatialReference(wkid: undefinedWKID) }
        if org == "EPSG" || org == "ESRI", let id = organizationID, let wkid = Int(exactly: id), wkid > 0 {
            return SpatialReference(wkid: wkid)
        }
        if let wkid = Int(exactly: srsID), wkid > 0 { return SpatialReference(wkid: wkid) }
        return SpatialReference(wkid: undefinedWKID)
    }
}

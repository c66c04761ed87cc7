import SieveFeatures
import SieveGeometry
import SieveJSON

/// The JSON documents of the query responses that carry no features, shaped as the ArcGIS REST
/// API answers `returnCountOnly`, `returnIdsOnly` and `returnExtentOnly`.
public enum QueryResponseJSON {
    /// `{"count":N}`.
    public static func count(_ count: Int) -> String {
        var bytes = Array(#"{"count":"#.utf8)
        JSONOutput.appendInteger(Int64(count), to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `{"objectIdFieldName":"OBJECTID","objectIds":[1,2,3]}`, the IDs in the order given.
    public static func objectIDs(_ ids: [Int64], objectIdFieldName: String) -> String {
        var bytes = Array(#"{"objectIdFieldName":"#.utf8)
        JSONWriter.writeString(objectIdFieldName, into: &bytes)
        bytes.append(contentsOf: #","objectIds":["#.utf8)
        for (i, id) in ids.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONOutput.appendInteger(id, to: &bytes)
        }
        bytes.append(contentsOf: "]}".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `{"count":N,"extent":{"xmin":…,"ymin":…,"xmax":…,"ymax":…,"spatialReference":{"wkid":4326}}}`.
    ///
    /// An empty extent (no selected row has a geometry) is written as Esri JSON writes an empty
    /// envelope: `{"xmin":null,"ymin":null,"xmax":null,"ymax":null,"spatialReference":{…}}`.
    /// The spatial reference carries `latestWkid` when it differs from `wkid`
    /// (`{"wkid":102100,"latestWkid":3857}`).
    public static func extent(count: Int, extent: Envelope, spatialReference: SpatialReference) -> String {
        var bytes = Array(#"{"count":"#.utf8)
        JSONOutput.appendInteger(Int64(count), to: &bytes)
        bytes.append(contentsOf: #","extent":{"#.utf8)
        let empty = extent.isEmpty
        for (i, (name, value)) in [("xmin", extent.xmin), ("ymin", extent.ymin), ("xmax", extent.xmax), ("ymax", extent.ymax)]
            .enumerated()
        {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(name, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            if empty {
                bytes.append(contentsOf: "null".utf8)
            } else {
                JSONWriter.writeDouble(value, into: &bytes)
            }
        }
        bytes.append(contentsOf: #","spatialReference":"#.utf8)
        JSONOutput.appendSpatialReference(spatialReference, to: &bytes)
        bytes.append(contentsOf: "}}".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }
}

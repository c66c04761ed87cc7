import SieveColumns
import SieveFeatures

extension FeatureTable {
    /// Whether an object-ID field of this name is a record position, as shapefiles' and
    /// FlatGeobuf files' `FID` (and GDAL's GeoPackage `fid`): `FID`, or `FID_N` as GeoSieve names
    /// it beside a field called `FID`, in any case. Such IDs are not kept when writing those
    /// formats, where the position gives the FID again.
    static func isPositionalObjectIDName(_ name: String) -> Bool {
        let upper = name.uppercased()
        return upper == "FID" || (upper.hasPrefix("FID_") && Int(upper.dropFirst(4)) != nil)
    }

    /// The rows not deleted, in order.
    var liveRows: [Int] { (0..<count).filter { !isDeleted(row: $0) } }
}

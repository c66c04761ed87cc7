import Foundation
import SieveFeatures
import SieveStore
import Testing
@Test func scratchWrite() throws {
    for name in fixtureNames {
        let t = try FeatureTable.load(contentsOf: fixtureURL(name))
        try GeoPackage.write(t, to: "/tmp/gp/\(name).gpkg", options: GeoPackageWriteOptions(layerName: String(name.split(separator: ".")[0])))
    }
}

import Foundation
import Testing
import SieveTestSupport

/// `--out-sr`, `--in-sr` and `--format` as GIS users type them: `EPSG:3857`, `ESRI:102100`, the
/// OGC URN, any case; the same answers as the bare code and the lower-case name.
@Suite(.tags(.cli)) struct SpatialReferenceArgumentTests {
    static let boroughs = OutputCLITests.boroughs

    @Test(arguments: ["EPSG:3857", "epsg:3857", "urn:ogc:def:crs:EPSG::3857"])
    func outSRTakesAnAuthorityPrefix(_ code: String) throws {
        let plain = try OutputCLITests.success(["query", Self.boroughs, "--return", "extent", "--out-sr", "3857"])
        #expect(try OutputCLITests.success(["query", Self.boroughs, "--return", "extent", "--out-sr", code]) == plain)
        #expect(plain.contains(#""spatialReference":{"wkid":3857}"#))
    }

    @Test func esriCodesTakeTheirPrefix() throws {
        let plain = try OutputCLITests.success(["query", Self.boroughs, "--return", "extent", "--out-sr", "102100"])
        #expect(try OutputCLITests.success(["query", Self.boroughs, "--return", "extent", "--out-sr", "ESRI:102100"]) == plain)
    }

    @Test func inSRTakesAnAuthorityPrefix() throws {
        // A box in Web Mercator around Manhattan, given as EPSG:3857 and as 3857.
        let box = "-8240000,4960000,-8230000,4990000"
        let plain = try OutputCLITests.success(["query", Self.boroughs, "--geometry", box, "--in-sr", "3857", "--return", "ids"])
        #expect(try OutputCLITests.success(["query", Self.boroughs, "--geometry", box, "--in-sr", "EPSG:3857", "--return", "ids"]) == plain)
        #expect(plain.contains("objectIds\":["))
        #expect(!plain.contains("objectIds\":[]"))
    }

    @Test(arguments: ["EPSG:", "EPSG:abc", "EPSG:3857x", "OGC:CRS84", "3857.0"])
    func otherTextIsRefused(_ code: String) throws {
        let message = try OutputCLITests.failure(["query", Self.boroughs, "--out-sr", code], status: 2)
        #expect(message.contains("--out-sr"))
    }

    @Test(arguments: ["GPKG", "GeoJSON", "CSV", "EsriJSON"])
    func formatNamesTakeAnyCase(_ name: String) throws {
        try OutputCLITests.withFolder { folder in
            let upper = "\(folder)/upper.out"
            let lower = "\(folder)/lower.out"
            _ = try OutputCLITests.success(["convert", Self.boroughs, "--output", upper, "--format", name])
            _ = try OutputCLITests.success(["convert", Self.boroughs, "--output", lower, "--format", name.lowercased()])
            #expect(try Data(contentsOf: URL(fileURLWithPath: upper)).count > 0)
            if name != "GPKG" {  // a GeoPackage holds its own timestamps
                #expect(try Data(contentsOf: URL(fileURLWithPath: upper)) == Data(contentsOf: URL(fileURLWithPath: lower)))
            }
        }
    }
}

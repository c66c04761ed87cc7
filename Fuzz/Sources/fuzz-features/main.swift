import FuzzSupport
import GeoSieve

/// Feature collections: load any text as a GeoJSON FeatureCollection or Feature and as an Esri
/// JSON FeatureSet. A table that loads must answer a query, an extent, an identify and a spatial
/// query, and its GeoJSON output must load back with the same features.
func fuzzFeatures(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = Fuzzing.text(data, count)
    if let table = try? FeatureTable.load(geoJSON: text) { exercise(table, text) }
    if let table = try? FeatureTable.load(esriJSON: text) { exercise(table, text) }
    return 0
}

func exercise(_ table: FeatureTable, _ text: String) {
    guard let all = try? table.queryFeatures(QueryParameters()) else {
        Fuzzing.fail("a loaded table cannot answer 1=1: \(Fuzzing.excerpt(text))")
    }
    Fuzzing.check(all.count == table.count, "1=1 selects \(all.count) of \(table.count) features")
    let geoJSON = all.geoJSON
    _ = all.esriJSON
    do {
        let again = try FeatureTable.load(geoJSON: geoJSON)
        Fuzzing.check(again.count == table.count, "the GeoJSON output holds \(again.count) of \(table.count) features")
    } catch {
        // Coordinates of another spatial reference or fields GeoJSON cannot name may not load
        // back as GeoJSON; what must not happen is a crash, which the sanitizers catch.
    }
    _ = try? table.queryExtent(QueryParameters())
    let extent = table.extent
    if extent.xmin.isFinite, extent.xmax.isFinite, extent.ymin.isFinite, extent.ymax.isFinite {
        let identify = IdentifyParameters(
            x: (extent.xmin + extent.xmax) / 2, y: (extent.ymin + extent.ymax) / 2, tolerance: 5,
            mapExtent: extent, width: 800, height: 600, maxResults: 5)
        _ = try? table.identify(identify)
        let window = Geometry.envelope(Envelope(
            xmin: extent.xmin, ymin: extent.ymin,
            xmax: extent.xmin + (extent.xmax - extent.xmin) / 2, ymax: extent.ymin + (extent.ymax - extent.ymin) / 2))
        for relationship in [SpatialRelationship.intersects, .within, .contains] {
            _ = try? table.queryFeatureCount(QueryParameters(geometry: window, spatialRelationship: relationship))
        }
    }
}

#if FUZZING
@_cdecl("fuzz_features_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.run(argc, argv, fuzzFeatures)
}
#endif

import FuzzSupport
import GeoSieve

/// GeoJSON geometry objects: read any text; what reads must write, read back and settle, survive
/// WKB, and relate to other geometries through GEOS without crashing.
func fuzzGeoJSON(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = Fuzzing.text(data, count)
    guard let geometry = try? Geometry(geoJSON: text) else { return 0 }
    GeometryChecks.checkAll(geometry, format: "GeoJSON", write: { $0.geoJSON }, read: { try Geometry(geoJSON: $0) })
    return 0
}

#if FUZZING
@_cdecl("fuzz_geojson_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.run(argc, argv, fuzzGeoJSON)
}
#endif

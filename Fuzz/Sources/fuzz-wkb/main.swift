import FuzzSupport
import GeoSieve

/// WKB (ISO, EWKB, both byte orders): read any bytes; what reads must write, read back and
/// settle, and relate to other geometries through GEOS without crashing.
func fuzzWKB(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Fuzzing.bytes(data, count)
    guard let geometry = try? Geometry(wkb: bytes) else { return 0 }
    GeometryChecks.checkAll(geometry, format: "WKT", write: { $0.wkt }, read: { try Geometry(wkt: $0) })
    return 0
}

#if FUZZING
@_cdecl("fuzz_wkb_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.run(argc, argv, fuzzWKB)
}
#endif

import FuzzSupport
import GeoSieve

/// WKT: read any text; what reads must write, read back and settle, survive WKB, and relate to
/// other geometries through GEOS without crashing or contradicting itself.
func fuzzWKT(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = Fuzzing.text(data, count)
    guard let geometry = try? Geometry(wkt: text) else { return 0 }
    GeometryChecks.checkAll(geometry, format: "WKT", write: { $0.wkt }, read: { try Geometry(wkt: $0) })
    return 0
}

#if FUZZING
@_cdecl("fuzz_wkt_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.run(argc, argv, fuzzWKT)
}
#endif

import FuzzSupport
import GeoSieve

/// Esri JSON geometry objects (with spatial references): read any text; what reads must write,
/// read back and settle, and relate to other geometries through GEOS without crashing.
func fuzzEsriJSON(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = Fuzzing.text(data, count)
    guard let (geometry, reference) = try? Geometry.decodeEsriJSON(text) else { return 0 }
    GeometryChecks.checkAll(
        geometry, format: "Esri JSON",
        write: { try $0.esriJSON(spatialReference: reference) },
        read: { try Geometry.decodeEsriJSON($0).geometry })
    return 0
}

#if FUZZING
@_cdecl("fuzz_esrijson_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.run(argc, argv, fuzzEsriJSON)
}
#endif

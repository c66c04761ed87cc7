import ArgumentParser

/// The value of `--in-sr` and `--out-sr`: a WKID written as GIS users type it — `3857`,
/// `EPSG:3857`, `epsg:3857`, `ESRI:102100`, or the URN form `urn:ogc:def:crs:EPSG::3857` — the
/// authority in any case. EPSG and ESRI codes share one number space (ESRI's are 100000 and up),
/// so the authority only has to be one of the two; whether PROJ knows the code is checked later.
struct SpatialReferenceCode: ExpressibleByArgument {
    /// The code.
    var wkid: Int

    init?(argument: String) {
        var text = Substring(argument)
        let lower = argument.lowercased()
        for prefix in ["urn:ogc:def:crs:epsg::", "urn:ogc:def:crs:esri::", "epsg:", "esri:"] where lower.hasPrefix(prefix) {
            text = text.dropFirst(prefix.count)
            break
        }
        guard let wkid = Int(text) else { return nil }
        self.wkid = wkid
    }
}

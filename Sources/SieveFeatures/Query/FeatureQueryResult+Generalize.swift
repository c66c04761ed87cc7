import SieveGeometry

extension FeatureQueryResult {
    /// The same features with their geometries generalized
    /// (``/SieveGeometry/Geometry/generalized(maxOffset:)``), `maxOffset` in the units of
    /// ``spatialReference``: what the ArcGIS REST API's `maxAllowableOffset` asks for. The
    /// result itself when it returns no geometries or `maxOffset` is not above 0.
    public func generalized(maxOffset: Double) -> FeatureQueryResult {
        guard returnsGeometry, maxOffset > 0 else { return self }
        let geometries = rows.indices.map { geometry(at: $0)?.generalized(maxOffset: maxOffset) }
        return FeatureQueryResult(
            table: table, rows: rows, fieldIndices: fieldIndices, returnsGeometry: returnsGeometry,
            exceededTransferLimit: exceededTransferLimit, spatialReference: spatialReference, projectedGeometries: geometries)
    }
}

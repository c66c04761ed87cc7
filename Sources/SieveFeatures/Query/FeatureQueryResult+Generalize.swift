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

extension FeatureQueryResult {
    /// Which ordinates the returned geometries carry: z or m when one of them has them; `.xy`
    /// when the result returns none. For stored geometries of a column that keeps neither, O(1);
    /// else one look at each returned row's flags (or projected geometry).
    public var geometryLayout: CoordinateLayout {
        guard returnsGeometry else { return .xy }
        var layout = CoordinateLayout.xy
        func add(_ other: CoordinateLayout) -> Bool {
            layout = CoordinateLayout(hasZ: layout.hasZ || other.hasZ, hasM: layout.hasM || other.hasM)
            return layout == .xyzm
        }
        if let projectedGeometries {
            for case let geometry? in projectedGeometries where add(geometry.layout) { break }
            return layout
        }
        let column = table.geometryColumn
        guard column.hasZ || column.hasM else { return .xy }
        for row in rows where !column.isNull(row: row) && add(column.layout(row: row)) { break }
        return layout
    }

    /// The same features with only the ordinates `layout` allows in their geometries
    /// (``/SieveGeometry/Geometry/keepingOrdinates(_:)``): what the ArcGIS REST `returnZ` and
    /// `returnM` ask for. The result itself when its geometries carry nothing `layout` drops.
    public func keepingOrdinates(_ layout: CoordinateLayout) -> FeatureQueryResult {
        guard geometryLayout.intersection(layout) != geometryLayout else { return self }
        let geometries = rows.indices.map { geometry(at: $0)?.keepingOrdinates(layout) }
        return FeatureQueryResult(
            table: table, rows: rows, fieldIndices: fieldIndices, returnsGeometry: returnsGeometry,
            exceededTransferLimit: exceededTransferLimit, spatialReference: spatialReference, projectedGeometries: geometries)
    }
}

extension FeatureQueryResult {
    /// The same answer without its features, still saying whether rows were left off: what an
    /// ArcGIS tile query (`resultType=tile`) with `returnExceededLimitFeatures=false` answers
    /// when its page did not hold every feature, so that the client asks for smaller tiles.
    public func leavingOutFeatures() -> FeatureQueryResult {
        FeatureQueryResult(
            table: table, rows: [], fieldIndices: fieldIndices, returnsGeometry: returnsGeometry,
            exceededTransferLimit: exceededTransferLimit, spatialReference: spatialReference,
            projectedGeometries: projectedGeometries.map { _ in [] })
    }
}

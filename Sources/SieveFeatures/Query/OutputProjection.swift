import SieveGeometry
import SieveProjection

/// Results in another spatial reference than the table's: ``QueryParameters/outSpatialReference``.
enum OutputProjection {
    /// The projector from the table's reference to the query's output reference, or `nil` when
    /// the query asks for none or for the table's own.
    /// - Throws: ``FeatureTableError/Kind/invalidQuery`` when PROJ does not know one of the
    ///   references or has no transformation between them.
    static func projector(_ query: QueryParameters, table: FeatureTable) throws(FeatureTableError) -> Projector? {
        guard let output = query.outSpatialReference, output != table.spatialReference else { return nil }
        do {
            return try Projector(from: table.spatialReference, to: output)
        } catch {
            throw FeatureTableError(
                .invalidQuery,
                "cannot project the results from the table's wkid \(table.spatialReference.wkid) to wkid \(output.wkid): \(error)")
        }
    }

    /// `geometry` in the output reference: vertex by vertex, except that an envelope stays an
    /// envelope (through PROJ, the envelope of its densified outline).
    static func project(
        _ geometry: Geometry, with projector: Projector, context: ProjectionContext
    ) throws(ProjectionError) -> Geometry {
        if case .envelope(let envelope) = geometry, projector.method == .proj, !envelope.isEmpty {
            return .envelope(try projector.project(geometry, densification: .standard, context: context).envelope)
        }
        return try projector.project(geometry, context: context)
    }

    /// The error for the feature in `row` whose geometry did not project.
    static func failure(_ error: ProjectionError, row: Int, table: FeatureTable, projector: Projector) -> FeatureTableError {
        FeatureTableError(
            .invalidQuery,
            "cannot project the geometry of the feature with \(table.schema.objectIdFieldName) \(table.objectID(row: row)) "
                + "to wkid \(projector.target.wkid): \(error)")
    }

    /// The geometries of `rows`, in that order, in the output reference.
    static func geometries(rows: [Int], table: FeatureTable, projector: Projector) throws(FeatureTableError) -> [Geometry?] {
        try ProjectionContext.withCurrent { context throws(FeatureTableError) -> [Geometry?] in
            var result: [Geometry?] = []
            result.reserveCapacity(rows.count)
            for row in rows {
                guard let geometry = table.geometry(row: row) else {
                    result.append(nil)
                    continue
                }
                do throws(ProjectionError) {
                    result.append(try project(geometry, with: projector, context: context))
                } catch {
                    throw failure(error, row: row, table: table, projector: projector)
                }
            }
            return result
        }
    }

    /// The union of the envelopes of the geometries of `rows` in the output reference.
    ///
    /// Between 4326 and 3857 each envelope is projected corner by corner (the formulas are
    /// monotone along each axis, so that is the envelope of the projected geometry); through
    /// PROJ each geometry is projected.
    static func extent(rows: [UInt32], table: FeatureTable, projector: Projector) throws(FeatureTableError) -> Envelope {
        try ProjectionContext.withCurrent { context throws(FeatureTableError) -> Envelope in
            var extent = Envelope.empty
            for row in rows {
                let r = Int(row)
                do throws(ProjectionError) {
                    if projector.method != .proj {
                        guard let envelope = table.envelope(row: r) else { continue }
                        extent.expand(toInclude: try projector.project(.envelope(envelope), context: context).envelope)
                    } else if let geometry = table.geometry(row: r), !geometry.isEmpty {
                        extent.expand(toInclude: try project(geometry, with: projector, context: context).envelope)
                    }
                } catch {
                    throw failure(error, row: r, table: table, projector: projector)
                }
            }
            return extent
        }
    }
}

import ArgumentParser
import GeoSieve

/// The spatial filter options `query` and `convert` share: `--geometry`, `--in-sr`,
/// `--spatial-rel` and `--relation`.
struct SpatialFilterOptions: ParsableArguments {
    /// `--spatial-rel`.
    enum SpatialRelOption: String, ExpressibleByArgument, CaseIterable {
        case intersects, contains, within, touches, crosses, overlaps, equals, disjoint
        case envelopeIntersects = "envelope-intersects"
        case relate
    }

    @Option(
        parsing: .unconditional,
        help: "Query geometry: WKT, GeoJSON, Esri JSON, 'xmin,ymin,xmax,ymax', 'x,y', or @FILE (at most 64 MiB).")
    var geometry: String?

    @Option(
        name: .customLong("in-sr"), parsing: .unconditional,
        help: "The WKID (EPSG or ESRI code) the --geometry is written in (default: the table's).")
    var inSR: Int?

    @Option(
        name: .customLong("spatial-rel"),
        help: "intersects (default), contains, within, touches, crosses, overlaps, equals, disjoint, envelope-intersects or relate.")
    var spatialRel: SpatialRelOption?

    @Option(parsing: .unconditional, help: "The DE-9IM pattern for --spatial-rel relate, feature first, e.g. 'T*F**F***'.")
    var relation: String?

    /// Sets the query's geometry, its spatial reference and the relationship; checks that the
    /// options go together.
    func apply(to query: inout QueryParameters) throws {
        let relationship: SpatialRelationship
        switch spatialRel ?? .intersects {
        case .intersects: relationship = .intersects
        case .contains: relationship = .contains
        case .within: relationship = .within
        case .touches: relationship = .touches
        case .crosses: relationship = .crosses
        case .overlaps: relationship = .overlaps
        case .equals: relationship = .equals
        case .disjoint: relationship = .disjoint
        case .envelopeIntersects: relationship = .envelopeIntersects
        case .relate:
            guard let relation else {
                throw CommandFailure("--spatial-rel relate needs --relation PATTERN (9 of T F * 0 1 2)")
            }
            relationship = .relate(pattern: relation)
        }
        if relation != nil, spatialRel != .relate {
            throw CommandFailure("--relation is only allowed with --spatial-rel relate")
        }
        guard let geometry else {
            if spatialRel != nil { throw CommandFailure("--spatial-rel needs --geometry") }
            if inSR != nil { throw CommandFailure("--in-sr needs --geometry") }
            return
        }
        let inReference = try inSR.map { code in try QueryCommand.spatialReference(code, option: "--in-sr") }
        let text = try argumentText(geometry, argument: "--geometry")
        let parsed: (geometry: Geometry, spatialReference: SpatialReference?)
        do {
            parsed = try Geometry.parse(text)
        } catch {
            throw CommandFailure("--geometry: \(error)")
        }
        query.geometry = parsed.geometry
        query.inSpatialReference = inReference ?? parsed.spatialReference
        query.spatialRelationship = relationship
    }
}

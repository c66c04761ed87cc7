import ArgumentParser
import GeoSieve

/// The spatial filter options `query` and `convert` share: `--geometry`, `--in-sr`,
/// `--spatial-rel`, `--relation`, `--distance` and `--units`.
struct SpatialFilterOptions: ParsableArguments {
    /// `--spatial-rel`.
    enum SpatialRelOption: String, ExpressibleByArgument, CaseIterable {
        case intersects, contains, within, touches, crosses, overlaps, equals, disjoint
        case envelopeIntersects = "envelope-intersects"
        case relate
    }

    @Option(
        parsing: .unconditional,
        help: "Query geometry: WKT, GeoJSON, Esri JSON, 'xmin,ymin,xmax,ymax', 'x,y', or @FILE (at most 64 MiB); a GeoJSON Feature gives its geometry, a FeatureCollection or Esri feature set its one geometry or the union of its geometries.")
    var geometry: String?

    @Option(
        name: .customLong("in-sr"), parsing: .unconditional,
        help: "The WKID (EPSG or ESRI code: 2263, EPSG:2263, ESRI:102718) the --geometry is written in (default: the table's).")
    var inSR: SpatialReferenceCode?

    @Option(
        name: .customLong("spatial-rel"),
        help: "intersects (default), contains, within, touches, crosses, overlaps, equals, disjoint, envelope-intersects or relate.")
    var spatialRel: SpatialRelOption?

    @Option(parsing: .unconditional, help: "The DE-9IM pattern for --spatial-rel relate, feature first, e.g. 'T*F**F***'.")
    var relation: String?

    /// `--units`.
    enum UnitOption: String, ExpressibleByArgument, CaseIterable {
        case m, km, ft, mi, nmi

        var unit: QueryDistance.Unit {
            switch self {
            case .m: .meter
            case .km: .kilometer
            case .ft: .foot
            case .mi: .statuteMile
            case .nmi: .nauticalMile
            }
        }
    }

    @Option(
        parsing: .unconditional,
        help: "Select the features within this distance of --geometry (along the ellipsoid in geographic and Web Mercator tables, in the plane in projected ones).")
    var distance: Double?

    @Option(help: "The unit of --distance: m (default), km, ft, mi (statute) or nmi.")
    var units: UnitOption?

    /// The extent a feature service SOURCE must be read in for `query` (its geometry's envelope):
    /// `nil` without a geometry, for `disjoint` and `relate` (whose pattern may select features
    /// outside it) and for a geometry in another spatial reference (`--in-sr`), whose envelope
    /// in the layer's is not known before the layer is read, or with a distance (whose window is
    /// the layer's to compute).
    func readExtent(_ query: QueryParameters) -> Envelope? {
        guard spatialRel != .disjoint, spatialRel != .relate, inSR == nil, distance == nil, let envelope = query.geometry?.envelope,
            !envelope.isEmpty
        else { return nil }
        return envelope
    }

    /// Sets the query's geometry, its spatial reference and the relationship; checks that the
    /// options go together.
    func apply(to query: inout QueryParameters) throws {
        if spatialRel == .relate, relation == nil {
            throw CommandFailure("--spatial-rel relate needs --relation PATTERN (9 of T F * 0 1 2)")
        }
        if relation != nil, spatialRel != .relate {
            throw CommandFailure("--relation is only allowed with --spatial-rel relate")
        }
        if units != nil, distance == nil { throw CommandFailure("--units needs --distance") }
        if let distance {
            guard distance.isFinite, distance >= 0 else { throw CommandFailure("--distance must be a number of at least 0") }
            if let spatialRel, spatialRel != .intersects {
                throw CommandFailure("--distance applies to --spatial-rel intersects only, not \(spatialRel.rawValue)")
            }
        }
        guard let geometry else {
            if distance != nil { throw CommandFailure("--distance needs --geometry") }
            if spatialRel != nil { throw CommandFailure("--spatial-rel needs --geometry") }
            if inSR != nil { throw CommandFailure("--in-sr needs --geometry") }
            return
        }
        let inReference = try inSR.map { code in try QueryCommand.spatialReference(code.wkid, option: "--in-sr") }
        let read = try QueryGeometryArgument.read(try argumentText(geometry, argument: "--geometry"), option: "--geometry")
        do {
            query.spatialRelationship = try SpatialRelationship(name: (spatialRel ?? .intersects).rawValue, relation: relation)
        } catch {
            throw CommandFailure(error.message)
        }
        query.geometry = read.geometry
        query.inSpatialReference = inReference ?? read.spatialReference
        if let distance, distance > 0 { query.distance = QueryDistance(distance, units?.unit ?? .meter) }
    }
}

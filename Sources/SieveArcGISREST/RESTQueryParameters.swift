import SieveFeatures
import SieveGeometry
import SieveSQL
import SieveJSON

/// The text forms of query parameters, as the ArcGIS REST API and the `geosieve` command line
/// write them, read into ``QueryParameters`` values: shared by every front end so that they
/// accept and reject the same inputs with the same messages.
extension QueryParameters {
    /// Reads an `objectIds` list: integers separated by commas, spaces around each allowed
    /// (`37, 462`).
    /// - Throws: ``/SieveFeatures/FeatureTableError/Kind/invalidQuery`` naming the first item that
    ///   is not an integer object ID (an empty item included).
    public static func objectIDList(_ text: String, parameter: String = "objectIds") throws(FeatureTableError) -> [Int64] {
        var ids: [Int64] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = String(item.trimmingWhitespace())
            guard let id = Int64(trimmed) else {
                throw FeatureTableError(.invalidQuery, "\(parameter): \(JSONKey.quoted(trimmed)) is not an integer object ID")
            }
            ids.append(id)
        }
        return ids
    }

    /// Reads an `outFields` list: `*` or field names separated by commas (spaces around each
    /// allowed). Names are resolved when the query runs.
    /// - Throws: ``/SieveFeatures/FeatureTableError/Kind/invalidQuery`` for an empty name (`a,,b`),
    ///   or more names than a table can have fields.
    public static func outFieldList(_ text: String, parameter: String = "outFields") throws(FeatureTableError) -> [String] {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0.trimmingWhitespace()) }
        guard names.count <= Schema.maximumFieldCount + 1 else {
            throw FeatureTableError(.invalidQuery, "\(parameter) lists \(names.count) names; a table has at most \(Schema.maximumFieldCount) fields")
        }
        if names.contains("") {
            throw FeatureTableError(.invalidQuery, "\(parameter): empty field name in \(JSONKey.quoted(text))")
        }
        return names
    }

    /// Sets the spatial filter from its text form: the query geometry (Esri JSON, GeoJSON,
    /// WKT, or the REST simple syntax `x,y` / `xmin,ymin,xmax,ymax`), the geometry type it must
    /// have (REST `geometryType`, e.g. `esriGeometryPolygon`; `nil` to accept any), the
    /// spatial reference it is written in (`nil`: the one the geometry carries, else the
    /// table's) and the relationship.
    ///
    /// The REST simple syntax is typed by its number count (an envelope or a point) whatever
    /// `geometryType` says, as ArcGIS reads it.
    /// - Throws: ``/SieveFeatures/FeatureTableError/Kind/invalidQuery`` for a geometry that does
    ///   not parse (with the reason and position), an unknown geometry type name, or a geometry of
    ///   another type than `geometryType`.
    public mutating func setSpatialFilter(
        geometry text: String, geometryType: String? = nil, inSpatialReference: SpatialReference? = nil,
        relationship: SpatialRelationship = .intersects, parameter: String = "geometry"
    ) throws(FeatureTableError) {
        let parsed: (geometry: Geometry, spatialReference: SpatialReference?)
        do {
            parsed = try Geometry.parse(text)
        } catch {
            throw FeatureTableError(.invalidQuery, "\(parameter): \(error)")
        }
        if let geometryType {
            let expected: Geometry.Kind
            switch geometryType.trimmingWhitespace() {
            case "esriGeometryPoint": expected = .point
            case "esriGeometryMultipoint": expected = .multipoint
            case "esriGeometryPolyline": expected = .polyline
            case "esriGeometryPolygon": expected = .polygon
            case "esriGeometryEnvelope": expected = .envelope
            default:
                throw FeatureTableError(
                    .invalidQuery,
                    "geometryType: \(JSONKey.quoted(geometryType)) is not one of esriGeometryPoint, esriGeometryMultipoint, "
                        + "esriGeometryPolyline, esriGeometryPolygon, esriGeometryEnvelope")
            }
            let simpleSyntax = text.first.map { $0 != "{" } ?? false && (parsed.geometry.kind == .point || parsed.geometry.kind == .envelope)
            if parsed.geometry.kind != expected, !simpleSyntax {
                throw FeatureTableError(
                    .invalidQuery, "\(parameter): a \(parsed.geometry.kind.rawValue) where geometryType says \(geometryType)")
            }
        }
        geometry = parsed.geometry
        self.inSpatialReference = inSpatialReference ?? parsed.spatialReference
        spatialRelationship = relationship
    }
}

extension SpatialRelationship {
    /// The relationship a command-line name stands for: `intersects`, `contains`, `within`,
    /// `touches`, `crosses`, `overlaps`, `equals`, `disjoint`, `envelope-intersects` (or
    /// `envelopeIntersects`), or `relate` with a DE-9IM `relation` pattern (feature first).
    /// Names are read ignoring case.
    /// - Throws: ``/SieveFeatures/FeatureTableError/Kind/invalidQuery`` for an unknown name,
    ///   `relate` without a pattern, a pattern with another relationship, or a malformed pattern.
    public init(name: String, relation: String? = nil) throws(FeatureTableError) {
        let key = name.trimmingWhitespace().lowercased()
        if key == "relate" {
            guard let relation else {
                throw FeatureTableError(.invalidQuery, "relate needs a DE-9IM pattern (9 of T F * 0 1 2)")
            }
            if let problem = Self.patternProblem(relation) { throw FeatureTableError(.invalidQuery, problem) }
            self = .relate(pattern: relation)
            return
        }
        if relation != nil {
            throw FeatureTableError(.invalidQuery, "a DE-9IM pattern is only allowed with relate, not with \(name)")
        }
        let spelled = key == "envelope-intersects" ? "envelopeintersects" : key
        guard let found = Self.named.first(where: { $0.description.lowercased() == spelled }) else {
            throw FeatureTableError(
                .invalidQuery,
                "unknown spatial relationship \(JSONKey.quoted(name)): expected one of "
                    + Self.named.map(\.description).joined(separator: ", ") + ", relate")
        }
        self = found
    }

    /// The relationship an ArcGIS REST `spatialRel` value asks for, translated to GeoSieve's
    /// feature-first reading.
    ///
    /// REST reads every relationship query geometry first ("query geometry *contains*
    /// feature"), GeoSieve feature first, so:
    ///
    /// | `spatialRel` | GeoSieve |
    /// |---|---|
    /// | `esriSpatialRelIntersects` (default) | ``/SieveGeometry/SpatialRelationship/intersects`` |
    /// | `esriSpatialRelContains` (the feature lies in the query geometry) | ``/SieveGeometry/SpatialRelationship/within`` |
    /// | `esriSpatialRelWithin` (the feature contains the query geometry) | ``/SieveGeometry/SpatialRelationship/contains`` |
    /// | `esriSpatialRelCrosses`, `…Overlaps`, `…Touches`, `…Disjoint` | the same (symmetric) |
    /// | `esriSpatialRelEnvelopeIntersects`, `esriSpatialRelIndexIntersects` | ``/SieveGeometry/SpatialRelationship/envelopeIntersects`` |
    /// | `esriSpatialRelRelation` + `relationParam` (query first) | ``/SieveGeometry/SpatialRelationship/relate(pattern:)`` with the pattern transposed (feature first) |
    ///
    /// - Throws: ``/SieveFeatures/FeatureTableError/Kind/invalidQuery`` for an unknown value, a
    ///   `Relation` without `relationParam`, or a malformed pattern.
    public init(esriSpatialRel value: String, relationParam: String? = nil) throws(FeatureTableError) {
        switch value.trimmingWhitespace() {
        case "", "esriSpatialRelIntersects": self = .intersects
        case "esriSpatialRelContains": self = .within
        case "esriSpatialRelWithin": self = .contains
        case "esriSpatialRelCrosses": self = .crosses
        case "esriSpatialRelOverlaps": self = .overlaps
        case "esriSpatialRelTouches": self = .touches
        case "esriSpatialRelDisjoint": self = .disjoint
        case "esriSpatialRelEnvelopeIntersects", "esriSpatialRelIndexIntersects": self = .envelopeIntersects
        case "esriSpatialRelRelation":
            guard let relationParam, !relationParam.allSatisfy(\.isWhitespace) else {
                throw FeatureTableError(.invalidQuery, "spatialRel esriSpatialRelRelation needs relationParam")
            }
            let pattern = String(relationParam.trimmingWhitespace())
            if let problem = Self.patternProblem(pattern) {
                throw FeatureTableError(.invalidQuery, "relationParam: \(problem)")
            }
            self = .relate(pattern: Self.transposed(pattern))
        default:
            throw FeatureTableError(
                .invalidQuery,
                "spatialRel: \(JSONKey.quoted(value)) is not one of esriSpatialRelIntersects, esriSpatialRelContains, "
                    + "esriSpatialRelCrosses, esriSpatialRelEnvelopeIntersects, esriSpatialRelIndexIntersects, "
                    + "esriSpatialRelOverlaps, esriSpatialRelTouches, esriSpatialRelWithin, esriSpatialRelRelation, "
                    + "esriSpatialRelDisjoint")
        }
    }

    /// The ArcGIS REST `spatialRel` value (and `relationParam`, query first) that asks for this
    /// relationship, or `nil` for `equals`, which REST does not offer.
    public var esriSpatialRel: (spatialRel: String, relationParam: String?)? {
        switch self {
        case .intersects: ("esriSpatialRelIntersects", nil)
        case .within: ("esriSpatialRelContains", nil)
        case .contains: ("esriSpatialRelWithin", nil)
        case .crosses: ("esriSpatialRelCrosses", nil)
        case .overlaps: ("esriSpatialRelOverlaps", nil)
        case .touches: ("esriSpatialRelTouches", nil)
        case .disjoint: ("esriSpatialRelDisjoint", nil)
        case .envelopeIntersects: ("esriSpatialRelEnvelopeIntersects", nil)
        case .relate(let pattern): ("esriSpatialRelRelation", Self.transposed(pattern))
        case .equals: nil
        }
    }

    /// A DE-9IM pattern with its operands swapped: cell (row i, column j) becomes (j, i).
    public static func transposed(_ pattern: String) -> String {
        let cells = Array(pattern)
        guard cells.count == 9 else { return pattern }
        return String((0..<9).map { cells[($0 % 3) * 3 + $0 / 3] })
    }
}

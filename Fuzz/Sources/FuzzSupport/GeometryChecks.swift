import GeoSieve

/// The properties every geometry a reader accepted must have.
public enum GeometryChecks {
    /// The GEOS context of the geometry targets (each fuzzer runs on one thread).
    nonisolated(unsafe) static let context = try? GEOSContext()

    /// Every check of a geometry a reader accepted: it settles through its own format
    /// (`write`, `read`), survives WKB, and relates to the partners through GEOS.
    public static func checkAll(
        _ geometry: Geometry, format: String,
        write: (Geometry) throws -> String, read: (String) throws -> Geometry
    ) {
        checkSettles(geometry, format: format, write: write, read: read)
        checkWKB(geometry)
        if let context { checkRelationships(geometry, context: context) }
    }

    /// Writing a geometry and reading it back settles after one round: the second write is the
    /// first. (The first round may normalize: ring orientation, single versus multi, envelopes.)
    public static func checkSettles(
        _ geometry: Geometry, format: String,
        write: (Geometry) throws -> String, read: (String) throws -> Geometry
    ) {
        let first: String
        do { first = try write(geometry) } catch {
            // Writers may refuse what their format cannot hold (e.g. Esri JSON has no collections).
            return
        }
        let again: Geometry
        do { again = try read(first) } catch {
            Fuzzing.fail("\(format): the writer's output does not read back: \(error)\n\(Fuzzing.excerpt(first))")
        }
        let second: String
        do { second = try write(again) } catch {
            Fuzzing.fail("\(format): a geometry read back from the writer cannot be written: \(error)")
        }
        Fuzzing.check(first == second, "\(format): the round trip does not settle\n\(Fuzzing.excerpt(first))\n\(Fuzzing.excerpt(second))")
    }

    /// The same geometry through WKB and back keeps its WKT (WKB holds every kind but envelopes,
    /// which it turns into polygons).
    public static func checkWKB(_ geometry: Geometry) {
        if case .envelope = geometry.kind { return }
        let bytes = geometry.wkb()
        let again: Geometry
        do { again = try Geometry(wkb: bytes) } catch {
            Fuzzing.fail("WKB written for \(Fuzzing.excerpt(geometry.wkt)) does not read back: \(error)")
        }
        Fuzzing.check(again.wkb() == bytes, "WKB round trip changed \(Fuzzing.excerpt(geometry.wkt))")
    }

    /// Geometries the fuzzed one is related to: a rectangle (GEOS has fast paths for rectangles),
    /// a polygon with a hole, a line, a point, and a collection.
    static let partners: [Geometry] = {
        let texts = [
            "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))",
            "POLYGON ((-10 -10, 10 -10, 10 10, -10 10, -10 -10), (-1 -1, -1 1, 1 1, 1 -1, -1 -1))",
            "LINESTRING (-5 0, 5 0, 5 5)",
            "POINT (1 1)",
            "GEOMETRYCOLLECTION (POINT (3 3), LINESTRING (0 0, 1 1))",
        ]
        return texts.compactMap { try? Geometry(wkt: $0) }
    }()

    /// Every relationship of `geometry` with each partner, unprepared and prepared, through GEOS:
    /// nothing may crash, `intersects` is always `!disjoint`, and on valid geometries prepared
    /// and plain `intersects` agree with each other and with the DE-9IM matrix.
    public static func checkRelationships(_ geometry: Geometry, context: GEOSContext) {
        guard let fuzzed = try? GEOSGeometry(geometry, context: context) else { return }
        let valid = (try? fuzzed.validity().isValid) ?? false
        for partnerGeometry in partners {
            guard let partner = try? GEOSGeometry(partnerGeometry, context: context) else { continue }
            let matrix = try? fuzzed.relate(partner)
            var answers: [String: Bool] = [:]
            for relationship in [SpatialRelationship.intersects, .contains, .within, .touches, .crosses, .overlaps, .equals, .disjoint, .envelopeIntersects] {
                if let answer = try? fuzzed.satisfies(relationship, partner) { answers[relationship.description] = answer }
                _ = try? partner.satisfies(relationship, fuzzed)
            }
            if let prepared = try? PreparedGeometry(fuzzed) {
                _ = try? prepared.intersects(partner)
                _ = try? prepared.contains(partner)
                _ = try? prepared.covers(partner)
                _ = try? prepared.touches(partner)
            }
            if let preparedPartner = try? PreparedGeometry(partner) {
                let preparedIntersects = try? preparedPartner.intersects(fuzzed)
                if valid, let preparedIntersects, let intersects = answers["intersects"] {
                    Fuzzing.check(preparedIntersects == intersects,
                        "prepared and plain intersects differ for \(Fuzzing.excerpt(geometry.wkt)) and \(partnerGeometry.wkt)")
                }
            }
            if let intersects = answers["intersects"], let disjoint = answers["disjoint"] {
                Fuzzing.check(intersects != disjoint,
                    "intersects \(intersects) and disjoint \(disjoint) for \(Fuzzing.excerpt(geometry.wkt)) and \(partnerGeometry.wkt)")
            }
            guard valid else { continue }
            if let matrix, let intersects = answers["intersects"] {
                Fuzzing.check(intersects == matrixIntersects(matrix.description),
                    "intersects \(intersects) disagrees with the matrix \(matrix) for \(Fuzzing.excerpt(geometry.wkt)) and \(partnerGeometry.wkt)")
            }
        }
    }

    /// Whether a DE-9IM matrix says the interiors or boundaries meet (`T********`, `*T*******`,
    /// `***T*****` or `****T****`).
    static func matrixIntersects(_ matrix: String) -> Bool {
        let cells = Array(matrix)
        guard cells.count == 9 else { return false }
        return [0, 1, 3, 4].contains { cells[$0] != "F" }
    }
}

import ArgumentParser
import Foundation
import GeoSieve

/// `geosieve relate --a GEOM --b GEOM`: every spatial relationship of a against b, and their
/// DE-9IM matrix, as one JSON object.
struct RelateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relate",
        abstract: "Print every spatial relationship of geometry a against geometry b.",
        discussion: """
            Each name reads "a REL b": "within" is true when a lies within b. GEOM is WKT, a GeoJSON \
            geometry object, an Esri JSON geometry object, xmin,ymin,xmax,ymax (an envelope) or \
            x,y (a point); @FILE reads the geometry from a file of at most 64 MiB. Values may \
            start with "-" (--a -73.98,40.75). \
            When both geometries carry spatial references that differ (Esri JSON), b is projected \
            into a's reference: 4326 and 3857/102100 exactly, any other EPSG or ESRI code through \
            PROJ with b's edges densified.

            Examples:
              geosieve relate --a 'POINT (2.35 48.85)' --b 2,48,3,49
              geosieve relate --a @a.geojson --b 'POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0))'
            """
    )

    // `.unconditional`: a value may start with "-" (`--a -73.98,40.75`).
    @Option(name: .customLong("a"), parsing: .unconditional, help: "Geometry a (GEOM or @FILE).")
    var a: String

    @Option(name: .customLong("b"), parsing: .unconditional, help: "Geometry b (GEOM or @FILE).")
    var b: String

    func run() throws {
        let first = try readGeometry(a, argument: "--a")
        let second = try readGeometry(b, argument: "--b")
        var geometryB = second.geometry
        if let referenceA = first.spatialReference, let referenceB = second.spatialReference, referenceA != referenceB {
            do {
                try Projector.validate(referenceA)
            } catch {
                throw CommandFailure("--a: \(error)")
            }
            do {
                geometryB = try Projector(from: referenceB, to: referenceA).project(geometryB, densification: .standard)
            } catch {
                throw CommandFailure("--b: \(error)")
            }
        }
        let json = try GEOSContext.withCurrent { context throws(CommandFailure) -> String in
            do {
                let ga = try GEOSGeometry(first.geometry, context: context)
                let gb = try GEOSGeometry(geometryB, context: context)
                // One DE-9IM matrix; every relationship is read off it.
                let relationships = try ga.relationships(gb)
                let fields: [(String, String)] = [
                    ("intersects", "\(relationships.intersects)"),
                    ("contains", "\(relationships.contains)"),
                    ("within", "\(relationships.within)"),
                    ("touches", "\(relationships.touches)"),
                    ("crosses", "\(relationships.crosses)"),
                    ("overlaps", "\(relationships.overlaps)"),
                    ("equals", "\(relationships.equals)"),
                    ("disjoint", "\(relationships.disjoint)"),
                    ("envelopeIntersects", "\(ga.envelopeIntersects(gb))"),
                    ("relate", "\"\(relationships.matrix)\""),
                ]
                return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
            } catch {
                throw CommandFailure("", error)
            }
        }
        print(json)
    }

    private func readGeometry(_ text: String, argument: String) throws -> (geometry: Geometry, spatialReference: SpatialReference?) {
        let source = try argumentText(text, argument: argument)
        do {
            return try Geometry.parse(source)
        } catch {
            throw CommandFailure("\(argument): ", error)
        }
    }
}

import SieveFeatures
import SieveGeometry
import SieveJSON

extension Geometry {
    /// The Esri JSON object of the geometry's Esri form (``esriJSONForm``), with
    /// `spatialReference` when given; `nil` for a geometry with no Esri form (an empty
    /// geometry collection). What the Esri JSON writers (``FeatureQueryResult/esriJSON``,
    /// ``ApplyEditsRequest/json``) write as a feature's `geometry`.
    package func esriJSONFormValue(spatialReference: SpatialReference? = nil) -> JSONValue? {
        guard let form = esriJSONForm else { return nil }
        // Only a collection has no Esri JSON object, and a form is never one.
        return try? form.esriJSONValue(spatialReference: spatialReference)
    }

    /// The geometry in a form Esri JSON can hold: itself, except a ``Geometry/collection(_:)``,
    /// which Esri JSON has no type for. A collection is written as the Esri multi-part geometry
    /// of its ``dimension`` holding every member of that dimension, nested collections
    /// included: points and multipoints as one multipoint, polylines as one polyline with every
    /// path, polygons and envelopes as one polygon with every part. A collection of one
    /// dimension therefore keeps every position; one that mixes dimensions keeps those of its
    /// highest dimension only — the dimension the collection has — as its Esri form cannot hold
    /// points or lines beside areas. A collection with no position at all (empty, or of empty
    /// members) has no dimension and no form: `nil`, written as a feature without geometry.
    ///
    /// ```swift
    /// let lines = Geometry.collection(GeometryCollection([.polyline(a), .polyline(b)]))
    /// lines.esriJSONForm  // .polyline with the paths of a then b
    /// ```
    package var esriJSONForm: Geometry? {
        guard case .collection(let collection) = self else { return self }
        guard let dimension else { return nil }
        var members: [Geometry] = []
        Self.collectMembers(of: collection, dimension: dimension, into: &members)
        let layout = Geometry.collection(GeometryCollection(members)).layout
        do throws(GeometryError) {
            switch dimension {
            case 0:
                var points: [Point] = []
                for member in members {
                    switch member {
                    case .point(let point) where !point.isEmpty: points.append(point)
                    case .multipoint(let multipoint): points.append(contentsOf: multipoint.points)
                    default: break
                    }
                }
                return .multipoint(try Multipoint(points: points, layout: layout))
            case 1:
                var paths: [[Point]] = []
                for case .polyline(let polyline) in members { paths.append(contentsOf: polyline.paths) }
                return .polyline(try Polyline(paths: paths, layout: layout))
            default:
                var parts: [[[Point]]] = []
                for member in members {
                    switch member {
                    case .polygon(let polygon): parts.append(contentsOf: polygon.parts)
                    case .envelope(let envelope) where !envelope.isEmpty:
                        let ring = [
                            Point(x: envelope.xmin, y: envelope.ymin), Point(x: envelope.xmin, y: envelope.ymax),
                            Point(x: envelope.xmax, y: envelope.ymax), Point(x: envelope.xmax, y: envelope.ymin),
                            Point(x: envelope.xmin, y: envelope.ymin),
                        ]
                        parts.append([ring])
                    default: break
                    }
                }
                return .polygon(try Polygon(parts: parts, layout: layout))
            }
        } catch {
            // The members were valid geometries, so their positions and rings are too.
            return nil
        }
    }

    /// The non-collection members of `collection` (and of the collections it holds) whose
    /// dimension is `dimension`, in order.
    private static func collectMembers(
        of collection: GeometryCollection, dimension: Int, into members: inout [Geometry]
    ) {
        for member in collection.geometries {
            if case .collection(let inner) = member {
                collectMembers(of: inner, dimension: dimension, into: &members)
            } else if member.dimension == dimension {
                members.append(member)
            }
        }
    }
}

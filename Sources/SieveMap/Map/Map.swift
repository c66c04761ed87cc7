import SieveFeatures
import SieveGeometry
import SieveProjection
import SieveSQL
import SieveJSON

/// Which layers an identify looks at (ArcGIS REST `layers=top|visible|all`).
public enum IdentifyLayerOption: String, Hashable, Sendable, CaseIterable {
    /// The topmost drawn layer that has a hit: one layer's result at most.
    case top
    /// Every layer drawn at the map's scale (visible and within its scale range).
    case visible
    /// Every layer, drawn or not (REST: "even if they are not visible").
    case all
}

/// One layer's answer to ``Map/identify(_:)``.
public struct IdentifyLayerResult: Sendable {
    /// The layer's index in ``Map/layers``.
    public let layerIndex: Int
    /// The layer's name.
    public let layerName: String
    /// The features hit, nearest first; empty when the layer failed (see ``error``).
    public let results: IdentifyResults
    /// Whether the layer had more hits than ``MapIdentifyParameters/maxResultsPerLayer``.
    public let isTransferLimitExceeded: Bool
    /// Why this layer could not be identified (a bad definition expression for its table, a
    /// feature GEOS could not measure, a spatial reference that does not project, …); the other
    /// layers' results are still returned.
    public let error: (any Error)?
}

/// What ``Map/identify(_:)`` asks: a map point, a tolerance in pixels, the view it was tapped
/// in, which layers, and how many features per layer.
public struct MapIdentifyParameters: Sendable {
    /// The point tapped, in the map's spatial reference.
    public var point: Point
    /// The search radius in screen pixels (device-independent), clamped to 0…100 (22 suits a
    /// finger, 3 a mouse).
    public var tolerance: Double
    /// The extent shown, in the map's spatial reference.
    public var mapExtent: Envelope
    /// The view's width and height in pixels.
    public var viewWidth: Double
    /// The view's height in pixels.
    public var viewHeight: Double
    /// Which layers are identified. Default ``IdentifyLayerOption/top``, as REST's default.
    public var layerOption: IdentifyLayerOption
    /// At most this many features per layer, nearest first; 0 for all. Default 1.
    public var maxResultsPerLayer: Int
    /// Whether results carry their geometries.
    public var returnGeometry: Bool

    /// Identify parameters.
    public init(
        point: Point, tolerance: Double = 3, mapExtent: Envelope, viewWidth: Double, viewHeight: Double,
        layerOption: IdentifyLayerOption = .top, maxResultsPerLayer: Int = 1, returnGeometry: Bool = false
    ) {
        self.point = point
        self.tolerance = tolerance
        self.mapExtent = mapExtent
        self.viewWidth = viewWidth
        self.viewHeight = viewHeight
        self.layerOption = layerOption
        self.maxResultsPerLayer = maxResultsPerLayer
        self.returnGeometry = returnGeometry
    }
}

/// A map: feature layers in drawing order (index 0 drawn first, at the bottom) in one spatial
/// reference.
///
/// ```swift
/// var map = Map(layers: [countries, cities])          // cities drawn on top
/// let hits = try map.identify(MapIdentifyParameters(
///     point: Point(x: 2.35, y: 48.85), tolerance: 5, mapExtent: world, viewWidth: 1440, viewHeight: 720,
///     layerOption: .visible))
/// hits.map(\.layerName)   // ["cities", "countries"]: top layer first
/// ```
public struct Map: Sendable {
    /// The layers, bottom first.
    public var layers: [FeatureLayer]
    /// The spatial reference of map coordinates (identify points and extents); layers in
    /// another reference have them projected into theirs.
    public var spatialReference: SpatialReference

    /// A map of `layers` (bottom first) in `spatialReference` (default: the first layer's).
    public init(layers: [FeatureLayer] = [], spatialReference: SpatialReference? = nil) {
        self.layers = layers
        self.spatialReference = spatialReference ?? layers.first?.schema.spatialReference ?? .wgs84
    }

    /// The map scale of a view of `extent` `width` pixels wide (see ``MapScale``).
    public func scale(extent: Envelope, width: Double) throws -> Double {
        try MapScale.scale(extent: extent, width: width, spatialReference: spatialReference)
    }

    /// The features within the tolerance of the point, per layer, top layer first.
    ///
    /// The search radius in map units is `tolerance × mapExtent.width / viewWidth` (a circle);
    /// each layer's definition expression and the display filter in force at the view's scale
    /// apply (a feature not drawn cannot be hit). With ``IdentifyLayerOption/top`` the result
    /// is the topmost drawn layer with a hit (or nothing); with ``IdentifyLayerOption/visible``
    /// one result per drawn layer; with ``IdentifyLayerOption/all`` one per layer. A layer that
    /// fails reports its error in its result.
    /// - Throws: ``/SieveFeatures/FeatureTableError/Kind/invalidQuery`` for parameters that are
    ///   wrong for every layer: non-finite point, extent without area, a view size that is not
    ///   positive, a negative `maxResultsPerLayer`.
    public func identify(_ parameters: MapIdentifyParameters) throws -> [IdentifyLayerResult] {
        let p = parameters
        guard p.point.x.isFinite, p.point.y.isFinite else {
            throw FeatureTableError(.invalidQuery, "the identify point must have finite coordinates")
        }
        guard p.viewWidth.isFinite, p.viewHeight.isFinite, p.viewWidth > 0, p.viewHeight > 0 else {
            throw FeatureTableError(.invalidQuery, "the view size must be positive")
        }
        guard p.maxResultsPerLayer >= 0 else {
            throw FeatureTableError(.invalidQuery, "maxResultsPerLayer must not be negative, not \(p.maxResultsPerLayer)")
        }
        let tolerance = p.tolerance.isNaN ? 0 : min(100, max(0, p.tolerance))
        let scale = try self.scale(extent: p.mapExtent, width: p.viewWidth)
        var answers: [IdentifyLayerResult] = []
        for index in layers.indices.reversed() {
            let layer = layers[index]
            let drawn = layer.isDrawn(atScale: scale)
            if p.layerOption != .all, !drawn { continue }
            let answer = identify(layer, index: index, parameters: p, tolerance: tolerance, scale: scale)
            if p.layerOption == .top {
                if !answer.results.isEmpty || answer.error != nil { return [answer] }
                continue
            }
            answers.append(answer)
        }
        return answers
    }

    /// One layer's identify, its failure caught into the result.
    private func identify(
        _ layer: FeatureLayer, index: Int, parameters p: MapIdentifyParameters, tolerance: Double, scale: Double
    ) -> IdentifyLayerResult {
        do {
            let table = try layer.table
            var point = p.point
            var extent = p.mapExtent
            if table.spatialReference != spatialReference {
                let projector = try Projector(from: spatialReference, to: table.spatialReference)
                guard case .point(let projected) = try projector.project(.point(point)) else {
                    throw FeatureTableError(.invalidQuery, "the identify point did not project to the layer's reference")
                }
                point = projected
                extent = try projector.project(.envelope(extent), densification: .standard).envelope
            }
            // Features the renderer does not draw cannot be hit: when it may leave some out, every
            // hit is classified (and the limit applied after); else one more than asked, to tell
            // whether the limit cut hits off (no limit when one more does not fit in an Int: no
            // table holds that many rows).
            let undrawn = layer.renderer.mayLeaveFeaturesUndrawn
            let (probe, overflow) = p.maxResultsPerLayer.addingReportingOverflow(1)
            let limit = p.maxResultsPerLayer == 0 || undrawn || overflow ? 0 : probe
            let query = IdentifyParameters(
                x: point.x, y: point.y, tolerance: tolerance, mapExtent: extent, width: p.viewWidth, height: p.viewHeight,
                maxResults: limit, returnGeometry: p.returnGeometry, displayFieldName: layer.displayFieldName)
            var restriction = layer.definitionWhereClause
            if let display = layer.displayClause(atScale: scale) { restriction = restriction.and(display) }
            var hits = try table.identify(query, restrictedBy: restriction)
            if undrawn, !hits.isEmpty {
                let bound: BoundRenderer
                do {
                    bound = try layer.boundRenderer(to: table)
                } catch {
                    throw FeatureTableError(.invalidQuery, "layer \(JSONKey.quoted(layer.name)): \(error)")
                }
                let drawn = hits.results.filter { bound.classIndex(forRow: $0.row) != Renderer.notDrawnClassIndex }
                hits = IdentifyResults(table: table, results: drawn)
            }
            let exceeded = p.maxResultsPerLayer > 0 && hits.count > p.maxResultsPerLayer
            if exceeded { hits = IdentifyResults(table: table, results: Array(hits.results.prefix(p.maxResultsPerLayer))) }
            return IdentifyLayerResult(
                layerIndex: index, layerName: layer.name, results: hits, isTransferLimitExceeded: exceeded, error: nil)
        } catch {
            return IdentifyLayerResult(
                layerIndex: index, layerName: layer.name, results: IdentifyResults(table: FeatureTable(emptyWith: layer.schema), results: []),
                isTransferLimitExceeded: false, error: error)
        }
    }
}

extension Map {
    /// The identify response over several layers, shaped as ArcGIS REST's MapServer
    /// `identify`: `{"results":[…]}` with every layer's hits in the order given (top layer
    /// first), each carrying its `layerId` (the layer's index in ``layers``) and `layerName`
    /// (see ``IdentifyResults/json(layerID:layerName:)``), then, when layers failed,
    /// `"errors":[{"layerId":…,"layerName":"…","message":"…"}]`.
    public static func identifyJSON(_ answers: [IdentifyLayerResult]) -> [UInt8] {
        var bytes = Array(#"{"results":["#.utf8)
        var first = true
        for answer in answers where !answer.results.isEmpty {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            answer.results.writeResultObjects(layerID: answer.layerIndex, layerName: answer.layerName, into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        let failed = answers.filter { $0.error != nil }
        if !failed.isEmpty {
            bytes.append(contentsOf: #","errors":["#.utf8)
            for (i, answer) in failed.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.append(contentsOf: #"{"layerId":"#.utf8)
                bytes.append(contentsOf: String(answer.layerIndex).utf8)
                bytes.append(contentsOf: #","layerName":"#.utf8)
                JSONWriter.writeString(answer.layerName, into: &bytes)
                bytes.append(contentsOf: #","message":"#.utf8)
                JSONWriter.writeString(answer.error.map { "\($0)" } ?? "", into: &bytes)
                bytes.append(UInt8(ascii: "}"))
            }
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}

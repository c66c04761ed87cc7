import SieveFeatures
import SieveGeometry
import SieveJSON

/// A layer's ArcGIS `drawingInfo`: its renderer, transparency and labelling.
///
/// ```json
/// {"renderer":{"type":"simple","symbol":{…}},"transparency":0,"labelingInfo":null}
/// ```
///
/// Labels are not drawn by this engine: `labelingInfo` is kept as JSON text
/// (``labelingInfoJSON``) and written back as read.
public struct DrawingInfo: Hashable, Sendable {
    /// The renderer.
    public var renderer: Renderer
    /// The layer's transparency in percent: 0 (opaque) … 100 (invisible).
    public var transparency: Double
    /// The `labelingInfo` member as compact JSON text (an array of label classes), or `nil`
    /// for none (`null`).
    public private(set) var labelingInfoJSON: String?

    /// Creates a drawing info without labelling; `transparency` is clamped to 0…100 (NaN
    /// reads as 0).
    public init(renderer: Renderer, transparency: Double = 0) {
        self.renderer = renderer
        self.transparency = transparency.isNaN ? 0 : min(max(transparency, 0), 100)
        self.labelingInfoJSON = nil
    }

    /// Creates a drawing info with labelling given as JSON text.
    /// - Throws: ``RendererError`` when `labelingInfoJSON` is not JSON, or `transparency` is
    ///   not in 0…100.
    public init(renderer: Renderer, transparency: Double = 0, labelingInfoJSON: String?) throws(RendererError) {
        guard (0...100).contains(transparency) else {
            throw RendererError(.invalidRenderer, "transparency must be from 0 to 100, not \(formatNumber(transparency))", path: "transparency")
        }
        self.renderer = renderer
        self.transparency = transparency
        if let labelingInfoJSON {
            let parsed = try JSONCursor.parse(labelingInfoJSON).value
            self.labelingInfoJSON = parsed.isNull ? nil : JSONWriter.string(parsed)
        } else {
            self.labelingInfoJSON = nil
        }
    }

    /// The drawing info of a layer of `geometryType` without one of its own: the
    /// ``Renderer/default(for:)`` renderer, opaque, unlabelled.
    public static func `default`(for geometryType: GeometryType) -> DrawingInfo {
        DrawingInfo(renderer: .default(for: geometryType))
    }

    /// Reads a `drawingInfo` object: `renderer` (required), `transparency` (0 when absent),
    /// `labelingInfo` (kept as text). Other members are not kept.
    /// - Throws: ``RendererError`` with the path of the member at fault, e.g.
    ///   `renderer.uniqueValueInfos[1].symbol.type`.
    public init(esriJSON: String) throws(RendererError) {
        let cursor = try JSONCursor.parse(esriJSON)
        _ = try cursor.object("drawingInfo")
        let renderer = try Renderer.read(cursor.required("renderer"))
        var transparency = 0.0
        if let member = cursor.member("transparency") {
            transparency = try member.number()
            guard (0...100).contains(transparency) else {
                throw member.error("transparency must be from 0 to 100, not \(formatNumber(transparency))")
            }
        }
        self.renderer = renderer
        self.transparency = transparency
        self.labelingInfoJSON = cursor.member("labelingInfo").map { JSONWriter.string($0.value) }
    }

    /// The drawing info as compact JSON: `{"renderer":…,"transparency":…,"labelingInfo":…}`.
    public var esriJSON: String {
        var bytes: [UInt8] = []
        bytes.append(contentsOf: #"{"renderer":"#.utf8)
        JSONWriter.write(renderer.jsonValue, into: &bytes)
        bytes.append(contentsOf: #","transparency":"#.utf8)
        JSONWriter.writeDouble(transparency, into: &bytes)
        bytes.append(contentsOf: #","labelingInfo":"#.utf8)
        bytes.append(contentsOf: (labelingInfoJSON ?? "null").utf8)
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}

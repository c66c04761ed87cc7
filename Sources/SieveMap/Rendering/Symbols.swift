import SieveGeometry
import SieveJSON

/// A colour with 8-bit red, green, blue and alpha components, as Esri JSON writes it:
/// `[r, g, b, a]`, each 0…255, where alpha 0 is fully transparent and 255 opaque.
public struct RGBAColor: Hashable, Sendable, CustomStringConvertible {
    /// Red, 0…255.
    public var red: UInt8
    /// Green, 0…255.
    public var green: UInt8
    /// Blue, 0…255.
    public var blue: UInt8
    /// Alpha (opacity), 0 (transparent) … 255 (opaque).
    public var alpha: UInt8

    /// Creates a colour; opaque unless `alpha` says otherwise.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// `[r,g,b,a]`.
    public var description: String { "[\(red),\(green),\(blue),\(alpha)]" }
}

/// The shape of a ``SimpleMarkerSymbol``, with the Esri JSON names as raw values.
public enum MarkerStyle: String, Hashable, Sendable, CaseIterable {
    /// A circle.
    case circle = "esriSMSCircle"
    /// A square.
    case square = "esriSMSSquare"
    /// A plus sign.
    case cross = "esriSMSCross"
    /// A diagonal cross.
    case x = "esriSMSX"
    /// A diamond (a square turned by 45°).
    case diamond = "esriSMSDiamond"
    /// A triangle pointing up.
    case triangle = "esriSMSTriangle"
}

/// The dash pattern of a ``SimpleLineSymbol``, with the Esri JSON names as raw values.
public enum LineStyle: String, Hashable, Sendable, CaseIterable {
    /// A continuous line.
    case solid = "esriSLSSolid"
    /// Dashes.
    case dash = "esriSLSDash"
    /// Dots.
    case dot = "esriSLSDot"
    /// Dash, dot, repeated.
    case dashDot = "esriSLSDashDot"
    /// Dash, dot, dot, repeated.
    case dashDotDot = "esriSLSDashDotDot"
    /// Long dashes.
    case longDash = "esriSLSLongDash"
    /// Long dash, dot, repeated.
    case longDashDot = "esriSLSLongDashDot"
    /// Short dashes.
    case shortDash = "esriSLSShortDash"
    /// Short dash, dot, repeated.
    case shortDashDot = "esriSLSShortDashDot"
    /// Short dash, dot, dot, repeated.
    case shortDashDotDot = "esriSLSShortDashDotDot"
    /// Short dots.
    case shortDot = "esriSLSShortDot"
    /// No line at all.
    case null = "esriSLSNull"
}

/// The fill pattern of a ``SimpleFillSymbol``, with the Esri JSON names as raw values.
public enum FillStyle: String, Hashable, Sendable, CaseIterable {
    /// A uniform fill in the symbol's colour.
    case solid = "esriSFSSolid"
    /// No fill (the outline is still drawn).
    case null = "esriSFSNull"
    /// No fill (the outline is still drawn); the name some writers use for ``null``.
    case hollow = "esriSFSHollow"
    /// Lines from lower left to upper right.
    case forwardDiagonal = "esriSFSForwardDiagonal"
    /// Lines from upper left to lower right.
    case backwardDiagonal = "esriSFSBackwardDiagonal"
    /// Horizontal lines.
    case horizontal = "esriSFSHorizontal"
    /// Vertical lines.
    case vertical = "esriSFSVertical"
    /// Horizontal and vertical lines.
    case cross = "esriSFSCross"
    /// Both diagonals.
    case diagonalCross = "esriSFSDiagonalCross"
}

/// A line symbol (Esri `esriSLS`): a dash style, a colour and a width in points.
public struct SimpleLineSymbol: Hashable, Sendable {
    /// The dash pattern.
    public var style: LineStyle
    /// The colour; `nil` draws nothing.
    public var color: RGBAColor?
    /// The width in points (1/72 inch), ≥ 0.
    public var width: Double

    /// Creates a line symbol.
    public init(style: LineStyle = .solid, color: RGBAColor?, width: Double = 1) {
        self.style = style
        self.color = color
        self.width = width
    }
}

/// A point symbol (Esri `esriSMS`): a shape of a size in points, filled with a colour, turned
/// and offset, with an optional outline.
public struct SimpleMarkerSymbol: Hashable, Sendable {
    /// The shape.
    public var style: MarkerStyle
    /// The fill colour; `nil` fills nothing.
    public var color: RGBAColor?
    /// The size in points, ≥ 0.
    public var size: Double
    /// The rotation in degrees, counter-clockwise as Esri JSON defines it.
    public var angle: Double
    /// The horizontal offset in points (positive to the right).
    public var xoffset: Double
    /// The vertical offset in points (positive up).
    public var yoffset: Double
    /// The outline, if any.
    public var outline: SimpleLineSymbol?

    /// Creates a marker symbol.
    public init(
        style: MarkerStyle = .circle, color: RGBAColor?, size: Double = 8, angle: Double = 0, xoffset: Double = 0,
        yoffset: Double = 0, outline: SimpleLineSymbol? = nil
    ) {
        self.style = style
        self.color = color
        self.size = size
        self.angle = angle
        self.xoffset = xoffset
        self.yoffset = yoffset
        self.outline = outline
    }
}

/// A polygon symbol (Esri `esriSFS`): a fill style and colour, and an optional outline.
public struct SimpleFillSymbol: Hashable, Sendable {
    /// The fill pattern.
    public var style: FillStyle
    /// The fill colour; `nil` fills nothing.
    public var color: RGBAColor?
    /// The outline, if any.
    public var outline: SimpleLineSymbol?

    /// Creates a fill symbol.
    public init(style: FillStyle = .solid, color: RGBAColor?, outline: SimpleLineSymbol? = nil) {
        self.style = style
        self.color = color
        self.outline = outline
    }
}

/// A symbol of one of the three simple kinds a renderer draws features with.
///
/// Read from and written as Esri JSON (``init(esriJSON:)``, ``esriJSON``): `"type"` is
/// `esriSMS`, `esriSLS` or `esriSFS`; any other type (picture or text symbols, CIM symbols) is
/// a ``RendererError/Kind/unsupportedSymbolType`` error naming the type and where it was.
///
/// Members that are missing take these values: `style` circle, solid, solid; `color` none;
/// marker `size` 8, `angle`, `xoffset`, `yoffset` 0; line `width` 1. A colour of three
/// components is opaque.
public enum Symbol: Hashable, Sendable {
    /// A point symbol.
    case marker(SimpleMarkerSymbol)
    /// A line symbol.
    case line(SimpleLineSymbol)
    /// A polygon symbol.
    case fill(SimpleFillSymbol)

    /// Reads a symbol from Esri JSON text.
    /// - Throws: ``RendererError`` naming the member at fault.
    public init(esriJSON: String) throws(RendererError) {
        self = try Symbol.read(JSONCursor.parse(esriJSON))
    }

    /// The symbol as compact Esri JSON.
    public var esriJSON: String { JSONWriter.string(jsonValue) }
}

// MARK: - Reading

extension RGBAColor {
    /// Reads `[r,g,b]` or `[r,g,b,a]` with whole components in 0…255.
    static func read(_ cursor: JSONCursor) throws(RendererError) -> RGBAColor {
        let elements = try cursor.elements()
        guard elements.count == 3 || elements.count == 4 else {
            throw cursor.error("a colour must have 3 or 4 components [r,g,b,a], not \(elements.count)")
        }
        var components: [UInt8] = []
        for element in elements {
            let number = try element.number()
            guard number >= 0, number <= 255, number == number.rounded() else {
                throw element.error("a colour component must be a whole number from 0 to 255, not \(formatNumber(number))")
            }
            components.append(UInt8(number))
        }
        return RGBAColor(
            red: components[0], green: components[1], blue: components[2], alpha: components.count == 4 ? components[3] : 255)
    }

    var jsonValue: JSONValue {
        .array([.integer(Int(red)), .integer(Int(green)), .integer(Int(blue)), .integer(Int(alpha))])
    }
}

extension JSONCursor {
    /// Member `key` as a colour, `nil` when absent or `null`.
    func color(_ key: String) throws(RendererError) -> RGBAColor? {
        guard let member = member(key) else { return nil }
        return try RGBAColor.read(member)
    }

    /// Member `key` as a style name of `Style`, `fallback` when absent or `null`.
    func style<Style: RawRepresentable & CaseIterable>(_ key: String, default fallback: Style) throws(RendererError) -> Style
    where Style.RawValue == String {
        guard let member = member(key) else { return fallback }
        let name = try member.string()
        guard let style = Style(rawValue: name) else {
            let known = Style.allCases.map(\.rawValue).joined(separator: ", ")
            throw member.error("unknown style \(JSONKey.quoted(name)); expected one of \(known)")
        }
        return style
    }

    /// Member `key` as a number ≥ 0, `fallback` when absent or `null`.
    func nonNegative(_ key: String, default fallback: Double) throws(RendererError) -> Double {
        guard let member = member(key) else { return fallback }
        let number = try member.number()
        guard number >= 0 else { throw member.error("\(key) must not be negative, not \(formatNumber(number))") }
        return number
    }
}

extension SimpleLineSymbol {
    /// Reads an `esriSLS` object; `type` may be absent (as in marker and fill outlines).
    static func read(_ cursor: JSONCursor) throws(RendererError) -> SimpleLineSymbol {
        _ = try cursor.object("a line symbol")
        if let type = cursor.member("type") {
            let name = try type.string()
            guard name == "esriSLS" else {
                throw type.error("an outline must be an esriSLS line symbol, not \(JSONKey.quoted(name))", kind: .unsupportedSymbolType)
            }
        }
        return SimpleLineSymbol(
            style: try cursor.style("style", default: LineStyle.solid), color: try cursor.color("color"),
            width: try cursor.nonNegative("width", default: 1))
    }

    var jsonValue: JSONValue {
        var object = JSONObjectBuilder()
        object.add("type", .string("esriSLS"))
        object.add("style", .string(style.rawValue))
        object.add("color", color?.jsonValue ?? .null())
        object.add("width", .double(width))
        return object.value
    }
}

extension SimpleMarkerSymbol {
    static func read(_ cursor: JSONCursor) throws(RendererError) -> SimpleMarkerSymbol {
        SimpleMarkerSymbol(
            style: try cursor.style("style", default: MarkerStyle.circle), color: try cursor.color("color"),
            size: try cursor.nonNegative("size", default: 8), angle: try cursor.optionalNumber("angle") ?? 0,
            xoffset: try cursor.optionalNumber("xoffset") ?? 0, yoffset: try cursor.optionalNumber("yoffset") ?? 0,
            outline: try cursor.member("outline").map { (outline) throws(RendererError) in try SimpleLineSymbol.read(outline) })
    }

    var jsonValue: JSONValue {
        var object = JSONObjectBuilder()
        object.add("type", .string("esriSMS"))
        object.add("style", .string(style.rawValue))
        object.add("color", color?.jsonValue ?? .null())
        object.add("size", .double(size))
        object.add("angle", .double(angle))
        object.add("xoffset", .double(xoffset))
        object.add("yoffset", .double(yoffset))
        object.add("outline", outline?.jsonValue ?? .null())
        return object.value
    }
}

extension SimpleFillSymbol {
    static func read(_ cursor: JSONCursor) throws(RendererError) -> SimpleFillSymbol {
        SimpleFillSymbol(
            style: try cursor.style("style", default: FillStyle.solid), color: try cursor.color("color"),
            outline: try cursor.member("outline").map { (outline) throws(RendererError) in try SimpleLineSymbol.read(outline) })
    }

    var jsonValue: JSONValue {
        var object = JSONObjectBuilder()
        object.add("type", .string("esriSFS"))
        object.add("style", .string(style.rawValue))
        object.add("color", color?.jsonValue ?? .null())
        object.add("outline", outline?.jsonValue ?? .null())
        return object.value
    }
}

extension Symbol {
    /// The Esri JSON `type` names this engine reads.
    static let supportedTypes = "esriSMS, esriSLS, esriSFS"

    /// Reads a symbol object.
    static func read(_ cursor: JSONCursor) throws(RendererError) -> Symbol {
        _ = try cursor.object("a symbol")
        let typeCursor = try cursor.required("type")
        let type = try typeCursor.string()
        switch type {
        case "esriSMS": return .marker(try SimpleMarkerSymbol.read(cursor))
        case "esriSLS": return .line(try SimpleLineSymbol.read(cursor))
        case "esriSFS": return .fill(try SimpleFillSymbol.read(cursor))
        default:
            throw typeCursor.error(
                "symbol type \(JSONKey.quoted(type)) is not supported (supported: \(supportedTypes))", kind: .unsupportedSymbolType)
        }
    }

    /// The symbol as a JSON value.
    var jsonValue: JSONValue {
        switch self {
        case .marker(let symbol): symbol.jsonValue
        case .line(let symbol): symbol.jsonValue
        case .fill(let symbol): symbol.jsonValue
        }
    }
}

extension JSONCursor {
    /// Member `key` as a symbol, `nil` when absent or `null`.
    func symbol(_ key: String) throws(RendererError) -> Symbol? {
        guard let member = member(key) else { return nil }
        return try Symbol.read(member)
    }
}

import SieveFeatures
import SieveGeometry

/// How a layer draws its features: ArcGIS `drawingInfo.renderer`.
///
/// - ``simple(_:)``: one symbol for every feature.
/// - ``uniqueValue(_:)``: a symbol per value (or combination of values) of one to three fields.
/// - ``classBreaks(_:)``: a symbol per range of a numeric field, optionally normalized.
///
/// Unique-value and class-breaks renderers may classify an Arcade `valueExpression` instead of
/// a field: arithmetic over fields such as `$feature.POP_EST / $feature.GDP_MD_EST` (see
/// ``ArcadeValueExpression`` for exactly what is supported). When a renderer has both a field
/// and an expression, the expression is used, as ArcGIS does.
///
/// Read it from REST JSON with ``init(esriJSON:)``, write it with ``esriJSON``; reading what
/// was written gives an equal value. Bind it to a table (``bind(to:normalizationTotal:)``) to
/// classify rows, or classify loose attributes with ``symbolClass(for:normalizationTotal:)``.
public enum Renderer: Hashable, Sendable {
    /// One symbol for all features (`"type":"simple"`).
    case simple(SimpleRenderer)
    /// A symbol per unique value (`"type":"uniqueValue"`).
    case uniqueValue(UniqueValueRenderer)
    /// A symbol per class of a numeric value (`"type":"classBreaks"`).
    case classBreaks(ClassBreaksRenderer)

    /// A simple renderer with this engine's default symbol for `geometryType`:
    ///
    /// - points and multipoints: an `esriSMSCircle` of 8 points, filled `[0,112,255,255]`,
    ///   with a white `[255,255,255,255]` outline 1 point wide;
    /// - polylines: an `esriSLSSolid` line `[0,112,255,255]`, 1.5 points wide;
    /// - polygons and envelopes: an `esriSFSSolid` fill `[0,112,255,64]` (a quarter opaque)
    ///   with an `esriSLSSolid` outline `[0,112,255,255]`, 1 point wide.
    public static func `default`(for geometryType: GeometryType) -> Renderer {
        let blue = RGBAColor(red: 0, green: 112, blue: 255)
        switch geometryType {
        case .point, .multipoint:
            let outline = SimpleLineSymbol(color: RGBAColor(red: 255, green: 255, blue: 255), width: 1)
            return .simple(SimpleRenderer(symbol: .marker(SimpleMarkerSymbol(color: blue, size: 8, outline: outline))))
        case .polyline:
            return .simple(SimpleRenderer(symbol: .line(SimpleLineSymbol(color: blue, width: 1.5))))
        case .polygon, .envelope:
            let fill = SimpleFillSymbol(
                color: RGBAColor(red: 0, green: 112, blue: 255, alpha: 64), outline: SimpleLineSymbol(color: blue, width: 1))
            return .simple(SimpleRenderer(symbol: .fill(fill)))
        }
    }

    /// The names of the fields the renderer reads, as written in it: `field1`…`field3`, or
    /// `field` and the normalization field. For a renderer with a ``valueExpression``, the
    /// fields the expression names (see ``ArcadeValueExpression/fieldNames``; none when it is
    /// not supported), then the normalization field.
    public var fieldNames: [String] {
        var expressionFields: [String]?
        if let valueExpression {
            do {
                expressionFields = try ArcadeValueExpression(valueExpression).fieldNames
            } catch {
                expressionFields = []
            }
        }
        switch self {
        case .simple: return []
        case .uniqueValue(let renderer): return expressionFields ?? renderer.fields
        case .classBreaks(let renderer):
            let valueFields = expressionFields ?? [renderer.field]
            if case .byField(let name) = renderer.normalization { return valueFields + [name] }
            return valueFields
        }
    }

    /// The Arcade expression the renderer classifies by instead of a field, `nil` for none
    /// (and for a simple renderer).
    public var valueExpression: String? {
        switch self {
        case .simple: nil
        case .uniqueValue(let renderer): renderer.valueExpression
        case .classBreaks(let renderer): renderer.valueExpression
        }
    }
}

/// A renderer drawing every feature with one symbol.
public struct SimpleRenderer: Hashable, Sendable {
    /// The symbol.
    public var symbol: Symbol
    /// The legend label.
    public var label: String?
    /// The legend description.
    public var description: String?

    /// Creates a simple renderer.
    public init(symbol: Symbol, label: String? = nil, description: String? = nil) {
        self.symbol = symbol
        self.label = label
        self.description = description
    }
}

/// One class of a ``UniqueValueRenderer``: the value it matches and how it is drawn.
public struct UniqueValueInfo: Hashable, Sendable {
    /// The value matched, as text: a single field's value as `String(value)`, or the fields'
    /// values joined with the renderer's ``UniqueValueRenderer/fieldDelimiter``.
    public var value: String
    /// The symbol; `nil` hides the features of this class.
    public var symbol: Symbol?
    /// The legend label.
    public var label: String?
    /// The legend description.
    public var description: String?

    /// Creates a class.
    public init(value: String, symbol: Symbol?, label: String? = nil, description: String? = nil) {
        self.value = value
        self.symbol = symbol
        self.label = label
        self.description = description
    }
}

/// A renderer with a symbol per value of one field, or per combination of values of two or
/// three fields.
///
/// A feature's key is the text of its value: for a single field `String(value)` as the
/// ArcGIS JavaScript API forms it — strings as they are, integers in decimal (`3`), doubles in
/// JavaScript's shortest form (`2.5`, `3` for 3.0, `1e+21`), dates as epoch milliseconds, and
/// NULL as `null`. For two or three fields the values' texts are joined with
/// ``fieldDelimiter``, a NULL value contributing an empty text (JavaScript's `Array.join`).
/// With a ``valueExpression`` the key is the text of the expression's value by the same rules
/// (a computed value is a double: `2.5`, `3`; NULL is `null`), and ``fields`` are not read.
/// The key matches a class when it equals the class's ``UniqueValueInfo/value`` exactly (case
/// and bytes); the first such class wins. Unmatched features get ``defaultSymbol``, or are not
/// drawn when there is none.
public struct UniqueValueRenderer: Hashable, Sendable {
    /// The fields whose values form the key: one to three names (`field1`, `field2`,
    /// `field3`); may be empty when there is a ``valueExpression``.
    public var fields: [String]
    /// The text between the values of several fields (REST JSON usually `","`).
    public var fieldDelimiter: String
    /// The classes, in order: the first matching one wins.
    public var uniqueValueInfos: [UniqueValueInfo]
    /// The symbol of features that match no class; `nil` leaves them undrawn.
    public var defaultSymbol: Symbol?
    /// The legend label of the default class.
    public var defaultLabel: String?
    /// An Arcade expression whose value is the key instead of the fields' (see
    /// ``ArcadeValueExpression``); it takes precedence over ``fields``.
    public var valueExpression: String?
    /// The legend title of ``valueExpression`` (carried, not used to classify).
    public var valueExpressionTitle: String?

    /// Creates a unique-value renderer. `fields` should hold one to three names, unless
    /// `valueExpression` is given; binding (``Renderer/bind(to:normalizationTotal:)``) rejects
    /// any other number.
    public init(
        fields: [String], fieldDelimiter: String = ",", uniqueValueInfos: [UniqueValueInfo], defaultSymbol: Symbol? = nil,
        defaultLabel: String? = nil, valueExpression: String? = nil, valueExpressionTitle: String? = nil
    ) {
        self.fields = fields
        self.fieldDelimiter = fieldDelimiter
        self.uniqueValueInfos = uniqueValueInfos
        self.defaultSymbol = defaultSymbol
        self.defaultLabel = defaultLabel
        self.valueExpression = valueExpression
        self.valueExpressionTitle = valueExpressionTitle
    }
}

/// How a ``ClassBreaksRenderer`` turns a field's value into the number it classifies.
public enum ClassBreaksNormalization: Hashable, Sendable {
    /// The value divided by another field's value (`esriNormalizeByField`); a divisor of 0 or
    /// NULL gives no number (the default class).
    case byField(String)
    /// The base-10 logarithm of the value (`esriNormalizeByLog`); a value ≤ 0 gives no number.
    case byLog
    /// The value as a percentage of a total (`esriNormalizeByPercentOfTotal`):
    /// `value / total × 100`. `total` is the JSON's `normalizationTotal`; when `nil`, binding
    /// to a table sums the field over its features (or takes the total given to
    /// ``Renderer/bind(to:normalizationTotal:)``).
    case percentOfTotal(total: Double?)
}

/// One class of a ``ClassBreaksRenderer``: a range of values and how it is drawn.
public struct ClassBreakInfo: Hashable, Sendable {
    /// The lower bound (inclusive); `nil` takes the previous class's ``classMaxValue``, or the
    /// renderer's ``ClassBreaksRenderer/minValue`` for the first class.
    public var classMinValue: Double?
    /// The upper bound: inclusive unless ``ClassBreaksRenderer/isMaxInclusive`` is false.
    public var classMaxValue: Double
    /// The symbol; `nil` hides the features of this class.
    public var symbol: Symbol?
    /// The legend label.
    public var label: String?
    /// The legend description.
    public var description: String?

    /// Creates a class.
    public init(classMinValue: Double? = nil, classMaxValue: Double, symbol: Symbol?, label: String? = nil, description: String? = nil) {
        self.classMinValue = classMinValue
        self.classMaxValue = classMaxValue
        self.symbol = symbol
        self.label = label
        self.description = description
    }
}

/// A renderer with a symbol per range of a numeric field's (optionally normalized) value.
///
/// A feature's number is its ``field`` value — or the value of ``valueExpression`` when there
/// is one —, normalized as ``normalization`` says. The first
/// class with `min <= number && number <= max` wins (`number < max` when ``isMaxInclusive``
/// is false), with each class's bounds as ``classBounds`` resolves them. A NULL value, a value
/// normalization cannot turn into a finite number, and a number in no class get
/// ``defaultSymbol``, or are not drawn when there is none.
public struct ClassBreaksRenderer: Hashable, Sendable {
    /// The numeric field classified; empty when there is only a ``valueExpression``.
    public var field: String
    /// The lower bound of the first class when it gives none; `nil` leaves it unbounded.
    public var minValue: Double?
    /// The classes, in order: the first matching one wins.
    public var classBreakInfos: [ClassBreakInfo]
    /// How the value is normalized; `nil` for not at all (`esriNormalizeByNone`).
    public var normalization: ClassBreaksNormalization?
    /// Whether a class's maximum is part of it (`true`, the ArcGIS default).
    public var isMaxInclusive: Bool
    /// The symbol of features in no class; `nil` leaves them undrawn.
    public var defaultSymbol: Symbol?
    /// The legend label of the default class.
    public var defaultLabel: String?
    /// The fill drawn behind marker symbols of polygon features (carried, not used to classify).
    public var backgroundFillSymbol: Symbol?
    /// How the breaks were chosen (e.g. `esriClassifyNaturalBreaks`; carried, not used).
    public var classificationMethod: String?
    /// An Arcade expression whose numeric value is classified instead of ``field``'s (see
    /// ``ArcadeValueExpression``); it takes precedence over ``field``. Normalization applies to
    /// its value as it would to the field's.
    public var valueExpression: String?
    /// The legend title of ``valueExpression`` (carried, not used to classify).
    public var valueExpressionTitle: String?

    /// Creates a class-breaks renderer. `field` may be empty when `valueExpression` is given.
    public init(
        field: String, minValue: Double? = nil, classBreakInfos: [ClassBreakInfo], normalization: ClassBreaksNormalization? = nil,
        isMaxInclusive: Bool = true, defaultSymbol: Symbol? = nil, defaultLabel: String? = nil, backgroundFillSymbol: Symbol? = nil,
        classificationMethod: String? = nil, valueExpression: String? = nil, valueExpressionTitle: String? = nil
    ) {
        self.valueExpression = valueExpression
        self.valueExpressionTitle = valueExpressionTitle
        self.field = field
        self.minValue = minValue
        self.classBreakInfos = classBreakInfos
        self.normalization = normalization
        self.isMaxInclusive = isMaxInclusive
        self.defaultSymbol = defaultSymbol
        self.defaultLabel = defaultLabel
        self.backgroundFillSymbol = backgroundFillSymbol
        self.classificationMethod = classificationMethod
    }

    /// Each class's bounds: its own ``ClassBreakInfo/classMinValue``, else the previous
    /// class's maximum, else ``minValue``, else −∞.
    public var classBounds: [(min: Double, max: Double)] {
        var previous = minValue ?? -Double.infinity
        return classBreakInfos.map { info in
            let bounds = (min: info.classMinValue ?? previous, max: info.classMaxValue)
            previous = info.classMaxValue
            return bounds
        }
    }
}

/// The class a feature falls in: which one, and how it is drawn.
public struct SymbolClass: Hashable, Sendable {
    /// Which class matched.
    public enum Match: Hashable, Sendable {
        /// The class at this index of `uniqueValueInfos` or `classBreakInfos` (0 for a simple
        /// renderer's one class).
        case info(Int)
        /// The default class (no class matched and the renderer has a default symbol).
        case `default`
    }

    /// Which class matched.
    public var match: Match
    /// The class's legend label.
    public var label: String?
    /// The symbol to draw the feature with.
    public var symbol: Symbol

    /// Creates a class.
    public init(match: Match, label: String?, symbol: Symbol) {
        self.match = match
        self.label = label
        self.symbol = symbol
    }
}

extension Renderer {
    /// Whether the renderer may leave a feature without a symbol (a class without a symbol, or no
    /// default symbol for the features no class takes): such features are not drawn, and identify
    /// cannot hit them.
    public var mayLeaveFeaturesUndrawn: Bool {
        switch self {
        case .simple: false
        case .uniqueValue(let r): r.defaultSymbol == nil || r.uniqueValueInfos.contains { $0.symbol == nil }
        case .classBreaks(let r): r.defaultSymbol == nil || r.classBreakInfos.contains { $0.symbol == nil }
        }
    }
}

/// What SVG drawing needs of a colour: a few named colours, the `#rrggbb` text and the opacity
/// (in SVG the alpha, when below 255, is written as the matching `fill-opacity` or
/// `stroke-opacity`, alpha / 255).
extension RGBAColor {
    /// Opaque black.
    public static let black = RGBAColor(red: 0, green: 0, blue: 0)
    /// Opaque white.
    public static let white = RGBAColor(red: 255, green: 255, blue: 255)
    /// Opaque cyan (0, 255, 255): the colour ArcGIS highlights selected features with.
    public static let cyan = RGBAColor(red: 0, green: 255, blue: 255)

    /// The colour as SVG writes it: `#rrggbb` (lowercase hexadecimal, the alpha left out).
    public var hex: String {
        let digits = Array("0123456789abcdef")
        var text = "#"
        for component in [red, green, blue] {
            text.append(digits[Int(component >> 4)])
            text.append(digits[Int(component & 0x0F)])
        }
        return text
    }

    /// The opacity as a fraction, `alpha / 255`.
    public var opacity: Double { Double(alpha) / 255 }
}

/// The shape of the marker a point is drawn with.
public enum MarkerShape: String, Sendable, Hashable, CaseIterable {
    /// A disc.
    case circle
    /// An axis-aligned square (before ``DrawStyle/markerAngle`` turns it).
    case square
    /// A plus sign: a horizontal and a vertical stroke.
    case cross
    /// A diagonal cross (an `x`).
    case x
    /// A square standing on a corner.
    case diamond
    /// An isosceles triangle pointing up, apex at the top of the marker's box.
    case triangle
}

/// How features are drawn: fill, outline and point marker, as a plain value the SVG writer takes
/// (a renderer's symbol is turned into one by an adapter).
///
/// Sizes are in typographic points, as ArcGIS symbols give them, and are turned into pixels at
/// 96 dots per inch: 1 pt = 96 / 72 px = 1.333… px (see ``pixels(points:)``). So a 0.75 pt
/// outline is 1 px wide and a 6 pt marker 8 px across.
///
/// What each field does depends on the geometry drawn:
///
/// - Polygons are filled with ``fill`` (not filled when `nil`) and outlined with ``stroke`` at
///   ``strokeWidth`` (no outline when `nil` or when the width is 0).
/// - Lines are drawn with ``stroke`` at ``strokeWidth``; ``fill`` is not used.
/// - Points and multipoints are drawn as markers of shape ``marker``, ``markerSize`` across,
///   turned clockwise by ``markerAngle`` degrees, filled with ``fill`` and outlined with
///   ``stroke``. A ``MarkerShape/cross`` or ``MarkerShape/x`` marker has no inside: it is
///   drawn with its ``stroke`` colour, or with its ``fill`` colour when it has no stroke, at
///   least 1 pt wide.
public struct DrawStyle: Sendable, Hashable {
    /// The colour inside polygons and markers, or `nil` for none.
    public var fill: RGBAColor?
    /// The colour of outlines and lines, or `nil` for none.
    public var stroke: RGBAColor?
    /// The width of outlines and lines, in points (negative, NaN and infinite values count as 0).
    public var strokeWidth: Double
    /// The shape of point markers.
    public var marker: MarkerShape
    /// The width and height of point markers, in points (negative, NaN and infinite values count as 0).
    public var markerSize: Double
    /// The clockwise turn of point markers, in degrees (non-finite values count as 0).
    public var markerAngle: Double

    /// Creates a style.
    ///
    /// - Parameters:
    ///   - fill: The colour inside polygons and markers, `nil` for none.
    ///   - stroke: The colour of outlines and lines, `nil` for none.
    ///   - strokeWidth: The outline and line width in points (1 pt = 96 / 72 px).
    ///   - marker: The marker shape of points.
    ///   - markerSize: The marker's width and height in points.
    ///   - markerAngle: The marker's clockwise turn in degrees.
    public init(
        fill: RGBAColor? = nil, stroke: RGBAColor? = .black, strokeWidth: Double = 0.75, marker: MarkerShape = .circle,
        markerSize: Double = 6, markerAngle: Double = 0
    ) {
        self.fill = fill
        self.stroke = stroke
        self.strokeWidth = strokeWidth
        self.marker = marker
        self.markerSize = markerSize
        self.markerAngle = markerAngle
    }

    /// The default highlight of selected features, after ArcGIS's: cyan outlines 2 pt wide and
    /// a cyan fill at one quarter opacity. Selected points keep their own marker shape, size and
    /// angle (see ``highlighting(_:)``).
    public static let highlight = DrawStyle(
        fill: RGBAColor(red: 0, green: 255, blue: 255, alpha: 64), stroke: .cyan, strokeWidth: 2)

    /// The style a selected feature drawn with `base` is highlighted with: this style's colours
    /// and stroke width, with `base`'s marker shape, size and angle, so that a selected point
    /// is outlined in its own shape.
    public func highlighting(_ base: DrawStyle) -> DrawStyle {
        DrawStyle(
            fill: fill, stroke: stroke, strokeWidth: strokeWidth, marker: base.marker, markerSize: base.markerSize,
            markerAngle: base.markerAngle)
    }

    /// Pixels per point at 96 dots per inch: 96 / 72.
    public static let pixelsPerPoint = 96.0 / 72.0

    /// `points` typographic points in pixels at 96 dots per inch (`points × 96 / 72`).
    public static func pixels(points: Double) -> Double { points * pixelsPerPoint }

    /// The largest stroke width and marker size drawn, in pixels: larger ones are drawn at
    /// this size.
    public static let maximumPixels = 10_000.0

    /// ``strokeWidth`` in pixels (0 for a negative, NaN or infinite width; at most
    /// ``maximumPixels``).
    public var strokeWidthPixels: Double { Self.clampedPixels(points: strokeWidth) }

    /// ``markerSize`` in pixels (0 for a negative, NaN or infinite size; at most
    /// ``maximumPixels``).
    public var markerSizePixels: Double { Self.clampedPixels(points: markerSize) }

    /// This style with its negative, NaN or infinite sizes as 0 and a non-finite angle as 0
    /// (what they are drawn as), so that styles drawing alike are equal: a NaN never equals
    /// itself, and would otherwise give every feature a path of its own.
    var normalized: DrawStyle {
        var style = self
        if !(strokeWidth >= 0 && strokeWidth.isFinite) { style.strokeWidth = 0 }
        if !(markerSize >= 0 && markerSize.isFinite) { style.markerSize = 0 }
        if !markerAngle.isFinite { style.markerAngle = 0 }
        return style
    }

    private static func clampedPixels(points: Double) -> Double {
        points > 0 && points.isFinite ? min(pixels(points: points), maximumPixels) : 0
    }
}

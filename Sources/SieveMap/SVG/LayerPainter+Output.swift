extension LayerPainter {
    /// The number of `<path>` elements ``writePaths(into:)`` writes.
    var pathCount: Int { groups.lazy.filter { !$0.path.isEmpty }.count }

    /// Writes one `<path>` element per style and kind that drew anything, in the order the
    /// styles were first used.
    func writePaths(into out: inout SVGBytes) {
        for group in groups where !group.path.isEmpty {
            out.append("<path class=\"")
            out.append(group.kind.className)
            out.append("\"")
            Self.writePaint(of: group, into: &out)
            out.append(" d=\"")
            out.append(group.path)
            out.append("\"/>\n")
        }
    }

    /// The fill and stroke attributes of a path.
    private static func writePaint(of group: PathGroup, into out: inout SVGBytes) {
        let style = group.style
        var fill = style.fill
        var stroke = style.stroke
        var strokeWidth = style.strokeWidthPixels
        switch group.kind {
        case .area, .marker:
            if let marker = group.marker, marker.isStrokeOnly {
                // A cross or an x has no inside: its lines take the stroke colour, else the fill's.
                stroke = stroke ?? fill
                fill = nil
                strokeWidth = max(strokeWidth, DrawStyle.pixelsPerPoint)
            }
        case .line:
            fill = nil
        }
        writeColour(fill, name: "fill", into: &out)
        if group.kind == .area { out.append(" fill-rule=\"evenodd\"") }
        guard let stroke, strokeWidth > 0 else {
            out.append(" stroke=\"none\"")
            return
        }
        writeColour(stroke, name: "stroke", into: &out)
        out.append(" stroke-width=\"")
        out.appendTenths(max(SVGBytes.tenths(strokeWidth), 1))
        out.append("\" stroke-linejoin=\"round\" stroke-linecap=\"round\"")
    }

    /// ` name="#rrggbb"`, and ` name-opacity="…"` for a colour that is not opaque; ` name="none"`
    /// for no colour.
    private static func writeColour(_ colour: RGBAColor?, name: String, into out: inout SVGBytes) {
        out.append(" ")
        out.append(name)
        guard let colour else {
            out.append("=\"none\"")
            return
        }
        out.append("=\"")
        out.append(colour.hex)
        out.append("\"")
        guard colour.alpha < 255 else { return }
        out.append(" ")
        out.append(name)
        out.append("-opacity=\"")
        out.append(opacityText(colour.alpha))
        out.append("\"")
    }

    /// `alpha / 255` with at most three decimals: 0 → `0`, 64 → `0.251`, 128 → `0.502`.
    static func opacityText(_ alpha: UInt8) -> String {
        let thousandths = (Int(alpha) * 1000 + 127) / 255
        guard thousandths > 0 else { return "0" }
        var digits = String(thousandths)
        while digits.count < 3 { digits = "0" + digits }
        while digits.hasSuffix("0") { digits.removeLast() }
        return "0." + digits
    }
}

import Foundation

/// A marker shape drawn at any centre: the offset of its first vertex from the centre and the
/// relative path commands that follow, all in tenths of a pixel, so that a marker costs one
/// `M x y` and a copy of the same bytes.
///
/// The vertices are rounded to tenths once, relative to the centre, and the relative moves
/// between them are differences of rounded offsets, so every copy is exact (no drift) and
/// closes where it started.
struct MarkerTemplate: Sendable {
    /// The first vertex's offset from the centre, in tenths of a pixel.
    let startX: Int
    /// The first vertex's offset from the centre, in tenths of a pixel (y down).
    let startY: Int
    /// The relative path commands after `M x y`.
    let tail: [UInt8]
    /// Whether the shape is only strokes (a cross or an x), which are drawn with a stroke and
    /// no fill.
    let isStrokeOnly: Bool

    /// The template of `shape`, `size` pixels across, turned clockwise by `angle` degrees.
    /// Sizes below 1 pixel are drawn as 1 pixel.
    init(shape: MarkerShape, size: Double, angle: Double) {
        let radius = max(size, 1) / 2
        let turn = angle.isFinite ? angle * .pi / 180 : 0
        let cosine = cos(turn)
        let sine = sin(turn)
        // Offsets on screen (y down), turned clockwise: (x, y) → (x cos − y sin, x sin + y cos).
        func vertex(_ x: Double, _ y: Double) -> (Int, Int) {
            let tx = (x * cosine - y * sine) * radius
            let ty = (x * sine + y * cosine) * radius
            return (SVGBytes.tenths(tx), SVGBytes.tenths(ty))
        }
        var tail = SVGBytes()
        func appendPair(_ dx: Int, _ dy: Int) {
            tail.appendTenths(dx)
            tail.append(UInt8(ascii: " "))
            tail.appendTenths(dy)
        }
        switch shape {
        case .circle:
            let r = SVGBytes.tenths(radius)
            (startX, startY) = (-r, 0)
            for sign in [1, -1] {
                tail.append("a")
                appendPair(r, r)
                tail.append(" 0 1 0 ")
                appendPair(sign * 2 * r, 0)
            }
            tail.append("z")
            isStrokeOnly = false
        case .square, .diamond, .triangle:
            let corners: [(Double, Double)] =
                switch shape {
                case .square: [(-1, -1), (1, -1), (1, 1), (-1, 1)]
                case .diamond: [(0, -1), (1, 0), (0, 1), (-1, 0)]
                default: [(0, -1), (1, 1), (-1, 1)]
                }
            let vertices = corners.map { vertex($0.0, $0.1) }
            (startX, startY) = vertices[0]
            tail.append("l")
            for i in 1..<vertices.count {
                if i > 1 { tail.append(UInt8(ascii: " ")) }
                appendPair(vertices[i].0 - vertices[i - 1].0, vertices[i].1 - vertices[i - 1].1)
            }
            tail.append("z")
            isStrokeOnly = false
        case .cross, .x:
            let arm = shape == .x ? 1 / 2.0.squareRoot() : 1
            let a0 = vertex(-arm, shape == .x ? -arm : 0)
            let a1 = vertex(arm, shape == .x ? arm : 0)
            let b0 = vertex(shape == .x ? -arm : 0, shape == .x ? arm : -arm)
            let b1 = vertex(shape == .x ? arm : 0, shape == .x ? -arm : arm)
            (startX, startY) = a0
            tail.append("l")
            appendPair(a1.0 - a0.0, a1.1 - a0.1)
            tail.append("m")
            appendPair(b0.0 - a1.0, b0.1 - a1.1)
            tail.append("l")
            appendPair(b1.0 - b0.0, b1.1 - b0.1)
            isStrokeOnly = true
        }
        self.tail = tail.bytes
    }
}

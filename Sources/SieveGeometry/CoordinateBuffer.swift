/// Which ordinates beyond x and y each position of a geometry carries.
public struct CoordinateLayout: Hashable, Sendable {
    /// Whether each position has a z value.
    public var hasZ: Bool
    /// Whether each position has an m value.
    public var hasM: Bool

    /// Creates a layout.
    public init(hasZ: Bool = false, hasM: Bool = false) {
        self.hasZ = hasZ
        self.hasM = hasM
    }

    /// x, y only.
    public static let xy = CoordinateLayout()
    /// x, y, z.
    public static let xyz = CoordinateLayout(hasZ: true)
    /// x, y, m.
    public static let xym = CoordinateLayout(hasM: true)
    /// x, y, z, m.
    public static let xyzm = CoordinateLayout(hasZ: true, hasM: true)

    /// Number of doubles per position: 2, 3 or 4.
    @inlinable public var stride: Int { 2 + (hasZ ? 1 : 0) + (hasM ? 1 : 0) }

    /// Offset of z within a position, when present.
    @inlinable public var zOffset: Int? { hasZ ? 2 : nil }
    /// Offset of m within a position, when present.
    @inlinable public var mOffset: Int? { hasM ? (hasZ ? 3 : 2) : nil }
}

/// A flat sequence of positions: all ordinates interleaved in one `[Double]`
/// (`x0 y0 [z0] [m0] x1 y1 …`), in the layout GEOS reads with `GEOSCoordSeq_copyFromBuffer_r`.
///
/// Multipoints, polylines and polygons keep all their vertices in one buffer and describe their
/// paths and rings with offsets into it.
public struct CoordinateBuffer: Hashable, Sendable, RandomAccessCollection {
    /// The interleaved ordinates.
    public private(set) var values: [Double]
    /// Which ordinates each position carries.
    public let layout: CoordinateLayout

    /// Creates an empty buffer.
    public init(layout: CoordinateLayout = .xy) {
        self.values = []
        self.layout = layout
    }

    /// Creates a buffer from interleaved ordinates. `values.count` must be a multiple of the
    /// layout's stride.
    public init(values: [Double], layout: CoordinateLayout = .xy) {
        precondition(values.count % layout.stride == 0, "ordinate count is not a multiple of the stride")
        self.values = values
        self.layout = layout
    }

    /// Creates a buffer holding the given points. Points that lack an ordinate of the layout get
    /// 0 for z and NaN for m.
    public init<S: Sequence>(points: S, layout: CoordinateLayout) where S.Element == Point {
        self.layout = layout
        self.values = []
        self.values.reserveCapacity(points.underestimatedCount * layout.stride)
        for point in points { append(point) }
    }

    /// Appends one position.
    public mutating func append(_ point: Point) {
        values.append(point.x)
        values.append(point.y)
        if layout.hasZ { values.append(point.z ?? 0) }
        if layout.hasM { values.append(point.m ?? .nan) }
    }

    /// Appends all positions of another buffer with the same layout.
    public mutating func append(contentsOf other: CoordinateBuffer) {
        precondition(other.layout == layout, "coordinate layouts differ")
        values.append(contentsOf: other.values)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { values.count / layout.stride }

    /// The position at `index`.
    public subscript(index: Int) -> Point {
        let base = index * layout.stride
        var point = Point(x: values[base], y: values[base + 1])
        if let offset = layout.zOffset { point.z = values[base + offset] }
        if let offset = layout.mOffset { point.m = values[base + offset] }
        return point
    }

    /// The x of the position at `index`.
    @inlinable public func x(at index: Int) -> Double { values[index * layout.stride] }
    /// The y of the position at `index`.
    @inlinable public func y(at index: Int) -> Double { values[index * layout.stride + 1] }

    /// The bounding box of the positions in `range`.
    public func envelope(of range: Range<Int>) -> Envelope {
        var box = Envelope.empty
        let stride = layout.stride
        values.withUnsafeBufferPointer { buffer in
            var i = range.lowerBound * stride
            let end = range.upperBound * stride
            while i < end {
                box.expand(x: buffer[i], y: buffer[i + 1])
                i += stride
            }
        }
        return box
    }

    /// The bounding box of all positions.
    public var envelope: Envelope { envelope(of: 0..<count) }

    /// Whether every ordinate is finite (NaN m values are allowed: they mean "no measure").
    public var isFinite: Bool {
        let stride = layout.stride
        let mOffset = layout.mOffset
        for (i, value) in values.enumerated() where !value.isFinite {
            if let mOffset, i % stride == mOffset, value.isNaN { continue }
            return false
        }
        return true
    }

    /// Twice the signed area of the ring held in `range` (shoelace formula): positive for a
    /// counter-clockwise ring, negative for a clockwise one, with y pointing up.
    ///
    /// The value is exactly antisymmetric: the same ring with its vertices reversed gives exactly
    /// the negated value, bit for bit (each cross product is summed once front to back and once
    /// back to front, and the two sums are averaged), so a writer that reverses a ring to give it
    /// an orientation and a reader that decides by orientation always agree, however close to
    /// zero the area is. Offsets are taken from the first vertex; when their products would
    /// overflow, they are scaled down first and the result is ±infinity (the sign stays exact
    /// in the same sense).
    public func signedDoubleArea(of range: Range<Int>) -> Double {
        values.withUnsafeBufferPointer { Self.signedDoubleArea($0, stride: layout.stride, range: range) }
    }

    /// ``signedDoubleArea(of:)`` of the ring held in the positions `range` of `values`, whose
    /// position `i` has its x and y at `values[i * stride]` and `values[i * stride + 1]`: the
    /// one computation for a ``CoordinateBuffer`` and for a ``GeometryColumn``'s x/y buffer, so
    /// that both give the same bits.
    package static func signedDoubleArea(_ values: UnsafeBufferPointer<Double>, stride: Int, range: Range<Int>) -> Double {
        guard range.count >= 3 else { return 0 }
        func x(_ i: Int) -> Double { values[i * stride] }
        func y(_ i: Int) -> Double { values[i * stride + 1] }
        let x0 = x(range.lowerBound)
        let y0 = y(range.lowerBound)
        var largest = 0.0
        for i in range {
            largest = Swift.max(largest, abs(x(i) - x0), abs(y(i) - y0))
        }
        // Products of offsets below 2^511 stay finite, and so does the sum of a few billion of
        // them; larger offsets (up to the 2^1025 between the ends of the Double range) are
        // scaled down by 2^-600 first.
        let scale = largest < 0x1p511 ? 1.0 : 0x1p-600
        let sx0 = x0 * scale, sy0 = y0 * scale
        func term(_ i: Int) -> Double {
            let ax = x(i) * scale - sx0, ay = y(i) * scale - sy0
            let bx = x(i + 1) * scale - sx0, by = y(i + 1) * scale - sy0
            return ax * by - bx * ay
        }
        var forward = 0.0
        for i in range.lowerBound..<(range.upperBound - 1) { forward += term(i) }
        var backward = 0.0
        for i in (range.lowerBound..<(range.upperBound - 1)).reversed() { backward += term(i) }
        let sum = (forward + backward) / 2
        return scale == 1 || sum == 0 ? sum : (sum > 0 ? .infinity : -.infinity)
    }
}

extension Array {
    /// Makes room for at least `minimum` elements, at least doubling the capacity when it must
    /// grow. Readers that learn sizes piece by piece (one ring at a time) call this instead of
    /// `reserveCapacity(count + more)`, which reallocates to the exact size on every call and so
    /// copies the whole array once per piece: quadratic in the number of pieces.
    @inline(__always)
    mutating func reserveGrowing(_ minimum: Int) {
        if capacity < minimum { reserveCapacity(Swift.max(minimum, 2 * capacity)) }
    }
}

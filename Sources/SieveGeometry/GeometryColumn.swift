import SieveBuffers

/// The geometries of a table's rows, stored by column: flat arrays for the whole column instead
/// of one ``Geometry`` value, with its own heap buffers, per row.
///
/// The layout follows GeoArrow's:
///
/// - A column of points keeps x and y in two arrays, one element per row (z and m in two more
///   when any row has them). A row without geometry, and the empty point, hold NaN.
/// - Any other column keeps every vertex of every row in one interleaved x/y buffer (z and m in
///   buffers of their own when present), and describes the rows with three levels of offsets:
///   a row is a range of *parts*, a part a range of *rings* (paths for polylines, one ring
///   holding all positions for a multipoint), a ring a range of positions. Envelope rows are
///   their bounds; collections, which are rare in feature tables, are kept as values.
/// - Every row's envelope is kept in four arrays (``xmin``, ``ymin``, ``xmax``, ``ymax``), NaN
///   for a row without geometry or with an empty one, so that no envelope test matches it. For a
///   column of points these are the x and y arrays themselves, shared, not copied.
///
/// ``subscript(_:)`` materializes a row as a ``Geometry`` value (a copy of its positions), equal
/// to the geometry stored. Readers that want speed read the arrays: ``pointX``/``pointY`` for a
/// column of points, ``rowParts(_:)``, ``partRings(_:)``, ``ringPositions(_:)`` and ``xy``
/// otherwise.
///
/// Rows are appended with ``append(_:)`` and replaced with ``replace(row:with:)``, neither of
/// which copies the column: a replaced row's new positions go to the end of the buffers and its
/// old ones are left unused until ``compacted()`` (which ``replace(row:with:)`` calls itself once
/// the unused positions outnumber the used ones).
public struct GeometryColumn: Sendable {
    /// What a row holds: its kind, and whether its positions carry z and m.
    ///
    /// Stored as one byte per row: the kind in the low three bits (0 for no geometry), z in bit
    /// 4, m in bit 5.
    @usableFromInline
    struct RowFlags: Sendable, Equatable {
        @usableFromInline var rawValue: UInt8

        static let none = RowFlags(rawValue: 0)
        @usableFromInline static let zBit: UInt8 = 0x10
        @usableFromInline static let mBit: UInt8 = 0x20

        @inlinable init(rawValue: UInt8) { self.rawValue = rawValue }

        init(kind: Geometry.Kind, layout: CoordinateLayout) {
            let code: UInt8 =
                switch kind {
                case .point: 1
                case .multipoint: 2
                case .polyline: 3
                case .polygon: 4
                case .envelope: 5
                case .collection: 6
                }
            rawValue = code | (layout.hasZ ? Self.zBit : 0) | (layout.hasM ? Self.mBit : 0)
        }

        /// The kind, or `nil` for a row without geometry.
        @inlinable var kind: Geometry.Kind? {
            switch rawValue & 0x07 {
            case 1: .point
            case 2: .multipoint
            case 3: .polyline
            case 4: .polygon
            case 5: .envelope
            case 6: .collection
            default: nil
            }
        }

        @inlinable var layout: CoordinateLayout {
            CoordinateLayout(hasZ: rawValue & Self.zBit != 0, hasM: rawValue & Self.mBit != 0)
        }
    }

    /// How the column stores its rows.
    public enum Storage: Sendable, Equatable {
        /// x and y arrays, one element per row: every row is a point or has no geometry.
        case points
        /// Parts, rings and a position buffer (any kind of geometry).
        case shapes
    }

    /// How the column stores its rows (see the type's description).
    public private(set) var storage: Storage

    /// One byte per row (see `RowFlags`).
    @usableFromInline var flags = ColumnBuffer<UInt8>()

    // Point storage: one element per row.
    /// Each row's x (point storage) or envelope minimum x (shape storage).
    @usableFromInline var x = ColumnBuffer<Double>()
    /// Each row's y (point storage) or envelope minimum y (shape storage).
    @usableFromInline var y = ColumnBuffer<Double>()

    // Shape storage.
    /// Each row's envelope maximum x (shape storage only).
    @usableFromInline var maxX = ColumnBuffer<Double>()
    /// Each row's envelope maximum y (shape storage only).
    @usableFromInline var maxY = ColumnBuffer<Double>()
    /// Each row's first part (for a collection: its index in `collections`).
    @usableFromInline var rowPartStart = ColumnBuffer<Int>()
    /// Each row's part count.
    @usableFromInline var rowPartCount = ColumnBuffer<Int32>()
    /// Part `p`'s rings are `partRingStart[p] ..< partRingStart[p + 1]` (one more element than
    /// parts; a row's parts are appended together, so their rings are contiguous).
    @usableFromInline var partRingStart: ColumnBuffer<Int> = [0]
    /// Ring `r`'s positions are `ringPositionStart[r] ..< ringPositionStart[r + 1]`.
    @usableFromInline var ringPositionStart: ColumnBuffer<Int> = [0]
    /// Interleaved x, y of every position (shape storage), or empty.
    public private(set) var xy = ColumnBuffer<Double>()
    /// The collections, referred to by `rowPartStart`.
    var collections: [Geometry] = []

    // Both storages.
    /// Each position's z (point storage: each row's), or empty when no row has z.
    public private(set) var z = ColumnBuffer<Double>()
    /// Each position's m (point storage: each row's), or empty when no row has m.
    public private(set) var m = ColumnBuffer<Double>()
    /// Whether ``z`` is kept (a row has had z), so it holds one value per position. (`z` alone
    /// cannot tell: it is empty too when the first row with z comes before any position.)
    public private(set) var hasZ = false
    /// Whether ``m`` is kept, as ``hasZ``.
    public private(set) var hasM = false

    /// Positions in `xy` that no row refers to any more (left by ``replace(row:with:)``).
    public private(set) var unusedPositions = 0

    /// An empty column in the given storage.
    public init(storage: Storage = .points) {
        self.storage = storage
    }

    /// A column holding `geometries`, in point storage when every one is a point or `nil`.
    public init<S: Sequence>(_ geometries: S) where S.Element == Geometry? {
        let all = Array(geometries)
        let pointsOnly = all.allSatisfy { geometry in
            if let geometry, case .point = geometry { return true }
            return geometry == nil
        }
        self.init(storage: pointsOnly ? .points : .shapes)
        reserveCapacity(all.count)
        for geometry in all { append(geometry) }
    }

    /// Reserves room for `rows` rows.
    public mutating func reserveCapacity(_ rows: Int) {
        flags.reserveCapacity(rows)
        x.reserveCapacity(rows)
        y.reserveCapacity(rows)
        if storage == .shapes {
            maxX.reserveCapacity(rows)
            maxY.reserveCapacity(rows)
            rowPartStart.reserveCapacity(rows)
            rowPartCount.reserveCapacity(rows)
        }
    }

    /// The number of rows.
    @inlinable public var count: Int { flags.count }

    // MARK: - Envelopes

    /// Each row's envelope minimum x (NaN for a row without geometry or with an empty one).
    public var xmin: ColumnBuffer<Double> { x }
    /// Each row's envelope minimum y (NaN for a row without geometry or with an empty one).
    public var ymin: ColumnBuffer<Double> { y }
    /// Each row's envelope maximum x (NaN for a row without geometry or with an empty one).
    public var xmax: ColumnBuffer<Double> { storage == .points ? x : maxX }
    /// Each row's envelope maximum y (NaN for a row without geometry or with an empty one).
    public var ymax: ColumnBuffer<Double> { storage == .points ? y : maxY }

    /// The envelope of row `row`, or `nil` when the row has no geometry or an empty one.
    public func envelope(row: Int) -> Envelope? {
        let x0 = x[row]
        guard !x0.isNaN else { return nil }
        return storage == .points
            ? Envelope(xmin: x0, ymin: y[row], xmax: x0, ymax: y[row])
            : Envelope(xmin: x0, ymin: y[row], xmax: maxX[row], ymax: maxY[row])
    }

    // MARK: - Reading rows

    /// The kind of row `row`'s geometry, or `nil` when it has none.
    public func kind(row: Int) -> Geometry.Kind? { RowFlags(rawValue: flags[row]).kind }

    /// Whether row `row` has no geometry.
    public func isNull(row: Int) -> Bool { flags[row] & 0x07 == 0 }

    /// The layout of row `row`'s positions.
    public func layout(row: Int) -> CoordinateLayout { RowFlags(rawValue: flags[row]).layout }

    /// Point storage: each row's x (NaN for a row without geometry and for the empty point).
    public var pointX: ColumnBuffer<Double> { storage == .points ? x : [] }
    /// Point storage: each row's y (NaN for a row without geometry and for the empty point).
    public var pointY: ColumnBuffer<Double> { storage == .points ? y : [] }

    /// Shape storage: the parts of row `row` (indexes for ``partRings(_:)``).
    public func rowParts(_ row: Int) -> Range<Int> {
        guard storage == .shapes, RowFlags(rawValue: flags[row]).kind != .collection else { return 0..<0 }
        let start = rowPartStart[row]
        return start..<(start + Int(rowPartCount[row]))
    }

    /// Shape storage: the rings (paths) of part `part` (indexes for ``ringPositions(_:)``).
    public func partRings(_ part: Int) -> Range<Int> { partRingStart[part]..<partRingStart[part + 1] }

    /// Shape storage: the positions of ring `ring` (indexes into ``xy`` halved, ``z``, ``m``).
    public func ringPositions(_ ring: Int) -> Range<Int> { ringPositionStart[ring]..<ringPositionStart[ring + 1] }

    /// Row `row`'s geometry, materialized (`nil` when the row has none).
    public subscript(row: Int) -> Geometry? {
        let rowFlags = RowFlags(rawValue: flags[row])
        guard let kind = rowFlags.kind else { return nil }
        let layout = rowFlags.layout
        if storage == .points {
            var point = Point(x: x[row], y: y[row])
            if layout.hasZ { point.z = z[row] }
            if layout.hasM { point.m = m[row] }
            return .point(point)
        }
        switch kind {
        case .collection:
            return collections[rowPartStart[row]]
        case .envelope:
            return .envelope(envelope(row: row) ?? .empty)
        case .point:
            // A point row holds one part of one ring of one position (NaN x and y when empty).
            let position = ringPositionStart[partRingStart[rowPartStart[row]]]
            return .point(point(at: position, layout: layout))
        case .multipoint:
            let (buffer, _, _) = positions(row: row, layout: layout)
            return .multipoint(Multipoint(trusted: buffer, envelope: envelope(row: row) ?? .empty))
        case .polyline:
            let (buffer, rings, _) = positions(row: row, layout: layout)
            return .polyline(Polyline(trusted: buffer, pathOffsets: rings, envelope: envelope(row: row) ?? .empty))
        case .polygon:
            let (buffer, rings, parts) = positions(row: row, layout: layout)
            return .polygon(
                Polygon(trusted: buffer, ringOffsets: rings, partOffsets: parts, envelope: envelope(row: row) ?? .empty))
        }
    }

    /// The position at index `position` of the shape buffers, in `layout`.
    private func point(at position: Int, layout: CoordinateLayout) -> Point {
        var point = Point(x: xy[2 * position], y: xy[2 * position + 1])
        if layout.hasZ { point.z = z[position] }
        if layout.hasM { point.m = m[position] }
        return point
    }

    /// Row `row`'s positions as one buffer in `layout`, with ring offsets and part offsets
    /// relative to it.
    private func positions(row: Int, layout: CoordinateLayout) -> (CoordinateBuffer, [Int], [Int]) {
        let parts = rowParts(row)
        guard let firstPart = parts.first else { return (CoordinateBuffer(layout: layout), [0], [0]) }
        let rings = partRingStart[firstPart]..<partRingStart[parts.upperBound]
        let positions = ringPositionStart[rings.lowerBound]..<ringPositionStart[rings.upperBound]
        var values: [Double]
        if layout == .xy {
            values = Array(xy[(2 * positions.lowerBound)..<(2 * positions.upperBound)])
        } else {
            values = []
            values.reserveCapacity(positions.count * layout.stride)
            for i in positions {
                values.append(xy[2 * i])
                values.append(xy[2 * i + 1])
                if layout.hasZ { values.append(z[i]) }
                if layout.hasM { values.append(m[i]) }
            }
        }
        let ringOffsets = ringPositionStart[rings.lowerBound...rings.upperBound].map { $0 - positions.lowerBound }
        let partOffsets = partRingStart[parts.lowerBound...parts.upperBound].map { $0 - rings.lowerBound }
        return (CoordinateBuffer(values: values, layout: layout), ringOffsets, partOffsets)
    }

    // MARK: - Writing rows

    /// Appends a row. Nothing already in the column is written (only appended to), so a copy
    /// of the column taken before, such as a table snapshot's, shares its buffers and is never
    /// copied (see ``/SieveBuffers/ColumnBuffer``).
    public mutating func append(_ geometry: Geometry?) {
        if storage == .points, let geometry, geometry.kind != .point { convertToShapes() }
        guard let geometry else {
            flags.append(0)
            x.append(.nan)
            y.append(.nan)
            if storage == .points {
                if hasZ { z.append(0) }
                if hasM { m.append(.nan) }
            } else {
                maxX.append(.nan)
                maxY.append(.nan)
                rowPartStart.append(partRingStart.count - 1)
                rowPartCount.append(0)
            }
            return
        }
        let layout = geometry.layout
        keepZAndM(for: layout)
        let envelope = geometry.envelope
        flags.append(RowFlags(kind: geometry.kind, layout: layout).rawValue)
        x.append(envelope.isEmpty ? .nan : envelope.xmin)
        y.append(envelope.isEmpty ? .nan : envelope.ymin)
        if storage == .points {
            let point = geometry.pointValue
            if hasZ { z.append(point?.z ?? 0) }
            if hasM { m.append(point?.m ?? .nan) }
            return
        }
        maxX.append(envelope.isEmpty ? .nan : envelope.xmax)
        maxY.append(envelope.isEmpty ? .nan : envelope.ymax)
        let (partStart, partCount) = appendParts(of: geometry)
        rowPartStart.append(partStart)
        rowPartCount.append(partCount)
    }

    /// Appends a point row: the fast path of loaders (no ``Geometry`` value is built).
    /// `x` and `y` must be finite, or both NaN for the empty point.
    public mutating func appendPoint(x px: Double, y py: Double, z pz: Double? = nil, m pm: Double? = nil) {
        if storage == .points, pz == nil, pm == nil, !hasZ, !hasM {
            flags.append(1)
            x.append(px)
            y.append(py)
            return
        }
        append(.point(Point(x: px, y: py, z: pz, m: pm)))
    }

    /// Replaces row `row`'s geometry. The column is not copied: in shape storage the new
    /// positions are appended and the old ones left unused, and the buffers are compacted once
    /// unused positions outnumber used ones.
    public mutating func replace(row: Int, with geometry: Geometry?) {
        precondition(row >= 0 && row < count, "row out of range")
        if storage == .points, let geometry, geometry.kind != .point { convertToShapes() }
        if storage == .shapes {
            unusedPositions += positionCount(row: row)
            rowPartStart[row] = partRingStart.count - 1
            rowPartCount[row] = 0
            maxX[row] = .nan
            maxY[row] = .nan
        } else {
            if hasZ { z[row] = 0 }
            if hasM { m[row] = .nan }
        }
        flags[row] = 0
        x[row] = .nan
        y[row] = .nan
        if let geometry { write(geometry, row: row) }
        if storage == .shapes, unusedPositions > 1024, unusedPositions > xy.count / 4 { self = compacted() }
    }

    /// The number of positions row `row` holds in the shape buffers.
    private func positionCount(row: Int) -> Int {
        let parts = rowParts(row)
        guard let first = parts.first else { return 0 }
        return ringPositionStart[partRingStart[parts.upperBound]] - ringPositionStart[partRingStart[first]]
    }

    /// Writes `geometry` into row `row`, which holds no geometry and, in shape storage, no parts.
    private mutating func write(_ geometry: Geometry, row: Int) {
        let layout = geometry.layout
        keepZAndM(for: layout)
        flags[row] = RowFlags(kind: geometry.kind, layout: layout).rawValue
        let envelope = geometry.envelope
        if !envelope.isEmpty {
            x[row] = envelope.xmin
            y[row] = envelope.ymin
            if storage == .shapes {
                maxX[row] = envelope.xmax
                maxY[row] = envelope.ymax
            }
        }
        if storage == .points {
            // The empty point keeps NaN x and y (its envelope is empty).
            let point = geometry.pointValue
            if hasZ { z[row] = point?.z ?? 0 }
            if hasM { m[row] = point?.m ?? .nan }
            return
        }
        let (partStart, partCount) = appendParts(of: geometry)
        rowPartStart[row] = partStart
        rowPartCount[row] = partCount
    }

    /// Starts keeping z (or m) for every position once a geometry with z (or m) arrives: the
    /// rows before get 0 for z and NaN for m.
    private mutating func keepZAndM(for layout: CoordinateLayout) {
        if layout.hasZ && !hasZ {
            z = ColumnBuffer(repeating: 0, count: storage == .points ? count : xy.count / 2)
            hasZ = true
        }
        if layout.hasM && !hasM {
            m = ColumnBuffer(repeating: .nan, count: storage == .points ? count : xy.count / 2)
            hasM = true
        }
    }

    /// Shape storage: appends the parts, rings and positions of `geometry` (a collection to
    /// ``collections``), and returns what the row's part start and part count are.
    private mutating func appendParts(of geometry: Geometry) -> (start: Int, count: Int32) {
        let layout = geometry.layout
        let start = partRingStart.count - 1
        switch geometry {
        case .point(let point):
            appendRing(CoordinateBuffer(points: [point], layout: layout), 0..<1)
            partRingStart.append(ringPositionStart.count - 1)
            return (start, 1)
        case .multipoint(let multipoint):
            guard !multipoint.isEmpty else { return (start, 0) }
            appendRing(multipoint.coordinates, 0..<multipoint.coordinates.count)
            partRingStart.append(ringPositionStart.count - 1)
            return (start, 1)
        case .polyline(let polyline):
            for path in 0..<polyline.pathCount {
                appendRing(polyline.coordinates, polyline.pathRange(path))
                partRingStart.append(ringPositionStart.count - 1)
            }
            return (start, Int32(polyline.pathCount))
        case .polygon(let polygon):
            for part in 0..<polygon.partCount {
                for ring in polygon.partRingRange(part) { appendRing(polygon.coordinates, polygon.ringRange(ring)) }
                partRingStart.append(ringPositionStart.count - 1)
            }
            return (start, Int32(polygon.partCount))
        case .envelope:
            return (start, 0)
        case .collection:
            collections.append(geometry)
            return (collections.count - 1, 0)
        }
    }

    /// Appends the positions `range` of `buffer` as one ring.
    private mutating func appendRing(_ buffer: CoordinateBuffer, _ range: Range<Int>) {
        let layout = buffer.layout
        xy.reserveCapacity(xy.count + 2 * range.count)
        for i in range {
            xy.append(buffer.x(at: i))
            xy.append(buffer.y(at: i))
        }
        if hasZ {
            if let offset = layout.zOffset {
                for i in range { z.append(buffer.values[i * layout.stride + offset]) }
            } else {
                z.append(contentsOf: repeatElement(0, count: range.count))
            }
        }
        if hasM {
            if let offset = layout.mOffset {
                for i in range { m.append(buffer.values[i * layout.stride + offset]) }
            } else {
                m.append(contentsOf: repeatElement(.nan, count: range.count))
            }
        }
        ringPositionStart.append(xy.count / 2)
    }

    /// Appends every row of `other`, in order. Columns of the same storage whose rows have the
    /// same z/m flags are joined array by array (no ``Geometry`` is built); others row by row.
    public mutating func append(contentsOf other: GeometryColumn) {
        guard other.count > 0 else { return }
        if count == 0, unusedPositions == 0 {
            self = other
            return
        }
        guard storage == other.storage, hasZ == other.hasZ, hasM == other.hasM, other.unusedPositions == 0 else {
            reserveCapacity(count + other.count)
            for row in 0..<other.count { append(other[row]) }
            return
        }
        flags.append(contentsOf: other.flags)
        x.append(contentsOf: other.x)
        y.append(contentsOf: other.y)
        z.append(contentsOf: other.z)
        m.append(contentsOf: other.m)
        guard storage == .shapes else { return }
        maxX.append(contentsOf: other.maxX)
        maxY.append(contentsOf: other.maxY)
        let partBase = partRingStart.count - 1
        let ringBase = ringPositionStart.count - 1
        let positionBase = xy.count / 2
        let collectionBase = collections.count
        for row in 0..<other.count {
            let isCollection = RowFlags(rawValue: other.flags[row]).kind == .collection
            rowPartStart.append(other.rowPartStart[row] + (isCollection ? collectionBase : partBase))
        }
        rowPartCount.append(contentsOf: other.rowPartCount)
        partRingStart.append(contentsOf: other.partRingStart.dropFirst().lazy.map { $0 + ringBase })
        ringPositionStart.append(contentsOf: other.ringPositionStart.dropFirst().lazy.map { $0 + positionBase })
        xy.append(contentsOf: other.xy)
        collections.append(contentsOf: other.collections)
    }

    /// The rows `rows` of this column, in that order (a row may appear more than once), as a
    /// column of their own in the same storage: flags, envelopes, offsets and positions copied
    /// row by row from the arrays, no ``Geometry`` built (collections, kept as values, are
    /// shared). The unused positions of replaced rows are left behind.
    public func gathering(_ rows: [Int]) -> GeometryColumn {
        var column = GeometryColumn(storage: storage)
        column.reserveCapacity(rows.count)
        column.hasZ = hasZ && rows.contains { flags[$0] & RowFlags.zBit != 0 }
        column.hasM = hasM && rows.contains { flags[$0] & RowFlags.mBit != 0 }
        column.flags = ColumnBuffer(rows.lazy.map { flags[$0] })
        column.x = ColumnBuffer(rows.lazy.map { x[$0] })
        column.y = ColumnBuffer(rows.lazy.map { y[$0] })
        if storage == .points {
            if column.hasZ { column.z = ColumnBuffer(rows.lazy.map { z[$0] }) }
            if column.hasM { column.m = ColumnBuffer(rows.lazy.map { m[$0] }) }
            return column
        }
        column.maxX = ColumnBuffer(rows.lazy.map { maxX[$0] })
        column.maxY = ColumnBuffer(rows.lazy.map { maxY[$0] })
        for row in rows {
            if RowFlags(rawValue: flags[row]).kind == .collection {
                column.rowPartStart.append(column.collections.count)
                column.rowPartCount.append(0)
                column.collections.append(collections[rowPartStart[row]])
                continue
            }
            let parts = rowParts(row)
            column.rowPartStart.append(column.partRingStart.count - 1)
            column.rowPartCount.append(Int32(parts.count))
            for part in parts {
                for ring in partRings(part) {
                    let positions = ringPositions(ring)
                    column.xy.append(contentsOf: xy[(2 * positions.lowerBound)..<(2 * positions.upperBound)])
                    if column.hasZ { column.z.append(contentsOf: z[positions]) }
                    if column.hasM { column.m.append(contentsOf: m[positions]) }
                    column.ringPositionStart.append(column.xy.count / 2)
                }
                column.partRingStart.append(column.ringPositionStart.count - 1)
            }
        }
        return column
    }

    /// Turns point storage into shape storage (once, when a row of another kind arrives).
    private mutating func convertToShapes() {
        let points = (0..<count).map { self[$0] }
        self = GeometryColumn(storage: .shapes)
        reserveCapacity(points.count)
        for point in points { append(point) }
    }

    /// The same rows with the unused positions left by replacements removed, in row order.
    public func compacted() -> GeometryColumn {
        var column = GeometryColumn(storage: storage)
        column.reserveCapacity(count)
        for row in 0..<count { column.append(self[row]) }
        return column
    }

    // MARK: - Size

    /// The bytes the column's arrays hold (their elements, not spare capacity).
    public var byteCount: Int {
        let doubles = x.count + y.count + maxX.count + maxY.count + xy.count + z.count + m.count
        let ints = rowPartStart.count + partRingStart.count + ringPositionStart.count
        return flags.count + 8 * doubles + 8 * ints + 4 * rowPartCount.count
    }
}

// MARK: - Reading shape storage in place

extension GeometryColumn {
    /// The arrays of a column in shape storage, read in place: each row's kind and envelope, its
    /// parts, rings and positions, and the interleaved x/y buffer. Readers that visit many rows
    /// (spatial filters, writers) take the view once and read positions straight from ``xy``
    /// instead of materializing a ``Geometry`` per row.
    ///
    /// A row's parts are contiguous, and so are its parts' rings and its rings' positions, so a
    /// row is one range of rings (``rings(row:)``) and one range of positions
    /// (``positions(row:)``). What a row's rings are depends on its kind: a polygon part's rings
    /// (outer ring first, then its holes), a polyline's paths (one per part), a multipoint's one
    /// ring holding every point, a point's one ring of one position. Envelopes and collections
    /// have no rings (read them with ``GeometryColumn/subscript(_:)``), nor has a row without
    /// geometry or an empty one.
    ///
    /// The view shares the column's arrays (no copy); it stays valid, and unchanged, when the
    /// column is changed afterwards.
    public struct Shapes: Sendable {
        @usableFromInline let flags: ColumnBuffer<UInt8>
        @usableFromInline let minX: ColumnBuffer<Double>
        @usableFromInline let minY: ColumnBuffer<Double>
        @usableFromInline let maxX: ColumnBuffer<Double>
        @usableFromInline let maxY: ColumnBuffer<Double>
        @usableFromInline let rowPartStart: ColumnBuffer<Int>
        @usableFromInline let rowPartCount: ColumnBuffer<Int32>
        /// Part `p`'s rings are `partOffsets[p] ..< partOffsets[p + 1]`.
        public let partOffsets: ColumnBuffer<Int>
        /// Ring `r`'s positions are `ringOffsets[r] ..< ringOffsets[r + 1]`.
        public let ringOffsets: ColumnBuffer<Int>
        /// Interleaved x, y of every position: position `i` is at `xy[2 * i]`, `xy[2 * i + 1]`.
        public let xy: ColumnBuffer<Double>
        /// Each position's z (0 for a position of a row without z), or empty when no row has z.
        public let z: ColumnBuffer<Double>
        /// Each position's m (NaN for a position of a row without m), or empty when no row has m.
        public let m: ColumnBuffer<Double>

        init(_ column: GeometryColumn) {
            flags = column.flags
            minX = column.x
            minY = column.y
            maxX = column.maxX
            maxY = column.maxY
            rowPartStart = column.rowPartStart
            rowPartCount = column.rowPartCount
            partOffsets = column.partRingStart
            ringOffsets = column.ringPositionStart
            xy = column.xy
            z = column.z
            m = column.m
        }

        /// The number of rows.
        @inlinable public var count: Int { flags.count }

        /// The kind of row `row`'s geometry, or `nil` when it has none.
        @inlinable public func kind(row: Int) -> Geometry.Kind? { RowFlags(rawValue: flags[row]).kind }

        /// Whether row `row`'s positions carry z or m (kept in ``GeometryColumn/z`` and
        /// ``GeometryColumn/m``, not in ``xy``).
        @inlinable public func hasZOrM(row: Int) -> Bool { flags[row] & (RowFlags.zBit | RowFlags.mBit) != 0 }

        /// The layout of row `row`'s positions: whether its positions' values in ``z`` and ``m``
        /// belong to it.
        @inlinable public func layout(row: Int) -> CoordinateLayout { RowFlags(rawValue: flags[row]).layout }

        /// The envelope of row `row`, or `nil` when the row has no geometry or an empty one.
        @inlinable public func envelope(row: Int) -> Envelope? {
            let x0 = minX[row]
            guard !x0.isNaN else { return nil }
            return Envelope(xmin: x0, ymin: minY[row], xmax: maxX[row], ymax: maxY[row])
        }

        /// The parts of row `row` (indexes into ``partOffsets``); empty for a row without
        /// geometry, an empty one, an envelope or a collection.
        @inlinable public func parts(row: Int) -> Range<Int> {
            guard flags[row] & 0x07 != 6 else { return 0..<0 }
            let start = rowPartStart[row]
            return start..<(start + Int(rowPartCount[row]))
        }

        /// The rings of part `part` (indexes into ``ringOffsets``).
        @inlinable public func rings(part: Int) -> Range<Int> { partOffsets[part]..<partOffsets[part + 1] }

        /// The rings of all of row `row`'s parts, in order (see ``parts(row:)``).
        @inlinable public func rings(row: Int) -> Range<Int> {
            let parts = parts(row: row)
            guard !parts.isEmpty else { return 0..<0 }
            return partOffsets[parts.lowerBound]..<partOffsets[parts.upperBound]
        }

        /// The positions of ring `ring` (indexes of x/y pairs in ``xy``).
        @inlinable public func positions(ring: Int) -> Range<Int> { ringOffsets[ring]..<ringOffsets[ring + 1] }

        /// The positions of all of row `row`'s rings, in order (see ``rings(row:)``).
        @inlinable public func positions(row: Int) -> Range<Int> {
            let rings = rings(row: row)
            guard !rings.isEmpty else { return 0..<0 }
            return ringOffsets[rings.lowerBound]..<ringOffsets[rings.upperBound]
        }

        /// The x of position `position`.
        @inlinable public func x(_ position: Int) -> Double { xy[2 * position] }
        /// The y of position `position`.
        @inlinable public func y(_ position: Int) -> Double { xy[2 * position + 1] }

        /// Twice the signed area of ring `ring`, bit for bit as
        /// ``CoordinateBuffer/signedDoubleArea(of:)`` computes it for the materialized ring:
        /// positive counter-clockwise, negative clockwise.
        public func signedDoubleArea(ring: Int) -> Double {
            xy.withUnsafeBufferPointer { CoordinateBuffer.signedDoubleArea($0, stride: 2, range: positions(ring: ring)) }
        }
    }

    /// The shape storage's arrays, read in place (see ``Shapes``); `nil` in point storage, whose
    /// rows are read from ``pointX`` and ``pointY``.
    public var shapes: Shapes? { storage == .shapes ? Shapes(self) : nil }
}

extension Geometry {
    /// The point, when this is one.
    fileprivate var pointValue: Point? {
        if case .point(let point) = self { return point }
        return nil
    }
}

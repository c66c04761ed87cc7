import SieveGEOS
import SieveGeometry
import SieveIndex

/// The accelerated spatial filter for "features that intersect / lie within a query polygon":
/// the quadtree's node boxes are classified against the query geometry once per node — covered
/// (every feature below intersects), disjoint (none does), or on the boundary — and only the
/// features of boundary leaves are tested one by one. With a ``PolygonGrid`` the grid classifies
/// the boxes and answers most feature tests; GEOS (the prepared query geometry) does the rest.
///
/// For a polygon covering a quarter of a million points this replaces a million point-in-polygon
/// tests with a few thousand box tests and the point tests along the polygon's boundary.
struct RegionFilter {
    /// Which question the filter answers, read from the feature's side.
    enum Mode {
        /// The feature intersects the query geometry.
        case intersects
        /// The feature lies within the query geometry.
        case within
    }

    let prepared: PreparedGeometry
    let context: GEOSContext
    let mode: Mode
    /// The grid that answers point tests without GEOS where it is certain (areal polygons
    /// with enough edges to be worth it).
    var grid: PolygonGrid?

    init(prepared: PreparedGeometry, context: GEOSContext, mode: Mode, grid: PolygonGrid? = nil) {
        self.prepared = prepared
        self.context = context
        self.mode = mode
        self.grid = grid
    }

    /// The class of a node box (rounded to GEOS's grid, as the features in it are).
    func classify(_ box: Envelope) -> RegionClass {
        let box = GEOSResolution.snap(box)
        guard prepared.envelope.intersects(box) else { return .outside }
        // With a grid, its cells decide (no GEOS call); boxes it cannot decide go down to
        // their items, which the grid tests cheaply too.
        if let grid { return grid.classify(box) }
        // A GEOS failure on a node box only costs speed: the items are then tested one by one,
        // and the exact test reports the failure.
        guard let rectangle = try? GEOSGeometry(.envelope(box), context: context) else { return .boundary }
        switch mode {
        case .intersects:
            if (try? prepared.covers(rectangle)) == true { return .inside }
        case .within:
            // Features touching the query's boundary are not within it: the box must lie in the
            // interior.
            if (try? prepared.containsProperly(rectangle)) == true { return .inside }
        }
        if (try? prepared.isDisjoint(with: rectangle)) == true { return .outside }
        return .boundary
    }

    /// The exact test for one feature.
    func test(_ geometry: Geometry) throws(GEOSError) -> Bool {
        if case .point(let point) = geometry, !point.isEmpty { return try testPoint(x: point.x, y: point.y) }
        // The grid works on the coordinates GEOS sees.
        let geometry = geometry.snappedToGEOSResolution() ?? geometry
        if let grid {
            // A feature whose envelope lies in edge-free cells is wholly inside or outside.
            switch grid.classify(geometry.envelope) {
            case .inside: return true
            case .outside: return false
            case .boundary: break
            }
            if let decided = decideWithGrid(geometry, grid) { return decided }
        }
        return try testWithGEOS(geometry)
    }

    /// What the grid's certain answers decide about a multipoint, polyline or polygon feature,
    /// or `nil` when GEOS must decide (see ``decideWithGrid(_:envelope:_:)``).
    func decideWithGrid(_ geometry: Geometry, _ grid: PolygonGrid) -> Bool? {
        let coordinates: CoordinateBuffer
        let offsets: [Int]?
        switch geometry {
        case .polygon(let polygon): (coordinates, offsets) = (polygon.coordinates, polygon.ringOffsets)
        case .polyline(let polyline): (coordinates, offsets) = (polyline.coordinates, polyline.pathOffsets)
        case .multipoint(let multipoint): (coordinates, offsets) = (multipoint.coordinates, nil)
        default: return nil
        }
        return coordinates.values.withUnsafeBufferPointer { values in
            func decide(_ offsets: UnsafeBufferPointer<Int>?) -> Bool? {
                let positions = FeaturePositions(
                    values: values, stride: coordinates.layout.stride, range: 0..<coordinates.count, offsets: offsets)
                return decideWithGrid(positions, envelope: geometry.envelope, grid)
            }
            guard let offsets else { return decide(nil) }
            return offsets.withUnsafeBufferPointer { decide($0) }
        }
    }

    /// What the grid's certain answers decide about a multipoint, polyline or polygon feature
    /// whose positions are `positions` and whose envelope is `envelope`, or `nil` when GEOS must
    /// decide.
    ///
    /// One vertex strictly inside decides `intersects`, one strictly outside decides `within`
    /// (negatively). For `intersects`, a segment crossing a polygon edge decides too. With every
    /// vertex strictly outside, a multipoint is disjoint; so is a polyline or polygon whose
    /// segments stay apart from the polygon's edges, unless its envelope holds the first vertex
    /// of one of the polygon's rings (it might enclose that ring). These are the tests GEOS's
    /// prepared `intersects` makes (the first vertex of each part inside, segments meeting, the
    /// first vertex of each of the query's rings inside the feature), so the answers are GEOS's.
    @inline(__always)
    func decideWithGrid(_ positions: FeaturePositions, envelope: Envelope, _ grid: PolygonGrid) -> Bool? {
        var everyVertexOutside = true
        for i in positions.range {
            let inside = grid.isInside(x: positions.x(i), y: positions.y(i))
            switch (mode, inside) {
            case (.intersects, true?): return true
            case (.within, false?): return false
            case (_, false?): continue
            default: everyVertexOutside = false
            }
        }
        guard mode == .intersects else { return nil }
        guard positions.offsets != nil else { return everyVertexOutside ? false : nil }
        switch grid.contact(positions, envelope: envelope) {
        case .crossing: return true
        case .apart: return everyVertexOutside && !grid.hasRingFirstVertex(in: envelope) ? false : nil
        case .uncertain: return nil
        }
    }

    /// The exact test for row `row` of a column in shape storage, as ``test(_:)`` answers for
    /// the row's geometry, reading the row's positions in place (`shape`, from
    /// ``ShapeRows/describe(_:)``): the geometry is materialized only when GEOS must decide, for
    /// envelopes and collections, and for a row with a coordinate that GEOS's grid moves
    /// (``GEOSResolution``).
    @inline(__always)
    func testRow(_ row: Int, _ shape: ShapeRows.Row, _ rows: ShapeRows) throws(GEOSError) -> Bool {
        guard let kind = shape.kind, let envelope = shape.envelope else { return try rows.column[row].map(test) ?? false }
        let positions = shape.positions
        switch kind {
        case .point:
            let p = positions.lowerBound
            return try testPoint(x: rows.xy[2 * p], y: rows.xy[2 * p + 1])
        case .multipoint, .polyline, .polygon:
            if Self.mayMoveOnGEOSGrid(envelope), Self.anyMovesOnGEOSGrid(rows.xy, positions) {
                return try rows.column[row].map(test) ?? false
            }
        case .envelope, .collection:
            return try rows.column[row].map(test) ?? false
        }
        if let grid {
            switch grid.classify(envelope) {
            case .inside: return true
            case .outside: return false
            case .boundary: break
            }
            let rings = shape.rings
            let offsets = kind == .multipoint ? nil : UnsafeBufferPointer(rebasing: rows.ringOffsets[rings.lowerBound...rings.upperBound])
            let feature = FeaturePositions(values: rows.xy, stride: 2, range: positions, offsets: offsets)
            if let decided = decideWithGrid(feature, envelope: envelope, grid) { return decided }
        }
        guard let geometry = rows.column[row] else { return false }
        return try testWithGEOS(geometry)
    }

    /// Whether a geometry inside `envelope` may have a coordinate that rounding to GEOS's grid
    /// changes: a nonzero one below 2^-459 in magnitude (``GEOSResolution/changes(_:)``).
    @inline(__always)
    static func mayMoveOnGEOSGrid(_ envelope: Envelope) -> Bool {
        !(envelope.xmin >= 0x1p-459 || envelope.xmax <= -0x1p-459) || !(envelope.ymin >= 0x1p-459 || envelope.ymax <= -0x1p-459)
    }

    /// Whether rounding to GEOS's grid changes an x or y of the positions `positions` of `xy`.
    @inline(never)
    static func anyMovesOnGEOSGrid(_ xy: UnsafeBufferPointer<Double>, _ positions: Range<Int>) -> Bool {
        positions.contains { GEOSResolution.changes(xy[2 * $0]) || GEOSResolution.changes(xy[2 * $0 + 1]) }
    }

    /// The exact test for one feature, always by GEOS.
    func testWithGEOS(_ geometry: Geometry) throws(GEOSError) -> Bool {
        if case .point(let point) = geometry, !point.isEmpty { return try testPointWithGEOS(x: point.x, y: point.y) }
        let feature = try GEOSGeometry(geometry, context: context)
        switch mode {
        case .intersects: return try prepared.intersects(feature)
        case .within: return try prepared.contains(feature)
        }
    }

    /// The exact test for a point feature at `(x, y)`.
    @inline(__always)
    func testPoint(x: Double, y: Double) throws(GEOSError) -> Bool {
        if let grid {
            // Coordinates below 2^-459 are rounded to GEOS's grid first (rare: out of line).
            let tiny = abs(x) < 0x1p-459 || abs(y) < 0x1p-459
            if let inside = tiny ? Self.isInsideRounded(grid, x, y) : grid.isInside(x: x, y: y) { return inside }
        }
        return try testPointWithGEOS(x: x, y: y)
    }

    /// The grid's answer for a point rounded to GEOS's grid (``GEOSResolution``).
    @inline(never)
    private static func isInsideRounded(_ grid: PolygonGrid, _ x: Double, _ y: Double) -> Bool? {
        grid.isInside(x: GEOSResolution.snap(x), y: GEOSResolution.snap(y))
    }

    /// The exact test for a point feature, by GEOS's prepared point tests.
    @inline(__always)
    private func testPointWithGEOS(x: Double, y: Double) throws(GEOSError) -> Bool {
        switch mode {
        case .intersects: return try prepared.intersects(x: x, y: y)
        case .within: return try prepared.contains(x: x, y: y)
        }
    }

    /// The rows of `tree` whose geometry passes, ascending. `geometries` holds the rows'
    /// geometries (rows the tree holds always have one); in shape storage each row is read in
    /// place (``testRow(_:_:_:)``) and materialized only where GEOS must decide. When every feature
    /// is a point, pass its coordinates as `pointXs`/`pointYs` (the table's envelope minima): the
    /// test then reads them directly, in batches.
    func rows(
        in tree: QuadTree, geometries: GeometryColumn, pointXs: ColumnBuffer<Double>? = nil, pointYs: ColumnBuffer<Double>? = nil
    ) throws(GEOSError) -> [UInt32] {
        // Accepted rows in tree order, put in row order at the end (see ``AcceptedRows``).
        var accepted = AcceptedRows(rowCount: geometries.count)
        var failure: GEOSError?
        // The tree may hold rows appended after this snapshot (an edited table's tree serves
        // every snapshot): they are not the column's, and are skipped.
        let limit = UInt32(truncatingIfNeeded: geometries.count)
        // Through a pointer: a captured variable would be checked for exclusive access (at run
        // time) on every accepted row.
        withUnsafeMutablePointer(to: &accepted) { acceptedRows in
            func accept(_ row: UInt32) {
                if row < limit { acceptedRows.pointee.insert(row) }
            }
            if let pointXs, let pointYs {
                var batch = PointBatch()
                tree.classify(
                    classify, inside: accept,
                    boundary: { row in
                        guard failure == nil, row < limit, batch.add(row) else { return }
                        failure = testPoints(&batch, xs: pointXs, ys: pointYs, accept: accept)
                    })
                if failure == nil { failure = testPoints(&batch, xs: pointXs, ys: pointYs, accept: accept) }
                return
            }
            guard let shapes = geometries.shapes else {
                tree.classify(
                    classify, inside: accept,
                    boundary: { row in
                        guard failure == nil, row < limit, let geometry = geometries[Int(row)] else { return }
                        do throws(GEOSError) {
                            if try test(geometry) { accept(row) }
                        } catch {
                            failure = error
                        }
                    })
                return
            }
            shapes.xy.withUnsafeBufferPointer { xy in
                shapes.ringOffsets.withUnsafeBufferPointer { ringOffsets in
                    let rows = ShapeRows(column: geometries, shapes: shapes, xy: xy, ringOffsets: ringOffsets)
                    var batch = ShapeBatch()
                    tree.classify(
                        classify, inside: accept,
                        boundary: { row in
                            guard failure == nil, row < limit, batch.add(row) else { return }
                            failure = testShapes(&batch, rows, accept: accept)
                        })
                    if failure == nil { failure = testShapes(&batch, rows, accept: accept) }
                }
            }
        }
        if let failure { throw failure }
        return accepted.sortedRows()
    }
}

/// The rows a region filter accepts, collected in tree order and returned in row order: a list
/// while they are few (sorted at the end), a bitmap of every row once they are many
/// (classification visits rows in tree order, and reading a bitmap back in order is cheaper than
/// sorting a long list, while a short list is cheaper to sort than a bitmap of every row is to
/// clear and scan).
struct AcceptedRows {
    private var list: [UInt32] = []
    private var bits: [UInt64] = []
    private let rowCount: Int
    /// Rows kept as a list at most.
    private let listLimit: Int

    init(rowCount: Int) {
        self.rowCount = rowCount
        listLimit = max(64, rowCount / 256)
    }

    mutating func insert(_ row: UInt32) {
        if bits.isEmpty {
            list.append(row)
            guard list.count > listLimit else { return }
            bits = [UInt64](repeating: 0, count: (rowCount + 63) / 64)
            for row in list { bits[Int(row) >> 6] |= 1 << UInt64(row & 63) }
            list = []
            return
        }
        bits[Int(row) >> 6] |= 1 << UInt64(row & 63)
    }

    /// The rows, ascending.
    func sortedRows() -> [UInt32] {
        guard !bits.isEmpty else { return list.sorted() }
        var rows: [UInt32] = []
        for (w, word) in bits.enumerated() where word != 0 {
            var remaining = word
            while remaining != 0 {
                rows.append(UInt32(w * 64 + remaining.trailingZeroBitCount))
                remaining &= remaining - 1
            }
        }
        return rows
    }
}

/// A column in shape storage as ``RegionFilter/testRow(_:_:_:)`` reads it: the column (to
/// materialize a row when needed), its in-place view, and that view's positions and ring
/// offsets, borrowed for the duration of one filter run.
struct ShapeRows {
    let column: GeometryColumn
    let shapes: GeometryColumn.Shapes
    /// `shapes.xy`.
    let xy: UnsafeBufferPointer<Double>
    /// `shapes.ringOffsets`.
    let ringOffsets: UnsafeBufferPointer<Int>

    /// What the test needs to know about a row before reading its positions.
    struct Row {
        var kind: Geometry.Kind?
        var envelope: Envelope?
        var rings: Range<Int>
        var positions: Range<Int>
        /// The first position's x (NaN when the row has none): reading it here starts loading
        /// the row's positions while other rows are described.
        var firstX: Double
    }

    /// Row `row`'s kind, envelope, rings and positions.
    @inline(__always)
    func describe(_ row: Int) -> Row {
        let rings = shapes.rings(row: row)
        let positions = rings.isEmpty ? 0..<0 : ringOffsets[rings.lowerBound]..<ringOffsets[rings.upperBound]
        return Row(
            kind: shapes.kind(row: row), envelope: shapes.envelope(row: row), rings: rings, positions: positions,
            firstX: positions.isEmpty ? .nan : xy[2 * positions.lowerBound])
    }
}

/// Rows of shape features waiting for their test, for the same reason as ``PointBatch``: a
/// row's kind, envelope and offsets sit in several arrays, each read a likely cache miss, and
/// describing a batch of rows in one loop lets those misses overlap.
private struct ShapeBatch {
    static let capacity = 64
    var rows: [UInt32] = []
    var described: [ShapeRows.Row] = []

    init() {
        rows.reserveCapacity(Self.capacity)
        described.reserveCapacity(Self.capacity)
    }

    /// Adds `row`; `true` when the batch is full and must be tested.
    @inline(__always)
    mutating func add(_ row: UInt32) -> Bool {
        rows.append(row)
        return rows.count == Self.capacity
    }
}

extension RegionFilter {
    /// Tests the rows of `batch`, passes the accepted ones to `accept`, and empties the batch;
    /// the first GEOS failure, if any.
    fileprivate func testShapes(_ batch: inout ShapeBatch, _ rows: ShapeRows, accept: (UInt32) -> Void) -> GEOSError? {
        for row in batch.rows { batch.described.append(rows.describe(Int(row))) }
        defer {
            batch.rows.removeAll(keepingCapacity: true)
            batch.described.removeAll(keepingCapacity: true)
        }
        do throws(GEOSError) {
            for (i, row) in batch.rows.enumerated() where try testRow(Int(row), batch.described[i], rows) { accept(row) }
        } catch {
            return error
        }
        return nil
    }
}

/// Rows of point features waiting for their test. Boundary rows arrive in tree order, which is
/// not row order, so each coordinate read is likely a cache miss; gathering a batch's
/// coordinates first, in a loop of independent loads, lets those misses overlap instead of
/// stalling every test in turn.
private struct PointBatch {
    static let capacity = 256
    var rows: [UInt32] = []
    var xs = [Double](repeating: 0, count: capacity)
    var ys = [Double](repeating: 0, count: capacity)

    init() { rows.reserveCapacity(Self.capacity) }

    /// Adds `row`; `true` when the batch is full and must be tested.
    @inline(__always)
    mutating func add(_ row: UInt32) -> Bool {
        rows.append(row)
        return rows.count == Self.capacity
    }
}

extension RegionFilter {
    /// Tests the rows of `batch` (points at `xs[row]`, `ys[row]`), passes the accepted ones to
    /// `accept`, and empties the batch; the first GEOS failure, if any.
    fileprivate func testPoints(
        _ batch: inout PointBatch, xs: ColumnBuffer<Double>, ys: ColumnBuffer<Double>, accept: (UInt32) -> Void
    ) -> GEOSError? {
        let count = batch.rows.count
        for i in 0..<count {
            let row = Int(batch.rows[i])
            batch.xs[i] = xs[row]
            batch.ys[i] = ys[row]
        }
        defer { batch.rows.removeAll(keepingCapacity: true) }
        do throws(GEOSError) {
            for i in 0..<count where try testPoint(x: batch.xs[i], y: batch.ys[i]) { accept(batch.rows[i]) }
        } catch {
            return error
        }
        return nil
    }
}

extension SpatialFilter {
    /// The exact rows for `intersects` and `within` with an areal query geometry, computed with
    /// a ``RegionFilter`` over the table's quadtree, ascending; `nil` when the query is not of
    /// that kind (then the candidate-and-test plan applies).
    func regionRows(in table: FeatureTable) throws(FeatureTableError) -> [UInt32]? {
        let mode: RegionFilter.Mode
        switch relationship {
        case .intersects: mode = .intersects
        case .within: mode = .within
        default: return nil
        }
        guard geometry.dimension == 2, !geometry.isEmpty else { return nil }
        return try GEOSContext.withCurrent { context throws(FeatureTableError) -> [UInt32]? in
            let prepared: PreparedGeometry
            do throws(GEOSError) {
                prepared = try PreparedGeometry(geometry, context: context)
            } catch {
                throw FeatureTableError(.invalidQuery, "GEOS rejects the query geometry: \(error.message)")
            }
            // A polygon whose rings enclose no area reaches GEOS as lines (the union of its
            // segments): no area to classify boxes against.
            guard prepared.geometry.dimension == 2 else { return nil }
            do throws(GEOSError) {
                // The grid pays off when many features must be tested one by one.
                // The grid is built from the polygon as GEOS holds it (on its grid).
                let grid = table.count >= 10_000 ? PolygonGrid(prepared.geometry.form, prepared: prepared) : nil
                let filter = RegionFilter(prepared: prepared, context: context, mode: mode, grid: grid)
                let rows = try table.withSpatialIndex { tree throws(GEOSError) in
                    if table.schema.geometryType == .point {
                        // Point features: their coordinates are their envelopes' corners.
                        return try filter.rows(in: tree, geometries: table.geometryColumn, pointXs: table.xmin, pointYs: table.ymin)
                    }
                    return try filter.rows(in: tree, geometries: table.geometryColumn)
                }
                return table.visibleRows(rows)
            } catch {
                throw FeatureTableError(
                    .invalidGeometry, "GEOS failed testing \(relationship) against the query geometry: \(error.message)")
            }
        }
    }
}

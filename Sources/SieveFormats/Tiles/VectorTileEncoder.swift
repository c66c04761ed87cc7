#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SieveColumns
import SieveFeatures
import SieveGeometry
import SieveProjection

/// How a ``/SieveFeatures/FeatureQueryResult`` becomes a Mapbox Vector Tile layer: the tile's
/// grid, the margin kept around it, simplification and point thinning.
///
/// ```swift
/// var options = VectorTileOptions()
/// options.pointSpacing = 0  // every point, however close
/// let bytes = try result.vectorTile(try TileAddress(zoom: 3, x: 4, y: 2), layerName: "cities", options: options)
/// ```
public struct VectorTileOptions: Sendable, Hashable {
    /// The tile's width and height in integer units: 4096 (the default) as most servers and
    /// clients use; 256 to 16384.
    public var extent: Int
    /// How far beyond the tile's edges geometries are kept, in tile units (64 by default, 0 to
    /// a quarter of ``extent``), so that lines and symbols crossing an edge draw without seams.
    public var buffer: Int
    /// Lines and rings are simplified (Douglas–Peucker) with this tolerance, in tile units,
    /// before their positions are rounded: 1 by default, which removes what a 4096-unit tile
    /// cannot show; 0 keeps every vertex that lands on a distinct unit.
    public var simplification: Double
    /// Points are thinned to at most one in each square of this side, in tile units (the first
    /// in the result's order): 16 by default — at most 65,536 points in a 4096-unit tile, one
    /// per two pixels of a 512-pixel tile; 0 keeps every point. At most 4,096 squares a side
    /// (with the buffer): the spacing is at least (extent + 2 × buffer) / 4096. A multipoint is
    /// kept or left out whole, by its first point.
    public var pointSpacing: Int

    /// The defaults: extent 4096, buffer 64, simplification 1, point spacing 16.
    public init(extent: Int = 4096, buffer: Int = 64, simplification: Double = 1, pointSpacing: Int = 16) {
        self.extent = extent
        self.buffer = buffer
        self.simplification = simplification
        self.pointSpacing = pointSpacing
    }

    /// Checks the ranges.
    /// - Throws: ``VectorTileError`` naming the option out of range.
    public func validate() throws(VectorTileError) {
        guard extent >= 256, extent <= 16384 else { throw VectorTileError("the tile extent must be 256 to 16384, not \(extent)") }
        guard buffer >= 0, buffer <= extent / 4 else { throw VectorTileError("the buffer must be 0 to \(extent / 4) tile units, not \(buffer)") }
        guard simplification >= 0, simplification.isFinite, simplification <= Double(extent) else {
            throw VectorTileError("the simplification must be 0 to \(extent) tile units, not \(simplification)")
        }
        guard pointSpacing == 0 || (pointSpacing <= extent && (extent + 2 * buffer) / pointSpacing <= 4096) else {
            throw VectorTileError(
                "the point spacing must be 0, or \((extent + 2 * buffer + 4095) / 4096) to \(extent) tile units (at most 4096 squares a side), not \(pointSpacing)")
        }
    }
}

extension FeatureQueryResult {
    /// The features as one layer of a Mapbox Vector Tile (version 2.1) of `address`: the bytes
    /// of a `Tile` message holding one `Layer` named `layerName`.
    ///
    /// - **Positions** are projected to Web Mercator (exactly from 4326 and 3857, through PROJ
    ///   from other references) and scaled to the tile's ``VectorTileOptions/extent``, y
    ///   downwards, then rounded to the nearest unit.
    /// - **Clipping**: lines and rings are cut at the tile's square grown by
    ///   ``VectorTileOptions/buffer`` (rings by the Sutherland–Hodgman rule, so a ring crossing
    ///   the edge follows it); points outside it are left out.
    /// - **Simplification** and **thinning** as ``VectorTileOptions`` says; consecutive repeated
    ///   positions are dropped. A line or ring that simplification would leave with fewer than
    ///   two positions (a ring: three, or no area) is kept unsimplified; one that rounding alone
    ///   leaves so is left out, and a polygon's holes go with its outer ring.
    /// - **Winding**: outer rings have a positive area in tile coordinates (clockwise on
    ///   screen), holes a negative one, as the specification requires.
    /// - **Attributes**: each returned field but the object ID, as tags: texts as strings,
    ///   integers as `uint_value` (0 and more) or `sint_value`, doubles as `double_value`,
    ///   dates as ISO 8601 text (`2021-03-04T05:06:07.000Z`, date-only days as `2021-03-04`); NULL
    ///   values have no tag. The object ID is the feature's `id` (left out when negative).
    /// - Features without geometry, and geometry collections, are left out.
    /// - Throws: ``VectorTileError`` for options out of range or a spatial reference PROJ
    ///   cannot project to Web Mercator.
    public func vectorTile(_ address: TileAddress, layerName: String, options: VectorTileOptions = VectorTileOptions()) throws(VectorTileError)
        -> [UInt8]
    {
        try encodedTileLayer(address, layerName: layerName, options: options).bytes
    }

    /// ``vectorTile(_:layerName:options:)`` with the number of features it holds (a tile may
    /// hold none of the rows: points thinned or outside the buffer, parts rounded away).
    package func encodedTileLayer(_ address: TileAddress, layerName: String, options: VectorTileOptions) throws(VectorTileError)
        -> (bytes: [UInt8], features: Int)
    {
        try options.validate()
        var encoder = VectorTileLayerEncoder(result: self, address: address, options: options)
        try encoder.encodeFeatures()
        return (encoder.tile(layerName: layerName), encoder.featureCount)
    }
}

/// Builds one layer: features in tile units, then the keys, values and layer around them.
struct VectorTileLayerEncoder {
    let result: FeatureQueryResult
    let options: VectorTileOptions
    /// Tile units per Web Mercator metre, and the tile's west and north edges in metres.
    let scale: Double
    let west: Double
    let north: Double
    /// The clip square in tile units.
    let low: Double
    let high: Double

    /// The encoded features (each a `Feature` message's content), and how many.
    var features = ProtobufWriter()
    var featureCount = 0
    var keys: [String] = []
    var keyIndex: [String: Int] = [:]
    /// The layer's values, each written once.
    var values = TileValues()
    /// The point squares already taken (thinning): one bit per square of the clip square.
    var taken: [UInt64] = []
    /// Squares per side of the clip square.
    let squares: Int

    init(result: FeatureQueryResult, address: TileAddress, options: VectorTileOptions) {
        self.result = result
        self.options = options
        let bounds = address.mercatorBounds
        scale = Double(options.extent) / address.mercatorSize
        west = bounds.xmin
        north = bounds.ymax
        low = -Double(options.buffer)
        high = Double(options.extent + options.buffer)
        squares = options.pointSpacing > 0 ? (options.extent + 2 * options.buffer) / options.pointSpacing + 1 : 0
    }

    /// How positions reach Web Mercator: as they are (3857), or by Web Mercator's formulas from
    /// longitude and latitude (4326). Geometries of other references are projected whole by
    /// PROJ first (``encodeFeatures()``), then taken as they are.
    enum Projection {
        case identity, geographic
    }

    mutating func encodeFeatures() throws(VectorTileError) {
        guard result.returnsGeometry else { return }
        let projection: Projection = result.spatialReference.latestWkid == 4326 ? .geographic : .identity
        var projector: Projector?
        if ![3857, 4326].contains(result.spatialReference.latestWkid) {
            do {
                projector = try Projector(from: result.spatialReference, to: .webMercator)
            } catch {
                throw VectorTileError("the layer's spatial reference (\(result.spatialReference.wkid)) cannot be projected to Web Mercator: \(error)")
            }
        }
        let schema = result.table.schema
        let indices = result.fieldIndices.filter { $0 != schema.objectIdFieldIndex }
        // The JSON writers' cells, for their pointers into the columns (dates as milliseconds).
        let cells = CellWriter.writers(of: indices, in: result.table, datesAsText: false, layout: JSONLayout(pretty: false, coordinates: .shortest))
        let names = indices.map { schema.fields[$0].name }
        let types = indices.map { schema.fields[$0].type }
        let columns = indices.map { result.table.columns[$0] }
        var fieldKeys = [Int](repeating: -1, count: indices.count)
        let ids = result.table.objectIDs
        let column = result.table.geometryColumn
        let pointStorage = projector == nil && result.projectedGeometries == nil && column.shapes == nil
        let pointX = column.pointX, pointY = column.pointY
        var path = TilePath()
        var tags: [UInt64] = []
        for (position, row) in result.rows.enumerated() {
            path.removeAll()
            let type: UInt64
            if pointStorage {
                // Points stored as points: straight from the column, no Geometry per row.
                guard !column.isNull(row: row) else { continue }
                let (x, y) = toTile(pointX[row], pointY[row], projection)
                guard x >= low, x <= high, y >= low, y <= high, !x.isNaN, !y.isNaN, keepPoint(x, y) else { continue }
                path.append(x.rounded(), y.rounded())
                path.closePart(ring: false)
                type = 1
            } else {
                guard var geometry = result.geometry(at: position) else { continue }
                if let projector {
                    // One PROJ call for the whole geometry; one it cannot project is left out.
                    guard let projected = try? projector.project(geometry) else { continue }
                    geometry = projected
                }
                guard let built = build(geometry, projection, into: &path) else { continue }
                type = built
            }
            let id = ids[row]
            tags.removeAll(keepingCapacity: true)
            cells.withUnsafeBufferPointer { cells in
                for j in cells.indices {
                    let index: Int
                    switch cells[j].pointers.raw(row: row) {
                    case .null: continue
                    case .integer(let integer): index = types[j] == .date ? values.date(integer, day: false) : values.integer(integer)
                    case .double(let double): index = values.double(double)
                    case .text(let text): index = values.text(text)
                    case .other:
                        // Only a date-only field's days (the cells write them as text).
                        guard case .date(let milliseconds) = columns[j][row] else { continue }
                        index = values.date(milliseconds, day: true)
                    }
                    if fieldKeys[j] < 0 { fieldKeys[j] = key(names[j]) }
                    tags.append(UInt64(fieldKeys[j]))
                    tags.append(UInt64(index))
                }
            }
            featureCount += 1
            features.message(2) { feature in
                if id >= 0 { feature.unsigned(1, UInt64(id)) }
                feature.packed(2) { packed in
                    for tag in tags { packed.varint(tag) }
                }
                feature.unsigned(3, type)
                feature.packed(4) { geometry in path.encode(type: type, into: &geometry) }
            }
        }
    }

    /// The tile: `Tile { layers (3): Layer { version 2, name, features, keys, values, extent } }`.
    func tile(layerName: String) -> [UInt8] {
        var writer = ProtobufWriter()
        writer.message(3) { layer in
            layer.unsigned(15, 2)
            layer.string(1, layerName, always: true)
            layer.bytes.append(contentsOf: features.bytes)
            for key in keys { layer.string(3, key, always: true) }
            layer.bytes.append(contentsOf: values.entries.bytes)
            layer.unsigned(5, UInt64(options.extent))
        }
        return writer.bytes
    }

    // MARK: Positions

    @inline(__always)
    func toTile(_ x: Double, _ y: Double, _ projection: Projection) -> (Double, Double) {
        var mx = x, my = y
        switch projection {
        case .identity: break
        case .geographic: (mx, my) = WebMercator.forward(longitude: x, latitude: y)
        }
        return ((mx - west) * scale, (north - my) * scale)
    }

    /// Whether a point at tile position (x, y) is the first in its thinning square (always
    /// with no thinning).
    mutating func keepPoint(_ x: Double, _ y: Double) -> Bool {
        guard options.pointSpacing > 0 else { return true }
        if taken.isEmpty { taken = [UInt64](repeating: 0, count: (squares * squares + 63) / 64) }
        let spacing = Double(options.pointSpacing)
        let cx = Swift.min(Int((x - low) / spacing), squares - 1), cy = Swift.min(Int((y - low) / spacing), squares - 1)
        let bit = cy * squares + cx
        let mask: UInt64 = 1 << UInt64(bit & 63)
        if taken[bit >> 6] & mask != 0 { return false }
        taken[bit >> 6] |= mask
        return true
    }

    /// Appends `geometry`'s parts to `path` in tile units (clipped, simplified, rounded) and
    /// returns its MVT type, `nil` when nothing of it is left.
    mutating func build(_ geometry: Geometry, _ projection: Projection, into path: inout TilePath) -> UInt64? {
        guard let form = geometry.esriJSONForm else { return nil }
        switch form {
        case .point(let point):
            guard !point.isEmpty else { return nil }
            let (x, y) = toTile(point.x, point.y, projection)
            guard x >= low, x <= high, y >= low, y <= high, keepPoint(x, y) else { return nil }
            path.append(x.rounded(), y.rounded())
            path.closePart(ring: false)
            return 1
        case .multipoint(let multipoint):
            var first = true
            for i in 0..<multipoint.coordinates.count {
                let (x, y) = toTile(multipoint.coordinates.x(at: i), multipoint.coordinates.y(at: i), projection)
                guard x >= low, x <= high, y >= low, y <= high else { continue }
                if first {
                    guard keepPoint(x, y) else { return nil }
                    first = false
                }
                path.append(x.rounded(), y.rounded())
            }
            guard !first else { return nil }
            path.closePart(ring: false)
            return 1
        case .polyline(let polyline):
            for p in 0..<(polyline.pathOffsets.count - 1) {
                let line = positions(polyline.coordinates, polyline.pathOffsets[p]..<polyline.pathOffsets[p + 1], projection)
                for piece in TileClipping.clipLine(line, low: low, high: high) {
                    path.appendSimplified(piece, tolerance: options.simplification, ring: false, outer: false)
                }
            }
            return path.partCount > 0 ? 2 : nil
        case .polygon(let polygon):
            for part in 0..<polygon.partCount {
                var outerKept = false
                for (index, r) in polygon.partRingRange(part).enumerated() {
                    let outer = index == 0
                    guard outer || outerKept else { break }
                    var ring = positions(polygon.coordinates, polygon.ringRange(r), projection)
                    ring = TileClipping.clipRing(ring, low: low, high: high)
                    let kept = path.appendSimplified(ring, tolerance: options.simplification, ring: true, outer: outer)
                    if outer { outerKept = kept }
                }
            }
            return path.partCount > 0 ? 3 : nil
        case .envelope, .collection:
            // The Esri form has no envelope or collection (an envelope's is its polygon).
            if case .envelope(let envelope) = form, !envelope.isEmpty, let polygon = try? Polygon(exterior: envelope.ring) {
                return build(.polygon(polygon), projection, into: &path)
            }
            return nil
        }
    }

    /// The positions `range` of `coordinates` in tile units (x, y, x, y, …).
    func positions(_ coordinates: CoordinateBuffer, _ range: Range<Int>, _ projection: Projection) -> [Double] {
        var out: [Double] = []
        out.reserveCapacity(2 * range.count)
        for i in range {
            let (x, y) = toTile(coordinates.x(at: i), coordinates.y(at: i), projection)
            out.append(x)
            out.append(y)
        }
        return out
    }

    // MARK: Attributes

    /// The index of `name` among the keys, added when new.
    mutating func key(_ name: String) -> Int {
        if let index = keyIndex[name] { return index }
        keys.append(name)
        keyIndex[name] = keys.count - 1
        return keys.count - 1
    }
}

/// A layer's values (its `values` field): each value written once, as the `Value` message of
/// its type, and found again by its type's index: integers, doubles (by their bits), texts (by
/// their bytes, straight from the column), dates and days (formatted once).
struct TileValues {
    /// The `values` fields written so far (key, length and `Value` message each).
    var entries = ProtobufWriter()
    var count = 0
    var integers: [Int64: Int] = [:]
    var doubles: [UInt64: Int] = [:]
    var texts: [TextKey: Int] = [:]
    var dates: [Int64: Int] = [:]
    var days: [Int64: Int] = [:]

    /// A text by its bytes, which stay where they are (in a column) while the tile is made.
    struct TextKey: Hashable {
        let bytes: UnsafeBufferPointer<UInt8>
        func hash(into hasher: inout Hasher) { hasher.combine(bytes: UnsafeRawBufferPointer(bytes)) }
        static func == (a: TextKey, b: TextKey) -> Bool {
            guard a.bytes.count == b.bytes.count else { return false }
            guard let x = a.bytes.baseAddress, let y = b.bytes.baseAddress else { return true }
            return memcmp(x, y, a.bytes.count) == 0
        }
    }

    /// Appends a value whose `Value` message `body` writes; its index.
    private mutating func add(_ body: (inout ProtobufWriter) -> Void) -> Int {
        entries.message(4, body)
        count += 1
        return count - 1
    }

    /// An integer: `uint_value` from 0 up, `sint_value` below.
    mutating func integer(_ value: Int64) -> Int {
        if let index = integers[value] { return index }
        let index = add { message in
            if value >= 0 {
                message.key(5, .varint)
                message.varint(UInt64(value))
            } else {
                message.key(6, .varint)
                message.varint(ProtobufWriter.zigzag(value))
            }
        }
        integers[value] = index
        return index
    }

    /// A date (epoch milliseconds) as its ISO 8601 text; a date-only field's `day` as
    /// `yyyy-mm-dd`.
    mutating func date(_ milliseconds: Int64, day: Bool) -> Int {
        if let index = day ? days[milliseconds] : dates[milliseconds] { return index }
        let index = add { $0.string(1, CivilTime.format(milliseconds: milliseconds, dateOnlyAtMidnight: day), always: true) }
        if day { days[milliseconds] = index } else { dates[milliseconds] = index }
        return index
    }

    /// A double: `double_value`.
    mutating func double(_ value: Double) -> Int {
        if let index = doubles[value.bitPattern] { return index }
        let index = add { $0.double(3, value, always: true) }
        doubles[value.bitPattern] = index
        return index
    }

    /// A text: `string_value`.
    mutating func text(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        let key = TextKey(bytes: utf8)
        if let index = texts[key] { return index }
        let index = add { $0.string(1, utf8: utf8) }
        texts[key] = index
        return index
    }
}

/// One feature's geometry in tile units, part by part, and its command encoding.
struct TilePath {
    /// Rounded positions, x and y.
    var xs: [Int64] = []
    var ys: [Int64] = []
    /// Where each part starts in ``xs``, and whether it is a ring.
    var partStarts: [Int] = []
    var partIsRing: [Bool] = []
    /// Where the part being appended starts.
    var open = 0

    var partCount: Int { partStarts.count }

    mutating func removeAll() {
        xs.removeAll(keepingCapacity: true)
        ys.removeAll(keepingCapacity: true)
        partStarts.removeAll(keepingCapacity: true)
        partIsRing.removeAll(keepingCapacity: true)
        open = 0
    }

    mutating func append(_ x: Double, _ y: Double) {
        xs.append(Int64(x))
        ys.append(Int64(y))
    }

    /// Ends the part begun at ``open``.
    mutating func closePart(ring: Bool) {
        partStarts.append(open)
        partIsRing.append(ring)
        open = xs.count
    }

    /// Appends `positions` (tile units, x and y) as one part: simplified, rounded, without
    /// repeated positions (a ring without its closing one), a ring turned to the winding its
    /// role asks for. A part that simplification would leave with fewer than two positions (a
    /// ring: three, or no area) is taken unsimplified; nothing, and `false`, when even rounding
    /// leaves too little.
    @discardableResult
    mutating func appendSimplified(_ positions: [Double], tolerance: Double, ring: Bool, outer: Bool) -> Bool {
        guard positions.count >= 4 else { return false }
        if tolerance > 0, append(positions, kept: TileClipping.douglasPeucker(positions, tolerance: tolerance), ring: ring, outer: outer) {
            return true
        }
        // What simplification would make vanish is kept as rounding alone leaves it, so that a
        // small island or a short street still shows at a small scale.
        return append(positions, kept: Array(0..<(positions.count / 2)), ring: ring, outer: outer)
    }

    /// Appends the positions `kept` of `positions` as one part, as ``appendSimplified(_:tolerance:ring:outer:)``
    /// says; `false`, appending nothing, when too little is left.
    private mutating func append(_ positions: [Double], kept: [Int], ring: Bool, outer: Bool) -> Bool {
        var count = 0
        for i in kept {
            // A position that is not a finite number (one PROJ answered with infinity) is left
            // out; clipping bounds the others.
            let fx = positions[2 * i].rounded(), fy = positions[2 * i + 1].rounded()
            guard fx.isFinite, fy.isFinite, abs(fx) < 1e15, abs(fy) < 1e15 else { continue }
            let x = Int64(fx), y = Int64(fy)
            if count > 0, xs[xs.count - 1] == x, ys[ys.count - 1] == y { continue }
            xs.append(x)
            ys.append(y)
            count += 1
        }
        if ring, count > 1, xs[open] == xs[xs.count - 1], ys[open] == ys[ys.count - 1] {
            xs.removeLast()
            ys.removeLast()
            count -= 1
        }
        var area: Int64 = 0
        if ring {
            for i in 0..<count {
                let j = (i + 1) % count
                area &+= xs[open + i] &* ys[open + j] &- xs[open + j] &* ys[open + i]
            }
        }
        guard count >= (ring ? 3 : 2), !ring || area != 0 else {
            xs.removeSubrange(open...)
            ys.removeSubrange(open...)
            return false
        }
        // Outer rings positive, holes negative (the surveyor's formula in tile coordinates).
        if ring, (area > 0) != outer {
            xs[(open + 1)..<(open + count)].reverse()
            ys[(open + 1)..<(open + count)].reverse()
        }
        closePart(ring: ring)
        return true
    }

    /// The `geometry` field's integers: MoveTo, LineTo and ClosePath commands with zigzag
    /// deltas from the cursor, which carries over from part to part.
    func encode(type: UInt64, into writer: inout ProtobufWriter) {
        var cx: Int64 = 0, cy: Int64 = 0
        func command(_ id: UInt64, _ count: Int) { writer.varint(id & 7 | UInt64(count) << 3) }
        func move(to i: Int) {
            writer.varint(ProtobufWriter.zigzag(xs[i] &- cx))
            writer.varint(ProtobufWriter.zigzag(ys[i] &- cy))
            cx = xs[i]
            cy = ys[i]
        }
        if type == 1 {
            command(1, xs.count)
            for i in 0..<xs.count { move(to: i) }
            return
        }
        for part in 0..<partStarts.count {
            let start = partStarts[part]
            let end = part + 1 < partStarts.count ? partStarts[part + 1] : xs.count
            command(1, 1)
            move(to: start)
            command(2, end - start - 1)
            for i in (start + 1)..<end { move(to: i) }
            if partIsRing[part] { command(7, 1) }
        }
    }
}

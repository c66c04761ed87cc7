import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import Synchronization

/// How much engine work a request asks for, decided before it runs from what is cheap to know
/// and cannot be wrong: the size of the table, the rows the spatial index holds in the request's
/// box, and what the request asks GEOS to do. It decides where ``GeoSieveServer/timed(_:_:)``
/// runs the work.
///
/// The work is small when it reads at most ``ServerConfiguration/inlineQueryRowLimit`` rows of
/// small geometries (at most ``geometryBytesPerRow`` bytes a row on average) and tests no
/// geometry with GEOS beyond an envelope or a point:
///
/// - on a table of at most that many rows, any query whose spatial filter, if any, is an
///   envelope or a point tested with `intersects` (``isSmall(_:configuration:)``);
/// - on a larger table, a query whose spatial filter is such an envelope (or point) in the
///   table's own spatial reference, when the table's spatial index — already built — holds at
///   most that many rows in it: the where clause is evaluated on those rows only, so they bound
///   every step (counted by a search of the index that stops past the bound: a few microseconds).
///
/// Every step of a small query — the where clause, an order, a page of features written,
/// statistics — then takes well under a few milliseconds, so it runs inline on the request's
/// task, without a thread hop or a timer. Anything else is large.
enum EngineWorkSize: Sendable, Hashable {
    /// Bounded work, run inline.
    case small
    /// Anything else: run on the engine's own threads, within the query timeout.
    case large

    /// The most geometry bytes per row (``GeometryColumn/byteCount``), on average, of a table
    /// whose work can be small: points take 17 to 33, a line or polygon of a few vertices a few
    /// dozen.
    static let geometryBytesPerRow = 64

    /// Whether `table` is small enough for any pass over its rows and vertices to be quick.
    static func isSmall(_ table: FeatureTable, configuration: ServerConfiguration) -> Bool {
        let limit = configuration.inlineQueryRowLimit
        return table.count <= limit && table.geometryColumn.byteCount <= limit * geometryBytesPerRow
    }

    /// Whether `table`'s geometries are small on average (see ``geometryBytesPerRow``).
    static func hasSmallGeometries(_ table: FeatureTable) -> Bool {
        table.geometryColumn.byteCount <= Swift.max(table.count, 1) * geometryBytesPerRow
    }

    /// The size of a query already read (an ArcGIS REST `query`, see the rule above), decided
    /// from its parsed spatial filter. `declaresBox` is false when the request called its
    /// geometry something other than an envelope or a point. `indexed` says that the table's
    /// spatial index has been built (by an earlier query), so that counting the rows in the box
    /// never builds it inline.
    static func query(
        _ query: QueryParameters, declaresBox: Bool = true, table: FeatureTable, configuration: ServerConfiguration, indexed: Bool = false
    ) -> EngineWorkSize {
        guard query.filter == nil else { return .large }
        guard query.geometry != nil else { return isSmall(table, configuration: configuration) ? .small : .large }
        guard declaresBox, let box = countableBox(query) else { return .large }
        if isSmall(table, configuration: configuration) { return .small }
        guard indexed, query.inSpatialReference.map({ isTableReference($0, of: table) }) ?? true else { return .large }
        return boxIsSmall(box, table: table, configuration: configuration) ? .small : .large
    }

    /// The box of a query whose spatial filter is an envelope or a point tested through
    /// envelopes alone (`intersects` or `envelopeIntersects`), finite and in order; `nil` for
    /// any other filter.
    static func countableBox(_ query: QueryParameters) -> Envelope? {
        guard query.spatialRelationship == .intersects || query.spatialRelationship == .envelopeIntersects else { return nil }
        switch query.geometry {
        case .envelope(let box): return envelope(box.xmin, box.ymin, box.xmax, box.ymax)
        case .point(let point): return envelope(point.x, point.y, point.x, point.y)
        default: return nil
        }
    }

    /// Whether a query reads its table's spatial index, building it when it is not yet: a
    /// spatial filter by such a box (see ``countableBox(_:)``).
    static func readsSpatialIndex(_ query: QueryParameters) -> Bool {
        countableBox(query) != nil
    }

    /// The size of an OGC API – Features `items` request on `table`: small on a small table
    /// without a CQL2 `filter` (whose spatial functions may test any geometry); on a larger one,
    /// when `bbox` (longitude/latitude, no `bbox-crs`, not across the antimeridian) holds at
    /// most the limit of rows of an index already built (`indexed`), the table is in longitude
    /// and latitude and every feature has a geometry (else the box is a filter over every row).
    static func ogcItems(
        _ parameters: RequestParameters, table: FeatureTable, configuration: ServerConfiguration, indexed: Bool = false
    ) -> EngineWorkSize {
        guard parameters.nonEmpty("filter") == nil else { return .large }
        if isSmall(table, configuration: configuration) { return .small }
        guard indexed, parameters.nonEmpty("bbox-crs") == nil, let text = parameters.nonEmpty("bbox"),
            table.spatialReference.latestWkid == 4326
        else { return .large }
        let numbers = Self.numbers(text)
        guard numbers.count == 4 || numbers.count == 6 else { return .large }
        let half = numbers.count / 2
        // Across the antimeridian (two boxes) or not a box: the route decides.
        guard let box = envelope(numbers[0], numbers[1], numbers[half], numbers[half + 1]), table.everyFeatureHasGeometry else {
            return .large
        }
        return boxIsSmall(box, table: table, configuration: configuration) ? .small : .large
    }

    /// Whether an OGC items request reads the table's spatial index (a `bbox` without a
    /// `filter`).
    static func ogcItemsUseSpatialIndex(_ parameters: RequestParameters) -> Bool {
        parameters.nonEmpty("bbox") != nil && parameters.nonEmpty("filter") == nil
    }

    /// Whether the spatial index of `table` holds at most the limit of rows in `box`, and its
    /// geometries are small: counted by a search that stops past the limit.
    static func boxIsSmall(_ box: Envelope, table: FeatureTable, configuration: ServerConfiguration) -> Bool {
        let limit = configuration.inlineQueryRowLimit
        guard limit > 0, hasSmallGeometries(table) else { return false }
        let count = table.withSpatialIndex { tree -> Int in
            var count = 0
            tree.forEach(intersecting: box) { _ in
                count += 1
                return count <= limit
            }
            return count
        }
        return count <= limit
    }

    /// The envelope of these bounds, `nil` unless they are finite and in order (an inverted or
    /// infinite box is the query's to report).
    static func envelope(_ xmin: Double, _ ymin: Double, _ xmax: Double, _ ymax: Double) -> Envelope? {
        guard xmin.isFinite, ymin.isFinite, xmax.isFinite, ymax.isFinite, xmin <= xmax, ymin <= ymax else { return nil }
        return Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
    }

    /// Whether `reference` is `table`'s own, so that a box in it needs no projecting.
    static func isTableReference(_ reference: SpatialReference, of table: FeatureTable) -> Bool {
        let own = table.spatialReference
        return reference.wkid == own.wkid || reference.latestWkid == own.latestWkid
    }

    /// The comma-separated numbers of `text` (spaces around them allowed); empty when any part
    /// is not a number.
    static func numbers(_ text: String) -> [Double] {
        var numbers: [Double] = []
        for part in text.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            var slice = part[...]
            while slice.first == UInt8(ascii: " ") { slice = slice.dropFirst() }
            while slice.last == UInt8(ascii: " ") { slice = slice.dropLast() }
            guard let number = Double(Substring(slice)) else { return [] }
            numbers.append(number)
        }
        return numbers
    }
}

/// The tables whose spatial index a query has built: for those, the size of a box query is
/// decided by counting the rows of the index in the box (``EngineWorkSize``), which never
/// builds an index inline.
final class SpatialIndexReadiness: Sendable {
    private final class Flag: Sendable {
        let ready = Atomic<Bool>(false)
    }

    private let flags: [String: Flag]

    /// Flags for the tables of `catalog`, none set.
    init(_ catalog: ServedCatalog) {
        flags = Dictionary(catalog.tables.map { ($0.id, Flag()) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether the index of table `id` has been built.
    func isReady(_ id: String) -> Bool { flags[id]?.ready.load(ordering: .acquiring) ?? false }

    /// Records that the index of table `id` has been built.
    func setReady(_ id: String) { flags[id]?.ready.store(true, ordering: .releasing) }
}

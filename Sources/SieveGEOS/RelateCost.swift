import SieveGeometry

/// An estimate of the work GEOS 3.10–3.12's DE-9IM computation (`GEOSRelate_r`, and every
/// unprepared predicate, which computes the same matrix) does on a pair of geometries, counted
/// in the steps of its two quadratic parts, so that inputs that would take minutes are refused
/// up front with a clear error.
///
/// 1. **The sweep.** GEOS cuts every path and ring into monotone chains and sweeps them from
///    left to right; each chain is compared with every chain whose x-range starts inside its
///    own. The sweep runs three times (a against itself, b against itself, a against b), so the
///    steps are the overlapping chain pairs of a, of b and of both together. A circle of a
///    million vertices is four chains (nothing to do); a star of a million spikes is a million
///    chains that nearly all overlap (~10¹¹ pairs, hours).
/// 2. **Locating isolated components.** Each ring, path or point of one geometry that does not
///    meet the other's boundary is located in the other geometry by a scan of the other's
///    parts (an envelope test each) and of the vertices of the parts whose envelope holds it.
///    Ten thousand small squares inside a polygon of 100,000 vertices cost 10⁹ vertex steps.
///
/// Measured with GEOS 3.11 on the development machine: about 3.5 ns per sweep step and about
/// 40 ns per vertex step, so ``defaultLimit`` (250 million, vertex steps counted 12 times)
/// keeps a refused-or-answered call under about a second. The estimate only bounds GEOS's
/// work; GEOS 3.13 and later compute relationships differently and would often be faster.
public struct RelateCost: Hashable, Sendable, CustomStringConvertible {
    /// The overlapping pairs of monotone chains the sweeps visit.
    public var sweepSteps: Int
    /// The vertex and part tests of locating every component in the other geometry.
    public var locateSteps: Int

    /// The weight of one locate step against one sweep step (their measured time ratio).
    public static let locateWeight = 12

    /// The weighted total, saturating at `Int.max`.
    public var total: Int {
        let (weighted, overflow) = locateSteps.multipliedReportingOverflow(by: Self.locateWeight)
        let (sum, overflow2) = sweepSteps.addingReportingOverflow(weighted)
        return overflow || overflow2 ? .max : sum
    }

    /// The largest ``total`` GeoSieve hands to GEOS's relate: about a second of GEOS 3.11.
    public static let defaultLimit = 250_000_000

    public var description: String { "\(sweepSteps) sweep steps and \(locateSteps) locate steps" }

    /// A cost of the given steps.
    public init(sweepSteps: Int, locateSteps: Int) {
        self.sweepSteps = sweepSteps
        self.locateSteps = locateSteps
    }

    /// The part of every relate estimate that one geometry brings on its own: the sweep of its
    /// own monotone chains, which GEOS runs whatever the other geometry is (unless the
    /// envelopes are disjoint). A lower bound for every pair it takes part in.
    public init(_ geometry: Geometry, limit: Int = RelateCost.defaultLimit) {
        sweepSteps = RelateShape.sweepSteps(RelateShape(geometry).chains, limit: limit)
        locateSteps = 0
    }

    /// The estimate for a against b. Counting stops early once the total passes `limit`, so
    /// estimating a hopeless pair costs no more than about `limit` cheap steps.
    public init(_ a: Geometry, _ b: Geometry, limit: Int = RelateCost.defaultLimit) {
        let sideA = RelateShape(a), sideB = RelateShape(b)
        // GEOS decides disjoint envelopes without either part.
        guard a.envelope.intersects(b.envelope) else {
            sweepSteps = 0
            locateSteps = 0
            return
        }
        let a2 = RelateShape.sweepSteps(sideA.chains, limit: limit)
        let b2 = RelateShape.sweepSteps(sideB.chains, limit: limit)
        let both = RelateShape.sweepSteps(sideA.chains + sideB.chains, limit: limit)
        sweepSteps = Swift.min(limit &+ 1, a2 &+ b2 &+ both)
        let locateLimit = limit / Self.locateWeight + 1
        let ab = sideA.locateSteps(in: sideB, limit: locateLimit)
        let ba = sideB.locateSteps(in: sideA, limit: locateLimit)
        locateSteps = Swift.min(locateLimit, ab &+ ba)
    }
}

/// What the estimate needs of one geometry: the x-ranges of its monotone chains, the first
/// position of each component, and the envelope and vertex count of each part.
struct RelateShape {
    var chains: [(Double, Double)] = []
    /// The y-ranges of ``chains``, in the same order.
    var chainsY: [(Double, Double)] = []
    var componentPoints: [(Double, Double)] = []
    var parts: [(Envelope, Int)] = []

    init(_ geometry: Geometry) {
        add(geometry)
    }

    private mutating func add(_ geometry: Geometry) {
        switch geometry {
        case .point(let point):
            guard !point.isEmpty else { return }
            componentPoints.append((point.x, point.y))
            parts.append((point.envelope, 1))
        case .multipoint(let multipoint):
            for i in 0..<multipoint.coordinates.count {
                let x = multipoint.coordinates.x(at: i), y = multipoint.coordinates.y(at: i)
                componentPoints.append((x, y))
                parts.append((Envelope(xmin: x, ymin: y, xmax: x, ymax: y), 1))
            }
        case .polyline(let polyline):
            for i in 0..<polyline.pathCount {
                let range = polyline.pathRange(i)
                addChains(polyline.coordinates, range)
                componentPoints.append((polyline.coordinates.x(at: range.lowerBound), polyline.coordinates.y(at: range.lowerBound)))
                parts.append((polyline.coordinates.envelope(of: range), range.count))
            }
        case .polygon(let polygon):
            for p in 0..<polygon.partCount {
                var vertices = 0
                for r in polygon.partRingRange(p) {
                    let range = polygon.ringRange(r)
                    addChains(polygon.coordinates, range)
                    componentPoints.append((polygon.coordinates.x(at: range.lowerBound), polygon.coordinates.y(at: range.lowerBound)))
                    vertices += range.count
                }
                parts.append((polygon.coordinates.envelope(of: polygon.ringRange(polygon.partOffsets[p])), vertices))
            }
        case .envelope(let box):
            guard !box.isEmpty else { return }
            chains.append((box.xmin, box.xmax))
            chainsY.append((box.ymin, box.ymax))
            componentPoints.append((box.xmin, box.ymin))
            parts.append((box, 5))
        case .collection(let collection):
            for member in collection.geometries { add(member) }
        }
    }

    /// Cuts the path in `range` where the quadrant of the segment direction changes (GEOS's
    /// monotone chains) and records each chain's x- and y-range.
    private mutating func addChains(_ buffer: CoordinateBuffer, _ range: Range<Int>) {
        guard range.count >= 2 else { return }
        func quadrant(_ i: Int) -> Int {
            let dx = buffer.x(at: i + 1) - buffer.x(at: i), dy = buffer.y(at: i + 1) - buffer.y(at: i)
            return dx >= 0 ? (dy >= 0 ? 0 : 3) : (dy >= 0 ? 1 : 2)
        }
        var current = quadrant(range.lowerBound)
        var xmin = Swift.min(buffer.x(at: range.lowerBound), buffer.x(at: range.lowerBound + 1))
        var xmax = Swift.max(buffer.x(at: range.lowerBound), buffer.x(at: range.lowerBound + 1))
        var ymin = Swift.min(buffer.y(at: range.lowerBound), buffer.y(at: range.lowerBound + 1))
        var ymax = Swift.max(buffer.y(at: range.lowerBound), buffer.y(at: range.lowerBound + 1))
        for i in (range.lowerBound + 1)..<(range.upperBound - 1) {
            let q = quadrant(i)
            if q != current {
                chains.append((xmin, xmax))
                chainsY.append((ymin, ymax))
                current = q
                xmin = buffer.x(at: i)
                xmax = xmin
                ymin = buffer.y(at: i)
                ymax = ymin
            }
            let x = buffer.x(at: i + 1), y = buffer.y(at: i + 1)
            xmin = Swift.min(xmin, x)
            xmax = Swift.max(xmax, x)
            ymin = Swift.min(ymin, y)
            ymax = Swift.max(ymax, y)
        }
        chains.append((xmin, xmax))
        chainsY.append((ymin, ymax))
    }

    /// The sweep's steps over `chains`: for each chain, the chain starts inside its x-range.
    static func sweepSteps(_ chains: [(Double, Double)], limit: Int) -> Int {
        guard chains.count > 1 else { return 0 }
        let starts = chains.map(\.0).sorted()
        var steps = 0
        for (xmin, xmax) in chains {
            // Starts in [xmin, xmax], less the chain itself.
            steps &+= upperBound(starts, xmax) - lowerBound(starts, xmin) - 1
            if steps > limit { return steps }
        }
        return steps
    }

    static func lowerBound(_ values: [Double], _ x: Double) -> Int {
        var low = 0, high = values.count
        while low < high {
            let mid = (low + high) / 2
            if values[mid] < x { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The first index of `points` (sorted by x) whose x is not below `x`.
    static func lowerBound(_ points: [(Double, Double)], _ x: Double) -> Int {
        var low = 0, high = points.count
        while low < high {
            let mid = (low + high) / 2
            if points[mid].0 < x { low = mid + 1 } else { high = mid }
        }
        return low
    }

    static func upperBound(_ values: [Double], _ x: Double) -> Int {
        var low = 0, high = values.count
        while low < high {
            let mid = (low + high) / 2
            if values[mid] <= x { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The steps of locating each component of this shape in `other`: a part test per part of
    /// `other`, plus the vertices of each part whose envelope holds the component's first
    /// position.
    func locateSteps(in other: RelateShape, limit: Int) -> Int {
        guard !other.parts.isEmpty else { return 0 }
        var steps = 0
        for (x, y) in componentPoints {
            steps &+= other.parts.count
            for (box, vertices) in other.parts where box.contains(x: x, y: y) { steps &+= vertices }
            if steps > limit { return steps }
        }
        return steps
    }
}

/// ``RelateCost`` of one geometry — a query's — against many others, with the query's share of
/// the counting done once: its chains sorted by where they start and end, its own sweep, its
/// components sorted by x. Each ``cost(against:)`` then costs about the other geometry's size
/// times a logarithm, plus the steps it counts, however large the query, and equals
/// `RelateCost(query, other, limit: limit)`: exactly up to the limit, above it both are.
///
/// ```swift
/// let estimator = RelateCostEstimator(queryGeometry)
/// for feature in features where estimator.cost(against: feature).total > RelateCost.defaultLimit {
///     // refuse: GEOS would need seconds for this pair
/// }
/// ```
public struct RelateCostEstimator: Sendable {
    /// The query geometry's envelope (pairs whose envelopes are disjoint cost nothing).
    private let envelope: Envelope
    /// The query's chains' x-ranges, their starts and ends each sorted.
    private let chains: [(Double, Double)]
    private let sortedStarts: [Double]
    private let sortedEnds: [Double]
    /// The sweep of the query's chains against themselves (past `limit`, where counting stopped).
    private let selfSteps: Int
    /// The query's component positions sorted by x, and its parts.
    private let componentsByX: [(Double, Double)]
    private let parts: [(Envelope, Int)]
    /// The limit the estimates count to.
    public let limit: Int

    /// The estimator for `query`, counting each estimate up to `limit`.
    public init(_ query: Geometry, limit: Int = RelateCost.defaultLimit) {
        let shape = RelateShape(query)
        envelope = query.envelope
        chains = shape.chains
        sortedStarts = shape.chains.map(\.0).sorted()
        sortedEnds = shape.chains.map(\.1).sorted()
        selfSteps = RelateShape.sweepSteps(shape.chains, limit: limit)
        componentsByX = shape.componentPoints.sorted { $0.0 < $1.0 }
        parts = shape.parts
        self.limit = limit
    }

    /// Whether the query alone is beyond the limit: the sweep of its own chains, which every
    /// pair whose envelopes meet repeats, passes it.
    public var exceedsLimitAlone: Bool { selfSteps > limit }

    /// The sweep of the query's own chains (a lower bound of every pair's ``RelateCost/total``
    /// once the envelopes meet), counted up to the limit.
    public var ownSweepSteps: Int { Swift.min(selfSteps, limit &+ 1) }

    /// The cost of relating the query to `other`, as `RelateCost(query, other, limit: limit)`.
    public func cost(against other: Geometry) -> RelateCost {
        guard envelope.intersects(other.envelope) else { return RelateCost(sweepSteps: 0, locateSteps: 0) }
        let shape = RelateShape(other)
        // The sweep over both chain sets is the two own sweeps plus, for every chain, the other
        // set's starts inside its x-range (the starts of the query's chains by binary search; the
        // query's chains holding one of the other's starts: those starting at or before it less
        // those ending before it).
        let otherSelf = RelateShape.sweepSteps(shape.chains, limit: limit)
        var sweep = 2 &* Swift.min(selfSteps, limit &+ 1) &+ 2 &* Swift.min(otherSelf, limit &+ 1)
        for (xmin, xmax) in shape.chains where sweep <= limit {
            sweep &+= RelateShape.upperBound(sortedStarts, xmax) - RelateShape.lowerBound(sortedStarts, xmin)
            sweep &+= RelateShape.upperBound(sortedStarts, xmin) - RelateShape.lowerBound(sortedEnds, xmin)
        }
        let locateLimit = limit / RelateCost.locateWeight + 1
        var locate = 0
        // The query's components located in the other's parts: a part test each, and the
        // vertices of each part whose envelope holds the component.
        let (count, overflow) = componentsByX.count.multipliedReportingOverflow(by: shape.parts.count)
        locate = overflow ? locateLimit : count
        for (box, vertices) in shape.parts where locate <= locateLimit {
            var i = RelateShape.lowerBound(componentsByX, box.xmin)
            while i < componentsByX.count, componentsByX[i].0 <= box.xmax, locate <= locateLimit {
                if box.contains(x: componentsByX[i].0, y: componentsByX[i].1) { locate &+= vertices }
                i += 1
            }
        }
        // The other's components located in the query's parts.
        for (x, y) in shape.componentPoints where locate <= locateLimit {
            locate &+= parts.count
            for (box, vertices) in parts where box.contains(x: x, y: y) { locate &+= vertices }
        }
        return RelateCost(sweepSteps: Swift.min(limit &+ 1, sweep), locateSteps: Swift.min(locateLimit, locate))
    }
}

/// An estimate of the work of GEOS 3.10–3.12's validity check (`GEOSisValidDetail_r`), so that
/// geometries it would take seconds or minutes over are refused up front with a clear error.
///
/// The check nodes the geometry's rings against themselves: every pair of monotone chains whose
/// envelopes overlap is compared (through an STR tree, in both dimensions). The pairs overlapping
/// in x alone and those overlapping in y alone each bound that number from above; the estimate
/// is the smaller. A detailed coastline of 100,000 vertices costs little; a star of 100,000 thin
/// spikes, whose chains nearly all overlap, about 1.5 × 10⁹ pairs (15 s measured with GEOS 3.11).
/// Measured: about 10 ns per pair, ``stepWeight`` relate sweep steps.
public struct ValidityCost: Hashable, Sendable, CustomStringConvertible {
    /// The pairs of chains whose ranges overlap, the smaller of the x and y counts.
    public var overlappingChainPairs: Int

    /// The weight of one pair against one step of ``RelateCost`` (their measured time ratio).
    public static let stepWeight = 3

    /// The weighted total, comparable with ``RelateCost/total`` and its ``RelateCost/defaultLimit``.
    public var total: Int {
        let (weighted, overflow) = overlappingChainPairs.multipliedReportingOverflow(by: Self.stepWeight)
        return overflow ? .max : weighted
    }

    public var description: String { "\(overlappingChainPairs) overlapping chain pairs" }

    /// The estimate for `geometry`, counted until ``total`` passes `limit`.
    public init(_ geometry: Geometry, limit: Int = RelateCost.defaultLimit) {
        let shape = RelateShape(geometry)
        let pairLimit = limit / Self.stepWeight + 1
        let xPairs = RelateShape.sweepSteps(shape.chains, limit: pairLimit)
        let yPairs = RelateShape.sweepSteps(shape.chainsY, limit: pairLimit)
        overlappingChainPairs = Swift.min(xPairs, yPairs)
    }
}

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
            componentPoints.append((box.xmin, box.ymin))
            parts.append((box, 5))
        case .collection(let collection):
            for member in collection.geometries { add(member) }
        }
    }

    /// Cuts the path in `range` where the quadrant of the segment direction changes (GEOS's
    /// monotone chains) and records each chain's x-range.
    private mutating func addChains(_ buffer: CoordinateBuffer, _ range: Range<Int>) {
        guard range.count >= 2 else { return }
        func quadrant(_ i: Int) -> Int {
            let dx = buffer.x(at: i + 1) - buffer.x(at: i), dy = buffer.y(at: i + 1) - buffer.y(at: i)
            return dx >= 0 ? (dy >= 0 ? 0 : 3) : (dy >= 0 ? 1 : 2)
        }
        var start = range.lowerBound
        var current = quadrant(start)
        var xmin = Swift.min(buffer.x(at: start), buffer.x(at: start + 1))
        var xmax = Swift.max(buffer.x(at: start), buffer.x(at: start + 1))
        for i in (range.lowerBound + 1)..<(range.upperBound - 1) {
            let q = quadrant(i)
            if q != current {
                chains.append((xmin, xmax))
                start = i
                current = q
                xmin = buffer.x(at: i)
                xmax = xmin
            }
            let x = buffer.x(at: i + 1)
            xmin = Swift.min(xmin, x)
            xmax = Swift.max(xmax, x)
        }
        chains.append((xmin, xmax))
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

    private static func lowerBound(_ values: [Double], _ x: Double) -> Int {
        var low = 0, high = values.count
        while low < high {
            let mid = (low + high) / 2
            if values[mid] < x { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private static func upperBound(_ values: [Double], _ x: Double) -> Int {
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

import Foundation
import SieveGEOS
import SieveGeometry
import SieveTestSupport
import Testing

@testable import SieveProjection

/// PROJ's answers held to independent oracles: the worked examples of IOGP Guidance Note 7-2,
/// Snyder's formulas implemented in the tests, round trips, and GEOS on densified polygons.
@Suite("Projection through PROJ")
struct ProjectionTests {
    static let nad27 = SpatialReference(wkid: 4267)
    static let nad83 = SpatialReference(wkid: 4269)
    static let osgb36 = SpatialReference(wkid: 4277)
    static let longIsland = SpatialReference(wkid: 2263)
    static let texasSouthCentral = SpatialReference(wkid: 32040)
    static let britishNationalGrid = SpatialReference(wkid: 27700)

    // MARK: Worked examples and independent formulas

    /// Guidance Note 7-2, Lambert Conic Conformal (2SP): NAD27 / Texas South Central,
    /// 28°30'N 96°00'W → E = 2,963,503.91 ftUS, N = 254,759.80 ftUS (published to 0.01 ft).
    @Test func lambertConicConformalWorkedExample() throws {
        let projector = try Projector(from: Self.nad27, to: Self.texasSouthCentral)
        #expect(projector.method == .proj)
        let (x, y) = try projector.project(x: -96, y: 28.5)
        #expect(abs(x - 2_963_503.91) < 0.01, "\(x)")
        #expect(abs(y - 254_759.80) < 0.01, "\(y)")
        // The test's own implementation of the formulas agrees with the published figures.
        let reference = LambertConicConformal2SP.texasSouthCentral.forward(longitude: -96, latitude: 28.5)
        #expect(abs(reference.x / usSurveyFoot - 2_963_503.91) < 0.01)
        #expect(abs(reference.y / usSurveyFoot - 254_759.80) < 0.01)
    }

    /// Guidance Note 7-2, Transverse Mercator: OSGB 1936 / British National Grid,
    /// 50°30'N 0°30'E → E = 577,274.99 m, N = 69,740.50 m. The note rounds its intermediate
    /// values, so its figures are matched to 2 cm; Snyder's series, evaluated without rounding,
    /// is matched to 1 mm.
    @Test func transverseMercatorWorkedExample() throws {
        let projector = try Projector(from: Self.osgb36, to: Self.britishNationalGrid)
        let (x, y) = try projector.project(x: 0.5, y: 50.5)
        #expect(abs(x - 577_274.99) < 0.02, "\(x)")
        #expect(abs(y - 69_740.50) < 0.02, "\(y)")
        let reference = TransverseMercator.britishNationalGrid.forward(longitude: 0.5, latitude: 50.5)
        #expect(abs(x - reference.x) < 0.001)
        #expect(abs(y - reference.y) < 0.001)
    }

    /// Across Great Britain (within 3.5° of the central meridian, where Snyder's series is
    /// good to a fraction of a millimetre), PROJ matches the series to 1 mm.
    @Test func transverseMercatorAgreesWithSnyder() throws {
        let projector = try Projector(from: Self.osgb36, to: Self.britishNationalGrid)
        var random = SeededGenerator(seed: 27700)
        for _ in 0..<2_000 {
            let lon = random.uniform(-5.5, 1.5), lat = random.uniform(49.5, 59)
            let (x, y) = try projector.project(x: lon, y: lat)
            let reference = TransverseMercator.britishNationalGrid.forward(longitude: lon, latitude: lat)
            #expect(abs(x - reference.x) < 0.001 && abs(y - reference.y) < 0.001, "\(lon) \(lat): \(x) \(y) vs \(reference)")
        }
    }

    /// EPSG:2263 from NAD83 geographic (a pure projection, no datum change) equals the closed
    /// form of Snyder's Lambert Conic Conformal on GRS 80. Both evaluate the same closed-form
    /// expressions in double precision, so they differ only by rounding, of the order of
    /// 10⁻⁸ ft here; 10⁻⁴ ft (0.03 mm) leaves room for that and is far below any parameter
    /// error (a standard parallel off by one second moves points by feet).
    @Test func stateplaneAgreesWithSnyder() throws {
        let projector = try Projector(from: Self.nad83, to: Self.longIsland)
        var random = SeededGenerator(seed: 2263)
        for _ in 0..<5_000 {
            let lon = random.uniform(-80, -68), lat = random.uniform(38, 45)
            let (x, y) = try projector.project(x: lon, y: lat)
            let metres = LambertConicConformal2SP.newYorkLongIsland.forward(longitude: lon, latitude: lat)
            let rx = metres.x / usSurveyFoot, ry = metres.y / usSurveyFoot
            #expect(abs(x - rx) < 1e-4 && abs(y - ry) < 1e-4, "\(lon) \(lat): \(x) \(y) vs \(rx) \(ry)")
        }
        // The false origin: 40°10'N 74°W is (300,000 m, 0) = (984,250 ftUS, 0).
        let (x0, y0) = try projector.project(x: -74, y: 40 + 10 / 60.0)
        #expect(abs(x0 - 984_250) < 1e-6 && abs(y0) < 1e-6)
    }

    /// From WGS 84, PROJ adds the NAD83 ⇄ WGS 84 datum step it finds best: without grids that
    /// is the null transformation (accuracy 4 m), with NOAA's grid a shift of at most about 2 m.
    /// Either way the result is within 10 ft of the pure projection.
    @Test func stateplaneFromWGS84() throws {
        let projector = try Projector(from: .wgs84, to: Self.longIsland)
        var random = SeededGenerator(seed: 4326)
        for _ in 0..<200 {
            let lon = random.uniform(-74.3, -73.7), lat = random.uniform(40.5, 40.95)
            let (x, y) = try projector.project(x: lon, y: lat)
            let metres = LambertConicConformal2SP.newYorkLongIsland.forward(longitude: lon, latitude: lat)
            #expect(abs(x - metres.x / usSurveyFoot) < 10 && abs(y - metres.y / usSurveyFoot) < 10)
        }
    }

    /// Axis order is x = easting/longitude on both sides, also for references whose official
    /// order is latitude first (4326, 4267) or northing first.
    @Test func axisOrderIsEastingFirst() throws {
        // EPSG:2056 (Swiss CH1903+ / LV95) officially lists easting first; EPSG:3067 (Finland)
        // lists northing first (N, E). Both must come back as (easting, northing).
        let finland = try Projector(from: .wgs84, to: SpatialReference(wkid: 3067))
        let (e, n) = try finland.project(x: 25, y: 62)
        // ETRS-TM35FIN: central meridian 27°E, false easting 500,000 m; 25°E lies west of it.
        #expect(e > 300_000 && e < 500_000, "\(e)")
        #expect(n > 6_800_000 && n < 7_000_000, "\(n)")
        let back = try finland.inverted().project(x: e, y: n)
        #expect(abs(back.x - 25) < 1e-9 && abs(back.y - 62) < 1e-9)
    }

    // MARK: Round trips

    /// Forward then inverse returns the input, for several methods (conic, transverse
    /// Mercator, azimuthal equal area, an ESRI-only code). Pure projections (NAD83, RGF93 and
    /// WGS 84 agree through null datum steps) come back within 10⁻⁹° (0.1 mm); the inverse of
    /// Lambert azimuthal equal area goes through the authalic-latitude series, good to about
    /// 10⁻⁸° (1 mm); OSGB 1936 adds a Helmert shift through geocentric coordinates, whose
    /// inverse is iterative, good to about 2·10⁻⁸° — 5·10⁻⁸° (5 mm) is allowed.
    @Test(arguments: [2263, 32618, 3035, 27700, 102718, 2154, 5070])
    func roundTrip(code: Int) throws {
        let target = SpatialReference(wkid: code)
        let forward = try Projector(from: .wgs84, to: target)
        let inverse = try forward.inverted()
        // A box inside the area each of these references is made for.
        let area: (lon: ClosedRange<Double>, lat: ClosedRange<Double>) =
            switch code {
            case 2263, 32618, 102718: (-75...(-72), 40...41.5)
            case 5070: (-120...(-75), 30...45)
            case 27700: (-5...1, 50...58)
            default: (-4...12, 42...55)
            }
        let tolerance =
            switch code {
            case 3035: 1e-8
            case 27700: 5e-8
            default: 1e-9
            }
        var random = SeededGenerator(seed: UInt64(code))
        var values: [Double] = []
        for _ in 0..<500 {
            values.append(random.uniform(area.lon.lowerBound, area.lon.upperBound))
            values.append(random.uniform(area.lat.lowerBound, area.lat.upperBound))
        }
        let points = Geometry.multipoint(try Multipoint(coordinates: CoordinateBuffer(values: values)))
        let there = try forward.project(points)
        let back = try inverse.project(there)
        guard case .multipoint(let result) = back else {
            Issue.record("not a multipoint: \(back)")
            return
        }
        for (a, b) in zip(values, result.coordinates.values) {
            #expect(abs(a - b) < tolerance, "\(code): \(a) vs \(b)")
        }
    }

    /// z passes through PROJ and m is kept, for every kind.
    @Test func zAndMAreCarried() throws {
        let projector = try Projector(from: Self.nad83, to: Self.longIsland)
        let point = Geometry.point(Point(x: -74, y: 40.7, z: 12.5, m: 7))
        guard case .point(let p) = try projector.project(point) else {
            Issue.record("not a point")
            return
        }
        #expect(p.z == 12.5 && p.m == 7)
        let line = try Polyline(paths: [[Point(x: -74, y: 40.7, z: 1, m: 2), Point(x: -73.9, y: 40.8, z: 3, m: 4)]])
        guard case .polyline(let l) = try projector.project(.polyline(line)) else {
            Issue.record("not a polyline")
            return
        }
        #expect(l.coordinates.layout == .xyzm)
        #expect(l.paths[0].map(\.z) == [1, 3] && l.paths[0].map(\.m) == [2, 4])
    }

    /// Every kind projects to the same kind (envelopes to polygons), vertex by vertex as the
    /// single-position projection gives them.
    @Test func everyKindProjects() throws {
        let projector = try Projector(from: .wgs84, to: Self.longIsland)
        let a = Point(x: -74, y: 40.7), b = Point(x: -73.9, y: 40.75), c = Point(x: -73.95, y: 40.8)
        let pa = try projector.project(x: a.x, y: a.y), pb = try projector.project(x: b.x, y: b.y)
        let geometries: [Geometry] = [
            .point(a),
            .multipoint(try Multipoint(points: [a, b])),
            .polyline(try Polyline(paths: [[a, b], [b, c]])),
            .polygon(try Polygon(exterior: [a, b, c, a])),
            .collection(GeometryCollection([.point(a), .polyline(try Polyline(paths: [[a, b]]))])),
        ]
        for geometry in geometries {
            let projected = try projector.project(geometry)
            #expect(projected.kind == geometry.kind)
            #expect(projected.envelope.contains(x: pa.x, y: pa.y))
        }
        if case .multipoint(let m) = try projector.project(geometries[1]) {
            #expect(m.points == [Point(x: pa.x, y: pa.y), Point(x: pb.x, y: pb.y)])
        }
        let box = try projector.project(.envelope(Envelope(xmin: -74, ymin: 40.7, xmax: -73.9, ymax: 40.8)))
        #expect(box.kind == .polygon)
        #expect(try projector.project(.point(.empty)) == .point(.empty))
        #expect(try projector.project(.polygon(.empty)) == .polygon(.empty))
    }

    // MARK: The exact Web Mercator path

    /// 4326 ⇄ 3857 (and 102100) go through SieveGeometry's exact formulas, bit for bit.
    @Test func webMercatorIsTheExactPath() throws {
        var random = SeededGenerator(seed: 3857)
        let toMercator = try Projector(from: .wgs84, to: .webMercator)
        let fromAlias = try Projector(from: SpatialReference(wkid: 102100), to: .wgs84)
        #expect(toMercator.method == .webMercator && fromAlias.method == .webMercator)
        for _ in 0..<2_000 {
            let lon = random.uniform(-180, 180), lat = random.uniform(-89.9, 89.9)
            let (x, y) = try toMercator.project(x: lon, y: lat)
            let exact = WebMercator.forward(longitude: lon, latitude: lat)
            #expect(x.bitPattern == exact.x.bitPattern && y.bitPattern == exact.y.bitPattern)
            let back = try fromAlias.project(x: x, y: y)
            let exactBack = WebMercator.inverse(x: x, y: y)
            #expect(back.x.bitPattern == exactBack.longitude.bitPattern && back.y.bitPattern == exactBack.latitude.bitPattern)
        }
        // Whole geometries too, envelopes staying envelopes, densification or not.
        let polygon = Geometry.polygon(
            try Polygon(exterior: [
                Point(x: -120, y: -50), Point(x: 150, y: -50), Point(x: 150, y: 70), Point(x: -120, y: -50),
            ]))
        for geometry in [polygon, .envelope(Envelope(xmin: -120, ymin: -50, xmax: 150, ymax: 70))] {
            let expected = try geometry.projected(from: .wgs84, to: .webMercator)
            #expect(try toMercator.project(geometry, densification: .standard) == expected)
        }
        let same = try Projector(from: .webMercator, to: SpatialReference(wkid: 102100))
        #expect(same.method == .identity)
        #expect(try same.project(polygon) == polygon)
    }

    // MARK: Densification

    /// The polygon 80°W–68°W × 40°N–45°N in 4326, projected to EPSG:2263 (a cone): its edges
    /// along the parallels become arcs bulging south by about 18 km at the central meridian.
    /// Undensified, the projected polygon misses a point 0.02° inside its southern edge and
    /// contains one 0.02° outside its northern edge; densified it gets both right, as GEOS
    /// says, within the tolerance and the cap.
    @Test func densifiedEdgesFollowTheParallels() throws {
        let projector = try Projector(from: .wgs84, to: Self.longIsland)
        let box = try Polygon(exterior: [
            Point(x: -80, y: 40), Point(x: -68, y: 40), Point(x: -68, y: 45), Point(x: -80, y: 45), Point(x: -80, y: 40),
        ])
        let plain = try projector.project(.polygon(box))
        let densified = try projector.project(.polygon(box), densification: .standard)
        guard case .polygon(let plainPolygon) = plain, case .polygon(let densePolygon) = densified else {
            Issue.record("not polygons")
            return
        }
        #expect(plainPolygon.coordinates.count == 5)
        // Each of the two parallel edges needs a few hundred vertices at 10⁻⁶ of ~3.3 M ft;
        // the meridian edges are straight lines in a conic projection.
        #expect(densePolygon.coordinates.count > 50)
        #expect(densePolygon.coordinates.count < 5_000)
        let inside = try projector.project(x: -74, y: 40.02)
        let outside = try projector.project(x: -74, y: 45.02)
        let answers = try GEOSContext.withCurrent { context throws -> [Bool] in
            let p = try GEOSGeometry(plain, context: context)
            let d = try GEOSGeometry(densified, context: context)
            let i = try GEOSGeometry(.point(Point(x: inside.x, y: inside.y)), context: context)
            let o = try GEOSGeometry(.point(Point(x: outside.x, y: outside.y)), context: context)
            return [try p.contains(i), try d.contains(i), try p.contains(o), try d.contains(o)]
        }
        #expect(answers == [false, true, true, false])
        // Every densified vertex is within the tolerance of the true image of the edge: the
        // vertices of the southern edge are projections of points on the 40th parallel.
        for point in densePolygon.ring(0) {
            let lonLat = try projector.inverted().project(x: point.x, y: point.y)
            let onEdge =
                abs(lonLat.y - 40) < 1e-9 || abs(lonLat.y - 45) < 1e-9 || abs(lonLat.x + 80) < 1e-9
                || abs(lonLat.x + 68) < 1e-9
            #expect(onEdge, "\(lonLat)")
        }
    }

    /// An envelope densified becomes a polygon whose envelope holds the bulge of its edges.
    @Test func projectedEnvelopeIncludesTheBulge() throws {
        let projector = try Projector(from: .wgs84, to: Self.longIsland)
        let box = Envelope(xmin: -80, ymin: 40, xmax: -68, ymax: 45)
        let extent = try projector.projectEnvelope(box)
        let corners = try projector.projectEnvelope(box, densification: nil)
        let south = try projector.project(x: -74, y: 40)
        // The southern edge's lowest point is at the central meridian, below both corners.
        #expect(corners.ymin > south.y + 10_000)
        #expect(abs(extent.ymin - south.y) < 1e-6 * extent.width + 1e-6)
    }

    /// An absurd tolerance on edges spanning the globe stops at the cap with a clear error.
    @Test func densificationIsCapped() throws {
        let projector = try Projector(from: .wgs84, to: Self.longIsland)
        let paths = (0..<4).map { i in [Point(x: -179, y: 60 + Double(i)), Point(x: 179, y: 60 + Double(i))] }
        let line = Geometry.polyline(try Polyline(paths: paths))
        let capped = Densification(tolerance: .absolute(0), maximumAddedPositions: 10_000)
        #expect {
            try projector.project(line, densification: capped)
        } throws: { error in
            guard let error = error as? ProjectionError else { return false }
            return error.kind == .tooComplex && error.description.contains("10000")
        }
        // Depth alone bounds one edge: at most 2¹⁶ pieces.
        let one = Geometry.polyline(try Polyline(paths: [paths[0]]))
        let deep = try projector.project(one, densification: Densification(tolerance: .absolute(0)))
        guard case .polyline(let deepLine) = deep else {
            Issue.record("expected a polyline")
            return
        }
        #expect(deepLine.coordinates.count <= (1 << Densification.maximumDepth) + 1)
    }

    // MARK: Errors

    @Test func unknownCodesAreNamed() throws {
        #expect {
            try Projector(from: .wgs84, to: SpatialReference(wkid: 999_999))
        } throws: { error in
            guard let error = error as? ProjectionError else { return false }
            return error.kind == .unknownSpatialReference && error.description.contains("999999")
                && error.source == 4326 && error.target == 999_999
        }
        #expect(throws: ProjectionError.self) { try Projector(from: SpatialReference(wkid: 0), to: .wgs84) }
        #expect(throws: ProjectionError.self) { try Projector(from: SpatialReference(wkid: -5), to: Self.longIsland) }
        // An ESRI-only code resolves through the ESRI registry: 102718 is the ESRI name of the
        // same State Plane zone as 2263.
        let esri = try Projector(from: .wgs84, to: SpatialReference(wkid: 102718))
        let epsg = try Projector(from: .wgs84, to: Self.longIsland)
        let a = try esri.project(x: -73.9, y: 40.7), b = try epsg.project(x: -73.9, y: 40.7)
        #expect(abs(a.x - b.x) < 1e-3 && abs(a.y - b.y) < 1e-3)
        #expect(try ProjectionContext.withCurrent { try $0.name(of: Self.longIsland) } == "NAD83 / New York Long Island (ftUS)")
    }

    /// References that do not hold map positions are refused, naming what they are: PROJ
    /// would otherwise "transform" 4326 into a vertical reference by passing x and y through.
    @Test(arguments: [(5703, "vertical"), (4978, "geocentric")])
    func nonMapReferencesAreRefused(code: Int, kind: String) throws {
        #expect {
            try Projector(from: .wgs84, to: SpatialReference(wkid: code))
        } throws: { error in
            guard let error = error as? ProjectionError else { return false }
            return error.kind == .unsupportedSpatialReference && error.description.contains("wkid \(code)")
                && error.description.contains(kind)
        }
    }

    /// The south pole has no image in a conic projection of the northern hemisphere: PROJ
    /// returns HUGE_VAL, and the projection throws instead of giving infinite coordinates.
    @Test func failedTransformationsThrow() throws {
        let projector = try Projector(from: .wgs84, to: Self.longIsland)
        for geometry: Geometry in [
            .point(Point(x: 0, y: -90)),
            .multipoint(try Multipoint(points: [Point(x: -74, y: 40), Point(x: 0, y: -90)])),
            .polygon(try Polygon(exterior: [Point(x: -74, y: 40), Point(x: 0, y: -90), Point(x: 10, y: 40), Point(x: -74, y: 40)])),
        ] {
            #expect {
                try projector.project(geometry)
            } throws: { error in
                guard let error = error as? ProjectionError else { return false }
                return error.kind == .transformationFailed && error.description.contains("(0.0, -90.0)")
                    && error.description.contains("2263")
            }
        }
        // The context is still usable afterwards.
        #expect(try projector.project(x: -74, y: 40.1667).x.isFinite)
    }

    // MARK: Concurrency

    /// Many tasks projecting at once, each thread with its own context, give the serial answers.
    @Test func manyTasksAgreeWithSerial() async throws {
        let targets = [2263, 32618, 3035, 27700].map { SpatialReference(wkid: $0) }
        var random = SeededGenerator(seed: 99)
        var values: [Double] = []
        for _ in 0..<300 {
            values.append(random.uniform(-10, 10))
            values.append(random.uniform(40, 50))
        }
        let points = Geometry.multipoint(try Multipoint(coordinates: CoordinateBuffer(values: values)))
        let projectors = try targets.map { try Projector(from: .wgs84, to: $0) }
        let serial = try projectors.map { try $0.project(points, densification: .standard) }
        let results = try await withThrowingTaskGroup(of: (Int, Geometry).self) { group in
            for task in 0..<32 {
                group.addTask {
                    let index = task % projectors.count
                    if task.isMultiple(of: 3) {
                        let context = try ProjectionContext()
                        return (index, try projectors[index].project(points, densification: .standard, context: context))
                    }
                    return (index, try projectors[index].project(points, densification: .standard))
                }
            }
            var all: [(Int, Geometry)] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 32)
        for (index, geometry) in results { #expect(geometry == serial[index]) }
    }

    /// The thread keeps its context between calls; a context kept outside is let go.
    @Test func threadContextIsReused() {
        let first = ProjectionContext.withCurrent { context in ObjectIdentifier(context) }
        let second = ProjectionContext.withCurrent { context in ObjectIdentifier(context) }
        // Same thread within one synchronous test body: the same context.
        #expect(first == second)
        nonisolated(unsafe) var kept: ProjectionContext?
        ProjectionContext.withCurrent { context in kept = context }
        if let kept { #expect(!ProjectionContext.isThreadContext(kept)) }
    }
}

import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import Synchronization
import Testing

@testable import SieveServer
import SieveJSON
import SieveTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where engine work runs (inline, or on the engine's threads within the query timeout), the
/// rule that decides it, the timer, and the writers' answers on a wide table.
@Suite(.tags(.network)) struct EngineWorkTests {
    /// The name of the calling thread.
    static func threadName() -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        #if canImport(Darwin)
            _ = pthread_getname_np(pthread_self(), &buffer, buffer.count)
        #else
            typealias GetName = @convention(c) (pthread_t, UnsafeMutablePointer<CChar>, Int) -> Int32
            guard let symbol = dlsym(nil, "pthread_getname_np") else { return "" }
            _ = unsafeBitCast(symbol, to: GetName.self)(pthread_self(), &buffer, buffer.count)
        #endif
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test func smallWorkRunsInlineOnTheRequestsTask() async throws {
        let server = try TestServer.make(ServerConfiguration(queryTimeout: 0.05))
        let (onTask, name, cancellation) = try await server.timed(.small) { () -> (Bool, String, Bool) in
            (withUnsafeCurrentTask { $0 != nil }, Self.threadName(), QueryCancellation.current != nil)
        }
        #expect(onTask)
        #expect(name != EngineExecutor.threadName)
        // Small work is bounded: no timer, nothing to cancel.
        #expect(!cancellation)
        await #expect(throws: ServerRequestError.self) {
            try await server.timed(.small) { () -> Int in throw ServerRequestError(.badRequest, "no") }
        }
    }

    @Test func largeWorkRunsOnTheEnginesThreads() async throws {
        for timeout in [0.5, nil] as [Double?] {
            let server = try TestServer.make(ServerConfiguration(queryTimeout: timeout))
            let (onTask, name, cancellation) = try await server.timed(.large) { () -> (Bool, String, Bool) in
                (withUnsafeCurrentTask { $0 != nil }, Self.threadName(), QueryCancellation.current != nil)
            }
            #expect(!onTask)
            #expect(name == EngineExecutor.threadName)
            #expect(cancellation)
        }
    }

    @Test func lateLargeWorkIsAnswered503AndCancelled() async throws {
        let server = try TestServer.make(ServerConfiguration(queryTimeout: 0.05))
        let stopped = Atomic<Bool>(false)
        do {
            _ = try await server.timed(.large) { () -> Bool in
                guard let cancellation = QueryCancellation.current else { return false }
                while !cancellation.isCancelled { usleep(1_000) }
                stopped.store(true, ordering: .releasing)
                return true
            }
            Issue.record("the late work was not cut off")
        } catch let error as ServerRequestError {
            #expect(error.kind == .serviceUnavailable)
            #expect(error.message.contains("did not finish within 0.05 s"))
        }
        // Not a wall-clock bound: when the test process's other suites keep the cooperative pool
        // busy, this task resumes late however early the timer answered. The work's
        // cancellation below is what the deadline did.
        var done = false
        for _ in 0..<1000 where !done {
            try await Task.sleep(for: .milliseconds(5))
            done = stopped.load(ordering: .acquiring)
        }
        #expect(done)
    }

    @Test func cancellingTheRequestCancelsItsWork() async throws {
        let server = try TestServer.make(ServerConfiguration(queryTimeout: nil))
        let running = Atomic<Bool>(false)
        let request = Task {
            try await server.timed(.large) { () -> Bool in
                guard let cancellation = QueryCancellation.current else { return false }
                running.store(true, ordering: .releasing)
                while !cancellation.isCancelled { usleep(1_000) }
                return true
            }
        }
        // Cancelled once the work runs (on a busy machine it may start late; cancelled before it
        // starts, it never runs, which another path answers).
        while !running.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
        request.cancel()
        #expect(try await request.value)
    }

    /// The size of the ArcGIS query `query` on `table`, as the route decides it: read first, then
    /// sized. A query that cannot be read never runs (the route answers its error inline): it
    /// counts as large here, the size nothing bounds.
    static func arcGISSize(
        _ query: String, table: FeatureTable, configuration: ServerConfiguration, indexed: Bool = false
    ) throws -> EngineWorkSize {
        let parameters = try RequestParameters(query: Substring(query), caseInsensitiveNames: true)
        guard let prepared = try? ArcGISQuery.prepare(parameters, schema: table.schema, configuration: configuration) else { return .large }
        return EngineWorkSize.query(
            prepared.request.parameters, declaresBox: prepared.declaresBox, table: table, configuration: configuration, indexed: indexed)
    }

    @Test func theRuleKeepsInlineOnlyBoundedWork() throws {
        let server = try TestServer.make()
        let cities = try #require(try server.catalog.table("cities", what: "service").snapshot)
        let configuration = ServerConfiguration()
        func size(_ query: String, _ configuration: ServerConfiguration = configuration) throws -> EngineWorkSize {
            try Self.arcGISSize(query, table: cities, configuration: configuration)
        }
        #expect(try size("where=1%3D1&outFields=*") == .small)
        #expect(try size("geometry=0,0,10,10&geometryType=esriGeometryEnvelope&outFields=*") == .small)
        #expect(try size("geometry=0,0,10,10") == .small)
        #expect(try size("geometry=%7B%22xmin%22:0,%22ymin%22:0,%22xmax%22:1,%22ymax%22:1%7D") == .small)
        #expect(try size("geometry=1,2&geometryType=esriGeometryPoint&spatialRel=esriSpatialRelEnvelopeIntersects") == .small)
        // Polygons, lines and other relationships go to GEOS feature by feature.
        #expect(try size("geometry=%7B%22rings%22:[[[0,0],[0,1],[1,1],[0,0]]]%7D") == .large)
        #expect(try size("geometry=0,0,10,10&geometryType=esriGeometryPolygon") == .large)
        #expect(try size("geometry=0,0,10,10&spatialRel=esriSpatialRelContains") == .large)
        // A table over the limit.
        #expect(try size("where=1%3D1", ServerConfiguration(inlineQueryRowLimit: cities.count - 1)) == .large)
        #expect(try size("where=1%3D1", ServerConfiguration(inlineQueryRowLimit: 0)) == .large)
        // OGC: a CQL2 filter may test any geometry.
        func ogc(_ query: String) throws -> EngineWorkSize {
            EngineWorkSize.ogcItems(try RequestParameters(query: Substring(query), caseInsensitiveNames: false), table: cities, configuration: configuration)
        }
        #expect(try ogc("bbox=0,0,10,10&limit=10") == .small)
        #expect(try ogc("filter=S_INTERSECTS(geometry,POINT(0%200))") == .large)
        // Countries: fewer rows than the limit, but polygons of many vertices.
        let countries = try #require(try server.catalog.table("countries", what: "service").snapshot)
        let rows = ServerConfiguration(inlineQueryRowLimit: countries.count + 1)
        #expect(try Self.arcGISSize("where=1%3D1", table: countries, configuration: rows) == .large)
        #expect(throws: ServerRequestError.self) { try ServerConfiguration(inlineQueryRowLimit: -1).validate() }
    }

    @Test func boxQueriesOnLargeTablesCountTheirRowsInTheBuiltIndex() async throws {
        // Cities: 243 points, over a limit of 100 rows.
        let configuration = ServerConfiguration(inlineQueryRowLimit: 100)
        let server = try TestServer.make(configuration)
        let cities = try #require(try server.catalog.table("cities", what: "service").snapshot)
        #expect(cities.count > 100)
        func size(_ query: String, indexed: Bool) throws -> EngineWorkSize {
            try Self.arcGISSize(query, table: cities, configuration: configuration, indexed: indexed)
        }
        let europe = "geometry=0,40,20,60&geometryType=esriGeometryEnvelope&inSR=4326&outFields=*"
        // Until a query has built the index, never counted (counting would build it inline).
        #expect(try size(europe, indexed: false) == .large)
        #expect(try size(europe, indexed: true) == .small)
        #expect(try size("where=1%3D1", indexed: true) == .large)
        #expect(try size("geometry=-180,-90,180,90", indexed: true) == .large)
        #expect(try size("geometry=%7B%22xmin%22:0,%22ymin%22:40,%22xmax%22:20,%22ymax%22:60%7D", indexed: true) == .small)
        #expect(try size("geometry=10,50&geometryType=esriGeometryPoint", indexed: true) == .small)
        // Not a box the index can count (inverted, infinite, not numbers): the query reports it.
        for bad in ["geometry=20,40,0,60", "geometry=0,40,inf,60", "geometry=0,40,nan,60", "geometry=a,b,c,d", "geometry=%7B%22xmin%22:5,%22ymin%22:1,%22xmax%22:1,%22ymax%22:2%7D"] {
            #expect(try size(bad, indexed: true) == .large, "\(bad)")
        }
        // Another spatial reference would need projecting: not counted.
        #expect(try size("geometry=0,40,20,60&inSR=3857", indexed: true) == .large)
        #expect(try size("geometry=0,40,20,60&inSR=%7B%22wkid%22:4326%7D", indexed: true) == .small)
        #expect(
            try size("geometry=%7B%22xmin%22:0,%22ymin%22:40,%22xmax%22:20,%22ymax%22:60,%22spatialReference%22:%7B%22wkid%22:3857%7D%7D", indexed: true)
                == .large)
        func ogc(_ query: String) throws -> EngineWorkSize {
            EngineWorkSize.ogcItems(
                try RequestParameters(query: Substring(query), caseInsensitiveNames: false), table: cities, configuration: configuration, indexed: true)
        }
        #expect(try ogc("bbox=0,40,20,60&limit=10") == .small)
        #expect(try ogc("bbox=170,40,-170,60") == .large)
        #expect(try ogc("bbox=0,40,20,60&bbox-crs=http://www.opengis.net/def/crs/EPSG/0/3857") == .large)
        #expect(try ogc("limit=10") == .large)
        // The first box query (on the engine's threads) builds the index and says so.
        #expect(!server.spatialIndexes.isReady("cities"))
        try await TestServer.withClient(server) { client async throws in
            let reply = try await client.get("/arcgis/rest/services/cities/FeatureServer/0/query?" + europe + "&f=json")
            #expect(reply.status == 200 && reply.arcGISErrorCode == nil)
        }
        #expect(server.spatialIndexes.isReady("cities"))
        #expect(!server.spatialIndexes.isReady("countries"))
    }

    @Test func routesAnswerTheSameInlineAndOnTheEngine() async throws {
        let inline = try TestServer.make(ServerConfiguration(inlineQueryRowLimit: 1_000_000))
        let engine = try TestServer.make(ServerConfiguration(inlineQueryRowLimit: 0))
        let paths = [
            "/arcgis/rest/services/cities/FeatureServer/0/query?where=1%3D1&geometry=0%2C40%2C20%2C60&outFields=*&f=json",
            "/arcgis/rest/services/cities/FeatureServer/0/query?where=nonsense&f=json",
            "/ogc/collections/cities/items?bbox=0,40,20,60&limit=5&f=json",
        ]
        let answers = Mutex<[String: [String]]>([:])
        for server in [inline, engine] {
            try await TestServer.withClient(server) { client async throws in
                for path in paths {
                    let reply = try await client.get(path)
                    let text = reply.text.replacingOccurrences(of: #""timeStamp":"[^"]*""#, with: "", options: .regularExpression)
                    answers.withLock { $0[path, default: []].append(text) }
                }
            }
        }
        for path in paths {
            let both = answers.withLock { $0[path] ?? [] }
            #expect(both.count == 2 && both[0] == both[1], "\(path)")
        }
    }

    @Test func theTimerFiresOnTimeAndNotWhenCancelled() async throws {
        let timer = DeadlineTimer(resolution: 0.005)
        let fired = Mutex<[Int]>([])
        timer.schedule(after: 0.02) { fired.withLock { $0.append(1) } }
        let cancelled = timer.schedule(after: 0.01) { fired.withLock { $0.append(2) } }
        timer.schedule(after: 0) { fired.withLock { $0.append(3) } }
        timer.cancel(cancelled)
        // Many cancelled entries are compacted away without losing the live ones.
        let many = (0..<10_000).map { _ in timer.schedule(after: 60) {} }
        for ticket in many { timer.cancel(ticket) }
        timer.schedule(after: 0.03) { fired.withLock { $0.append(4) } }
        for _ in 0..<1000 where fired.withLock({ $0.count }) < 3 { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(30))
        #expect(fired.withLock { $0 } == [3, 1, 4])
    }

    @Test func theExecutorRunsTasksAndClosures() async throws {
        let executor = EngineExecutor(threads: 2)
        let name = await withTaskExecutorPreference(executor) { Self.threadName() }
        #expect(name == EngineExecutor.threadName)
        // Many closures at once, each run once.
        let counted = Atomic<Int>(0)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for _ in 0..<1000 {
                executor.submit {
                    if counted.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == 1000 { done.resume() }
                }
            }
        }
        #expect(counted.load(ordering: .acquiring) == 1000)
    }

    /// The writers' bytes on a 25-field table are those written before they stopped preparing
    /// every distinct string and every field's description per request (when the server claimed
    /// no release before 11.2, whose types they declare).
    @Test func wideTableAnswersAreUnchanged() async throws {
        let wide = try TestServer.table("wide25", geoJSON: WideTableAnswers.geoJSON)
        #expect(wide.schema.fields.count == 25)
        for limit in [0, 1_000_000] {
            let server = try TestServer.make(ServerConfiguration(inlineQueryRowLimit: limit, arcgisVersion: .v11_2), extra: [wide])
            try await TestServer.withClient(server) { client async throws in
                for (path, body) in WideTableAnswers.answers {
                    let reply = try await client.get(path)
                    #expect(reply.status == 200)
                    #expect(reply.text == body, "\(path)")
                }
            }
        }
    }

    @Test func stringsAreEscapedAsTheJSONWriterEscapes() {
        var texts = ["", "plain", "quote \" and backslash \\", "line\nfeed\ttab\r\u{8}\u{c}", "\u{1}\u{1f}\u{7f}", "Zürich 東京 😀"]
        texts += (0..<32).map { "c\(String(UnicodeScalar(UInt8($0))))x" }
        let storage = StringStorage(texts)
        for (i, text) in texts.enumerated() {
            var expected: [UInt8] = []
            JSONWriter.writeString(text, into: &expected)
            var written: [UInt8] = []
            JSONOutput.appendString(i, of: storage, to: &written)
            #expect(written == expected, "\(text.debugDescription)")
        }
    }
}

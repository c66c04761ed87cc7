import ArgumentParser
import Foundation
import GeoSieve
import SieveClients
import Synchronization
import SieveJSON

/// `geosieve pan SOURCE --extents FILE [--mode snapshot|on-demand|selection|manual-cache]
/// [--buffer-factor 2] [--expiration SECONDS] [--auto-refresh] [--where SQL] [--max-features N]
/// [--trace-requests]`: replays map extents (and selections and cache fills) over a feature
/// service layer or collection and prints, per step, the requests its request mode sent and the
/// features displayed, selected, fetched and cached.
struct PanCommand: AsyncParsableCommand {
    /// `--mode`.
    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case snapshot, onDemand = "on-demand", selection, manualCache = "manual-cache"
    }

    static let configuration = CommandConfiguration(
        commandName: "pan",
        abstract: "Replay map extents over a feature service and show what each request mode fetches.",
        discussion: """
            SOURCE is an ArcGIS feature service layer (https://…/FeatureServer/0) or an OGC API \
            collection (OAPIF:https://…#id). --extents FILE holds one map extent per line, \
            XMIN,YMIN,XMAX,YMAX in the layer's spatial reference (CRS84 for a collection); a line \
            'wait SECONDS' moves the replay's clock on (for --expiration); 'select WHERE' selects \
            (selection mode: fetching what the where clause selects; other modes: among the \
            features cached); 'populate WHERE' and 'populate-clear WHERE' fill the cache from the \
            service (manual cache's only way; at most --max-features; the second empties it \
            first); blank lines and lines starting with # are skipped. The table is loaded as \
            --mode says (snapshot: every feature first), then each step runs: on-demand fetches \
            the extent scaled by --buffer-factor when the extent leaves what it fetched or the \
            data expired (--expiration SECONDS; with --auto-refresh at the wait that expires \
            them, else at the next extent). One JSON line per step on standard output: \
            {"step":"load","requests":N,"cached":N} (with "definitionExpression" when the \
            service layer has one of its own: it ANDed with --where), then \
            {"step":"extent","extent":[…],"requests":N,"fetched":BOOL,"displayed":N,"local_ms":T,"cached":N} \
            (requests: those the step sent; displayed: the cached features drawn in the extent, \
            those whose envelope meets it; local_ms: the milliseconds the local query for them took; \
            cached: the features held), {"step":"wait","seconds":S,"requests":N,"cached":N}, \
            {"step":"select","where":W,"requests":N,"selected":N,"cached":N} or \
            {"step":"populate","where":W,"clear":BOOL,"requests":N,"fetched":N,"cached":N}. \
            --where is the layer's definition expression, sent with every fetch. Exit status: 1 \
            when FILE cannot be read, 2 for any other error.

            Example (extents.txt: one extent per line, 'wait 60', 'select pop > 1e6'):
              geosieve pan https://host/arcgis/rest/services/cities/FeatureServer/0 \\
                  --extents extents.txt --mode on-demand --buffer-factor 2
            """
    )

    @Argument(help: "A feature service layer URL or OAPIF:URL#collection.")
    var source: String

    @Option(parsing: .unconditional, help: "The file of map extents (XMIN,YMIN,XMAX,YMAX per line; 'wait SECONDS').")
    var extents: String

    @Option(help: "snapshot (default), on-demand, selection or manual-cache.")
    var mode: Mode = .snapshot

    @Option(name: .customLong("buffer-factor"), parsing: .unconditional, help: "On-demand: how much larger than the extent the fetch is (at least 1).")
    var bufferFactor: Double = 2

    @Option(parsing: .unconditional, help: "On-demand: seconds after which fetched features expire.")
    var expiration: Double?

    @Flag(name: .customLong("auto-refresh"), help: "On-demand: refetch as soon as the features expire, not at the next extent.")
    var autoRefresh = false

    @Option(name: .customLong("where"), parsing: .unconditional, help: "The definition expression, sent with every fetch.")
    var whereClause: String = ""

    @Flag(name: .customLong("trace-requests"), help: ArgumentHelp(ServiceSource.traceRequestsHelp))
    var traceRequests = false

    @Option(name: .customLong("max-features"), parsing: .unconditional, help: "The most features a 'populate' line fetches.")
    var maxFeatures: Int?

    /// One step of the replay.
    enum Step: Sendable {
        case extent(Envelope)
        case wait(Double)
        case select(String)
        case populate(String, clear: Bool)
    }

    func validate() throws {
        guard bufferFactor.isFinite, bufferFactor >= 1 else { throw ValidationError("--buffer-factor must be a number of at least 1") }
        if let expiration, !(expiration.isFinite && expiration > 0 && expiration <= 1e9) {
            throw ValidationError("--expiration must be a positive number of seconds, at most 1e9")
        }
        if let maxFeatures, maxFeatures < 1 { throw ValidationError("--max-features must be at least 1") }
    }

    func run() async throws {
        #if RemoteSources
        let bytes = try InputFiles.contents(of: extents, limit: 64 << 20, option: "--extents")
        let steps = try Self.steps(InputFiles.text(bytes, path: extents, option: "--extents"))
        let requests = Atomic<Int>(0)
        let clock = Atomic<Int64>(0)  // milliseconds of the replay's clock
        let client = ServiceSource.makeClient(trace: traceRequests) { requests.add(1, ordering: .relaxed) }
        let requestMode: FeatureRequestMode
        switch mode {
        case .snapshot: requestMode = .snapshot
        case .onDemand:
            requestMode = .onDemand(OnDemandOptions(
                bufferFactor: bufferFactor, expirationInterval: expiration.map { .milliseconds(Int64(($0 * 1000).rounded())) },
                autoRefreshOnExpiration: autoRefresh))
        case .selection: requestMode = .selection
        case .manualCache: requestMode = .manualCache
        }
        let (source, definition, maxFeatures) = (self.source, whereClause, self.maxFeatures)
        let lines: [String]
        do {
            func line(_ members: [(String, String)]) -> String {
                "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
            }
            func taken() -> Int { requests.exchange(0, ordering: .relaxed) }
            let (service, name) = try await CommandSource.locator(source).openService(client: client)
            let table = try ServiceFeatureTable(
                service: service, mode: requestMode, definitionExpression: definition,
                now: { .milliseconds(clock.load(ordering: .relaxed)) })
            _ = taken()
            try await table.load()
            var load = [("step", "\"load\""), ("requests", "\(taken())"), ("cached", "\(table.currentTable.count)")]
            // The service layer's own definition, ANDed with --where: what every feature fetched satisfies.
            if case .arcGIS(let reader) = service, !reader.info.definitionExpression.isEmpty {
                let own = reader.info.definitionExpression
                let both = definition.isEmpty ? own : "(\(own)) AND (\(definition))"
                load.append(("definitionExpression", JSONWriter.string(.string(both))))
            }
            var out = [line(load)]
            let layer = FeatureLayer(source: table, name: name)
            for step in steps {
                switch step {
                case .extent(let box):
                    let fetched = try await table.display(box)
                    let started = ContinuousClock.now
                    let displayed = try layer.displayedFeatureCount(in: box, scale: 0)
                    let elapsed = ContinuousClock.now - started
                    let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
                    let extent = "[\(box.xmin),\(box.ymin),\(box.xmax),\(box.ymax)]"
                    out.append(line([
                        ("step", "\"extent\""), ("extent", extent), ("requests", "\(taken())"), ("fetched", "\(fetched)"),
                        ("displayed", "\(displayed)"), ("local_ms", String(format: "%.3f", milliseconds)),
                        ("cached", "\(table.currentTable.count)"),
                    ]))
                case .wait(let seconds):
                    clock.add(Int64((seconds * 1000).rounded()), ordering: .relaxed)
                    try await table.refreshIfExpired()
                    out.append(line([
                        ("step", "\"wait\""), ("seconds", "\(seconds)"), ("requests", "\(taken())"), ("cached", "\(table.currentTable.count)"),
                    ]))
                case .select(let sql):
                    // Selection mode asks the service; the others select among the cached features.
                    let selected =
                        requestMode == .selection
                        ? try await table.selectFeatures(whereClause: sql).count
                        : try layer.queryFeatureCount(QueryParameters(whereClause: sql))
                    out.append(line([
                        ("step", "\"select\""), ("where", JSONWriter.string(.string(sql))), ("requests", "\(taken())"),
                        ("selected", "\(selected)"), ("cached", "\(table.currentTable.count)"),
                    ]))
                case .populate(let sql, let clear):
                    let fetched = try await table.populateFromService(whereClause: sql, clearCache: clear, maxFeatures: maxFeatures)
                    out.append(line([
                        ("step", "\"populate\""), ("where", JSONWriter.string(.string(sql))), ("clear", "\(clear)"),
                        ("requests", "\(taken())"), ("fetched", "\(fetched)"), ("cached", "\(table.currentTable.count)"),
                    ]))
                }
            }
            lines = out
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            if error is CommandFailure { throw error }
            throw CommandFailure("", error)
        }
        for line in lines { print(line) }
        #else
        throw CommandFailure("", SourceLocatorError.withoutRemoteSources(try CommandSource.locator(source)))
        #endif
    }

    /// The steps of an extents file.
    static func steps(_ text: String) throws -> [Step] {
        var steps: [Step] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let word = line.prefix { !$0.isWhitespace }
            if ["select", "populate", "populate-clear"].contains(word) {
                let sql = line.dropFirst(word.count).trimmingCharacters(in: .whitespaces)
                guard !sql.isEmpty else { throw CommandFailure("--extents line \(number + 1): '\(word)' needs a where clause") }
                steps.append(word == "select" ? .select(sql) : .populate(sql, clear: word == "populate-clear"))
                continue
            }
            if line.hasPrefix("wait ") {
                guard let seconds = Double(line.dropFirst(5).trimmingCharacters(in: .whitespaces)), seconds.isFinite, seconds >= 0, seconds <= 1e9
                else {
                    throw CommandFailure("--extents line \(number + 1): 'wait' needs a number of seconds (0 to 1e9), not \"\(line)\"")
                }
                steps.append(.wait(seconds))
                continue
            }
            let numbers = line.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard numbers.count == 4, let xmin = numbers[0], let ymin = numbers[1], let xmax = numbers[2], let ymax = numbers[3],
                [xmin, ymin, xmax, ymax].allSatisfy(\.isFinite), xmin <= xmax, ymin <= ymax
            else {
                throw CommandFailure("--extents line \(number + 1): expected XMIN,YMIN,XMAX,YMAX (finite, min ≤ max), 'wait SECONDS', 'select WHERE', 'populate WHERE' or 'populate-clear WHERE', not \"\(line)\"")
            }
            steps.append(.extent(Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)))
        }
        return steps
    }
}

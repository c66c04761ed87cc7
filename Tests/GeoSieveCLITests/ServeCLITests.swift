import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import SieveTestSupport
#endif

/// `geosieve serve` as a process: it prints where it listens, answers over a real socket, saves
/// edits into the source, and ends with status 0 on SIGTERM.
@Suite(.tags(.cli)) struct ServeCLITests {
    /// A running `geosieve serve` and the base URL it printed.
    final class Server {
        let process = Process()
        let output = Pipe()
        let errors = Pipe()
        var base = ""

        init(_ arguments: [String]) throws {
            process.executableURL = CLI.executable
            process.arguments = ["serve", "--port", "0", "--log-level", "warning"] + arguments
            process.currentDirectoryURL = CLI.packageRoot
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            // The first line: "serving http://127.0.0.1:PORT".
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line.append(chunk)
            }
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.hasPrefix("serving ") else {
                process.terminate()
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "no serving line: \(text)"])
            }
            base = String(text.dropFirst("serving ".count))
        }

        /// Sends SIGTERM and waits: the exit status.
        func stop() -> Int32 {
            process.terminate()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// The body of a request to `url`.
    static func fetch(_ url: String, form: String? = nil) async throws -> String {
        guard let address = URL(string: url) else { return "" }
        var request = URLRequest(url: address)
        if let form {
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(form.utf8)
        }
        let (data, _) = try await URLSession.shared.data(for: request)
        return String(decoding: data, as: UTF8.self)
    }

    /// A new folder holding a copy of the boroughs fixture (for servers that save edits into it).
    static func boroughsCopy() throws -> (folder: URL, file: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("boroughs.geojson")
        try FileManager.default.copyItem(at: CLI.packageRoot.appendingPathComponent("Tests/Fixtures/nybb.geojson"), to: file)
        return (folder, file)
    }

    @Test func servesEditsSavesAndStopsCleanly() async throws {
        let (folder, file) = try Self.boroughsCopy()
        defer { try? FileManager.default.removeItem(at: folder) }

        let server = try Server([file.path + ":nyc", "--allow-edits", "--token", "abc"])
        let layer = server.base + "/arcgis/rest/services/nyc/FeatureServer/0"
        let count = try await Self.fetch(layer + "/query?where=1%3D1&returnCountOnly=true&f=json")
        #expect(count == #"{"count":5}"#)
        let denied = try await Self.fetch(layer + "/deleteFeatures", form: "where=BoroCode%3D5")
        #expect(denied.contains("\"code\":499"))
        let deleted = try await Self.fetch(layer + "/deleteFeatures", form: "where=BoroCode%3D5&token=abc")
        #expect(deleted == #"{"deleteResults":[{"objectId":1,"success":true}]}"#)
        let ogc = try await Self.fetch(server.base + "/ogc/collections/nyc/items?limit=10")
        #expect(ogc.contains("\"numberMatched\":4"))
        #expect(server.stop() == 0)

        // The file holds the edit.
        let after = try CLI.run(["query", file.path, "--return", "count"])
        #expect(after.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"count":4}"#)
        let names = try CLI.run(["query", file.path, "--where", "BoroCode = 5", "--return", "count"])
        #expect(names.stdout.contains(#""count":0"#))
    }

    /// `geosieve edit` on a feature service layer: the edits are checked against the features
    /// read and sent with one applyEdits; adds get the service's object IDs; a batch that fails
    /// here is not sent.
    @Test func editSendsEditsToAFeatureService() async throws {
        let (folder, file) = try Self.boroughsCopy()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try Server([file.path + ":nyc", "--allow-edits"])
        let layer = server.base + "/arcgis/rest/services/nyc/FeatureServer/0"
        let edits = folder.appendingPathComponent("edits.json")
        // A batch with an update of a feature the service does not have: refused here, nothing sent.
        try #"{"updates":[{"attributes":{"OBJECTID":99,"BoroName":"Nowhere"}}],"deletes":[3]}"#.write(to: edits, atomically: true, encoding: .utf8)
        let refused = try CLI.run(["edit", layer, "--edits", edits.path, "--trace-requests"])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains(#""objectId":99,"success":false"#))
        #expect(!refused.stderr.contains("/applyEdits"))
        // An add, an update and a delete: one applyEdits; the add numbered by the service.
        try #"""
            {"adds":[{"attributes":{"BoroCode":6,"BoroName":"Governors Island"},"geometry":{"rings":[[[-74.02,40.69],[-74.02,40.70],[-74.01,40.70],[-74.01,40.69],[-74.02,40.69]]]}}],
             "updates":[{"attributes":{"OBJECTID":2,"BoroName":"Queens County"}}],"deletes":[3]}
            """#.write(to: edits, atomically: true, encoding: .utf8)
        let sent = try CLI.run(["edit", layer, "--edits", edits.path, "--trace-requests"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.contains(#""addResults":[{"objectId":6,"#))
        #expect(sent.stdout.contains(#""updateResults":[{"objectId":2,"success":true}]"#))
        #expect(sent.stdout.contains(#""deleteResults":[{"objectId":3,"success":true}]"#))
        #expect(sent.stderr.split(separator: "\n").filter { $0.contains("/applyEdits") }.count == 1)
        // An OGC collection is not edited; --output does not apply.
        let ogc = try CLI.run(["edit", "OAPIF:" + server.base + "/ogc#nyc", "--edits", edits.path])
        #expect(ogc.status == 2)
        #expect(ogc.stderr.contains("OGC API collections are read here, not edited"))
        let output = try CLI.run(["edit", layer, "--edits", edits.path, "--output", folder.appendingPathComponent("x.geojson").path])
        #expect(output.status == 2)
        let map = try CLI.run(["edit", server.base + "/arcgis/rest/services/nyc/MapServer/0", "--edits", edits.path])
        #expect(map.status == 2)
        #expect(map.stderr.contains("a map service's layers are read-only"))
        #expect(server.stop() == 0)
        // The file the server saved: the edits, once.
        let after = try CLI.run(["query", file.path, "--no-return-geometry", "--out-fields", "OBJECTID,BoroName", "--order-by", "OBJECTID", "--format", "csv"])
        #expect(after.stdout == "OBJECTID,BoroName\n1,Staten Island\n2,Queens County\n4,Manhattan\n5,Bronx\n6,Governors Island\n")
    }

    /// A feature service layer and an OGC API collection as SOURCEs: read whole (paged), they
    /// answer as the file they serve; `--trace-requests` shows each request.
    @Test func serviceURLsAreSources() throws {
        let server = try Server(["Tests/Fixtures/naturalearth_lowres.geojson:countries", "--max-record-count", "40"])
        defer { _ = server.stop() }
        let arguments = ["--where", "continent = 'Africa'", "--order-by", "name", "--out-fields", "name,pop_est", "--format", "csv"]
        let file = try CLI.run(["query", "Tests/Fixtures/naturalearth_lowres.geojson"] + arguments)
        #expect(file.status == 0)
        #expect(file.stdout.split(separator: "\n").count == 52)  // the header and 51 countries
        // (Esri JSON rings run clockwise, GeoJSON's counterclockwise: the same polygons, their
        // WKT starting the other way round; compared without geometry here, exactly in
        // SieveClientsTests.)
        let plain = try CLI.run(["query", "Tests/Fixtures/naturalearth_lowres.geojson", "--no-return-geometry"] + arguments)
        let layer = try CLI.run(
            ["query", server.base + "/arcgis/rest/services/countries/FeatureServer/0", "--trace-requests", "--no-return-geometry"] + arguments)
        #expect(layer.status == 0, "\(layer.stderr)")
        #expect(layer.stdout == plain.stdout)
        // The layer document, the count, then five pages of 40.
        let lines = layer.stderr.split(separator: "\n")
        #expect(lines.count == 7)
        #expect(lines.allSatisfy { $0.hasPrefix("request: ") && $0.contains(" → 200, ") })
        let collection = try CLI.run(["query", "OAPIF:" + server.base + "/ogc#countries"] + arguments)
        #expect(collection.status == 0, "\(collection.stderr)")
        #expect(collection.stdout == file.stdout)
        // No collection named, or none of that name: exit 2, one line.
        let unnamed = try CLI.run(["query", "OAPIF:" + server.base + "/ogc", "--return", "count"])
        #expect(unnamed.status == 2)
        #expect(unnamed.stderr.hasPrefix("error: OAPIF:\(server.base)/ogc: name the collection after '#'"))
        let missing = try CLI.run(["query", server.base + "/arcgis/rest/services/nothing/FeatureServer/0", "--return", "count"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("service error 404") && missing.stderr.contains("does not exist"))
    }

    /// `--mode` on the one-shot commands: on-demand reads the command's extent (buffered),
    /// selection what its where clause and geometry select; the answers are the file's.
    @Test func oneShotCommandsReadWhatTheirModeSays() throws {
        let server = try Server(["Tests/Fixtures/naturalearth_lowres.geojson:countries", "--max-record-count", "40"])
        defer { _ = server.stop() }
        let file = "Tests/Fixtures/naturalearth_lowres.geojson"
        let layer = server.base + "/arcgis/rest/services/countries/FeatureServer/0"
        let collection = "OAPIF:" + server.base + "/ogc#countries"
        func count(_ arguments: [String]) throws -> Int {
            Int(try CLI.run(["query", file] + arguments + ["--return", "count"]).stdout.filter(\.isNumber)) ?? -1
        }
        func requests(_ run: CLIResult) -> [String] { run.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("request: ") } }
        let columns = ["--order-by", "name", "--out-fields", "name,pop_est", "--no-return-geometry", "--format", "csv"]
        // On-demand: the countries meeting twice the box are read (the document, the count, a
        // page per 40), the query answers as on the file.
        let box = ["--geometry", "0,40,20,50", "--where", "pop_est > 5000000"]
        let truth = try CLI.run(["query", file] + box + columns)
        let buffered = try count(["--geometry", "-10,35,30,55"])
        for source in [layer, collection] {
            let onDemand = try CLI.run(["query", source, "--mode", "on-demand", "--trace-requests"] + box + columns)
            #expect(onDemand.status == 0, "\(onDemand.stderr)")
            #expect(onDemand.stdout == truth.stdout)
            if source == layer { #expect(requests(onDemand).count == 2 + (buffered + 39) / 40) }
        }
        // Selection: only what the where clause and geometry select is read.
        let africa = ["--where", "continent = 'Africa'"]
        let selected = try CLI.run(["query", layer, "--mode", "selection", "--trace-requests"] + africa + columns)
        #expect(selected.status == 0, "\(selected.stderr)")
        #expect(selected.stdout == (try CLI.run(["query", file] + africa + columns)).stdout)
        #expect(requests(selected).count == 2 + (try count(africa) + 39) / 40)
        let inBox = try CLI.run(["query", layer, "--mode", "selection", "--return", "count"] + box)
        #expect(inBox.stdout.filter(\.isNumber) == String(try count(box)))
        // count over a map extent, on demand: the file's answer — count counts the features
        // whose envelope meets the extent, and an ArcGIS layer is read by envelopes, so Russia
        // and Fiji, whose envelopes span the world, are read and counted.
        let view = ["--map-extent", "-20,-40,60,40", "--size", "800,800"]
        let counted = try CLI.run(["count", layer, "--mode", "on-demand"] + view)
        #expect(counted.status == 0, "\(counted.stderr)")
        #expect(counted.stdout == (try CLI.run(["count", file] + view)).stdout)
        // identify in the map extent, on demand: the file's answer (the layer titled as the file).
        let tap = ["--point", "12.5,42.5", "--map-extent", "0,40,20,50", "--size", "800,400", "--return-geometry"]
        let identified = try CLI.run(["identify", layer, "--mode", "on-demand", "--trace-requests"] + tap)
        #expect(identified.status == 0, "\(identified.stderr)")
        #expect(identified.stdout == (try CLI.run(["identify", file] + tap)).stdout)
        #expect(identified.stdout.contains("Italy"))
        #expect(requests(identified).count == 2 + (try count(["--geometry", "-10,35,30,55"]) + 39) / 40)
        // What a mode needs and does not get: exit 2, one line.
        let noExtent = try CLI.run(["query", layer, "--mode", "on-demand", "--return", "count"])
        #expect(noExtent.status == 2)
        #expect(noExtent.stderr.contains("--mode on-demand reads the features in the command's extent: give query --geometry"))
        let disjoint = try CLI.run(["query", layer, "--mode", "on-demand", "--geometry", "0,0,1,1", "--spatial-rel", "disjoint", "--return", "count"])
        #expect(disjoint.status == 2)
        let renderSelection = try CLI.run(["count", layer, "--mode", "selection"] + view)
        #expect(renderSelection.status == 2)
        #expect(renderSelection.stderr.contains("applies to query and convert, not count"))
        let fileMode = try CLI.run(["query", file, "--mode", "selection", "--return", "count"])
        #expect(fileMode.status == 2)
        #expect(fileMode.stderr.contains("applies to a feature service SOURCE"))
        let factor = try CLI.run(["query", layer, "--mode", "on-demand", "--buffer-factor", "0.5"] + box)
        #expect(factor.status == 2)
        let nocase = try CLI.run(["query", layer, "--mode", "selection", "--collation", "nocase", "--where", "name = 'italy'"])
        #expect(nocase.status == 2)
        #expect(nocase.stderr.contains("cannot be combined with --collation nocase"))
        let relate = try CLI.run(["query", layer, "--mode", "on-demand", "--geometry", "0,0,1,1", "--spatial-rel", "relate", "--relation", "FF*FF****"])
        #expect(relate.status == 2)
    }

    /// `geosieve pan` replays extents: on-demand with buffer factor 2 sends nothing while the
    /// view stays inside the buffered extent, fetches when it leaves it, and once more when the
    /// data expire; snapshot fetches everything first and nothing after.
    @Test func panShowsWhatEachModeFetches() throws {
        let server = try Server(["Tests/Fixtures/naturalearth_lowres.geojson:countries", "--max-record-count", "40"])
        defer { _ = server.stop() }
        let extents = FileManager.default.temporaryDirectory.appendingPathComponent("pan-\(UUID().uuidString).txt")
        try "# views\n0,40,20,50\n5,42,15,48\n60,20,80,30\nwait 30\n65,22,75,28\nwait 31\n65,22,75,28\n".write(to: extents, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: extents) }
        let layer = server.base + "/arcgis/rest/services/countries/FeatureServer/0"
        let onDemand = try CLI.run(["pan", layer, "--extents", extents.path, "--mode", "on-demand", "--expiration", "60"])
        #expect(onDemand.status == 0, "\(onDemand.stderr)")
        // Requests per step: none at load; a count and one page per fetch.
        let steps = onDemand.stdout.split(separator: "\n").map { line -> String in
            let text = String(line)
            let requests = text.range(of: #""requests":\d+"#, options: .regularExpression).map { String(text[$0]) } ?? "?"
            let fetched = text.contains(#""fetched":true"#) ? " fetched" : ""
            return requests + fetched
        }
        #expect(steps == [
            #""requests":0"#, #""requests":2 fetched"#, #""requests":0"#, #""requests":2 fetched"#, #""requests":0"#, #""requests":0"#,
            #""requests":0"#, #""requests":2 fetched"#,
        ])
        // The first view: the countries drawn in the box it shows (their envelopes meet it), from a
        // cache of those intersecting twice the box.
        let file = "Tests/Fixtures/naturalearth_lowres.geojson"
        let shown = try CLI.run(["query", file, "--geometry", "0,40,20,50", "--spatial-rel", "envelope-intersects", "--return", "count"])
        let cached = try CLI.run(["query", file, "--geometry", "-10,35,30,55", "--return", "count"])
        let first = onDemand.stdout.split(separator: "\n")[1]
        #expect(first.contains(#""displayed":\#(shown.stdout.filter(\.isNumber))"#))
        #expect(first.contains(#""cached":\#(cached.stdout.filter(\.isNumber))}"#))
        let snapshot = try CLI.run(["pan", layer, "--extents", extents.path, "--where", "continent = 'Europe'"])
        #expect(snapshot.status == 0)
        let europe = try CLI.run(["query", file, "--where", "continent = 'Europe'", "--return", "count"])
        // The count and one page (39 features, 40 a page).
        #expect(snapshot.stdout.hasPrefix(#"{"step":"load","requests":2,"cached":\#(europe.stdout.filter(\.isNumber))}"#))
        #expect(snapshot.stdout.split(separator: "\n").dropFirst().allSatisfy { $0.contains(#""requests":0"#) })
        let bad = try CLI.run(["pan", layer, "--extents", extents.path, "--buffer-factor", "0.5"])
        #expect(bad.status == 2)
    }

    /// A configured service layer on the command line: count and pan report its definition
    /// ANDed with theirs, count keeps its scale range unless told otherwise, render draws it
    /// at its transparency.
    @Test func commandsObeyAConfiguredServiceLayer() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-configured-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("services.yaml")
        let yaml = """
            services:
              world:
                layers:
                  - source: \(CLI.packageRoot.path)/Tests/Fixtures/naturalearth_lowres.geojson
                    name: countries
                    definitionExpression: pop_est > 10000000
                    minScale: 100000000
                    drawingInfo: {renderer: {type: simple, symbol: {type: esriSFS, style: esriSFSSolid, color: [10, 20, 30, 255]}}, transparency: 50}
            """
        try Data(yaml.utf8).write(to: config)
        let server = try Server(["--config", config.path])
        defer { _ = server.stop() }
        let layer = server.base + "/arcgis/rest/services/world/FeatureServer/0"
        let file = "Tests/Fixtures/naturalearth_lowres.geojson"
        func number(_ run: CLIResult) -> String { run.stdout.filter(\.isNumber) }
        // Europe's populous countries, counted from the file.
        let truth = try CLI.run(["query", file, "--where", "pop_est > 10000000 AND continent = 'Europe'", "--return", "count"])
        // The world 1440 pixels wide is about 1:105,000,000, beyond the layer's 1:100,000,000: nothing is drawn.
        let world = ["--map-extent", "-180,-90,180,90", "--size", "1440,720"]
        let counted = try CLI.run(["count", layer, "--definition-expression", "continent = 'Europe'"] + world)
        #expect(counted.status == 0, "\(counted.stderr)")
        #expect(
            counted.stdout == #"{"count":\#(number(truth)),"displayedCount":0,"definitionExpression":"(pop_est > 10000000) AND (continent = 'Europe')"}"# + "\n")
        let unbounded = try CLI.run(["count", layer, "--definition-expression", "continent = 'Europe'", "--min-scale", "0"] + world)
        #expect(unbounded.stdout.hasPrefix(#"{"count":\#(number(truth)),"displayedCount":\#(number(truth)),"#), "\(unbounded.stdout)")
        let extents = folder.appendingPathComponent("extents.txt")
        try "-10,35,30,60\n".write(to: extents, atomically: true, encoding: .utf8)
        let panned = try CLI.run(["pan", layer, "--extents", extents.path, "--where", "continent = 'Europe'"])
        #expect(panned.stdout.hasPrefix(#"{"step":"load","requests":2,"cached":\#(number(truth)),"definitionExpression":"(pop_est > 10000000) AND (continent = 'Europe')"}"#), "\(panned.stdout)")
        let svg = folder.appendingPathComponent("map.svg")
        let rendered = try CLI.run(["render", layer, "--map-extent", "-20,30,40,60", "--size", "600,300", "--output", svg.path])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let drawing = try String(contentsOf: svg, encoding: .utf8)
        #expect(drawing.contains(#"class="layer" opacity="0.502">"#))
        #expect(drawing.contains(##"fill="#0a141e""##))
    }

    @Test func panSelectsAndPopulatesInTheirModes() throws {
        let server = try Server(["Tests/Fixtures/naturalearth_lowres.geojson:countries", "--max-record-count", "40"])
        defer { _ = server.stop() }
        let file = "Tests/Fixtures/naturalearth_lowres.geojson"
        func count(_ arguments: [String]) throws -> Int {
            Int(try CLI.run(["query", file] + arguments + ["--return", "count"]).stdout.filter(\.isNumber)) ?? -1
        }
        func pages(_ n: Int) -> Int { (n + 39) / 40 }
        let africa = try count(["--where", "continent = 'Africa'"]), oceania = try count(["--where", "continent = 'Oceania'"])
        let shown = try count(["--where", "continent = 'Africa'", "--geometry", "0,-35,50,35", "--spatial-rel", "envelope-intersects"])
        let layer = server.base + "/arcgis/rest/services/countries/FeatureServer/0"
        let steps = FileManager.default.temporaryDirectory.appendingPathComponent("pan-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: steps) }
        // Selection: nothing at load or while panning; each selection fetches what it selects.
        try "select continent = 'Africa'\n0,-35,50,35\nselect continent = 'Oceania'\n".write(to: steps, atomically: true, encoding: .utf8)
        let selection = try CLI.run(["pan", layer, "--extents", steps.path, "--mode", "selection"])
        #expect(selection.status == 0, "\(selection.stderr)")
        let lines = selection.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines.first == #"{"step":"load","requests":0,"cached":0}"#)
        #expect(lines.dropFirst().first == #"{"step":"select","where":"continent = 'Africa'","requests":\#(1 + pages(africa)),"selected":\#(africa),"cached":\#(africa)}"#)
        #expect(lines.dropFirst(2).first?.contains(#""requests":0,"fetched":false,"displayed":\#(shown),"#) == true)
        #expect(lines.last == #"{"step":"select","where":"continent = 'Oceania'","requests":\#(1 + pages(oceania)),"selected":\#(oceania),"cached":\#(africa + oceania)}"#)
        // Manual cache: requests only when populated, at most --max-features each time.
        try "0,40,20,50\npopulate continent = 'Europe'\npopulate-clear continent = 'Asia'\nselect continent = 'Asia'\n".write(to: steps, atomically: true, encoding: .utf8)
        let manual = try CLI.run(["pan", layer, "--extents", steps.path, "--mode", "manual-cache", "--max-features", "5"])
        #expect(manual.status == 0, "\(manual.stderr)")
        #expect(manual.stdout.split(separator: "\n").dropFirst(2).map(String.init) == [
            #"{"step":"populate","where":"continent = 'Europe'","clear":false,"requests":2,"fetched":5,"cached":5}"#,
            #"{"step":"populate","where":"continent = 'Asia'","clear":true,"requests":2,"fetched":5,"cached":5}"#,
            #"{"step":"select","where":"continent = 'Asia'","requests":0,"selected":5,"cached":5}"#,
        ])
        #expect(manual.stdout.split(separator: "\n").dropFirst().first?.contains(#""requests":0,"fetched":false,"displayed":0,"#) == true)
        try "populate\n".write(to: steps, atomically: true, encoding: .utf8)
        let bare = try CLI.run(["pan", layer, "--extents", steps.path])
        #expect(bare.status == 2)
        #expect(bare.stderr.contains("'populate' needs a where clause"))
        // A clock moved beyond any use: refused, not a trap.
        try "wait 1e300\n".write(to: steps, atomically: true, encoding: .utf8)
        let forever = try CLI.run(["pan", layer, "--extents", steps.path, "--mode", "on-demand"])
        #expect(forever.status == 2)
        #expect(forever.stderr.contains("'wait' needs a number of seconds (0 to 1e9)"))
        let expiration = try CLI.run(["pan", layer, "--extents", steps.path, "--mode", "on-demand", "--expiration", "1e300"])
        #expect(expiration.status == 2)
    }

    /// `--config`: the file's services, its server section under the flags given (`--port 0`
    /// over its port 1), SIGHUP reloading it — a file that fails keeps the services served.
    @Test func aConfigurationFileIsServedAndReloadedOnSIGHUP() async throws {
        let (folder, _) = try Self.boroughsCopy()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("services.yaml")
        func write(_ layerSettings: String) throws {
            let yaml = """
                server:
                  port: 1
                  maxRecordCount: 2
                services:
                  nyc:
                    layers:
                      - source: boroughs.geojson
                        \(layerSettings)
                """
            try Data(yaml.utf8).write(to: config)
        }
        try write("definitionExpression: BoroCode <> 5")
        let server = try Server(["--config", config.path])
        let layer = server.base + "/arcgis/rest/services/nyc/FeatureServer/0"
        let count = layer + "/query?where=1%3D1&returnCountOnly=true&f=json"
        #expect(try await Self.fetch(count) == #"{"count":4}"#)
        let page = try await Self.fetch(layer + "/query?where=1%3D1&f=json")
        #expect(page.contains(#""exceededTransferLimit":true"#))

        try write("displayField: Nope")
        kill(server.process.processIdentifier, SIGHUP)
        try await Task.sleep(for: .seconds(1))
        #expect(try await Self.fetch(count) == #"{"count":4}"#)
        try write("definitionExpression: BoroCode IN (1, 2)")
        kill(server.process.processIdentifier, SIGHUP)
        var reloaded = ""
        for _ in 0..<50 where reloaded != #"{"count":2}"# {
            try await Task.sleep(for: .milliseconds(200))
            reloaded = try await Self.fetch(count)
        }
        #expect(reloaded == #"{"count":2}"#)
        #expect(server.stop() == 0)
        let log = String(decoding: server.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("services.yaml:8:"), "\(log)")
        #expect(log.contains("services.nyc.layers[0].displayField"), "\(log)")
        #expect(log.contains("the configuration was not reloaded"))

        // At start, a bad file is refused (status 2) with where and what; sources and --config
        // do not go together.
        try write("minScale: -1")
        let refused = try CLI.run(["serve", "--config", config.path, "--port", "0"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("services.yaml:8:19: services.nyc.layers[0].minScale: must be 0 to"), "\(refused.stderr)")
        let both = try CLI.run(["serve", "--config", config.path, "Tests/Fixtures/nybb.geojson"])
        #expect(both.status != 0)
    }

    @Test func badSourcesAndOptionsFailBeforeServing() throws {
        let missing = try CLI.run(["serve", "Tests/Fixtures/no-such-file.geojson", "--port", "0"])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("error: "))
        let twice = try CLI.run(["serve", "Tests/Fixtures/nybb.geojson", "Tests/Fixtures/nybb.geojson", "--port", "0"])
        #expect(twice.status == 2)
        #expect(twice.stderr.contains("SOURCE:NAME"))
        let port = try CLI.run(["serve", "Tests/Fixtures/nybb.geojson", "--port", "70000"])
        #expect(port.status == 2)
        let stdin = try CLI.run(["serve", "-", "--allow-edits", "--port", "0"])
        #expect(stdin.status != 0)
        for (option, value, message) in [
            ("--idle-timeout", "0", "idle timeout"), ("--header-timeout", "-1", "header read timeout"), ("--max-connections", "0", "connection bound"),
            ("--inline-row-limit", "-1", "inline query row limit"), ("--inline-row-limit", "1000001", "inline query row limit"),
        ] {
            let refused = try CLI.run(["serve", "Tests/Fixtures/nybb.geojson", "--port", "0", "\(option)=\(value)"])
            #expect(refused.status != 0, "\(option) \(value)")
            #expect(refused.stderr.contains(message), "\(option) \(value): \(refused.stderr)")
        }
    }

    /// `--inline-row-limit 0` runs every query on the engine's threads: the answers are the same.
    @Test func everyQueryOnTheEnginesThreadsAnswersAlike() async throws {
        let pooled = try Server(["Tests/Fixtures/nybb.geojson:nyc", "--inline-row-limit", "0"])
        defer { _ = pooled.stop() }
        let inline = try Server(["Tests/Fixtures/nybb.geojson:nyc"])
        defer { _ = inline.stop() }
        for query in ["where=1%3D1&returnCountOnly=true", "where=BoroName%3D%27Bronx%27&outFields=*&f=json"] {
            let path = "/arcgis/rest/services/nyc/FeatureServer/0/query?" + query
            let answer = try await Self.fetch(pooled.base + path)
            #expect(answer == (try await Self.fetch(inline.base + path)), "\(query)")
            #expect(!answer.contains("error"), "\(query): \(answer)")
        }
    }

    /// `--header-timeout`, `--idle-timeout` and `--max-connections` reach the server: a
    /// keep-alive connection is closed once idle for the timeout, a connection that sends no
    /// request head too.
    @Test func connectionTimeoutsAreOptions() async throws {
        let server = try Server(["Tests/Fixtures/nybb.geojson:nyc", "--header-timeout", "1", "--idle-timeout", "1", "--max-connections", "4"])
        defer { _ = server.stop() }
        let port = Int(server.base.split(separator: ":").last ?? "") ?? 0
        let request = "GET /ogc/collections/nyc HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let (idle, silent) = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(LoopbackProbe.Result, LoopbackProbe.Result), any Error>) in
            // Blocking reads, on a thread of their own.
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    (try LoopbackProbe.run(port: port, send: request), try LoopbackProbe.run(port: port, send: nil))
                })
            }
        }
        #expect(idle.answer.hasPrefix("HTTP/1.1 200"))
        #expect(idle.secondsUntilClosed.map { $0 >= 0.8 && $0 < 4 } == true, "\(String(describing: idle.secondsUntilClosed))")
        #expect(silent.answer.isEmpty)
        #expect(silent.secondsUntilClosed.map { $0 >= 0.8 && $0 < 4 } == true, "\(String(describing: silent.secondsUntilClosed))")
    }
}

/// A loopback TCP client that sends one request (or nothing) and times how long the server
/// keeps the connection open after answering.
enum LoopbackProbe {
    struct Result: Sendable {
        /// What the server sent.
        var answer: String
        /// Seconds from the end of the answer (or from connecting, without a request) to the
        /// server's close; `nil` when it did not close within 6 s.
        var secondsUntilClosed: Double?
    }

    static func run(port: Int, send request: String?) throws -> Result {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var last = Date()
        if let request {
            let bytes = Array(request.utf8)
            guard bytes.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == bytes.count else { throw POSIXError(.EPIPE) }
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(6)
        while deadline.timeIntervalSinceNow > 0 {
            var descriptors = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptors, 1, 100) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 {
                return Result(answer: String(decoding: answer, as: UTF8.self), secondsUntilClosed: -last.timeIntervalSinceNow)
            }
            answer += buffer[0..<count]
            last = Date()
        }
        return Result(answer: String(decoding: answer, as: UTF8.self), secondsUntilClosed: nil)
    }
}

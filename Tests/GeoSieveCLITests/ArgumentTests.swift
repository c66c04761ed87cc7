import Foundation
import Testing
import SieveTestSupport

/// Option values that start with "-", and the files named on the command line: the exit
/// status rule (1: cannot be read; 2: bad content), the size limit of argument files, pipes.
@Suite("geosieve arguments and input files", .tags(.cli))
struct ArgumentTests {
    static let countries = "Tests/Fixtures/naturalearth_lowres.geojson"
    static let cities = "Tests/Fixtures/naturalearth_cities.geojson"

    /// Runs geosieve expecting failure with `status` and exactly one line on stderr; returns it.
    static func failure(_ arguments: [String], status: Int32, stdin: Data? = nil) throws -> String {
        let result = try run(arguments, stdin: stdin)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty, "\(arguments)")
        #expect(result.stderr.hasPrefix("error: "), "\(arguments): \(result.stderr)")
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "one line: \(result.stderr)")
        return result.stderr.trimmingCharacters(in: .newlines)
    }

    /// Runs geosieve expecting success; returns stdout.
    static func success(_ arguments: [String], stdin: Data? = nil) throws -> String {
        let result = try run(arguments, stdin: stdin)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        #expect(result.stderr.isEmpty, "\(arguments): \(result.stderr)")
        return result.stdout
    }

    /// Runs geosieve with `stdin` (when given) on its standard input.
    static func run(_ arguments: [String], stdin: Data?) throws -> CLIResult {
        guard let stdin else { return try CLI.run(arguments) }
        // Written from another thread: the tool may answer before reading it all.
        return try CLI.run(arguments) { descriptor in CLI.write(descriptor, prefix: [UInt8](stdin)) }
    }

    /// A fresh temporary directory, removed by `body`'s caller through the returned cleanup.
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-args-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    // MARK: Values starting with "-"

    @Test func relateTakesWesternLongitudes() throws {
        // Times Square in a box around it: written with a space, as before only with "=".
        let spaced = try Self.success(["relate", "--a", "-73.98,40.75", "--b", "-74,40,-73,41"])
        let equals = try Self.success(["relate", "--a=-73.98,40.75", "--b=-74,40,-73,41"])
        #expect(spaced == equals)
        #expect(spaced.contains(#""within":true"#))
        #expect(spaced.contains(#""relate":"0FFFFF212""#))
        let wkt = try Self.success(["relate", "--a", "-73.98,40.75", "--b", "POINT (-73.98 40.75)"])
        #expect(wkt.contains(#""equals":true"#))
    }

    @Test func queryTakesValuesStartingWithAMinus() throws {
        // The spatial filter: the same answer as the "=" form, and New York in it.
        let box = ["-80,30,-70,45"]
        let spaced = try Self.success(["query", Self.cities, "--geometry"] + box + ["--return", "ids"])
        let equals = try Self.success(["query", Self.cities, "--geometry=" + box[0], "--return", "ids"])
        #expect(spaced == equals)
        let newYork = try Self.success(["query", Self.cities, "--where", "name = 'New York'", "--return", "ids"])
        let newYorkID = try #require(newYork.split(separator: "[").last?.split(separator: "]").first.map(String.init))
        #expect(spaced.contains(newYorkID))
        // A where clause starting with "-": every city (their fid is at least 0).
        let all = try Self.success(["query", Self.cities, "--where", "-1 < fid", "--return", "count"])
        #expect(all == "{\"count\":243}\n")
        // Negative object IDs match nothing, and are no longer "missing values".
        let ids = try Self.success(["query", Self.cities, "--object-ids", "-1,-2,3", "--return", "ids"])
        #expect(ids == "{\"objectIdFieldName\":\"OBJECTID\",\"objectIds\":[3]}\n")
        // Values that reach the command and are then rejected by it, with their own message.
        #expect(try Self.failure(["query", Self.cities, "--geometry", "1,1", "--in-sr", "-3857"], status: 2)
            == "error: --in-sr must be a positive WKID, not -3857")
        #expect(try Self.failure(["query", Self.cities, "--out-fields", "-name"], status: 2)
            == #"error: unknown field "-name" in --out-fields (did you mean "name"?)"#)
        #expect(try Self.failure(["query", Self.cities, "--order-by", "-name"], status: 2)
            == #"error: --order-by: unknown field "-name" in orderByFields (did you mean "name"?)"#)
        let relation = try Self.failure(
            ["query", Self.cities, "--geometry", "0,0,1,1", "--spatial-rel", "relate", "--relation", "-********"], status: 2)
        #expect(relation.contains("-********"))
        #expect(try Self.failure(["query", Self.cities, "--schema", "-fields.json"], status: 1)
            == "error: --schema: cannot read -fields.json: no such file")
    }

    /// `query` and `identify` take the same pair of geometry flags; the defaults differ
    /// (geometries in query results, none in identify hits).
    @Test func returnGeometryFlagsAreThoseOfBothCommands() throws {
        let query = [Self.cities, "--where", "name = 'Paris'", "--format", "esrijson"]
        #expect(try Self.success(["query"] + query).contains(#""geometry":{"#))
        #expect(try Self.success(["query"] + query + ["--return-geometry"]).contains(#""geometry":{"#))
        #expect(!(try Self.success(["query"] + query + ["--no-return-geometry"]).contains(#""geometry""#)))
        let identify = ["identify", Self.cities, "--point", "2.35,48.86", "--map-extent", "-10,40,10,60", "--size", "100,100"]
        #expect(!(try Self.success(identify).contains(#""geometry""#)))
        #expect(!(try Self.success(identify + ["--no-return-geometry"]).contains(#""geometry""#)))
        #expect(try Self.success(identify + ["--return-geometry"]).contains(#""geometry":{"#))
        #expect(try Self.failure(["query", Self.cities, "--no-geometry"], status: 2).contains("--no-geometry"))
    }

    @Test func identifyTakesValuesStartingWithAMinus() throws {
        let spaced = try Self.success([
            "identify", Self.cities, "--point", "-74,40.7", "--tolerance", "10", "--map-extent", "-80,30,-70,50", "--size",
            "100,100", "--where", "-1 < fid",
        ])
        #expect(spaced.contains(#""value":"New York""#))
        #expect(try Self.failure(
            ["identify", Self.cities, "--point", "0,0", "--map-extent", "-1,-1,1,1", "--size", "1,1", "--max-results", "-1"], status: 2)
            == "error: --max-results must not be negative, not -1")
        #expect(try Self.failure(["identify", Self.cities, "--point", "0,0", "--map-extent", "-1,-1,1,1", "--size", "-1,1"], status: 2)
            == "error: --size: width and height must be positive, not -1,1")
    }

    // MARK: Files that cannot be read: status 1

    @Test func unreadableArgumentFilesExitWithStatus1() throws {
        #expect(try Self.failure(["relate", "--a", "@no/such/file.wkt", "--b", "1,1"], status: 1)
            == "error: --a: cannot read no/such/file.wkt: no such file")
        #expect(try Self.failure(["relate", "--a", "1,1", "--b", "@Tests"], status: 1)
            == "error: --b: cannot read Tests: is a directory")
        #expect(try Self.failure(["query", Self.cities, "--geometry", "@Tests/Fixtures"], status: 1)
            == "error: --geometry: cannot read Tests/Fixtures: is a directory")
        #expect(try Self.failure(["query", Self.cities, "--schema", "Tests"], status: 1)
            == "error: --schema: cannot read Tests: is a directory")
        #expect(try Self.failure(["identify", "no-such.geojson", "--point", "0,0", "--map-extent", "-1,-1,1,1", "--size", "1,1"], status: 1)
            == "error: cannot read no-such.geojson: no such file")
    }

    @Test(.enabled(if: geteuid() != 0, "root reads every file, whatever its permissions"))
    func filesWithoutPermissionExitWithStatus1() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("secret.wkt")
        try Data("POINT (1 1)".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: file.path)
        #expect(try Self.failure(["relate", "--a", "@" + file.path, "--b", "1,1"], status: 1)
            == "error: --a: cannot read \(file.path): permission denied")
    }

    // MARK: The size limit of argument files

    /// A sparse 2 GiB file (no disk space used) is refused from its size, before any of it is
    /// read: the message gives the exact size, which only the size check knows.
    @Test func aTwoGigabyteArgumentFileIsRefusedBeforeReading() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let big = directory.appendingPathComponent("big.wkt")
        #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: 2 << 30)
        try handle.close()
        let expected = "the file \(big.path) is 2147483648 bytes; argument files are limited to 64 MiB (67108864 bytes)"
        #expect(try Self.failure(["relate", "--a", "@" + big.path, "--b", "1,1"], status: 2) == "error: --a: " + expected)
        #expect(try Self.failure(["relate", "--a", "1,1", "--b", "@" + big.path], status: 2) == "error: --b: " + expected)
        #expect(try Self.failure(["query", Self.cities, "--geometry", "@" + big.path], status: 2) == "error: --geometry: " + expected)
        #expect(try Self.failure(["query", Self.cities, "--schema", big.path], status: 2) == "error: --schema: " + expected)
        // One byte over the limit.
        let over = directory.appendingPathComponent("over.wkt")
        #expect(FileManager.default.createFile(atPath: over.path, contents: nil))
        let overHandle = try FileHandle(forWritingTo: over)
        try overHandle.truncate(atOffset: 64 << 20 + 1)
        try overHandle.close()
        #expect(try Self.failure(["relate", "--a", "@" + over.path, "--b", "1,1"], status: 2)
            == "error: --a: the file \(over.path) is 67108865 bytes; argument files are limited to 64 MiB (67108864 bytes)")
    }

    /// A device that never ends is read only up to the limit.
    @Test func devZeroIsReadOnlyUpToTheLimit() throws {
        let expected = "the file /dev/zero holds more than 64 MiB; argument files are limited to 64 MiB (67108864 bytes)"
        #expect(try Self.failure(["relate", "--a", "@/dev/zero", "--b", "1,1"], status: 2) == "error: --a: " + expected)
        #expect(try Self.failure(["query", Self.cities, "--schema", "/dev/zero"], status: 2) == "error: --schema: " + expected)
    }

    @Test func argumentFilesMustBeUTF8() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let latin1 = directory.appendingPathComponent("latin1.json")
        try Data([0x7B, 0x22, 0x78, 0xE9, 0x22]).write(to: latin1)  // {"xé" in Latin-1
        #expect(try Self.failure(["relate", "--a", "@" + latin1.path, "--b", "1,1"], status: 2)
            == "error: --a: the file \(latin1.path) is not UTF-8 text (byte offset 3)")
        // A byte order mark is skipped.
        let bom = directory.appendingPathComponent("bom.wkt")
        try Data([0xEF, 0xBB, 0xBF] + Array("POINT (1 1)".utf8)).write(to: bom)
        #expect(try Self.success(["relate", "--a", "@" + bom.path, "--b", "1,1"]).contains(#""equals":true"#))
    }

    // MARK: Pipes

    @Test func argumentFilesAndSourcesMayBePipes() throws {
        let relate = try Self.success(["relate", "--a", "@/dev/stdin", "--b", "0,0,2,2"], stdin: Data("POINT (1 1)".utf8))
        #expect(relate.contains(#""within":true"#))
        let cities = try Data(contentsOf: CLI.packageRoot.appendingPathComponent(Self.cities))
        let count = try Self.success(["query", "/dev/stdin", "--return", "count"], stdin: cities)
        #expect(count == "{\"count\":243}\n")
        // A piped source cut one byte before its end.
        let cut = cities.prefix(cities.count - 2)
        let line = try Self.failure(["query", "/dev/stdin", "--return", "count"], status: 2, stdin: cut)
        #expect(line.hasPrefix("error: /dev/stdin: invalid JSON at line 1, column "))
        #expect(line.contains("(byte offset \(cut.count)): "))
        #expect(line.hasSuffix(": unexpected end of input"))
    }

    /// A where clause too long for a command line (Linux holds 128 KiB per argument) comes from
    /// a file: an IN list of the even numbers up to 200,000, of which the countries' `fid`s
    /// 1 … 177 hold 88.
    @Test func whereClausesMayComeFromFiles() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("where.sql")
        let ids = (1...200_000).filter { $0 % 2 == 0 }.map(String.init).joined(separator: ", ")
        try Data("fid IN (\(ids))".utf8).write(to: file)
        #expect(try Self.success(["query", Self.countries, "--where", "@" + file.path, "--return", "count"]) == "{\"count\":88}\n")
        let identify = try Self.success([
            "identify", Self.countries, "--point", "-60,-15", "--tolerance", "0", "--map-extent", "-180,-90,180,90",
            "--size", "360,180", "--where", "@" + file.path,
        ])
        // Brazil (fid 30, even) lies under the tap; with an odd-only list it would not be found.
        #expect(identify.contains(#""objectId":30,"#))
        let missing = try Self.failure(["query", Self.countries, "--where", "@" + directory.appendingPathComponent("none").path], status: 1)
        #expect(missing.hasPrefix("error: --where: cannot read "))
    }

    // MARK: Loading through the command line

    @Test func aFeatureCollectionCutBeforeItsEndIsAnError() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = try String(contentsOf: CLI.packageRoot.appendingPathComponent(Self.cities), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(text.hasSuffix("]}"))
        let file = directory.appendingPathComponent("cut.geojson")
        try Data(text.dropLast().utf8).write(to: file)
        let line = try Self.failure(["query", file.path, "--return", "count"], status: 2)
        // Positions count Unicode scalars.
        let characters = text.unicodeScalars.count
        // Positions count Unicode scalars; the byte offset counts bytes (one line here).
        let bytes = text.utf8.count
        #expect(line == "error: \(file.path): invalid JSON at line 1, column \(characters) (byte offset \(bytes - 1)): unexpected end of input")
        try Data((text + "]").utf8).write(to: file)
        let trailing = try Self.failure(["query", file.path, "--return", "count"], status: 2)
        #expect(
            trailing
                == "error: \(file.path): invalid JSON at line 1, column \(characters + 1) (byte offset \(bytes)): unexpected ']' after the JSON value")
    }

    @Test func tooManyPropertiesIsAnError() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let features = (0..<2_500).map { #"{"type":"Feature","geometry":null,"properties":{"p\#($0)":\#($0)}}"# }
        let file = directory.appendingPathComponent("sparse.geojson")
        try Data((#"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}").utf8).write(to: file)
        let line = try Self.failure(["query", file.path, "--return", "count"], status: 2)
        #expect(line.hasPrefix("error: \(file.path): too many fields at line 1, column "))
        #expect(line.hasSuffix(#" in features[1999] (object ID 2000): the property "p1999" (the feature's property number 1) would be distinct property number 2000; a table holds at most 1999 fields"#))
    }

    @Test func echoedValuesAreCut() throws {
        let long = String(repeating: "7", count: 50_000) + "x"
        let ids = try Self.failure(["query", Self.cities, "--object-ids", "1," + long], status: 2)
        #expect(ids == "error: --object-ids: \"\(String(repeating: "7", count: 80))…\" is not an integer object ID")
        let point = try Self.failure(
            ["identify", Self.cities, "--point", long, "--map-extent", "-1,-1,1,1", "--size", "1,1"], status: 2)
        #expect(point.count < 200)
        let newline = try Self.failure(["query", Self.cities, "--object-ids", "1\n2"], status: 2)
        #expect(newline == #"error: --object-ids: "1\n2" is not an integer object ID"#)
    }

    @Test func identifyRejectsAnOverflowingMapExtent() throws {
        let line = try Self.failure(
            ["identify", Self.cities, "--point", "0,0", "--map-extent", "-1e308,-1,1e308,1", "--size", "100,100"], status: 2)
        #expect(line == "error: invalid query: the map extent's width (xmax − xmin) must be finite, not inf")
    }

    @Test func pagingAtTheEndsOfInt() throws {
        let max = String(Int.max)
        let page = try Self.success(["query", Self.cities, "--offset", max, "--limit", max, "--out-fields", "name"])
        #expect(page == "{\"type\":\"FeatureCollection\",\"features\":[]}\n")
        let rest = try Self.success(["query", Self.cities, "--offset", "242", "--limit", max, "--no-return-geometry", "--out-fields", "OBJECTID"])
        #expect(rest == #"{"type":"FeatureCollection","features":[{"type":"Feature","id":243,"geometry":null,"properties":{"OBJECTID":243}}]}"# + "\n")
        #expect(try Self.failure(["query", Self.cities, "--offset", "9223372036854775808"], status: 2).contains("--offset"))
        #expect(try Self.failure(["query", Self.cities, "--limit", String(Int.min)], status: 2)
            == "error: --limit must not be negative, not -9223372036854775808")
    }
}

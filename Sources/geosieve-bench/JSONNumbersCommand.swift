import ArgumentParser
import Foundation
import SieveGeometry
import SieveJSON

/// `geosieve-bench json-numbers`: the JSON reader's number parsing, on generated coordinates.
struct JSONNumbersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "json-numbers",
        abstract: "JSON number parsing: the scanner alone, String + Double(String), and whole documents.",
        discussion: """
            Generates --points point features with shortest-printed (mostly 15–17-digit) \
            coordinates and three attributes, as a GeoJSON FeatureCollection and as a bare array \
            of the 2 × --points coordinates, and prints one JSON line per measurement: \
            "json.scan_numbers" (the number scanner over the array, no tree built), \
            "json.string_double" (each number made a String and read with Double(String), as \
            16–17-digit numbers were read before the allocation-free conversion), \
            "json.parse_numbers" (the tree reader on the array) and "json.parse_document" (the \
            tree reader on the FeatureCollection); "ns_per_number" and "mb_per_s" follow.
            """
    )

    @Option(help: "Point features to generate.")
    var points: Int = 1_000_000

    @Option(help: "Seed of the generator (same seed, same text).")
    var seed: UInt64 = 0x6E75_6D70_6172_7365

    @Option(help: "Measured rounds per measurement, after one warm-up round.")
    var rounds: Int = 5

    func validate() throws {
        guard points >= 1, rounds >= 1 else { throw ValidationError("--points and --rounds must be at least 1") }
    }

    func run() throws {
        var random = SplitMix64(seed: seed)
        var document = "{\"type\":\"FeatureCollection\",\"features\":[\n"
        var numbers = "["
        document.reserveCapacity(points * 160)
        numbers.reserveCapacity(points * 40)
        for i in 0..<points {
            let x = random.nextUnit() * 360 - 180
            let y = random.nextUnit() * 180 - 90
            if i > 0 {
                document += ",\n"
                numbers += ","
            }
            document += "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(x),\(y)]},"
            document += "\"properties\":{\"ID\":\(i),\"POP\":\(random.next() % 1_000_000),\"AREA\":\(random.nextUnit() * 1000)}}"
            numbers += "\(x),\(y)"
        }
        document += "\n]}\n"
        numbers += "]"
        let documentBytes = Array(document.utf8)
        let numberBytes = Array(numbers.utf8)
        let count = 2 * points

        let scan = try numberBytes.withUnsafeBufferPointer { buffer throws(JSONNumberError) in
            try measure { () throws(JSONNumberError) -> Int in
                var i = 1
                var finite = 0
                while i < buffer.count - 1 {
                    let (number, end) = try JSONReader.scanNumber(buffer, at: i)
                    if number.double.isFinite { finite += 1 }
                    i = end + 1
                }
                return finite
            }
        }
        emit(line("json.scan_numbers", scan, count: count, bytes: numberBytes.count))

        let strings = numberBytes.withUnsafeBufferPointer { buffer in
            measure { () -> Int in
                var i = 1
                var finite = 0
                while i < buffer.count - 1 {
                    var end = i
                    while end < buffer.count, buffer[end] != UInt8(ascii: ","), buffer[end] != UInt8(ascii: "]") { end += 1 }
                    let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[i..<end]), as: UTF8.self)
                    if Double(text)?.isFinite == true { finite += 1 }
                    i = end + 1
                }
                return finite
            }
        }
        emit(line("json.string_double", strings, count: count, bytes: numberBytes.count))

        let parsedNumbers = try measure { () throws(GeometryError) -> Int in
            guard case .array(let values, _) = try JSONReader.parse(bytes: numberBytes) else { return 0 }
            return values.count
        }
        emit(line("json.parse_numbers", parsedNumbers, count: count, bytes: numberBytes.count))

        let parsedDocument = try measure { () throws(GeometryError) -> Int in
            guard case .object(let object, _) = try JSONReader.parse(bytes: documentBytes),
                case .array(let features, _)? = object["features"]
            else { return 0 }
            return features.count
        }
        emit(line("json.parse_document", parsedDocument, count: points, bytes: documentBytes.count))
    }

    /// Runs `body` once to warm up, then `rounds` times, and returns the timings with the last
    /// answer (which the result line reports, so that the work cannot be optimized away).
    private func measure<E: Error>(_ body: () throws(E) -> Int) throws(E) -> (TimingSummary, Int) {
        var answer = try body()
        var samples: [UInt64] = []
        for _ in 0..<rounds {
            let (result, nanoseconds) = try MonotonicClock.measure(body)
            answer = result
            samples.append(nanoseconds)
        }
        return (TimingSummary(nanoseconds: samples), answer)
    }

    private func line(_ workload: String, _ measured: (TimingSummary, Int), count: Int, bytes: Int) -> ResultLine {
        let (timing, answer) = measured
        let nanosecondsPerNumber = timing.medianMilliseconds * 1e6 / Double(count)
        let megabytesPerSecond = Double(bytes) / timing.medianMilliseconds / 1000
        return ResultLine(
            workload: workload, timing: timing, rows: count, result: answer, sizeName: "numbers",
            extras: [
                ("ns_per_number", ResultLine.milliseconds(nanosecondsPerNumber)),
                ("mb_per_s", ResultLine.milliseconds(megabytesPerSecond)),
            ])
    }
}

import Foundation
import SieveGeometry
import SieveTestSupport
import Testing

/// A by-hand timing of number parsing, not a test: it runs only when the environment variable
/// `GEOSIEVE_NUMBER_BENCH` is set (to the number of point features, e.g. `1000000`), in a
/// release build:
///
///     GEOSIEVE_NUMBER_BENCH=1000000 swift test -c release -Xswiftc -enable-testing \
///         --filter NumberParsingBenchmark
///
/// It prints the median of five runs of: `JSONReader.scanNumber` over the coordinates alone (no
/// tree built), the same numbers each made a `String` and read with `Double(String)` (the way most
/// 16–17-digit numbers were read before the allocation-free conversion), and `JSONReader.parse`
/// on a generated GeoJSON FeatureCollection of point features with shortest-printed (mostly
/// 15–17-digit) coordinates and on a bare array of the same coordinates. Nothing is asserted
/// about time.
@Suite struct NumberParsingBenchmark {
    @Test func parseGeneratedPoints() throws {
        guard let setting = ProcessInfo.processInfo.environment["GEOSIEVE_NUMBER_BENCH"], let count = Int(setting),
            count > 0
        else { return }
        var random = SeededGenerator(seed: 0x6E75_6D70_6172_7365)
        var document = "{\"type\":\"FeatureCollection\",\"features\":[\n"
        var numbers = "["
        document.reserveCapacity(count * 160)
        numbers.reserveCapacity(count * 40)
        for i in 0..<count {
            let x = random.uniform(-180, 180), y = random.uniform(-90, 90)
            if i > 0 {
                document += ",\n"
                numbers += ","
            }
            document += "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(x),\(y)]},"
            document += "\"properties\":{\"ID\":\(i),\"POP\":\(random.int(1_000_000)),\"AREA\":\(random.uniform(0, 1000))}}"
            numbers += "\(x),\(y)"
        }
        document += "\n]}\n"
        numbers += "]"
        let documentBytes = Array(document.utf8)
        let numberBytes = Array(numbers.utf8)
        func median(_ body: () throws -> Void) rethrows -> Double {
            var times: [Double] = []
            for _ in 0..<5 {
                let start = DispatchTime.now().uptimeNanoseconds
                try body()
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            return times.sorted()[2]
        }
        var checksum = 0.0
        let documentMs = try median {
            let value = try JSONReader.parse(bytes: documentBytes)
            if case .object(let object, _) = value, case .array(let features, _)? = object["features"] {
                checksum += Double(features.count)
            }
        }
        let numbersMs = try median {
            if case .array(let values, _) = try JSONReader.parse(bytes: numberBytes) {
                checksum += values[0].doubleValue ?? 0
            }
        }
        // The scanner alone, and what the reader did before for numbers beyond Clinger's fast path
        // (most 16–17-digit coordinates): a String, then Double(String).
        let scanMs = try numberBytes.withUnsafeBufferPointer { buffer in
            try median {
                var i = 1
                while i < buffer.count - 1 {
                    let (number, end) = try JSONReader.scanNumber(buffer, at: i)
                    checksum += number.double
                    i = end + 1
                }
            }
        }
        let stringMs = numberBytes.withUnsafeBufferPointer { buffer in
            median {
                var i = 1
                while i < buffer.count - 1 {
                    var end = i
                    while end < buffer.count, buffer[end] != UInt8(ascii: ","), buffer[end] != UInt8(ascii: "]") { end += 1 }
                    let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[i..<end]), as: UTF8.self)
                    checksum += Double(text) ?? 0
                    i = end + 1
                }
            }
        }
        print(
            "number-parsing benchmark: scanNumber alone on \(2 * count) coordinates: median \(scanMs) ms "
                + "(\(scanMs * 1e6 / Double(2 * count)) ns/number, \(Double(numberBytes.count) / scanMs / 1000) MB/s); "
                + "String + Double(String) per number: median \(stringMs) ms (\(stringMs * 1e6 / Double(2 * count)) ns/number)")
        print(
            "number-parsing benchmark: \(count) point features, document \(documentBytes.count) bytes: "
                + "median \(documentMs) ms (\(Double(documentBytes.count) / documentMs / 1000) MB/s); "
                + "\(2 * count) coordinates alone \(numberBytes.count) bytes: median \(numbersMs) ms "
                + "(\(Double(numberBytes.count) / numbersMs / 1000) MB/s) [checksum \(checksum)]")
    }
}

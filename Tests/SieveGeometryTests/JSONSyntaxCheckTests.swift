import Foundation
import SieveTestSupport
import Testing

@testable import SieveGeometry
@testable import SieveJSON

/// The incremental syntax check against the reader it guards: it must accept every document the
/// reader accepts, however the input is cut into pieces, and where it stops, the reader must
/// fail too.
@Suite("JSON syntax check")
struct JSONSyntaxCheckTests {
    /// The offset of the first bad byte of `text`, fed in pieces cut at `cuts`.
    static func firstBadByte(_ bytes: [UInt8], cuts: [Int] = []) -> Int? {
        var check = JSONSyntaxCheck()
        var start = 0
        for end in (cuts.filter { $0 > 0 && $0 < bytes.count }.sorted() + [bytes.count]) where end >= start {
            let bad = bytes[start..<end].withUnsafeBufferPointer { check.check($0) }
            if let bad { return bad }
            start = end
        }
        return nil
    }

    static func firstBadByte(_ text: String) -> Int? { firstBadByte(Array(text.utf8)) }

    @Test func acceptsJSONAndSequences() {
        for text in [
            "", "  ", "null", "true", "false", "0", "-0", "-0.5e+10", "12E-3", #""a\"\\\/\b\f\n\r\t\u00e9""#, "[]", "{}",
            #"{"a":[1,{"b":null}],"c":"d"}"#, "\u{FEFF}{}", "{}\n{}", "\u{1E}{\"type\":\"Feature\"}\n\u{1E}{}", "[1, 2 ,3]",
            "{\"é\":\"日本\"}",
        ] {
            #expect(Self.firstBadByte(text) == nil, "\(text.debugDescription)")
        }
    }

    @Test func stopsAtTheFirstBadByte() {
        let cases: [(String, Int)] = [
            ("\0", 0), ("{\"a\":1\0", 6), ("[1,]", 3), ("{,}", 1), ("{\"a\" 1}", 5), ("01", 1), ("1.", 2), ("1.e5", 2),
            ("-", 1), ("--1", 1), ("1e", 2), ("tru", 3), ("trux", 3), ("nul l", 3), ("\"a\u{01}\"", 2), ("\"\\x\"", 2),
            ("\"\\u12g4\"", 5), ("]", 0), ("{\"a\":1]", 6), ("[1}", 2), ("{\"a\":1,}", 7), ("NaN", 0), ("'a'", 0),
            (String(repeating: "[", count: JSONReader.maximumDepth + 1), JSONReader.maximumDepth), ("\u{FEFF}\u{FEFF}", 3),
        ]
        for (text, offset) in cases {
            // The check never reads past the end of its input: cases ending early stop there.
            #expect(Self.firstBadByte(text + " ") == offset, "\(text.debugDescription)")
        }
    }

    /// Random documents, mutated, cut into random pieces: the check accepts what the reader
    /// accepts, the answer does not depend on the cuts, and where the check stops the reader
    /// fails.
    @Test func agreesWithTheReader() {
        var generator = SeededGenerator(state: 2026)
        let alphabet = Array(#"{}[]:,"\ 0123456789.eE+-tfnrulase\#u{1E}"#.utf8) + [0, 0x01, 0xC3, 0xA9, 0xEF, 0xBB, 0xBF]
        var rejected = 0
        for round in 0..<20_000 {
            var bytes = Array(Self.randomDocument(&generator, depth: 0).utf8)
            for _ in 0..<generator.int(0...3) where !bytes.isEmpty {
                let at = generator.int(0...bytes.count - 1)
                switch generator.int(0...2) {
                case 0: bytes[at] = alphabet[generator.int(0...alphabet.count - 1)]
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet[generator.int(0...alphabet.count - 1)], at: at)
                }
            }
            let whole = Self.firstBadByte(bytes)
            let cuts = (0..<generator.int(0...4)).map { _ in generator.int(0...max(0, bytes.count)) }
            #expect(Self.firstBadByte(bytes, cuts: cuts) == whole, "round \(round)")
            let parsed = bytes.withUnsafeBufferPointer { buffer in Result { () throws(GeometryError) in try JSONReader.parse(buffer) } }
            if case .success = parsed {
                #expect(whole == nil, "round \(round): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            }
            if let whole {
                rejected += 1
                // The reader, given the bytes up to the bad one, fails too.
                let prefix = Array(bytes[...whole])
                let failed = prefix.withUnsafeBufferPointer { buffer in (try? JSONReader.parse(buffer)) == nil }
                #expect(failed, "round \(round)")
            }
        }
        #expect(rejected > 2_000)
    }

    static func randomDocument(_ generator: inout SeededGenerator, depth: Int) -> String {
        switch generator.int(0...(depth > 3 ? 4 : 6)) {
        case 0: return ["null", "true", "false"][generator.int(0...2)]
        case 1: return ["0", "-1", "12.5", "1e3", "-0.25E-2", "123456789012345678901"][generator.int(0...5)]
        case 2: return [#""""#, #""a b""#, #""\u00e9\n""#, "\"é\"", #""\"""#][generator.int(0...4)]
        case 3, 4: return generator.chance(50) ? "[]" : "{}"
        case 5:
            return "[" + (0..<generator.int(1...3)).map { _ in randomDocument(&generator, depth: depth + 1) }.joined(separator: ", ") + "]"
        default:
            return "{" + (0..<generator.int(1...3)).enumerated().map { index, _ in "\"k\(index)\": " + randomDocument(&generator, depth: depth + 1) }
                .joined(separator: ",") + "}"
        }
    }
}

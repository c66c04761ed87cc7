import Foundation
import Testing
@testable import SieveGeometry
@testable import SieveJSON

@Suite("JSON reader and writer")
struct JSONReaderTests {
    // MARK: Values

    @Test func scalars() throws {
        #expect(try JSONReader.parse("null") == .null())
        #expect(try JSONReader.parse(" true ") == .bool(true))
        #expect(try JSONReader.parse("false") == .bool(false))
        #expect(try JSONReader.parse("\"a\"") == .string("a"))
        #expect(try JSONReader.parse("-12").numberValue?.int64 == -12)
    }

    @Test func containersKeepOrderAndPositions() throws {
        let value = try JSONReader.parse(#"{"b": [1, {"c": null}], "a": "x"}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["b", "a"])
        #expect(value.position == 1)
        let b = try #require(value["b"])
        #expect(b.position == 7)
        let elements = try #require(b.arrayValue)
        #expect(elements.map(\.position) == [8, 11])
        #expect(elements[1]["c"]?.position == 17)
        #expect(value["a"]?.position == 30)
        #expect(value["a"] == .string("x"))
        #expect(value["missing"] == nil)
    }

    @Test func duplicateKeysAreAnError() throws {
        // The second occurrence is reported, at its opening quote.
        #expect(throws: GeometryError(.invalidJSON, #"duplicate key "k" in an object (member names must be unique)"#, position: 10)) {
            try JSONReader.parse(#"{"k": 1, "k": 2}"#)
        }
        // Nested objects each have their own names; the same name in sibling objects is fine.
        let nested = try JSONReader.parse(#"{"a": {"a": 1, "b": {"a": 2}}, "b": [{"a": 3}, {"a": 4}]}"#)
        #expect(nested["a"]?["b"]?["a"]?.numberValue?.int64 == 2)
        #expect(throws: GeometryError(.invalidJSON, #"duplicate key "a" in an object (member names must be unique)"#, position: 25)) {
            try JSONReader.parse(#"{"x": [{"a": 1, "b": 2, "a": 3}]}"#)
        }
        // An escaped name is compared after decoding: "\u0061" is "a".
        #expect(throws: GeometryError.self) { try JSONReader.parse(#"{"a": 1, "\u0061": 2}"#) }
        // Positions count characters: "é" before the repeated key is one character.
        #expect(throws: GeometryError(.invalidJSON, #"duplicate key "é" in an object (member names must be unique)"#, position: 10)) {
            try JSONReader.parse(#"{"é": 1, "é": 2}"#)
        }
    }

    @Test func namesAreComparedByteForByte() throws {
        // "é" precomposed (U+00E9) and decomposed (e + U+0301) are canonically equivalent, so
        // Swift's == calls them equal; as JSON names they are different (RFC 8259 §8.3).
        let value = try JSONReader.parse("{\"\u{E9}\": 1, \"e\u{301}\": 2, \"\u{212A}\": 3}")
        #expect(value.objectValue?.count == 3)
        #expect(value["\u{E9}"]?.numberValue?.int64 == 1)
        #expect(value["e\u{301}"]?.numberValue?.int64 == 2)
        // KELVIN SIGN is canonically equivalent to "K", but is not the name "K".
        #expect(value["K"] == nil)
        #expect(value["\u{212A}"]?.numberValue?.int64 == 3)
    }

    @Test func duplicateKeysInLargeObjects() throws {
        // Beyond the linear scan (64 members) the names go through a hash set: the duplicate
        // is still found, at the right member, and 20,000 distinct names are accepted.
        let names = (0..<20_000).map { "\"k\($0)\": \($0)" }
        let big = try JSONReader.parse("{" + names.joined(separator: ",") + "}")
        #expect(big.objectValue?.count == 20_000)
        #expect(big["k19999"]?.numberValue?.int64 == 19_999)
        let text = "{" + names.joined(separator: ",") + #", "k777": 0}"#
        let position = text.count - #""k777": 0}"#.count + 1
        #expect(throws: GeometryError(.invalidJSON, #"duplicate key "k777" in an object (member names must be unique)"#, position: position)) {
            try JSONReader.parse(text)
        }
        // A long repeated name is cut in the message.
        let long = String(repeating: "x", count: 200)
        #expect(throws: GeometryError(.invalidJSON, "duplicate key \"\(String(repeating: "x", count: 80))…\" in an object (member names must be unique)", position: 207)) {
            try JSONReader.parse("{\"\(long)\":1,\"\(long)\":2}")
        }
    }

    @Test func positionsCountCharactersNotBytes() throws {
        // "é" is 2 bytes, "😀" 4 bytes: each is one character.
        let value = try JSONReader.parse(#"["é😀", 7]"#)
        #expect(value.arrayValue?[1].position == 8)
        #expect(throws: GeometryError(.invalidJSON, "expected ',' or ']', found ':'", position: 7)) {
            try JSONReader.parse(#"["é😀" : 7]"#)
        }
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let value = try JSONReader.parse(bytes: [0xEF, 0xBB, 0xBF] + Array("[1]".utf8))
        #expect(value == .array([.integer(1)]))
        #expect(value.position == 2)
    }

    // MARK: Strings

    @Test(arguments: [
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{c}\n\r\t"),
        (#""\u0041\u00e9\u20AC""#, "Aé€"),
        (#""\ud83d\ude00""#, "😀"),
        (#""caf\u00e9 ☕ 𝄞""#, "café ☕ 𝄞"),
        (#""""#, ""),
        (#""\u0000""#, "\u{0}"),
    ])
    func escapes(input: String, expected: String) throws {
        #expect(try JSONReader.parse(input) == .string(expected))
    }

    @Test func invalidUTF8IsAnError() {
        let inputs: [[UInt8]] = [
            [0x22, 0xC3, 0x22],  // truncated 2-byte sequence
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // encoded surrogate
            [0x22, 0xC0, 0xAF, 0x22],  // overlong
            [0x22, 0xFF, 0x22],
            [0x22, 0x61, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
        ]
        for bytes in inputs {
            #expect(throws: GeometryError.self) { try JSONReader.parse(bytes: bytes) }
        }
        #expect(throws: GeometryError(.invalidJSON, "invalid UTF-8", position: 3)) {
            try JSONReader.parse(bytes: [0x22, 0x61, 0xF4, 0x90, 0x80, 0x80, 0x22])
        }
    }

    // MARK: Numbers

    @Test(arguments: [
        ("0", 0.0, true, Int64(0)),
        ("-0", -0.0, true, Int64(0)),
        ("889953", 889953, true, Int64(889953)),
        ("889953.0", 889953, false, nil),
        ("8.89953e5", 889953, false, nil),
        ("1E2", 100, false, nil),
        ("-1.5e-3", -0.0015, false, nil),
        ("9223372036854775807", Double(Int64.max), true, Int64.max),
        ("-9223372036854775808", -9223372036854775808, true, Int64.min),
        ("9223372036854775808", 9223372036854775808, true, nil),
        ("-16.067132663642447", -16.067132663642447, false, nil),
        ("0.1", 0.1, false, nil),
        ("2.2250738585072014e-308", 2.2250738585072014e-308, false, nil),
        ("1.7976931348623157e308", 1.7976931348623157e308, false, nil),
        ("5e-324", .leastNonzeroMagnitude, false, nil),
        ("1e999", .infinity, false, nil),
    ] as [(String, Double, Bool, Int64?)])
    func numberLexicalKinds(text: String, double: Double, isInteger: Bool, int64: Int64?) throws {
        let number = try #require(try JSONReader.parse(text).numberValue)
        #expect(number.double == double)
        #expect(number.double.sign == double.sign)
        #expect(number.isIntegerLiteral == isInteger)
        #expect(number.int64 == int64)
    }

    @Test func numbersMatchTheStandardLibrary() throws {
        // Many decimal forms, including ones beyond the fast path.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let value = Double.random(in: -1e6...1e6, using: &generator)
            for text in ["\(value)", String(format: "%.17g", value), String(format: "%.6f", value)] {
                let parsed = try #require(try JSONReader.parse(text).doubleValue)
                #expect(parsed == Double(text), "\(text)")
            }
        }
    }

    // MARK: Errors

    @Test(arguments: [
        ("", 1, "unexpected end of input"),
        ("[1, 2", 6, "unexpected end of input"),
        ("[1 2]", 4, "expected ',' or ']', found '2'"),
        ("[1,]", 4, "expected a value, found ']'"),
        (#"{"a":1,}"#, 8, "expected a string key, found '}'"),
        (#"{"a" 1}"#, 6, "expected ':', found '1'"),
        (#"{"a":1 "b":2}"#, 8, "expected ',' or '}', found '\"'"),
        (#"["abc"#, 2, "unterminated string"),
        ("// x\n1", 1, "expected a value, found '/'"),
        ("NaN", 1, "expected a value, found 'N'"),
        ("[Infinity]", 2, "expected a value, found 'I'"),
        ("01", 1, "invalid number: leading zeros are not allowed"),
        ("-", 2, "unexpected end of input"),
        ("-a", 2, "expected a digit, found 'a'"),
        ("1.", 3, "unexpected end of input"),
        ("1.e5", 3, "invalid number: expected a digit after '.'"),
        ("[1e+]", 5, "invalid number: expected a digit in the exponent"),
        ("tru", 4, "unexpected end of input"),
        ("[trve]", 2, "invalid literal, expected 'true'"),
        ("1 2", 3, "unexpected '2' after the JSON value"),
        (#"{"a":"\x"}"#, 7, "invalid escape '\\x'"),
        (#"["\u12G4"]"#, 3, "invalid \\u escape: expected 4 hexadecimal digits"),
        (#"["\ud800"]"#, 3, "lone high surrogate in \\u escape; expected a low surrogate \\uDC00-\\uDFFF to follow"),
        (#"["\udc00"]"#, 3, "lone low surrogate in \\u escape"),
        (#"["\ud800\u0041"]"#, 3, "high surrogate in \\u escape is not followed by a low surrogate"),
        ("[\"a\tb\"]", 4, "control character U+0009 must be escaped in a string"),
        ("'a'", 1, "expected a value, found '''"),
        ("[1]\u{0}", 4, "unexpected byte 0x00 after the JSON value"),
    ] as [(String, Int, String)])
    func syntaxErrors(input: String, position: Int, message: String) {
        #expect(throws: GeometryError(.invalidJSON, message, position: position)) {
            try JSONReader.parse(input)
        }
    }

    /// Every proper prefix of a document whose value is an object or an array is an error (a
    /// truncated file never reads as a smaller value), and so is anything but white space
    /// after the value.
    @Test func everyPrefixIsAnError() throws {
        let document = #"{"s":"a\"b\u00e9\ud83d\ude00é😀","n":[-0,1.5e-3,12,-9223372036854775808,1E+2],"t":true,"f":false,"z":null,"o":{"a":[[],{}]}}"#
        let bytes = Array(document.utf8)
        #expect(try JSONReader.parse(bytes: bytes).objectValue?.count == 6)
        let allowed: Set<String> = ["unexpected end of input", "unterminated string", "invalid UTF-8"]
        for end in 0..<bytes.count {
            do {
                let value = try JSONReader.parse(bytes: bytes[..<end])
                Issue.record("the prefix of \(end) bytes read as \(value)")
            } catch {
                #expect(allowed.contains(error.message), "prefix of \(end) bytes: \(error.message)")
                #expect(error.kind == .invalidJSON)
            }
        }
        // Cut before the final "}": the end of input, one past the last character.
        let cut = document.dropLast()
        #expect(throws: GeometryError(.invalidJSON, "unexpected end of input", position: cut.count + 1)) {
            try JSONReader.parse(String(cut))
        }
        // Trailing content after a complete value.
        for (suffix, found) in [("x", "'x'"), ("{}", "'{'"), ("\u{0}", "byte 0x00"), (" ,", "','"), ("\n}", "'}'")] {
            #expect(throws: GeometryError.self, "suffix \(suffix)") { try JSONReader.parse(document + suffix) }
            do {
                _ = try JSONReader.parse(document + suffix)
            } catch {
                #expect(error.message == "unexpected \(found) after the JSON value")
            }
        }
        #expect(try JSONReader.parse(document + " \n\t\r").objectValue?.count == 6)
    }

    @Test func depthLimit() throws {
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(try JSONReader.parse(ok).arrayValue?.count == 1)
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(throws: GeometryError(.invalidJSON, "arrays and objects nest deeper than 512", position: 513)) {
            try JSONReader.parse(tooDeep)
        }
        let bomb = String(repeating: "[", count: 100_000)
        #expect(throws: GeometryError.self) { try JSONReader.parse(bomb) }
        let objectBomb = String(repeating: #"{"a":"#, count: 100_000)
        #expect(throws: GeometryError.self) { try JSONReader.parse(objectBomb) }
    }

    // MARK: Writer

    @Test func writerIsCompactAndEscapes() throws {
        var object = JSONObject()
        object.append("s", .string("a\"b\\c\n\u{1}é"))
        object.append("i", .integer(-3))
        object.append("d", .double(0.5))
        object.append("w", .double(180))
        object.append("n", .null())
        object.append("a", .array([.bool(true), .bool(false), .double(.nan)]))
        let text = JSONWriter.string(.object(object))
        #expect(text == #"{"s":"a\"b\\c\n\u0001é","i":-3,"d":0.5,"w":180,"n":null,"a":[true,false,null]}"#)
    }

    @Test func writerRoundTripsReaderOutput() throws {
        let text = #"{"a":[1,-0,2.5,1e-05,"x\u001fy",{"b":null}],"c":true,"big":123456789012345678901}"#
        let value = try JSONReader.parse(text)
        #expect(JSONWriter.string(value) == #"{"a":[1,-0,2.5,1e-05,"x\u001fy",{"b":null}],"c":true,"big":1.2345678901234568e+20}"#)
        let again = try JSONReader.parse(JSONWriter.string(value))
        #expect(again["a"] == value["a"])
    }

    @Test func parsesLargeFixtureQuickly() throws {
        let data = try fixtureData("nybb.geojson")
        let clock = ContinuousClock()
        var value: JSONValue = .null()
        let elapsed = try clock.measure {
            value = try JSONReader.parse(bytes: data)
        }
        #expect(value["features"]?.arrayValue?.count == 5)
        // Generous for debug builds; a release build takes a few tens of milliseconds.
        #expect(elapsed < .seconds(5))
    }
}

import Foundation
import SieveTestSupport
import Testing

@testable import SieveFormats

/// The Snappy block codec of the Parquet reader and writer (the system library behind GeoSieve's
/// checks of the block's length): hand-assembled blocks whose bytes
/// are reasoned out from the format, blocks of the reference compressor (through pyarrow), our
/// blocks read by pyarrow, round trips of seeded inputs, and malformed or random bytes, which
/// must throw and never crash.
@Suite("Snappy")
struct SnappyTests {
    // MARK: Helpers

    /// `bytes` decompressed.
    static func decompress(_ bytes: [UInt8], expectedCount: Int? = nil) throws(FileFormatError) -> [UInt8] {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(FileFormatError) in try Snappy.decompress(raw, expectedCount: expectedCount) }
        }
        return try result.get()
    }

    /// `bytes` compressed.
    static func compress(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { Snappy.compress($0) }
    }

    /// The error decompressing `bytes` throws, or `nil` when it does not.
    static func failure(_ bytes: [UInt8], expectedCount: Int? = nil) -> FileFormatError? {
        do {
            _ = try decompress(bytes, expectedCount: expectedCount)
            return nil
        } catch {
            return error
        }
    }

    /// The bytes of a hex text, ignoring white space.
    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8.filter { !($0 == 0x20 || $0 == 0x0A) })
        return stride(from: 0, to: digits.count - 1, by: 2).map { index in
            func value(_ digit: UInt8) -> UInt8 { digit <= 0x39 ? digit - 0x30 : (digit | 0x20) - 0x61 + 10 }
            return value(digits[index]) << 4 | value(digits[index + 1])
        }
    }

    /// The preamble of a block of `count` bytes: little-endian base-128.
    static func varint(_ count: Int) -> [UInt8] {
        var value = count
        var bytes: [UInt8] = []
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        return bytes + [UInt8(value)]
    }

    /// The format's copy rule, the slow way: one byte at a time from `offset` back.
    static func naiveCopy(_ output: inout [UInt8], offset: Int, length: Int) {
        for _ in 0 ..< length { output.append(output[output.count - offset]) }
    }

    /// Inputs of `count` bytes of a given compressibility: 0 random, 1 four symbols, 2 words of
    /// a small vocabulary, 3 long runs, 4 a random piece of 1 KiB repeated with a few changes.
    static func sample(_ count: Int, kind: Int, seed: UInt64) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 64)
        switch kind {
        case 0:
            while bytes.count < count { bytes.append(UInt8(truncatingIfNeeded: random.next())) }
        case 1:
            while bytes.count < count { bytes.append(UInt8(0x41 + random.int(4))) }
        case 2:
            let words = ["POINT", "(", ")", " ", "-73.", "40.", "road", "river", "city", "null", ",", "\n", "1", "7", "0"]
            while bytes.count < count { bytes += Array(words[random.int(words.count)].utf8) }
        case 3:
            while bytes.count < count {
                bytes += [UInt8](repeating: UInt8(truncatingIfNeeded: random.next()), count: random.int(1 ... 300))
            }
        default:
            let piece = (0 ..< 1024).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            while bytes.count < count {
                var copy = piece
                for _ in 0 ..< 3 { copy[random.int(copy.count)] = UInt8(truncatingIfNeeded: random.next()) }
                bytes += copy
            }
        }
        return Array(bytes.prefix(count))
    }

    /// 100 KB of repeated text.
    static let repetitiveText = Array(String(repeating: "GeoSieve reads GeoParquet. ", count: 4000).utf8)

    /// Bytes `((i / 2000) * 7 + i % 300) % 256` for i < `count`.
    static func formula(_ count: Int) -> [UInt8] {
        (0 ..< count).map { UInt8(truncatingIfNeeded: ($0 / 2000 * 7 + $0 % 300) % 256) }
    }

    /// The low bytes of 300 draws of `SeededGenerator(seed: 42)`.
    static let random300 = {
        var random = SeededGenerator(seed: 42)
        return (0 ..< 300).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }()

    /// 50 doubles from −73.9 by 0.001, little-endian.
    static let doubles: [UInt8] = (0 ..< 50).flatMap { index in
        withUnsafeBytes(of: (-73.9 + Double(index) * 0.001).bitPattern.littleEndian) { Array($0) }
    }

    // MARK: Hand-assembled blocks

    @Test("a literal, an empty block and a multi-byte preamble")
    func literals() throws {
        // Length 5; tag (5 − 1) << 2 = 0x10: a literal of 5 bytes.
        #expect(try Self.decompress([0x05, 0x10] + Array("hello".utf8)) == Array("hello".utf8))
        #expect(try Self.decompress([0x05, 0x10] + Array("hello".utf8), expectedCount: 5) == Array("hello".utf8))
        #expect(try Self.decompress([0x00]) == [])
        #expect(try Self.decompress([0x00], expectedCount: 0) == [])
        // 300 = 0b10_0101100: 0xAC 0x02; two literals of 150 (tag 60: length − 1 in 1 byte).
        let text = (0 ..< 300).map { UInt8($0 % 200) }
        let block: [UInt8] = [0xAC, 0x02, 0xF0, 149] + text[..<150] + [0xF0, 149] + text[150...]
        #expect(try Self.decompress(block) == text)
    }

    @Test("long literals: lengths in 1, 2, 3 and 4 following bytes")
    func longLiterals() throws {
        let bytes = (0 ..< 70_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        // Tag 60 (0xF0), 1 byte: 100 − 1 = 0x63.
        #expect(try Self.decompress(Self.varint(100) + [0xF0, 0x63] + bytes[..<100]) == Array(bytes[..<100]))
        // Tag 61 (0xF4), 2 bytes: 1000 − 1 = 0x03E7.
        #expect(try Self.decompress(Self.varint(1000) + [0xF4, 0xE7, 0x03] + bytes[..<1000]) == Array(bytes[..<1000]))
        // Tag 62 (0xF8), 3 bytes: 70 000 − 1 = 0x01116F.
        #expect(try Self.decompress(Self.varint(70_000) + [0xF8, 0x6F, 0x11, 0x01] + bytes) == bytes)
        // Tag 63 (0xFC), 4 bytes, not the shortest form (allowed): 5 − 1 = 4.
        #expect(try Self.decompress([0x05, 0xFC, 0x04, 0x00, 0x00, 0x00] + Array("world".utf8)) == Array("world".utf8))
        // Tag 59 (0xEC): the longest literal in the tag, 60 bytes.
        #expect(try Self.decompress(Self.varint(60) + [0xEC] + bytes[..<60]) == Array(bytes[..<60]))
    }

    @Test("copies with 1-, 2- and 4-byte offsets, overlapping ones repeating their pattern")
    func copies() throws {
        // "ab" (tag 0x04), then a 1-byte-offset copy, length 6 (bits 2…4 = 2), offset 2: 0x09 0x02.
        #expect(try Self.decompress([0x08, 0x04, 0x61, 0x62, 0x09, 0x02]) == Array("abababab".utf8))
        // "x", then offset 1, length 11 (bits 2…4 = 7): 0x1D 0x01: a run of 12.
        #expect(try Self.decompress([0x0C, 0x00, 0x78, 0x1D, 0x01]) == [UInt8](repeating: 0x78, count: 12))
        // "0123456789", then offset 10, length 10 with a 2-byte offset: tag 2 | 9 << 2 = 0x26.
        let digits = Array("0123456789".utf8)
        #expect(try Self.decompress([0x14, 0x24] + digits + [0x26, 0x0A, 0x00]) == digits + digits)
        // The same with a 4-byte offset: tag 3 | 9 << 2 = 0x27.
        #expect(try Self.decompress([0x14, 0x24] + digits + [0x27, 0x0A, 0x00, 0x00, 0x00]) == digits + digits)
        // A 1-byte-offset copy of offset 300 = 1 << 8 + 44, length 11: tag 1 | 7 << 2 | 1 << 5 = 0x3D.
        let text = (0 ..< 300).map { UInt8($0 % 251) }
        let block: [UInt8] = Self.varint(311) + [0xF4, 0x2B, 0x01] + text + [0x3D, 0x2C]
        #expect(try Self.decompress(block) == text + text[..<11])
        // "abc", a 2-byte-offset copy of 64 from 3 back (tag 63 << 2 | 2 = 0xFE), then "!".
        let run = try Self.decompress([0x44, 0x08, 0x61, 0x62, 0x63, 0xFE, 0x03, 0x00, 0x00, 0x21])
        #expect(run == Array((String(repeating: "abc", count: 22) + "a!").utf8))
        // A copy 65 535 back with a 2-byte offset (from byte 1), then 65 536 back with a 4-byte
        // one (from byte 4).
        let far = (0 ..< 65_536).map { UInt8(truncatingIfNeeded: $0 * 13 + $0 >> 9) }
        let farBlock: [UInt8] = Self.varint(65_536 + 8) + [0xFC, 0xFF, 0xFF, 0x00, 0x00] + far + [0x0E, 0xFF, 0xFF, 0x0F, 0x00, 0x00, 0x01, 0x00]
        #expect(try Self.decompress(farBlock) == far + far[1 ..< 5] + far[4 ..< 8])
    }

    /// Every offset from 1 to 40 with every length from 1 to 64, with and without room after
    /// the copy (the fast and exact paths), against the rule applied byte by byte.
    @Test("copies of every short offset and length match the byte-by-byte rule")
    func copyRule() throws {
        let prefix = (0 ..< 40).map { UInt8(0x30 + $0) }
        for offset in 1 ... 40 {
            for length in 1 ... 64 {
                for tail in [0, 1, 15, 16, 40] {
                    var expected = prefix
                    Self.naiveCopy(&expected, offset: offset, length: length)
                    let trailer = (0 ..< tail).map { UInt8(0xA0 + $0) }
                    expected += trailer
                    var block = Self.varint(expected.count) + [0x9C] + prefix  // literal of 40: (39 << 2)
                    block += [UInt8(2 | (length - 1) << 2), UInt8(offset), 0]
                    if tail > 0 { block += [UInt8((tail - 1) << 2)] + trailer }
                    #expect(try Self.decompress(block) == expected, "offset \(offset) length \(length) tail \(tail)")
                }
            }
        }
    }

    // MARK: Blocks of the reference compressor (pyarrow)

    @Test("short texts compressed by pyarrow")
    func referenceTexts() throws {
        // pa.compress(b"Snappy is a compression library by Google.", codec="snappy"): one literal.
        let plain = Array("Snappy is a compression library by Google.".utf8)
        let block = Self.hex("2aa4536e61707079206973206120636f6d7072657373696f6e206c69627261727920627920476f6f676c652e")
        #expect(try Self.decompress(block) == plain)
        #expect(try Self.decompress(block, expectedCount: 42) == plain)
        // A sentence said twice: a literal, then copies with 1- and 2-byte offsets.
        let twice = Array("the quick brown fox jumps over the lazy dog; the quick brown fox jumps over the lazy dog!".utf8)
        let twiceBlock = Self.hex("59b074686520717569636b2062726f776e20666f78206a756d7073206f76657220746865206c617a7920646f673b20010e9a2d000021")
        #expect(try Self.decompress(twiceBlock) == twice)
    }

    @Test("doubles, random bytes and 66 000 bytes across a 64 KiB boundary compressed by pyarrow")
    func referenceBinary() throws {
        // 50 doubles −73.9 + i × 0.001 (400 bytes).
        let doubles = Self.hex(
            """
            9003f0619a999999997952c0a8c64b37897952c0b7f3fdd4787952c0c520b072687952c0d34d6210587952c0e27a14ae477952c0f0a7c64b377952c0
            fed478e9267952c00d022b87167952c01b2fdd24067952c0295c8fc2f57852c038894160e57852c046b60151f4290152c054e3a59bc47852c0631058
            39b47852c0713d0ad7a37852c07f6abc74937852c08e976e12837852c09cc420b0727852c0aaf1d24d627852c0b91e85eb517852c0c74b3789417852
            c0d578e926317852c0e4a59bc4207852c0f2d24d62107852c000000000007852c00f2db29def7752c01d5a643bdf7752c02b8716d9ce7752c03ab4c8
            76be7752c048e17a14ae7752c0560e2db29d7752c0653bdf4f8d7752c0736891ed7c7752c08195438b6c7752c090c2f5285c7752c09eefa7c64b7752
            c0ac1c5a643b7752c0bb490c022b7752c0c976be9f1a7752c0d7a3703d0a7752c0e6d022dbf97652c0f4fdd478e97652c0022b8716d97652c0115839
            b4c87652c01f85eb51b87652c02db29defa77652c03cdf4f8d977652c04a0c022b877652c05839b4c8767652c0
            """)
        #expect(try Self.decompress(doubles, expectedCount: 400) == Self.doubles)
        // 300 random bytes (the low byte of each draw of SplitMix64 seeded 42): 1 literal.
        let random = Self.hex(
            """
            ac02f42b0195035294f2065da4d5aebfbee6b7dcf2751d0760e899d5915011351f0743755e9dde55431141408422398c1133caaad76eef4108245b35
            4b01bab0ba168646aabeb35416bd66ca5bf26c029d2f4e3c1bfddd84c353fa5af4025a17c773d01e75770ccb987a3f00625a5f62b843d4e9f69e1dd9
            4d502279634ef6364e0d2f6c090566f7fc01d5adceaede7dfc7a9258a57fc259b012d5ab5f6f8b1c893a0193ed79deb25c39cbc343295f3d2a1a7518
            2a541045ef79e769752da9a6912477a8b8450e38c719f1d6f5187dfefdd05142f2d12ba311d38be1e83c950bfcc7785611aee5478a7dd28c4d6bc02a
            aac0f874781395ef700b8111bf1af453acd44f8ceec35f3ee8c09278f87b34c3a2f97409251ab784488d81440d081a506d32514deb01c038a7dbdc10
            839c7e0688
            """)
        #expect(try Self.decompress(random) == Self.random300)
        // ((i / 2000) × 7 + i % 300) % 256 for i < 66 000 (4066 bytes compressed).
        let formula = Self.hex(
            """
            d08304f40501000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435
            363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f7071
            72737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacad
            aeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9
            eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff000102030405960001fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c
            01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c018e2c0104cfd0fe01076a01
            07002c160108fe2d08fe2d08fe2d08fe2d08922d08fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c012d2cfe2e0ffe2e0fe62e0fed011a2e10fe5a10fe5a10fe5a
            10fe5a10765a10fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c
            01fe2c01fe2c01fe2c01fe2c01fe2c01a62c01fe5b17fe5b17fe5b17fe5b175a5b17360107003a165b18fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            8e2c0104e4e5fe5c1e165c1e5201071a5c1ffe881ffe881ffe881ffe881f3e881ffe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c016e2c01fe8926fe8926928926
            6e0107044849128927feb527feb527feb527feb52722b527fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fa2c01002a8e0106004ffeb62efeb62efeb62e6eb62e8a01072d00
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c018e2c0110f9fafbfcfdb6b735a601071ab736fee336fee336fee336eae336fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01c22c010c9c9d9e9ffee43dfee43d2ee43dc20107045d5e12e43e00381eb5261ab41f1a87171a5a0f1a59080d2c046465fe103ffe103ffe103f
            16103ffe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c014e2c01fe1146fe1146fe1146b21146de01071a0108fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c018e2c01feb83d
            8eb83d0046fe2e0ffe2e0ffe2e0ffe2e0f722e0f1a2d08086b6c6d0e3e4ffe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe3f55ea3f55fa2e0fed011a1147fe
            6b56fe6b56fe6b567a6b56fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe
            2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01a22c010054fe5c1efe5c1efe5c1efe5c1e3a5c1e362e0f1a2d080079166c5efe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c018e2c01feb83d8eb83d005bfe8926fe8926fe8926fe89261e89266e2d08048081129966fe2c01fe2c01fe2c01fe2c01fe
            2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe
            2c010cc6c7c8c9fe9a6c869a6cfe2f16322f161a2e0fed011a1147fec66dfec66dfec66d26c66dfe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01f62c0100693a881e52
            2d07088e8f90fec774fec7746ac774fe01078601072d00fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe
            2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c018e2c01feb83d8eb83d00703a881e365a0fed2d
            0095fef47cfef47c56f47cfe2d08a22d082d00fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c
            01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c010cdbdcdddefef58332f583fe0107be01071a11470077fe5a10fe
            5a10fe5a10fe5a10725a101a2d08fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe
            2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c018a2c01fe228cfe228cb6228cfe2d08da2d0804a3a412228dfe2c01fe2c01fe2c01fe2c01fe
            2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe
            2c01fe2c018e2c01feb83d8eb83d00851eb526fe5b17fe5b17fe5b17fe5b17365b171a2e0f1a2d0800aa164f95fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            14f0f1f2f3f4f5d6509bfe2e0ff62e0fed011a1147fe7c9cfe7c9c7e7c9cfe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c019e2c0100933a5c1d362e0eed2d10b8
            b9babbbcfe7da3ba7da3fe0107fe01072e01072d00fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c018e2c01feb83d8eb83d009a565b16fe2d08fe2d08fe
            2d08fe2d08362d0814bfc0c1c2c3c4fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01ee2c01252cfeabb3feabb3feabb31eabb300a1fe5a10fe5a10fe5a10fe5a10725a
            101a2d081a3d48fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c
            01fe2c01fe2c01fe2c01fe2c01fe2c016e2c0100a83a881e1a5b1636010604cdcefed7b38ed7b31aaaab1a7da3fec87cfec87c4ac87cfe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c018e2c01feb83d8eb83d00affe5b17fe5b17fe5b17fe5b17565b171a2e0f362d09fe2c01fe2c01fe2c01fe2c01fe2c01fe
            2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe
            06cbfe06cbfe06cb1e06cb00b6fe5a10fe5a10fe5a10fe5a10725a100cd4d5d6d72632ccfe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c016e2c01feb62efeb62efeb62eeeb62e
            16b62ea65b18fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c018e2c01feb83d8eb83d00c4565b16fe6b56fe6b56fe6b561e6b56fee33732e337fe2c01fe
            2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe
            2c01fe2c01fe2c01fe2c01fe61e2fe61e2fe61e21e61e200cb3a881efe2d08fe2d08fe2d08fe2d08522d081a3d48fe2c01fe2c01fe2c01fe2c01fe2c
            01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c016e2c0100d2
            3a5c1d04e2e3fe32cb8e32cbfe7eabfe7eabd67eabfe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01
            fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c018e2c01fe8c3c8e8c3c00d9fe2e0ffe2e0ffe2e0ffe
            2e0f722e0f04f7f82e04bdfe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe
            2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01febcf9febcf9febcf91ebcf900e0fe5a10fe5a10fe5a10fe5a10725a103631c5fe2c
            01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c01fe2c012e2c01f0bc68696a6b6c6d6e6f70
            7172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabac
            adaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8
            e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff000102030405060708090a0be0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8
            4a2c00f05b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142
            434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f6061626364656667fe2c01fe2c018e2c01
            """)
        #expect(formula.count == 4066)
        #expect(try Self.decompress(formula, expectedCount: 66_000) == Self.formula(66_000))
    }

    // MARK: Interoperability with pyarrow

    /// Whether `python3` can import pyarrow.
    static let pyArrowAvailable: Bool = {
        guard let python = executableOnPath("python3") else { return false }
        return (try? run(python, ["-c", "import pyarrow"]).status) == 0
    }()

    /// Decompresses each `(name, block, count)` with pyarrow; the decompressed bytes by name.
    static func pyArrowDecompress(_ blocks: [(String, [UInt8], Int)], in folder: URL) throws -> [String: [UInt8]] {
        let python = try #require(executableOnPath("python3"))
        var arguments = ["-c", """
            import sys, pyarrow as pa
            for path, size in zip(sys.argv[1::2], sys.argv[2::2]):
                data = open(path, "rb").read()
                out = pa.decompress(data, decompressed_size=int(size), codec="snappy", asbytes=True)
                open(path + ".out", "wb").write(out)
            """]
        for (name, block, count) in blocks {
            let path = folder.appendingPathComponent(name + ".snappy").path
            try Data(block).write(to: URL(fileURLWithPath: path))
            arguments += [path, String(count)]
        }
        let (status, output) = try run(python, arguments)
        try #require(status == 0, "pyarrow failed: \(output)")
        var results: [String: [UInt8]] = [:]
        for (name, _, _) in blocks {
            results[name] = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name + ".snappy.out")))
        }
        return results
    }

    /// Compresses each `(name, bytes)` with pyarrow; the blocks by name.
    static func pyArrowCompress(_ inputs: [(String, [UInt8])], in folder: URL) throws -> [String: [UInt8]] {
        let python = try #require(executableOnPath("python3"))
        var arguments = ["-c", """
            import sys, pyarrow as pa
            for path in sys.argv[1:]:
                out = pa.compress(open(path, "rb").read(), codec="snappy", asbytes=True)
                open(path + ".snappy", "wb").write(out)
            """]
        for (name, bytes) in inputs {
            let path = folder.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            arguments.append(path)
        }
        let (status, output) = try run(python, arguments)
        try #require(status == 0, "pyarrow failed: \(output)")
        var results: [String: [UInt8]] = [:]
        for (name, _) in inputs {
            results[name] = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name + ".snappy")))
        }
        return results
    }

    /// Inputs for the interoperability tests, by name.
    static func interopInputs() -> [(String, [UInt8])] {
        var inputs: [(String, [UInt8])] = [
            ("empty", []), ("one", [0x2A]), ("text", Array("Snappy is a compression library by Google.".utf8)),
            ("repetitive", repetitiveText), ("random300", random300), ("doubles", doubles),
        ]
        // (i × 31 + i / 7) % 251 for i < 100 000.
        let formula: [UInt8] = (0 ..< 100_000).map { UInt8(($0 * 31 + $0 / 7) % 251) }
        inputs.append(("formula100k", formula))
        for kind in 0 ... 4 {
            inputs.append(("kind\(kind)", sample(300_000, kind: kind, seed: 7 + UInt64(kind))))
        }
        return inputs
    }

    @Test(
        "pyarrow decompresses our blocks",
        .enabled(if: pyArrowAvailable, "python3 cannot import pyarrow (pip install pyarrow)"))
    func pyArrowReadsOurBlocks() throws {
        let inputs = Self.interopInputs()
        try withTemporaryFolder { folder in
            let blocks = inputs.map { ($0.0, Self.compress($0.1), $0.1.count) }
            let decoded = try Self.pyArrowDecompress(blocks, in: folder)
            for (name, bytes) in inputs {
                #expect(decoded[name] == bytes, "\(name)")
            }
        }
    }

    @Test(
        "we decompress pyarrow's blocks of large inputs",
        .enabled(if: pyArrowAvailable, "python3 cannot import pyarrow (pip install pyarrow)"))
    func weReadPyArrowBlocks() throws {
        let inputs = Self.interopInputs()
        try withTemporaryFolder { folder in
            let blocks = try Self.pyArrowCompress(inputs, in: folder)
            for (name, bytes) in inputs {
                let block = try #require(blocks[name])
                #expect(try Self.decompress(block, expectedCount: bytes.count) == bytes, "\(name)")
            }
        }
    }

    // MARK: Round trips

    @Test("seeded inputs of every size and compressibility come back", arguments: [0, 1, 3, 4, 5, 63, 64, 65_535, 65_536, 65_537, 300_000])
    func roundTrip(count: Int) throws {
        for kind in 0 ... 4 {
            let bytes = Self.sample(count, kind: kind, seed: UInt64(count * 10 + kind))
            let block = Self.compress(bytes)
            // The preamble, then at most a sixth more than the input (the capacity allocated).
            #expect(block.count <= 32 + count + count / 6)
            #expect(try Self.decompress(block) == bytes, "kind \(kind)")
            #expect(try Self.decompress(block, expectedCount: count) == bytes, "kind \(kind)")
            if kind == 0 {
                // Random bytes: literals only, at most 3 bytes per 64 KiB piece and the preamble.
                #expect(block.count <= count + 5 + 3 * (count / 65_536 + 1))
            }
        }
    }

    @Test("compression compresses: 100 KB of repeated text to under 10 %, long runs to copies")
    func compressionRatio() throws {
        let text = Self.repetitiveText
        let block = Self.compress(text)
        #expect(block.count * 10 < text.count, "\(block.count) bytes")
        #expect(try Self.decompress(block) == text)
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        let zerosBlock = Self.compress(zeros)
        #expect(zerosBlock.count < 60_000, "\(zerosBlock.count) bytes")
        #expect(try Self.decompress(zerosBlock) == zeros)
        // Short inputs with repeats come back.
        for sample in [Array("abcdefghabcdefgh0123".utf8), Array(String(repeating: "abcd", count: 5).utf8)] {
            #expect(try Self.decompress(Self.compress(sample)) == sample)
        }
    }

    // MARK: Malformed blocks

    @Test("malformed blocks throw (the library's decoder says corrupt; GeoSieve's checks of the length say why)")
    func malformed() throws {
        let cases: [(String, [UInt8], Int?, String, Int)] = [
            ("empty input", [], nil, "no length preamble", 0),
            ("truncated preamble", [0x80], nil, "truncated length preamble", 1),
            ("truncated preamble", [0xFF, 0xFF], nil, "truncated length preamble", 2),
            ("preamble of 6 bytes", [0x80, 0x80, 0x80, 0x80, 0x80, 0x01], nil, "longer than 5 bytes", 0),
            ("preamble over 32 bits", [0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0x00], nil, "over 32 bits", 0),
            ("preamble too large for the input", [0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF], nil, "cannot hold", 0),
            ("33 bytes from 1", [0x21, 0x00], nil, "cannot hold", 0),
            ("preamble other than expected", [0x05, 0x10] + Array("hello".utf8), 4, "where 4 were expected", 0),
            ("preamble other than expected", [0x05, 0x10] + Array("hello".utf8), 1 << 40, "were expected", 0),
            ("literal past the end of the input", [0x05, 0x10, 0x68, 0x65], nil, "past the end of the input", 1),
            ("literal past the declared length", [0x02, 0x10] + Array("hello".utf8), nil, "past the declared length", 1),
            ("long literal past the declared length", [0x05, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0x00], nil, "past the declared length", 1),
            ("truncated literal length", [0x05, 0xF4, 0x01], nil, "truncated literal length", 1),
            ("copy offset 0", [0x08, 0x04, 0x61, 0x62, 0x09, 0x00], nil, "offset 0", 4),
            ("copy offset 0, 2-byte", [0x08, 0x04, 0x61, 0x62, 0x16, 0x00, 0x00], nil, "offset 0", 4),
            ("copy beyond the output", [0x08, 0x04, 0x61, 0x62, 0x09, 0x03], nil, "3 bytes back where only 2", 4),
            ("copy before any output", [0x08, 0x09, 0x01, 0x00], nil, "1 bytes back where only 0", 1),
            ("copy 4 GiB back", [0x08, 0x04, 0x61, 0x62, 0x17, 0xFF, 0xFF, 0xFF, 0xFF], nil, "bytes back", 4),
            ("copy past the declared length", [0x04, 0x04, 0x61, 0x62, 0x09, 0x02], nil, "past the declared length", 4),
            ("truncated 1-byte-offset copy", [0x08, 0x04, 0x61, 0x62, 0x09], nil, "truncated copy", 4),
            ("truncated 2-byte-offset copy", [0x08, 0x04, 0x61, 0x62, 0x16, 0x02], nil, "truncated copy", 4),
            ("truncated 4-byte-offset copy", [0x08, 0x04, 0x61, 0x62, 0x17, 0x02, 0x00, 0x00], nil, "truncated copy", 4),
            ("output shorter than the preamble", [0x0A, 0x04, 0x61, 0x62], nil, "ends after 2 of its 10", 4),
            ("output shorter than the preamble", [0x0A, 0x04, 0x61, 0x62, 0x09, 0x02], nil, "ends after 8 of its 10", 6),
            ("elements after an empty block", [0x00, 0x00, 0x61], nil, "after an empty block", 1),
        ]
        // (what, the block, the expected count, why it is malformed, the byte at fault)
        for (what, bytes, expectedCount, _, _) in cases {
            let error = try #require(Self.failure(bytes, expectedCount: expectedCount), "\(what) did not throw")
            #expect(error.kind == .malformed, "\(what)")
            #expect(error.message.hasPrefix("snappy: "), "\(what): \(error.message)")
        }
    }

    /// What a decompression of hostile bytes may do: throw, or return as many bytes as the
    /// preamble declares (and `expectedCount`, when given).
    static func expectSafe(_ bytes: [UInt8], expectedCount: Int? = nil, _ context: @autoclosure () -> String) {
        do {
            let output = try decompress(bytes, expectedCount: expectedCount)
            var declared = 0
            var shift = 0
            for byte in bytes.prefix(5) {
                declared |= Int(byte & 0x7F) << shift
                shift += 7
                if byte < 0x80 { break }
            }
            #expect(output.count == declared, "\(context())")
            if let expectedCount { #expect(output.count == expectedCount, "\(context())") }
        } catch {
            #expect(error.kind == .malformed, "\(context())")
        }
    }

    @Test("2 000 random byte strings decompress or throw")
    func randomBytes() {
        var random = SeededGenerator(seed: 2024)
        for index in 0 ..< 2000 {
            let count = random.int(0 ... 300)
            var bytes = (0 ..< count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            // Half with a small preamble, so that elements are read at all.
            if index % 2 == 0, !bytes.isEmpty { bytes[0] = UInt8(random.int(0 ... 127)) }
            Self.expectSafe(bytes, expectedCount: index % 3 == 0 ? random.int(0 ... 200) : nil, "string \(index)")
        }
    }

    @Test("2 000 mutations of valid blocks decompress or throw")
    func mutatedBlocks() throws {
        var random = SeededGenerator(seed: 99)
        let originals = [
            Self.compress(Array("the quick brown fox jumps over the lazy dog; the quick brown fox jumps over the lazy dog!".utf8)),
            Self.compress(Self.sample(3000, kind: 1, seed: 1)),
            Self.compress(Self.sample(3000, kind: 2, seed: 2)),
            Self.compress(Self.sample(5000, kind: 3, seed: 3)),
            Self.compress(Self.sample(70_000, kind: 4, seed: 4)),
            Self.hex("59b074686520717569636b2062726f776e20666f78206a756d7073206f76657220746865206c617a7920646f673b20010e9a2d000021"),
            [0x44, 0x08, 0x61, 0x62, 0x63, 0xFE, 0x03, 0x00, 0x00, 0x21],
        ]
        for index in 0 ..< 2000 {
            let original = originals[index % originals.count]
            var bytes = original
            switch random.int(4) {
            case 0:
                // Change 1 to 4 bytes.
                for _ in 0 ... random.int(4) { bytes[random.int(bytes.count)] = UInt8(truncatingIfNeeded: random.next()) }
            case 1:
                // Flip one bit.
                bytes[random.int(bytes.count)] ^= 1 << UInt8(random.int(8))
            case 2:
                // Cut short.
                bytes = Array(bytes.prefix(random.int(bytes.count)))
            default:
                // Insert or remove a few bytes.
                let at = random.int(bytes.count)
                if random.chance(50) {
                    bytes.insert(contentsOf: (0 ..< random.int(1 ... 5)).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: at)
                } else {
                    bytes.removeSubrange(at ..< min(bytes.count, at + random.int(1 ... 5)))
                }
            }
            let originalCount = try Self.decompress(original).count
            Self.expectSafe(bytes, expectedCount: index % 5 == 0 ? nil : originalCount, "mutation \(index)")
        }
    }
}

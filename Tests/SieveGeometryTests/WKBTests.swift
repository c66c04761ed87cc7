import Testing
@testable import SieveGeometry

/// The bytes spelled by a hex string (spaces allowed).
func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count - 1, by: 2).map { i in
        UInt8(String(digits[i...(i + 1)]), radix: 16) ?? 0
    }
}

/// Upper-case hex of bytes.
func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789ABCDEF")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
}

@Suite("WKB")
struct WKBTests {
    @Test func knownPointBytes() throws {
        let point = Geometry.point(Point(x: 1, y: 2))
        let little = "0101000000000000000000F03F0000000000000040"
        let big = "00000000013FF00000000000004000000000000000"
        #expect(hexString(point.wkb()) == little)
        #expect(hexString(point.wkb(byteOrder: .littleEndian)) == little)
        #expect(hexString(point.wkb(byteOrder: .bigEndian)) == big)
        #expect(try Geometry(wkb: hexBytes(little)) == point)
        #expect(try Geometry(wkb: hexBytes(big)) == point)
    }

    @Test func pointEmptyIsNaN() throws {
        let empty = "0101000000000000000000F87F000000000000F87F"
        #expect(hexString(Geometry.point(.empty).wkb()) == empty)
        #expect(try Geometry(wkb: hexBytes(empty)) == .point(.empty))
        // Only x and y NaN together mean empty.
        #expect(throws: GeometryError(.invalidWKB, "coordinate nan is not a finite number", position: 5)) {
            try Geometry(wkb: hexBytes("0101000000000000000000F87F0000000000000040"))
        }
    }

    /// WKT, and the ISO type code its WKB carries.
    static let typeCodes: [(String, UInt32)] = [
        ("POINT (1 2)", 1), ("POINT Z (1 2 3)", 1001), ("POINT M (1 2 4)", 2001), ("POINT ZM (1 2 3 4)", 3001),
        ("POINT EMPTY", 1), ("POINT Z EMPTY", 1001),
        ("LINESTRING (0 0, 1 1)", 2), ("LINESTRING Z (0 0 1, 1 1 2)", 1002), ("LINESTRING EMPTY", 2),
        ("POLYGON ((0 0, 1 0, 1 1, 0 0))", 3), ("POLYGON M ((0 0 1, 1 0 1, 1 1 1, 0 0 1))", 2003),
        ("POLYGON EMPTY", 3),
        ("MULTIPOINT ((1 2), (3 4))", 4), ("MULTIPOINT ZM ((1 2 3 4))", 3004), ("MULTIPOINT EMPTY", 4),
        ("MULTILINESTRING ((0 0, 1 1), (2 2, 3 3))", 5), ("MULTILINESTRING Z ((0 0 0, 1 1 1), (2 2 2, 3 3 3))", 1005),
        ("MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5), (5.1 5.1, 5.2 5.1, 5.2 5.2, 5.1 5.1)))", 6),
        ("GEOMETRYCOLLECTION (POINT (1 2), LINESTRING (0 0, 1 1))", 7), ("GEOMETRYCOLLECTION EMPTY", 7),
        ("GEOMETRYCOLLECTION Z (POINT Z (1 2 3))", 1007),
        ("GEOMETRYCOLLECTION (POINT Z (1 2 3), GEOMETRYCOLLECTION (POINT (1 2)))", 7),
    ]

    @Test(arguments: typeCodes)
    func everyTypeAndDimensionRoundTrips(wkt: String, code: UInt32) throws {
        let geometry = try Geometry(wkt: wkt)
        for order in [WKBByteOrder.littleEndian, .bigEndian] {
            let bytes = geometry.wkb(byteOrder: order)
            #expect(bytes[0] == order.rawValue)
            let raw = bytes[1..<5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            #expect((order == .bigEndian ? raw : raw.byteSwapped) == code)
            let read = try Geometry(wkb: bytes)
            #expect(read == geometry)
            #expect(read.wkt == geometry.wkt)
        }
    }

    @Test func envelopeWritesAsPolygon() throws {
        let envelope = Geometry.envelope(Envelope(xmin: 1, ymin: 2, xmax: 3, ymax: 4))
        #expect(try Geometry(wkb: envelope.wkb()) == Geometry(wkt: "POLYGON ((1 2, 3 2, 3 4, 1 4, 1 2))"))
        #expect(try Geometry(wkb: Geometry.envelope(.empty).wkb(byteOrder: .bigEndian)) == .polygon(.empty))
    }

    @Test func readsEWKB() throws {
        // SRID=4326;POINT(1 2), little-endian: type 0x20000001, then the SRID.
        let withSRID = "0101000020E6100000000000000000F03F0000000000000040"
        #expect(try Geometry(wkb: hexBytes(withSRID)) == .point(Point(x: 1, y: 2)))
        // SRID=3857;POINT Z (1 2 3), big-endian: type 0xA0000001.
        let zSRID = "00A000000100000F113FF000000000000040000000000000004008000000000000"
        #expect(try Geometry(wkb: hexBytes(zSRID)) == .point(Point(x: 1, y: 2, z: 3)))
        // POINT M (1 2 4) with the EWKB M flag, 0x40000001.
        let mFlag = "0101000040000000000000F03F00000000000000400000000000001040"
        #expect(try Geometry(wkb: hexBytes(mFlag)) == .point(Point(x: 1, y: 2, m: 4)))
        // EWKB multipoint Z with SRID on the container only; members carry the Z flag.
        let multi = "01" + "040000A0" + "E6100000" + "01000000"
            + "01" + "01000080" + "000000000000F03F" + "0000000000000040" + "0000000000000840"
        #expect(try Geometry(wkb: hexBytes(multi)) == Geometry(wkt: "MULTIPOINT Z ((1 2 3))"))
    }

    @Test func membersCarryTheirOwnByteOrder() throws {
        // Big-endian multipoint holding one little-endian and one big-endian point.
        let hex = "00" + "00000004" + "00000002"
            + "01" + "01000000" + "000000000000F03F" + "0000000000000040"
            + "00" + "00000001" + "4008000000000000" + "4010000000000000"
        #expect(try Geometry(wkb: hexBytes(hex)) == Geometry(wkt: "MULTIPOINT ((1 2), (3 4))"))
    }

    @Test func emptyMembersAreSkipped() throws {
        let hex = "01" + "04000000" + "02000000"
            + "01" + "01000000" + "000000000000F87F" + "000000000000F87F"
            + "01" + "01000000" + "000000000000F03F" + "0000000000000040"
        #expect(try Geometry(wkb: hexBytes(hex)) == Geometry(wkt: "MULTIPOINT ((1 2))"))
        let lines = "01" + "05000000" + "02000000"
            + "01" + "02000000" + "00000000"
            + "01" + "02000000" + "02000000" + String(repeating: "0000000000000000", count: 3) + "000000000000F03F"
        #expect(try Geometry(wkb: hexBytes(lines)) == Geometry(wkt: "LINESTRING (0 0, 0 1)"))
    }

    @Test func acceptsAnyByteCollection() throws {
        let bytes = Geometry.point(Point(x: 1, y: 2)).wkb()
        // Not contiguous: copied first.
        #expect(try Geometry(wkb: bytes.lazy.map { $0 }) == .point(Point(x: 1, y: 2)))
        // A slice: positions count from the slice's start.
        let padded = [0xFF, 0xFF] + bytes + [0xAA]
        #expect(throws: GeometryError(.invalidWKB, "1 unexpected byte(s) after the geometry", position: 21)) {
            try Geometry(wkb: padded[2...])
        }
        #expect(try Geometry(wkb: padded[2..<(padded.count - 1)]) == .point(Point(x: 1, y: 2)))
    }

    /// Hex input, expected byte offset, expected message fragment.
    static let errorCases: [(String, Int, String)] = [
        ("", 0, "unexpected end of input"),
        ("01", 1, "unexpected end of input"),
        ("0101000000000000000000F03F", 13, "unexpected end of input"),
        ("0101000000000000000000F03F000000000000004000", 21, "1 unexpected byte(s) after the geometry"),
        ("0201000000", 0, "invalid byte order 2"),
        ("0108000000", 1, "unknown geometry type code 8"),
        ("0100000000", 1, "unknown geometry type code 0"),
        ("01A10F0000", 1, "unknown geometry type code 4001"),
        ("0101000010", 1, "unknown geometry type code"),
        // Counts that cannot fit: 2^31 points, rings, polygons, geometries.
        ("010200000000000080", 5, "2147483648 points cannot fit in the remaining 0 byte(s)"),
        ("010300000000000080", 5, "rings cannot fit"),
        ("01060000000000008000000000", 5, "polygons cannot fit"),
        ("01070000000000008000", 5, "geometries cannot fit"),
        ("0102000000FFFFFFFF" + String(repeating: "00", count: 64), 5, "4294967295 points cannot fit"),
        ("0102000000050000000000000000000000000000000000000000000000", 5, "5 points cannot fit"),
        // Coordinates that are not finite.
        ("0101000000000000000000F07F0000000000000040", 5, "coordinate inf is not a finite number"),
        ("0101000000000000000000F03F000000000000F0FF", 13, "coordinate -inf is not a finite number"),
        (
            "01020000000200000000000000000000000000000000000000000000000000F87F0000000000000000", 25,
            "coordinate nan is not a finite number"
        ),
        // Structure checked by the model, reported at the geometry's first byte.
        ("010200000001000000000000000000F03F0000000000000040", 0, "path 0 has 1 point(s); a path needs at least 2"),
        (
            "010300000001000000040000000000000000000000000000000000000000000000000000F03F0000000000000000"
                + "000000000000F03F000000000000F03F0000000000000000000000000000F03F",
            0, "ring 0 is not closed"
        ),
        ("01030000000100000000000000", 0, "ring 0 has 0 point(s)"),
        // Members of the wrong type or layout.
        (
            "010400000001000000" + "0102000000" + String(repeating: "00", count: 16), 10,
            "expected a POINT member, found a LINESTRING"
        ),
        ("010400000001000000" + "01E9030000" + String(repeating: "00", count: 24), 10, "dimensions differ"),
        // A collection member with a bad byte order.
        ("010700000001000000" + "050100000000000000", 9, "invalid byte order 5"),
    ]

    @Test(arguments: errorCases)
    func reportsErrors(hex: String, position: Int, fragment: String) {
        do {
            let geometry = try Geometry(wkb: hexBytes(hex))
            Issue.record("read \(hex) as \(geometry.wkt)")
        } catch {
            #expect(error.kind == .invalidWKB)
            #expect(error.position == position, "\(error)")
            #expect(error.message.contains(fragment), "\(error)")
        }
    }

    @Test func nestingIsLimited() throws {
        func nested(_ depth: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            for _ in 0..<(depth - 1) { bytes += hexBytes("010700000001000000") }
            return bytes + hexBytes("010700000000000000")
        }
        guard case .collection(let collection) = try Geometry(wkb: nested(32)) else {
            Issue.record("not a collection")
            return
        }
        #expect(collection.nestingDepth == 32)
        let error = GeometryError(.invalidWKB, "geometry collections nest deeper than 32 levels", position: 32 * 9)
        #expect(throws: error) { try Geometry(wkb: nested(33)) }
        #expect(throws: error) { try Geometry(wkb: nested(10_000)) }
    }

    @Test func everyTruncationThrows() throws {
        let text = "MULTIPOLYGON Z (((0 0 1, 10 0 2, 10 10 3, 0 10 4, 0 0 5), (2 2 0, 2 8 0, 8 8 0, 2 2 0)), "
            + "((20 20 1, 30 20 1, 30 30 1, 20 20 1)))"
        let geometry = try Geometry(wkt: text)
        for order in [WKBByteOrder.littleEndian, .bigEndian] {
            let bytes = geometry.wkb(byteOrder: order)
            #expect(try Geometry(wkb: bytes) == geometry)
            for length in 0..<bytes.count {
                do {
                    _ = try Geometry(wkb: bytes[0..<length])
                    Issue.record("a prefix of \(length) bytes was accepted")
                } catch {
                    #expect(error.kind == .invalidWKB)
                    #expect((error.position ?? -1) >= 0 && (error.position ?? -1) <= length, "\(error)")
                }
            }
        }
    }

    @Test(arguments: [UInt64(11), 12, 13, 14, 15])
    func randomGeometriesRoundTrip(seed: UInt64) throws {
        var generator = RandomGeometries(seed: seed)
        for _ in 0..<200 {
            let geometry = try generator.geometry()
            let little = geometry.wkb(byteOrder: .littleEndian)
            let big = geometry.wkb(byteOrder: .bigEndian)
            #expect(little.count == big.count)
            let fromLittle = try Geometry(wkb: little)
            let fromBig = try Geometry(wkb: big)
            #expect(fromLittle == geometry, "\(geometry.wkt)")
            #expect(fromBig == geometry, "\(geometry.wkt)")
            #expect(fromLittle.wkb(byteOrder: .bigEndian) == big)
            #expect(fromBig.wkb() == little)
        }
    }

    @Test func randomBytesNeverCrash() {
        var rng = SplitMix64(seed: 2024)
        var accepted = 0
        // Pure noise, but starting with a valid byte order and a plausible type half of the time.
        for _ in 0..<2000 {
            var bytes = (0..<Int.random(in: 0..<80, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if Bool.random(using: &rng), bytes.count >= 5 {
                bytes[0] = UInt8.random(in: 0...1, using: &rng)
                let type = UInt32.random(in: 1...7, using: &rng) + [0, 1000, 2000, 3000][Int.random(in: 0..<4, using: &rng)]
                let ordered = bytes[0] == 1 ? type.littleEndian : type.bigEndian
                withUnsafeBytes(of: ordered) { bytes.replaceSubrange(1..<5, with: $0) }
            }
            do {
                _ = try Geometry(wkb: bytes)
                accepted += 1
            } catch {
                #expect(error.kind == .invalidWKB)
            }
        }
        // Valid WKB with a few bytes changed.
        var generator = RandomGeometries(seed: 77)
        for _ in 0..<500 {
            guard let geometry = try? generator.geometry() else { continue }
            var bytes = geometry.wkb(byteOrder: Bool.random(using: &rng) ? .littleEndian : .bigEndian)
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            do {
                _ = try Geometry(wkb: bytes)
                accepted += 1
            } catch {
                #expect(error.kind == .invalidWKB)
                #expect((error.position ?? -1) >= 0 && (error.position ?? -1) <= bytes.count)
            }
        }
        #expect(accepted >= 0)
    }
}

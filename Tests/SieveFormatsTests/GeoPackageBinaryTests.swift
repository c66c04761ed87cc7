import SieveGeometry
import SieveFormats
import Testing

/// GeoPackage geometry blobs built by hand, byte by byte, and read back: every envelope
/// indicator, both header byte orders, both WKB byte orders, Z/M codes, empty geometries, and
/// the malformed headers.
@Suite("GeoPackage binary geometries")
struct GeoPackageBinaryTests {
    /// Bytes of a 32-bit or 64-bit value in the chosen order.
    static func bytes(_ value: UInt32, little: Bool) -> [UInt8] {
        let v = little ? value.littleEndian : value.bigEndian
        return withUnsafeBytes(of: v) { Array($0) }
    }

    static func bytes(_ value: Double, little: Bool) -> [UInt8] {
        let v = little ? value.bitPattern.littleEndian : value.bitPattern.bigEndian
        return withUnsafeBytes(of: v) { Array($0) }
    }

    /// A header: 'GP', version 0, flags from the parts, SRS ID, envelope doubles.
    static func header(srs: Int32, indicator: UInt8, empty: Bool, little: Bool, envelope: [Double]) -> [UInt8] {
        var result: [UInt8] = [0x47, 0x50, 0]
        result.append((little ? 1 : 0) | (indicator << 1) | (empty ? 0x10 : 0))
        result += bytes(UInt32(bitPattern: srs), little: little)
        for value in envelope { result += bytes(value, little: little) }
        return result
    }

    /// WKB of POINT (x y) with an optional third and fourth ordinate and the ISO type code.
    static func pointWKB(_ ordinates: [Double], code: UInt32, little: Bool) -> [UInt8] {
        var result: [UInt8] = [little ? 1 : 0]
        result += bytes(code, little: little)
        for value in ordinates { result += bytes(value, little: little) }
        return result
    }

    /// WKB of LINESTRING of the given x/y points.
    static func lineWKB(_ points: [(Double, Double)], little: Bool) -> [UInt8] {
        var result: [UInt8] = [little ? 1 : 0]
        result += bytes(UInt32(2), little: little)
        result += bytes(UInt32(points.count), little: little)
        for (x, y) in points { result += bytes(x, little: little) + bytes(y, little: little) }
        return result
    }

    @Test(arguments: [0, 1, 2, 3, 4], [true, false])
    func everyEnvelopeIndicatorAndHeaderByteOrder(_ indicator: Int, _ littleHeader: Bool) throws {
        // Envelope values in stored order: minx maxx miny maxy [minz maxz] [minm maxm].
        let counts = [0, 4, 6, 6, 8]
        let envelope = (0..<counts[indicator]).map { Double($0) + 0.5 }
        let line = Self.lineWKB([(1, 2), (3, 4)], little: !littleHeader)  // WKB in the other order
        let blob = Self.header(srs: 4326, indicator: UInt8(indicator), empty: false, little: littleHeader, envelope: envelope) + line
        let (header, geometry) = try GeoPackageBinary.geometry(blob)
        #expect(header.srsID == 4326)
        #expect(header.envelopeIndicator == indicator)
        #expect(header.envelope == envelope)
        #expect(header.byteOrder == (littleHeader ? .littleEndian : .bigEndian))
        #expect(header.size == 8 + 8 * counts[indicator])
        #expect(!header.isEmpty)
        #expect(geometry == .polyline(try Polyline(paths: [[Point(x: 1, y: 2), Point(x: 3, y: 4)]])))
    }

    @Test(arguments: [true, false])
    func pointsInBothWKBByteOrdersWithZAndM(_ little: Bool) throws {
        let h = Self.header(srs: -1, indicator: 0, empty: false, little: true, envelope: [])
        #expect(try GeoPackageBinary.geometry(h + Self.pointWKB([1, 2], code: 1, little: little)).geometry == .point(Point(x: 1, y: 2)))
        #expect(
            try GeoPackageBinary.geometry(h + Self.pointWKB([1, 2, 3], code: 1001, little: little)).geometry
                == .point(Point(x: 1, y: 2, z: 3)))
        #expect(
            try GeoPackageBinary.geometry(h + Self.pointWKB([1, 2, 4], code: 2001, little: little)).geometry
                == .point(Point(x: 1, y: 2, m: 4)))
        #expect(
            try GeoPackageBinary.geometry(h + Self.pointWKB([1, 2, 3, 4], code: 3001, little: little)).geometry
                == .point(Point(x: 1, y: 2, z: 3, m: 4)))
        // The extended-WKB flag form of Z (0x80000000 | 1).
        #expect(
            try GeoPackageBinary.geometry(h + Self.pointWKB([1, 2, 3], code: 0x8000_0001, little: little)).geometry
                == .point(Point(x: 1, y: 2, z: 3)))
        #expect(try GeoPackageBinary.header(h.withUnsafeBytes { $0 }).srsID == -1)
    }

    @Test func emptyGeometries() throws {
        let h = Self.header(srs: 4326, indicator: 0, empty: true, little: true, envelope: [])
        let (header, point) = try GeoPackageBinary.geometry(h + Self.pointWKB([.nan, .nan], code: 1, little: true))
        #expect(header.isEmpty)
        #expect(point.isEmpty)
        #expect(point.kind == .point)
        let line = try GeoPackageBinary.geometry(h + Self.lineWKB([], little: false)).geometry
        #expect(line.isEmpty)
        #expect(line.kind == .polyline)
        // Written empties carry the empty flag and no envelope.
        let blob = try GeoPackageBinary.blob(.polygon(.empty), srsID: 4326)
        #expect(blob[3] == 0x11)
        #expect(try GeoPackageBinary.geometry(blob).geometry == .polygon(.empty))
    }

    @Test func writtenBlobsReadBack() throws {
        let polygon = Geometry.polygon(
            try Polygon(exterior: [Point(x: 0, y: 0), Point(x: 4, y: 0), Point(x: 4, y: 3), Point(x: 0, y: 0)]))
        let blob = try GeoPackageBinary.blob(polygon, srsID: 3857)
        // Little-endian header, envelope indicator 1, not empty: flags 0b0000_0011.
        #expect(Array(blob[0..<4]) == [0x47, 0x50, 0, 0x03])
        let (header, geometry) = try GeoPackageBinary.geometry(blob)
        #expect(header.srsID == 3857)
        #expect(header.envelope == [0, 4, 0, 3])
        #expect(geometry == polygon)
        // As a multi geometry: WKB type 6 right after the 40-byte header.
        let multi = try GeoPackageBinary.blob(polygon, srsID: 3857, multi: true)
        #expect(multi[40] == 1)
        #expect(Array(multi[41..<45]) == [6, 0, 0, 0])
        #expect(try GeoPackageBinary.geometry(multi).geometry == polygon)
        // Points have no envelope: 8 + 21 bytes.
        #expect(try GeoPackageBinary.blob(.point(Point(x: 1, y: 2)), srsID: 4326).count == 29)
    }

    @Test func malformedHeaders() throws {
        let wkb = Self.pointWKB([1, 2], code: 1, little: true)
        let good = Self.header(srs: 4326, indicator: 0, empty: false, little: true, envelope: []) + wkb
        func message(_ blob: [UInt8]) -> String? {
            geoPackageError { _ = try GeoPackageBinary.geometry(blob) }.map { "\($0)" }
        }
        #expect(message(good) == nil)
        #expect(message([0x47, 0x50, 0])?.contains("shorter than its 8-byte header") == true)
        var badMagic = good
        badMagic[1] = 0x51
        #expect(message(badMagic)?.contains("not 'GP'") == true)
        var badVersion = good
        badVersion[2] = 1
        #expect(message(badVersion)?.contains("version byte 1") == true)
        var extended = good
        extended[3] |= 0x20
        #expect(message(extended)?.contains("extended") == true)
        for indicator: UInt8 in 5...7 {
            var bad = good
            bad[3] = 1 | indicator << 1
            #expect(message(bad)?.contains("envelope contents indicator \(indicator)") == true)
        }
        // Indicator 1 needs 32 envelope bytes: only 21 follow.
        var short = good
        short[3] = 0x03
        #expect(message(short)?.contains("shorter than its 40-byte header") == true)
        // A WKB error is reported at its offset in the blob: the type code at 8 + 1.
        var badType = good
        badType[9] = 9
        #expect(message(badType)?.contains("at byte offset 9") == true)
    }
}

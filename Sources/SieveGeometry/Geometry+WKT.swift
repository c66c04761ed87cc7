// Well-Known Text (OGC Simple Features / ISO 13249-3) reading and writing.
import SieveJSON

extension Geometry {
    /// Reads a geometry from Well-Known Text.
    ///
    /// Accepted input:
    /// - the types `POINT`, `MULTIPOINT`, `LINESTRING`, `MULTILINESTRING`, `POLYGON`,
    ///   `MULTIPOLYGON` and `GEOMETRYCOLLECTION`, in any letter case, separated by any ASCII
    ///   whitespace (space, tab, line feed, carriage return, form feed, vertical tab);
    /// - the dimension tags `Z`, `M` and `ZM` after the type (also glued to it, as in `POINTZ`);
    ///   untagged positions of three or four ordinates read as Z or ZM. All positions of one
    ///   geometry must have the same number of ordinates. Untagged members of a tagged
    ///   `GEOMETRYCOLLECTION` take the collection's tag;
    /// - `EMPTY` for any geometry and for members of multi geometries (empty members of
    ///   `MULTIPOINT`, `MULTILINESTRING` and `MULTIPOLYGON` are skipped; empty members of a
    ///   `GEOMETRYCOLLECTION` are kept);
    /// - `MULTIPOINT` members with or without parentheses: `MULTIPOINT (1 2, 3 4)` and
    ///   `MULTIPOINT ((1 2), (3 4))`;
    /// - numbers with an optional sign, digits, an optional fraction and an optional exponent
    ///   (`-1`, `+2.5`, `.5`, `3.`, `1e-7`), and `NaN` (any letter case) as an m value, the
    ///   conventional "no measure". `NaN` elsewhere, `inf` and numbers beyond the range of
    ///   `Double` are rejected.
    ///
    /// `POINT` reads as ``Geometry/point(_:)``, `MULTIPOINT` as ``Geometry/multipoint(_:)``,
    /// `LINESTRING` and `MULTILINESTRING` as ``Geometry/polyline(_:)``, `POLYGON` and
    /// `MULTIPOLYGON` as ``Geometry/polygon(_:)`` and `GEOMETRYCOLLECTION` as
    /// ``Geometry/collection(_:)``. Ring orientation is kept as written. Collections may nest at
    /// most 32 levels deep.
    ///
    /// Error positions are 1-based and count `Character`s (extended grapheme clusters) of `wkt`,
    /// as Swift's `String` does, so `"\r\n"` counts as one. The position is that of the offending
    /// token, one past the last character when the input ends too early, and that of the
    /// geometry's type keyword when its coordinates do not form a valid geometry.
    ///
    /// ```swift
    /// let line = try Geometry(wkt: "LINESTRING (30 10, 10 30, 40 40)")
    /// ```
    ///
    /// - Parameter wkt: The text.
    /// - Throws: ``GeometryError`` of kind ``GeometryError/Kind/invalidWKT`` with the position
    ///   of the problem, e.g. `invalid WKT at position 11: expected ')'` for `"POINT (1 2"`.
    public init(wkt: String) throws(GeometryError) {
        var text = wkt
        let result: Result<Geometry, WKTFailure> = text.withUTF8 { bytes in
            var parser = WKTParser(bytes: bytes)
            return Result { () throws(WKTFailure) -> Geometry in try parser.parseDocument() }
        }
        switch result {
        case .success(let geometry):
            self = geometry
        case .failure(let failure):
            throw GeometryError(
                .invalidWKT, failure.message,
                position: WKTParser.characterPosition(utf8Offset: failure.offset, in: wkt))
        }
    }

    /// The geometry as Well-Known Text.
    ///
    /// The output is the ISO form with a space after the type keyword and `", "` between
    /// members: `POINT (1 2)`, `POINT Z (1 2 3)`, `POINT M (1 2 4)`, `POINT ZM (1 2 3 4)`,
    /// `POINT EMPTY`, `MULTIPOINT ((1 2), (3 4))`. A polyline with one path writes as
    /// `LINESTRING`, with several as `MULTILINESTRING`; a polygon with one part as `POLYGON`,
    /// with several as `MULTIPOLYGON`; empty ones as `LINESTRING EMPTY` and `POLYGON EMPTY`.
    /// An envelope writes as the `POLYGON` of its ``Envelope/ring`` (`POLYGON EMPTY` when
    /// empty). A collection is tagged `Z`, `M` or `ZM` only when all geometries inside it
    /// (nested collections included) share that layout; members always carry their own tag.
    /// Rings are written in their stored orientation, numbers in the shortest form that reads
    /// back to the same `Double`.
    ///
    /// A NaN m ("no measure") is written as `NaN`. Reading the text back with ``init(wkt:)``
    /// gives an equal geometry, except that an envelope comes back as a polygon.
    public var wkt: String {
        var writer = WKTWriter()
        writer.write(self)
        return writer.text
    }

    /// The geometry as Well-Known Text as ``wkt`` writes it, each number other than a NaN m
    /// written by `number` (e.g. rounded to a number of decimals).
    package func wkt(formattingNumbers number: @escaping (Double) -> String) -> String {
        var writer = WKTWriter(number: number)
        writer.write(self)
        return writer.text
    }
}

// MARK: - Reader

/// A reader error before it is turned into a ``GeometryError``: a UTF-8 byte offset and a
/// message.
struct WKTFailure: Error {
    var offset: Int
    var message: String
}

/// The WKT geometry types.
private enum WKTType {
    case point, multipoint, linestring, multilinestring, polygon, multipolygon, collection
}

/// The ordinates of the positions of one geometry being read.
private struct WKTDimensions {
    /// The layout, once known (from a tag, the enclosing collection or the first position).
    var layout: CoordinateLayout?
    /// Whether the layout came from a tag rather than from the first position.
    var tagged: Bool
    /// Number of ordinates per position, once known.
    var stride: Int? { layout?.stride }
}

/// A recursive-descent WKT parser working on the UTF-8 bytes of the input.
struct WKTParser {
    /// How deeply `GEOMETRYCOLLECTION`s may nest.
    static let maxDepth = 32

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// Where each path or ring of the geometry being read starts (byte offsets of its '('), so
    /// that a model error naming "ring 2" points at ring 2.
    var componentStarts: [Int] = []

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The 1-based `Character` position of a UTF-8 offset in `text` (an offset inside a
    /// grapheme cluster counts as that cluster).
    static func characterPosition(utf8Offset: Int, in text: String) -> Int {
        let utf8 = text.utf8
        let offset = Swift.min(Swift.max(utf8Offset, 0), utf8.count)
        let index = utf8.index(utf8.startIndex, offsetBy: offset)
        return text.distance(from: text.startIndex, to: index) + 1
    }

    // MARK: Tokens

    private static let space: UInt8 = 0x20, tab: UInt8 = 0x09, lineFeed: UInt8 = 0x0A,
        verticalTab: UInt8 = 0x0B, formFeed: UInt8 = 0x0C, carriageReturn: UInt8 = 0x0D
    private static let openParen = UInt8(ascii: "("), closeParen = UInt8(ascii: ")"), comma = UInt8(ascii: ",")
    private static let plus = UInt8(ascii: "+"), minus = UInt8(ascii: "-"), dot = UInt8(ascii: ".")
    private static let zero = UInt8(ascii: "0"), nine = UInt8(ascii: "9")

    private var atEnd: Bool { index >= bytes.count }

    private func failure(_ message: String, at offset: Int? = nil) -> WKTFailure {
        WKTFailure(offset: offset ?? index, message: message)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == space || (byte >= tab && byte <= carriageReturn)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        let folded = byte | 0x20
        return folded >= UInt8(ascii: "a") && folded <= UInt8(ascii: "z")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= zero && byte <= nine }

    private mutating func skipSpace() {
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
    }

    /// Skips whitespace and consumes `byte` if it comes next.
    private mutating func consume(_ byte: UInt8) -> Bool {
        skipSpace()
        if index < bytes.count, bytes[index] == byte {
            index += 1
            return true
        }
        return false
    }

    /// Skips whitespace and consumes `byte`, or throws `expected '<byte>'`.
    private mutating func expect(_ byte: UInt8) throws(WKTFailure) {
        guard consume(byte) else {
            throw failure("expected '\(Character(Unicode.Scalar(byte)))'")
        }
    }

    /// Skips whitespace and reads a run of ASCII letters (possibly none).
    private mutating func scanWord() -> Range<Int> {
        skipSpace()
        let start = index
        while index < bytes.count, Self.isLetter(bytes[index]) { index += 1 }
        return start..<index
    }

    /// Whether the bytes in `range` spell `keyword` (given in upper case), ignoring case.
    private func word(_ range: Range<Int>, is keyword: StaticString) -> Bool {
        guard range.count == keyword.utf8CodeUnitCount else { return false }
        let key = keyword.utf8Start
        for (k, i) in range.enumerated() where bytes[i] & 0xDF != key[k] { return false }
        return true
    }

    /// Whether `EMPTY` comes next (consumed if so).
    private mutating func consumeEmpty() -> Bool {
        let saved = index
        let range = scanWord()
        if word(range, is: "EMPTY") { return true }
        index = saved
        return false
    }

    private func text(of range: Range<Int>) -> String {
        let shown = range.prefix(40)
        var text = String(decoding: UnsafeBufferPointer(rebasing: bytes[shown]), as: UTF8.self)
        if shown.count < range.count { text += "…" }
        return text
    }

    /// The geometry type spelled by `range`, with a dimension suffix glued to it (`POINTZM`).
    private func geometryType(_ range: Range<Int>) -> (WKTType, CoordinateLayout?)? {
        if let type = plainType(range) { return (type, nil) }
        let suffixes: [(Int, CoordinateLayout)] = [(2, .xyzm), (1, .xyz), (1, .xym)]
        for (length, layout) in suffixes where range.count > length {
            let head = range.lowerBound..<(range.upperBound - length)
            guard dimensionTag(head.upperBound..<range.upperBound) == layout else { continue }
            if let type = plainType(head) { return (type, layout) }
        }
        return nil
    }

    private func plainType(_ range: Range<Int>) -> WKTType? {
        if word(range, is: "POINT") { return .point }
        if word(range, is: "LINESTRING") { return .linestring }
        if word(range, is: "POLYGON") { return .polygon }
        if word(range, is: "MULTIPOINT") { return .multipoint }
        if word(range, is: "MULTILINESTRING") { return .multilinestring }
        if word(range, is: "MULTIPOLYGON") { return .multipolygon }
        if word(range, is: "GEOMETRYCOLLECTION") { return .collection }
        return nil
    }

    private func dimensionTag(_ range: Range<Int>) -> CoordinateLayout? {
        if word(range, is: "Z") { return .xyz }
        if word(range, is: "M") { return .xym }
        if word(range, is: "ZM") { return .xyzm }
        return nil
    }

    // MARK: Numbers

    private func startsNumber(_ byte: UInt8) -> Bool {
        Self.isDigit(byte) || byte == Self.minus || byte == Self.plus || byte == Self.dot
    }

    /// Reads one number at `index` (which starts a number): an optional sign, digits with at
    /// most one `.` (at least one digit: `.5` and `5.` are numbers), an optional exponent, then
    /// white space, a comma, a parenthesis or the end. Converted correctly rounded by
    /// ``DecimalToDouble`` (without allocating but for rare inputs).
    private mutating func parseNumber() throws(WKTFailure) -> Double {
        let start = index
        var i = index
        let count = bytes.count
        var negative = false
        if bytes[i] == Self.minus || bytes[i] == Self.plus {
            negative = bytes[i] == Self.minus
            i += 1
        }
        let mantissaStart = i
        var accumulated: UInt64 = 0
        i = DecimalSignificand.accumulateDigits(bytes, from: i, into: &accumulated)
        let integerDigits = i - mantissaStart
        var fractionDigits = 0
        if i < count, bytes[i] == Self.dot {
            i += 1
            let fractionStart = i
            i = DecimalSignificand.accumulateDigits(bytes, from: i, into: &accumulated)
            fractionDigits = i - fractionStart
        }
        let digits = integerDigits + fractionDigits
        guard digits > 0 else { throw failure("expected a number", at: start) }
        let mantissaEnd = i
        var exponent = 0
        if i < count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var exponentNegative = false
            if i < count, bytes[i] == Self.minus || bytes[i] == Self.plus {
                exponentNegative = bytes[i] == Self.minus
                i += 1
            }
            var exponentDigits = 0
            while i < count, Self.isDigit(bytes[i]) {
                DecimalToDouble.appendExponentDigit(Int(bytes[i] - Self.zero), to: &exponent)
                exponentDigits += 1
                i += 1
            }
            guard exponentDigits > 0 else { throw failure("malformed number", at: start) }
            if exponentNegative { exponent = -exponent }
        }
        if i < count {
            let next = bytes[i]
            guard Self.isSpace(next) || next == Self.comma || next == Self.closeParen || next == Self.openParen else {
                throw failure("malformed number", at: start)
            }
        }
        index = i
        let text = UnsafeBufferPointer(rebasing: bytes[mantissaStart..<mantissaEnd])
        let significand = DecimalSignificand(
            accumulated: accumulated, integerDigits: integerDigits, fractionDigits: fractionDigits, text: text)
        let result = DecimalToDouble.convert(significand, exponent: exponent, negative: negative, text: text)
        guard result.isFinite else { throw failure("number out of range", at: start) }
        return result
    }

    // MARK: Positions

    /// Reads one position (whitespace-separated numbers) and appends its ordinates.
    private mutating func readPosition(
        into values: inout [Double], _ dimensions: inout WKTDimensions
    ) throws(WKTFailure) {
        let maximum = dimensions.stride ?? 4
        var n = 0
        // Where a `NaN` was read (ordinate number and offset): allowed for m only.
        var notANumber: (ordinate: Int, offset: Int)?
        while true {
            skipSpace()
            guard index < bytes.count else { break }
            let isNaN = startsNaN()
            guard isNaN || startsNumber(bytes[index]) else { break }
            if n == maximum {
                if dimensions.layout == nil {
                    throw failure("too many ordinates: a position has at most 4")
                } else if dimensions.tagged {
                    throw failure("too many ordinates: positions here have \(maximum)")
                } else {
                    throw failure("too many ordinates: earlier positions have \(maximum)")
                }
            }
            if isNaN {
                if notANumber == nil { notANumber = (n, index) }
                index += 3
                values.append(.nan)
            } else {
                values.append(try parseNumber())
            }
            n += 1
        }
        if let stride = dimensions.stride {
            if n < stride {
                throw failure(
                    dimensions.tagged || n < 2
                        ? "expected a number" : "expected a number: earlier positions have \(stride) ordinates")
            }
        } else {
            guard n >= 2 else { throw failure("expected a number") }
            dimensions.layout = n == 4 ? .xyzm : n == 3 ? .xyz : .xy
        }
        if let (ordinate, offset) = notANumber, ordinate != dimensions.layout?.mOffset {
            throw failure("NaN is allowed only as an m value (no measure)", at: offset)
        }
    }

    /// Whether `NaN` (any letter case) starts at `index`, followed by a delimiter.
    private func startsNaN() -> Bool {
        guard index + 3 <= bytes.count, bytes[index] | 0x20 == UInt8(ascii: "n"),
            bytes[index + 1] | 0x20 == UInt8(ascii: "a"), bytes[index + 2] | 0x20 == UInt8(ascii: "n")
        else { return false }
        return index + 3 == bytes.count || !Self.isLetter(bytes[index + 3])
    }

    /// Reads `( position, position, … )` and returns how many positions were read.
    @discardableResult
    private mutating func readPositionList(
        into values: inout [Double], _ dimensions: inout WKTDimensions
    ) throws(WKTFailure) -> Int {
        skipSpace()
        componentStarts.append(index)
        try expect(Self.openParen)
        var count = 0
        repeat {
            try readPosition(into: &values, &dimensions)
            count += 1
        } while consume(Self.comma)
        guard consume(Self.closeParen) else { throw failure("expected ',' or ')'") }
        return count
    }

    /// Reads `( ring, ring, … )`, appending ring end offsets (in positions) to `rings`.
    private mutating func readPolygonText(
        into values: inout [Double], rings: inout [Int], _ dimensions: inout WKTDimensions
    ) throws(WKTFailure) {
        try expect(Self.openParen)
        repeat {
            try readPositionList(into: &values, &dimensions)
            rings.append(values.count / (dimensions.stride ?? 2))
        } while consume(Self.comma)
        guard consume(Self.closeParen) else { throw failure("expected ',' or ')'") }
    }

    /// Reads members separated by commas up to `)`, after `(` has been consumed, calling `member`
    /// for each that is not `EMPTY`.
    private mutating func readMembers(_ member: (inout WKTParser) throws(WKTFailure) -> Void) throws(WKTFailure) {
        repeat {
            if !consumeEmpty() { try member(&self) }
        } while consume(Self.comma)
        guard consume(Self.closeParen) else { throw failure("expected ',' or ')'") }
    }

    // MARK: Geometries

    /// Reads the whole input: one geometry, then only whitespace.
    mutating func parseDocument() throws(WKTFailure) -> Geometry {
        skipSpace()
        guard !atEnd else { throw failure("unexpected end of input") }
        let geometry = try parseGeometry(depth: 1, inherited: nil)
        skipSpace()
        guard atEnd else { throw failure("unexpected text after the geometry") }
        return geometry
    }

    /// Reads one tagged geometry. `depth` is the collection nesting level of this geometry
    /// (1 at the top); `inherited` is the layout of an enclosing tagged collection.
    private mutating func parseGeometry(depth: Int, inherited: CoordinateLayout?) throws(WKTFailure) -> Geometry {
        skipSpace()
        let start = index
        let typeWord = scanWord()
        guard !typeWord.isEmpty else { throw failure("expected a geometry type") }
        guard let (type, gluedTag) = geometryType(typeWord) else {
            throw failure("unknown geometry type '\(text(of: typeWord))'", at: start)
        }
        if type == .collection, depth > Self.maxDepth {
            throw failure("geometry collections nest deeper than \(Self.maxDepth) levels", at: start)
        }
        var tag = gluedTag
        var isEmpty = false
        while true {
            skipSpace()
            let wordStart = index
            let range = scanWord()
            if range.isEmpty { break }
            if tag == nil, let layout = dimensionTag(range) {
                tag = layout
                continue
            }
            if word(range, is: "EMPTY") {
                isEmpty = true
                break
            }
            throw failure("expected '(' or EMPTY", at: wordStart)
        }
        var dimensions = WKTDimensions(layout: tag ?? inherited, tagged: tag != nil || inherited != nil)
        if isEmpty { return try emptyGeometry(type, layout: dimensions.layout ?? .xy, start: start) }
        skipSpace()
        guard index < bytes.count, bytes[index] == Self.openParen else { throw failure("expected '(' or EMPTY") }

        switch type {
        case .point:
            var values: [Double] = []
            values.reserveCapacity(4)
            try expect(Self.openParen)
            try readPosition(into: &values, &dimensions)
            try expect(Self.closeParen)
            let layout = dimensions.layout ?? .xy
            var point = Point(x: values[0], y: values[1])
            if let offset = layout.zOffset { point.z = values[offset] }
            if let offset = layout.mOffset { point.m = values[offset] }
            return .point(point)

        case .multipoint:
            var values: [Double] = []
            try expect(Self.openParen)
            try readMembers { (parser: inout WKTParser) throws(WKTFailure) in
                if parser.consume(Self.openParen) {
                    try parser.readPosition(into: &values, &dimensions)
                    try parser.expect(Self.closeParen)
                } else {
                    try parser.readPosition(into: &values, &dimensions)
                }
            }
            let buffer = CoordinateBuffer(values: values, layout: dimensions.layout ?? .xy)
            return .multipoint(try validated(at: start) { () throws(GeometryError) in
                try Multipoint(coordinates: buffer)
            })

        case .linestring:
            componentStarts.removeAll(keepingCapacity: true)
            var values: [Double] = []
            let count = try readPositionList(into: &values, &dimensions)
            let buffer = CoordinateBuffer(values: values, layout: dimensions.layout ?? .xy)
            return .polyline(try validated(at: start) { () throws(GeometryError) in
                try Polyline(coordinates: buffer, pathOffsets: [0, count])
            })

        case .multilinestring:
            componentStarts.removeAll(keepingCapacity: true)
            var values: [Double] = []
            var offsets = [0]
            try expect(Self.openParen)
            try readMembers { (parser: inout WKTParser) throws(WKTFailure) in
                let count = try parser.readPositionList(into: &values, &dimensions)
                offsets.append(offsets[offsets.count - 1] + count)
            }
            let buffer = CoordinateBuffer(values: values, layout: dimensions.layout ?? .xy)
            return .polyline(try validated(at: start) { () throws(GeometryError) in
                try Polyline(coordinates: buffer, pathOffsets: offsets)
            })

        case .polygon:
            componentStarts.removeAll(keepingCapacity: true)
            var values: [Double] = []
            var rings = [0]
            try readPolygonText(into: &values, rings: &rings, &dimensions)
            let buffer = CoordinateBuffer(values: values, layout: dimensions.layout ?? .xy)
            let parts = [0, rings.count - 1]
            return .polygon(try validated(at: start) { () throws(GeometryError) in
                try Polygon(coordinates: buffer, ringOffsets: rings, partOffsets: parts)
            })

        case .multipolygon:
            componentStarts.removeAll(keepingCapacity: true)
            var values: [Double] = []
            var rings = [0]
            var parts = [0]
            try expect(Self.openParen)
            try readMembers { (parser: inout WKTParser) throws(WKTFailure) in
                try parser.readPolygonText(into: &values, rings: &rings, &dimensions)
                parts.append(rings.count - 1)
            }
            let buffer = CoordinateBuffer(values: values, layout: dimensions.layout ?? .xy)
            return .polygon(try validated(at: start) { () throws(GeometryError) in
                try Polygon(coordinates: buffer, ringOffsets: rings, partOffsets: parts)
            })

        case .collection:
            var members: [Geometry] = []
            try expect(Self.openParen)
            repeat {
                members.append(try parseGeometry(depth: depth + 1, inherited: tag ?? inherited))
            } while consume(Self.comma)
            guard consume(Self.closeParen) else { throw failure("expected ',' or ')'") }
            return .collection(GeometryCollection(members))
        }
    }

    /// Runs a model initializer, turning its error into a failure at the path or ring it names
    /// (or at `start`).
    private func validated<T>(at start: Int, _ make: () throws(GeometryError) -> T) throws(WKTFailure) -> T {
        do throws(GeometryError) {
            return try make()
        } catch {
            var offset = start
            if let component = error.componentIndex, component < componentStarts.count {
                offset = componentStarts[component]
            }
            throw failure(error.message, at: offset)
        }
    }

    /// The empty geometry of a type, in `layout`.
    private func emptyGeometry(_ type: WKTType, layout: CoordinateLayout, start: Int) throws(WKTFailure) -> Geometry {
        let buffer = CoordinateBuffer(layout: layout)
        do throws(GeometryError) {
            switch type {
            case .point:
                return .point(Point(x: .nan, y: .nan, z: layout.hasZ ? .nan : nil, m: layout.hasM ? .nan : nil))
            case .multipoint:
                return .multipoint(try Multipoint(coordinates: buffer))
            case .linestring, .multilinestring:
                return .polyline(try Polyline(coordinates: buffer, pathOffsets: [0]))
            case .polygon, .multipolygon:
                return .polygon(try Polygon(coordinates: buffer, ringOffsets: [0], partOffsets: [0]))
            case .collection:
                return .collection(GeometryCollection([]))
            }
        } catch {
            throw failure(error.message, at: start)
        }
    }
}

// MARK: - Writer

/// Builds WKT text.
struct WKTWriter {
    var text = ""
    /// Writes a number that is not NaN.
    var number: (Double) -> String = formatNumber

    mutating func write(_ geometry: Geometry) {
        switch geometry {
        case .point(let point):
            text += "POINT"
            writeTag(point.layout)
            if point.isEmpty {
                text += "EMPTY"
                return
            }
            text += "("
            text += number(point.x)
            text += " "
            text += number(point.y)
            if let z = point.z {
                text += " "
                text += number(z)
            }
            if let m = point.m {
                text += " "
                text += m.isNaN ? "NaN" : number(m)
            }
            text += ")"

        case .multipoint(let multipoint):
            let coordinates = multipoint.coordinates
            text += "MULTIPOINT"
            writeTag(coordinates.layout)
            if coordinates.isEmpty {
                text += "EMPTY"
                return
            }
            text += "("
            for i in 0..<coordinates.count {
                if i > 0 { text += ", " }
                text += "("
                writePosition(coordinates, i)
                text += ")"
            }
            text += ")"

        case .polyline(let polyline):
            let coordinates = polyline.coordinates
            let multi = polyline.pathCount > 1
            text += multi ? "MULTILINESTRING" : "LINESTRING"
            writeTag(coordinates.layout)
            if polyline.isEmpty {
                text += "EMPTY"
                return
            }
            if multi { text += "(" }
            for p in 0..<polyline.pathCount {
                if p > 0 { text += ", " }
                writePositionList(coordinates, polyline.pathRange(p))
            }
            if multi { text += ")" }

        case .polygon(let polygon):
            let multi = polygon.partCount > 1
            text += multi ? "MULTIPOLYGON" : "POLYGON"
            writeTag(polygon.coordinates.layout)
            if polygon.isEmpty {
                text += "EMPTY"
                return
            }
            if multi { text += "(" }
            for p in 0..<polygon.partCount {
                if p > 0 { text += ", " }
                text += "("
                for r in polygon.partRingRange(p) {
                    if r > polygon.partOffsets[p] { text += ", " }
                    writePositionList(polygon.coordinates, polygon.ringRange(r))
                }
                text += ")"
            }
            if multi { text += ")" }

        case .envelope(let envelope):
            guard !envelope.isEmpty else {
                text += "POLYGON EMPTY"
                return
            }
            let ring = CoordinateBuffer(points: envelope.ring, layout: .xy)
            text += "POLYGON (("
            for i in 0..<ring.count {
                if i > 0 { text += ", " }
                writePosition(ring, i)
            }
            text += "))"

        case .collection(let collection):
            text += "GEOMETRYCOLLECTION"
            let members = collection.geometries
            writeTag(Self.collectionLayout(of: members))
            if members.isEmpty {
                text += "EMPTY"
                return
            }
            text += "("
            for (i, member) in members.enumerated() {
                if i > 0 { text += ", " }
                write(member)
            }
            text += ")"
        }
    }

    /// The tag a collection of `members` is written with: the layout of every non-collection
    /// geometry inside it (at any depth) when they all have the same one, else `.xy` (no tag).
    ///
    /// Untagged members of a tagged collection take its tag when read back, so the collection
    /// may only be tagged when no geometry inside it would be written without a tag.
    static func collectionLayout(of members: [Geometry]) -> CoordinateLayout {
        var found: CoordinateLayout?
        var mixed = false
        func visit(_ members: [Geometry]) {
            for member in members where !mixed {
                if case .collection(let inner) = member {
                    visit(inner.geometries)
                    continue
                }
                let layout = member.layout
                if let found, found != layout { mixed = true }
                found = layout
            }
        }
        visit(members)
        return mixed ? .xy : found ?? .xy
    }

    /// Writes `" Z "`, `" M "`, `" ZM "` or `" "`.
    private mutating func writeTag(_ layout: CoordinateLayout) {
        switch (layout.hasZ, layout.hasM) {
        case (false, false): text += " "
        case (true, false): text += " Z "
        case (false, true): text += " M "
        case (true, true): text += " ZM "
        }
    }

    private mutating func writePosition(_ coordinates: CoordinateBuffer, _ index: Int) {
        let stride = coordinates.layout.stride
        let base = index * stride
        for k in 0..<stride {
            if k > 0 { text += " " }
            let value = coordinates.values[base + k]
            // Only m can be NaN ("no measure"); the reader takes `NaN` there.
            text += value.isNaN ? "NaN" : number(value)
        }
    }

    private mutating func writePositionList(_ coordinates: CoordinateBuffer, _ range: Range<Int>) {
        text += "("
        for i in range {
            if i > range.lowerBound { text += ", " }
            writePosition(coordinates, i)
        }
        text += ")"
    }
}

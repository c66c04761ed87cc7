import SieveFeatures
import SieveGeometry
import SieveJSON

/// The layout of the JSON the feature writers produce: compact or indented, and how geometry
/// coordinates are written (see ``FeatureWriterOptions``).
///
/// The writers lay out their documents member by member through ``member(_:first:depth:into:)``,
/// ``element(first:depth:into:)`` and ``close(_:depth:empty:into:)``; compact, these append
/// exactly the separators of compact JSON, so the compact text does not depend on the layout
/// code. Values built as ``JSONValue`` (geometries, field descriptions) go through
/// ``write(_:depth:numbers:into:)``.
package struct JSONLayout: Sendable {
    /// Whether to indent.
    package let pretty: Bool
    /// How geometry coordinates are written.
    package let coordinates: CoordinateFormat

    /// A layout.
    package init(pretty: Bool, coordinates: CoordinateFormat) {
        self.pretty = pretty
        self.coordinates = coordinates
    }

    /// The layout of `options`.
    init(_ options: FeatureWriterOptions) {
        self.init(pretty: options.pretty, coordinates: options.coordinateFormat)
    }

    /// A line break and the indentation of `depth` levels (pretty only).
    @inline(__always)
    package func newline(_ depth: Int, into bytes: inout [UInt8]) {
        guard pretty else { return }
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    /// The separator between a member name and its value: `:` or `: `.
    package var colon: [UInt8] { pretty ? Array(": ".utf8) : [UInt8(ascii: ":")] }

    /// Starts a member of an object at `depth`: a comma unless it is the `first`, the line break,
    /// the name (given quoted, as JSON text, without the colon) and the colon.
    @inline(__always)
    package func member(_ quotedName: StaticString, first: Bool = false, depth: Int, into bytes: inout [UInt8]) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        newline(depth, into: &bytes)
        quotedName.withUTF8Buffer { bytes.append(contentsOf: $0) }
        if pretty {
            bytes.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
        } else {
            bytes.append(UInt8(ascii: ":"))
        }
    }

    /// Starts an element of an array (or a member whose name the caller writes) at `depth`: a
    /// comma unless it is the `first`, and the line break.
    @inline(__always)
    package func element(first: Bool, depth: Int, into bytes: inout [UInt8]) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        newline(depth, into: &bytes)
    }

    /// Ends an object or array whose members sat at `depth + 1`: the line break back to `depth`
    /// (unless it is `empty`) and `bracket`.
    @inline(__always)
    package func close(_ bracket: UInt8, depth: Int, empty: Bool, into bytes: inout [UInt8]) {
        if !empty { newline(depth, into: &bytes) }
        bytes.append(bracket)
    }

    /// How ``write(_:depth:numbers:into:)`` writes numbers.
    package enum Numbers: Sendable {
        /// As the compact writer (`JSONWriter`) writes them.
        case plain
        /// As coordinates, in ``JSONLayout/coordinates`` (integer literals, such as a wkid,
        /// excepted).
        case coordinates
        /// Keeping what they were read as: an integer literal as an integer, any other number
        /// with a fraction or an exponent (`889953.0`), so that the text reads back as the
        /// same kind of number.
        case reread
    }

    /// Writes `value` whose first line starts at `depth`, its numbers as `numbers` says.
    package func write(_ value: JSONValue, depth: Int, numbers: Numbers, into bytes: inout [UInt8]) {
        switch value {
        case .number(let number, _):
            switch numbers {
            case .coordinates where !number.isIntegerLiteral:
                coordinates.appendJSON(number.double, to: &bytes)
            case .reread where !(number.isIntegerLiteral && number.int64 != nil):
                JSONWriter.writeAttributeDouble(number.double, into: &bytes)
            default:
                JSONWriter.writeNumber(number, into: &bytes)
            }
        case .array(let elements, _):
            bytes.append(UInt8(ascii: "["))
            if pretty, elements.allSatisfy(Self.isNumberOrNull) {
                // Positions and number lists on one line.
                for (i, element) in elements.enumerated() {
                    if i > 0 { bytes.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")]) }
                    write(element, depth: depth + 1, numbers: numbers, into: &bytes)
                }
                bytes.append(UInt8(ascii: "]"))
                return
            }
            for (i, element) in elements.enumerated() {
                self.element(first: i == 0, depth: depth + 1, into: &bytes)
                write(element, depth: depth + 1, numbers: numbers, into: &bytes)
            }
            close(UInt8(ascii: "]"), depth: depth, empty: elements.isEmpty, into: &bytes)
        case .object(let object, _):
            bytes.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                element(first: i == 0, depth: depth + 1, into: &bytes)
                JSONWriter.writeString(member.key, into: &bytes)
                bytes.append(contentsOf: colon)
                write(member.value, depth: depth + 1, numbers: numbers, into: &bytes)
            }
            close(UInt8(ascii: "}"), depth: depth, empty: object.members.isEmpty, into: &bytes)
        case .null, .bool, .string:
            JSONWriter.write(value, into: &bytes)
        }
    }

    private static func isNumberOrNull(_ value: JSONValue) -> Bool {
        switch value {
        case .number, .null: true
        default: false
        }
    }

    /// `json` (one compact JSON document) laid out in this layout, numbers unchanged; `nil`
    /// when it is not JSON.
    package func relaid(_ json: [UInt8]) -> [UInt8]? {
        guard pretty else { return json }
        guard let value = try? JSONReader.parse(bytes: json) else { return nil }
        var bytes: [UInt8] = []
        write(value, depth: 0, numbers: .reread, into: &bytes)
        return bytes
    }
}

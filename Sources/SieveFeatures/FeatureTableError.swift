// Re-exported: the error's category, its location and the `~=` that matches its kinds are
// SieveBase's, and a client of this module uses them with the error.
@_exported import SieveBase
import SieveGeometry
import SieveJSON

/// The error thrown by SieveFeatures: reading a schema, building a ``FeatureTable`` or loading
/// one from GeoJSON or Esri JSON.
///
/// The error says what kind of problem it is (``kind``), what is wrong (``message``) and, when
/// known, where: the 1-based character ``position`` in the JSON text, the 0-based
/// ``featureIndex`` in the file's `features` array, the feature's ``objectID`` and the
/// ``fieldName``.
///
/// ```swift
/// do {
///     _ = try FeatureTable.load(geoJSON: text)
/// } catch FeatureTableError.duplicateObjectID {
///     // …
/// } catch {
///     print(error)  // duplicate object ID in features[3] (object ID 7): …
/// }
/// ```
public struct FeatureTableError: GeoSieveKindedError, Hashable {
    /// The category of a ``FeatureTableError``. New kinds may be added; `switch` over them with a
    /// `default` case.
    public struct Kind: GeoSieveErrorKind {
        /// The error type of these kinds.
        public typealias Failure = FeatureTableError
        /// The kind's name, as the error's description starts with it.
        public var rawValue: String
        /// Creates a kind from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Text that is not JSON at all.
        public static let invalidJSON = Kind(rawValue: "invalid JSON")
        /// JSON that is not a GeoJSON FeatureCollection of the expected shape.
        public static let invalidGeoJSON = Kind(rawValue: "invalid GeoJSON")
        /// JSON that is not an Esri JSON FeatureSet of the expected shape.
        public static let invalidEsriJSON = Kind(rawValue: "invalid Esri JSON")
        /// A feature's geometry that cannot be read.
        public static let invalidGeometry = Kind(rawValue: "invalid geometry")
        /// Features of different geometry types in one table.
        public static let mixedGeometryTypes = Kind(rawValue: "mixed geometry types")
        /// A schema or Esri `fields` description that is malformed: a missing name, an unknown
        /// field type, duplicate field names, a bad domain, an object-ID field that is missing
        /// or not an integer field.
        public static let invalidSchema = Kind(rawValue: "invalid schema")
        /// A value that cannot be converted to its field's type.
        public static let conversionFailed = Kind(rawValue: "conversion failed")
        /// Two features with the same object ID.
        public static let duplicateObjectID = Kind(rawValue: "duplicate object ID")
        /// A spatial reference the loader cannot name by WKID (e.g. a `crs` member it does not
        /// understand, or a spatial reference given only as WKT).
        public static let unsupportedSpatialReference = Kind(rawValue: "unsupported spatial reference")
        /// Columns and geometries given to ``FeatureTable/init(schema:columns:geometries:)``
        /// that do not fit the schema or each other.
        public static let invalidTable = Kind(rawValue: "invalid table")
        /// A file that cannot be read.
        public static let unreadableFile = Kind(rawValue: "unreadable file")
        /// Input longer than the limit the reader was given.
        public static let inputTooLarge = Kind(rawValue: "input too large")
    }

    /// What kind of problem this is.
    public var kind: Kind
    /// What is wrong, in words.
    public var message: String
    /// The 1-based character position in the JSON text, when the problem is tied to one.
    public var position: Int?
    /// The 1-based line of ``position`` in the text, when the loader located it.
    public var line: Int?
    /// The 1-based column (in characters) of ``position`` on its ``line``.
    public var column: Int?
    /// The 0-based byte offset of ``position`` in the text.
    public var byteOffset: Int?
    /// The 0-based index of the offending feature in the file's `features` array (for
    /// GeoJSONSeq, its line's feature number).
    public var featureIndex: Int?
    /// The object ID of the offending feature, when it is known.
    public var objectID: Int64?
    /// The name of the offending field.
    public var fieldName: String?

    /// Creates an error.
    public init(
        _ kind: Kind, _ message: String, position: Int? = nil, featureIndex: Int? = nil, objectID: Int64? = nil,
        fieldName: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.position = position
        self.featureIndex = featureIndex
        self.objectID = objectID
        self.fieldName = fieldName
    }

    /// How the error is reported: ``/SieveBase/ErrorCategory/unreadable`` for an unreadable file,
    /// ``/SieveBase/ErrorCategory/tooLarge`` for input over a limit (``Kind/inputTooLarge``,
    /// ``Kind/tooManyFields``), ``/SieveBase/ErrorCategory/timedOut`` for a cancelled query,
    /// ``/SieveBase/ErrorCategory/conflict`` for a duplicate object ID,
    /// ``/SieveBase/ErrorCategory/unsupported`` for a spatial reference the loader cannot name,
    /// ``/SieveBase/ErrorCategory/invalidRequest`` for the rest (malformed input, schema, values,
    /// query parameters, edits).
    public var category: ErrorCategory {
        switch kind {
        case .unreadableFile: .unreadable
        case .inputTooLarge, .tooManyFields: .tooLarge
        case .cancelled: .timedOut
        case .duplicateObjectID: .conflict
        case .unsupportedSpatialReference: .unsupported
        default: .invalidRequest
        }
    }

    /// Where in the input: the ``line`` and ``column`` when the loader located the error, else
    /// the character ``position``, and the ``featureIndex``; `nil` when none is known.
    public var inputLocation: InputLocation? {
        guard line != nil || position != nil || featureIndex != nil else { return nil }
        if let line, let column {
            return InputLocation(line: line, column: column, featureIndex: featureIndex)
        }
        return InputLocation(column: position, featureIndex: featureIndex)
    }

    /// One line: `<kind>[ at line L, column C (byte offset B)][ in features[i]][ (object ID x)][, field "f"]: <message>`
    /// (`at position N` when the line is not known).
    public var description: String {
        var text = kind.rawValue
        if let line, let column, let byteOffset {
            text += " at line \(line), column \(column) (byte offset \(byteOffset))"
        } else if let position {
            text += " at position \(position)"
        }
        if let featureIndex {
            text += " in features[\(featureIndex)]"
            if let objectID { text += " (object ID \(objectID))" }
        } else if let objectID {
            text += " in the feature with object ID \(objectID)"
        }
        if let fieldName { text += ", field \(JSONKey.quoted(fieldName))" }
        return text + ": " + message
    }

    /// See ``Kind/invalidJSON``.
    public static var invalidJSON: Kind { .invalidJSON }
    /// See ``Kind/invalidGeoJSON``.
    public static var invalidGeoJSON: Kind { .invalidGeoJSON }
    /// See ``Kind/invalidEsriJSON``.
    public static var invalidEsriJSON: Kind { .invalidEsriJSON }
    /// See ``Kind/invalidGeometry``.
    public static var invalidGeometry: Kind { .invalidGeometry }
    /// See ``Kind/mixedGeometryTypes``.
    public static var mixedGeometryTypes: Kind { .mixedGeometryTypes }
    /// See ``Kind/invalidSchema``.
    public static var invalidSchema: Kind { .invalidSchema }
    /// See ``Kind/conversionFailed``.
    public static var conversionFailed: Kind { .conversionFailed }
    /// See ``Kind/duplicateObjectID``.
    public static var duplicateObjectID: Kind { .duplicateObjectID }
    /// Fills ``line``, ``column`` and ``byteOffset`` from ``position`` in `text` (UTF-8).
    package mutating func locate(in text: UnsafeBufferPointer<UInt8>) {
        guard let position, line == nil else { return }
        var line = 1
        var column = 1
        var characters = 1
        var offset = 0
        while offset < text.count, characters < position {
            let byte = text[offset]
            offset += 1
            if byte & 0xC0 == 0x80 { continue }
            // The character that starts here ends at the next lead byte.
            var end = offset
            while end < text.count, text[end] & 0xC0 == 0x80 { end += 1 }
            offset = end
            characters += 1
            if byte == 0x0A {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        self.line = line
        self.column = column
        self.byteOffset = offset
    }

    /// See ``Kind/unsupportedSpatialReference``.
    public static var unsupportedSpatialReference: Kind { .unsupportedSpatialReference }
    /// See ``Kind/invalidTable``.
    public static var invalidTable: Kind { .invalidTable }
    /// See ``Kind/unreadableFile``.
    public static var unreadableFile: Kind { .unreadableFile }
}

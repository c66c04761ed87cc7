// Re-exported: the error's category, its location and the `~=` that matches its kinds are
// SieveBase's, and a client of this module uses them with the error.
@_exported import SieveBase
import SieveJSON

/// The error thrown by SieveGeometry: reading a geometry from text or bytes, building one from
/// coordinates, or projecting it.
///
/// The error says what is wrong (``message``), what kind of problem it is (``kind``) and where:
/// a 1-based character ``position`` in the input text for WKT and JSON, a byte offset for WKB,
/// and for JSON also a ``path`` such as `coordinates[0][3]`.
///
/// ```swift
/// do {
///     _ = try Geometry(wkt: "POINT (1 2")
/// } catch let error as GeometryError {
///     print(error)  // invalid WKT at position 11: expected ')'
/// }
/// ```
///
/// Match on a kind with `catch GeometryError.invalidWKT { … }`.
public struct GeometryError: GeoSieveKindedError, Hashable {
    /// The category of a ``GeometryError``. New kinds may be added; `switch` over them with a
    /// `default` case.
    public struct Kind: GeoSieveErrorKind {
        /// The error type of these kinds.
        public typealias Failure = GeometryError
        /// The kind's name, as the error's description starts with it.
        public var rawValue: String
        /// Creates a kind from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Malformed or truncated Well-Known Text.
        public static let invalidWKT = Kind(rawValue: "invalid WKT")
        /// Malformed or truncated Well-Known Binary.
        public static let invalidWKB = Kind(rawValue: "invalid WKB")
        /// Malformed JSON text (before any geometry is read from it).
        public static let invalidJSON = Kind(rawValue: "invalid JSON")
        /// JSON that is not a valid GeoJSON geometry object.
        public static let invalidGeoJSON = Kind(rawValue: "invalid GeoJSON")
        /// JSON that is not a valid Esri JSON geometry object.
        public static let invalidEsriJSON = Kind(rawValue: "invalid Esri JSON")
        /// Text that is none of the accepted geometry notations.
        public static let unrecognizedFormat = Kind(rawValue: "unrecognized geometry")
        /// Coordinates that cannot form the geometry: NaN or infinite values, a path with fewer
        /// than two points, a ring with fewer than four points or not closed.
        public static let invalidCoordinates = Kind(rawValue: "invalid coordinates")
        /// A projection the engine does not support.
        public static let unsupportedProjection = Kind(rawValue: "unsupported projection")
    }

    /// What kind of problem this is.
    public var kind: Kind
    /// What is wrong, in words.
    public var message: String
    /// Where in the input: a 1-based character position for text (WKT, JSON), a 0-based byte
    /// offset for WKB. `nil` when the error is not tied to a position.
    public var position: Int?
    /// For JSON input, the path of the offending member, e.g. `rings[1][0]`.
    public var path: String?
    /// For errors of the model's initializers: the index of the offending path, ring or part
    /// (as the message names it), so that a codec can point at where it was written.
    package var componentIndex: Int?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, position: Int? = nil, path: String? = nil) {
        self.kind = kind
        self.message = message
        self.position = position
        self.path = path
    }

    /// How the error is reported: ``/SieveBase/ErrorCategory/unsupported`` for a projection the
    /// engine does not support, ``/SieveBase/ErrorCategory/invalidRequest`` for every geometry that
    /// cannot be read or built.
    public var category: ErrorCategory {
        kind == .unsupportedProjection ? .unsupported : .invalidRequest
    }

    /// The ``position`` (a character offset, or for WKB a byte offset) and the JSON ``path``,
    /// when the error has either.
    public var inputLocation: InputLocation? {
        guard position != nil || !(path ?? "").isEmpty else { return nil }
        return InputLocation(column: position, path: path)
    }

    /// One line: `<kind>[ at position N][ (path)]: <message>`.
    public var description: String {
        var text = kind.rawValue
        if let position {
            text += kind == .invalidWKB ? " at byte \(position)" : " at position \(position)"
        }
        if let path, !path.isEmpty {
            text += " (\(path))"
        }
        return text + ": " + message
    }

    /// `catch GeometryError.invalidWKT` reads as a kind of this type.
    public static var invalidWKT: Kind { .invalidWKT }
    /// See ``Kind/invalidWKB``.
    public static var invalidWKB: Kind { .invalidWKB }
    /// See ``Kind/invalidJSON``.
    public static var invalidJSON: Kind { .invalidJSON }
    /// See ``Kind/invalidGeoJSON``.
    public static var invalidGeoJSON: Kind { .invalidGeoJSON }
    /// See ``Kind/invalidEsriJSON``.
    public static var invalidEsriJSON: Kind { .invalidEsriJSON }
    /// See ``Kind/invalidCoordinates``.
    public static var invalidCoordinates: Kind { .invalidCoordinates }
    /// See ``Kind/unsupportedProjection``.
    public static var unsupportedProjection: Kind { .unsupportedProjection }
}

/// JSON text is read by SieveJSON's reader, which throws this module's error for text that is not
/// JSON: kind ``GeometryError/Kind/invalidJSON`` at the character position.
extension GeometryError: JSONReadFailure {
    public init(jsonSyntax message: String, position: Int) {
        self.init(.invalidJSON, message, position: position)
    }
}

/// The JSON reader of the geometry codecs and of the modules above that read features, filters
/// and requests: its errors are ``GeometryError``s of kind ``GeometryError/Kind/invalidJSON``.
package typealias JSONReader = JSONTextReader<GeometryError>

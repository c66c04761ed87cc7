// Re-exported: the error's category, its location and the `~=` that matches its kinds are
// SieveBase's, and a client of this module uses them with the error.
@_exported import SieveBase

/// An error reading a renderer, symbol or drawing info from JSON, or binding a renderer to a
/// table.
///
/// The description is one line: `<kind>[ at position N][ (path)]: <message>`, where the path
/// names the offending JSON member from the value read, e.g.
/// `uniqueValueInfos[2].symbol.type`, and the position is the 1-based character where it
/// starts in the text.
public struct RendererError: GeoSieveKindedError, Hashable {
    /// The category of a ``RendererError``.
    public enum Kind: String, GeoSieveErrorKind {
        /// The error type of these kinds.
        public typealias Failure = RendererError
        /// Text that is not JSON at all.
        case invalidJSON = "invalid JSON"
        /// JSON of the wrong shape: a missing member, a member of the wrong JSON type, a value
        /// out of range, an unknown style or normalization name.
        case invalidRenderer = "invalid renderer"
        /// A symbol `type` other than `esriSMS`, `esriSLS` and `esriSFS`.
        case unsupportedSymbolType = "unsupported symbol type"
        /// A renderer `type` other than `simple`, `uniqueValue` and `classBreaks`, or a renderer
        /// that needs a feature this engine does not evaluate (an Arcade `valueExpression`).
        case unsupportedRenderer = "unsupported renderer"
        /// A field the renderer names that the table does not have.
        case unknownField = "unknown field"
        /// A field of a type the renderer cannot use (class breaks on a string field, …).
        case invalidFieldType = "invalid field type"
        /// Percent-of-total normalization without a total to divide by.
        case missingNormalizationTotal = "missing normalization total"
    }

    /// What kind of problem this is.
    public var kind: Kind
    /// What is wrong, in words.
    public var message: String
    /// The path of the offending JSON member (`classBreakInfos[0].classMaxValue`), or the
    /// renderer property naming a field (`field1`, `normalizationField`); `nil` when the
    /// error concerns the whole value.
    public var path: String?
    /// The 1-based character position in the JSON text where the offending value starts, when
    /// the error comes from reading text.
    public var position: Int?
    /// The field name the error is about, when it is about one.
    public var fieldName: String?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, path: String? = nil, position: Int? = nil, fieldName: String? = nil) {
        self.kind = kind
        self.message = message
        self.path = path
        self.position = position
        self.fieldName = fieldName
    }

    /// How the error is reported: ``/SieveBase/ErrorCategory/unsupported`` for a symbol or renderer
    /// type this engine does not draw, ``/SieveBase/ErrorCategory/invalidRequest`` for the rest
    /// (malformed JSON, a field the table lacks or cannot use).
    public var category: ErrorCategory {
        switch kind {
        case .unsupportedSymbolType, .unsupportedRenderer: .unsupported
        default: .invalidRequest
        }
    }

    /// The character ``position`` in the JSON text and the ``path`` of the offending member,
    /// when the error has either.
    public var inputLocation: InputLocation? {
        let position = self.position.flatMap { $0 > 0 ? $0 : nil }
        guard position != nil || !(path ?? "").isEmpty else { return nil }
        return InputLocation(column: position, path: path)
    }

    /// One line: `<kind>[ at position N][ (path)]: <message>`.
    public var description: String {
        var text = kind.rawValue
        if let position, position > 0 { text += " at position \(position)" }
        if let path, !path.isEmpty { text += " (\(path))" }
        return text + ": " + message
    }
}

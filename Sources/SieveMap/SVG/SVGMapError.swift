import SieveBase

/// The error thrown by ``SVGMapWriter``: a view that cannot be drawn, or a layer that cannot be
/// added.
///
/// ```swift
/// do {
///     _ = try SVGMapWriter(extent: Envelope(xmin: 0, ymin: 0, xmax: 0, ymax: 10), width: 800, height: 600)
/// } catch let error as SVGMapError {
///     print(error)  // invalid extent: the extent has zero width (0 × 10)
/// }
/// ```
public struct SVGMapError: GeoSieveKindedError, Hashable {
    /// The category of an ``SVGMapError``.
    public enum Kind: String, GeoSieveErrorKind {
        /// The error type of these kinds.
        public typealias Failure = SVGMapError
        /// The map extent is empty, has zero width or height, or has non-finite bounds.
        case invalidExtent = "invalid extent"
        /// The view's width or height in pixels is not positive, or too large.
        case invalidSize = "invalid size"
        /// A layer's name is already used by a layer of the map.
        case duplicateLayerName = "duplicate layer name"
        /// A row number passed to ``SVGMapWriter/addLayer(name:table:rows:style:selected:opacity:)`` is not
        /// a row of the table.
        case rowOutOfRange = "row out of range"
    }

    /// What kind of problem this is.
    public var kind: Kind
    /// What is wrong, in words.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Every SVG map error is the caller's (``/SieveBase/ErrorCategory/invalidRequest``): a view or
    /// a layer that cannot be drawn as given. Its description is `kind: message`.
    public var category: ErrorCategory { .invalidRequest }
}

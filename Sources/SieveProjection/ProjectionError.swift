// Re-exported: the error's category, its location and the `~=` that matches its kinds are
// SieveBase's, and a client of this module uses them with the error.
@_exported import SieveBase

/// The error thrown by SieveProjection: a spatial reference PROJ does not know, a pair of
/// references PROJ cannot transform between, or positions that do not transform.
///
/// The message names the code at fault and includes PROJ's own text when PROJ gave one;
/// ``source`` and ``target`` name the WKIDs of the pair being projected (only ``source`` is set
/// when a single reference was checked).
public struct ProjectionError: GeoSieveKindedError, Hashable {
    /// The category of a ``ProjectionError``.
    public struct Kind: GeoSieveErrorKind {
        /// The error type of these kinds.
        public typealias Failure = ProjectionError
        /// The kind's name, as the error's description starts with it.
        public var rawValue: String
        /// Creates a kind from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A WKID that is neither an EPSG nor an ESRI code PROJ knows, or whose definition is
        /// not a coordinate reference system.
        public static let unknownSpatialReference = Kind(rawValue: "unknown spatial reference")
        /// A reference PROJ knows that does not hold positions on a map: a vertical,
        /// geocentric, temporal or engineering coordinate reference system.
        public static let unsupportedSpatialReference = Kind(rawValue: "unsupported spatial reference")
        /// PROJ found no coordinate operation between the two references.
        public static let noTransformation = Kind(rawValue: "no transformation")
        /// A position could not be transformed: PROJ reported an error or gave an infinite or
        /// NaN coordinate (typically a position outside the area the projection can represent,
        /// such as a pole in a conic projection centred on the other hemisphere).
        public static let transformationFailed = Kind(rawValue: "transformation failed")
        /// Densifying a geometry would add more positions than
        /// ``Densification/maximumAddedPositions``.
        public static let tooComplex = Kind(rawValue: "too complex to densify")
        /// A PROJ context could not be created.
        public static let initialization = Kind(rawValue: "PROJ initialization failed")
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// What went wrong, in one line, with PROJ's message when it gave one.
    public var message: String
    /// The WKID of the reference projected from, when known.
    public var source: Int?
    /// The WKID of the reference projected to, when known.
    public var target: Int?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, source: Int? = nil, target: Int? = nil) {
        self.kind = kind
        self.message = message
        self.source = source
        self.target = target
    }

    /// How the error is reported: ``/SieveBase/ErrorCategory/unsupported`` for a reference or a
    /// pair of references PROJ cannot project with, ``/SieveBase/ErrorCategory/tooLarge`` for a
    /// geometry too complex to densify, ``/SieveBase/ErrorCategory/internal`` when PROJ could not
    /// be initialized, and ``/SieveBase/ErrorCategory/invalidRequest`` for an unknown WKID or
    /// positions that do not transform.
    public var category: ErrorCategory {
        switch kind {
        case .unsupportedSpatialReference, .noTransformation: .unsupported
        case .tooComplex: .tooLarge
        case .initialization: .internal
        default: .invalidRequest
        }
    }

    // The description is the default one: `transformation failed: cannot project (0, -90) from
    // wkid 4326 to wkid 2263: …` (`kind: message`).
}

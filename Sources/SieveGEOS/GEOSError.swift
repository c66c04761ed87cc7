// Re-exported: the error's category, its location and the `~=` that matches its kinds are
// SieveBase's, and a client of this module uses them with the error.
@_exported import SieveBase

/// The error thrown by SieveGEOS: GEOS raised an exception, or a geometry could not be handed
/// to GEOS.
///
/// GEOS reports failures through a message handler; GeoSieve's handler only stores the message
/// on the ``GEOSContext``, and the Swift call that saw the failure sentinel throws it, together
/// with the name of the GEOS function (``function``).
public struct GEOSError: GeoSieveKindedError, Hashable {
    /// The category of a ``GEOSError``.
    public struct Kind: GeoSieveErrorKind {
        /// The error type of these kinds.
        public typealias Failure = GEOSError
        /// The kind's name, as the error's description starts with it.
        public var rawValue: String
        /// Creates a kind from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// GEOS raised an exception (a topology exception, an illegal argument, …).
        public static let geosException = Kind(rawValue: "GEOS exception")
        /// A DE-9IM pattern that is not 9 characters from `T F * 0 1 2`.
        public static let invalidPattern = Kind(rawValue: "invalid DE-9IM pattern")
        /// A pair of geometries whose DE-9IM matrix GEOS would take too long to compute (see
        /// ``RelateCost``).
        public static let tooComplex = Kind(rawValue: "too complex for GEOS's relate")
        /// GEOS could not be initialized.
        public static let initialization = Kind(rawValue: "GEOS initialization failed")
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// The message, for GEOS exceptions the text GEOS gave (e.g.
    /// `IllegalArgumentException: This method does not support GeometryCollection arguments`).
    public var message: String
    /// The GEOS C function that failed, e.g. `GEOSRelate_r`; empty when not from a GEOS call.
    public var function: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, function: String = "") {
        self.kind = kind
        self.message = message
        self.function = function
    }

    /// How the error is reported: ``/SieveBase/ErrorCategory/tooLarge`` for a pair of geometries
    /// too complex to relate, ``/SieveBase/ErrorCategory/internal`` when GEOS could not be
    /// initialized, and ``/SieveBase/ErrorCategory/invalidRequest`` for a GEOS exception or a bad
    /// DE-9IM pattern — GEOS raises on geometries it cannot work with (a collection where it takes
    /// none, a topology it cannot resolve), which the caller can correct.
    public var category: ErrorCategory {
        switch kind {
        case .tooComplex: .tooLarge
        case .initialization: .internal
        default: .invalidRequest
        }
    }

    /// One line: `GEOS exception in GEOSRelate_r: <message>`.
    public var description: String {
        function.isEmpty ? "\(kind): \(message)" : "\(kind) in \(function): \(message)"
    }
}

/// The error thrown by SieveGEOS: GEOS raised an exception, or a geometry could not be handed
/// to GEOS.
///
/// GEOS reports failures through a message handler; GeoSieve's handler only stores the message
/// on the ``GEOSContext``, and the Swift call that saw the failure sentinel throws it, together
/// with the name of the GEOS function (``function``).
public struct GEOSError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The category of a ``GEOSError``.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// GEOS raised an exception (a topology exception, an illegal argument, …).
        public static let geosException = Kind(rawValue: "GEOS exception")
        /// A DE-9IM pattern that is not 9 characters from `T F * 0 1 2`.
        public static let invalidPattern = Kind(rawValue: "invalid DE-9IM pattern")
        /// A pair of geometries whose DE-9IM matrix GEOS would take too long to compute (see
        /// ``RelateCost``).
        public static let tooComplex = Kind(rawValue: "too complex for GEOS's relate")
        /// GEOS could not be initialized.
        public static let initialization = Kind(rawValue: "GEOS initialization failed")

        /// Lets `catch GEOSError.geosException` match every error of that kind.
        public static func ~= (kind: Kind, error: any Error) -> Bool {
            (error as? GEOSError)?.kind == kind
        }
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

    /// One line: `GEOS exception in GEOSRelate_r: <message>`.
    public var description: String {
        function.isEmpty ? "\(kind): \(message)" : "\(kind) in \(function): \(message)"
    }
}

// Re-exported: the error's category, its location and the `~=` that matches its kinds are
// SieveBase's, and a client of this module uses them with the error.
@_exported import SieveBase
import SieveFeatures
import SieveGeometry
import SieveJSON

/// The error thrown by SieveFormats when a GeoPackage cannot be read or written.
///
/// The error says what kind of problem it is (``kind``), what is wrong (``message``) and, when
/// known, where: the file, the layer (feature table), the feature's primary key (``featureID``)
/// and the field. Its ``description`` is one line:
///
/// ```
/// invalid value in parcels.gpkg, layer "parcels", fid 17, field "AREA": expected a number (REAL), found TEXT 'n/a'
/// ```
public struct GeoPackageError: GeoSieveKindedError, Hashable {
    /// The category of a ``GeoPackageError``. New kinds may be added; `switch` over them with a
    /// `default` case.
    public struct Kind: GeoSieveErrorKind {
        /// The error type of these kinds.
        public typealias Failure = GeoPackageError
        /// The kind's name, as the error's description starts with it.
        public var rawValue: String
        /// Creates a kind from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The file cannot be opened or read (missing, a directory, no permission, an I/O error).
        public static let cannotOpen = Kind(rawValue: "cannot open")
        /// The file is not an SQLite database, or lacks the GeoPackage tables
        /// (`gpkg_contents`, `gpkg_geometry_columns`, `gpkg_spatial_ref_sys`) or their columns.
        public static let notAGeoPackage = Kind(rawValue: "not a GeoPackage")
        /// The named layer is not a feature table of the file, the file has none, or it has
        /// several and none was named.
        public static let layerNotFound = Kind(rawValue: "layer not found")
        /// A column type GeoSieve does not read (BLOB, or a type GeoPackage does not define).
        public static let unsupportedField = Kind(rawValue: "unsupported field")
        /// A stored value that does not fit its column's declared type.
        public static let invalidValue = Kind(rawValue: "invalid value")
        /// A geometry blob that is not valid GeoPackage binary, or a geometry of another type
        /// than its column's.
        public static let invalidGeometry = Kind(rawValue: "invalid geometry")
        /// A spatial reference that cannot be stored or read.
        public static let unsupportedSpatialReference = Kind(rawValue: "unsupported spatial reference")
        /// A table that cannot be written as a GeoPackage layer (a bad layer name, a value
        /// GeoPackage cannot hold, a geometry collection).
        public static let cannotWrite = Kind(rawValue: "cannot write")
        /// The output file cannot be created, flushed or renamed into place (a missing folder,
        /// no permission, a full disk, …).
        public static let writeFailed = Kind(rawValue: "write failed")
        /// SQLite reported an error (the message gives SQLite's words and the statement).
        public static let sqlite = Kind(rawValue: "SQLite error")
    }

    /// What kind of problem this is.
    public var kind: Kind
    /// What is wrong, in words.
    public var message: String
    /// The file, as named by the caller.
    public var path: String?
    /// The layer (feature table) name.
    public var layer: String?
    /// The primary key (`fid`) of the offending feature.
    public var featureID: Int64?
    /// The name of the offending field.
    public var fieldName: String?

    /// Creates an error.
    public init(
        _ kind: Kind, _ message: String, path: String? = nil, layer: String? = nil, featureID: Int64? = nil,
        fieldName: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.path = path
        self.layer = layer
        self.featureID = featureID
        self.fieldName = fieldName
    }

    /// How the error is reported: ``/SieveBase/ErrorCategory/unreadable`` for a file that cannot be
    /// opened, read (an SQLite failure) or written; ``/SieveBase/ErrorCategory/notFound`` for a
    /// missing layer; ``/SieveBase/ErrorCategory/unsupported`` for a column type, spatial reference
    /// or table GeoPackage (or GeoSieve) cannot hold; ``/SieveBase/ErrorCategory/invalidRequest``
    /// for a file that is not a GeoPackage or holds values and geometries that do not fit their
    /// columns.
    public var category: ErrorCategory {
        switch kind {
        case .cannotOpen, .writeFailed, .sqlite: .unreadable
        case .layerNotFound: .notFound
        case .unsupportedField, .unsupportedSpatialReference, .cannotWrite: .unsupported
        default: .invalidRequest
        }
    }

    /// The file (with `:layer` when the layer is known, as the command line names a layer),
    /// when the error names one.
    public var inputLocation: InputLocation? {
        guard path != nil || layer != nil else { return nil }
        return InputLocation(input: (path ?? "") + (layer.map { ":" + $0 } ?? ""))
    }

    /// `kind in PATH, layer "L", fid N, field "F": message`, leaving out what is not known.
    public var description: String {
        var places: [String] = []
        if let path { places.append("in " + GeoPackageText.abbreviated(path)) }
        if let layer { places.append("layer " + GeoPackageText.quoted(layer)) }
        if let featureID { places.append("fid \(featureID)") }
        if let fieldName { places.append("field " + GeoPackageText.quoted(fieldName)) }
        let place = places.isEmpty ? "" : " " + places.joined(separator: ", ")
        return "\(kind)\(place): \(message)"
    }

    /// This error with the file and layer filled in where they are not set yet.
    func located(path: String?, layer: String?) -> GeoPackageError {
        var copy = self
        if copy.path == nil { copy.path = path }
        if copy.layer == nil { copy.layer = layer }
        return copy
    }

    /// See ``Kind/cannotOpen``.
    public static var cannotOpen: Kind { .cannotOpen }
    /// See ``Kind/notAGeoPackage``.
    public static var notAGeoPackage: Kind { .notAGeoPackage }
    /// See ``Kind/layerNotFound``.
    public static var layerNotFound: Kind { .layerNotFound }
    /// See ``Kind/unsupportedField``.
    public static var unsupportedField: Kind { .unsupportedField }
    /// See ``Kind/invalidValue``.
    public static var invalidValue: Kind { .invalidValue }
    /// See ``Kind/invalidGeometry``.
    public static var invalidGeometry: Kind { .invalidGeometry }
    /// See ``Kind/unsupportedSpatialReference``.
    public static var unsupportedSpatialReference: Kind { .unsupportedSpatialReference }
    /// See ``Kind/cannotWrite``.
    public static var cannotWrite: Kind { .cannotWrite }
    /// See ``Kind/writeFailed``.
    public static var writeFailed: Kind { .writeFailed }
    /// See ``Kind/sqlite``.
    public static var sqlite: Kind { .sqlite }
}

/// Quoting of names and values in messages: at most 80 characters, control characters shown as
/// `<U+000A>`, so that a message stays one line whatever the file holds.
enum GeoPackageText {
    /// `"name"`, abbreviated.
    static func quoted(_ text: String) -> String { JSONKey.quoted(text) }

    /// The text, abbreviated, without quotes.
    static func abbreviated(_ text: String) -> String { JSONKey.abbreviated(text) }
}

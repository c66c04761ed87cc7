import SieveBase
import SieveJSON

/// The error thrown when a file of a binary or tabular format (Shapefile, zip archives) cannot
/// be read or written.
///
/// The error says what kind of problem it is (``kind``), what is wrong (``message``) and, when
/// known, where: the file, the member file of a set or archive (`countries.dbf`), the record
/// (numbered from 1, as the format counts them) or a Parquet file's row group, the field and the
/// byte offset in the member.
/// Its ``description`` is one line:
///
/// ```
/// invalid value in roads.shp (roads.dbf), record 17, field "LANES", byte 2961: "4.5" is not an integer (N 9.0)
/// ```
public struct FileFormatError: GeoSieveKindedError, Hashable {
    /// The category of a ``FileFormatError``. New kinds may be added; `switch` over them with a
    /// `default` case.
    public struct Kind: GeoSieveErrorKind {
        /// The error type of these kinds.
        public typealias Failure = FileFormatError
        /// The kind's name, as the error's description starts with it.
        public var rawValue: String
        /// Creates a kind from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A file cannot be opened or read (missing, a directory, no permission, an I/O error).
        public static let cannotOpen = Kind(rawValue: "cannot open")
        /// The bytes are not the format they should be: a bad header, a truncated record, an
        /// offset outside the file.
        public static let malformed = Kind(rawValue: "malformed file")
        /// A stored value that does not fit its field's declared type.
        public static let invalidValue = Kind(rawValue: "invalid value")
        /// A geometry that cannot be read (bad counts or offsets, an unreadable shape).
        public static let invalidGeometry = Kind(rawValue: "invalid geometry")
        /// Something the format allows that GeoSieve does not read (a MultiPatch shape, a code
        /// page it cannot decode, a compression method).
        public static let unsupported = Kind(rawValue: "unsupported")
        /// An option that does not fit the file: a column it does not have, a delimiter that
        /// cannot be one, a layer an archive does not hold.
        public static let invalidOption = Kind(rawValue: "invalid option")
        /// A table that cannot be written in the format (a value or name it cannot hold, a file
        /// over the format's size limit); the message says why.
        public static let cannotWrite = Kind(rawValue: "cannot write")
        /// The output cannot be created, flushed or renamed into place (a missing folder, no
        /// permission, a full disk, …).
        public static let writeFailed = Kind(rawValue: "write failed")
    }

    /// What kind of problem this is.
    public var kind: Kind
    /// What is wrong, in words.
    public var message: String
    /// The file, as named by the caller.
    public var path: String?
    /// The member of the file set or archive the problem is in (`roads.dbf`), when it is not
    /// ``path`` itself.
    public var member: String?
    /// The record, numbered from 1.
    public var record: Int?
    /// The row group of a Parquet file, numbered from 1.
    public var rowGroup: Int?
    /// The name of the offending field.
    public var fieldName: String?
    /// Where in the member (or file) the problem is, in bytes from its start.
    public var byteOffset: Int?

    /// Creates an error.
    public init(
        _ kind: Kind, _ message: String, path: String? = nil, member: String? = nil, record: Int? = nil,
        fieldName: String? = nil, byteOffset: Int? = nil
    ) {
        self.kind = kind
        self.message = message
        self.path = path
        self.member = member
        self.record = record
        self.fieldName = fieldName
        self.byteOffset = byteOffset
    }

    /// How the error is reported: ``/SieveBase/ErrorCategory/unreadable`` for a file that cannot
    /// be opened or written, ``/SieveBase/ErrorCategory/unsupported`` for what GeoSieve or the
    /// format cannot hold, ``/SieveBase/ErrorCategory/invalidRequest`` for a file whose bytes,
    /// values or geometries are wrong.
    public var category: ErrorCategory {
        switch kind {
        case .cannotOpen, .writeFailed: .unreadable
        case .unsupported, .cannotWrite: .unsupported
        default: .invalidRequest
        }
    }

    /// The file, when the error names one.
    public var inputLocation: InputLocation? {
        path.map { InputLocation(input: $0) }
    }

    /// `kind in PATH (MEMBER), record N, field "F", byte B: message`, leaving out what is not
    /// known.
    public var description: String {
        var places: [String] = []
        if let path {
            var place = "in " + JSONKey.abbreviated(path)
            if let member, member != path { place += " (\(JSONKey.abbreviated(member)))" }
            places.append(place)
        } else if let member {
            places.append("in " + JSONKey.abbreviated(member))
        }
        if let rowGroup { places.append("row group \(rowGroup)") }
        if let record { places.append("record \(record)") }
        if let fieldName { places.append("field " + JSONKey.quoted(fieldName)) }
        if let byteOffset { places.append("byte \(byteOffset)") }
        let place = places.isEmpty ? "" : " " + places.joined(separator: ", ")
        return "\(kind)\(place): \(message)"
    }

    /// This error with the file filled in where it is not set yet.
    func located(path: String) -> FileFormatError {
        var copy = self
        if copy.path == nil { copy.path = path }
        return copy
    }

    /// See ``Kind/cannotOpen``.
    public static var cannotOpen: Kind { .cannotOpen }
    /// See ``Kind/malformed``.
    public static var malformed: Kind { .malformed }
    /// See ``Kind/invalidValue``.
    public static var invalidValue: Kind { .invalidValue }
    /// See ``Kind/invalidGeometry``.
    public static var invalidGeometry: Kind { .invalidGeometry }
    /// See ``Kind/unsupported``.
    public static var unsupported: Kind { .unsupported }
    /// See ``Kind/invalidOption``.
    public static var invalidOption: Kind { .invalidOption }
    /// See ``Kind/cannotWrite``.
    public static var cannotWrite: Kind { .cannotWrite }
    /// See ``Kind/writeFailed``.
    public static var writeFailed: Kind { .writeFailed }
}

/// The kind of a ``GeoSieveKindedError``: an open set of named values, so that a module can add
/// kinds to another module's error type and `switch` statements over kinds keep a `default`.
///
/// A kind type names the error type it belongs to (``Failure``); that gives it, for free, the
/// `~=` that lets a `catch` clause match the errors of one kind and its ``description`` (the
/// name):
///
/// ```swift
/// public struct MyError: GeoSieveKindedError {
///     public struct Kind: GeoSieveErrorKind {
///         public typealias Failure = MyError
///         public let rawValue: String
///         public init(rawValue: String) { self.rawValue = rawValue }
///         public static let badThing = Kind(rawValue: "bad thing")
///     }
///     public var kind: Kind
///     public var message: String
///     public var category: ErrorCategory { .invalidRequest }
///     /// For `catch MyError.badThing`.
///     public static var badThing: Kind { .badThing }
/// }
///
/// do { … } catch MyError.badThing { … }   // matches a MyError whose kind is .badThing
/// ```
public protocol GeoSieveErrorKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible
where RawValue == String {
    /// The error type whose kinds these are.
    associatedtype Failure: Error
}

extension GeoSieveErrorKind {
    /// The kind's name.
    public var description: String { rawValue }
}

extension GeoSieveErrorKind where Failure: GeoSieveKindedError, Failure.Kind == Self {
    /// Whether `error` is a ``Failure`` of this kind: lets `catch Failure.someKind` (and
    /// `case Failure.someKind`) match every error of that kind.
    public static func ~= (kind: Self, error: any Error) -> Bool {
        (error as? Failure)?.kind == kind
    }

    /// Whether `error` is of this kind: the same match for typed `throws(Failure)` code, whose
    /// error is not an existential.
    public static func ~= (kind: Self, error: Failure) -> Bool {
        error.kind == kind
    }
}

/// A ``GeoSieveError`` that says what went wrong with a ``kind`` to match on.
///
/// Its default ``description`` is `kind: message` (`transformation failed: cannot project …`);
/// a type whose description says more (a position, a field) writes its own.
public protocol GeoSieveKindedError: GeoSieveError {
    /// The type of the error's kinds.
    associatedtype Kind: GeoSieveErrorKind
    /// What went wrong.
    var kind: Kind { get }
}

extension GeoSieveKindedError {
    /// `kind: message`.
    public var description: String { "\(kind): \(message)" }
}

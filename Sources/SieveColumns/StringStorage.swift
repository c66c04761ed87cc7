import SieveBuffers

/// Strings packed end to end in one UTF-8 byte buffer with an offsets array, Arrow style:
/// string `i` is `bytes[offsets[i] ..< offsets[i + 1]]`.
///
/// Kernels compare and match the bytes in place (equality is a length check and a `memcmp`,
/// a `LIKE 'San%'` a prefix compare) without creating `String` values.
public struct StringStorage: Hashable, Sendable {
    /// All strings' UTF-8 bytes.
    public private(set) var bytes: ColumnBuffer<UInt8>
    /// `count + 1` offsets into ``bytes``, starting with 0.
    public private(set) var offsets: ColumnBuffer<Int>

    /// An empty storage.
    public init() {
        bytes = []
        offsets = [0]
    }

    /// A storage holding `strings` in order.
    public init<S: Sequence>(_ strings: S) where S.Element == String {
        self.init()
        for string in strings { append(string) }
    }

    /// Number of strings.
    @inlinable public var count: Int { offsets.count - 1 }

    /// Appends a string.
    public mutating func append(_ string: String) {
        var string = string
        string.withUTF8 { bytes.append(contentsOf: $0) }
        offsets.append(bytes.count)
    }

    /// Appends a string given as its UTF-8 bytes, which must be valid UTF-8 (not checked).
    @inline(__always)
    package mutating func append(utf8 string: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: string)
        offsets.append(bytes.count)
    }

    /// Appends an empty placeholder (for NULL rows of a plain string column).
    public mutating func appendEmpty() {
        offsets.append(bytes.count)
    }

    /// String `i`.
    public subscript(i: Int) -> String {
        String(decoding: bytes[offsets[i]..<offsets[i + 1]], as: UTF8.self)
    }

    /// The UTF-8 length of string `i`.
    @inlinable public func byteCount(_ i: Int) -> Int { offsets[i + 1] - offsets[i] }
}

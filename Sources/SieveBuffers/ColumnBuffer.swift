import Synchronization

/// An array of plain values whose copies share one append-only buffer: appending to a copy
/// never copies the elements already there, so a table can publish a snapshot of its columns
/// after every edit and keep appending behind it in O(appended elements).
///
/// A `ColumnBuffer` behaves as an `Array` does (it is a value: what one copy does is never
/// seen by another), and reads it as fast (one contiguous buffer). The difference is in how
/// copies share storage. An `Array` shared by two copies is copied whole by the first append to
/// either; a `ColumnBuffer`'s storage records how many of its slots have been claimed (its
/// *high-water mark*), and a copy whose last element is the last claimed slot appends in place,
/// claiming the next slots with one atomic compare-and-exchange. Every other copy still sees only
/// its own `count` elements, which nobody writes again. So the pattern
///
/// ```swift
/// var writer: ColumnBuffer<Int64> = [1, 2, 3]
/// let snapshot = writer          // shares the storage
/// writer.append(4)               // in place: claims slot 3; `snapshot` still has 3 elements
/// ```
///
/// costs O(1), where an array would copy the three elements. Only when a second copy appends
/// behind the same last element (the slot is already claimed), when the storage is full, or when
/// an element below `count` is replaced while another copy shares the storage, is the buffer
/// copied, as an array would be.
///
/// Elements are `BitwiseCopyable` (numbers, offsets, codes, bit words): slots need no
/// deinitialization, so a claimed slot that a truncated copy left behind is simply never read.
@frozen
public struct ColumnBuffer<Element: BitwiseCopyable> {
    @usableFromInline var storage: ColumnBufferStorage<Element>
    @usableFromInline var _count: Int

    /// An empty buffer.
    @inlinable public init() {
        storage = ColumnBufferStorage(capacity: 0)
        _count = 0
    }

    /// A buffer holding the elements of `elements`.
    @inlinable public init<S: Sequence>(_ elements: S) where S.Element == Element {
        self.init()
        append(contentsOf: elements)
    }

    /// A buffer of `count` copies of `value`.
    @inlinable public init(repeating value: Element, count: Int) {
        precondition(count >= 0, "negative count")
        storage = ColumnBufferStorage(capacity: count)
        storage.base.initialize(repeating: value, count: count)
        storage.highWater.store(count, ordering: .relaxed)
        _count = count
    }

    /// The number of elements.
    @inlinable public var count: Int { _count }

    /// The number of elements the storage holds before appending must move it.
    @inlinable public var capacity: Int { storage.capacity }

    /// Makes room for `additional` elements after the last one and claims their slots, moving
    /// the elements to a new storage when this copy cannot append in place.
    @inlinable @inline(__always)
    mutating func claim(_ additional: Int) {
        let end = count + additional
        if end <= storage.capacity {
            if isKnownUniquelyReferenced(&storage) {
                storage.highWater.store(end, ordering: .relaxed)
                return
            }
            if storage.highWater.compareExchange(expected: count, desired: end, ordering: .relaxed).exchanged {
                return
            }
        }
        moveStorage(minimumCapacity: end, claiming: end)
    }

    /// Moves the elements to a new storage of at least `minimumCapacity` slots (growing
    /// geometrically), with `claimed` slots claimed.
    @usableFromInline
    mutating func moveStorage(minimumCapacity: Int, claiming claimed: Int) {
        let capacity = Swift.max(minimumCapacity, storage.capacity &* 2, 16)
        let moved = ColumnBufferStorage<Element>(capacity: capacity)
        moved.base.initialize(from: storage.base, count: count)
        moved.highWater.store(claimed, ordering: .relaxed)
        storage = moved
    }

    /// Makes this copy the only user of its storage, so that its elements may be replaced.
    @inlinable @inline(__always)
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) {
            moveStorage(minimumCapacity: storage.capacity, claiming: count)
        }
    }

    /// Appends an element.
    @inlinable public mutating func append(_ element: Element) {
        claim(1)
        (storage.base + count).initialize(to: element)
        _count &+= 1
    }

    /// Appends the elements of a sequence.
    @inlinable public mutating func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        let done: Bool? = elements.withContiguousStorageIfAvailable { buffer in
            append(contentsOf: buffer)
            return true
        }
        if done != nil { return }
        reserveCapacity(count + elements.underestimatedCount)
        for element in elements { append(element) }
    }

    /// Appends the elements of a buffer.
    @inlinable public mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        guard let source = elements.baseAddress, !elements.isEmpty else { return }
        claim(elements.count)
        (storage.base + count).initialize(from: source, count: elements.count)
        _count &+= elements.count
    }

    /// Appends the elements of another buffer.
    @inlinable public mutating func append(contentsOf other: ColumnBuffer<Element>) {
        other.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    /// Makes sure `minimumCapacity` elements fit without moving the storage again.
    @inlinable public mutating func reserveCapacity(_ minimumCapacity: Int) {
        if minimumCapacity > storage.capacity {
            moveStorage(minimumCapacity: minimumCapacity, claiming: count)
        }
    }

    /// Removes every element; the storage is kept only when `keepingCapacity` is set and no
    /// other copy shares it.
    @inlinable public mutating func removeAll(keepingCapacity: Bool = false) {
        if keepingCapacity, isKnownUniquelyReferenced(&storage) {
            storage.highWater.store(0, ordering: .relaxed)
        } else {
            storage = ColumnBufferStorage(capacity: 0)
        }
        _count = 0
    }

    /// Removes the last `k` elements (their slots stay claimed by the storage).
    @inlinable public mutating func removeLast(_ k: Int = 1) {
        precondition(k >= 0 && k <= count, "cannot remove more elements than there are")
        _count -= k
    }

    /// Calls `body` with the elements in one contiguous buffer.
    @inlinable public func withUnsafeBufferPointer<R, E: Error>(
        _ body: (UnsafeBufferPointer<Element>) throws(E) -> R
    ) throws(E) -> R {
        defer { withExtendedLifetime(storage) {} }
        return try body(UnsafeBufferPointer(start: storage.base, count: count))
    }

    /// Calls `body` with the elements in one contiguous, writable buffer (copying them first
    /// when another copy shares the storage).
    @inlinable public mutating func withUnsafeMutableBufferPointer<R, E: Error>(
        _ body: (UnsafeMutableBufferPointer<Element>) throws(E) -> R
    ) throws(E) -> R {
        makeUnique()
        defer { withExtendedLifetime(storage) {} }
        return try body(UnsafeMutableBufferPointer(start: storage.base, count: count))
    }

    /// Calls `body` with the elements' bytes.
    @inlinable public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        defer { withExtendedLifetime(storage) {} }
        return try body(UnsafeRawBufferPointer(UnsafeBufferPointer(start: storage.base, count: count)))
    }

    /// The elements as an array.
    @inlinable public var array: [Element] {
        withUnsafeBufferPointer { Array($0) }
    }
}

extension ColumnBuffer: RandomAccessCollection, MutableCollection {
    public typealias Index = Int
    public typealias Indices = Range<Int>

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }
    @inlinable public var isEmpty: Bool { count == 0 }
    @inlinable public var indices: Range<Int> { 0..<count }
    @inlinable public func index(after i: Int) -> Int { i + 1 }
    @inlinable public func index(before i: Int) -> Int { i - 1 }

    /// The element at `i`.
    @inlinable public subscript(i: Int) -> Element {
        @inline(__always) get {
            precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "index out of range")
            return storage.base[i]
        }
        set {
            precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "index out of range")
            makeUnique()
            storage.base[i] = newValue
        }
    }

    @inlinable public func withContiguousStorageIfAvailable<R>(
        _ body: (UnsafeBufferPointer<Element>) throws -> R
    ) rethrows -> R? {
        defer { withExtendedLifetime(storage) {} }
        return try body(UnsafeBufferPointer(start: storage.base, count: count))
    }
}

extension ColumnBuffer: ExpressibleByArrayLiteral {
    @inlinable public init(arrayLiteral elements: Element...) {
        self.init(elements)
    }
}

extension ColumnBuffer: Equatable where Element: Equatable {
    @inlinable public static func == (a: ColumnBuffer, b: ColumnBuffer) -> Bool {
        // As arrays do: two copies of the same elements are equal (NaN elements included).
        a.count == b.count && (a.storage === b.storage || a.elementsEqual(b))
    }
}

extension ColumnBuffer: Hashable where Element: Hashable {
    @inlinable public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for element in self { hasher.combine(element) }
    }
}

extension ColumnBuffer: Sendable where Element: Sendable {}

extension ColumnBuffer: CustomStringConvertible {
    public var description: String { array.description }
}

/// The storage of a ``ColumnBuffer``: `capacity` slots and the number claimed so far.
///
/// `@unchecked Sendable`: a slot is written only by the copy that claimed it (atomically, through
/// `highWater`) before that copy's `count` covers it, or by a copy that holds the only reference;
/// a copy reads only the slots below its own `count`, which nobody writes again while it shares
/// the storage.
@usableFromInline
final class ColumnBufferStorage<Element: BitwiseCopyable>: @unchecked Sendable {
    @usableFromInline let base: UnsafeMutablePointer<Element>
    @usableFromInline let capacity: Int
    /// Slots `0 ..< highWater` are claimed by some copy.
    @usableFromInline let highWater: Atomic<Int>

    @inlinable init(capacity: Int) {
        self.capacity = capacity
        base = UnsafeMutablePointer.allocate(capacity: Swift.max(capacity, 1))
        highWater = Atomic(0)
    }

    @inlinable deinit {
        base.deallocate()
    }
}

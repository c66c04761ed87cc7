import Synchronization

/// The vector tiles made recently, kept up to a number of bytes and dropped least recently used
/// first, so that the tiles every visitor of a map asks for — the world at zoom 0 to 3, the
/// places people look at — are made once.
///
/// A tile is found by its collection, the version of its table
/// (``/SieveEditing/EditableFeatureTable/version``), its address and its request's query: an
/// edit makes the next request of every tile of the table a new key, and the tiles of older
/// versions age out. Reads and writes are short and under a mutex.
final class TileCache: Sendable {
    /// The most bytes of tiles kept.
    let capacity: Int

    private struct Entry {
        var bytes: [UInt8]
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var size = 0
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A cache of at most `capacity` bytes of tiles (0: none kept).
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The tile kept under `key`, if any.
    func tile(_ key: String) -> [UInt8]? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            state.clock &+= 1
            entry.lastUse = state.clock
            state.entries[key] = entry
            return entry.bytes
        }
    }

    /// Keeps `bytes` under `key`, dropping the least recently used tiles while over the
    /// capacity; a tile larger than a quarter of the capacity is not kept.
    func keep(_ bytes: [UInt8], as key: String) {
        guard bytes.count <= capacity / 4 else { return }
        state.withLock { state in
            state.clock &+= 1
            if let old = state.entries.updateValue(Entry(bytes: bytes, lastUse: state.clock), forKey: key) {
                state.size -= old.bytes.count
            }
            state.size += bytes.count
            while state.size > capacity, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.size -= oldest.value.bytes.count
                state.entries[oldest.key] = nil
            }
        }
    }

    /// The bytes kept.
    var size: Int { state.withLock { $0.size } }
}

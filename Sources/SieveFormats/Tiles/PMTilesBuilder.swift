import Foundation
import SieveJSON

/// A PMTiles 3 archive in the making: tiles (already gzipped) go to a scratch file as they come;
/// ``finish(_:)`` writes the archive — header, root directory, metadata, leaf directories, then
/// the tiles again in tile-ID order (a clustered archive) — beside the path and moves it into
/// place.
///
/// Directories and metadata are gzipped. Tile IDs count along the Hilbert curve of each zoom
/// level after all tiles of the levels above (``tileID(_:)``). A root directory that would not
/// fit in the archive's first 16,384 bytes points to leaf directories of 4,096 entries (more
/// when the root of those would still not fit).
final class PMTilesBuilder {
    struct Entry {
        var id: UInt64
        var offset: UInt64
        var length: UInt32
    }

    private let scratchPath: String
    private let temporary: String
    private let path: String
    private let scratch: FileHandle
    private var scratchLength: UInt64 = 0
    private var entries: [Entry] = []
    private var minZoom = Int.max
    private var maxZoom = Int.min

    /// The most bytes of header and root directory, which readers fetch at once.
    static let rootLimit = 16_384
    static let headerLength = 127

    init(temporary: String, path: String) throws(FileFormatError) {
        self.temporary = temporary
        self.path = path
        scratchPath = temporary + ".tiles"
        guard FileManager.default.createFile(atPath: scratchPath, contents: nil), let handle = FileHandle(forUpdatingAtPath: scratchPath) else {
            throw FileFormatError(.cannotWrite, "cannot create a scratch file beside \(path)", path: path)
        }
        scratch = handle
    }

    /// Removes the scratch file (after ``finish(_:)``, or when the writer is dropped).
    func discard() {
        try? scratch.close()
        try? FileManager.default.removeItem(atPath: scratchPath)
    }

    func add(_ data: [UInt8], id: UInt64) throws(FileFormatError) {
        do {
            try scratch.write(contentsOf: data)
        } catch {
            throw FileFormatError(.writeFailed, "cannot write a tile to the scratch file: \(error.localizedDescription)", path: path)
        }
        entries.append(Entry(id: id, offset: scratchLength, length: UInt32(data.count)))
        scratchLength += UInt64(data.count)
        let zoom = Self.zoom(ofTileID: id)
        minZoom = Swift.min(minZoom, zoom)
        maxZoom = Swift.max(maxZoom, zoom)
    }

    func finish(_ metadata: TileSetMetadata) throws(FileFormatError) {
        defer { discard() }
        guard !entries.isEmpty else {
            throw FileFormatError(.writeFailed, "no tile holds a feature: a PMTiles archive needs at least one tile", path: path)
        }
        entries.sort { $0.id < $1.id }
        // The tiles in ID order: each entry's offset in the archive's tile section.
        var scratchOffsets: [UInt64] = []
        scratchOffsets.reserveCapacity(entries.count)
        var offset: UInt64 = 0
        for i in entries.indices {
            scratchOffsets.append(entries[i].offset)
            entries[i].offset = offset
            offset += UInt64(entries[i].length)
        }
        let tileDataLength = offset
        let (root, leaves) = try directories()
        let metadataBytes = try TileArchiveWriter.gzip(Array(JSONWriter.string(metadata.tileJSON(tiles: nil)).utf8))

        var header = Array("PMTiles".utf8)
        header.append(3)
        let rootOffset = UInt64(Self.headerLength)
        let metadataOffset = rootOffset + UInt64(root.count)
        let leavesOffset = metadataOffset + UInt64(metadataBytes.count)
        let tilesOffset = leavesOffset + UInt64(leaves.count)
        let count = UInt64(entries.count)
        for value in [rootOffset, UInt64(root.count), metadataOffset, UInt64(metadataBytes.count), leavesOffset, UInt64(leaves.count), tilesOffset, tileDataLength, count, count, count] {
            Self.appendLittleEndian(value, 8, to: &header)
        }
        // Clustered; gzip directories and metadata; gzip tiles; Mapbox Vector Tiles.
        header.append(contentsOf: [1, 2, 2, 1, UInt8(minZoom), UInt8(maxZoom)])
        let b = metadata.clampedBounds, c = metadata.center
        for value in [b.xmin, b.ymin, b.xmax, b.ymax] { Self.appendE7(value, to: &header) }
        header.append(UInt8(Swift.max(minZoom, Swift.min(c.zoom, maxZoom))))
        Self.appendE7(c.longitude, to: &header)
        Self.appendE7(c.latitude, to: &header)

        try AtomicFile.write(to: path) { (sink) throws(FileFormatError) in
            for part in [header, root, metadataBytes, leaves] { try part.withBytes(sink) }
            for (entry, scratchOffset) in zip(entries, scratchOffsets) {
                let data: Data?
                do {
                    try scratch.seek(toOffset: scratchOffset)
                    data = try scratch.read(upToCount: Int(entry.length))
                } catch {
                    throw FileFormatError(.writeFailed, "cannot read the scratch file: \(error.localizedDescription)", path: path)
                }
                guard let data, data.count == Int(entry.length) else {
                    throw FileFormatError(.writeFailed, "the scratch file is shorter than what was written to it", path: path)
                }
                try [UInt8](data).withBytes(sink)
            }
        }
    }

    /// The root directory and the leaf directories, each gzipped: every entry in the root when
    /// it fits, else leaves of 4,096 entries (doubled until their root fits).
    private func directories() throws(FileFormatError) -> (root: [UInt8], leaves: [UInt8]) {
        let all = try TileArchiveWriter.gzip(Self.encode(entries, runLength: 1))
        if Self.headerLength + all.count <= Self.rootLimit { return (all, []) }
        var leafSize = 4096
        while true {
            var leaves: [UInt8] = []
            var rootEntries: [Entry] = []
            var start = 0
            while start < entries.count {
                let end = Swift.min(start + leafSize, entries.count)
                let leaf = try TileArchiveWriter.gzip(Self.encode(entries[start..<end], runLength: 1))
                rootEntries.append(Entry(id: entries[start].id, offset: UInt64(leaves.count), length: UInt32(leaf.count)))
                leaves += leaf
                start = end
            }
            let root = try TileArchiveWriter.gzip(Self.encode(rootEntries[...], runLength: 0))
            if Self.headerLength + root.count <= Self.rootLimit { return (root, leaves) }
            leafSize *= 2
        }
    }

    /// A directory: the entry count, then the IDs as deltas, the run lengths, the lengths and
    /// the offsets (0 for one right after the entry before, else offset + 1), as varints.
    static func encode(_ entries: ArraySlice<Entry>, runLength: UInt64) -> [UInt8] {
        var writer = ProtobufWriter()
        writer.varint(UInt64(entries.count))
        var last: UInt64 = 0
        for entry in entries {
            writer.varint(entry.id - last)
            last = entry.id
        }
        for _ in entries { writer.varint(runLength) }
        for entry in entries { writer.varint(UInt64(entry.length)) }
        var next: UInt64 = 0
        for (i, entry) in entries.enumerated() {
            writer.varint(i > 0 && entry.offset == next ? 0 : entry.offset + 1)
            next = entry.offset + UInt64(entry.length)
        }
        return writer.bytes
    }

    static func encode(_ entries: [Entry], runLength: UInt64) -> [UInt8] { encode(entries[...], runLength: runLength) }

    /// The PMTiles tile ID of `address`: the number of tiles of the levels above
    /// ((4^z − 1) / 3), plus the tile's distance along the Hilbert curve of its level.
    static func tileID(_ address: TileAddress) -> UInt64 {
        let z = address.zoom
        var id = ((UInt64(1) << (2 * UInt64(z))) - 1) / 3
        let n = UInt64(1) << UInt64(z)
        var x = UInt64(address.x), y = UInt64(address.y)
        var s = n / 2
        while s > 0 {
            let rx: UInt64 = x & s > 0 ? 1 : 0
            let ry: UInt64 = y & s > 0 ? 1 : 0
            id += s * s * ((3 * rx) ^ ry)
            // Rotate the quadrant so that the curve inside it runs as the one above.
            if ry == 0 {
                if rx == 1 {
                    x = n - 1 - x
                    y = n - 1 - y
                }
                swap(&x, &y)
            }
            s /= 2
        }
        return id
    }

    /// The zoom level of a tile ID.
    static func zoom(ofTileID id: UInt64) -> Int {
        var zoom = 0
        var first: UInt64 = 0
        while true {
            let next = first + (UInt64(1) << (2 * UInt64(zoom)))
            if id < next { return zoom }
            first = next
            zoom += 1
        }
    }

    static func appendLittleEndian(_ value: UInt64, _ width: Int, to bytes: inout [UInt8]) {
        for i in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    /// A longitude or latitude as a little-endian 32-bit integer of 10⁻⁷ degrees.
    static func appendE7(_ degrees: Double, to bytes: inout [UInt8]) {
        let value = Int32(clamping: Int64((degrees * 10_000_000).rounded()))
        appendLittleEndian(UInt64(UInt32(bitPattern: value)), 4, to: &bytes)
    }
}

import SieveFeatures
import SieveGeometry

/// The header of a geometry stored in a GeoPackage feature table (OGC GeoPackage 1.3, clause
/// 2.1.3, "GeoPackageBinary"): the magic `GP`, a version, a flags byte, the SRS ID and an
/// optional envelope, followed by the geometry as standard Well-Known Binary.
///
/// The flags byte holds, from the low bit: the byte order of the header's SRS ID and envelope
/// (1 little-endian, 0 big-endian); the envelope contents indicator in bits 1–3 (0 none,
/// 1 x/y, 2 x/y/z, 3 x/y/m, 4 x/y/z/m; 5–7 invalid); the empty-geometry flag in bit 4; and in
/// bit 5 whether the blob is an *extended* GeoPackageBinary (an extension's own encoding, which
/// GeoSieve does not read).
public struct GeoPackageGeometryHeader: Hashable, Sendable {
    /// The version byte (0 means version 1, the only one defined).
    public var version: UInt8
    /// The byte order of ``srsID`` and ``envelope`` in the header. (The WKB that follows carries
    /// its own byte order.)
    public var byteOrder: WKBByteOrder
    /// The envelope contents indicator, 0–4.
    public var envelopeIndicator: Int
    /// Whether the empty-geometry flag is set.
    public var isEmpty: Bool
    /// The SRS ID (a `gpkg_spatial_ref_sys.srs_id`).
    public var srsID: Int32
    /// The envelope as stored: `[minx, maxx, miny, maxy]`, then `[minz, maxz]` and/or
    /// `[minm, maxm]` as the indicator says; empty for indicator 0. Empty geometries may store NaN.
    public var envelope: [Double]
    /// The size of the header in bytes: 8 plus 8 per envelope value. The WKB starts there.
    public var size: Int { 8 + 8 * envelope.count }

    /// How many doubles an envelope of each indicator holds.
    static let envelopeCounts = [0, 4, 6, 6, 8]
}

/// Reading and writing GeoPackage geometry blobs (``GeoPackageGeometryHeader`` + WKB).
public enum GeoPackageBinary {
    /// Reads the header of a geometry blob.
    ///
    /// - Throws: ``GeoPackageError/Kind/invalidGeometry`` naming the byte offset: a blob
    ///   shorter than its header, a magic other than `GP`, a version other than 0, an envelope
    ///   indicator of 5–7, or the extended-type flag.
    public static func header(_ blob: UnsafeRawBufferPointer) throws(GeoPackageError) -> GeoPackageGeometryHeader {
        guard blob.count >= 8 else {
            throw GeoPackageError(.invalidGeometry, "a GeoPackage geometry of \(blob.count) byte(s) is shorter than its 8-byte header")
        }
        guard blob[0] == 0x47, blob[1] == 0x50 else {
            throw GeoPackageError(
                .invalidGeometry, "not a GeoPackage geometry: the blob starts with bytes \(blob[0]) \(blob[1]), not 'GP' (71 80)")
        }
        let version = blob[2]
        guard version == 0 else {
            throw GeoPackageError(.invalidGeometry, "unsupported GeoPackage geometry version byte \(version) at byte offset 2 (expected 0)")
        }
        let flags = blob[3]
        guard flags & 0x20 == 0 else {
            throw GeoPackageError(.invalidGeometry, "extended GeoPackage geometries (flags bit 5 at byte offset 3) are not supported")
        }
        let indicator = Int((flags >> 1) & 0x07)
        guard indicator <= 4 else {
            throw GeoPackageError(.invalidGeometry, "invalid envelope contents indicator \(indicator) in the flags at byte offset 3 (0–4)")
        }
        let little = flags & 0x01 == 1
        let envelopeCount = GeoPackageGeometryHeader.envelopeCounts[indicator]
        guard blob.count >= 8 + 8 * envelopeCount else {
            throw GeoPackageError(
                .invalidGeometry,
                "a GeoPackage geometry of \(blob.count) bytes is shorter than its \(8 + 8 * envelopeCount)-byte header (envelope indicator \(indicator))")
        }
        let rawSRS = blob.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        let srs = Int32(bitPattern: little ? UInt32(littleEndian: rawSRS) : UInt32(bigEndian: rawSRS))
        var envelope: [Double] = []
        envelope.reserveCapacity(envelopeCount)
        for i in 0..<envelopeCount {
            let raw = blob.loadUnaligned(fromByteOffset: 8 + 8 * i, as: UInt64.self)
            envelope.append(Double(bitPattern: little ? UInt64(littleEndian: raw) : UInt64(bigEndian: raw)))
        }
        return GeoPackageGeometryHeader(
            version: version, byteOrder: little ? .littleEndian : .bigEndian, envelopeIndicator: indicator,
            isEmpty: flags & 0x10 != 0, srsID: srs, envelope: envelope)
    }

    /// Reads a geometry blob: its header and the geometry after it.
    ///
    /// The WKB may be in either byte order, with ISO Z/M/ZM type codes (1001…3007) or the
    /// extended `0x80000000`/`0x40000000` flags, as ``/SieveGeometry/Geometry/init(wkb:)`` reads
    /// it. An empty point is `POINT EMPTY` (NaN coordinates); the empty flag of the header is not
    /// needed to see that a geometry is empty.
    ///
    /// - Throws: ``GeoPackageError/Kind/invalidGeometry``: the header's errors, and WKB errors
    ///   with their byte offset counted from the start of the blob.
    public static func geometry(_ blob: UnsafeRawBufferPointer) throws(GeoPackageError) -> (header: GeoPackageGeometryHeader, geometry: Geometry) {
        let header = try header(blob)
        let start = header.size
        let wkb = UnsafeRawBufferPointer(rebasing: blob[start...])
        if let point = fastPoint(wkb) { return (header, point) }
        do throws(GeometryError) {
            return (header, try Geometry(wkb: wkb))
        } catch {
            let at = error.position.map { " at byte offset \($0 + start)" } ?? ""
            throw GeoPackageError(.invalidGeometry, "invalid WKB\(at): \(error.message)")
        }
    }

    /// Reads a geometry blob held in any byte collection (for tests and one-off use).
    public static func geometry(_ blob: [UInt8]) throws(GeoPackageError) -> (header: GeoPackageGeometryHeader, geometry: Geometry) {
        let result = blob.withUnsafeBytes { bytes in
            Result { () throws(GeoPackageError) in try geometry(bytes) }
        }
        return try result.get()
    }

    /// The coordinates of a blob holding a little-endian 2D point of finite coordinates, read
    /// without building a header or a ``Geometry`` (the common case of point layers); `nil` for
    /// any other blob, which ``geometry(_:)`` then reads (or rejects) in full.
    @inline(__always)
    static func pointCoordinates(_ blob: UnsafeRawBufferPointer) -> (x: Double, y: Double)? {
        // The header: 'GP', version 0, flags with no extended bit and an envelope indicator 0–4.
        guard blob.count >= 8, blob[0] == 0x47, blob[1] == 0x50, blob[2] == 0 else { return nil }
        let flags = blob[3]
        let indicator = Int((flags >> 1) & 0x07)
        guard flags & 0x20 == 0, indicator <= 4 else { return nil }
        let start = 8 + 8 * GeoPackageGeometryHeader.envelopeCounts[indicator]
        guard blob.count == start + 21, blob[start] == 1,
            UInt32(littleEndian: blob.loadUnaligned(fromByteOffset: start + 1, as: UInt32.self)) == 1
        else { return nil }
        let x = Double(bitPattern: UInt64(littleEndian: blob.loadUnaligned(fromByteOffset: start + 5, as: UInt64.self)))
        let y = Double(bitPattern: UInt64(littleEndian: blob.loadUnaligned(fromByteOffset: start + 13, as: UInt64.self)))
        guard x.isFinite, y.isFinite else { return nil }
        return (x, y)
    }

    /// A little-endian 2D point of finite coordinates, read without the general WKB reader
    /// (the common case of point layers); `nil` for anything else.
    @inline(__always)
    static func fastPoint(_ wkb: UnsafeRawBufferPointer) -> Geometry? {
        guard wkb.count == 21, wkb[0] == 1,
            UInt32(littleEndian: wkb.loadUnaligned(fromByteOffset: 1, as: UInt32.self)) == 1
        else { return nil }
        let x = Double(bitPattern: UInt64(littleEndian: wkb.loadUnaligned(fromByteOffset: 5, as: UInt64.self)))
        let y = Double(bitPattern: UInt64(littleEndian: wkb.loadUnaligned(fromByteOffset: 13, as: UInt64.self)))
        guard x.isFinite, y.isFinite else { return nil }
        return .point(Point(x: x, y: y))
    }

    /// The blob of `geometry`: a little-endian header with the empty flag, an x/y envelope for
    /// every non-empty geometry but a point (indicator 1; none for points, as GDAL writes
    /// them), and ISO WKB (see `GeoPackageBinaryWriter`).
    ///
    /// - Parameters:
    ///   - geometry: The geometry to write.
    ///   - srsID: The SRS ID the header names (the `srs_id` of the layer's geometry column).
    ///   - multi: Write polylines and polygons as MultiLineString / MultiPolygon even when they
    ///     have one part (for a column declared as a multi type).
    /// - Throws: ``GeoPackageError/Kind/cannotWrite`` for a geometry collection.
    public static func blob(_ geometry: Geometry, srsID: Int32, multi: Bool = false) throws(GeoPackageError) -> [UInt8] {
        var writer = GeoPackageBinaryWriter()
        try writer.write(geometry, srsID: srsID, multi: multi)
        return writer.bytes
    }
}

/// Writes GeoPackage geometry blobs into one reusable byte buffer: a little-endian header, then
/// the geometry's ISO WKB from SieveGeometry's writer.
struct GeoPackageBinaryWriter {
    private var writer = WKBWriter(byteOrder: .littleEndian)

    /// The last blob written.
    var bytes: [UInt8] { writer.bytes }

    init() { writer.bytes.reserveCapacity(64) }

    /// Replaces ``bytes`` with the blob of `geometry`.
    mutating func write(_ geometry: Geometry, srsID: Int32, multi: Bool) throws(GeoPackageError) {
        if case .collection = geometry {
            throw GeoPackageError(.cannotWrite, "a geometry collection cannot be stored in a feature table")
        }
        writer.bytes.removeAll(keepingCapacity: true)
        let isEmpty = geometry.isEmpty
        let hasEnvelope: Bool
        if case .point = geometry { hasEnvelope = false } else { hasEnvelope = !isEmpty }
        // Header: magic, version 0, flags (little-endian, envelope indicator 0 or 1, empty).
        writer.bytes.append(0x47)
        writer.bytes.append(0x50)
        writer.bytes.append(0)
        writer.bytes.append(0x01 | (hasEnvelope ? 0x02 : 0) | (isEmpty ? 0x10 : 0))
        writer.append(UInt32(bitPattern: srsID))
        if hasEnvelope {
            let envelope = geometry.envelope
            writer.append(envelope.xmin)
            writer.append(envelope.xmax)
            writer.append(envelope.ymin)
            writer.append(envelope.ymax)
        }
        writer.write(geometry, multi: multi)
    }
}

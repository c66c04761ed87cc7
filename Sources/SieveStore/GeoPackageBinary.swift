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
    /// extended `0x80000000`/`0x40000000` flags, as ``SieveGeometry/Geometry/init(wkb:)`` reads it.
    /// An empty point is `POINT EMPTY` (NaN coordinates); the empty flag of the header is not
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
    /// them), and ISO WKB (see ``GeoPackageBinaryWriter``).
    ///
    /// - Parameters:
    ///   - multi: Write polylines and polygons as MultiLineString / MultiPolygon even when they
    ///     have one part (for a column declared as a multi type).
    /// - Throws: ``GeoPackageError/Kind/cannotWrite`` for a geometry collection.
    public static func blob(_ geometry: Geometry, srsID: Int32, multi: Bool = false) throws(GeoPackageError) -> [UInt8] {
        var writer = GeoPackageBinaryWriter()
        try writer.write(geometry, srsID: srsID, multi: multi)
        return writer.bytes
    }
}

/// Writes GeoPackage geometry blobs into one reusable byte buffer: little-endian headers and
/// ISO WKB (type codes 1–6 plus 1000 for Z, 2000 for M, 3000 for ZM).
struct GeoPackageBinaryWriter {
    /// The last blob written.
    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(64) }

    @inline(__always)
    private mutating func append(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(__always)
    private mutating func append(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func wkbHeader(_ code: UInt32, _ layout: CoordinateLayout) {
        bytes.append(1)
        append(code + (layout.hasZ ? 1000 : 0) + (layout.hasM ? 2000 : 0))
    }

    private mutating func positions(_ coordinates: CoordinateBuffer, _ range: Range<Int>) {
        let stride = coordinates.layout.stride
        coordinates.values.withUnsafeBufferPointer { values in
            for i in (range.lowerBound * stride)..<(range.upperBound * stride) { append(values[i]) }
        }
    }

    /// Replaces ``bytes`` with the blob of `geometry`.
    mutating func write(_ geometry: Geometry, srsID: Int32, multi: Bool) throws(GeoPackageError) {
        bytes.removeAll(keepingCapacity: true)
        let isEmpty = geometry.isEmpty
        let hasEnvelope: Bool
        if case .point = geometry { hasEnvelope = false } else { hasEnvelope = !isEmpty }
        // Header: magic, version 0, flags (little-endian, envelope indicator 0 or 1, empty).
        bytes.append(0x47)
        bytes.append(0x50)
        bytes.append(0)
        bytes.append(0x01 | (hasEnvelope ? 0x02 : 0) | (isEmpty ? 0x10 : 0))
        append(UInt32(bitPattern: srsID))
        if hasEnvelope {
            let envelope = geometry.envelope
            append(envelope.xmin)
            append(envelope.xmax)
            append(envelope.ymin)
            append(envelope.ymax)
        }
        try wkb(geometry, multi: multi)
    }

    private mutating func wkb(_ geometry: Geometry, multi: Bool) throws(GeoPackageError) {
        switch geometry {
        case .point(let point):
            let layout = point.layout
            wkbHeader(1, layout)
            if point.isEmpty {
                for _ in 0..<layout.stride { append(Double.nan) }
                return
            }
            append(point.x)
            append(point.y)
            if let z = point.z { append(z) }
            if let m = point.m { append(m) }

        case .multipoint(let multipoint):
            let coordinates = multipoint.coordinates
            wkbHeader(4, coordinates.layout)
            append(UInt32(coordinates.count))
            for i in 0..<coordinates.count {
                wkbHeader(1, coordinates.layout)
                positions(coordinates, i..<(i + 1))
            }

        case .polyline(let polyline):
            let layout = polyline.coordinates.layout
            if polyline.pathCount <= 1, !multi {
                wkbHeader(2, layout)
                let range = polyline.isEmpty ? 0..<0 : polyline.pathRange(0)
                append(UInt32(range.count))
                positions(polyline.coordinates, range)
                return
            }
            wkbHeader(5, layout)
            append(UInt32(polyline.pathCount))
            for p in 0..<polyline.pathCount {
                wkbHeader(2, layout)
                let range = polyline.pathRange(p)
                append(UInt32(range.count))
                positions(polyline.coordinates, range)
            }

        case .polygon(let polygon):
            let layout = polygon.coordinates.layout
            if polygon.partCount <= 1, !multi {
                wkbHeader(3, layout)
                if polygon.isEmpty {
                    append(UInt32(0))
                } else {
                    rings(polygon, part: 0)
                }
                return
            }
            wkbHeader(6, layout)
            append(UInt32(polygon.partCount))
            for p in 0..<polygon.partCount {
                wkbHeader(3, layout)
                rings(polygon, part: p)
            }

        case .envelope(let envelope):
            if multi {
                wkbHeader(6, .xy)
                append(UInt32(envelope.isEmpty ? 0 : 1))
                guard !envelope.isEmpty else { return }
            }
            wkbHeader(3, .xy)
            guard !envelope.isEmpty else {
                append(UInt32(0))
                return
            }
            append(UInt32(1))
            append(UInt32(5))
            for point in envelope.ring {
                append(point.x)
                append(point.y)
            }

        case .collection:
            throw GeoPackageError(.cannotWrite, "a geometry collection cannot be stored in a feature table")
        }
    }

    private mutating func rings(_ polygon: Polygon, part p: Int) {
        let rings = polygon.partRingRange(p)
        append(UInt32(rings.count))
        for r in rings {
            let range = polygon.ringRange(r)
            append(UInt32(range.count))
            positions(polygon.coordinates, range)
        }
    }
}

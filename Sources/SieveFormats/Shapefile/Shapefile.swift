import Foundation
import SieveColumns
import SieveFeatures
import SieveGeometry
import SieveJSON
import SieveProjection

/// How ``Shapefile/read(at:layer:options:)`` reads a shapefile.
public struct ShapefileReadOptions: Hashable, Sendable {
    /// The encoding of the `.dbf` texts, overriding the `.cpg` and the header's language driver
    /// (GDAL's `ENCODING` open option): `UTF-8`, `ISO-8859-1`, `windows-1252` (or `1252`).
    /// `nil` (the default): as the files say.
    public var encoding: String?

    /// Creates options.
    public init(encoding: String? = nil) {
        self.encoding = encoding
    }
}

/// A feature table read from a shapefile.
public struct ShapefileLayer: Sendable {
    /// A `.dbf` field of a type GeoSieve does not read (memo, FoxPro binary types), left out.
    public struct SkippedField: Hashable, Sendable {
        /// The field's name.
        public var name: String
        /// Its type letter and width as the header declares them (`M 10`).
        public var declaration: String
    }

    /// The layer's name: the `.shp` file's name without its extension.
    public var name: String
    /// The features: `FID` (the record's position, from 0, as GDAL and ArcGIS number shapefile
    /// features) is the object-ID field, then the `.dbf` fields in their order.
    public var table: FeatureTable
    /// The encoding the texts were read with (`UTF-8`, `ISO-8859-1`, …).
    public var encoding: String
    /// The fields that were not read.
    public var skippedFields: [SkippedField]
    /// The `.prj` text when it names a reference PROJ could not identify with an EPSG or ESRI
    /// code (the table's spatial reference is then unknown, WKID 0); `nil` otherwise.
    public var unidentifiedProjection: String?
}

/// What ``Shapefile/write(_:rows:to:options:)`` did that the caller should know: fields renamed
/// to fit dBase's 10-byte names, date-and-time fields written as text.
public struct ShapefileWriteReport: Hashable, Sendable {
    /// One line per change, e.g. `field "population_estimate" written as "populati_1" (dBase
    /// names hold 10 bytes)`.
    public var warnings: [String]
}

/// How ``Shapefile/write(_:rows:to:options:)`` writes.
public struct ShapefileWriteOptions: Sendable {
    /// The `.prj` text of a spatial reference: by default PROJ's ESRI WKT for the WKID (none
    /// for WKID 0 or an unknown one).
    public var projection: @Sendable (SpatialReference) -> String?
    /// The time the zip members of a `.shz` or `.shp.zip` are stamped with, in milliseconds
    /// since 1970 (UTC); `nil`: now.
    public var modified: Int64?

    /// Default options.
    public init(projection: (@Sendable (SpatialReference) -> String?)? = nil, modified: Int64? = nil) {
        self.projection = projection ?? Shapefile.esriProjection
        self.modified = modified
    }
}

/// ESRI Shapefiles: reading a `.shp` with its `.shx`, `.dbf`, `.prj` and `.cpg` (or a zip archive
/// of them) into a ``/SieveFeatures/FeatureTable``, and writing a table as one.
///
/// ```swift
/// let roads = try Shapefile.read(at: "roads.shp")
/// let zipped = try Shapefile.read(at: "boundaries.zip", layer: "counties")
/// let report = try Shapefile.write(roads.table, to: "copy.shp")
/// ```
///
/// What is read and written, and how, is described in <doc:WorkingWithShapefiles>.
public enum Shapefile {
    /// Whether `path` names a shapefile by its extension: `.shp`, `.shz` or `.zip` (any case).
    public static func hasShapefileExtension(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".shp") || lower.hasSuffix(".shz") || lower.hasSuffix(".zip")
    }

    /// Splits a source argument `FILE.zip:LAYER` (or `.shz:`) into the archive and the layer
    /// (the `.shp` member's name without extension); `(argument, nil)` for a plain shapefile
    /// name; `nil` when the argument names no shapefile.
    public static func source(_ argument: String) -> (path: String, layer: String?)? {
        if hasShapefileExtension(argument) { return (argument, nil) }
        let lower = argument.lowercased()
        for suffix in [".zip:", ".shz:"] {
            if let range = lower.range(of: suffix, options: .backwards) {
                let cut = argument.utf8.index(argument.startIndex, offsetBy: lower.utf8.distance(from: lower.startIndex, to: range.upperBound))
                let path = String(argument[..<argument.index(before: cut)])
                let layer = String(argument[cut...])
                return (path, layer.isEmpty ? nil : layer)
            }
        }
        return nil
    }

    /// Reads a shapefile.
    ///
    /// - Parameters:
    ///   - path: The `.shp` (its `.shx`, `.dbf`, `.prj` and `.cpg` beside it, found whatever the
    ///     case of their extensions), or a zip archive (`.zip`, `.shz`, `.shp.zip`) holding them.
    ///   - layer: In an archive holding several shapefiles, the one to read (its `.shp` name
    ///     without extension); `nil` for an archive holding one.
    ///   - options: The text encoding, when the files do not say it right.
    /// - Returns: The layer: `FID` and the `.dbf` fields as <doc:WorkingWithShapefiles> describes, the
    ///   geometries (null shapes as no geometry), the spatial reference identified from the
    ///   `.prj`. Records marked deleted in the `.dbf` are left out (their FIDs too).
    /// - Throws: ``FileFormatError`` naming the file, the member, the record, the field and the
    ///   byte offset.
    public static func read(
        at path: String, layer: String? = nil, options: ShapefileReadOptions = ShapefileReadOptions()
    ) throws(FileFormatError) -> ShapefileLayer {
        do throws(FileFormatError) {
            let set = try ShapefileSet.open(path, layer: layer)
            return try readSet(set, options: options)
        } catch {
            throw error.located(path: path)
        }
    }

    /// Reads a shapefile from a zip archive held in memory (a download, say), as
    /// ``read(at:layer:options:)`` reads an archive file.
    public static func read(
        archive bytes: [UInt8], layer: String? = nil, options: ShapefileReadOptions = ShapefileReadOptions()
    ) throws(FileFormatError) -> ShapefileLayer {
        try readSet(try ShapefileSet.open(archive: bytes, layer: layer), options: options)
    }

    /// The layers (`.shp` members, by name without extension) of a zip archive, or the one of
    /// a `.shp` file.
    /// - Throws: ``FileFormatError`` when the file cannot be read or is not a zip archive.
    public static func layers(at path: String) throws(FileFormatError) -> [String] {
        do throws(FileFormatError) {
            if path.lowercased().hasSuffix(".shp") { return [ShapefileSet.baseName(path)] }
            let archive = try ZipArchive(FileBytes.read(path))
            return ShapefileSet.shapefiles(in: archive).map { ShapefileSet.baseName($0.fileName) }
        } catch {
            throw error.located(path: path)
        }
    }

    private static func readSet(_ set: ShapefileSet, options: ShapefileReadOptions) throws(FileFormatError) -> ShapefileLayer {
        let encoding: DBFEncoding
        if let named = options.encoding {
            guard let chosen = DBFEncoding.named(named) else { throw FileFormatError(.unsupported, "an empty encoding name") }
            encoding = chosen
        } else if let cpg = set.cpg, let named = DBFEncoding.named(String(decoding: cpg, as: UTF8.self)) {
            encoding = named
        } else if let dbf = set.dbf, dbf.count > 29 {
            encoding = DBFEncoding.languageDriver(dbf[29])
        } else {
            encoding = .unspecified
        }
        var unidentified: String?
        var reference = SpatialReference(wkid: 0)
        if let prj = set.prj {
            let text = String(decoding: prj, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty {
                if let identified = try? ProjectionContext.withCurrent({ (context) throws(ProjectionError) in try context.identify(wkt: text) }) {
                    reference = identified
                } else {
                    unidentified = text
                }
            }
        }
        let shp = set.shp
        let shx = set.shx
        let dbf = set.dbf
        return try shp.withUnsafeBytes { (shpBytes) throws(FileFormatError) -> ShapefileLayer in
            let shapes: ShapeReader
            if let shx {
                shapes = try shx.withUnsafeBytes { (shxBytes) throws(FileFormatError) in
                    try ShapeReader(shpBytes, index: shxBytes, shpName: set.shpName, shxName: set.member("shx"))
                }
            } else {
                shapes = try ShapeReader(shpBytes, index: nil, shpName: set.shpName, shxName: set.member("shx"))
            }
            if let dbf {
                return try dbf.withUnsafeBytes { (dbfBytes) throws(FileFormatError) -> ShapefileLayer in
                    try readRecords(set, shapes: shapes, dbf: dbfBytes, encoding: encoding, reference: reference, unidentified: unidentified)
                }
            }
            return try readRecords(set, shapes: shapes, dbf: nil, encoding: encoding, reference: reference, unidentified: unidentified)
        }
    }

    private static func readRecords(
        _ set: ShapefileSet, shapes: ShapeReader, dbf: UnsafeRawBufferPointer?, encoding: DBFEncoding, reference: SpatialReference,
        unidentified: String?
    ) throws(FileFormatError) -> ShapefileLayer {
        let dbfName = set.member("dbf")
        var table: DBFTable?
        if let dbf {
            do throws(FileFormatError) {
                table = try DBFTable(dbf, encoding: encoding)
            } catch {
                var located = error
                located.member = dbfName
                throw located
            }
        }
        let count = table?.recordCount ?? shapes.recordCount
        if let table, table.recordCount != shapes.recordCount {
            throw FileFormatError(
                .malformed, "the .dbf holds \(table.recordCount) records and the .shp \(shapes.recordCount); they must agree",
                member: dbfName)
        }
        var readers: [DBFColumnReader] = []
        var skipped: [ShapefileLayer.SkippedField] = []
        for field in table?.fields ?? [] {
            if let reader = DBFColumnReader(field, encoding: encoding) {
                readers.append(reader)
            } else {
                skipped.append(ShapefileLayer.SkippedField(name: field.name, declaration: field.declaration))
            }
        }
        var live: [Int] = []
        live.reserveCapacity(count)
        for i in 0..<count {
            if let dbf, let table, table.isDeleted(dbf, record: i) { continue }
            live.append(i)
        }
        let layout: CoordinateLayout
        do throws(FileFormatError) {
            layout = try shapes.layout(records: live)
        } catch {
            throw error.inMember(set.shpName)
        }
        let geometryType = shapes.shapeType.geometryType
        var geometries = GeometryColumn(storage: geometryType == .point ? .points : .shapes)
        var objectIDs: [Int64] = []
        objectIDs.reserveCapacity(live.count)
        for i in live {
            objectIDs.append(Int64(i))
            if geometryType != nil {
                do throws(FileFormatError) {
                    try shapes.append(record: i, layout: layout, to: &geometries)
                } catch {
                    throw error.inMember(set.shpName)
                }
            }
            if let dbf, let table {
                let record = table.headerLength + i * table.recordLength
                for k in readers.indices {
                    do throws(FileFormatError) {
                        try readers[k].read(dbf, record: record)
                    } catch {
                        var located = error.inMember(dbfName)
                        located.record = i + 1
                        throw located
                    }
                }
            }
        }
        var fieldNames = Set(readers.map { $0.field.name.uppercased() })
        var objectIDName = "FID"
        var suffix = 0
        while fieldNames.contains(objectIDName.uppercased()) {
            suffix += 1
            objectIDName = "FID_\(suffix)"
        }
        fieldNames.insert(objectIDName)
        var fields = [Field(name: objectIDName, type: .oid)]
        var columns = [Column.integer(Int64Column(values: objectIDs))]
        for k in readers.indices {
            columns.append(readers[k].column())
            fields.append(readers[k].schemaField)
        }
        do throws(FeatureTableError) {
            let schema = try Schema(
                fields: fields, objectIdFieldName: objectIDName, geometryType: geometryType, spatialReference: reference)
            let features = try FeatureTable(
                schema: schema, columns: columns, geometryColumn: geometryType != nil ? geometries : GeometryColumn())
            return ShapefileLayer(
                name: set.layerName, table: features, encoding: encoding.name, skippedFields: skipped,
                unidentifiedProjection: unidentified)
        } catch {
            throw FileFormatError(.invalidValue, error.message, member: dbfName, record: error.objectID.map { Int($0) + 1 }, fieldName: error.fieldName)
        }
    }

    /// PROJ's ESRI WKT of `reference` (what ArcGIS and GDAL write in a `.prj`); `nil` for
    /// WKID 0 or one PROJ does not know.
    @Sendable public static func esriProjection(_ reference: SpatialReference) -> String? {
        guard reference.wkid > 0 else { return nil }
        return try? ProjectionContext.withCurrent { (context) throws(ProjectionError) in try context.esriWKT(of: reference) }
    }
}

extension FileFormatError {
    /// This error with its member set where it is not yet.
    func inMember(_ member: String) -> FileFormatError {
        var copy = self
        if copy.member == nil { copy.member = member }
        return copy
    }
}

/// A file's bytes: mapped when it is a regular file, else read; or bytes from an archive.
final class FileBytes: Sendable {
    private enum Storage: Sendable {
        case mapped(MappedFile)
        case array([UInt8])
    }

    private let storage: Storage

    init(_ bytes: [UInt8]) { storage = .array(bytes) }

    /// The file at `path`, mapped where it can be.
    init(path: String) throws(FileFormatError) {
        let mapped: MappedFile?
        do throws(FeatureTableError) {
            mapped = try MappedFile(path: path)
        } catch {
            throw FileFormatError(.cannotOpen, error.message, path: path)
        }
        if let mapped {
            storage = .mapped(mapped)
        } else {
            storage = .array(try Self.read(path))
        }
    }

    var count: Int {
        switch storage {
        case .mapped(let file): file.buffer.count
        case .array(let bytes): bytes.count
        }
    }

    subscript(index: Int) -> UInt8 {
        switch storage {
        case .mapped(let file): file.buffer[index]
        case .array(let bytes): bytes[index]
        }
    }

    func withUnsafeBytes<T>(_ body: (UnsafeRawBufferPointer) throws(FileFormatError) -> T) throws(FileFormatError) -> T {
        switch storage {
        case .mapped(let file):
            return try body(UnsafeRawBufferPointer(file.buffer))
        case .array(let bytes):
            let result: Result<T, FileFormatError> = bytes.withUnsafeBytes { raw in
                do throws(FileFormatError) {
                    return .success(try body(raw))
                } catch {
                    return .failure(error)
                }
            }
            return try result.get()
        }
    }

    /// The whole file at `path`.
    static func read(_ path: String) throws(FileFormatError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw FileFormatError(.cannotOpen, "no such file", path: path)
        }
        guard !isDirectory.boolValue else { throw FileFormatError(.cannotOpen, "is a directory", path: path) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileFormatError(.cannotOpen, "cannot read the file", path: path)
        }
        return [UInt8](data)
    }
}

/// The files of one shapefile, from a folder or a zip archive.
struct ShapefileSet {
    /// The layer's name (the `.shp` name without extension).
    var layerName: String
    /// The `.shp` member's name, for messages.
    var shpName: String
    var shp: FileBytes
    var shx: FileBytes?
    var dbf: FileBytes?
    var prj: [UInt8]?
    var cpg: [UInt8]?

    /// `layer.ext`, the name messages give the member with extension `ext`.
    func member(_ ext: String) -> String { layerName + "." + ext }

    /// The name of `path` without folder and extension.
    static func baseName(_ path: String) -> String {
        let file = (path as NSString).lastPathComponent
        let lower = file.lowercased()
        if lower.hasSuffix(".shp.zip") { return String(file.dropLast(8)) }
        return (file as NSString).deletingPathExtension
    }

    /// The `.shp` members of `archive`, in its order (macOS resource forks left out).
    static func shapefiles(in archive: ZipArchive) -> [ZipArchive.Entry] {
        archive.entries.filter { $0.name.lowercased().hasSuffix(".shp") && !$0.name.hasPrefix("__MACOSX/") }
    }

    /// The set `path` names: a `.shp` with its siblings, or the shapefile of a zip archive.
    static func open(_ path: String, layer: String?) throws(FileFormatError) -> ShapefileSet {
        if path.lowercased().hasSuffix(".shp") {
            guard layer == nil else { throw FileFormatError(.invalidOption, "a layer can be named in a zip archive, not in a .shp") }
            return try openFolder(path)
        }
        return try open(archive: try FileBytes.read(path), layer: layer)
    }

    /// The shapefile of the zip archive `bytes` (`layer`: which, when it holds several).
    static func open(archive bytes: [UInt8], layer: String?) throws(FileFormatError) -> ShapefileSet {
        guard bytes.count >= 4, bytes[0] == 0x50, bytes[1] == 0x4B else {
            throw FileFormatError(.malformed, "not a zip archive (a zipped shapefile is read from a .zip, .shz or .shp.zip)", byteOffset: 0)
        }
        let archive = try ZipArchive(bytes)
        let candidates = shapefiles(in: archive)
        let chosen: ZipArchive.Entry
        if let layer {
            guard let match = candidates.first(where: { baseName($0.fileName) == layer })
                ?? candidates.first(where: { baseName($0.fileName).lowercased() == layer.lowercased() })
            else {
                let names = candidates.map { JSONKey.quoted(baseName($0.fileName)) }.joined(separator: ", ")
                throw FileFormatError(
                    .invalidOption, "the archive holds no shapefile named \(JSONKey.quoted(layer))" + (names.isEmpty ? "" : "; it holds \(names)"))
            }
            chosen = match
        } else {
            guard let first = candidates.first else { throw FileFormatError(.cannotOpen, "the archive holds no .shp file") }
            guard candidates.count == 1 else {
                let names = candidates.map { JSONKey.quoted(baseName($0.fileName)) }.joined(separator: ", ")
                throw FileFormatError(.invalidOption, "the archive holds \(candidates.count) shapefiles (\(names)); name one: FILE.zip:LAYER")
            }
            chosen = first
        }
        let stem = String(chosen.name.dropLast(4)).lowercased()
        func sibling(_ ext: String) throws(FileFormatError) -> [UInt8]? {
            guard let entry = archive.entries.first(where: { $0.name.lowercased() == stem + "." + ext }) else { return nil }
            return try archive.contents(of: entry)
        }
        let name = baseName(chosen.fileName)
        return ShapefileSet(
            layerName: name, shpName: chosen.fileName, shp: FileBytes(try archive.contents(of: chosen)),
            shx: try sibling("shx").map(FileBytes.init), dbf: try sibling("dbf").map(FileBytes.init), prj: try sibling("prj"),
            cpg: try sibling("cpg"))
    }

    /// The `.shp` at `path` and its siblings, their extensions matched in any case.
    private static func openFolder(_ path: String) throws(FileFormatError) -> ShapefileSet {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let stem = url.deletingPathExtension().lastPathComponent
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        func sibling(_ ext: String) -> String? {
            if let exact = entries.first(where: { $0 == stem + "." + ext }) { return (folder as NSString).appendingPathComponent(exact) }
            return entries.first { $0.lowercased() == (stem + "." + ext).lowercased() }.map { (folder as NSString).appendingPathComponent($0) }
        }
        let shp = try FileBytes(path: path)
        return ShapefileSet(
            layerName: stem, shpName: url.lastPathComponent, shp: shp, shx: try sibling("shx").map { (p) throws(FileFormatError) in try FileBytes(path: p) },
            dbf: try sibling("dbf").map { (p) throws(FileFormatError) in try FileBytes(path: p) },
            prj: try sibling("prj").map { (p) throws(FileFormatError) in try FileBytes.read(p) },
            cpg: try sibling("cpg").map { (p) throws(FileFormatError) in try FileBytes.read(p) })
    }
}

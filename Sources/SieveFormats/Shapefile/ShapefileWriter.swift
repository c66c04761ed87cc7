import Foundation
import SieveColumns
import SieveFeatures
import SieveGeometry
import SieveJSON

extension Shapefile {
    /// Writes `table` (or its `rows`, in that order) as a shapefile.
    ///
    /// - Parameters:
    ///   - table: The features.
    ///   - rows: The rows to write; `nil` for every row not deleted.
    ///   - path: A `.shp` (the `.shx`, `.dbf`, `.prj` and `.cpg` are written beside it), or a
    ///     `.shz`, `.shp.zip` or `.zip` (one archive holding the five files, named after it).
    ///   - options: The `.prj` text and the archive's timestamp.
    /// - Returns: What was changed to fit the format (renamed fields, date-times as text).
    /// - Throws: ``FileFormatError/Kind/cannotWrite`` for what a shapefile cannot hold — a text
    ///   over 254 bytes, a geometry collection, a number that is not finite, a file over 4 GiB
    ///   — naming the field and the feature; ``FileFormatError/Kind/writeFailed`` when a file
    ///   cannot be written. Every file is written whole beside its target and renamed into place,
    ///   so a failed write leaves what was there.
    ///
    /// The object-ID field is written as an ordinary `N` field (the shapefile's own FID is the
    /// record's position), so that the IDs survive the round trip — unless it holds exactly the
    /// records' positions (0, 1, 2, …), or is named `FID` (a shapefile's, a FlatGeobuf file's or
    /// GDAL's GeoPackage `fid`): the position gives the FID again, as GDAL writes them. How each field type is written is in <doc:WorkingWithShapefiles>.
    @discardableResult
    public static func write(
        _ table: FeatureTable, rows: [Int]? = nil, to path: String, options: ShapefileWriteOptions = ShapefileWriteOptions()
    ) throws(FileFormatError) -> ShapefileWriteReport {
        do throws(FileFormatError) {
            let rows = rows ?? table.liveRows
            let (shp, shx) = try ShapeWriter.write(table, rows: rows)
            let (dbf, warnings) = try DBFWriter.write(table, rows: rows)
            var files: [(ext: String, bytes: [UInt8])] = [("shp", shp), ("shx", shx), ("dbf", dbf)]
            if let projection = options.projection(table.schema.spatialReference) { files.append(("prj", Array(projection.utf8))) }
            files.append(("cpg", Array("UTF-8".utf8)))
            let lower = path.lowercased()
            if lower.hasSuffix(".shp") {
                let stem = String(path.dropLast(4))
                // The companions first, the .shp last: a reader never finds a new .shp with old
                // companions.
                for file in files.dropFirst() + files.prefix(1) { try AtomicFile.write(file.bytes, to: stem + "." + file.ext) }
            } else if lower.hasSuffix(".shz") || lower.hasSuffix(".zip") {
                let name = ShapefileSet.baseName(path)
                let modified = ZipArchive.dosTimestamp(milliseconds: options.modified ?? Int64(Date().timeIntervalSince1970 * 1000))
                let archive = try ZipArchive.archive(files.map { (name + "." + $0.ext, $0.bytes) }, modified: modified)
                try AtomicFile.write(archive, to: path)
            } else {
                throw FileFormatError(.cannotWrite, "a shapefile is written to a .shp, .shz, .shp.zip or .zip")
            }
            return ShapefileWriteReport(warnings: warnings)
        } catch {
            throw error.located(path: path)
        }
    }
}

/// The `.shp` and `.shx` of a table's geometries.
enum ShapeWriter {
    /// The main file and the index of `rows`' geometries.
    static func write(_ table: FeatureTable, rows: [Int]) throws(FileFormatError) -> (shp: [UInt8], shx: [UInt8]) {
        let geometryType = table.schema.geometryType
        let column = table.geometryColumn
        let hasGeometry = geometryType != nil && column.count == table.count
        var layout = CoordinateLayout()
        if hasGeometry {
            for row in rows {
                guard let geometry = column[row] else { continue }
                let l = geometry.layout
                layout.hasZ = layout.hasZ || l.hasZ
                layout.hasM = layout.hasM || l.hasM
                if layout.hasZ && layout.hasM { break }
            }
        }
        let type = hasGeometry ? ShapeType.of(geometryType, layout: layout) : .null
        var shp = LittleEndianWriter()
        var shx = LittleEndianWriter()
        shp.bytes.reserveCapacity(100 + rows.count * 28)
        shp.bytes += [UInt8](repeating: 0, count: 100)
        shx.bytes += [UInt8](repeating: 0, count: 100)
        var box = (xmin: Double.infinity, ymin: Double.infinity, xmax: -Double.infinity, ymax: -Double.infinity)
        var zRange = (min: Double.infinity, max: -Double.infinity)
        var mRange = (min: Double.infinity, max: -Double.infinity)
        var content = LittleEndianWriter()
        for (index, row) in rows.enumerated() {
            content.bytes.removeAll(keepingCapacity: true)
            let geometry = hasGeometry ? column[row] : nil
            if let geometry, !geometry.isEmpty {
                let points = try Self.content(geometry, type: type, layout: layout, into: &content, objectID: table.objectID(row: row))
                for p in points {
                    box.xmin = min(box.xmin, p.x)
                    box.ymin = min(box.ymin, p.y)
                    box.xmax = max(box.xmax, p.x)
                    box.ymax = max(box.ymax, p.y)
                    if let z = p.z, !z.isNaN { zRange = (min(zRange.min, z), max(zRange.max, z)) }
                    if let m = p.m, !m.isNaN { mRange = (min(mRange.min, m), max(mRange.max, m)) }
                }
            } else {
                content.int32(0)
            }
            let offset = shp.bytes.count
            guard offset + 8 + content.bytes.count <= Int(Int32.max) * 2 else {
                throw FileFormatError(.cannotWrite, "the .shp would be over 4 GiB, the format's limit", record: index + 1)
            }
            shx.bigEndianInt32(Int32(offset / 2))
            shx.bigEndianInt32(Int32(content.bytes.count / 2))
            shp.bigEndianInt32(Int32(index + 1))
            shp.bigEndianInt32(Int32(content.bytes.count / 2))
            shp.bytes += content.bytes
        }
        if box.xmin > box.xmax { box = (0, 0, 0, 0) }
        if zRange.min > zRange.max { zRange = (0, 0) }
        if mRange.min > mRange.max { mRange = (0, 0) }
        func header(_ length: Int) -> [UInt8] {
            var h = LittleEndianWriter()
            h.bigEndianInt32(9994)
            for _ in 0..<5 { h.bigEndianInt32(0) }
            h.bigEndianInt32(Int32(length / 2))
            h.int32(1000)
            h.int32(type.rawValue)
            for value in [box.xmin, box.ymin, box.xmax, box.ymax, zRange.min, zRange.max, mRange.min, mRange.max] { h.double(value) }
            return h.bytes
        }
        shp.bytes.replaceSubrange(0..<100, with: header(shp.bytes.count))
        shx.bytes.replaceSubrange(0..<100, with: header(shx.bytes.count))
        return (shp.bytes, shx.bytes)
    }

    /// The "no data" measure.
    static let noMeasure = -1e39

    /// Writes the record content of `geometry` as `type`; returns its points.
    private static func content(
        _ geometry: Geometry, type: ShapeType, layout: CoordinateLayout, into out: inout LittleEndianWriter, objectID: Int64
    ) throws(FileFormatError) -> [Point] {
        // The parts (paths or rings, in the order written) and their points.
        var parts: [[Point]] = []
        switch geometry {
        case .point(let point):
            if type.geometryType == .point {
                out.int32(type.rawValue)
                out.double(point.x)
                out.double(point.y)
                if type.hasZ { out.double(point.z ?? 0) }
                if type.hasZ || layout.hasM { out.double(Self.measure(point.m)) }
                return [point]
            }
            parts = [[point]]
        case .multipoint(let multipoint): parts = [multipoint.points]
        case .polyline(let polyline): parts = polyline.paths
        case .polygon(let polygon):
            let oriented = polygon.outerRingsCounterClockwise(false)
            parts = (0..<oriented.ringCount).map { oriented.ring($0) }
        case .envelope(let envelope):
            parts = [[
                Point(x: envelope.xmin, y: envelope.ymin), Point(x: envelope.xmin, y: envelope.ymax), Point(x: envelope.xmax, y: envelope.ymax),
                Point(x: envelope.xmax, y: envelope.ymin), Point(x: envelope.xmin, y: envelope.ymin),
            ]]
        case .collection:
            throw FileFormatError(
                .cannotWrite, "a geometry collection cannot be a shape (feature \(objectID))")
        }
        let points = parts.flatMap { $0 }
        let multipoint = type.geometryType == .multipoint
        out.int32(type.rawValue)
        let xs = points.map(\.x)
        let ys = points.map(\.y)
        out.double(xs.min() ?? 0)
        out.double(ys.min() ?? 0)
        out.double(xs.max() ?? 0)
        out.double(ys.max() ?? 0)
        if !multipoint { out.int32(Int32(parts.count)) }
        out.int32(Int32(points.count))
        if !multipoint {
            var start = 0
            for part in parts {
                out.int32(Int32(start))
                start += part.count
            }
        }
        for point in points {
            out.double(point.x)
            out.double(point.y)
        }
        if type.hasZ {
            let zs = points.map { $0.z ?? 0 }
            out.double(zs.min() ?? 0)
            out.double(zs.max() ?? 0)
            for z in zs { out.double(z) }
        }
        if layout.hasM {
            let ms = points.map { Self.measure($0.m) }
            let known = ms.filter { $0 > -1e38 }
            out.double(known.min() ?? noMeasure)
            out.double(known.max() ?? noMeasure)
            for m in ms { out.double(m) }
        }
        return points
    }

    private static func measure(_ m: Double?) -> Double {
        guard let m, !m.isNaN else { return noMeasure }
        return m
    }
}

/// The `.dbf` of a table's fields, as GDAL writes them where GDAL can: names of at most 10 bytes
/// (longer ones cut and numbered as GDAL launders them, with a warning), UTF-8 texts (`.cpg`),
/// NULLs as GDAL writes them (blanks for texts, `*` for numbers, `00000000` for dates).
enum DBFWriter {

    /// A field as it is written.
    struct Plan {
        var name: String
        var source: Int
        var type: UInt8
        var length: Int
        var decimals: Int
        /// Dates written as ISO 8601 texts (they hold times of day).
        var dateAsText = false
    }

    static func write(_ table: FeatureTable, rows: [Int]) throws(FileFormatError) -> (bytes: [UInt8], warnings: [String]) {
        var warnings: [String] = []
        var plans: [Plan] = []
        var used = Set<String>()
        let fields = table.schema.fields
        let columns = table.columns
        // An object-ID field holding the records' positions (0, 1, 2, …: a table read from a
        // shapefile), or named FID, is the FID a reader gives back: not written, so that copies
        // do not grow.
        let objectIDIndex = table.schema.index(ofField: table.schema.objectIdFieldName)
        var skipped: Int?
        if let objectIDIndex, case .integer(let ids) = columns[objectIDIndex],
            FeatureTable.isPositionalObjectIDName(table.schema.objectIdFieldName)
                || rows.enumerated().allSatisfy({ ids.values[$0.element] == Int64($0.offset) })
        {
            skipped = objectIDIndex
        }
        for (k, field) in fields.enumerated() where k != skipped {
            let name = launder(field.name, used: &used)
            if name != field.name {
                warnings.append("field \(JSONKey.quoted(field.name)) written as \(JSONKey.quoted(name)) (dBase names hold 10 bytes)")
            }
            var plan = Plan(name: name, source: k, type: UInt8(ascii: "C"), length: 1, decimals: 0)
            switch columns[k] {
            case .integer(let column):
                var width = 1
                for row in rows where column.validity?.isValid(row) ?? true {
                    width = max(width, String(column.values[row]).utf8.count)
                }
                plan.type = UInt8(ascii: "N")
                if field.type == .bigInteger {
                    plan.length = max(width, 18)
                } else if field.type == .smallInteger && width <= 6 {
                    plan.length = 6
                } else {
                    plan.length = width <= 9 ? 9 : max(width, 18)
                }
            case .double(let column):
                plan.type = UInt8(ascii: "N")
                plan.length = 24
                plan.decimals = 15
                for row in rows where column.validity?.isValid(row) ?? true {
                    let value = column.values[row]
                    guard value.isFinite else {
                        throw FileFormatError(
                            .cannotWrite, "\(value) cannot be stored in a dBase number", record: nil, fieldName: field.name)
                    }
                }
            case .string(let column):
                var longest = 0
                for row in rows {
                    guard let text = column[row] else { continue }
                    let length = text.utf8.count
                    if length > 254 {
                        throw FileFormatError(
                            .cannotWrite,
                            "a text of \(length) bytes (feature \(table.objectID(row: row))): dBase texts hold at most 254",
                            fieldName: field.name)
                    }
                    longest = max(longest, length)
                }
                plan.length = min(254, max(1, longest, field.length ?? 0))
            case .date(let column):
                let wholeDays = field.type == .dateOnly
                    || rows.allSatisfy { !(column.validity?.isValid($0) ?? true) || CivilTime.isMidnight(column.values[$0]) }
                if wholeDays {
                    plan.type = UInt8(ascii: "D")
                    plan.length = 8
                } else {
                    plan.dateAsText = true
                    plan.length = 24
                    warnings.append(
                        "field \(JSONKey.quoted(field.name)) holds times of day, which a dBase date cannot: written as ISO 8601 text")
                }
            }
            plans.append(plan)
        }
        let recordLength = 1 + plans.reduce(0) { $0 + $1.length }
        guard recordLength <= 65_535 else {
            throw FileFormatError(.cannotWrite, "the fields take \(recordLength) bytes per record; dBase records hold at most 65,535")
        }
        let headerLength = 32 + 32 * plans.count + 1
        guard headerLength <= 65_535 else {
            throw FileFormatError(.cannotWrite, "\(plans.count) fields; a dBase header holds at most 2,046")
        }
        if plans.count > 255 {
            warnings.append("\(plans.count) fields: some dBase readers read only 255")
        }
        var out = LittleEndianWriter()
        out.bytes.reserveCapacity(headerLength + recordLength * rows.count + 1)
        let today = CivilTimeComponents(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        out.bytes += [0x03, UInt8((today.year - 1900) & 0xFF), UInt8(today.month), UInt8(today.day)]
        out.uint32(UInt32(rows.count))
        out.uint16(UInt16(headerLength))
        out.uint16(UInt16(recordLength))
        out.bytes += [UInt8](repeating: 0, count: 20)
        for plan in plans {
            var name = Array(plan.name.utf8)
            name += [UInt8](repeating: 0, count: 11 - name.count)
            out.bytes += name
            out.bytes.append(plan.type)
            out.bytes += [0, 0, 0, 0]
            out.bytes.append(UInt8(plan.length & 0xFF))
            out.bytes.append(UInt8(plan.decimals))
            out.bytes += [UInt8](repeating: 0, count: 14)
        }
        out.bytes.append(0x0D)
        var record = [UInt8](repeating: 0x20, count: recordLength)
        for row in rows {
            for i in record.indices { record[i] = 0x20 }
            var at = 1
            for plan in plans {
                fill(&record, at: at, plan: plan, column: columns[plan.source], row: row)
                at += plan.length
            }
            out.bytes += record
        }
        out.bytes.append(0x1A)
        return (out.bytes, warnings)
    }

    /// Writes one value into `record` at `at`.
    private static func fill(_ record: inout [UInt8], at: Int, plan: Plan, column: Column, row: Int) {
        func put(_ text: [UInt8], rightAligned: Bool) {
            let count = min(text.count, plan.length)
            let start = rightAligned ? at + plan.length - count : at
            for i in 0..<count { record[start + i] = text[i] }
        }
        func fillNull(_ byte: UInt8) {
            for i in at..<(at + plan.length) { record[i] = byte }
        }
        switch column {
        case .integer(let c):
            guard c.validity?.isValid(row) ?? true else { return fillNull(UInt8(ascii: "*")) }
            put(Array(String(c.values[row]).utf8), rightAligned: true)
        case .double(let c):
            guard c.validity?.isValid(row) ?? true else { return fillNull(UInt8(ascii: "*")) }
            put(Array(formatNumber(c.values[row]).utf8), rightAligned: true)
        case .string(let c):
            guard let text = c[row] else { return }
            put(Array(text.utf8), rightAligned: false)
        case .date(let c):
            guard c.validity?.isValid(row) ?? true else {
                if !plan.dateAsText { fillNull(UInt8(ascii: "0")) }
                return
            }
            let d = CivilTime.components(milliseconds: c.values[row])
            if plan.dateAsText {
                let text = String(format: "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ", d.year, d.month, d.day, d.hour, d.minute, d.second, d.millisecond)
                put(Array(text.utf8), rightAligned: false)
            } else {
                put(Array(String(format: "%04lld%02lld%02lld", d.year, d.month, d.day).utf8), rightAligned: false)
            }
        }
    }

    /// `name` cut to 10 bytes (not inside a character) and made unique ignoring case as GDAL's
    /// shapefile driver does: the first 8 bytes and `_1` … `_9`, then the first 8 and `10` …
    /// `99`.
    static func launder(_ name: String, used: inout Set<String>) -> String {
        func prefix(_ bytes: Int) -> String {
            var result = ""
            for character in name {
                if result.utf8.count + String(character).utf8.count > bytes { break }
                result.append(character)
            }
            return result
        }
        var candidate = prefix(10)
        if candidate.isEmpty { candidate = "FIELD" }
        var number = 1
        while used.contains(candidate.uppercased()) {
            candidate = number < 10 ? prefix(8) + "_\(number)" : prefix(8) + "\(number)"
            number += 1
        }
        used.insert(candidate.uppercased())
        return candidate
    }
}

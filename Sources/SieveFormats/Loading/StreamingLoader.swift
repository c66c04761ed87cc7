import SieveFeatures
import Foundation
import SieveBase
import SieveColumns
import SieveGeometry
import SieveJSON

/// Reads GeoJSON (a FeatureCollection, a single Feature, GeoJSONSeq) and Esri JSON FeatureSets
/// in one pass, straight into column builders: the root's members are read one by one, the
/// features array (or sequence) is read feature by feature — split at feature boundaries and
/// read on several threads when it is large — and the pieces are joined in order.
enum StreamingLoader {
    static func load(
        _ buffer: UnsafeBufferPointer<UInt8>, schema: [Field]?, options: LoadOptions, expected: FeatureFormat?,
        release: (@Sendable (Int, Int) -> Void)? = nil
    ) throws(FeatureTableError) -> (FeatureTable, LoadReport) {
        do throws(FeatureTableError) {
            var (table, report) = try loadUnlocated(
                buffer, schema: schema, options: options, expected: expected,
                progress: ProgressShared(total: buffer.count, callback: options.progress, release: release))
            for i in report.firstSkipped.indices { report.firstSkipped[i].locate(in: buffer) }
            return (table, report)
        } catch {
            var error = error
            error.locate(in: buffer)
            throw error
        }
    }

    // MARK: - The root

    private static func loadUnlocated(
        _ buffer: UnsafeBufferPointer<UInt8>, schema: [Field]?, options: LoadOptions, expected: FeatureFormat?,
        progress: ProgressShared?
    ) throws(FeatureTableError) -> (FeatureTable, LoadReport) {
        var reader = JSONReader(pulling: buffer)
        let first = try json { () throws(GeometryError) -> UInt8 in
            guard let first = reader.peek() else { throw reader.failure("unexpected end of input") }
            return first
        }
        if first == 0x1E {
            // GeoJSONSeq with record separators.
            let context = FeatureReadContext(format: .geoJSON, explicit: try explicitFields(schema, objectIdFieldName: nil), options: options)
            let pieces = try readFeatures(&reader, buffer: buffer, context: context, sequence: true, progress: progress)
            return try assemble(consume pieces, context: context, spatialReference: .wgs84, globalIdFieldName: nil, displayFieldName: nil)
        }
        guard first == UInt8(ascii: "{") else {
            let value = try json { () throws(GeometryError) -> JSONValue in
                let value = try reader.readValue()
                try reader.finishDocument()
                return value
            }
            if expected == .geoJSON {
                throw FeatureTableError(
                    .invalidGeoJSON, "expected a FeatureCollection object, found \(value.kindDescription)", position: value.position)
            }
            throw FeatureTableError(
                .invalidEsriJSON, "expected a FeatureSet object, found \(value.kindDescription)", position: value.position)
        }
        return try readRoot(&reader, buffer: buffer, schema: schema, options: options, progress: progress, expected: expected)
    }

    /// The root object's members, read in order; the features are read where they stand when
    /// the format is known by then (a GeoJSON `type` first), else after the other members.
    private static func readRoot(
        _ reader: inout JSONReader, buffer: UnsafeBufferPointer<UInt8>, schema: [Field]?, options: LoadOptions,
        progress: ProgressShared?, expected: FeatureFormat?
    ) throws(FeatureTableError) -> (FeatureTable, LoadReport) {
        let rootMark = reader.mark
        let rootPosition = reader.characterPosition
        var seen: [[UInt8]] = []
        var type: JSONValue?
        var featuresMark: JSONReader.Mark?
        var pieces: [FeatureChunk]?
        var crs: JSONValue?
        var members: [String: JSONValue] = [:]
        var geoJSONContext: FeatureReadContext?
        // The root's members in order, for writing the file back (the features' value not kept).
        var root = JSONObject()
        try json { () throws(GeometryError) in try reader.enterContainer() }
        var first = true
        while let key = try json({ () throws(GeometryError) in try reader.nextMember(first: &first) }) {
            let name = key.withBytes(in: buffer) { Array($0) }
            if seen.contains(name) {
                throw FeatureTableError(
                    .invalidJSON,
                    "duplicate key \(JSONKey.quoted(key.string(in: buffer))) in an object (member names must be unique)",
                    position: key.position)
            }
            seen.append(name)
            let text = String(decoding: name, as: UTF8.self)
            if text == "type", expected == .esriJSON {
                root.append(text, try json { () throws(GeometryError) in try reader.readValue() })
                continue
            }
            if text == "features", try json({ () throws(GeometryError) in reader.peek() }) == UInt8(ascii: "[") {
                root.append(text, .null())
                if type?.stringValue == "FeatureCollection" {
                    let context = FeatureReadContext(
                        format: .geoJSON, explicit: try explicitFields(schema, objectIdFieldName: nil), options: options)
                    geoJSONContext = context
                    pieces = try readFeatures(&reader, buffer: buffer, context: context, sequence: false, progress: progress)
                } else {
                    featuresMark = reader.mark
                    try json { () throws(GeometryError) in try reader.skipValue() }
                    progress?.release(reader.mark.offset, reader.offset)
                }
                continue
            }
            let value = try json { () throws(GeometryError) in try reader.readValue() }
            root.append(text, value)
            switch text {
            case "type": type = value
            case "crs": crs = value
            default: members[text] = value
            }
        }
        if type?.stringValue != "Feature" { try json { () throws(GeometryError) in try reader.finishDocument() } }
        let featuresValue = members["features"]
        if type == nil, expected == .geoJSON {
            throw FeatureTableError(.invalidGeoJSON, "expected \"type\": \"FeatureCollection\", found no \"type\" member", position: rootPosition)
        }

        if let type {
            // GeoJSON.
            switch type.stringValue {
            case "FeatureCollection":
                break
            case "Feature":
                // A single Feature, or the first of a GeoJSONSeq.
                reader.rewind(to: rootMark)
                let context = FeatureReadContext(format: .geoJSON, explicit: try explicitFields(schema, objectIdFieldName: nil), options: options)
                let pieces = try readFeatures(&reader, buffer: buffer, context: context, sequence: true, progress: progress)
                let spatialReference = try GeoJSONLoader.crs(crs)
                return try assemble(
                    consume pieces, context: context, spatialReference: spatialReference, globalIdFieldName: nil, displayFieldName: nil)
            case let name?:
                throw FeatureTableError(
                    .invalidGeoJSON, "expected \"type\": \"FeatureCollection\" or \"Feature\", found \(JSONKey.quoted(name))",
                    position: type.position)
            case nil:
                throw FeatureTableError(
                    .invalidGeoJSON, "expected \"type\": \"FeatureCollection\", found \(type.kindDescription)", position: type.position)
            }
            let spatialReference = try GeoJSONLoader.crs(crs)
            if let featuresValue {
                throw FeatureTableError(
                    .invalidGeoJSON, "\"features\" must be an array, not \(featuresValue.kindDescription)", position: featuresValue.position)
            }
            if let featuresMark, pieces == nil {
                // "features" came before "type".
                let end = reader.mark
                reader.rewind(to: featuresMark)
                let context = FeatureReadContext(format: .geoJSON, explicit: try explicitFields(schema, objectIdFieldName: nil), options: options)
                geoJSONContext = context
                pieces = try readFeatures(&reader, buffer: buffer, context: context, sequence: false, progress: progress)
                reader.rewind(to: end)
            }
            guard let geoJSONContext, let chunks = pieces.take() else {
                throw FeatureTableError(.invalidGeoJSON, "the FeatureCollection has no \"features\" array", position: rootPosition)
            }
            return try assemble(
                consume chunks, context: geoJSONContext, spatialReference: spatialReference, globalIdFieldName: nil, displayFieldName: nil,
                root: options.keepsFileRepresentation ? root : nil)
        }

        // Esri JSON.
        func string(_ key: String) throws(FeatureTableError) -> String? {
            guard let member = members[key], !member.isNull else { return nil }
            guard let string = member.stringValue else {
                throw FeatureTableError(
                    .invalidEsriJSON, "\"\(key)\" must be a string, not \(member.kindDescription)", position: member.position)
            }
            return string.isEmpty ? nil : string
        }
        if let featuresValue {
            throw FeatureTableError(
                .invalidEsriJSON, "\"features\" must be an array, not \(featuresValue.kindDescription)", position: featuresValue.position)
        }
        guard let featuresMark else {
            throw FeatureTableError(
                .invalidEsriJSON, "the FeatureSet has no \"features\" array (nor is it a GeoJSON FeatureCollection)",
                position: rootPosition)
        }
        var declaredType: GeometryType?
        if let name = try string("geometryType") {
            guard let type = GeometryType(rawValue: name) else {
                let known = GeometryType.allCases.map(\.rawValue).joined(separator: ", ")
                throw FeatureTableError(
                    .invalidEsriJSON, "unknown geometryType \(JSONKey.quoted(name)) (expected one of \(known))",
                    position: members["geometryType"]?.position)
            }
            declaredType = type
        }
        let spatialReference = try EsriJSONLoader.spatialReference(members["spatialReference"]) ?? .wgs84
        var fields = schema
        if fields == nil, let fieldsValue = members["fields"], !fieldsValue.isNull {
            fields = try Field.fields(esriJSON: fieldsValue)
        }
        let objectIdFieldName = try string("objectIdFieldName")
        let context = FeatureReadContext(
            format: .esriJSON, explicit: try explicitFields(fields, objectIdFieldName: objectIdFieldName), declaredType: declaredType,
            options: options, objectIdFieldName: objectIdFieldName)
        reader.rewind(to: featuresMark)
        let esriPieces = try readFeatures(&reader, buffer: buffer, context: context, sequence: false, progress: progress)
        let globalIdFieldName = try string("globalIdFieldName")
        let displayFieldName = try string("displayFieldName")
        return try assemble(
            consume esriPieces, context: context, spatialReference: spatialReference, globalIdFieldName: globalIdFieldName,
            displayFieldName: displayFieldName, root: options.keepsFileRepresentation ? root : nil)
    }

    /// The explicit fields resolved: names unique ignoring case, the object-ID field found (the
    /// one the file names, else the OID field, else an integer field named `OBJECTID`).
    static func explicitFields(_ given: [Field]?, objectIdFieldName: String?) throws(FeatureTableError) -> ExplicitFields? {
        guard let given else { return nil }
        var used = Set<String>()
        for field in given {
            guard !field.name.isEmpty else { throw FeatureTableError(.invalidSchema, "a field has an empty name") }
            guard used.insert(field.name.lowercased()).inserted else {
                throw FeatureTableError(
                    .invalidSchema, "the field name is repeated (names are compared ignoring case)", fieldName: field.name)
            }
        }
        let lookup = Dictionary(given.enumerated().map { ($1.name.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        var oidIndex: Int?
        if let objectIdFieldName, !objectIdFieldName.isEmpty {
            guard let index = lookup[objectIdFieldName.lowercased()] else {
                throw FeatureTableError(.invalidSchema, "the object-ID field is not among the fields", fieldName: objectIdFieldName)
            }
            oidIndex = index
        } else if let index = given.firstIndex(where: { $0.type == .oid }) {
            oidIndex = index
        } else if let index = lookup["objectid"], given[index].columnType == .integer {
            oidIndex = index
        }
        if let oidIndex, given[oidIndex].columnType != .integer {
            throw FeatureTableError(
                .invalidSchema, "the object-ID field must be an integer field, not \(given[oidIndex].type.name)",
                fieldName: given[oidIndex].name)
        }
        if given.count + (oidIndex == nil ? 1 : 0) > Schema.maximumFieldCount {
            let added = oidIndex == nil ? " (with the OBJECTID field added for the object IDs)" : ""
            throw FeatureTableError(
                .tooManyFields,
                "the table would have \(given.count + (oidIndex == nil ? 1 : 0)) fields\(added); a table holds at most \(Schema.maximumFieldCount)")
        }
        return ExplicitFields(fields: given, lookup: lookup, objectIdIndex: oidIndex)
    }

    // MARK: - Features, on one thread or several

    /// Reads the features array at the reader (or, with `sequence`, the GeoJSONSeq from the
    /// reader to the end) into pieces, in order, and leaves the reader after it.
    static func readFeatures(
        _ reader: inout JSONReader, buffer: UnsafeBufferPointer<UInt8>, context: FeatureReadContext, sequence: Bool,
        progress: ProgressShared?
    ) throws(FeatureTableError) -> [FeatureChunk] {
        if !sequence {
            let empty = try json { () throws(GeometryError) -> Bool in
                try reader.enterContainer(UInt8(ascii: "["))
                var first = true
                return try !reader.nextElement(first: &first)
            }
            if empty { return [] }
        }
        let start = reader.offset
        let threads = Swift.max(1, context.options.threads ?? ProcessInfo.processInfo.activeProcessorCount)
        var starts = [start]
        if threads > 1, buffer.count - start >= context.options.parallelThreshold {
            starts = boundaries(buffer, from: start, pieces: threads, sequence: sequence)
        }
        let baseExtra = reader.extraByteCount
        let depth = reader.nestingDepth
        var pieces = readPieces(buffer, starts: starts, context: context, sequence: sequence, depth: depth, progress: progress)
        // Join the pieces that line up; read the rest again from where the last good one ended.
        var good: [FeatureChunk] = []
        var extra = baseExtra
        for (i, piece) in pieces.enumerated() {
            var piece = piece
            piece.positionCorrection = piece.start - extra
            extra += piece.extraBytes
            good.append(piece)
            if piece.error != nil || piece.reachedEnd { break }
            if i + 1 < starts.count, piece.endOffset == starts[i + 1] { continue }
            // The next piece did not start at a feature boundary: read on from here on one thread.
            pieces = readPieces(buffer, starts: [piece.endOffset], context: context, sequence: sequence, depth: depth, progress: progress)
            var rest = pieces[0]
            rest.positionCorrection = rest.start - extra
            extra += rest.extraBytes
            good.append(rest)
            break
        }
        var featureBase = 0
        for i in good.indices {
            good[i].featureBase = featureBase
            featureBase += good[i].features
            if var error = good[i].error {
                error.position = error.position.map { $0 + good[i].positionCorrection }
                error.featureIndex = error.featureIndex.map { $0 + good[i].featureBase }
                if error.objectID == nil, error.kind != .invalidJSON, let index = error.featureIndex { error.objectID = Int64(index + 1) }
                throw error
            }
        }
        guard let last = good.last else { return [] }
        reader.jump(to: last.endOffset, extraBytes: extra, leavingContainer: !sequence)
        return good
    }

    /// `body`'s result, its reader errors as ``FeatureTableError/Kind/invalidJSON``.
    @inline(__always)
    static func json<T>(_ body: () throws(GeometryError) -> T) throws(FeatureTableError) -> T {
        do throws(GeometryError) {
            return try body()
        } catch {
            throw FeatureTableError(.invalidJSON, error.message, position: error.position)
        }
    }

    /// Reads the pieces starting at `starts` (each up to the next start), in parallel.
    private static func readPieces(
        _ buffer: UnsafeBufferPointer<UInt8>, starts: [Int], context: FeatureReadContext, sequence: Bool, depth: Int,
        progress: ProgressShared?
    ) -> [FeatureChunk] {
        let count = starts.count
        let results = UnsafeMutableBufferPointer<FeatureChunk>.allocate(capacity: count)
        defer { results.deallocate() }
        let shared = UnsafeShared(buffer: buffer, results: results)
        let work: @Sendable (Int) -> Void = { i in
            let start = starts[i]
            let limit = i + 1 < count ? starts[i + 1] : Int.max
            var reader = JSONReader(pulling: shared.buffer, at: start)
            reader.assumeDepth(depth)
            var chunk = FeatureChunk(start: start, context: context)
            var counter = progress.map { ProgressCounter(shared: $0, piece: i, start: start) }
            if sequence {
                chunk.readSequence(&reader, buffer: shared.buffer, limit: limit, context: context, progress: &counter)
            } else {
                chunk.readArray(&reader, buffer: shared.buffer, limit: limit, context: context, progress: &counter)
            }
            chunk.extraBytes = reader.extraByteCount - start
            counter?.advance(to: reader.offset, features: chunk.features)
            chunk.finishColumns()
            (shared.results.baseAddress.map { $0 + i })?.initialize(to: chunk)
        }
        if count == 1 {
            work(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: count, execute: work)
        }
        let pieces = Array(results)
        _ = results.deinitialize()
        return pieces
    }

    /// Where to split the features after `start` into about `pieces` pieces: offsets of
    /// feature starts candidates (`,` then an object beginning as the first feature begins; for
    /// GeoJSONSeq, a line that starts an object). Candidates are checked when the pieces are
    /// joined, so a wrong one costs time, never correctness.
    static func boundaries(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int, pieces: Int, sequence: Bool) -> [Int] {
        // The first feature's opening bytes up to its first ':'.
        var signatureEnd = start
        while signatureEnd < buffer.count, signatureEnd - start < 64, buffer[signatureEnd] != UInt8(ascii: ":") { signatureEnd += 1 }
        guard signatureEnd < buffer.count, buffer[signatureEnd] == UInt8(ascii: ":") else { return [start] }
        let signature = Array(buffer[start...signatureEnd])
        var result = [start]
        let size = buffer.count - start
        for k in 1..<pieces {
            var i = Swift.max(start + size / pieces * k, (result.last ?? start) + 1)
            var found: Int?
            while i + signature.count <= buffer.count {
                if buffer[i] == signature[0], matches(buffer, at: i, signature) {
                    // Before it: white space, then ',' (array) or a line break (sequence).
                    var j = i - 1
                    while j > start, buffer[j] == 0x20 || buffer[j] == 0x09 || buffer[j] == 0x0D || (!sequence && buffer[j] == 0x0A) || buffer[j] == 0x1E {
                        j -= 1
                    }
                    if sequence ? buffer[j] == 0x0A || buffer[j] == 0x1E : buffer[j] == UInt8(ascii: ",") {
                        found = i
                        break
                    }
                }
                i += 1
            }
            guard let found else { break }
            result.append(found)
        }
        return result
    }

    private static func matches(_ buffer: UnsafeBufferPointer<UInt8>, at offset: Int, _ signature: [UInt8]) -> Bool {
        for (k, byte) in signature.enumerated() where buffer[offset + k] != byte { return false }
        return true
    }
}

/// The input and the result slots shared by the threads reading pieces (each thread reads the
/// input and writes only its own slot).
private struct UnsafeShared: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<UInt8>
    let results: UnsafeMutableBufferPointer<FeatureChunk>
}

/// Progress of a load, summed over the pieces read at the same time.
///
/// It also hands the input's pages already read back to the system (for a mapped file).
final class ProgressShared: Sendable {
    /// Each piece's bytes and features read so far.
    private let pieces = Locked<(bytes: [Int: Int], features: [Int: Int])>(([:], [:]))
    let total: Int
    let callback: (@Sendable (LoadProgress) -> Void)?
    let releaseBytes: (@Sendable (Int, Int) -> Void)?

    init(total: Int, callback: (@Sendable (LoadProgress) -> Void)?, release: (@Sendable (Int, Int) -> Void)?) {
        self.total = total
        self.callback = callback
        self.releaseBytes = release
    }

    /// Hands bytes `start..<end` of the input back (they will not be read again).
    func release(_ start: Int, _ end: Int) { releaseBytes?(start, end) }

    func update(piece: Int, bytes pieceBytes: Int, features pieceFeatures: Int) {
        guard let callback else { return }
        let progress = pieces.withLock { pieces in
            pieces.bytes[piece] = pieceBytes
            pieces.features[piece] = pieceFeatures
            return LoadProgress(
                bytesRead: pieces.bytes.values.reduce(0, +), totalBytes: total, features: pieces.features.values.reduce(0, +))
        }
        callback(progress)
    }
}

/// One piece's view of the shared progress.
struct ProgressCounter {
    let shared: ProgressShared
    let piece: Int
    let start: Int
    /// Where the bytes not yet handed back start.
    private var released: Int

    init(shared: ProgressShared, piece: Int, start: Int) {
        self.shared = shared
        self.piece = piece
        self.start = start
        self.released = start
    }

    mutating func advance(to offset: Int, features: Int) {
        shared.update(piece: piece, bytes: offset - start, features: features)
        shared.release(released, offset)
        released = Swift.max(released, offset)
    }
}

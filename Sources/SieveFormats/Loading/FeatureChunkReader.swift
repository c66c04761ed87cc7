import SieveFeatures
import Foundation
import SieveColumns
import SieveGeometry
import SieveJSON

/// The features of one stretch of the input, read into column builders: a whole input, or one
/// of the pieces a large input is split into at feature boundaries.
///
/// Rows are only appended for features read completely and found valid, so that a skipped
/// feature leaves no trace. Character positions in errors count from the start of the stretch
/// (``base`` corrects them when the pieces are joined).
struct FeatureChunk {
    // MARK: Result
    /// Rows stored.
    var rows = 0
    /// Features read (stored or skipped).
    var features = 0
    /// The distinct member names, in order of first appearance, with their columns (inferred
    /// fields).
    var keys: [[UInt8]] = []
    var columns: [InferredColumn] = []
    /// The typed columns (explicit fields), one per field.
    var typed: [TypedColumnBuilder] = []
    /// Explicit fields: the object-ID attribute of each row, when it has one.
    var objectIDAttribute: [Int64] = []
    var objectIDAttributeCount = 0
    /// The features' `id` members.
    var ids = InferredColumn()
    var geometry = GeometryColumn()
    var tracker = GeometryTypeTracker()
    /// The row (not feature) index of the first geometry and its type name, for messages.
    var skippedCount = 0
    var firstSkipped: [FeatureTableError] = []
    /// The first error (strict mode), with chunk-local positions and feature index.
    var error: FeatureTableError?
    /// Where reading stopped: after the `,` before the first feature at or past the limit, or
    /// after the closing `]` / the end of the text.
    var endOffset = 0
    var reachedEnd = false
    /// The byte offset the stretch starts at.
    var start = 0
    /// UTF-8 continuation bytes in the stretch (to correct the positions of later stretches).
    var extraBytes = 0
    /// What turns the stretch's character positions into the text's (set when joined).
    var positionCorrection = 0
    /// Features read by the stretches before this one (set when joined).
    var featureBase = 0
    /// Each row's 0-based feature number within the stretch (only kept when features are
    /// skipped: otherwise row = feature).
    var featureOfRow: [Int]?
    /// The roles of the stretch's first feature's members, in order (the file's member order).
    private(set) var firstFeatureRoles: [MemberRole] = []

    // MARK: Scratch
    private var keySlots: [[UInt8]: Int] = [:]
    /// The key slot each member position held in the previous object.
    private var cachedSlots: [Int] = []
    /// The rows the columns have room for (see `reserveForTheRest`).
    private var reservedRows = 0
    /// The text of the key each member position held in the previous object.
    private var recentKeys: [RecentKey] = []
    /// The same for the members of the feature objects themselves, with their roles.
    private var recentFeatureKeys: [RecentKey] = []
    private var recentRoles: [MemberRole] = []
    /// Per key slot, the last feature it was set in (duplicate member detection).
    private var lastFeature: [Int] = []
    /// Explicit fields: per field, the last feature it was set in.
    private var lastFeatureOfField: [Int] = []
    /// Explicit fields: the field of each key slot (`-1`: ignored).
    private var fieldOfSlot: [Int] = []
    /// Whether a stored feature had the key (keys seen only in skipped features make no field).
    private(set) var committed: [Bool] = []
    private var committedCount = 0
    private var staged: [StagedMember] = []

    /// One member of a feature's attributes, read but not yet stored.
    struct StagedMember {
        var slot: Int
        var value: StagedValue
        var position: Int
    }
    private var scratch = GeoJSONGeometryScratch()

    /// An attribute value as read (scalars without a tree). A plain value (no references), so
    /// that staging and clearing members costs no reference counting: decoded strings and
    /// composite values are kept in ``stagedTexts`` and ``stagedComposites``.
    enum StagedValue {
        case null
        case bool(Bool)
        case number(JSONNumber)
        /// A string without escapes: its bytes in the text.
        case rawText(Int, Int)
        /// A string with escapes, decoded: its index in ``stagedTexts``.
        case text(Int)
        /// An array or object: its index in ``stagedComposites``.
        case composite(Int)
    }
    /// The decoded strings and composite values of the feature being read.
    private var stagedTexts: [String] = []
    private var stagedComposites: [JSONValue] = []

    init(start: Int, context: FeatureReadContext) {
        self.start = start
        if let explicit = context.explicit {
            typed = explicit.fields.map { TypedColumnBuilder(type: $0.type) }
            lastFeatureOfField = Array(repeating: -1, count: explicit.fields.count)
        }
        if let type = context.options.geometryType { tracker.require(type) }
        if context.options.geometryType == .point || context.declaredType == .point { geometry = GeometryColumn(storage: .points) }
    }

    // MARK: - Reading features

    /// Reads the features of a JSON array from `reader` (at the first byte of a feature) until
    /// the first feature starting at or after `limit`, the closing `]`, or an error.
    mutating func readArray(
        _ reader: inout JSONReader, buffer: UnsafeBufferPointer<UInt8>, limit: Int, context: FeatureReadContext,
        progress: inout ProgressCounter?
    ) {
        do throws(GeometryError) {
            while true {
                guard readFeature(&reader, buffer: buffer, context: context) else { return }
                if features & 0xFFF == 0 { checkpoint(reader.offset, limit: limit, buffer: buffer, progress: &progress) }
                guard let byte = reader.peek() else { throw reader.failure("unexpected end of input") }
                if byte == UInt8(ascii: "]") {
                    var notFirst = false
                    _ = try reader.nextElement(first: &notFirst)
                    endOffset = reader.offset
                    reachedEnd = true
                    return
                }
                guard byte == UInt8(ascii: ",") else { throw reader.failure("expected ',' or ']', found \(JSONReader.describe(byte: byte))") }
                var notFirst = false
                guard try reader.nextElement(first: &notFirst) else { return }
                if reader.offset >= limit {
                    endOffset = reader.offset
                    return
                }
            }
        } catch {
            fail(FeatureTableError(.invalidJSON, error.message, position: error.position))
        }
    }

    /// Reads GeoJSONSeq features (RFC 8142: each optionally after a record separator, one per
    /// line) until the first one starting at or after `limit`, the end of the text, or an error.
    mutating func readSequence(
        _ reader: inout JSONReader, buffer: UnsafeBufferPointer<UInt8>, limit: Int, context: FeatureReadContext,
        progress: inout ProgressCounter?
    ) {
        while true {
            // White space and record separators between texts.
            while let byte = reader.peek(), byte == 0x1E { reader.skipByte() }
            guard reader.peek() != nil else {
                endOffset = reader.offset
                reachedEnd = true
                return
            }
            if reader.offset >= limit {
                endOffset = reader.offset
                return
            }
            guard readFeature(&reader, buffer: buffer, context: context) else { return }
            if features & 0xFFF == 0 { checkpoint(reader.offset, limit: limit, buffer: buffer, progress: &progress) }
        }
    }

    /// How often (in features) the columns' room is checked, and the features read before they
    /// are first sized for the rest of the stretch (a multiple of 4,096, the `features & 0xFFF`
    /// of the reading loops).
    static let sampleFeatures = 4096

    /// Every 4,096 features: reports progress, and sizes the columns when the rows near their
    /// room.
    private mutating func checkpoint(
        _ offset: Int, limit: Int, buffer: UnsafeBufferPointer<UInt8>, progress: inout ProgressCounter?
    ) {
        progress?.advance(to: offset, features: features)
        if rows + Self.sampleFeatures > reservedRows { reserveForTheRest(offset, limit: limit, buffer: buffer) }
    }

    /// Sizes the columns for the rows the rest of the stretch (up to `limit`) likely holds,
    /// estimated from the bytes per row so far (with 3% to spare), so that they grow without
    /// copies and page faults on memory they leave; capacity not used is never touched, so it
    /// costs address space, not resident memory. At most 16 times the rows so far: a file whose
    /// first features are much smaller than the rest would otherwise reserve far more than it
    /// fills (the next check, once the rows near the room, sizes again).
    private mutating func reserveForTheRest(_ offset: Int, limit: Int, buffer: UnsafeBufferPointer<UInt8>) {
        let read = offset - start
        guard read > 0, rows > 0 else { return }
        let remaining = Swift.max(0, Swift.min(limit, buffer.count) - offset)
        let estimate = rows + Int((Double(remaining) / Double(read) * Double(rows) * 1.03).rounded(.up))
        let target = Swift.min(estimate, rows * 16)
        guard target > reservedRows else { return }
        reservedRows = target
        geometry.reserveCapacity(target)
        for i in columns.indices { columns[i].reserveCapacity(target) }
        for i in typed.indices { typed[i].reserveCapacity(target) }
        ids.reserveCapacity(target)
    }

    /// Records the error of the current feature: ends the stretch (strict), or counts it.
    /// Returns whether reading goes on.
    @discardableResult
    private mutating func fail(_ error: FeatureTableError, skippable: Bool = false, context: FeatureReadContext? = nil) -> Bool {
        if skippable, let context, context.options.onInvalid == .skip {
            skippedCount += 1
            if firstSkipped.count < 5 { firstSkipped.append(error) }
            return true
        }
        if self.error == nil { self.error = error }
        return false
    }

    /// Reads one feature object at the reader; `false` when reading must stop (an error).
    mutating func readFeature(_ reader: inout JSONReader, buffer: UnsafeBufferPointer<UInt8>, context: FeatureReadContext) -> Bool {
        let featureIndex = features
        features += 1
        staged.removeAll(keepingCapacity: true)
        if !stagedTexts.isEmpty { stagedTexts.removeAll(keepingCapacity: true) }
        if !stagedComposites.isEmpty { stagedComposites.removeAll(keepingCapacity: true) }
        var id: StagedValue = .null
        var idPosition = 0
        var geometry: StreamedGeometry = .null
        var geometryPosition = 0
        var sawType = false
        var sawAttributes = false
        var otherKeys: [[UInt8]] = []
        let featurePosition = reader.characterPosition
        var problem: FeatureTableError?
        func invalid(_ message: String, _ position: Int) -> FeatureTableError {
            FeatureTableError(
                context.format == .geoJSON ? .invalidGeoJSON : .invalidEsriJSON, message, position: position,
                featureIndex: featureIndex)
        }
        do throws(GeometryError) {
            guard let first = reader.peek(), first == UInt8(ascii: "{") else {
                let value = try reader.readValue()
                return fail(
                    invalid("a feature must be an object, not \(value.kindDescription)", value.position), skippable: true,
                    context: context)
            }
            try reader.enterContainer()
            var firstMember = true
            var memberPosition = 0
            while true {
                guard
                    let (key, matched) = try RecentKey.nextMember(
                        &reader, first: &firstMember, at: memberPosition, recent: recentFeatureKeys, buffer: buffer)
                else { break }
                let role: MemberRole
                if matched {
                    role = recentRoles[memberPosition]
                } else {
                    role = MemberRole(key, format: context.format, buffer: buffer)
                    RecentKey.remember(key, at: memberPosition, in: &recentFeatureKeys, buffer: buffer)
                    recentRoles.record(role, at: memberPosition)
                }
                memberPosition += 1
                let valuePosition = reader.characterPosition
                func duplicate() -> GeometryError {
                    GeometryError(
                        .invalidJSON,
                        "duplicate key \(JSONKey.quoted(key.string(in: buffer))) in an object (member names must be unique)",
                        position: key.position)
                }
                switch role {
                case .type:
                    if sawType { throw duplicate() }
                    sawType = true
                    let isFeature: Bool
                    if reader.peek() == UInt8(ascii: "\"") {
                        isFeature = try reader.readString { $0.equals("Feature") }
                    } else {
                        _ = try reader.readValue()
                        isFeature = false
                    }
                    if !isFeature, problem == nil { problem = invalid("expected \"type\": \"Feature\"", valuePosition) }
                case .attributes:
                    if sawAttributes { throw duplicate() }
                    sawAttributes = true
                    try readAttributes(&reader, buffer: buffer, featureIndex: featureIndex, context: context, problem: &problem)
                case .geometry:
                    if geometryPosition != 0 { throw duplicate() }
                    geometryPosition = valuePosition
                    switch context.format {
                    case .geoJSON:
                        do throws(GeometryError) {
                            geometry = try reader.readGeoJSONGeometry(scratch: &scratch)
                        } catch where error.kind != .invalidJSON {
                            if problem == nil {
                                var message = error.message
                                if let path = error.path, !path.isEmpty { message += " (geometry.\(path))" }
                                problem = FeatureTableError(
                                    .invalidGeometry, message, position: error.position, featureIndex: featureIndex)
                            }
                        }
                    case .esriJSON:
                        let value = try reader.readValue()
                        if !value.isNull {
                            do throws(GeometryError) {
                                let decoded = try Geometry.decodeEsriJSON(value, path: "").geometry
                                geometry = .geometry(decoded, typeName: Self.esriName(decoded))
                            } catch {
                                if problem == nil {
                                    var message = error.message
                                    if let path = error.path, !path.isEmpty { message += " (geometry.\(path))" }
                                    problem = FeatureTableError(
                                        .invalidGeometry, message, position: error.position, featureIndex: featureIndex)
                                }
                            }
                        }
                    }
                case .id:
                    if idPosition != 0 { throw duplicate() }
                    idPosition = valuePosition
                    id = try readValue(&reader, buffer: buffer)
                case .other:
                    let bytes = key.withBytes(in: buffer) { Array($0) }
                    if otherKeys.contains(bytes) { throw duplicate() }
                    otherKeys.append(bytes)
                    if context.format == .esriJSON, bytes == Array("type".utf8) || bytes == Array("properties".utf8) {
                        sawType = true
                    }
                    _ = try reader.readValue()
                }
            }
            if featureIndex == 0 { firstFeatureRoles = Array(recentRoles.prefix(memberPosition)) }
        } catch {
            fail(FeatureTableError(.invalidJSON, error.message, position: error.position))
            return false
        }
        if context.format == .geoJSON, !sawType, problem == nil {
            problem = invalid("the feature has no \"type\": \"Feature\" member", featurePosition)
        }
        if context.format == .esriJSON, !sawAttributes, sawType, problem == nil {
            problem = invalid(
                "the feature has GeoJSON members (\"type\", \"properties\"), not \"attributes\": "
                    + "a GeoJSON FeatureCollection needs \"type\": \"FeatureCollection\" at its root", featurePosition)
        }
        if problem == nil {
            do throws(FeatureTableError) {
                try commit(
                    id: id, idPosition: idPosition, geometry: geometry, geometryPosition: geometryPosition,
                    featureIndex: featureIndex, buffer: buffer, context: context)
                return true
            } catch {
                problem = error
            }
        }
        if var problem {
            if problem.objectID == nil { problem.objectID = objectIDHint(id: id, buffer: buffer, context: context) }
            return fail(problem, skippable: true, context: context)
        }
        return true
    }

    /// The object ID a feature would have if the input ended with it, for messages: its
    /// object-ID attribute, else its integer `id`; `nil` for its position (filled in when the
    /// stretches are joined).
    private func objectIDHint(id: StagedValue, buffer: UnsafeBufferPointer<UInt8>, context: FeatureReadContext) -> Int64? {
        for member in staged {
            let (slot, value) = (member.slot, member.value)
            let isObjectID: Bool
            if let explicit = context.explicit {
                isObjectID = explicit.objectIdIndex != nil && fieldOfSlot[slot] == explicit.objectIdIndex
            } else {
                let name = String(decoding: keys[slot], as: UTF8.self)
                isObjectID = name.lowercased() == "objectid" || name == context.objectIdFieldName
            }
            if isObjectID, case .number(let number) = value, let int64 = number.int64 ?? ValueConversion.exactInt64(number.double) {
                return int64
            }
        }
        if case .number(let number) = id, number.isIntegerLiteral, let int64 = number.int64 { return int64 }
        return nil
    }

    /// The Esri name of a geometry's type.
    static func esriName(_ geometry: Geometry) -> String {
        switch geometry {
        case .point: GeometryType.point.rawValue
        case .multipoint: GeometryType.multipoint.rawValue
        case .polyline: GeometryType.polyline.rawValue
        case .polygon: GeometryType.polygon.rawValue
        case .envelope: GeometryType.envelope.rawValue
        case .collection: "geometry collection"
        }
    }

    /// Reads one attribute value.
    private mutating func readValue(_ reader: inout JSONReader, buffer: UnsafeBufferPointer<UInt8>) throws(GeometryError) -> StagedValue {
        guard let byte = reader.peek() else { throw reader.failure("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "\""):
            if let plain = try reader.readPlainString() { return .rawText(plain.lowerBound, plain.upperBound) }
            stagedTexts.append(try reader.readString { String(decoding: $0, as: UTF8.self) })
            return .text(stagedTexts.count - 1)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            stagedComposites.append(try reader.readValue())
            return .composite(stagedComposites.count - 1)
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            guard let bool = try reader.readLiteral() else { return .null }
            return .bool(bool)
        default:
            return .number(try reader.readNumber())
        }
    }

    /// Reads a `properties`/`attributes` value (an object or `null`) into `staged`.
    private mutating func readAttributes(
        _ reader: inout JSONReader, buffer: UnsafeBufferPointer<UInt8>, featureIndex: Int, context: FeatureReadContext,
        problem: inout FeatureTableError?
    ) throws(GeometryError) {
        guard let byte = reader.peek() else { throw reader.failure("unexpected end of input") }
        guard byte == UInt8(ascii: "{") else {
            let value = try reader.readValue()
            if value.isNull { return }
            let member = context.format == .geoJSON ? "\"properties\" must be an object or null" : "\"attributes\" must be an object"
            if problem == nil {
                problem = FeatureTableError(
                    context.format == .geoJSON ? .invalidGeoJSON : .invalidEsriJSON,
                    "\(member), not \(value.kindDescription)", position: value.position, featureIndex: featureIndex)
            }
            return
        }
        try reader.enterContainer()
        var first = true
        var position = 0
        while true {
            guard
                let (key, matched) = try RecentKey.nextMember(&reader, first: &first, at: position, recent: recentKeys, buffer: buffer)
            else { break }
            let valuePosition = reader.characterPosition
            let slot: Int
            if matched {
                slot = cachedSlots[position]
            } else {
                slot = keySlot(key, at: position, buffer: buffer, explicit: context.explicit)
                RecentKey.remember(key, at: position, in: &recentKeys, buffer: buffer)
            }
            position += 1
            if lastFeature[slot] == featureIndex {
                throw GeometryError(
                    .invalidJSON,
                    "duplicate key \(JSONKey.quoted(key.string(in: buffer))) in an object (member names must be unique)",
                    position: key.position)
            }
            lastFeature[slot] = featureIndex
            staged.append(StagedMember(slot: slot, value: try readValue(&reader, buffer: buffer), position: valuePosition))
        }
    }

    /// The slot of a member name (byte for byte), remembered per member position so that
    /// objects with the same key order cost one comparison per member.
    @inline(__always)
    private mutating func keySlot(
        _ key: JSONKeyToken, at position: Int, buffer: UnsafeBufferPointer<UInt8>, explicit: ExplicitFields?
    ) -> Int {
        key.withBytes(in: buffer) { bytes -> Int in
            // The slot this position held last time, then the slot after the previous member's,
            // then every key (few), then the hash table: no allocation unless the key is new.
            if position < cachedSlots.count, Self.same(keys[cachedSlots[position]], bytes) { return remember(cachedSlots[position], at: position) }
            if position > 0, position - 1 < cachedSlots.count {
                let next = cachedSlots[position - 1] + 1
                if next < keys.count, Self.same(keys[next], bytes) { return remember(next, at: position) }
            }
            if keys.count <= 64 {
                for slot in keys.indices where Self.same(keys[slot], bytes) { return remember(slot, at: position) }
            } else if let known = keySlots[Array(bytes)] {
                return remember(known, at: position)
            }
            let array = Array(bytes)
            let slot = keys.count
            keys.append(array)
            keySlots[array] = slot
            lastFeature.append(-1)
            committed.append(false)
            if let explicit {
                fieldOfSlot.append(explicit.field(named: String(decoding: array, as: UTF8.self)))
            } else {
                columns.append(InferredColumn())
            }
            return remember(slot, at: position)
        }
    }

    /// Records that member position `position` held key `slot`; returns it.
    @inline(__always)
    private mutating func remember(_ slot: Int, at position: Int) -> Int {
        cachedSlots.record(slot, at: position)
        return slot
    }

    /// Whether a stored key is `bytes`.
    @inline(__always)
    private static func same(_ key: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        key.count == bytes.count && key.withUnsafeBufferPointer { memcmpBytes($0.baseAddress, bytes.baseAddress, bytes.count) }
    }

    // MARK: - Storing a feature

    /// Checks the staged feature and appends it as a row; throws the error when it is invalid
    /// (then nothing was appended).
    private mutating func commit(
        id: StagedValue, idPosition: Int, geometry: StreamedGeometry, geometryPosition: Int, featureIndex: Int,
        buffer: UnsafeBufferPointer<UInt8>, context: FeatureReadContext
    ) throws(FeatureTableError) {
        let row = rows
        // The geometry type first: it may reject the feature.
        var geometryName: String?
        var candidate: Geometry?
        switch geometry {
        case .null: break
        case .point where tracker.settledOnPoints:
            // Another point in a table of points (a GeoJSON one: Esri JSON points come as
            // geometries, checked against the FeatureSet's type below): nothing to check.
            break
        case .point(let x, let y):
            geometryName = "Point"
            candidate = .point(Point(x: x, y: y))
        case .geometry(let value, let name):
            geometryName = name
            candidate = value
        }
        // The geometry type with this feature's geometry, kept until the attributes are checked
        // too: a feature rejected for an attribute must not decide the table's geometry type.
        var checkedTracker: GeometryTypeTracker?
        if let candidate, let geometryName {
            if context.format == .esriJSON, let declared = context.declaredType {
                let fits = geometryName == declared.rawValue || (declared == .multipoint && geometryName == GeometryType.point.rawValue)
                if !fits {
                    throw FeatureTableError(
                        .mixedGeometryTypes,
                        "the feature has an \(geometryName) geometry but the FeatureSet's geometryType is \(declared.rawValue)",
                        position: geometryPosition, featureIndex: featureIndex)
                }
            }
            var tracker = self.tracker
            do throws(FeatureTableError) {
                try tracker.add(candidate, name: geometryName, index: featureIndex, objectID: nil)
            } catch {
                var error = error
                error.position = geometryPosition
                if let required = context.options.geometryType {
                    error.message = "the feature has a \(geometryName) geometry, not of the geometry type asked for (\(required.rawValue))"
                }
                throw error
            }
            checkedTracker = tracker
        }
        // Attribute values, converted before anything is stored.
        if let explicit = context.explicit {
            var converted: [(field: Int, value: ScalarValue)] = []
            converted.reserveCapacity(staged.count)
            var objectID: Int64?
            for member in staged {
                let (slot, value, position) = (member.slot, member.value, member.position)
                let field = fieldOfSlot[slot]
                guard field >= 0 else { continue }
                if lastFeatureOfField[field] == featureIndex {
                    throw FeatureTableError(
                        .conversionFailed,
                        "the member \(JSONKey.quoted(String(decoding: keys[slot], as: UTF8.self))) names a field another member of the feature "
                            + "already names (field names match ignoring case)",
                        position: position, featureIndex: featureIndex, fieldName: explicit.fields[field].name)
                }
                lastFeatureOfField[field] = featureIndex
                let json = jsonValue(value, buffer: buffer, position: position)
                let type = explicit.fields[field].type
                do throws(ConversionFailure) {
                    if field == explicit.objectIdIndex {
                        if json.isNull { continue }
                        do throws(ConversionFailure) {
                            objectID = try ValueConversion.integer(json, type: .oid)
                        } catch {
                            throw ConversionFailure(message: error.message + " (object IDs must be integers)")
                        }
                        continue
                    }
                    converted.append((field, try ValueConversion.scalar(json, type: type)))
                } catch {
                    throw FeatureTableError(
                        .conversionFailed, error.message, position: position, featureIndex: featureIndex,
                        fieldName: explicit.fields[field].name)
                }
            }
            // Store.
            for (field, value) in converted {
                typed[field].appendNulls(row - typed[field].count)
                typed[field].append(value)
            }
            objectIDAttribute.append(objectID ?? 0)
            if objectID != nil { objectIDAttributeCount += 1 }
        } else {
            // Inferred columns: only numbers beyond the range of doubles can fail; check first.
            for member in staged {
                let (slot, value, position) = (member.slot, member.value, member.position)
                var name: String { String(decoding: keys[slot], as: UTF8.self) }
                if case .number(let number) = value, !number.isIntegerLiteral || number.int64 == nil, !number.double.isFinite {
                    let statistics = columns[slot].statistics
                    let described = ValueConversion.describe(.number(number))
                    let message = statistics.integers + statistics.doubles == statistics.values
                        ? "cannot convert \(described) to Double" : "\(described) cannot be stored (numbers must be finite doubles)"
                    throw FeatureTableError(.conversionFailed, message, position: position, featureIndex: featureIndex, fieldName: name)
                }
                if case .composite(let index) = value {
                    do throws(ConversionFailure) {
                        _ = try ValueConversion.text(stagedComposites[index])
                    } catch {
                        throw FeatureTableError(
                            .conversionFailed, error.message, position: position, featureIndex: featureIndex, fieldName: name)
                    }
                }
            }
            var newKeys = 0
            for member in staged where !committed[member.slot] { newKeys += 1 }
            if newKeys > 0, committedCount + newKeys > Schema.maximumFieldCount {
                // Name the first new property past the cap: the ones before it still fit.
                var fitting = Schema.maximumFieldCount - committedCount
                var over = staged[0]
                for member in staged where !committed[member.slot] {
                    if fitting == 0 {
                        over = member
                        break
                    }
                    fitting -= 1
                }
                let memberNumber = (staged.firstIndex { $0.slot == over.slot } ?? 0) + 1
                throw FeatureTableError(
                    .tooManyFields,
                    "the property \(JSONKey.quoted(String(decoding: keys[over.slot], as: UTF8.self))) (the feature's property "
                        + "number \(memberNumber)) would be distinct property number \(Schema.maximumFieldCount + 1); a table "
                        + "holds at most \(Schema.maximumFieldCount) fields",
                    position: over.position, featureIndex: featureIndex)
            }
            // Store.
            for member in staged {
                let (slot, value) = (member.slot, member.value)
                Self.set(&columns[slot], value, row: row, buffer: buffer, texts: stagedTexts, composites: stagedComposites)
            }
        }
        // Checked: nothing below fails.
        if let checkedTracker { tracker = checkedTracker }
        for member in staged where !committed[member.slot] {
            committed[member.slot] = true
            committedCount += 1
        }
        Self.set(&ids, id, row: row, buffer: buffer, texts: stagedTexts, composites: stagedComposites)
        switch geometry {
        case .null: self.geometry.append(nil)
        case .point(let x, let y): self.geometry.appendPoint(x: x, y: y)
        case .geometry(let value, _): self.geometry.append(value)
        }
        if featureOfRow != nil || featureIndex != row {
            if featureOfRow == nil { featureOfRow = Array(0..<row) }
            featureOfRow?.append(featureIndex)
        }
        rows += 1
    }

    /// Stores a value known to convert (see ``commit``) in an inferred column.
    private static func set(
        _ column: inout InferredColumn, _ value: StagedValue, row: Int, buffer: UnsafeBufferPointer<UInt8>, texts: [String],
        composites: [JSONValue]
    ) {
        switch value {
        case .null: break
        case .bool(let bool): column.set(bool: bool, row: row)
        case .number(let number): try? column.set(number: number, row: row)
        case .rawText(let start, let end):
            column.set(string: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[start..<end])), row: row)
        case .text(let index):
            var text = texts[index]
            text.withUTF8 { column.set(string: UnsafeRawBufferPointer($0), row: row) }
        case .composite(let index): try? column.set(composite: composites[index], row: row)
        }
    }

    /// A staged value as a JSON value (for the conversions to explicit field types).
    private func jsonValue(_ value: StagedValue, buffer: UnsafeBufferPointer<UInt8>, position: Int) -> JSONValue {
        switch value {
        case .null: .null(at: position)
        case .bool(let bool): .bool(bool, at: position)
        case .number(let number): .number(number, at: position)
        case .rawText(let start, let end): .string(String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<end]), as: UTF8.self), at: position)
        case .text(let index): .string(stagedTexts[index], at: position)
        case .composite(let index): stagedComposites[index]
        }
    }

    /// Pads every column to ``rows`` rows.
    mutating func finishColumns() {
        for i in columns.indices { columns[i].finish(rows: rows) }
        ids.finish(rows: rows)
        for i in typed.indices { typed[i].appendNulls(rows - typed[i].count) }
    }
}

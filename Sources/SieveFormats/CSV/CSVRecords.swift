import Foundation
import SieveBase

/// Bytes read by several threads at once, none writing.
struct SharedBytes: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer
}

/// The records of a CSV text (RFC 4180: fields separated by one delimiter byte, records by
/// `\n`, `\r\n` or `\r`, fields in double quotes when they hold the delimiter, quotes or line
/// ends, a quote inside written `""`), found without copying a field: where each record starts
/// and where each of its fields ends. Large texts are split at record boundaries and scanned on
/// several threads: a first pass counts the quotes of each piece, which tells whether a piece
/// starts inside a quoted field, so that each piece can find its first record boundary alone.
struct CSVRecords {
    /// The byte offset of each record's first byte.
    var recordStarts: [Int] = []
    /// For record `r` and field `k`, `fieldEnds[r * columns + k]`: the offset one past the
    /// field's last byte (its closing quote included), or −1 for a field the record lacks.
    var fieldEnds: [Int] = []
    let columns: Int

    /// Scans `bytes[start...]` for records of `columns` fields.
    /// - Throws: ``FileFormatError/Kind/malformed`` for a record with more fields than the
    ///   header, an unterminated quoted field, or text after a closing quote, with the record
    ///   (numbered from 1 after the header) and the byte offset.
    init(
        _ bytes: UnsafeRawBufferPointer, from start: Int, columns: Int, delimiter: UInt8, threads: Int, parallelThreshold: Int,
        firstRecord: Int
    ) throws(FileFormatError) {
        self.columns = columns
        let count = bytes.count - start
        let pieces = threads > 1 && count >= parallelThreshold ? threads : 1
        if pieces == 1 {
            try scan(bytes, from: start, to: bytes.count, delimiter: delimiter)
            try Self.checkCounts(recordStarts.count, firstRecord: firstRecord)
            return
        }
        // Pass 1: the quotes in each piece, hence whether each piece starts inside quotes.
        let size = (count + pieces - 1) / pieces
        let bounds = (0...pieces).map { min(bytes.count, start + $0 * size) }
        let quoteCounts = Locked([Int](repeating: 0, count: pieces))
        let shared = SharedBytes(bytes: bytes)
        DispatchQueue.concurrentPerform(iterations: pieces) { piece in
            var quotes = 0
            for i in bounds[piece]..<bounds[piece + 1] where shared.bytes[i] == UInt8(ascii: "\"") { quotes += 1 }
            quoteCounts.withLock { $0[piece] = quotes }
        }
        let counts = quoteCounts.withLock { $0 }
        var insideQuotes = [Bool](repeating: false, count: pieces)
        var total = 0
        for piece in 0..<pieces {
            insideQuotes[piece] = total % 2 == 1
            total += counts[piece]
        }
        // Each piece's first record boundary: past the first line end outside quotes.
        var starts = [start]
        for piece in 1..<pieces {
            var inside = insideQuotes[piece]
            var i = bounds[piece]
            var found = bytes.count
            while i < bytes.count {
                let byte = bytes[i]
                if byte == UInt8(ascii: "\"") {
                    inside.toggle()
                } else if !inside, byte == 0x0A || byte == 0x0D {
                    found = i + 1
                    if byte == 0x0D, found < bytes.count, bytes[found] == 0x0A { found += 1 }
                    break
                }
                i += 1
            }
            starts.append(max(found, starts.last ?? start))
        }
        starts.append(bytes.count)
        let pieceStarts = starts
        // Pass 2: each piece's records.
        let results = Locked([Result<CSVRecords, FileFormatError>?](repeating: nil, count: pieces))
        DispatchQueue.concurrentPerform(iterations: pieces) { piece in
            var part = CSVRecords(columns: columns)
            let result: Result<CSVRecords, FileFormatError>
            do throws(FileFormatError) {
                try part.scan(shared.bytes, from: pieceStarts[piece], to: pieceStarts[piece + 1], delimiter: delimiter)
                result = .success(part)
            } catch {
                result = .failure(error)
            }
            results.withLock { $0[piece] = result }
        }
        var recordsBefore = 0
        for result in results.withLock({ $0 }) {
            switch result {
            case .success(let part):
                recordStarts += part.recordStarts
                fieldEnds += part.fieldEnds
                recordsBefore += part.recordStarts.count
            case .failure(var error):
                // The piece counted its records from 1: number them in the whole text.
                error.record = error.record.map { $0 + recordsBefore + firstRecord - 1 }
                throw error
            case nil:
                throw FileFormatError(.malformed, "a piece of the text was not read")
            }
        }
        try Self.checkCounts(recordStarts.count, firstRecord: firstRecord)
    }

    private init(columns: Int) {
        self.columns = columns
    }

    private static func checkCounts(_ records: Int, firstRecord: Int) throws(FileFormatError) {
        guard records < Int(Int32.max) else {
            throw FileFormatError(.unsupported, "more than \(Int32.max) records")
        }
    }

    /// Scans the records in `bytes[from..<to]`, which starts at a record boundary; errors number
    /// records from 1 within it.
    private mutating func scan(_ bytes: UnsafeRawBufferPointer, from: Int, to end: Int, delimiter: UInt8) throws(FileFormatError) {
        var i = from
        while i < end {
            // A blank line is no record.
            if bytes[i] == 0x0A || bytes[i] == 0x0D {
                i += 1
                continue
            }
            let recordStart = i
            recordStarts.append(recordStart)
            var field = 0
            while true {
                // One field, from i.
                let fieldStart = i
                if i < end, bytes[i] == UInt8(ascii: "\"") {
                    let open = i
                    i += 1
                    while true {
                        guard i < end else {
                            throw FileFormatError(
                                .malformed, "a quoted field is not closed before the end of the text",
                                record: recordStarts.count, byteOffset: open)
                        }
                        if bytes[i] == UInt8(ascii: "\"") {
                            if i + 1 < end, bytes[i + 1] == UInt8(ascii: "\"") {
                                i += 2
                                continue
                            }
                            i += 1
                            break
                        }
                        i += 1
                    }
                    if i < end, bytes[i] != delimiter, bytes[i] != 0x0A, bytes[i] != 0x0D {
                        throw FileFormatError(
                            .malformed, "expected the delimiter or a line end after the closing quote, found \(Self.describe(bytes[i]))",
                            record: recordStarts.count, byteOffset: i)
                    }
                } else {
                    while i < end, bytes[i] != delimiter, bytes[i] != 0x0A, bytes[i] != 0x0D { i += 1 }
                }
                guard field < columns else {
                    throw FileFormatError(
                        .malformed, "the record has more fields than the header's \(columns)", record: recordStarts.count,
                        byteOffset: fieldStart)
                }
                fieldEnds.append(i)
                field += 1
                if i < end, bytes[i] == delimiter {
                    i += 1
                    continue
                }
                break
            }
            // Fields the record lacks are NULL (the header, read with no column count, has none).
            while field < columns, columns != Int.max {
                fieldEnds.append(-1)
                field += 1
            }
            if i < end, bytes[i] == 0x0D { i += 1 }
            if i < end, bytes[i] == 0x0A { i += 1 }
        }
    }

    /// The fields of the first record (the header) of `bytes[start...]` and where the next
    /// record starts.
    static func header(_ bytes: UnsafeRawBufferPointer, from start: Int, delimiter: UInt8) throws(FileFormatError) -> (fields: [Range<Int>], next: Int) {
        var records = CSVRecords(columns: Int.max)
        var end = start
        // The header's line: up to the first line end outside quotes.
        var inside = false
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") { inside.toggle() } else if !inside, byte == 0x0A || byte == 0x0D { break }
            end += 1
        }
        try records.scan(bytes, from: start, to: end, delimiter: delimiter)
        var next = end
        if next < bytes.count, bytes[next] == 0x0D { next += 1 }
        if next < bytes.count, bytes[next] == 0x0A { next += 1 }
        var fields: [Range<Int>] = []
        var fieldStart = start
        for fieldEnd in records.fieldEnds {
            fields.append(fieldStart..<fieldEnd)
            fieldStart = fieldEnd + 1
        }
        return (fields, next)
    }

    /// The delimiter the header line uses: the most frequent of `,`, `;`, tab and `|` outside
    /// quotes, `,` when none appears.
    static func detectDelimiter(_ bytes: UnsafeRawBufferPointer, from start: Int) -> UInt8 {
        let candidates: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09, UInt8(ascii: "|")]
        var counts = [Int](repeating: 0, count: candidates.count)
        var inside = false
        var i = start
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                inside.toggle()
            } else if !inside {
                if byte == 0x0A || byte == 0x0D { break }
                if let k = candidates.firstIndex(of: byte) { counts[k] += 1 }
            }
            i += 1
        }
        guard let best = counts.indices.max(by: { counts[$0] < counts[$1] }), counts[best] > 0 else { return UInt8(ascii: ",") }
        return candidates[best]
    }

    /// The start of field `k` of record `r` (its end is `fieldEnds[r * columns + k]`).
    @inline(__always)
    func fieldStart(record r: Int, field k: Int) -> Int {
        k == 0 ? recordStarts[r] : fieldEnds[r * columns + k - 1] + 1
    }

    /// A byte as messages show it.
    static func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(String(UnicodeScalar(byte)))'" : "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    /// The value of the field at `range` of `bytes`: without its quotes and with `""` read as
    /// `"` when quoted (into `scratch`, which is returned through `body`), else the bytes as they
    /// are; `quoted` says which.
    @inline(__always)
    static func withValue<T>(
        _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, scratch: inout [UInt8], _ body: (UnsafeRawBufferPointer, _ quoted: Bool) throws(FileFormatError) -> T
    ) throws(FileFormatError) -> T {
        guard range.count >= 2, bytes[range.lowerBound] == UInt8(ascii: "\"") else {
            return try body(UnsafeRawBufferPointer(rebasing: bytes[range]), false)
        }
        let inner = (range.lowerBound + 1)..<(range.upperBound - 1)
        var hasEscape = false
        for i in inner where bytes[i] == UInt8(ascii: "\"") {
            hasEscape = true
            break
        }
        if !hasEscape { return try body(UnsafeRawBufferPointer(rebasing: bytes[inner]), true) }
        scratch.removeAll(keepingCapacity: true)
        var i = inner.lowerBound
        while i < inner.upperBound {
            scratch.append(bytes[i])
            i += bytes[i] == UInt8(ascii: "\"") ? 2 : 1
        }
        let result: Result<T, FileFormatError> = scratch.withUnsafeBytes { raw in
            do throws(FileFormatError) {
                return .success(try body(raw, true))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

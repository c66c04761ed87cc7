import SieveBuffers
import SieveTestSupport
import Testing

@Suite("ColumnBuffer")
struct ColumnBufferTests {
    @Test("a copy that appends behind its last element shares the storage; the other copy is unchanged")
    func appendBehindSnapshot() {
        var writer: ColumnBuffer<Int64> = [1, 2, 3]
        writer.reserveCapacity(8)
        let snapshot = writer
        writer.append(4)
        writer.append(contentsOf: [5, 6])
        #expect(snapshot.array == [1, 2, 3])
        #expect(writer.array == [1, 2, 3, 4, 5, 6])
        // Same storage: the writer appended in place.
        #expect(writer.withUnsafeBufferPointer { $0.baseAddress } == snapshot.withUnsafeBufferPointer { $0.baseAddress })
    }

    @Test("a second copy appending behind the same element gets its own storage")
    func divergingCopies() {
        var a: ColumnBuffer<Int> = [10, 20]
        a.reserveCapacity(16)
        var b = a
        a.append(30)
        b.append(99)
        #expect(a.array == [10, 20, 30])
        #expect(b.array == [10, 20, 99])
        #expect(a.withUnsafeBufferPointer { $0.baseAddress } != b.withUnsafeBufferPointer { $0.baseAddress })
        // The original may keep appending in place.
        a.append(40)
        #expect(a.array == [10, 20, 30, 40])
        #expect(b.array == [10, 20, 99])
    }

    @Test("replacing an element of a shared buffer copies it; of a unique one does not")
    func replaceElements() {
        var a: ColumnBuffer<Double> = [1, 2, 3]
        let b = a
        a[1] = 20
        #expect(a.array == [1, 20, 3])
        #expect(b.array == [1, 2, 3])
        let before = a.withUnsafeBufferPointer { $0.baseAddress }
        a[2] = 30
        #expect(a.withUnsafeBufferPointer { $0.baseAddress } == before)
        #expect(a.array == [1, 20, 30])
    }

    @Test("a truncated copy appending again does not overwrite what a sharing copy sees")
    func truncateThenAppend() {
        var a: ColumnBuffer<UInt8> = [1, 2, 3, 4]
        let b = a
        a.removeLast(2)
        a.append(9)
        #expect(a.array == [1, 2, 9])
        #expect(b.array == [1, 2, 3, 4])
        var c = b
        c.removeAll(keepingCapacity: true)
        c.append(7)
        #expect(c.array == [7])
        #expect(b.array == [1, 2, 3, 4])
    }

    @Test("values compare and hash by their elements, as arrays do")
    func equality() {
        var a: ColumnBuffer<Int> = []
        for i in 0..<100 { a.append(i) }
        let b = ColumnBuffer(0..<100)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != ColumnBuffer(0..<99))
        #expect(ColumnBuffer(repeating: 7, count: 3).array == [7, 7, 7])
        #expect(a.capacity >= 100)
    }

    @Test("random operations on copies agree with arrays (seeded)")
    func randomAgainstArrays() {
        var generator = SeededGenerator(seed: 42)
        var buffers: [ColumnBuffer<Int>] = [[]]
        var arrays: [[Int]] = [[]]
        for step in 0..<20_000 {
            let i = Int(generator.next() % UInt64(buffers.count))
            switch generator.next() % 6 {
            case 0, 1:
                buffers[i].append(step)
                arrays[i].append(step)
            case 2:
                let more = (0..<Int(generator.next() % 5)).map { step * 10 + $0 }
                buffers[i].append(contentsOf: more)
                arrays[i].append(contentsOf: more)
            case 3 where buffers.count < 12:
                buffers.append(buffers[i])
                arrays.append(arrays[i])
            case 4 where !arrays[i].isEmpty:
                let k = Int(generator.next() % UInt64(arrays[i].count))
                buffers[i][k] = -step
                arrays[i][k] = -step
            case 5 where !arrays[i].isEmpty:
                let k = Int(generator.next() % UInt64(arrays[i].count + 1))
                buffers[i].removeLast(k)
                arrays[i].removeLast(k)
            default:
                break
            }
        }
        for (buffer, array) in zip(buffers, arrays) { #expect(buffer.array == array) }
    }

    @Test("copies appended from several threads never see each other's elements")
    func concurrentCopies() async {
        var base: ColumnBuffer<Int> = []
        base.reserveCapacity(1 << 12)
        for i in 0..<100 { base.append(i) }
        let shared = base
        let results = await withTaskGroup(of: [Int].self) { group in
            for task in 0..<4 {
                group.addTask {
                    var copy = shared
                    for i in 0..<1_000 { copy.append(task * 1_000_000 + i) }
                    return copy.array
                }
            }
            var all: [[Int]] = []
            for await result in group { all.append(result) }
            return all
        }
        for result in results {
            #expect(result.count == 1_100)
            #expect(Array(result[..<100]) == Array(0..<100))
            let task = result[100] / 1_000_000
            #expect(Array(result[100...]) == (0..<1_000).map { task * 1_000_000 + $0 })
        }
        #expect(shared.array == Array(0..<100))
    }
}

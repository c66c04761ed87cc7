/// The pixel cells that already hold a marker of one path, so that a marker falling on an
/// occupied cell is not written again.
///
/// The cells cover the view grown by a margin (markers just outside the view still show their
/// edge). When that grid has at most ``bitmapLimit`` cells it is a bitmap, one bit per cell,
/// allocated on first use; a larger grid (a huge view or marker) keeps the occupied cells in a
/// set instead.
struct MarkerCells: Sendable {
    /// The largest grid held as a bitmap: 2²⁷ cells, 16 MiB.
    static let bitmapLimit = 1 << 27

    private let minX: Int
    private let minY: Int
    private let columns: Int
    private let rows: Int
    private var bits: [UInt64] = []
    private var occupied: Set<Int> = []
    private let usesBitmap: Bool

    /// Cells for a view of `width` × `height` pixels grown by `margin` pixels on every side.
    init(width: Int, height: Int, margin: Int) {
        minX = -margin
        minY = -margin
        columns = width + 2 * margin
        rows = height + 2 * margin
        let (cells, overflow) = columns.multipliedReportingOverflow(by: rows)
        usesBitmap = !overflow && cells <= Self.bitmapLimit
    }

    /// Marks cell (`x`, `y`) occupied; returns whether it was free (and inside the grid: a cell
    /// outside it is never drawn).
    mutating func insert(x: Int, y: Int) -> Bool {
        let column = x - minX
        let row = y - minY
        guard column >= 0, column < columns, row >= 0, row < rows else { return false }
        let index = row * columns + column
        guard usesBitmap else { return occupied.insert(index).inserted }
        if bits.isEmpty { bits = Array(repeating: 0, count: (columns * rows + 63) / 64) }
        let word = index >> 6
        let mask: UInt64 = 1 << UInt64(index & 63)
        let free = bits[word] & mask == 0
        bits[word] |= mask
        return free
    }
}

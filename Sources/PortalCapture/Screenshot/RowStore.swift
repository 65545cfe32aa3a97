/// Rows of RGBA pixels kept in fixed-size bands, indexed by a signed row number, so a tall image can grow
/// downward (scrolling down) and upward (scrolling up) without ever being moved or copied.
///
/// Thread safety: written only by its one owner (a `ScrollStitcher`) and handed over whole to a
/// `StitchedImage`, which only reads it; `@unchecked Sendable` relies on that hand-off.
final class RowStore: @unchecked Sendable {
    let rowBytes: Int
    let chunkRows: Int
    /// Band `firstChunk + i` holds rows `[(firstChunk + i) * chunkRows, (firstChunk + i + 1) * chunkRows)`.
    private var chunks: [UnsafeMutableRawPointer] = []
    private var firstChunk = 0

    init(rowBytes: Int, chunkRows: Int? = nil) {
        self.rowBytes = max(rowBytes, 4)
        // About 2 MiB per band: few allocations for tall images, little slack at either end.
        self.chunkRows = max(1, chunkRows ?? max(16, (2 << 20) / self.rowBytes))
    }

    deinit { for chunk in chunks { chunk.deallocate() } }

    /// Allocates bands so that every row in `rows` is addressable.
    func reserve(_ rows: Range<Int>) {
        guard !rows.isEmpty else { return }
        let lo = chunkIndex(rows.lowerBound), hi = chunkIndex(rows.upperBound - 1)
        if chunks.isEmpty { firstChunk = lo }
        let bandBytes = rowBytes * chunkRows
        if lo < firstChunk {
            let added = (lo..<firstChunk).map { _ in UnsafeMutableRawPointer.allocate(byteCount: bandBytes, alignment: 64) }
            chunks.insert(contentsOf: added, at: 0)
            firstChunk = lo
        }
        while firstChunk + chunks.count <= hi {
            chunks.append(UnsafeMutableRawPointer.allocate(byteCount: bandBytes, alignment: 64))
        }
    }

    /// The bytes of row `index` (`rowBytes` of them); the row must have been reserved.
    @inline(__always)
    func row(_ index: Int) -> UnsafeMutableRawPointer {
        let c = chunkIndex(index)
        return chunks[c - firstChunk].advanced(by: (index - c * chunkRows) * rowBytes)
    }

    @inline(__always)
    private func chunkIndex(_ row: Int) -> Int {
        row >= 0 ? row / chunkRows : -((-row - 1) / chunkRows) - 1
    }
}

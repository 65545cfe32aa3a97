import CPNG
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// `PNGWriter`'s own encoder, which compresses on all processors at once, the way pigz does: the rows are
/// cut into bands; each band is filtered (`PNGRowFilter`) and compressed (`RawDeflater`, zlib) on its own,
/// ending byte-aligned (`Z_FULL_FLUSH`, the last band `Z_FINISH`); the bands' outputs joined behind one zlib
/// header (RFC 1950) are one deflate stream, and the Adler-32 of all filtered rows (zlib's
/// `adler32_combine` over the bands' checksums) closes it. The stream is cut into IDAT chunks of at most
/// `PNGChunk.maximumImageDataPayload` bytes, whose CRCs the bands compute too.
///
/// Bands are handed to `DispatchQueue.concurrentPerform`, so as many run at once as there are processors,
/// and a processor that is busy with other work takes fewer bands. Memory: besides the compressed output,
/// each running band has a window of filtered rows (64,000 bytes or one row) and zlib's state (about
/// 270 KiB at memLevel 8); the filtered image is never held whole.
struct PNGBandEncoder {
    /// zlib's level (0...9) and strategy (`Z_RLE`...).
    var level: Int32
    var strategy: Int32
    var filters: PNGWriter.Filters
    /// RGBA rather than RGB.
    var hasAlpha: Bool
    /// The number of bands; nil: `bandCount(rows:lineBytes:processors:)`.
    var bands: Int?

    /// About this many filtered bytes make a band when the count is not given: small enough that a
    /// processor slowed by other work leaves its share to the others, large enough that the bands' ends
    /// (a flush and a fresh window each) cost nothing measurable.
    static let bandBytes = 4 << 20
    /// Filtered rows are made and compressed in windows of at most this many bytes (or one row): one
    /// piece for `RawDeflater`.
    static let windowBytes = RawDeflater.pieceBytes

    /// The whole PNG file.
    func encode(_ image: StitchedImage) throws(ScreenshotError) -> [UInt8] {
        let channels = hasAlpha ? 4 : 3
        let lineBytes = 1 + image.width * channels
        let count = min(image.height, bands ?? Self.bandCount(rows: image.height, lineBytes: lineBytes,
                                                              processors: Self.processors()))
        let bands = (0..<count).map { image.height * $0 / count ..< image.height * ($0 + 1) / count }
        // Each slot is written by its one iteration and read after concurrentPerform has returned (which
        // waits for all of them), so the slots are never shared while they change.
        nonisolated(unsafe) let results = UnsafeMutableBufferPointer<Result<CompressedBand, ScreenshotError>?>
            .allocate(capacity: count)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        DispatchQueue.concurrentPerform(iterations: count) { i in
            results[i] = Result { () throws(ScreenshotError) in
                try compress(image, rows: bands[i], first: i == 0, last: i == count - 1)
            }
        }
        var compressed: [CompressedBand] = []
        for result in results { try compressed.append(result!.get()) }
        return assemble(compressed, width: image.width, height: image.height)
    }

    /// Bands for `rows` rows of `lineBytes` filtered bytes: one per `bandBytes`, and at least one per
    /// processor (at least 2).
    static func bandCount(rows: Int, lineBytes: Int, processors: Int) -> Int {
        let (total, overflow) = rows.multipliedReportingOverflow(by: lineBytes)
        let bySize = overflow ? rows : (total + bandBytes - 1) / bandBytes
        return max(bySize, processors, 2)
    }

    /// The processors online (`sysconf(_SC_NPROCESSORS_ONLN)`).
    static func processors() -> Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// The zlib header (RFC 1950): deflate with a 32 KiB window, FLEVEL as zlib sets it for `level` and
    /// `strategy`, and the check bits.
    static func zlibHeader(level: Int32, strategy: Int32) -> [UInt8] {
        let flags: UInt16 = strategy >= Z_HUFFMAN_ONLY || level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3
        var header: UInt16 = (UInt16(Z_DEFLATED) + (7 << 4)) << 8 | flags << 6
        header += 31 - header % 31
        return [UInt8(header >> 8), UInt8(header & 0xFF)]
    }

    /// One band's part of the IDAT stream.
    struct CompressedBand {
        /// The compressed bytes (the first band's start with the zlib header).
        var data: ByteBuffer
        /// Adler-32 of the band's filtered rows, and how many bytes they are.
        var adler: UInt
        var length: Int
        /// The CRC-32 of "IDAT" and each `PNGChunk.maximumImageDataPayload`-byte piece of `data`, in order.
        var crcs: [UInt32]
    }

    private func compress(_ image: StitchedImage, rows: Range<Int>, first: Bool, last: Bool) throws(ScreenshotError) -> CompressedBand {
        var filter = PNGRowFilter(width: image.width, channels: hasAlpha ? 4 : 3, filters: filters)
        let lineBytes = filter.lineBytes
        let windowRows = max(1, Self.windowBytes / lineBytes)
        let windowCapacity = min(windowRows, rows.count) * lineBytes + 1
        guard let window = malloc(windowCapacity)?.assumingMemoryBound(to: UInt8.self),
              let output = ByteBuffer(capacity: rows.count * lineBytes / 4 + 4096) else {
            throw .encodingFailed(library: "zlib", message: "out of memory for a band of \(rows.count) rows")
        }
        defer { free(window) }
        if first, !output.append(Self.zlibHeader(level: level, strategy: strategy)) {
            throw .encodingFailed(library: "zlib", message: "out of memory for the compressed rows")
        }
        let deflater = try RawDeflater(level: level, strategy: strategy)
        var adler = adler32(0, nil, 0)
        var y = rows.lowerBound
        while y < rows.upperBound {
            let n = min(windowRows, rows.upperBound - y)
            for i in 0..<n {
                let row = image.store.row(image.firstRow + y + i)
                let previous = y + i > 0 ? UnsafeRawPointer(image.store.row(image.firstRow + y + i - 1)) : nil
                filter.filter(row, previous: previous, into: window + i * lineBytes)
            }
            let filtered = UnsafeRawBufferPointer(start: window, count: n * lineBytes)
            var offset = 0
            while offset < filtered.count {
                let piece = min(filtered.count - offset, 1 << 30)
                adler = adler32(adler, window + offset, UInt32(piece))
                offset += piece
            }
            y += n
            let ending: RawDeflater.Ending = y < rows.upperBound ? .open : (last ? .finish : .flush)
            try deflater.compress(filtered, ending: ending, into: output)
        }
        var crcs: [UInt32] = []
        let data = output.bytes
        var start = 0
        repeat {
            let end = min(start + PNGChunk.maximumImageDataPayload, data.count)
            crcs.append(PNGChunk.crc(type: "IDAT", UnsafeBufferPointer(rebasing: data[start..<end])))
            start = end
        } while start < data.count
        return CompressedBand(data: output, adler: adler, length: rows.count * lineBytes, crcs: crcs)
    }

    /// Signature, IHDR, the bands' IDAT chunks with the Adler-32 at the end of the last one, IEND.
    private func assemble(_ bands: [CompressedBand], width: Int, height: Int) -> [UInt8] {
        var adler = bands[0].adler
        for band in bands.dropFirst() { adler = cpng_adler32_combine(adler, band.adler, band.length) }
        let trailer = PNGChunk.bigEndian(UInt32(truncatingIfNeeded: adler))
        let head = PNGChunk.signature + PNGChunk.header(width: width, height: height, hasAlpha: hasAlpha)
        let end = PNGChunk.chunk("IEND", [])
        let total = head.count + bands.reduce(0) { $0 + $1.data.count + 12 * $1.crcs.count } + trailer.count + end.count
        return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            var at = 0
            func put(_ bytes: some Collection<UInt8>) {
                _ = UnsafeMutableBufferPointer(rebasing: buffer[at...]).initialize(fromContentsOf: bytes)
                at += bytes.count
            }
            put(head)
            for (b, band) in bands.enumerated() {
                let data = band.data.bytes
                for (k, crc) in band.crcs.enumerated() {
                    let start = k * PNGChunk.maximumImageDataPayload
                    let piece = UnsafeBufferPointer(rebasing: data[start..<min(start + PNGChunk.maximumImageDataPayload, data.count)])
                    let closing = b == bands.count - 1 && k == band.crcs.count - 1
                    put(PNGChunk.bigEndian(UInt32(piece.count + (closing ? trailer.count : 0))))
                    put("IDAT".utf8)
                    put(piece)
                    if closing { put(trailer) }
                    put(PNGChunk.bigEndian(closing ? PNGChunk.crc(continuing: crc, trailer) : crc))
                }
            }
            put(end)
            initialized = at
        }
    }
}

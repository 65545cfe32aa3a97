import CPNG
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `PNGWriter`'s own encoder, which compresses on all processors at once, the way pigz does: the rows are
/// cut into bands; each band is filtered (`PNGRowFilter`) and compressed (`RawDeflater`, zlib) on its own,
/// ending byte-aligned (`Z_FULL_FLUSH`, the last band `Z_FINISH`); the bands' outputs joined behind one zlib
/// header (RFC 1950) are one deflate stream, and the Adler-32 of all filtered rows (zlib's
/// `adler32_combine` over the bands' checksums) closes it. Each band frames its own output as IDAT chunks
/// (at most `maximumChunkPayload` bytes each) with their CRCs.
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
    /// The largest IDAT chunk payload: a band's output is cut into chunks this size. Large enough that a
    /// band of `bandBytes` is one chunk (decoders read IDAT chunks of any size up to the format's 2^31 - 1).
    var maximumChunkPayload = 8 << 20

    /// About this many filtered bytes make a band when the count is not given: small enough that a
    /// processor slowed by other work leaves its share to the others, large enough that the bands' ends
    /// (a flush and a fresh window each) cost nothing measurable.
    static let bandBytes = 4 << 20
    /// Filtered rows are made and compressed in windows of at most this many bytes (or one row): one
    /// piece for `RawDeflater`.
    static let windowBytes = RawDeflater.pieceBytes

    /// Receives the file in pieces: the bytes, and where in them the zlib stream's bytes lie (the IDAT
    /// payloads: what a PDF image stream with `/Predictor 15` holds).
    typealias Emit = (_ bytes: borrowing [UInt8], _ imageData: [Range<Int>]) throws(ScreenshotError) -> Void

    /// The whole PNG file; the calling thread compresses bands too.
    func encode(_ image: StitchedImage) throws(ScreenshotError) -> [UInt8] {
        try encode(image, streaming: false, keep: true) { (_, _) throws(ScreenshotError) in }
    }

    /// Hands the PNG file to `emit` in order, on the calling thread: each band's IDAT chunks as soon as that
    /// band and all before it are compressed, so that writing them overlaps compressing the rest; the bands
    /// compress on another thread and Dispatch's pool meanwhile. Returns the whole file when `keep`, else
    /// nothing.
    func encode(_ image: StitchedImage, keep: Bool, emit: Emit) throws(ScreenshotError) -> [UInt8] {
        try encode(image, streaming: true, keep: keep, emit: emit)
    }

    private func encode(_ image: StitchedImage, streaming: Bool, keep: Bool,
                        emit: Emit) throws(ScreenshotError) -> [UInt8] {
        let channels = hasAlpha ? 4 : 3
        let lineBytes = 1 + image.width * channels
        let count = min(image.height, bands ?? Self.bandCount(rows: image.height, lineBytes: lineBytes,
                                                              processors: Self.processors()))
        let bands = (0..<count).map { image.height * $0 / count ..< image.height * ($0 + 1) / count }
        // Each slot is written by its one band and read only after that band's semaphore was signalled.
        nonisolated(unsafe) let results = UnsafeMutableBufferPointer<Result<CompressedBand, ScreenshotError>?>
            .allocate(capacity: count)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        let finished = (0..<count).map { _ in DispatchSemaphore(value: 0) }
        let work = { @Sendable in
            DispatchQueue.concurrentPerform(iterations: count) { i in
                results[i] = Result { () throws(ScreenshotError) in
                    try compress(image, rows: bands[i], first: i == 0, last: i == count - 1)
                }
                finished[i].signal()
            }
        }
        // Streaming, the bands start from a thread of their own, which takes bands itself, so they progress
        // whatever Dispatch's pool threads are doing (the calling thread may be one of them, blocked here).
        let allDone = DispatchSemaphore(value: 0)
        if streaming {
            Thread { work(); allDone.signal() }.start()
        } else {
            work()
            allDone.signal()
        }

        let head = PNGChunk.signature + PNGChunk.header(width: image.width, height: image.height, hasAlpha: hasAlpha)
        var file: [UInt8] = []
        if keep {
            // Done bands give the exact size; otherwise a guess, as the bands' buffers make.
            let exact = streaming ? nil : results.reduce(0) { $0 + ((try? $1?.get())?.file.count ?? 0) }
            file.reserveCapacity(head.count + (exact ?? image.height * lineBytes / 4 + 4096) + 32)
            file += head
        }
        var failure: ScreenshotError?
        var adler: UInt = 1, openCRC: UInt32 = 0
        do throws(ScreenshotError) { try emit(head, []) } catch { failure = error }
        for i in 0..<count {
            finished[i].wait()
            guard failure == nil else { continue }  // every band still finishes before `results` goes away
            switch results[i]! {
            case .failure(let error): failure = error
            case .success(let band):
                adler = i == 0 ? band.adler : cpng_adler32_combine(adler, band.adler, band.length)
                openCRC = band.openCRC
                do throws(ScreenshotError) { try emit(band.file, band.imageData) } catch { failure = error }
                if keep { file += band.file }
                results[i] = nil  // the band's bytes are not needed any more
            }
        }
        allDone.wait()
        if let failure { throw failure }

        let trailer = PNGChunk.bigEndian(UInt32(truncatingIfNeeded: adler))
        let tail = trailer + PNGChunk.bigEndian(PNGChunk.crc(continuing: openCRC, trailer)) + PNGChunk.chunk("IEND", [])
        try emit(tail, [0..<trailer.count])
        if keep { file += tail }
        return file
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

    /// One band's part of the file.
    struct CompressedBand: Sendable {
        /// Its IDAT chunks, in full, except that the last band's last chunk lacks its end: the stream's
        /// Adler-32 (which its length field already counts) and its CRC. The first band's data starts with
        /// the zlib header.
        var file: [UInt8]
        /// Where the chunks' payloads lie in `file`.
        var imageData: [Range<Int>]
        /// The CRC-32 of that last chunk so far (type and data), which the Adler-32 continues.
        var openCRC: UInt32
        /// Adler-32 of the band's filtered rows, and how many bytes they are.
        var adler: UInt
        var length: Int
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
        let (file, imageData, openCRC) = frame(output.bytes, closing: last)
        return CompressedBand(file: file, imageData: imageData, openCRC: openCRC, adler: adler,
                              length: rows.count * lineBytes)
    }

    /// `data` as IDAT chunks of at most `maximumChunkPayload` bytes. When `closing`, the last chunk is left
    /// open for the 4-byte Adler-32: its length counts them, and its CRC is returned, not written.
    private func frame(_ data: UnsafeBufferPointer<UInt8>,
                       closing: Bool) -> (file: [UInt8], imageData: [Range<Int>], openCRC: UInt32) {
        let size = maximumChunkPayload
        let chunks = max(1, (data.count + size - 1) / size)
        var openCRC: UInt32 = 0
        var imageData: [Range<Int>] = []
        let file = [UInt8](unsafeUninitializedCapacity: data.count + 12 * chunks) { buffer, initialized in
            var at = 0
            func put(_ bytes: some Collection<UInt8>) {
                _ = UnsafeMutableBufferPointer(rebasing: buffer[at...]).initialize(fromContentsOf: bytes)
                at += bytes.count
            }
            for k in 0..<chunks {
                let piece = UnsafeBufferPointer(rebasing: data[(k * size)..<min((k + 1) * size, data.count)])
                let open = closing && k == chunks - 1
                put(PNGChunk.bigEndian(UInt32(piece.count + (open ? 4 : 0))))
                put("IDAT".utf8)
                imageData.append(at..<(at + piece.count))
                put(piece)
                let crc = PNGChunk.crc(type: "IDAT", piece)
                if open { openCRC = crc } else { put(PNGChunk.bigEndian(crc)) }
            }
            initialized = at
        }
        return (file, imageData, openCRC)
    }
}

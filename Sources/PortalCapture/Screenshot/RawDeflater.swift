import CPNG

/// One raw deflate stream (RFC 1951, no zlib header or trailer: zlib's `deflateInit2` with windowBits -15,
/// through `cpng_deflate_init_raw`), compressing into a `ByteBuffer`. `PNGBandEncoder` runs one per band and
/// ends every band but the last with `Z_FULL_FLUSH` (byte-aligned, not final), the last with `Z_FINISH`, so
/// the bands joined are one deflate stream. Used by one thread at a time.
///
/// With `Z_RLE` and `Z_HUFFMAN_ONLY`, whose matches never reach back further than one byte, the input is
/// also flushed (`Z_FULL_FLUSH`) every `pieceBytes` bytes. That costs nothing in size (a block ends there;
/// measured 0.3% smaller on the benchmark's mixed page), and because zlib restarts its window after a full
/// flush that consumed all input, it never has to slide the window: sliding (`fill_window`'s copy and
/// `slide_hash` over 64K hash entries every 32 KiB) took about a fifth of deflate's time and is useless to
/// these strategies.
final class RawDeflater {
    /// How a call ends the input it was given.
    enum Ending {
        /// More input follows.
        case open
        /// Byte-aligned and not final (`Z_FULL_FLUSH`): another deflate stream may follow directly.
        case flush
        /// The final block (`Z_FINISH`).
        case finish
    }

    /// The most input given to zlib at once, and with `Z_RLE`/`Z_HUFFMAN_ONLY` between full flushes: below
    /// 65,274 (window size 32,768 plus its largest match distance 32,506), where zlib starts sliding.
    static let pieceBytes = 64_000

    /// zlib keeps a pointer back to its `z_stream`, so it lives at a fixed address.
    private let stream: UnsafeMutablePointer<z_stream>
    /// Whether every piece ends with a full flush (see the type's comment).
    private let flushesEachPiece: Bool

    init(level: Int32, strategy: Int32) throws(ScreenshotError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        flushesEachPiece = strategy == Z_RLE || strategy == Z_HUFFMAN_ONLY
        let status = cpng_deflate_init_raw(stream, level, strategy)
        guard status == Z_OK else {
            // deinit runs (all properties are set) and deflateEnd refuses a stream that never started.
            throw .encodingFailed(library: "zlib", message: "deflateInit2: \(Self.describe(status))")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// Compresses `input` into `output`, ending as `ending` says.
    func compress(_ input: UnsafeRawBufferPointer, ending: Ending, into output: ByteBuffer) throws(ScreenshotError) {
        var offset = 0
        repeat {
            let piece = min(input.count - offset, Self.pieceBytes)
            let last = offset + piece == input.count
            let mode: Int32 = switch (last, ending) {
            case (true, .finish): Z_FINISH
            case (true, .flush): Z_FULL_FLUSH
            default: flushesEachPiece ? Z_FULL_FLUSH : Z_NO_FLUSH
            }
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?
                .advanced(by: offset).assumingMemoryBound(to: UInt8.self))
            stream.pointee.avail_in = UInt32(piece)
            var status: Int32
            repeat {
                guard let room = output.reserve(max(16 << 10, piece / 2)) else {
                    throw .encodingFailed(library: "zlib", message: "out of memory for the compressed rows")
                }
                let space = min(room.count, Int(UInt32.max))
                stream.pointee.next_out = room.baseAddress
                stream.pointee.avail_out = UInt32(space)
                status = deflate(stream, mode)
                output.commit(space - Int(stream.pointee.avail_out))
                guard status == Z_OK || status == Z_BUF_ERROR || status == Z_STREAM_END else {
                    throw .encodingFailed(library: "zlib", message: "deflate: \(Self.describe(status))")
                }
            } while stream.pointee.avail_out == 0
            if mode == Z_FINISH && status != Z_STREAM_END {
                throw .encodingFailed(library: "zlib", message: "deflate did not finish the stream")
            }
            offset += piece
        } while offset < input.count
    }

    /// zlib's name for a status code.
    static func describe(_ status: Int32) -> String {
        switch status {
        case Z_MEM_ERROR: "out of memory (Z_MEM_ERROR)"
        case Z_STREAM_ERROR: "invalid parameters (Z_STREAM_ERROR)"
        case Z_VERSION_ERROR: "zlib version mismatch (Z_VERSION_ERROR)"
        case Z_BUF_ERROR: "no progress possible (Z_BUF_ERROR)"
        default: "status \(status)"
        }
    }
}

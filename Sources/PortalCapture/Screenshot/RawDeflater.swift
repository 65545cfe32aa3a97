import CPNG

/// One raw deflate stream (RFC 1951, no zlib header or trailer: zlib's `deflateInit2` with windowBits -15,
/// through `cpng_deflate_init_raw`), compressing into a `ByteBuffer`. `PNGBandEncoder` runs one per band and
/// ends every band but the last with `Z_FULL_FLUSH` (byte-aligned, not final), the last with `Z_FINISH`, so
/// the bands joined are one deflate stream. Used by one thread at a time.
final class RawDeflater {
    /// zlib keeps a pointer back to its `z_stream`, so it lives at a fixed address.
    private let stream: UnsafeMutablePointer<z_stream>

    init(level: Int32, strategy: Int32) throws(ScreenshotError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
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

    /// Compresses `input` into `output`; `flush` is `Z_NO_FLUSH`, `Z_FULL_FLUSH` or `Z_FINISH`.
    func compress(_ input: UnsafeRawBufferPointer, flush: Int32, into output: ByteBuffer) throws(ScreenshotError) {
        var offset = 0
        repeat {
            // zlib counts in 32 bits: give it at most 1 GiB at a time.
            let piece = min(input.count - offset, 1 << 30)
            let last = offset + piece == input.count
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?
                .advanced(by: offset).assumingMemoryBound(to: UInt8.self))
            stream.pointee.avail_in = UInt32(piece)
            let mode = last ? flush : Z_NO_FLUSH
            var status: Int32
            repeat {
                guard let room = output.reserve(max(64 << 10, piece / 4)) else {
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

import CPNG

/// Encodes one frame as an 8-bit RGB (or RGBA, for formats with alpha) PNG in memory, with libpng tuned for
/// speed: zlib level 1 and the SUB filter only.
///
/// libpng reports errors by `longjmp`, which Swift cannot catch. Our write callback never raises one (it
/// appends to memory), and our parameters are valid by construction, so the only libpng errors left are
/// out-of-memory, which end the process as any allocation failure in Swift does.
struct PNGEncoder {
    var compressionLevel: Int32 = 1

    /// The PNG bytes of `frame`. Returns nil when libpng could not be set up.
    func encode(_ frame: VideoFrame) -> [UInt8]? {
        var png: png_structp? = png_create_write_struct(PNG_LIBPNG_VER_STRING, nil, nil, { _, _ in })
        guard png != nil else { return nil }
        var info = png_create_info_struct(png)
        defer { png_destroy_write_struct(&png, &info) }
        guard info != nil else { return nil }

        let sink = PNGByteSink()
        let context = Unmanaged.passUnretained(sink).toOpaque()
        png_set_write_fn(png, context, { png, data, length in
            guard let png, let data, let io = png_get_io_ptr(png) else { return }
            let sink = Unmanaged<PNGByteSink>.fromOpaque(io).takeUnretainedValue()
            sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
        }, { _ in })

        let pf = frame.format.pixelFormat
        let colourType: Int32 = pf.hasAlpha ? 6 : 2          // PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB
        png_set_IHDR(png, info, UInt32(frame.format.width), UInt32(frame.format.height), 8, colourType,
                     PNG_INTERLACE_NONE, 0, 0)               // compression and filter type: the only defined ones
        png_set_compression_level(png, compressionLevel)
        png_set_filter(png, 0, PNG_FILTER_SUB)
        png_write_info(png, info)
        // Rows are 4 bytes a pixel in memory order: tell libpng about B,G,R order and the padding byte.
        if pf == .bgrx || pf == .bgra { png_set_bgr(png) }
        if !pf.hasAlpha { png_set_filler(png, 0, PNG_FILLER_AFTER) }

        let base = frame.storage.bytes.assumingMemoryBound(to: UInt8.self)
        var rows = (0..<frame.format.height).map { Optional(base + $0 * frame.stride) }
        withExtendedLifetime(frame.storage) {
            rows.withUnsafeMutableBufferPointer { png_write_rows(png, $0.baseAddress, UInt32($0.count)) }
        }
        png_write_end(png, nil)
        return withExtendedLifetime(sink) { sink.bytes }
    }
}

/// Collects libpng's output (the write callback's target).
private final class PNGByteSink {
    var bytes: [UInt8] = []
}

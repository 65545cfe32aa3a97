import CPNG

/// Saves a `StitchedImage` as PNG, with fast settings by default: zlib level 1 with the run-length strategy
/// (`Z_RLE`) and the UP filter only, compressed by `PNGBandEncoder` on all processors at once (bands of rows
/// deflated in parallel and joined into one zlib stream, as pigz does). On the benchmark's 1920x20000 pages
/// level 1 with `Z_RLE` and UP is 4 to 5 times faster than libpng's defaults (level 6, all filters), for
/// files 12% (with photos) to 90% (text only) larger; the SUB filter with the default strategy was 2 times
/// slower and no smaller. The parallel encoder then takes less than half the time of libpng with the same
/// settings on the benchmark's 2-processor machine (bench/README.md).
/// Opaque images are written as RGB, others as RGBA.
///
/// `Encoder.libpng` writes through libpng instead, on the calling thread: `png_set_IHDR`,
/// `png_set_compression_level`, `png_set_filter`, `png_set_filler` and `png_write_rows`, run by the
/// `cpng_encode_rgba` shim (libpng reports errors by longjmp).
public struct PNGWriter: Sendable {
    /// The PNG row filters an encoder may choose from per row; values are libpng's `PNG_FILTER_*`
    /// (`png_set_filter`).
    public struct Filters: OptionSet, Sendable, Hashable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Rows stored as they are (`PNG_FILTER_NONE`).
        public static let noFilter = Filters(rawValue: PNG_FILTER_NONE)
        public static let sub = Filters(rawValue: PNG_FILTER_SUB)
        public static let up = Filters(rawValue: PNG_FILTER_UP)
        public static let average = Filters(rawValue: PNG_FILTER_AVG)
        public static let paeth = Filters(rawValue: PNG_FILTER_PAETH)
        public static let all: Filters = [.noFilter, .sub, .up, .average, .paeth]
    }

    /// zlib's deflate strategies (`Z_DEFAULT_STRATEGY`, `Z_FILTERED`, `Z_HUFFMAN_ONLY`, `Z_RLE`).
    public enum Strategy: Sendable, Equatable {
        case standard, filtered, huffmanOnly, runLength

        var zlibValue: Int32 {
            switch self {
            case .standard: Z_DEFAULT_STRATEGY
            case .filtered: Z_FILTERED
            case .huffmanOnly: Z_HUFFMAN_ONLY
            case .runLength: Z_RLE
            }
        }
    }

    /// What compresses the rows.
    public enum Encoder: Sendable, Equatable {
        /// pwrecord's own (`PNGBandEncoder`): the rows cut into `bands` bands, filtered and deflated (zlib)
        /// as many at once as there are processors, joined into one zlib stream. nil: a band per 4 MiB of
        /// filtered rows, and at least one per processor (at least 2); never more bands than rows.
        case parallel(bands: Int? = nil)
        /// libpng's `png_write_rows`, on the calling thread.
        case libpng
    }

    public struct Options: Sendable, Equatable {
        /// zlib level 0...9 (`png_set_compression_level`); nil: libpng's default, 6.
        public var compressionLevel: Int?
        /// Filters to choose from per row (with several, the one whose bytes have the smallest sum of absolute
        /// values, as libpng chooses); nil: libpng's default, all five.
        public var filters: Filters?
        /// zlib's match strategy (`png_set_compression_strategy`); nil: libpng's default, `Z_FILTERED` when
        /// rows are filtered.
        public var strategy: Strategy?
        /// Write RGB even when some pixels are not opaque (PDF embedding needs RGB).
        public var dropAlpha: Bool
        /// What compresses: pwrecord's parallel encoder or libpng. Both take the same settings.
        public var encoder: Encoder

        public init(compressionLevel: Int? = 1, filters: Filters? = .up, strategy: Strategy? = .runLength,
                    dropAlpha: Bool = false, encoder: Encoder = .parallel()) {
            self.compressionLevel = compressionLevel
            self.filters = filters
            self.strategy = strategy
            self.dropAlpha = dropAlpha
            self.encoder = encoder
        }

        /// libpng itself with its own defaults, for comparison (slower, somewhat smaller files).
        public static let libpngDefaults = Options(compressionLevel: nil, filters: nil, strategy: nil, encoder: .libpng)

        public func compressionLevel(_ value: Int?) -> Self { var o = self; o.compressionLevel = value; return o }
        public func filters(_ value: Filters?) -> Self { var o = self; o.filters = value; return o }
        public func strategy(_ value: Strategy?) -> Self { var o = self; o.strategy = value; return o }
        public func dropAlpha(_ value: Bool) -> Self { var o = self; o.dropAlpha = value; return o }
        public func encoder(_ value: Encoder) -> Self { var o = self; o.encoder = value; return o }
    }

    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// The PNG file's bytes, in memory.
    public func encode(_ image: StitchedImage) throws(ScreenshotError) -> EncodedPNG {
        let dropAlpha = try check(image)
        guard let encoder = bandEncoder(hasAlpha: !dropAlpha) else { return try encodeWithLibpng(image, dropAlpha: dropAlpha) }
        return EncodedPNG(bytes: try encoder.encode(image), width: image.width, height: image.height, hasAlpha: !dropAlpha)
    }

    /// Checks the options against `image`; returns whether the alpha channel is dropped.
    private func check(_ image: StitchedImage) throws(ScreenshotError) -> Bool {
        guard image.width <= Int(Int32.max), image.height <= Int(Int32.max) else {
            throw .imageTooLarge(width: image.width, height: image.height, format: "PNG")
        }
        if let level = options.compressionLevel, !(0...9).contains(level) {
            throw .invalidOption(name: "compressionLevel", reason: "\(level) is not in 0...9")
        }
        if let filters = options.filters, filters.intersection(.all).isEmpty {
            throw .invalidOption(name: "filters", reason: "no filter given; choose at least one (noFilter stores rows as they are)")
        }
        if case .parallel(let bands?) = options.encoder, bands < 1 {
            throw .invalidOption(name: "encoder", reason: "\(bands) bands; give at least 1, or nil to choose by size")
        }
        return options.dropAlpha || image.isOpaque
    }

    /// The parallel encoder for these options; nil for `Encoder.libpng`.
    private func bandEncoder(hasAlpha: Bool) -> PNGBandEncoder? {
        guard case .parallel(let bands) = options.encoder else { return nil }
        let filters = options.filters ?? .all
        // libpng's defaults, so that both encoders read unset options alike.
        let strategy = options.strategy ?? (filters == .noFilter ? .standard : .filtered)
        return PNGBandEncoder(level: Int32(options.compressionLevel ?? 6), strategy: strategy.zlibValue,
                              filters: filters, hasAlpha: hasAlpha, bands: bands)
    }

    private func encodeWithLibpng(_ image: StitchedImage, dropAlpha: Bool) throws(ScreenshotError) -> EncodedPNG {
        var buffer = cpng_buffer()
        defer { cpng_buffer_free(&buffer) }
        let rows = image.rowPointers()
        let status = withExtendedLifetime(image.store) {
            rows.withUnsafeBufferPointer { pointers in
                cpng_encode_rgba(&buffer, pointers.baseAddress, UInt32(image.width), UInt32(image.height),
                                 dropAlpha ? 1 : 0, Int32(options.compressionLevel ?? -1),
                                 options.filters.map { $0.rawValue } ?? -1, options.strategy?.zlibValue ?? -1)
            }
        }
        guard status == 0 else {
            let message = withUnsafeBytes(of: buffer.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw .encodingFailed(library: "libpng", message: message)
        }
        let bytes = [UInt8](UnsafeBufferPointer(start: buffer.data, count: buffer.size))
        return EncodedPNG(bytes: bytes, width: image.width, height: image.height, hasAlpha: !dropAlpha)
    }

    /// Encodes `image` and writes it to `path` (mode 0600, atomically: a temporary file renamed over
    /// `path`). Returns the encoded PNG, which `PDFWriter` can reuse. The parallel encoder writes each band
    /// as soon as it and all before it are compressed, while the others are still compressing.
    @discardableResult
    /// Without `replacing`, a file that exists at `path` when the image is done is left alone (`EEXIST`).
    public func write(_ image: StitchedImage, to path: String, replacing: Bool = true) throws(ScreenshotError) -> EncodedPNG {
        var file = try AtomicFile(path: path)
        let png = try encode(image, keep: true) { (bytes, _) throws(ScreenshotError) in try file.write(bytes[...]) }
        try file.commit(replacing: replacing)
        return png
    }

    /// Encodes `image`, handing the file to `emit` in order as it is made (see `PNGBandEncoder.Emit`):
    /// band by band, while later bands compress, with the parallel encoder; whole with libpng. Without
    /// `keep`, the returned PNG's `bytes` may be empty (the parallel encoder does not gather them).
    func encode(_ image: StitchedImage, keep: Bool, emit: PNGBandEncoder.Emit) throws(ScreenshotError) -> EncodedPNG {
        let dropAlpha = try check(image)
        guard let encoder = bandEncoder(hasAlpha: !dropAlpha) else {
            let png = try encodeWithLibpng(image, dropAlpha: dropAlpha)
            try emit(png.bytes, png.imageDataRanges())
            return png
        }
        let bytes = try encoder.encode(image, keep: keep, emit: emit)
        return EncodedPNG(bytes: bytes, width: image.width, height: image.height, hasAlpha: !dropAlpha)
    }
}

import CPNG

/// Saves a `StitchedImage` as PNG through libpng, with fast settings by default: zlib level 1 with the
/// run-length strategy (`Z_RLE`) and the UP filter only. On the benchmark's 1920x20000 pages that is 4 to
/// 5 times faster than libpng's defaults (level 6, all filters), for files 12% (with photos) to 90% (text
/// only) larger; the SUB filter with the default strategy was 2 times slower and no smaller (bench/README.md).
/// Opaque images are written as RGB, others as RGBA.
///
/// The libpng calls are `png_set_IHDR`, `png_set_compression_level`, `png_set_filter`, `png_set_filler`
/// and `png_write_rows`, run by the `cpng_encode_rgba` shim (libpng reports errors by longjmp).
public struct PNGWriter: Sendable {
    /// The PNG row filters libpng may choose from (`png_set_filter`); values are libpng's `PNG_FILTER_*`.
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

    public struct Options: Sendable, Equatable {
        /// zlib level 0...9 (`png_set_compression_level`); nil keeps libpng's default (6).
        public var compressionLevel: Int?
        /// Filters to choose from per row; nil keeps libpng's default (all five, chosen adaptively).
        public var filters: Filters?
        /// zlib's match strategy (`png_set_compression_strategy`); nil keeps libpng's default (`Z_FILTERED`
        /// when rows are filtered).
        public var strategy: Strategy?
        /// Write RGB even when some pixels are not opaque (PDF embedding needs RGB).
        public var dropAlpha: Bool

        public init(compressionLevel: Int? = 1, filters: Filters? = .up, strategy: Strategy? = .runLength,
                    dropAlpha: Bool = false) {
            self.compressionLevel = compressionLevel
            self.filters = filters
            self.strategy = strategy
            self.dropAlpha = dropAlpha
        }

        /// libpng's own defaults, for comparison (slower, somewhat smaller files).
        public static let libpngDefaults = Options(compressionLevel: nil, filters: nil, strategy: nil)

        public func compressionLevel(_ value: Int?) -> Self { var o = self; o.compressionLevel = value; return o }
        public func filters(_ value: Filters?) -> Self { var o = self; o.filters = value; return o }
        public func strategy(_ value: Strategy?) -> Self { var o = self; o.strategy = value; return o }
        public func dropAlpha(_ value: Bool) -> Self { var o = self; o.dropAlpha = value; return o }
    }

    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// The PNG file's bytes, in memory.
    public func encode(_ image: StitchedImage) throws(ScreenshotError) -> EncodedPNG {
        guard image.width <= Int(Int32.max), image.height <= Int(Int32.max) else {
            throw .imageTooLarge(width: image.width, height: image.height, format: "PNG")
        }
        if let level = options.compressionLevel, !(0...9).contains(level) {
            throw .invalidOption(name: "compressionLevel", reason: "\(level) is not in 0...9")
        }
        let dropAlpha = options.dropAlpha || image.isOpaque
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
    /// `path`). Returns the encoded PNG, which `PDFWriter` can reuse.
    @discardableResult
    public func write(_ image: StitchedImage, to path: String) throws(ScreenshotError) -> EncodedPNG {
        let png = try encode(image)
        var file = try AtomicFile(path: path)
        try file.write(png.bytes[...])
        try file.commit()
        return png
    }
}

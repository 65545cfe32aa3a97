import CPNG
import PortalCapture

/// Decodes PNG bytes with libpng's simplified API (`png_image_begin_read_from_memory`,
/// `png_image_finish_read`) into 8-bit RGBA, independently of the encoder under test; and inflates a PNG's
/// zlib stream with zlib's `uncompress`, which checks the header and the Adler-32 trailer (libpng reports
/// a wrong Adler-32 only as a warning).
enum LibpngDecoder {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static func decode(_ bytes: [UInt8]) throws -> (width: Int, height: Int, rgba: [UInt8]) {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        let begun = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard begun != 0 else { throw Failure(description: "libpng: \(message(image))") }
        image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)  // PNG_FORMAT_RGBA
        let width = Int(image.width), height = Int(image.height)
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        let finished = rgba.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, Int32(width * 4), nil) }
        guard finished != 0 else { throw Failure(description: "libpng: \(message(image))") }
        // Warnings (a wrong Adler-32, extra data) leave the pixels readable but mean the file is not clean.
        guard image.warning_or_error == 0 else { throw Failure(description: "libpng warned: \(message(image))") }
        return (width, height, rgba)
    }

    /// The filtered rows the PNG's IDAT stream holds, inflated by `uncompress` (which fails on a wrong
    /// header, a broken stream or a wrong Adler-32), given how many bytes they must be.
    static func inflate(_ png: EncodedPNG, expectedBytes: Int) throws -> [UInt8] {
        let data = png.imageData()
        var out = [UInt8](repeating: 0, count: expectedBytes + 1)  // one spare: more data than expected shows
        var length = UInt(out.count)
        let status = out.withUnsafeMutableBytes { o in
            data.withUnsafeBytes { uncompress(o.baseAddress!.assumingMemoryBound(to: UInt8.self), &length,
                                              $0.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt($0.count)) }
        }
        guard status == Z_OK else { throw Failure(description: "zlib uncompress: status \(status)") }
        return Array(out.prefix(Int(length)))
    }

    private static func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

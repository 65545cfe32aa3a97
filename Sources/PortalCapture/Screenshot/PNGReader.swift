import CPNG

/// Decodes a PNG file's bytes (any colour type, bit depth or interlacing libpng reads) into an 8-bit RGBA
/// `StitchedImage`, with libpng's simplified API (`png_image_begin_read_from_memory`,
/// `png_image_finish_read`, which report errors in `png_image.message` rather than by longjmp). For plain
/// screenshots, whose PNG comes from the portal, saved as PDF.
public struct PNGReader: Sendable {
    /// Larger images are refused before their pixels are allocated (16k x 16k RGBA is 1 GiB).
    public var maximumPixels: Int

    public init(maximumPixels: Int = 16_384 * 16_384) { self.maximumPixels = maximumPixels }

    public func decode(_ bytes: [UInt8]) throws(ScreenshotError) -> StitchedImage {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        let begun = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard begun != 0 else { throw .invalidImage(reason: "not a PNG libpng reads: \(Self.message(image))") }
        let width = Int(image.width), height = Int(image.height)
        guard width > 0, height > 0, width <= maximumPixels / max(height, 1) else {
            png_image_free(&image)
            throw .imageTooLarge(width: width, height: height, format: "PNG")
        }
        // A 16-bit screenshot without gAMA/sRGB is sRGB like an 8-bit one (libpng would assume linear light).
        image.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
        image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)   // PNG_FORMAT_RGBA: 8-bit R, G, B, A
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        let finished = rgba.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, Int32(width * 4), nil) }
        guard finished != 0 else {
            png_image_free(&image)
            throw .invalidImage(reason: "the PNG's pixels could not be read: \(Self.message(image))")
        }
        return try StitchedImage(width: width, height: height, rgba: rgba)
    }

    private static func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

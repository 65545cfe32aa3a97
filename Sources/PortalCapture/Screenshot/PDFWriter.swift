/// Saves a `StitchedImage` as a PDF written directly (no cairo): the image is embedded once, as an image
/// XObject compressed with `/FlateDecode` and `/DecodeParms << /Predictor 15 >>`, which is exactly the
/// data of a PNG's IDAT chunks, so the PNG's compressed rows are reused rather than compressed again.
///
/// Layout: one tall page, or pages the width of the image that each show a slice of the same XObject.
/// Pages larger than 14,400 units a side (200 inches, the limit of PDF 1.6 readers, ISO 32000-1 annex C)
/// get a `/UserUnit` so they keep their real size, or are scaled down to fit (`Options.Oversize`).
/// Alpha is not kept: pages are opaque RGB.
public struct PDFWriter: Sendable {
    public struct Options: Sendable, Equatable {
        public enum Layout: Sendable, Equatable {
            /// The whole image on one page.
            case singlePage
            /// Pages as wide as the image and `height` image pixels tall (the last one shorter); nil makes
            /// them ISO A-series proportioned (height = width x sqrt 2).
            case pages(height: Int?)
        }

        /// What to do with a page larger than `PDFWriter.maximumPageUnits` a side.
        public enum Oversize: Sendable, Equatable {
            /// Keep the real size with a `/UserUnit` larger than 1 (PDF 1.6); the page is marked PDF 1.6.
            case userUnit
            /// Shrink the page (and the image on it, still at full resolution) to fit.
            case scaleToFit
        }

        public var layout: Layout
        /// Image pixels per inch of page: 96 makes one pixel a CSS pixel (0.75 pt).
        public var pixelsPerInch: Double
        public var oversize: Oversize
        /// The document title (`/Title` in the document information dictionary).
        public var title: String?

        public init(layout: Layout = .singlePage, pixelsPerInch: Double = 96, oversize: Oversize = .userUnit,
                    title: String? = nil) {
            self.layout = layout
            self.pixelsPerInch = pixelsPerInch
            self.oversize = oversize
            self.title = title
        }

        public func layout(_ value: Layout) -> Self { var o = self; o.layout = value; return o }
        public func pixelsPerInch(_ value: Double) -> Self { var o = self; o.pixelsPerInch = value; return o }
        public func oversize(_ value: Oversize) -> Self { var o = self; o.oversize = value; return o }
        public func title(_ value: String?) -> Self { var o = self; o.title = value; return o }
    }

    /// The largest page side, in default user space units (1/72 inch), that PDF readers accept.
    public static let maximumPageUnits = 14_400.0

    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// One page of the layout: image rows `top ..< top + rows`, and its size in units (`/MediaBox`).
    public struct Page: Sendable, Equatable {
        public var top: Int
        public var rows: Int
        public var width: Double
        public var height: Double
        /// Units per image pixel on this page.
        public var scale: Double
        /// The page's `/UserUnit` (inches per 72 units), when not 1.
        public var userUnit: Double?
    }

    /// The pages an image of `width x height` pixels is laid out on.
    public func pages(width: Int, height: Int) throws(ScreenshotError) -> [Page] {
        guard options.pixelsPerInch.isFinite, options.pixelsPerInch > 0 else {
            throw .invalidOption(name: "pixelsPerInch", reason: "\(options.pixelsPerInch) must be a positive number")
        }
        let pageRows: Int
        switch options.layout {
        case .singlePage: pageRows = height
        case .pages(let rows?):
            guard rows > 0 else { throw .invalidOption(name: "pages(height:)", reason: "\(rows) must be at least 1") }
            pageRows = rows
        case .pages(nil): pageRows = max(1, Int((Double(width) * 2.0.squareRoot()).rounded()))
        }
        let pointsPerPixel = 72 / options.pixelsPerInch
        var pages: [Page] = []
        var top = 0
        while top < height {
            let rows = min(pageRows, height - top)
            let w = Double(width) * pointsPerPixel, h = Double(rows) * pointsPerPixel
            let largest = max(w, h)
            var page = Page(top: top, rows: rows, width: w, height: h, scale: pointsPerPixel, userUnit: nil)
            if largest > Self.maximumPageUnits {
                switch options.oversize {
                case .userUnit:
                    // Rounded up to 1/1000 so the page stays within the limit after rounding.
                    let unit = (largest / Self.maximumPageUnits * 1000).rounded(.up) / 1000
                    page = Page(top: top, rows: rows, width: w / unit, height: h / unit, scale: pointsPerPixel / unit,
                                userUnit: unit)
                case .scaleToFit:
                    let factor = Self.maximumPageUnits / largest
                    page = Page(top: top, rows: rows, width: w * factor, height: h * factor,
                                scale: pointsPerPixel * factor, userUnit: nil)
                }
            }
            pages.append(page)
            top += rows
        }
        return pages
    }

    /// `image` as an opaque page shows it: pixels that are not opaque are blended onto white (straight alpha),
    /// as the PNG would look on a white page. Without this the alpha byte was dropped, and a window's
    /// transparent corners and shadow (all 0 but alpha) came out black. Opaque images are used as they are.
    static func onWhite(_ image: StitchedImage) throws(ScreenshotError) -> StitchedImage {
        guard !image.isOpaque else { return image }
        var rgba = image.rgba()
        rgba.withUnsafeMutableBufferPointer { p in
            for i in stride(from: 0, to: p.count, by: 4) where p[i + 3] != 255 {
                let alpha = Int(p[i + 3])
                for c in i..<(i + 3) { p[c] = UInt8((Int(p[c]) * alpha + 255 * (255 - alpha) + 127) / 255) }
                p[i + 3] = 255
            }
        }
        return try StitchedImage(width: image.width, height: image.height, rgba: rgba)
    }

    /// The PDF file's bytes. `png`, when it is the RGB encoding of `image` (as `PNGWriter` made it for an
    /// opaque image), lends its compressed rows; otherwise the image is encoded here (`PNGWriter`'s default
    /// settings, RGB).
    public func data(for image: StitchedImage, reusing png: EncodedPNG? = nil) throws(ScreenshotError) -> [UInt8] {
        try assemble(image, reusing: png).bytes
    }

    func assemble(_ image: StitchedImage, reusing png: EncodedPNG?) throws(ScreenshotError) -> PDFBuffer {
        let image = try Self.onWhite(image)
        let pages = try pages(width: image.width, height: image.height)
        let source: EncodedPNG
        if let png = png.flatMap({ Self.reusable($0, for: image) }) {
            source = png
        } else {
            source = try PNGWriter(options: PNGWriter.Options().dropAlpha(true)).encode(image)
        }
        var pdf = PDFBuffer(borrowing: source.bytes)
        begin(&pdf, pages: pages)
        pdf.stream(3, dictionary: Self.imageDictionary(image), borrowing: source.imageDataRanges())
        end(&pdf, image: image, pages: pages)
        return pdf
    }

    /// Writes the PDF to `path` (mode 0600, atomically: a temporary file renamed over `path`). Without a
    /// reusable `png`, the image is compressed here (`PNGWriter`'s default settings, RGB) and its bands are
    /// written as soon as they are ready, while later ones compress; the image stream's `/Length` is then an
    /// indirect object after the pages.
    /// Without `replacing`, a file that exists at `path` when the image is done is left alone (`EEXIST`).
    public func write(_ image: StitchedImage, to path: String, reusing png: EncodedPNG? = nil,
                      replacing: Bool = true) throws(ScreenshotError) {
        let pages = try pages(width: image.width, height: image.height)  // bad options fail before any file
        let image = try Self.onWhite(image)
        var file = try AtomicFile(path: path)
        if let png = png.flatMap({ Self.reusable($0, for: image) }) {
            try assemble(image, reusing: png).write(to: &file)
        } else {
            let lengthID = 5 + 2 * pages.count
            var pdf = PDFBuffer(borrowing: [])
            begin(&pdf, pages: pages)
            pdf.beginStream(3, dictionary: Self.imageDictionary(image), lengthObject: lengthID)
            try pdf.flush(to: &file)
            var count = 0
            _ = try PNGWriter(options: PNGWriter.Options().dropAlpha(true)).encode(image, keep: false) { (bytes, imageData) throws(ScreenshotError) in
                for range in imageData {
                    try file.write(bytes[range])
                    count += range.count
                }
            }
            pdf.endStream(written: count)
            end(&pdf, image: image, pages: pages, length: (lengthID, count))
            try pdf.write(to: &file)
        }
        try file.commit(replacing: replacing)
    }

    /// `png` when its IDAT data can be the image stream: RGB, the image's size, well formed.
    private static func reusable(_ png: EncodedPNG, for image: StitchedImage) -> EncodedPNG? {
        !png.hasAlpha && png.width == image.width && png.height == image.height && !png.imageDataRanges().isEmpty ? png : nil
    }

    /// The image XObject's dictionary (without `/Length`): the PNG's IDAT data as it is.
    private static func imageDictionary(_ image: StitchedImage) -> String {
        "/Type /XObject /Subtype /Image /Width \(image.width) /Height \(image.height) "
            + "/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode "
            + "/DecodeParms << /Predictor 15 /Colors 3 /BitsPerComponent 8 /Columns \(image.width) >>"
    }

    /// The header and objects 1 (catalog) and 2 (page tree); object 3, the image, comes next.
    private func begin(_ pdf: inout PDFBuffer, pages: [Page]) {
        pdf.append(pages.contains { $0.userUnit != nil } ? "%PDF-1.6\n" : "%PDF-1.4\n")
        pdf.append([0x25, 0xE2, 0xE3, 0xCF, 0xD3, 0x0A])  // a binary comment: "this file has 8-bit bytes"
        let pageIDs = pages.indices.map { 5 + 2 * $0 }
        pdf.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        pdf.object(2, "<< /Type /Pages /Kids [\(pageIDs.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pages.count) >>")
    }

    /// Object 4 (document information), each page (`5 + 2i`) and its content stream (`6 + 2i`), the image
    /// stream's length object when it was written straight to the file, and the cross-reference table.
    private func end(_ pdf: inout PDFBuffer, image: StitchedImage, pages: [Page], length: (id: Int, count: Int)? = nil) {
        pdf.object(4, "<< /Producer (pwrecord)" + (options.title.map { " /Title \(PDFBuffer.text($0))" } ?? "") + " >>")
        for (i, page) in pages.enumerated() {
            let id = 5 + 2 * i
            let n = PDFBuffer.number
            let unit = page.userUnit.map { " /UserUnit \(n($0))" } ?? ""
            pdf.object(id, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(n(page.width)) \(n(page.height))]"
                       + " /Resources << /XObject << /Im0 3 0 R >> >> /Contents \(id + 1) 0 R\(unit) >>")
            // Place the whole image so that rows top ..< top + rows fill the page; the page box clips the rest.
            let bottom = Double(page.top + page.rows - image.height) * page.scale
            let content = "q \(n(Double(image.width) * page.scale)) 0 0 \(n(Double(image.height) * page.scale)) 0 \(n(bottom)) cm /Im0 Do Q\n"
            pdf.stream(id + 1, dictionary: "", data: Array(content.utf8))
        }
        if let length { pdf.object(length.id, String(length.count)) }
        pdf.finish(root: 1, info: 4)
    }
}

/// A long screenshot (or a single frame): `width x height` pixels in RGBA (bytes R, G, B, A; straight alpha;
/// alpha 255 when the capture had no alpha), as `ScrollStitcher` builds it and `PNGWriter`/`PDFWriter` save it.
///
/// The rows are kept in bands (never one huge block), so stitching can grow the image at either end without
/// copying it; read them with `withRow(_:_:)`, `pixel(x:y:)` or `rgba()`.
public struct StitchedImage: Sendable {
    public let width: Int
    public let height: Int
    /// Rows at the top that stayed fixed while the content scrolled (a sticky header), kept once; 0 if none.
    public let headerHeight: Int
    /// Rows at the bottom that stayed fixed (a sticky footer), kept once; 0 if none.
    public let footerHeight: Int
    /// Whether every pixel's alpha is 255 (always true for BGRx/RGBx captures).
    public let isOpaque: Bool

    let store: RowStore
    /// The store row that holds row 0 of the image.
    let firstRow: Int

    init(store: RowStore, firstRow: Int, width: Int, height: Int, headerHeight: Int, footerHeight: Int,
         isOpaque: Bool) {
        self.store = store
        self.firstRow = firstRow
        self.width = width
        self.height = height
        self.headerHeight = headerHeight
        self.footerHeight = footerHeight
        self.isOpaque = isOpaque
    }

    /// An image from tightly packed RGBA bytes (`width * height * 4` of them, rows top to bottom).
    public init(width: Int, height: Int, rgba: [UInt8]) throws(ScreenshotError) {
        guard width > 0, height > 0 else {
            throw .invalidImage(reason: "size \(width)x\(height) is empty")
        }
        let (bytes, overflow) = width.multipliedReportingOverflow(by: height * 4)
        guard !overflow, rgba.count == bytes else {
            throw .invalidImage(reason: "\(rgba.count) bytes given, \(width)x\(height) RGBA needs \(width * height * 4)")
        }
        let store = RowStore(rowBytes: width * 4, chunkRows: height)
        store.reserve(0..<height)
        var opaque = true
        rgba.withUnsafeBytes { src in
            for y in 0..<height {
                let row = src.baseAddress!.advanced(by: y * width * 4)
                opaque = RGBAConversion.convert(row, to: store.row(y), count: width, from: .rgba) && opaque
            }
        }
        self.init(store: store, firstRow: 0, width: width, height: height, headerHeight: 0, footerHeight: 0,
                  isOpaque: opaque)
    }

    /// A plain screenshot: the frame's `region` (default: its valid crop, or the whole frame) as an image.
    public init(frame: VideoFrame, region: PixelRect? = nil) throws(ScreenshotError) {
        let area = try StitchRegion.resolve(region, in: frame, minimumHeight: 1)
        let store = RowStore(rowBytes: area.width * 4, chunkRows: area.height)
        store.reserve(0..<area.height)
        var opaque = true
        for y in 0..<area.height {
            let src = frame.storage.bytes.advanced(by: (area.y + y) * frame.stride + area.x * 4)
            opaque = RGBAConversion.convert(src, to: store.row(y), count: area.width,
                                            from: frame.format.pixelFormat) && opaque
        }
        self.init(store: store, firstRow: 0, width: area.width, height: area.height, headerHeight: 0,
                  footerHeight: 0, isOpaque: opaque)
    }

    /// Calls `body` with the `width * 4` RGBA bytes of row `y` (0 ≤ y < height). The bytes are valid only
    /// inside `body`.
    public func withRow<R, E: Error>(_ y: Int, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        precondition(y >= 0 && y < height, "row \(y) outside a \(height)-row image")
        return try withExtendedLifetime(store) { () throws(E) -> R in
            try body(UnsafeRawBufferPointer(start: store.row(firstRow + y), count: width * 4))
        }
    }

    /// Red, green, blue and alpha of pixel (x, y).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        precondition(x >= 0 && x < width, "column \(x) outside a \(width)-column image")
        return withRow(y) { row in (row[x * 4], row[x * 4 + 1], row[x * 4 + 2], row[x * 4 + 3]) }
    }

    /// A tightly packed copy of all pixels, RGBA, rows top to bottom.
    public func rgba() -> [UInt8] {
        let rowBytes = width * 4
        return [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, count in
            for y in 0..<height {
                withRow(y) { row in
                    UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[(y * rowBytes)...])
                        .copyMemory(from: row)
                }
            }
            count = rowBytes * height
        }
    }

    /// The row pointers in order, for C writers (libpng's `png_write_rows`). Valid while `store` lives.
    func rowPointers() -> [UnsafePointer<UInt8>?] {
        (0..<height).map { UnsafePointer(store.row(firstRow + $0).assumingMemoryBound(to: UInt8.self)) }
    }
}

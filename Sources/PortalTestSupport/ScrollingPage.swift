/// A deterministic tall "web page" for long-screenshot tests and the test backend's page mode: text-like
/// lines (glyph-ish blocks seeded by line, so every line differs), photo-like images (gradients with fine
/// noise, every row distinct), blank runs, thin rules (identical rows that repeat down the page), and an
/// optional fixed header band and footer band.
///
/// Coordinates: the *page* is `headerHeight` header rows, then `bodyHeight` body rows, then `footerHeight`
/// footer rows: that is the image a perfect long screenshot gives (`pageRGBA`). The *viewport* is
/// `viewportHeight` rows: the header on top and the footer at the bottom, fixed, and between them the body
/// scrolled by `offset` rows (0 ... `maximumOffset`): viewport row `headerHeight + i` shows body row
/// `offset + i`.
public struct ScrollingPage: Sendable {
    /// One piece of the body, top to bottom.
    public enum Block: Sendable, Hashable {
        /// `lines` lines of glyph-like words, `ScrollingPage.lineHeight` rows each (4 blank, 12 glyph, 4 blank).
        case text(lines: Int)
        /// A photo-like area (gradient plus noise, inside side margins); every row differs from every other.
        case image(height: Int)
        /// Background rows: all one colour.
        case blank(height: Int)
        /// A one-row grey line between 8 blank rows above and below (`ScrollingPage.ruleHeight` rows).
        case rule

        public var height: Int {
            switch self {
            case .text(let lines): lines * ScrollingPage.lineHeight
            case .image(let height), .blank(let height): height
            case .rule: ScrollingPage.ruleHeight
            }
        }
    }

    public static let lineHeight = 20
    public static let ruleHeight = 17
    /// The body's background colour, RGB.
    public static let background: (UInt8, UInt8, UInt8) = (255, 255, 255)

    public let width: Int
    public let viewportHeight: Int
    public let headerHeight: Int
    public let footerHeight: Int
    public let blocks: [Block]
    public let seed: UInt64
    public let bodyHeight: Int
    /// The whole page, RGBA (alpha 255), `width * pageHeight * 4` bytes.
    public let pageRGBA: [UInt8]

    public var pageHeight: Int { headerHeight + bodyHeight + footerHeight }
    /// Body rows visible at once.
    public var bodyViewportHeight: Int { viewportHeight - headerHeight - footerHeight }
    /// The largest scroll offset: the body's last row is then just above the footer.
    public var maximumOffset: Int { bodyHeight - bodyViewportHeight }

    /// A page made of `blocks`. Throws when the viewport cannot show any body or the body is shorter than
    /// the viewport's body area.
    public init(width: Int, viewportHeight: Int, headerHeight: Int = 0, footerHeight: Int = 0,
                blocks: [Block], seed: UInt64 = 1) throws(ScrollingPageError) {
        try Self.checkViewport(width: width, viewportHeight: viewportHeight, headerHeight: headerHeight,
                               footerHeight: footerHeight)
        if let bad = blocks.first(where: { $0.height <= 0 }) {
            throw .invalidLayout("block \(bad) has no rows")
        }
        let body = blocks.reduce(0) { $0 + $1.height }
        try Self.checkBody(body, viewportHeight: viewportHeight, headerHeight: headerHeight, footerHeight: footerHeight)
        self.width = width
        self.viewportHeight = viewportHeight
        self.headerHeight = headerHeight
        self.footerHeight = footerHeight
        self.blocks = blocks
        self.seed = seed
        self.bodyHeight = body
        self.pageRGBA = PageRenderer(width: width, header: headerHeight, footer: footerHeight, blocks: blocks,
                                     seed: seed).render()
    }

    /// A page of given rows (RGBA, `width * 4` bytes each), for layouts the blocks cannot draw; `blocks` is
    /// then empty and `seed` 0. Throws as the blocks' initializer does, and when a row has another length.
    public init(width: Int, viewportHeight: Int, header: [[UInt8]] = [], body: [[UInt8]],
                footer: [[UInt8]] = []) throws(ScrollingPageError) {
        try Self.checkViewport(width: width, viewportHeight: viewportHeight, headerHeight: header.count,
                               footerHeight: footer.count)
        try Self.checkBody(body.count, viewportHeight: viewportHeight, headerHeight: header.count, footerHeight: footer.count)
        let rows = header + body + footer
        if let bad = rows.firstIndex(where: { $0.count != width * 4 }) {
            throw .invalidLayout("page row \(bad) has \(rows[bad].count) bytes, not \(width * 4)")
        }
        self.width = width
        self.viewportHeight = viewportHeight
        headerHeight = header.count
        footerHeight = footer.count
        blocks = []
        seed = 0
        bodyHeight = body.count
        pageRGBA = Array(rows.joined())
    }

    /// The viewport shows some body between the fixed bands (both initializers).
    private static func checkViewport(width: Int, viewportHeight: Int, headerHeight: Int,
                                      footerHeight: Int) throws(ScrollingPageError) {
        guard width >= 1 else { throw .invalidLayout("width \(width) must be at least 1") }
        guard headerHeight >= 0, footerHeight >= 0 else {
            throw .invalidLayout("header \(headerHeight) and footer \(footerHeight) cannot be negative")
        }
        guard viewportHeight > headerHeight + footerHeight else {
            throw .invalidLayout("viewport \(viewportHeight) leaves no body rows under header \(headerHeight) and footer \(footerHeight)")
        }
    }

    /// The body fills the viewport's body area (both initializers).
    private static func checkBody(_ body: Int, viewportHeight: Int, headerHeight: Int,
                                  footerHeight: Int) throws(ScrollingPageError) {
        guard body >= viewportHeight - headerHeight - footerHeight else {
            throw .invalidLayout("body of \(body) rows is shorter than the \(viewportHeight - headerHeight - footerHeight) rows the viewport shows")
        }
    }

    /// A page of `bodyHeight` body rows with a pseudo-random mix of blocks drawn from `seed`: paragraphs,
    /// images, rules and blank runs of at most `maximumBlankRun` rows (two blank blocks never touch).
    public static func generated(width: Int, bodyHeight: Int, viewportHeight: Int, headerHeight: Int = 0,
                                 footerHeight: Int = 0, maximumBlankRun: Int = 96,
                                 seed: UInt64 = 1) throws(ScrollingPageError) -> ScrollingPage {
        guard bodyHeight >= 1 else { throw .invalidLayout("body height \(bodyHeight) must be at least 1") }
        var rng = SplitMix64(seed: seed ^ 0x5EED)
        var blocks: [Block] = []
        var used = 0
        while used < bodyHeight {
            let left = bodyHeight - used
            var block: Block
            switch rng.next() % 10 {
            case 0...4: block = .text(lines: 2 + Int(rng.next() % 9))
            case 5, 6: block = .image(height: 60 + Int(rng.next() % 200))
            case 7, 8:
                if case .blank = blocks.last { block = .rule } else {
                    block = .blank(height: max(1, min(maximumBlankRun - 8, 8 + Int(rng.next() % 112))))
                }
            default: block = .rule
            }
            if block.height > left { block = left >= 4 ? .image(height: left) : .blank(height: left) }
            blocks.append(block)
            used += block.height
        }
        return try ScrollingPage(width: width, viewportHeight: viewportHeight, headerHeight: headerHeight,
                                 footerHeight: footerHeight, blocks: blocks, seed: seed)
    }

    /// The page row that viewport row `row` shows at scroll `offset`.
    public func pageRow(forViewportRow row: Int, offset: Int) -> Int {
        if row < headerHeight { return row }
        if row >= viewportHeight - footerHeight { return headerHeight + bodyHeight + row - (viewportHeight - footerHeight) }
        return row + offset
    }

    /// The RGBA bytes of page row `y`.
    public func pageRow(_ y: Int) -> ArraySlice<UInt8> {
        pageRGBA[(y * width * 4)..<((y + 1) * width * 4)]
    }

    /// Paints the viewport at scroll `offset` (clamped to 0 ... `maximumOffset`) into `pixels`, `stride`
    /// bytes per row, in `pixelFormat`'s byte order; the padding byte of BGRx/RGBx is set to `padding`.
    public func render(offset: Int, into pixels: UnsafeMutableRawPointer, stride: Int, pixelFormat: PixelFormat,
                       padding: UInt8 = 255) {
        let offset = min(max(offset, 0), maximumOffset)
        let pad = UInt32(padding) << 24
        pageRGBA.withUnsafeBytes { page in
            for row in 0..<viewportHeight {
                let src = page.baseAddress!.advanced(by: pageRow(forViewportRow: row, offset: offset) * width * 4)
                let dst = pixels.advanced(by: row * stride)
                // The page's own layout: a copy (the tests' debug builds pay dearly for the loop below).
                if pixelFormat == .rgba {
                    dst.copyMemory(from: src, byteCount: width * 4)
                    continue
                }
                for x in 0..<width {
                    let p = UInt32(littleEndian: src.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self))
                    let swapped = (p & 0xFF00_FF00) | (p & 0xFF) << 16 | (p >> 16) & 0xFF
                    let out: UInt32 = switch pixelFormat {
                    case .rgba: p
                    case .rgbx: (p & 0x00FF_FFFF) | pad
                    case .bgra: swapped
                    case .bgrx: (swapped & 0x00FF_FFFF) | pad
                    }
                    dst.storeBytes(of: out.littleEndian, toByteOffset: x * 4, as: UInt32.self)
                }
            }
        }
    }

    /// A frame of the viewport at scroll `offset`. Bytes past each row's pixels (when `stride` is larger
    /// than `width * 4`) are filled with junk derived from `padding`, as a real producer might leave them.
    public func frame(offset: Int, pixelFormat: PixelFormat = .bgrx, stride: Int? = nil, sequence: UInt64 = 0,
                      timestamp: UInt64 = 0, padding: UInt8 = 255) -> VideoFrame {
        let rowStride = max(stride ?? width * 4, width * 4)
        let storage = FrameStorage(capacity: rowStride * viewportHeight)
        let bytes = storage.bytes.assumingMemoryBound(to: UInt8.self)
        for row in 0..<viewportHeight where rowStride > width * 4 {
            for i in (width * 4)..<rowStride { bytes[row * rowStride + i] = padding &+ UInt8(truncatingIfNeeded: i &* 7) }
        }
        render(offset: offset, into: storage.bytes, stride: rowStride, pixelFormat: pixelFormat, padding: padding)
        return VideoFrame(format: VideoFormat(pixelFormat: pixelFormat, width: width, height: viewportHeight),
                          stride: rowStride, timestamp: timestamp, sequence: sequence, storage: storage)
    }
}

/// A `ScrollingPage` layout that cannot be drawn.
public enum ScrollingPageError: Error, Equatable, CustomStringConvertible {
    case invalidLayout(String)

    public var description: String {
        switch self {
        case .invalidLayout(let reason): "invalid scrolling page: \(reason)"
        }
    }
}

/// SplitMix64: a tiny, well-mixed deterministic generator (a value type, no global state).
public struct SplitMix64 {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    static func mix(_ values: UInt64...) -> UInt64 {
        var g = SplitMix64(seed: 0)
        for v in values { g.state ^= v; _ = g.next() }
        return g.next()
    }
}

/// Draws a whole page into RGBA bytes: header, body blocks, footer.
private struct PageRenderer {
    let width: Int, header: Int, footer: Int, blocks: [ScrollingPage.Block], seed: UInt64

    typealias RGB = (UInt8, UInt8, UInt8)
    static let ink: RGB = (34, 34, 34)
    static let link: RGB = (20, 90, 200)
    static let ruleColour: RGB = (200, 200, 200)
    static let headerBackground: RGB = (28, 56, 112)
    static let headerBorder: RGB = (16, 32, 80)
    static let footerBackground: RGB = (44, 44, 44)
    static let footerBorder: RGB = (96, 96, 96)

    func render() -> [UInt8] {
        let body = blocks.reduce(0) { $0 + $1.height }
        let height = header + body + footer
        var page = [UInt8](repeating: 255, count: width * height * 4)
        page.withUnsafeMutableBytes { raw in
            let px = raw.baseAddress!.assumingMemoryBound(to: UInt32.self)
            func fill(_ y: Int, _ x0: Int, _ x1: Int, _ c: RGB) {
                let v = pack(c)
                for x in max(0, x0)..<min(width, x1) { px[y * width + x] = v }
            }
            // Header: background, a line of light glyphs centred, a darker bottom border.
            for y in 0..<header { fill(y, 0, width, Self.headerBackground) }
            if header >= 16 {
                drawLine(px, top: (header - 12) / 2, lineSeed: seed ^ 0x4EAD, colours: ((235, 235, 245), (255, 210, 90)),
                         ragged: false)
            }
            if header >= 2 { fill(header - 1, 0, width, Self.headerBorder) }
            // Body.
            var y = header
            var line: UInt64 = 0
            for (index, block) in blocks.enumerated() {
                let background = ScrollingPage.background
                for r in 0..<block.height { fill(y + r, 0, width, background) }
                switch block {
                case .text(let lines):
                    for l in 0..<lines {
                        drawLine(px, top: y + l * ScrollingPage.lineHeight + 4, lineSeed: seed &* 31 &+ line,
                                 colours: (Self.ink, Self.link), ragged: true)
                        line += 1
                    }
                case .image(let h):
                    drawImage(px, top: y, height: h, imageSeed: seed ^ UInt64(index) << 32)
                case .blank:
                    break
                case .rule:
                    let margin = width > 64 ? 16 : 0
                    fill(y + 8, margin, width - margin, Self.ruleColour)
                }
                y += block.height
            }
            // Footer: a lighter top border, background, a line of grey glyphs.
            for r in 0..<footer { fill(y + r, 0, width, Self.footerBackground) }
            if footer >= 2 { fill(y, 0, width, Self.footerBorder) }
            if footer >= 16 {
                drawLine(px, top: y + (footer - 12) / 2 + 1, lineSeed: seed ^ 0xF007, colours: ((200, 200, 200), (150, 200, 150)),
                         ragged: false)
            }
        }
        return page
    }

    func pack(_ c: RGB) -> UInt32 {
        (UInt32(c.0) | UInt32(c.1) << 8 | UInt32(c.2) << 16 | 0xFF00_0000).littleEndian
    }

    /// One line of words: glyphs 6x12 pixels, 8 pixels apart, rows `top ..< top + 12`, drawn as a 3x12 grid
    /// of 2x1-pixel dots so that every pixel row of a line differs from the next. The glyph shapes and word
    /// lengths come from `lineSeed`.
    func drawLine(_ px: UnsafeMutablePointer<UInt32>, top: Int, lineSeed: UInt64, colours: (RGB, RGB), ragged: Bool) {
        var rng = SplitMix64(seed: lineSeed)
        let margin = width > 64 ? 16 : 2
        let end = width - margin - (ragged && width > 8 ? Int(rng.next() % UInt64(max(1, width / 4))) : 0)
        var x = margin
        while x + 6 <= end {
            let letters = 1 + Int(rng.next() % 8)
            let colour = pack(rng.next() % 7 == 0 ? colours.1 : colours.0)
            for _ in 0..<letters where x + 6 <= end {
                // Sparse random dots; a stem on the left most of the time keeps the shapes letter-like.
                let stem: UInt64 = rng.next() % 3 != 0 ? 0o1111_1111_1111 : 0
                let bits: UInt64 = (rng.next() & rng.next() & 0xF_FFFF_FFFF) | stem
                for gy in 0..<12 {
                    let row = (top + gy) * width
                    for gx in 0..<3 where (bits >> UInt64(gy * 3 + gx)) & 1 == 1 {
                        px[row + x + gx * 2] = colour
                        px[row + x + gx * 2 + 1] = colour
                    }
                }
                x += 8
            }
            x += 6
        }
    }

    /// A photo-like area inside side margins: a smooth gradient with 4 bits of noise per channel.
    func drawImage(_ px: UnsafeMutablePointer<UInt32>, top: Int, height: Int, imageSeed: UInt64) {
        let margin = width > 96 ? 24 : 0
        let w = max(1, width - 2 * margin)
        let tint = UInt32(truncatingIfNeeded: imageSeed &* 0x9E37_79B9) % 60
        for ly in 0..<height {
            let g0 = UInt32(40 + ly * 170 / max(1, height))
            for x in margin..<(margin + w) where x < width {
                let hx: UInt64 = UInt64(truncatingIfNeeded: x) &* 0x9E37_79B9_7F4A_7C15
                let hy: UInt64 = UInt64(truncatingIfNeeded: ly) &* 0xC2B2_AE3D_27D4_EB4F
                var n: UInt64 = hx ^ hy ^ imageSeed
                n = (n ^ (n >> 29)) &* 0xBF58_476D_1CE4_E5B9
                n ^= n >> 32
                let noise = UInt32(truncatingIfNeeded: n)
                let r: UInt32 = min(255, UInt32(30 + (x - margin) * 180 / w) + tint + (noise & 15))
                let g: UInt32 = min(255, g0 + ((noise >> 4) & 15))
                let band = UInt32((((x - margin) / 8 + ly / 8) & 15) * 8)
                let b: UInt32 = min(255, 60 + band + ((noise >> 8) & 15))
                let value: UInt32 = r | (g << 8) | (b << 16) | 0xFF00_0000
                px[(top + ly) * width + x] = value.littleEndian
            }
        }
    }
}

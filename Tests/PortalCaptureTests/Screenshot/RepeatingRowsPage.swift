import PortalCapture
import PortalTestSupport

/// A page for the repeated-row sweep: list items of `period` rows, every item identical (a separator, rows
/// of dots, blank rows), broken by short unique blocks every `uniqueGap` rows and by blank runs, under an
/// optional sticky header and footer. `ScrollingPage` cannot draw this: its only repeating block is the
/// 17-row rule, and the sweep needs other periods, shorter ones among them.
///
/// Coordinates as in `ScrollingPage`: page = header, body, footer; viewport row `headerHeight + i` shows body
/// row `offset + i`.
struct RepeatingRowsPage: CustomStringConvertible {
    let width = 48
    let viewportHeight: Int
    let headerHeight: Int
    let footerHeight: Int
    let period: Int
    let uniqueGap: ClosedRange<Int>
    let seed: UInt64
    let bodyHeight: Int
    /// The whole page, RGBA.
    let pageRGBA: [UInt8]

    var pageHeight: Int { headerHeight + bodyHeight + footerHeight }
    var bodyViewportHeight: Int { viewportHeight - headerHeight - footerHeight }
    var maximumOffset: Int { bodyHeight - bodyViewportHeight }
    var description: String {
        "period \(period), unique rows every \(uniqueGap.lowerBound)...\(uniqueGap.upperBound), header \(headerHeight), seed \(seed)"
    }

    init(period: Int, uniqueGap: ClosedRange<Int>, bodyHeight: Int = 1500, viewportHeight: Int = 200,
         headerHeight: Int = 0, footerHeight: Int = 0, seed: UInt64) {
        self.viewportHeight = viewportHeight
        self.headerHeight = headerHeight
        self.footerHeight = footerHeight
        self.period = period
        self.uniqueGap = uniqueGap
        self.seed = seed
        self.bodyHeight = bodyHeight
        var rng = SplitMix64(seed: seed)
        let width = self.width
        func dots(_ ink: (UInt8, UInt8, UInt8)) -> [UInt8] {
            var row: [UInt8] = []
            var bits = rng.next()
            for x in 0..<width {
                if x % 32 == 0 { bits = rng.next() }
                row += bits >> UInt64(x % 32) & 1 == 1 ? [ink.0, ink.1, ink.2, 255] : [250, 250, 250, 255]
            }
            return row
        }
        func solid(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> [UInt8] { [r, g, b, 255].repeated(width) }
        let background = solid(250, 250, 250)
        // One list item: a separator, then rows of dots with a blank row every fifth row.
        let item = [solid(210, 210, 210)] + (1..<period).map { $0 % 5 == 2 ? background : dots((40, 40, 40)) }
        var body: [[UInt8]] = []
        var nextUnique = Int(rng.next() % UInt64(uniqueGap.upperBound))
        while body.count < bodyHeight {
            if body.count >= nextUnique {
                body += (0..<(2 + Int(rng.next() % 9))).map { _ in dots((20, 90, 200)) }
                nextUnique = body.count + uniqueGap.lowerBound + Int(rng.next() % UInt64(uniqueGap.count))
            } else if rng.next() % 12 == 0 {
                body += [[UInt8]](repeating: background, count: 8 + Int(rng.next() % 53))
            } else {
                body += item
            }
        }
        let header = (0..<headerHeight).map { solid(30, 60, UInt8(100 + $0)) }
        let footer = (0..<footerHeight).map { solid(60, 30, UInt8(100 + $0)) }
        pageRGBA = Array((header + body.prefix(bodyHeight) + footer).joined())
    }

    /// The RGBA bytes of page row `y`.
    func pageRow(_ y: Int) -> ArraySlice<UInt8> {
        pageRGBA[(y * width * 4)..<((y + 1) * width * 4)]
    }

    /// A frame of the viewport at scroll `offset`, RGBA.
    func frame(offset: Int, sequence: UInt64) -> VideoFrame {
        let stride = width * 4
        let storage = FrameStorage(capacity: stride * viewportHeight)
        pageRGBA.withUnsafeBytes { page in
            for row in 0..<viewportHeight {
                let y = row < headerHeight ? row
                    : row >= viewportHeight - footerHeight ? headerHeight + bodyHeight + row - (viewportHeight - footerHeight)
                    : row + offset
                storage.bytes.advanced(by: row * stride).copyMemory(from: page.baseAddress!.advanced(by: y * stride), byteCount: stride)
            }
        }
        return VideoFrame(format: VideoFormat(pixelFormat: .rgba, width: width, height: viewportHeight), stride: stride,
                          timestamp: 0, sequence: sequence, storage: storage)
    }
}

private extension Array {
    func repeated(_ count: Int) -> [Element] { Array((0..<count).map { _ in self }.joined()) }
}

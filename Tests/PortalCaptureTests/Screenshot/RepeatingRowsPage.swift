import PortalCapture
import PortalTestSupport

/// A page for the repeated-row sweep: list items of `period` rows, every item identical (a separator, rows
/// of dots, blank rows), broken by short unique blocks every `uniqueGap` rows and by blank runs, under an
/// optional sticky header and footer. `ScrollingPage`'s blocks cannot draw this (their only repeating block is
/// the 17-row rule, and the sweep needs other periods, shorter ones among them): the rows are made here and
/// given to a `ScrollingPage`, which makes the frames.
struct RepeatingRowsPage: CustomStringConvertible {
    let period: Int
    let uniqueGap: ClosedRange<Int>
    let seed: UInt64
    /// The page drawn, whose frames and rows the sweep reads.
    let page: ScrollingPage

    var width: Int { page.width }
    var pageHeight: Int { page.pageHeight }
    var maximumOffset: Int { page.maximumOffset }
    var description: String {
        "period \(period), unique rows every \(uniqueGap.lowerBound)...\(uniqueGap.upperBound), header \(page.headerHeight), seed \(seed)"
    }

    init(period: Int, uniqueGap: ClosedRange<Int>, bodyHeight: Int = 1500, viewportHeight: Int = 200,
         headerHeight: Int = 0, footerHeight: Int = 0, seed: UInt64) {
        self.period = period
        self.uniqueGap = uniqueGap
        self.seed = seed
        var rng = SplitMix64(seed: seed)
        let width = 48
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
        // The layout is the sweep's own (sizes above the viewport's): a failure is a bug in the sweep.
        page = try! ScrollingPage(width: width, viewportHeight: viewportHeight, header: header,
                                  body: Array(body.prefix(bodyHeight)), footer: footer)
    }

    /// The RGBA bytes of page row `y`.
    func pageRow(_ y: Int) -> ArraySlice<UInt8> { page.pageRow(y) }

    /// A frame of the viewport at scroll `offset`, RGBA.
    func frame(offset: Int, sequence: UInt64) -> VideoFrame {
        page.frame(offset: offset, pixelFormat: .rgba, sequence: sequence)
    }
}

private extension Array {
    func repeated(_ count: Int) -> [Element] { Array((0..<count).map { _ in self }.joined()) }
}

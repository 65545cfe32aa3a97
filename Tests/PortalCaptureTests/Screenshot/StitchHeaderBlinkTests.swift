import Testing
@testable import PortalCapture
import PortalTestSupport

/// A sticky header that changes now and then (a caret blinking in a search box, a clock) must not spoil the
/// frames after it. Searching between the narrowest bands of the whole capture (tried for lists whose items
/// look alike) put the header's rows in every search after the first blink; a page scrolled in steps of 20
/// rows then came back 2,960 rows tall of 5,400.
@Suite("Scroll stitcher under a sticky header that blinks")
struct StitchHeaderBlinkTests {
    @Test("a caret blinking in the header every 7th frame: steps of 20 rows rebuild the page's height and body")
    func blinkingHeader() throws {
        let page = try ScrollingPage.generated(width: 320, bodyHeight: 5350, viewportHeight: 240,
                                               headerHeight: 30, footerHeight: 20)
        let offsets = ScreenshotTestSupport.offsets(from: 0, to: page.maximumOffset, steps: [20])
        let stitcher = ScrollStitcher()
        var unaligned = 0
        for (i, offset) in offsets.enumerated() {
            let frame = page.frame(offset: offset)
            if i % 7 == 3 {   // a 4-pixel caret on the header's row 12
                for x in 100..<104 {
                    frame.storage.bytes.storeBytes(of: UInt32(0xFF00_0000), toByteOffset: (12 * 320 + x) * 4, as: UInt32.self)
                }
            }
            if case .unaligned = try stitcher.consume(frame) { unaligned += 1 }
        }
        let image = try stitcher.finish()
        #expect(image.height == page.pageHeight, "\(image.height) rows of \(page.pageHeight), \(unaligned) frames left out")
        // Below the header (whose first frame had no caret) the image is the page, row for row.
        let rgba = image.rgba(), rowBytes = page.width * 4
        #expect(ScreenshotTestSupport.difference(image, width: page.width, rows: page.pageHeight) { y in
            y < page.headerHeight ? rgba[(y * rowBytes)..<((y + 1) * rowBytes)] : page.pageRow(y)
        } == nil)
    }

    @Test("a caret blinking on a page that does not move: every frame is unchanged, none unaligned (the idle stop waits on unaligned frames)")
    func blinkingCaretOnAStillPage() throws {
        let page = try ScrollingPage.generated(width: 320, bodyHeight: 2000, viewportHeight: 240)
        let stitcher = ScrollStitcher()
        var steps: [StitchStep] = []
        for i in 0..<8 {
            let frame = page.frame(offset: 300, sequence: UInt64(i))
            if i % 2 == 1 {   // a 2x14-pixel caret in the body, on in every other frame
                for y in 100..<114 {
                    for x in 150..<152 {
                        frame.storage.bytes.storeBytes(of: UInt32(0xFF00_0000), toByteOffset: (y * 320 + x) * 4, as: UInt32.self)
                    }
                }
            }
            steps.append(try stitcher.consume(frame))
        }
        #expect(steps == [.started] + Array(repeating: .unchanged, count: 7), "\(steps)")
        // A real movement is still placed after them.
        #expect(try stitcher.consume(page.frame(offset: 340, sequence: 8)) == .scrolled(rows: 40, ambiguous: false))
    }
}

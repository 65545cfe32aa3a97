import Foundation
import Testing
@testable import PortalCapture
import PortalTestSupport

/// Pages as the test backend makes them (blank runs up to 88 rows between rules, text and images), with a
/// sticky header and footer, scrolled in even steps: the page must come back row for row. A near-miss offset
/// used to win here because blank rows match blank rows under any small offset (a review found 68 rows lost
/// of 5400, and a rule line dropped of 30000).
@Suite("Scroll stitcher on long blank runs with a sticky header and footer")
struct StitchBlankRunTests {
    @Test("even steps over backend-like pages with header and footer rebuild them exactly",
          arguments: [(5400, 10), (5400, 16), (5400, 20), (30000, 60)])
    func evenSteps(pageHeight: Int, step: Int) throws {
        let page = try ScrollingPage.generated(width: 320, bodyHeight: pageHeight - 50, viewportHeight: 240,
                                               headerHeight: 30, footerHeight: 20)
        let offsets = ScreenshotTestSupport.offsets(from: 0, to: page.maximumOffset, steps: [step])
        let result = try ScreenshotTestSupport.stitch(page, offsets: offsets)
        #expect(result.image.height == page.pageHeight, "\(result.image.height) rows of \(page.pageHeight)")
        #expect(ScreenshotTestSupport.difference(result.image, page) == nil)
    }
}

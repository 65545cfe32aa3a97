import Testing
import PortalCapture
import PortalTestSupport

private typealias Support = ScreenshotTestSupport

/// Lists whose items look alike, broken by a few unique rows and blank runs: several offsets fit the rows
/// two frames share, and the true one may get few votes. The sweep scrolls such pages in even and uneven
/// steps, down and up, and counts the runs that come back row for row (docs/screenshots.md gives the figures).
@Suite("Scroll stitcher on rows that repeat")
struct StitchRepeatedRowTests {
    /// What one sweep found.
    struct Tally: CustomStringConvertible {
        var runs = 0, exact = 0
        var losing = 0, lostRows = 0
        var doubling = 0, doubledRows = 0
        /// Runs as tall as the page but with rows out of place.
        var misplaced = 0
        var failures: [String] = []

        var description: String {
            "\(exact) of \(runs) runs exact; \(losing) lose \(lostRows) rows, \(doubling) double \(doubledRows) rows, "
                + "\(misplaced) misplace rows"
        }
    }

    static let periods = [8, 11, 16, 23, 32, 40, 47, 58]
    /// Even steps, and uneven ones from 8 rows to 101 (of 168 to 200 body rows in view).
    static let stepPatterns = [[20], [37], [64], [100], [30, 70, 45], [13, 101, 57, 8, 77]]

    static func pages() -> [RepeatingRowsPage] {
        periods.enumerated().flatMap { i, period in
            [40...160, 150...400].map { gap in
                RepeatingRowsPage(period: period, uniqueGap: gap, headerHeight: i % 2 == 0 ? 20 : 0,
                                  footerHeight: i % 2 == 0 ? 12 : 0, seed: UInt64(period * 1000 + gap.lowerBound))
            }
        }
    }

    static func sweep() throws -> Tally {
        var tally = Tally()
        for page in pages() {
            for steps in stepPatterns {
                for down in [true, false] {
                    let offsets = down ? Support.offsets(from: 0, to: page.maximumOffset, steps: steps)
                        : Support.offsets(from: page.maximumOffset, to: 0, steps: steps)
                    let stitcher = ScrollStitcher()
                    for (i, offset) in offsets.enumerated() {
                        try stitcher.consume(page.frame(offset: offset, sequence: UInt64(i)))
                    }
                    let image = try stitcher.finish()
                    tally.runs += 1
                    let difference = Support.difference(image, width: page.width, rows: page.pageHeight) { page.pageRow($0) }
                    guard let difference else { tally.exact += 1; continue }
                    if image.height < page.pageHeight {
                        tally.losing += 1
                        tally.lostRows += page.pageHeight - image.height
                    } else if image.height > page.pageHeight {
                        tally.doubling += 1
                        tally.doubledRows += image.height - page.pageHeight
                    } else {
                        tally.misplaced += 1
                    }
                    tally.failures.append("\(page), steps \(steps) \(down ? "down" : "up"): \(difference)")
                }
            }
        }
        return tally
    }

    @Test("pages without repeats come back row for row under every step pattern of the sweep",
          arguments: [(1, true), (2, false), (3, true), (4, false)])
    func uniquePages(seed: UInt64, bands: Bool) throws {
        // Blank stretches (a blank block between two rules) stay under 48 rows, fewer than any step shares.
        let page = try ScrollingPage.generated(width: 160, bodyHeight: 1600, viewportHeight: 200,
                                               headerHeight: bands ? 24 : 0, footerHeight: bands ? 18 : 0,
                                               maximumBlankRun: 40, seed: seed)
        for steps in Self.stepPatterns {
            for down in [true, false] {
                let offsets = down ? Support.offsets(from: 0, to: page.maximumOffset, steps: steps)
                    : Support.offsets(from: page.maximumOffset, to: 0, steps: steps)
                let result = try Support.stitch(page, offsets: offsets)
                #expect(Support.difference(result.image, page) == nil, "steps \(steps) \(down ? "down" : "up")")
            }
        }
    }

    @Test("list pages scrolled in even and uneven steps, down and up, come back row for row")
    func repeatedRowSweep() throws {
        let tally = try Self.sweep()
        print("repeated-row sweep: \(tally)")
        for failure in tally.failures { print("  \(failure)") }
        #expect(tally.runs == 192)
        // The aligner's figures today (docs/screenshots.md says why the rest cannot all be exact): 60 of 192
        // runs were exact when only three voted offsets were checked and the smallest fit was taken.
        #expect(tally.exact == 118, "\(tally)")
        #expect((tally.losing, tally.lostRows) == (46, 9845), "\(tally)")
        #expect((tally.doubling, tally.doubledRows) == (27, 5247), "\(tally)")
        #expect(tally.misplaced == 1, "\(tally)")
    }
}

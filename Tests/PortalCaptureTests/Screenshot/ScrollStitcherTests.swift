import Testing
import PortalCapture
@testable import PortalTestSupport

private typealias Support = ScreenshotTestSupport

/// A 160-pixel-wide page, 240-row viewport (24-row header, 18-row footer, so 198 body rows on screen),
/// whose blank runs are at most 64 rows: every overlap of 120+ rows holds some content.
private func standardPage(seed: UInt64 = 7, header: Int = 24, footer: Int = 18) throws -> ScrollingPage {
    try ScrollingPage.generated(width: 160, bodyHeight: 1600, viewportHeight: 240, headerHeight: header,
                                footerHeight: footer, maximumBlankRun: 64, seed: seed)
}

@Suite("Scroll stitcher")
struct ScrollStitcherTests {
    @Test("scrolling down in even steps rebuilds the page pixel for pixel", arguments: PixelFormat.allCases)
    func scrollingDownRebuildsThePage(format: PixelFormat) throws {
        let page = try standardPage()
        let offsets = Support.offsets(from: 0, to: page.maximumOffset, steps: [60])
        let result = try Support.stitch(page, offsets: offsets, format: format)
        #expect(Support.difference(result.image, page) == nil)
        #expect(result.steps.first == .started)
        #expect(result.steps.dropFirst().allSatisfy { if case .scrolled(let rows, false) = $0 { rows > 0 } else { false } })
        #expect(result.image.isOpaque)
    }

    @Test("uneven steps, from one row to most of the view, rebuild the page")
    func unevenStepsRebuildThePage() throws {
        let page = try standardPage(seed: 11)
        let longestBlank = Support.blankRuns(page).first?.count ?? 0
        // Steps leave more shared rows than the longest blank run, so every offset is determinable.
        let largest = page.bodyViewportHeight - longestBlank - 2
        let steps = [1, largest, 7, 33, largest - 20, 2, 90, 3, 64, largest - 5, 17, 45]
        let offsets = Support.offsets(from: 0, to: page.maximumOffset, steps: steps)
        let result = try Support.stitch(page, offsets: offsets, format: .bgra)
        #expect(Support.difference(result.image, page) == nil)
        #expect(result.statistics.ambiguousOffsets == 0)
        #expect(result.statistics.framesScrolled == offsets.count - 1)
    }

    @Test("scrolling up from the bottom prepends content above and rebuilds the page")
    func scrollingUpRebuildsThePage() throws {
        let page = try standardPage(seed: 3)
        let offsets = Support.offsets(from: page.maximumOffset, to: 0, steps: [50, 81, 23, 110])
        let result = try Support.stitch(page, offsets: offsets, format: .rgbx)
        #expect(Support.difference(result.image, page) == nil)
        #expect(result.steps.dropFirst().allSatisfy { if case .scrolled(let rows, _) = $0 { rows < 0 } else { false } })
    }

    @Test("scrolling from the middle down, up past the start and down again gives the page once")
    func mixedDirectionsRebuildThePage() throws {
        let page = try standardPage(seed: 5)
        let middle = page.maximumOffset / 2
        let offsets = Support.offsets(from: middle, to: middle + 300, steps: [70])
            + Support.offsets(from: middle + 260, to: 0, steps: [90, 45]).dropFirst(0)
            + Support.offsets(from: 40, to: page.maximumOffset, steps: [100, 35])
        let result = try Support.stitch(page, offsets: offsets, format: .rgba)
        #expect(Support.difference(result.image, page) == nil)
    }

    @Test("frames without motion are ignored and counted")
    func framesWithoutMotionAreIgnored() throws {
        let page = try standardPage(seed: 9)
        let moving = Support.offsets(from: 0, to: page.maximumOffset, steps: [75])
        var offsets: [Int] = []
        for (i, offset) in moving.enumerated() { offsets += Array(repeating: offset, count: 1 + i % 3) }
        let result = try Support.stitch(page, offsets: offsets)
        #expect(Support.difference(result.image, page) == nil)
        #expect(result.statistics.framesUnchanged == offsets.count - moving.count)
        #expect(result.statistics.framesScrolled == moving.count - 1)
        #expect(result.steps.filter { $0 == .unchanged }.count == offsets.count - moving.count)
    }

    @Test("an animation inside the page does not stop stitching, and the rest of the page is exact")
    func animationIsTolerated() throws {
        let page = try standardPage(seed: 37)
        let animated = (page.headerHeight + 500)..<(page.headerHeight + 524)
        let stitcher = ScrollStitcher()
        var steps: [StitchStep] = []
        for (i, offset) in Support.offsets(from: 0, to: page.maximumOffset, steps: [60]).enumerated() {
            let frame = page.frame(offset: offset, pixelFormat: .bgrx)
            // The animated rows scroll with the page but show something new in every frame.
            for row in page.headerHeight..<(page.viewportHeight - page.footerHeight)
            where animated.contains(page.pageRow(forViewportRow: row, offset: offset)) {
                for b in 0..<(page.width * 4) {
                    frame.storage.bytes.storeBytes(of: UInt8(truncatingIfNeeded: b &* 13 &+ i &* 101 &+ row), toByteOffset: row * frame.stride + b, as: UInt8.self)
                }
            }
            steps.append(try stitcher.consume(frame))
        }
        let image = try stitcher.finish()
        #expect(!steps.contains(.unaligned))
        #expect(Support.difference(image, width: page.width, rows: page.pageHeight) { y in
            animated.contains(y) ? image.withRow(y) { ArraySlice($0) } : page.pageRow(y)
        } == nil)
    }

    @Test("a sticky header and footer are kept once, at the top and the bottom")
    func stickyBandsAppearOnce() throws {
        let page = try standardPage(seed: 21, header: 40, footer: 30)
        let offsets = Support.offsets(from: 0, to: page.maximumOffset, steps: [55, 120])
        let image = try Support.stitch(page, offsets: offsets).image
        let headerBorder = Array(page.pageRow(page.headerHeight - 1))
        let footerBorder = Array(page.pageRow(page.headerHeight + page.bodyHeight))
        let rows = (0..<image.height).map { y in image.withRow(y) { Array($0) } }
        #expect(rows.indices.filter { rows[$0] == headerBorder } == [page.headerHeight - 1])
        #expect(rows.indices.filter { rows[$0] == footerBorder } == [page.headerHeight + page.bodyHeight])
        #expect(image.headerHeight >= page.headerHeight)
        #expect(image.footerHeight >= page.footerHeight)
        #expect(Support.difference(image, page) == nil)
    }

    @Test("a page without fixed bands is stitched whole")
    func pageWithoutBands() throws {
        let page = try standardPage(seed: 13, header: 0, footer: 0)
        let offsets = Support.offsets(from: 0, to: page.maximumOffset, steps: [100, 37])
        #expect(Support.difference(try Support.stitch(page, offsets: offsets).image, page) == nil)
    }

    @Test("a region of interest stitches only the scrolling area of a larger frame")
    func regionOfInterest() throws {
        let page = try standardPage(seed: 17)
        let region = PixelRect(x: 30, y: 20, width: page.width, height: page.viewportHeight)
        let format = VideoFormat(pixelFormat: .bgrx, width: page.width + 50, height: page.viewportHeight + 45)
        let stitcher = ScrollStitcher(options: StitchOptions().region(region))
        for (i, offset) in Support.offsets(from: 0, to: page.maximumOffset, steps: [66]).enumerated() {
            let stride = format.width * 4
            let storage = FrameStorage(capacity: stride * format.height)
            // Chrome around the region changes every frame (a spinner, a clock); it must not matter.
            for b in 0..<(stride * format.height) { storage.bytes.storeBytes(of: UInt8(truncatingIfNeeded: b &* 31 &+ i &* 7), toByteOffset: b, as: UInt8.self) }
            page.render(offset: offset, into: storage.bytes.advanced(by: region.y * stride + region.x * 4), stride: stride,
                        pixelFormat: .bgrx)
            try stitcher.consume(VideoFrame(format: format, stride: stride, timestamp: 0, sequence: UInt64(i), storage: storage))
        }
        #expect(Support.difference(try stitcher.finish(), page) == nil)
    }

    @Test("the producer's crop is the stitched area when no region is given")
    func cropIsTheDefaultRegion() throws {
        let page = try standardPage(seed: 19)
        let crop = PixelRect(x: 0, y: 10, width: page.width, height: page.viewportHeight)
        let format = VideoFormat(pixelFormat: .rgbx, width: page.width, height: page.viewportHeight + 20)
        let stitcher = ScrollStitcher()
        for (i, offset) in Support.offsets(from: 0, to: page.maximumOffset, steps: [80]).enumerated() {
            let storage = FrameStorage(capacity: format.minimumStride * format.height)
            storage.buffer.initializeMemory(as: UInt8.self, repeating: UInt8(i % 256))
            page.render(offset: offset, into: storage.bytes.advanced(by: 10 * format.minimumStride),
                        stride: format.minimumStride, pixelFormat: .rgbx)
            try stitcher.consume(VideoFrame(format: format, stride: format.minimumStride, timestamp: 0,
                                            sequence: UInt64(i), crop: crop, storage: storage))
        }
        #expect(Support.difference(try stitcher.finish(), page) == nil)
    }

    @Test("a frame that jumped past the view is ignored, and stitching resumes when the view comes back")
    func unalignedFramesAreSkipped() throws {
        let page = try standardPage(seed: 23)
        let offsets = [0, 100, 200, 200 + page.bodyViewportHeight + 150, 260, 360] + Support.offsets(from: 420, to: page.maximumOffset, steps: [90])
        let result = try Support.stitch(page, offsets: offsets)
        #expect(result.steps[3] == .unaligned)
        #expect(result.statistics.framesUnaligned == 1)
        #expect(Support.difference(result.image, page) == nil)
    }

    @Test("the stitcher stops at the maximum height and says so")
    func maximumHeightStops() throws {
        let page = try standardPage(seed: 29)
        let limit = page.pageHeight - 400
        let offsets = Support.offsets(from: 0, to: page.maximumOffset, steps: [70])
        let result = try Support.stitch(page, offsets: offsets, options: StitchOptions().maximumHeight(limit))
        let image = result.image
        #expect(image.height <= limit && image.height > limit - 70)
        #expect(result.statistics.reachedMaximumHeight)
        let stop = try #require(result.steps.firstIndex(of: .reachedMaximumHeight))
        #expect(result.steps[stop...].allSatisfy { $0 == .reachedMaximumHeight })
        // What was kept is the page down to the last frame used, then the footer once.
        let bodyRows = image.height - page.headerHeight - page.footerHeight
        let footerStart = page.headerHeight + page.bodyHeight
        #expect(Support.difference(image, width: page.width, rows: image.height) { y in
            y < page.headerHeight + bodyRows ? page.pageRow(y) : page.pageRow(footerStart + y - page.headerHeight - bodyRows)
        } == nil)
    }

    @Test("a maximum height below the first frame's is an error naming both, not 'no frames'")
    func maximumHeightBelowFrame() throws {
        let page = try standardPage(seed: 31)
        let offsets = Support.offsets(from: 0, to: 200, steps: [40])
        let error = #expect(throws: ScreenshotError.self) {
            _ = try Support.stitch(page, offsets: offsets, options: StitchOptions().maximumHeight(page.viewportHeight - 1))
        }
        #expect(error == .invalidOption(name: "maximumHeight", reason: "\(page.viewportHeight - 1) is below the captured height "
                                        + "\(page.viewportHeight); allow at least \(page.viewportHeight)"))
    }

    @Test("finish gives the image and the stitcher starts afresh")
    func finishResets() throws {
        let page = try standardPage(seed: 31)
        let stitcher = ScrollStitcher()
        try stitcher.consume(page.frame(offset: 0))
        try stitcher.consume(page.frame(offset: 50))
        #expect(try stitcher.finish().height == page.viewportHeight + 50)
        #expect(stitcher.height == 0)
        #expect(try stitcher.consume(page.frame(offset: 100)) == .started)
        #expect(stitcher.height == page.viewportHeight)
    }
}

@Suite("Scroll stitcher: blank overlaps and bad input")
struct ScrollStitcherRuleTests {
    /// 100 rows of text, a blank run of 308 rows (counting the text lines' own blank rows), 200 rows of
    /// text; the viewport shows 200 body rows.
    private func pageWithLongBlank() throws -> ScrollingPage {
        try ScrollingPage(width: 120, viewportHeight: 200, blocks: [.text(lines: 5), .blank(height: 300), .text(lines: 10)], seed: 4)
    }

    @Test("when the shared rows are all blank, the smallest movement that fits is taken")
    func smallestMovementForBlankOverlaps() throws {
        let page = try pageWithLongBlank()
        let stitcher = ScrollStitcher()
        try stitcher.consume(page.frame(offset: 0))
        // Offset 150 shows only blank rows; the previous frame's blank rows start at row 96, so the
        // smallest movement under which every shared row matches is 96.
        #expect(try stitcher.consume(page.frame(offset: 150)) == .scrolled(rows: 96, ambiguous: true))
        // Offset 300: blank rows 0..<104, text below; shared with an all-blank frame, the smallest fit is 96.
        #expect(try stitcher.consume(page.frame(offset: 300)) == .scrolled(rows: 96, ambiguous: true))
        // Text is shared again: exact.
        #expect(try stitcher.consume(page.frame(offset: 400)) == .scrolled(rows: 100, ambiguous: false))
    }

    @Test("a blank run no frame shows whole comes out as long as the longest stretch one frame showed, content intact")
    func unmeasurableBlankRunIsShortened() throws {
        let page = try pageWithLongBlank()
        let run = try #require(Support.blankRuns(page).first)
        #expect(run.count > page.bodyViewportHeight)
        let result = try Support.stitch(page, offsets: Support.offsets(from: 0, to: page.maximumOffset, steps: [50, 150]))
        let image = result.image
        let shown = image.height - (page.pageHeight - run.count)
        #expect(shown == page.bodyViewportHeight)
        #expect(result.statistics.ambiguousOffsets > 0)
        // Everything above the run and below it is there exactly once; the run in between is blank.
        let blankRow = Array(page.pageRow(run.lowerBound))
        #expect(Support.difference(image, width: page.width, rows: image.height) { y in
            y < run.lowerBound ? page.pageRow(y)
                : y < run.lowerBound + shown ? blankRow[...]
                : page.pageRow(y - shown + run.count)
        } == nil)
    }

    @Test("a blank run shorter than the shared rows is kept at its true length")
    func measurableBlankRunIsExact() throws {
        let page = try ScrollingPage(width: 120, viewportHeight: 200,
                                     blocks: [.text(lines: 5), .blank(height: 120), .image(height: 60), .text(lines: 6)], seed: 8)
        let result = try Support.stitch(page, offsets: Support.offsets(from: 0, to: page.maximumOffset, steps: [40]))
        #expect(Support.difference(result.image, page) == nil)
        #expect(result.statistics.ambiguousOffsets == 0)
    }

    @Test("a region outside the frame is refused with a clear error")
    func regionOutsideFrame() throws {
        let page = try standardPage()
        let stitcher = ScrollStitcher(options: StitchOptions().region(PixelRect(x: 100, y: 0, width: 100, height: 50)))
        #expect(throws: ScreenshotError.regionOutsideFrame(region: PixelRect(x: 100, y: 0, width: 100, height: 50),
                                                           frameWidth: 160, frameHeight: 240)) {
            try stitcher.consume(page.frame(offset: 0))
        }
    }

    @Test("a region too small to stitch is refused")
    func regionTooSmall() throws {
        let page = try standardPage()
        let stitcher = ScrollStitcher(options: StitchOptions().region(PixelRect(x: 0, y: 0, width: 10, height: 3)))
        #expect(throws: ScreenshotError.regionTooSmall(width: 10, height: 3, minimumHeight: ScrollStitcher.minimumAreaHeight)) {
            try stitcher.consume(page.frame(offset: 0))
        }
    }

    @Test("a frame of another size mid-capture is refused")
    func frameSizeChange() throws {
        let page = try standardPage()
        let other = try ScrollingPage.generated(width: 100, bodyHeight: 800, viewportHeight: 240)
        let stitcher = ScrollStitcher()
        try stitcher.consume(page.frame(offset: 0))
        #expect(throws: ScreenshotError.frameSizeChanged(fromWidth: 160, fromHeight: 240, toWidth: 100, toHeight: 240)) {
            try stitcher.consume(other.frame(offset: 0))
        }
    }

    @Test("a later frame the region no longer fits (the window shrank) is a size change, and what was stitched stays")
    func regionNoLongerFits() throws {
        let page = try standardPage()
        let smaller = try ScrollingPage.generated(width: 160, bodyHeight: 800, viewportHeight: 60)
        let stitcher = ScrollStitcher(options: StitchOptions().region(PixelRect(x: 0, y: 0, width: 160, height: 100)))
        try stitcher.consume(page.frame(offset: 0))
        try stitcher.consume(page.frame(offset: 40))
        #expect(throws: ScreenshotError.frameSizeChanged(fromWidth: 160, fromHeight: 100, toWidth: 160, toHeight: 60)) {
            try stitcher.consume(smaller.frame(offset: 0))
        }
        #expect(try stitcher.finish().height == 140)
    }

    @Test("finishing before any frame gives noFrames")
    func finishWithoutFrames() {
        #expect(throws: ScreenshotError.noFrames) { try ScrollStitcher().finish() }
    }

    @Test("errors say what happened and what to do")
    func errorsExplain() {
        #expect(ScreenshotError.noFrames.description.contains("scrolls"))
        #expect(ScreenshotError.fileWriteFailed(path: "/x/y.png", operation: "mkstemp", errno: 2).description.contains("create the directory"))
    }
}

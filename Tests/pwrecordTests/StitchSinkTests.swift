import Testing
import PortalCapture
import PortalTestSupport
@testable import pwrecord

/// What `pwrecord screenshot --long` learns from its stitcher while the user scrolls: whether the content got
/// away from the image (said as it happens, so the user can go back), and which frames were placed by a guess.
@Suite("The long screenshot's sink tells when the content got away and when a frame was guessed")
struct StitchSinkTests {
    /// 400 rows of text, 300 blank rows, 400 rows of text, in a 240-row view.
    static func page() throws -> ScrollingPage {
        try ScrollingPage(width: 96, viewportHeight: 240, blocks: [.text(lines: 20), .blank(height: 300), .text(lines: 20)])
    }

    static func feed(_ sink: StitchSink, _ page: ScrollingPage, offsets: [Int]) throws {
        for (i, offset) in offsets.enumerated() {
            try sink.consume(.video(page.frame(offset: offset, sequence: UInt64(i))))
        }
    }

    @Test("a frame that scrolled past the view is lost until the content is back within reach, then joined again")
    func lostUntilBack() throws {
        let page = try Self.page()
        let sink = StitchSink(options: StitchOptions())
        try Self.feed(sink, page, offsets: [0, 100])
        #expect(!sink.isLost)
        try Self.feed(sink, page, offsets: [400, 420])      // 300 rows on: nothing shared with the frame at 100
        #expect(sink.isLost)
        #expect(sink.lostFrames == 2)
        #expect(sink.unalignedFrames == 2)
        try Self.feed(sink, page, offsets: [150])           // back: 190 rows shared with the frame at 100
        #expect(!sink.isLost)
        #expect(sink.lostFrames == 0)
        #expect(sink.unalignedFrames == 2)
        #expect(sink.ambiguousFrames == 0)
    }

    @Test("the content back where the last frame placed was is joined again, unmoved")
    func backUnmoved() throws {
        let page = try Self.page()
        let sink = StitchSink(options: StitchOptions())
        try Self.feed(sink, page, offsets: [0, 100, 400])
        #expect(sink.isLost)
        try Self.feed(sink, page, offsets: [100])
        #expect(!sink.isLost)
    }

    @Test("frames that shared only blank rows with the one before are counted as guessed")
    func blankOverlapIsCounted() throws {
        let page = try Self.page()
        let sink = StitchSink(options: StitchOptions())
        try Self.feed(sink, page, offsets: [0, 60, 120])   // text shared: placed for sure
        #expect(sink.ambiguousFrames == 0)
        try Self.feed(sink, page, offsets: [200, 280, 380])
        let before = sink.ambiguousFrames
        // 380 -> 480 shares body rows 480..<620, all blank.
        try Self.feed(sink, page, offsets: [480])
        #expect(sink.ambiguousFrames == before + 1)
        #expect(sink.unalignedFrames == 0)
    }
}

import Foundation
import Testing
import PortalCapture
import PortalTestSupport

/// A page with a blank stretch above its content: the rows equal in place at the top of two frames look like
/// a fixed header, and only the blank-overlap rule places the second frame (no row of it is in the first).
/// The rule widens its search over those blank rows, which are content; the stitcher must then copy them as
/// content too, or the rows between the two frames' content are never written (they came out black).
@Suite("Scroll stitcher across a blank stretch that looked like a header")
struct StitchBlankBandTests {
    static let width = 8, view = 200

    /// Page row `y`: white, except the content rows, whose pixels differ along the row (not blank).
    static func pageRow(_ y: Int, content: [Range<Int>]) -> [UInt8] {
        var row = [UInt8]()
        for x in 0..<width {
            if content.contains(where: { $0.contains(y) }) {
                row += [UInt8(truncatingIfNeeded: y), UInt8(truncatingIfNeeded: y >> 8 &+ x &* 29), UInt8(x &* 16), 255]
            } else {
                row += [255, 255, 255, 255]
            }
        }
        return row
    }

    /// The BGRx frame showing page rows `offset ..< offset + view`.
    static func frame(at offset: Int, content: [Range<Int>], sequence: UInt64) -> VideoFrame {
        let format = VideoFormat(pixelFormat: .bgrx, width: width, height: view, frameRate: FrameRate(30, 1))
        let storage = FrameStorage(capacity: width * 4 * view)
        for y in 0..<view {
            let rgba = pageRow(offset + y, content: content)
            for x in 0..<width {
                let p = storage.bytes.advanced(by: (y * width + x) * 4).assumingMemoryBound(to: UInt8.self)
                p[0] = rgba[x * 4 + 2]; p[1] = rgba[x * 4 + 1]; p[2] = rgba[x * 4]; p[3] = 0x5A
            }
        }
        return VideoFrame(format: format, stride: width * 4, timestamp: sequence * 33_333_333, sequence: sequence, storage: storage)
    }

    @Test("scrolling down 150 rows past a blank stretch: every row of the page is written, the blank ones white",
          arguments: [150, 120])
    func everyRowWritten(step: Int) throws {
        // Rows 0..<100 white in both frames; the first frame's content at 100..<150; the second frame's only
        // content at its bottom rows.
        let content = [100..<150, (step + 180)..<(step + 200)]
        let stitcher = ScrollStitcher()
        #expect(try stitcher.consume(Self.frame(at: 0, content: content, sequence: 0)) == .started)
        let moved = try stitcher.consume(Self.frame(at: step, content: content, sequence: 1))
        // 150: nothing of the second frame is in the first (the blank-overlap rule); 120: the first frame's
        // content is in both (voted), the control.
        guard case .scrolled(let rows, let ambiguous) = moved, rows == step else {
            Issue.record("\(moved)")
            return
        }
        #expect(ambiguous == (step == 150))
        let image = try stitcher.finish()
        let difference = ScreenshotTestSupport.difference(image, width: Self.width, rows: step + Self.view) {
            ArraySlice(Self.pageRow($0, content: content))
        }
        #expect(difference == nil, "\(difference ?? "")")
    }
}

import Foundation
import PortalTestSupport

/// `pwrecord-bench frames`: raw BGRx frames on standard output, for the ffmpeg CLI peers of the
/// recording-memory benchmark (`ffmpeg -f rawvideo -pix_fmt bgr0 ... -i -`).
///
/// `--content pattern` (the default): `TestPattern`, the same pictures our recording gets from the producer.
/// `--content screen`: a desktop-like picture, a `ScrollingPage` (text, photo-like images, rules, a fixed
/// header and footer) that scrolls for 1 s (900 rows, eased) and then stays still for 3 s, over and over:
/// `--content scrolling`: the same page scrolling all the time, 300 rows a second. The screen contents are
/// what the x264 settings are compared on (bench/recording-memory/x264-settings).
///
/// Frames are paced in real time like a live source (frame `i` is written at `start + i / fps`) unless
/// `--unpaced`. Frames the reader could not take in time are written late, not skipped; how late is
/// reported on standard error at the end.
struct FramesCommand {
    static let usage = "frames [--width 1920] [--height 1080] [--fps 30] [--content pattern|screen|scrolling] [--unpaced] --seconds S"

    enum Content: String {
        case pattern, screen, scrolling
    }

    let format: VideoFormat
    let seconds: Int
    let content: Content
    let paced: Bool

    init(_ arguments: [String]) throws(BenchError) {
        let a = try BenchArguments(arguments, valued: ["width", "height", "fps", "seconds", "content"], flags: ["unpaced"])
        format = VideoFormat(pixelFormat: .bgrx,
                             width: try a.int("width", default: 1920, in: 16...8192),
                             height: try a.int("height", default: 1080, in: 16...8192),
                             frameRate: FrameRate(try a.int("fps", default: 30, in: 1...240)))
        seconds = try a.int("seconds", default: 0, in: 1...86_400)
        guard let c = Content(rawValue: a.string("content") ?? "pattern") else {
            throw .usage("--content \(a.string("content") ?? "") (use pattern, screen or scrolling)")
        }
        content = c
        paced = !a.flag("unpaced")
    }

    func run() throws(BenchError) {
        signal(SIGPIPE, SIG_IGN)
        let fps = format.frameRate.numerator / max(format.frameRate.denominator, 1)
        let stride = format.minimumStride, bytes = stride * format.height
        let storage = FrameStorage(capacity: bytes)
        let page: ScrollingPage?
        do {
            page = content != .pattern
                ? try ScrollingPage.generated(width: format.width, bodyHeight: format.height * 8, viewportHeight: format.height,
                                              headerHeight: format.height / 16, footerHeight: format.height / 22)
                : nil
        } catch {
            throw .failed("cannot make the page: \(error)")
        }
        let start = ProcessMeasures.monotonicSeconds()
        var late = 0, maxLate = 0.0
        var shownOffset: Int?
        for i in 0..<(fps * seconds) {
            let due = start + Double(i) / Double(fps)
            let now = ProcessMeasures.monotonicSeconds()
            if !paced {
            } else if now < due {
                usleep(UInt32((due - now) * 1e6))
            } else if now - due > 1.0 / Double(fps) {
                late += 1
                maxLate = max(maxLate, now - due)
            }
            if let page {
                let t = Double(i) / Double(fps)
                let offset = content == .screen ? Self.scrollOffset(at: t, maximum: page.maximumOffset)
                    : Self.bounce(t * 300, maximum: page.maximumOffset)
                if offset != shownOffset {
                    page.render(offset: offset, into: storage.bytes, stride: stride, pixelFormat: .bgrx)
                    shownOffset = offset
                }
            } else {
                TestPattern.render(into: storage.bytes, stride: stride, format: format, frameNumber: UInt32(i))
            }
            var offset = 0
            while offset < bytes {
                let n = write(STDOUT_FILENO, storage.bytes.advanced(by: offset), bytes - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw .failed("writing frame \(i) to standard output: \(String(cString: strerror(errno)))") }
                offset += n
            }
        }
        if paced {
            FileHandle.standardError.write(Data(String(
                format: "pwrecord-bench frames: %d frames, %d written more than one frame late (at most %.2f s)\n",
                fps * seconds, late, maxLate).utf8))
        }
    }

    /// The screen content's scroll offset at `t` seconds: 4 s cycles of 1 s eased scrolling by 900 rows and
    /// 3 s still, going down the page and back up (so a long run never runs off the page).
    static func scrollOffset(at t: Double, maximum: Int) -> Int {
        let cycle = Int(t / 4), phase = min(1, (t - Double(cycle) * 4))
        let eased = (1 - cos(phase * .pi)) / 2
        return bounce((Double(cycle) + eased) * 900, maximum: maximum)
    }

    /// `position` rows down a page of `maximum` offsets, going down and back up.
    static func bounce(_ position: Double, maximum: Int) -> Int {
        let travel = Double(max(1, maximum))
        let bounced = position.truncatingRemainder(dividingBy: 2 * travel)
        return Int(bounced <= travel ? bounced : 2 * travel - bounced)
    }
}

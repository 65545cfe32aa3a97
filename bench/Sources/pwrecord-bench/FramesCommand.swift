import Foundation
import PortalTestSupport

/// `pwrecord-bench frames`: raw BGRx `TestPattern` frames on standard output, paced in real time like a
/// live source (frame `i` is written at `start + i / fps`), for the ffmpeg CLI peer of the recording-memory
/// benchmark (`ffmpeg -f rawvideo -pix_fmt bgr0 ... -i -`). The same pictures our recording gets from the
/// producer. Frames the reader could not take in time are written late, not skipped; how late is reported
/// on standard error at the end.
struct FramesCommand {
    static let usage = "frames [--width 1920] [--height 1080] [--fps 30] --seconds S"

    let format: VideoFormat
    let seconds: Int

    init(_ arguments: [String]) throws(BenchError) {
        let a = try BenchArguments(arguments, valued: ["width", "height", "fps", "seconds"])
        format = VideoFormat(pixelFormat: .bgrx,
                             width: try a.int("width", default: 1920, in: 16...8192),
                             height: try a.int("height", default: 1080, in: 16...8192),
                             frameRate: FrameRate(try a.int("fps", default: 30, in: 1...240)))
        seconds = try a.int("seconds", default: 0, in: 1...86_400)
    }

    func run() throws(BenchError) {
        signal(SIGPIPE, SIG_IGN)
        let fps = format.frameRate.numerator / max(format.frameRate.denominator, 1)
        let stride = format.minimumStride, bytes = stride * format.height
        let storage = FrameStorage(capacity: bytes)
        let start = ProcessMeasures.monotonicSeconds()
        var late = 0, maxLate = 0.0
        for i in 0..<(fps * seconds) {
            let due = start + Double(i) / Double(fps)
            let now = ProcessMeasures.monotonicSeconds()
            if now < due {
                usleep(UInt32((due - now) * 1e6))
            } else if now - due > 1.0 / Double(fps) {
                late += 1
                maxLate = max(maxLate, now - due)
            }
            TestPattern.render(into: storage.bytes, stride: stride, format: format, frameNumber: UInt32(i))
            var offset = 0
            while offset < bytes {
                let n = write(STDOUT_FILENO, storage.bytes.advanced(by: offset), bytes - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw .failed("writing frame \(i) to standard output: \(String(cString: strerror(errno)))") }
                offset += n
            }
        }
        FileHandle.standardError.write(Data(String(
            format: "pwrecord-bench frames: %d frames, %d written more than one frame late (at most %.2f s)\n",
            fps * seconds, late, maxLate).utf8))
    }
}

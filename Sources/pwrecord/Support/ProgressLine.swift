import Foundation
import PortalCapture

/// The live status line while recording, on a terminal only: elapsed, fps, drops, size. Redrawn in place on
/// stderr; nothing is printed when stderr is not a tty.
final class ProgressLine: @unchecked Sendable {
    private let console: Console
    private let enabled = isatty(STDERR_FILENO) == 1
    private var last: RecordingProgress?
    private let lock = NSLock()

    init(console: Console) { self.console = console }

    func show(_ p: RecordingProgress) {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        let fps = last.map { prev in
            p.elapsed > prev.elapsed ? Double(p.frames - prev.frames) / (p.elapsed - prev.elapsed) : 0
        } ?? 0
        last = p
        let minutes = Int(p.elapsed) / 60, seconds = Int(p.elapsed) % 60
        let line = String(format: "\r\u{1B}[K● REC %02d:%02d  %4.1f fps  %d dropped  %@", minutes, seconds, fps, p.droppedFrames,
                          ByteCount.format(p.bytes))
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        guard enabled, last != nil else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}

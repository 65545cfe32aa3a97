import Foundation
import PortalCapture

/// The live status line while recording, on a terminal only: elapsed, fps, drops, size. Redrawn in place on
/// stderr; nothing is printed when stderr is not a tty. Notes printed while it is drawn (`paused`) clear it
/// first and draw it again below, so they never run into it.
final class ProgressLine: @unchecked Sendable {
    private let console: Console
    private let enabled: Bool
    // Invariant: the fields below are only touched under `lock`.
    private var last: RecordingProgress?
    private var drawn: String?
    private var paused = false
    private let lock = NSLock()

    init(console: Console, enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.console = console
        self.enabled = enabled
    }

    func show(_ p: RecordingProgress) {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        let fps: Double
        if let prev = last {
            fps = p.elapsed > prev.elapsed ? Double(p.frames - prev.frames) / (p.elapsed - prev.elapsed) : 0
        } else {
            fps = p.elapsed > 0 ? Double(p.frames) / p.elapsed : 0
        }
        last = p
        let minutes = Int(p.elapsed) / 60, seconds = Int(p.elapsed) % 60
        let line = String(format: "%@ %02d:%02d  %4.1f fps  %d dropped  %@", paused ? "❚❚ PAUSED" : "● REC", minutes, seconds,
                          fps, p.droppedFrames, ByteCount.format(p.bytes))
        drawn = line
        write("\r\u{1B}[K" + line)
    }

    /// A `pwrecord: message` line on stderr, on its own line even while the progress line is drawn.
    func note(_ message: String) {
        lock.lock(); defer { lock.unlock() }
        guard enabled, let drawn else {
            console.note(message)
            return
        }
        write("\r\u{1B}[Kpwrecord: \(message)\n" + drawn)
    }

    /// Marks the line paused (shown from the next report on) or recording again.
    func setPaused(_ value: Bool) {
        lock.lock(); defer { lock.unlock() }
        paused = value
    }

    /// Ends the drawn line, so what follows starts on a line of its own.
    func finish() {
        lock.lock(); defer { lock.unlock() }
        guard enabled, drawn != nil else { return }
        write("\n")
        drawn = nil
    }

    private func write(_ text: String) {
        StandardStream.error.write(text)
    }
}

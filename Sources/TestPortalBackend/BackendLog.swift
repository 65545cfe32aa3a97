import Glibc
import PortalCapture

/// One line per event on stderr (the desktop keeps it in `logs/backend.log`), stamped with CLOCK_MONOTONIC
/// seconds so it lines up with other logs.
enum BackendLog {
    static func write(_ text: String) {
        let ms = monotonicNanoseconds() / 1_000_000
        let fraction = String(ms % 1000)
        let stamp = "\(ms / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
        toStandardError("pwrecord-test-portal [\(stamp)] \(text)\n")
    }

    /// One `write(2)` per line, so lines from several threads do not interleave.
    static func toStandardError(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { _ = Glibc.write(2, $0.baseAddress, $0.count) }
    }
}

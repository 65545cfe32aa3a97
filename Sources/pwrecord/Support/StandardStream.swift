#if canImport(Glibc)
import Glibc
#endif

/// Standard output or standard error, written with `write(2)` and never a reason to stop: a reader that went
/// away (`pwrecord record | head -n1`, a closed terminal, `2>/dev/full`) loses the text, not the recording.
/// (Foundation's `FileHandle.write(_:)` traps on any write error; SIGPIPE is ignored, see main.swift, so a
/// closed pipe is EPIPE here.)
enum StandardStream {
    case output
    case error

    private var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }

    /// Writes all of `text`, retrying after a signal or a short write; gives up quietly on any other error.
    func write(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 { offset += n; continue }
                if n < 0 && errno == EINTR { continue }
                return
            }
        }
    }
}

import Glibc
import Synchronization

/// Where screenshots go: a private directory (mode 0700, `mkdtemp`) made on first use in
/// `$PWRECORD_DESKTOP_DIR` (so `scripts/test-desktop stop` removes it), else in `$TMPDIR` or `/tmp`; each
/// file is created new (`O_EXCL`) with mode 0600.
final class ScreenshotFiles: Sendable {
    private let base: String
    private let insideDesktop: Bool
    private let directory = Mutex<String?>(nil)

    init(environment: [String: String]) {
        if let desktop = environment["PWRECORD_DESKTOP_DIR"], !desktop.isEmpty {
            base = desktop
            insideDesktop = true
        } else {
            base = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            insideDesktop = false
        }
    }

    /// Writes `bytes` to `screenshot-<number>.png` in the private directory; returns its absolute path.
    func write(_ bytes: [UInt8], number: UInt32) throws(BackendError) -> String {
        let dir = try privateDirectory()
        let path = "\(dir)/screenshot-\(number).png"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .screenshotFailed(path: path, errno: errno) }
        defer { close(fd) }
        _ = fchmod(fd, 0o600)   // exactly 0600 whatever the umask
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                let err = errno
                unlink(path)
                throw .screenshotFailed(path: path, errno: err)
            }
            written += n
        }
        return path
    }

    private func privateDirectory() throws(BackendError) -> String {
        let result: Result<String, BackendError> = directory.withLock { dir in
            if let dir { return .success(dir) }
            var template = Array("\(base)/pwrecord-test-portal.XXXXXX".utf8CString)
            guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
                return .failure(.screenshotFailed(path: "\(base)/pwrecord-test-portal.XXXXXX", errno: errno))
            }
            let path = String(cString: made)
            dir = path
            return .success(path)
        }
        return try result.get()
    }

    /// At exit: removes the directory and its screenshots, unless it lies in the desktop's state dir (which
    /// `stop` removes, or keeps with the logs for debugging).
    func removeIfPrivate() {
        guard !insideDesktop, let dir = directory.withLock({ $0 }) else { return }
        if let stream = opendir(dir) {
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name != "." && name != ".." { unlink("\(dir)/\(name)") }
            }
            closedir(stream)
        }
        rmdir(dir)
    }
}

import Foundation

/// Copies a file with plain read/write so that a full disk is told apart from other failures (`ENOSPC`,
/// `EDQUOT` become `insufficientStorage`). The target is a descriptor the caller created (see `PrivateFile`)
/// and closes; it is fsynced.
enum FileCopy {
    static func copy(from source: String, into output: Int32, displayPath: String) throws(RecordingError) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .filePermissions(path: source, reason: String(cString: strerror(errno))) }
        defer { close(input) }
        var failure: RecordingError?
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        copying: while true {
            let n = read(input, buffer, chunk)
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                failure = .failed(reason: "reading \(source): \(String(cString: strerror(errno)))")
                break
            }
            var done = 0
            while done < n {
                let w = write(output, buffer + done, n - done)
                if w < 0 {
                    if errno == EINTR { continue }
                    failure = errno == ENOSPC || errno == EDQUOT
                        ? .insufficientStorage(path: displayPath)
                        : .filePermissions(path: displayPath, reason: String(cString: strerror(errno)))
                    break copying
                }
                done += w
            }
        }
        if failure == nil, fsync(output) != 0, errno == ENOSPC || errno == EDQUOT {
            failure = .insufficientStorage(path: displayPath)
        }
        if let failure { throw failure }
    }
}

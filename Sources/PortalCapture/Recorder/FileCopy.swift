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
            do throws(RecordingError) {
                try writeAll(UnsafeRawBufferPointer(start: buffer, count: n), to: output, path: displayPath)
            } catch {
                failure = error
                break copying
            }
        }
        if failure == nil, fsync(output) != 0, errno == ENOSPC || errno == EDQUOT {
            failure = .insufficientStorage(path: displayPath)
        }
        if let failure { throw failure }
    }

    /// What a failed create, write or sync of `path` with errno `e` is: `insufficientStorage` for a full disk
    /// or quota (`ENOSPC`, `EDQUOT`), else `filePermissions` with `strerror`.
    static func storageError(_ e: Int32, path: String) -> RecordingError {
        e == ENOSPC || e == EDQUOT ? .insufficientStorage(path: path) : .filePermissions(path: path, reason: String(cString: strerror(e)))
    }

    /// Writes all of `bytes` to `output` (retrying short writes and EINTR); a full disk is `insufficientStorage`.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to output: Int32, path: String) throws(RecordingError) {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let w = write(output, base + done, bytes.count - done)
            if w < 0 {
                if errno == EINTR { continue }
                throw storageError(errno, path: path)
            }
            done += w
        }
    }

    static func writeAll(_ data: Data, to output: Int32, path: String) throws(RecordingError) {
        var failure: RecordingError?
        data.withUnsafeBytes { raw in
            do throws(RecordingError) { try writeAll(raw, to: output, path: path) } catch { failure = error }
        }
        if let failure { throw failure }
    }
}

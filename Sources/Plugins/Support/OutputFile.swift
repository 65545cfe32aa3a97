import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// A file a sink writes: created with mode 0600 (whatever the umask), written at a tracked position, and
/// optionally keeping an allocation reserve past its end.
///
/// The reserve (`reserve` bytes allocated with `fallocate(FALLOC_FL_KEEP_SIZE)`, so the file size does not
/// change) makes a full disk show up as `isLow` while there is still room to finalize the file: the
/// container's trailer (Matroska cues and sizes, MP4 index) lands in space that is already ours. A writer
/// whose writes come in bursts (a muxer writing a whole cluster at once) reports each burst's size
/// (`noteBurst`): the reserve then also holds the largest burst, so a disk found full at a burst's start
/// still has room for the rest of it and the trailer.
///
/// Non-seekable outputs (pipes, `-` for standard output) are written sequentially; `seek` then throws.
/// Not thread-safe: one owner thread at a time.
final class OutputFile {
    let path: String
    let sink: String
    private(set) var fd: Int32
    let isSeekable: Bool
    /// Whether opening made a new file at `path` (not a file that was there, a device, FIFO or descriptor).
    let created: Bool
    /// The created file's device and inode, to tell it from whatever may take its name later.
    private let identity: (device: UInt, inode: UInt)?
    /// Where the next write goes.
    private(set) var position: Int64 = 0
    /// The largest offset written so far.
    private(set) var size: Int64 = 0
    /// Bytes written in total (including rewrites of headers).
    private(set) var bytesWritten: Int64 = 0
    /// The reserve could not be extended: the device is (nearly) full. Stop writing media and finalize.
    private(set) var isLow = false
    private let reserve: Int64
    /// The most one burst wrote (`noteBurst`); kept in the reserve beside `reserve`.
    private(set) var largestBurst: Int64 = 0
    private var reservedEnd: Int64 = 0
    private var reserving: Bool
    private let ownsDescriptor: Bool

    /// Creates (or truncates) `path` with mode 0600. `-` means standard output. `reserve` of 0 disables the
    /// reserve. See `openPrivately` for what is refused.
    init(path: String, sink: String, reserve: Int64 = 0) throws(SinkError) {
        self.path = path
        self.sink = sink
        self.reserve = reserve
        if path == "-" {
            fd = STDOUT_FILENO
            ownsDescriptor = false
            created = false
        } else {
            (fd, created) = try OutputFile.openPrivately(path)
            ownsDescriptor = true
        }
        isSeekable = lseek(fd, 0, SEEK_CUR) >= 0
        var st = stat()
        identity = created && fstat(fd, &st) == 0 ? (UInt(st.st_dev), UInt(st.st_ino)) : nil
        reserving = reserve > 0 && isSeekable
        if reserving { try ensureReserve(upTo: 0) }
    }

    deinit {
        if fd >= 0 && ownsDescriptor { Glibc.close(fd) }
    }

    /// Writes all of `bytes` at `position` and advances. ENOSPC and EDQUOT give `insufficientStorage`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(SinkError) {
        guard fd >= 0 else { throw .failed(sink: sink, reason: "write after close of \(path)") }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        if reserving { try ensureReserve(upTo: position + Int64(bytes.count)) }
        var done = 0
        while done < bytes.count {
            let n: Int = isSeekable
                ? pwrite(fd, base + done, bytes.count - done, off_t(position + Int64(done)))
                : Glibc.write(fd, base + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                let e = errno
                position += Int64(done)
                size = max(size, position)
                throw OutputFile.writeError(e, path: path, sink: sink)
            }
            done += n
        }
        position += Int64(done)
        size = max(size, position)
        bytesWritten += Int64(done)
    }

    func write(_ bytes: [UInt8]) throws(SinkError) {
        var failure: SinkError?
        bytes.withUnsafeBytes { raw in
            do throws(SinkError) { try write(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Notes that one burst (e.g. one muxer call) wrote `bytes`: the reserve grows to hold the largest.
    func noteBurst(_ bytes: Int64) {
        largestBurst = max(largestBurst, bytes)
    }

    /// Moves the write position (seekable outputs only).
    func seek(to offset: Int64) throws(SinkError) {
        guard isSeekable else { throw .failed(sink: sink, reason: "\(path) is not seekable") }
        guard offset >= 0 else { throw .failed(sink: sink, reason: "seek to a negative offset in \(path)") }
        position = offset
    }

    /// Releases the unused reserve (the file keeps `size` bytes) and closes. Safe to call twice.
    func close() throws(SinkError) {
        guard fd >= 0 else { return }
        defer {
            if ownsDescriptor { Glibc.close(fd) }
            fd = -1
        }
        if reserving || reservedEnd > 0 {
            // With KEEP_SIZE the reserve lies past EOF; truncating to the size frees it.
            _ = ftruncate(fd, off_t(size))
        }
        if ownsDescriptor && fsync(fd) != 0 && errno != EINVAL && errno != EROFS {
            throw OutputFile.writeError(errno, path: path, sink: sink)
        }
    }

    /// Closes, and removes the file if this open created it and `path` still names it: for an output that
    /// never got anything playable. A file that was there before, a descriptor's name (`/dev/stdout`) and
    /// whatever took the name since are left alone.
    func discard() {
        try? close()
        guard let identity else { return }
        var st = stat()
        if lstat(path, &st) == 0, UInt(st.st_dev) == identity.device, UInt(st.st_ino) == identity.inode {
            unlink(path)
        }
    }

    /// Keeps `reserve` bytes and the largest burst allocated past `end`; failing that for lack of space sets `isLow` (the write
    /// itself still goes ahead into what is left of the reserve).
    private func ensureReserve(upTo end: Int64) throws(SinkError) {
        let reserve = self.reserve + largestBurst
        let want = max(end, size) + reserve
        guard want > reservedEnd else { return }
        // Extend in steps of at least a quarter of the reserve, not on every write.
        let length = max(want - reservedEnd, reserve / 4)
        if cav_reserve_space(fd, reservedEnd, length) == 0 {
            reservedEnd += length
            return
        }
        switch errno {
        case ENOSPC, EDQUOT:
            isLow = true
            reserving = false
        default:
            // The filesystem cannot reserve (EOPNOTSUPP on some): go on without; a full disk then shows up as
            // a failing write instead.
            reserving = false
        }
    }

    static func openError(_ e: Int32, path: String) -> SinkError {
        switch e {
        case ENOSPC, EDQUOT: return .insufficientStorage(path: path)
        default: return .filePermissions(path: path, reason: String(cString: strerror(e)))
        }
    }

    static func writeError(_ e: Int32, path: String, sink: String) -> SinkError {
        switch e {
        case ENOSPC, EDQUOT, EFBIG: return .insufficientStorage(path: path)
        case EACCES, EPERM, EROFS: return .filePermissions(path: path, reason: String(cString: strerror(e)))
        default: return .failed(sink: sink, reason: "write to \(path): \(String(cString: strerror(e)))")
        }
    }
}

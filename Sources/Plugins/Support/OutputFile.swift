import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// A file a sink writes: created with mode 0600 (whatever the umask), written at a tracked position, and
/// optionally keeping an allocation reserve past its end.
///
/// The reserve (`reserve` bytes allocated with `fallocate(FALLOC_FL_KEEP_SIZE)`, so the file size does not
/// change) makes a full disk show up as `isLow` while there is still room to finalize the file: the
/// container's trailer (Matroska cues and sizes, MP4 index) lands in space that is already ours.
///
/// Non-seekable outputs (pipes, `-` for standard output) are written sequentially; `seek` then throws.
/// Not thread-safe: one owner thread at a time.
final class OutputFile {
    let path: String
    let sink: String
    private(set) var fd: Int32
    let isSeekable: Bool
    /// Whether the output is a regular file (not a pipe, device or standard output).
    let isRegularFile: Bool
    /// Where the next write goes.
    private(set) var position: Int64 = 0
    /// The largest offset written so far.
    private(set) var size: Int64 = 0
    /// Bytes written in total (including rewrites of headers).
    private(set) var bytesWritten: Int64 = 0
    /// The reserve could not be extended: the device is (nearly) full. Stop writing media and finalize.
    private(set) var isLow = false
    private let reserve: Int64
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
        } else {
            fd = try OutputFile.openPrivately(path)
            ownsDescriptor = true
        }
        isSeekable = lseek(fd, 0, SEEK_CUR) >= 0
        var st = stat()
        isRegularFile = ownsDescriptor && fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
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

    /// Keeps `reserve` bytes allocated past `end`; failing that for lack of space sets `isLow` (the write
    /// itself still goes ahead into what is left of the reserve).
    private func ensureReserve(upTo end: Int64) throws(SinkError) {
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

    /// Opens `path` for writing without letting anyone else choose what is written to, or read it:
    /// - a new file is created 0600 with `O_EXCL` (never through whatever someone planted at the name);
    /// - a symbolic link there is not followed (someone could have planted it, pointing at a file of yours);
    /// - an existing file or FIFO must be your own (else another user would receive the recording); a FIFO
    ///   others may read is refused (`mkfifo -m 600`), and a file others may read is replaced by a new one
    ///   (someone may hold it open), else made 0600 before it is emptied;
    /// - character devices (`/dev/null`, a terminal) are taken as they are;
    /// - a descriptor this process holds is opened as it is: `/proc/self/fd/N` (pwrecord's `-o` partial file),
    ///   `/dev/fd/N`, `/dev/stdout`, `/dev/stderr` (what the shell redirected, `>(cmd)`).
    static func openPrivately(_ path: String) throws(SinkError) -> Int32 {
        if let held = heldDescriptorPath(path) {
            let fd = Glibc.open(held, O_WRONLY | O_TRUNC | O_CLOEXEC)
            guard fd >= 0 else { throw openError(errno, path: path) }
            return fd
        }
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 { return fd }
        guard errno == EEXIST else { throw openError(errno, path: path) }
        return try openExisting(path)
    }

    /// Checks without writing anything that `openPrivately(path)` could write there: `-` and descriptors are
    /// fine; otherwise the folder must exist and be writable, and what is at the name (if anything) must be
    /// a file or FIFO of one's own (a FIFO nobody else may open), or a character device, not a symlink or a
    /// folder. Errors name the path in full. For `preflight`: the checks `open` makes, before consent.
    static func checkDestination(_ path: String, sink: String) throws(SinkError) {
        guard path != "-", heldDescriptorPath(path) == nil else { return }
        let absolute = path.hasPrefix("/") ? path : currentDirectory() + "/" + path
        let folder = absolute.lastIndex(of: "/").map { $0 == absolute.startIndex ? "/" : String(absolute[..<$0]) } ?? "."
        var st = stat()
        guard stat(folder, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw .filePermissions(path: absolute, reason: "the folder \(folder) does not exist")
        }
        guard lstat(absolute, &st) == 0 else {
            guard access(folder, W_OK) == 0 else {
                throw .filePermissions(path: absolute, reason: "the folder \(folder) is not writable")
            }
            return
        }
        switch st.st_mode & S_IFMT {
        case S_IFLNK:
            throw .filePermissions(path: absolute, reason: "it is a symbolic link, and a recording is written only to "
                + "the file itself; give the path it points to (or - for standard output)")
        case S_IFIFO:
            if let reason = fifoProblem(st) { throw .filePermissions(path: absolute, reason: reason) }
        case S_IFREG:
            guard st.st_uid == geteuid() else { throw .filePermissions(path: absolute, reason: foreignReason(st.st_uid)) }
        case S_IFCHR:
            break
        case S_IFDIR:
            throw .filePermissions(path: absolute, reason: "it is a folder; give a file name")
        default:
            throw .filePermissions(path: absolute, reason: "it is neither a file, a FIFO nor a character device")
        }
    }

    private static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "." }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `/proc/self/fd/N` for a path naming a descriptor of this process, or nil.
    static func heldDescriptorPath(_ path: String) -> String? {
        let named = ["/dev/stdout": "1", "/dev/stderr": "2"]
        let number: Substring
        if let n = named[path] {
            number = Substring(n)
        } else if path.hasPrefix("/proc/self/fd/") {
            number = path.dropFirst("/proc/self/fd/".count)
        } else if path.hasPrefix("/dev/fd/") {
            number = path.dropFirst("/dev/fd/".count)
        } else {
            return nil
        }
        guard !number.isEmpty, number.count <= 9, number.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return "/proc/self/fd/" + number
    }

    private static func openExisting(_ path: String) throws(SinkError) -> Int32 {
        let flags = O_WRONLY | O_CLOEXEC | O_NOFOLLOW
        // Non-blocking first: a FIFO without a reader would block the open before it could be checked (ENXIO
        // instead). Checked as a name first, it is then opened to wait for its reader, and checked again.
        var fd = Glibc.open(path, flags | O_NONBLOCK)
        if fd < 0 && errno == ENXIO {
            var st = stat()
            if lstat(path, &st) == 0, let reason = fifoProblem(st) {
                throw .filePermissions(path: path, reason: reason)
            }
            fd = Glibc.open(path, flags)
        } else if fd >= 0 {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        }
        guard fd >= 0 else {
            let e = errno
            if e == ELOOP {
                throw .filePermissions(path: path, reason: "it is a symbolic link, and a recording is written only to "
                    + "the file itself; give the path it points to (or - for standard output)")
            }
            throw openError(e, path: path)
        }
        func refuse(_ reason: String) -> SinkError {
            Glibc.close(fd)
            return .filePermissions(path: path, reason: reason)
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw refuse(String(cString: strerror(errno))) }
        switch st.st_mode & S_IFMT {
        case S_IFIFO:
            if let reason = fifoProblem(st) { throw refuse(reason) }
            return fd
        case S_IFREG:
            guard st.st_uid == geteuid() else { throw refuse(foreignReason(st.st_uid)) }
            if st.st_mode & 0o077 != 0 {
                // Someone may have opened it while others could read it: a new file takes the name instead. In
                // a folder that is not ours to change, the file itself is made private (the best left to do).
                if unlink(path) == 0 {
                    Glibc.close(fd)
                    let fresh = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
                    guard fresh >= 0 else { throw openError(errno, path: path) }
                    return fresh
                }
                guard fchmod(fd, 0o600) == 0 else {
                    throw refuse("cannot make it private (mode 0600): \(String(cString: strerror(errno)))")
                }
            }
            guard ftruncate(fd, 0) == 0 else {
                let e = errno
                Glibc.close(fd)
                throw openError(e, path: path)
            }
            return fd
        case S_IFCHR:
            return fd
        default:
            throw refuse("it is neither a file, a FIFO nor a character device")
        }
    }

    /// Why a FIFO may not carry a recording, or nil: another user's, or one others may open to read.
    private static func fifoProblem(_ st: stat) -> String? {
        guard (st.st_mode & S_IFMT) == S_IFIFO else { return nil }
        if st.st_uid != geteuid() { return foreignReason(st.st_uid) }
        guard st.st_mode & 0o077 == 0 else {
            return "the FIFO may be opened by others (mode \(String(st.st_mode & 0o777, radix: 8))), who could read "
                + "the recording; make it private (`chmod 600` it, or `mkfifo -m 600`)"
        }
        return nil
    }

    private static func foreignReason(_ uid: uid_t) -> String {
        "it belongs to another user (uid \(uid)), who could read the recording; choose a name of your own"
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

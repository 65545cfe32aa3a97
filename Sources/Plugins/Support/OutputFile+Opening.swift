#if canImport(Glibc)
import Glibc
#endif

/// How a sink's output is opened and checked: never through a link someone planted, never into another
/// user's file, FIFO or folder, and private (0600) whatever was there.
extension OutputFile {
    /// Opens `path` for writing without letting anyone else choose what is written to, or read it:
    /// - a new file is created 0600 with `O_EXCL` (never through whatever someone planted at the name);
    /// - a symbolic link there is not followed (someone could have planted it, pointing at a file of yours);
    /// - an existing file or FIFO must be your own (else another user would receive the recording); a FIFO
    ///   others may read is refused (`mkfifo -m 600`), and a file others may read is replaced by a new one
    ///   (someone may hold it open), else made 0600 before it is emptied;
    /// - character devices (`/dev/null`, a terminal) are taken as they are;
    /// - a descriptor this process holds is opened as it is: `/proc/self/fd/N` (pwrecord's `-o` partial file),
    ///   `/dev/fd/N`, `/dev/stdout`, `/dev/stderr` (what the shell redirected, `>(cmd)`).
    ///
    /// `created` says whether the open made a new file at `path` (one that a failed open may remove again).
    static func openPrivately(_ path: String) throws(SinkError) -> (fd: Int32, created: Bool) {
        if let held = heldDescriptorPath(path) {
            let fd = Glibc.open(held, O_WRONLY | O_TRUNC | O_CLOEXEC)
            guard fd >= 0 else { throw openError(errno, path: path) }
            return (fd, false)
        }
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 { return (fd, true) }
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
        if let reason = problem(with: st) { throw .filePermissions(path: absolute, reason: reason) }
    }

    /// Why what `st` describes may not receive a recording, or nil: a symlink, a folder, another user's file
    /// or FIFO, a FIFO others may open, or anything but a file, FIFO or character device. What `openPrivately`
    /// and `checkDestination` both refuse.
    private static func problem(with st: stat) -> String? {
        switch st.st_mode & S_IFMT {
        case S_IFLNK:
            "it is a symbolic link, and a recording is written only to the file itself; give the path it points "
                + "to (or - for standard output)"
        case S_IFIFO:
            fifoProblem(st)
        case S_IFREG:
            st.st_uid == geteuid() ? nil : foreignReason(st.st_uid)
        case S_IFCHR:
            nil
        case S_IFDIR:
            "it is a folder; give a file name"
        default:
            "it is neither a file, a FIFO nor a character device"
        }
    }

    /// The working directory, or "." when it cannot be read.
    static func currentDirectory() -> String {
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

    private static func openExisting(_ path: String) throws(SinkError) -> (fd: Int32, created: Bool) {
        let flags = O_WRONLY | O_CLOEXEC | O_NOFOLLOW
        // Non-blocking first: a FIFO without a reader would block the open before it could be checked (ENXIO
        // instead). Checked as a name first, it is then opened to wait for its reader, and checked again.
        var fd = Glibc.open(path, flags | O_NONBLOCK)
        if fd < 0 && errno == ENXIO {
            var st = stat()
            if lstat(path, &st) == 0, let reason = problem(with: st) {
                throw .filePermissions(path: path, reason: reason)
            }
            fd = Glibc.open(path, flags)
        } else if fd >= 0 {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        }
        guard fd >= 0 else {
            let e = errno
            var st = stat()
            if e == ELOOP, lstat(path, &st) == 0, let reason = problem(with: st) {
                throw .filePermissions(path: path, reason: reason)
            }
            throw openError(e, path: path)
        }
        func refuse(_ reason: String) -> SinkError {
            Glibc.close(fd)
            return .filePermissions(path: path, reason: reason)
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw refuse(String(cString: strerror(errno))) }
        if let reason = problem(with: st) { throw refuse(reason) }
        if (st.st_mode & S_IFMT) == S_IFREG {
            if st.st_mode & 0o077 != 0 {
                // Someone may have opened it while others could read it: a new file takes the name instead. In
                // a folder that is not ours to change, the file itself is made private (the best left to do).
                if unlink(path) == 0 {
                    Glibc.close(fd)
                    let fresh = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
                    guard fresh >= 0 else { throw openError(errno, path: path) }
                    return (fresh, true)
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
        }
        return (fd, false)
    }

    /// Why a FIFO may not carry a recording, or nil: another user's, or one others may open to read.
    private static func fifoProblem(_ st: stat) -> String? {
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
}

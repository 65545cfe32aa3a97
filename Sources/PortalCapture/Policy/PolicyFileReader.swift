import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads policy files the safe way: open first, then check what was opened (`fstat` on the descriptor, so a
/// file swapped between check and read is still the one checked), never block on a FIFO, never read more
/// than 1 MiB.
struct PolicyFileReader {
    /// The owner system files and directories must have; nil for files that need no trust (the user file, a
    /// draft being checked).
    let trustedOwner: UInt32?

    static let maximumSize = 1 << 20

    /// Reads and parses one file. `missingIsFine`: a file that does not exist gives neither a document nor a
    /// problem (the optional `policy.conf`, the user file); otherwise it is unreadable.
    func readFile(_ path: String, in directory: Int32 = AT_FDCWD, name: String? = nil,
                  missingIsFine: Bool) -> (document: PolicyDocument?, problems: [PolicyError]) {
        let fd = openat(directory, name ?? path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let error = errno
            if let dangling = Self.danglingLink(name ?? path, in: directory, path: path, error: error) { return (nil, [dangling]) }
            if missingIsFine && (error == ENOENT || error == ENOTDIR) { return (nil, []) }
            if error == EACCES { return (nil, [.permissionDenied(path: path, isDirectory: false)]) }
            return (nil, [.unreadable(path: path, reason: Self.text(error))])
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return (nil, [.unreadable(path: path, reason: Self.text(errno))]) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return (nil, [.notRegularFile(path: path)]) }
        var problems = linkProblems(path, name: name ?? path, in: directory, info: info) ?? trustProblems(path, info)

        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return (nil, problems + [.unreadable(path: path, reason: Self.text(errno))])
            }
            if count == 0 { break }
            bytes += chunk[..<count]
            if bytes.count > Self.maximumSize {
                return (nil, problems + [.unreadable(path: path, reason: "larger than 1 MiB")])
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return (nil, problems + [.invalidEncoding(path: path)])
        }
        let document = PolicyDocument.parse(text, file: path)
        problems += document.problems
        return (document, problems)
    }

    /// Opens a directory and checks it; `fd` is -1 when it does not exist (`missing`) or cannot be used.
    func openDirectory(_ path: String, in directory: Int32 = AT_FDCWD,
                       name: String? = nil) -> (fd: Int32, missing: Bool, problems: [PolicyError]) {
        let fd = openat(directory, name ?? path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            let error = errno
            if let dangling = Self.danglingLink(name ?? path, in: directory, path: path, error: error) { return (-1, false, [dangling]) }
            if error == ENOENT { return (-1, true, []) }
            if error == ENOTDIR { return (-1, false, [.notDirectory(path: path)]) }
            if error == EACCES { return (-1, false, [.permissionDenied(path: path, isDirectory: true)]) }
            return (-1, false, [.unreadable(path: path, reason: Self.text(error))])
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = errno
            close(fd)
            return (-1, false, [.unreadable(path: path, reason: Self.text(error))])
        }
        return (fd, false, linkProblems(path, name: name ?? path, in: directory, info: info) ?? trustProblems(path, info))
    }

    /// A name that is there but leads nowhere (a symlink to something missing) is not a missing file: the
    /// admin put something there, so it fails closed instead of meaning "no restrictions".
    private static func danglingLink(_ name: String, in directory: Int32, path: String, error: Int32) -> PolicyError? {
        guard error == ENOENT || error == ENOTDIR else { return nil }
        var info = stat()
        guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return nil }
        return .unreadable(path: path, reason: "a symlink to something that does not exist")
    }

    /// The names in an open directory that are policy drop-ins (`*.conf`, not hidden), in byte order.
    func dropInNames(_ fd: Int32, path: String) -> (names: [String], problems: [PolicyError]) {
        let copy = dup(fd)
        guard copy >= 0, let stream = fdopendir(copy) else {
            let error = errno
            if copy >= 0 { close(copy) }
            return ([], [.unreadable(path: path, reason: Self.text(error))])
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        // readdir returns nil both at the end and on an error; only errno tells them apart. An error must fail
        // closed: the drop-ins not listed may be the ones that restrict recording.
        errno = 0
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasSuffix(".conf") && !name.hasPrefix(".") { names.append(name) }
            errno = 0
        }
        if errno != 0 {
            return ([], [.unreadable(path: path, reason: "listing it failed: " + Self.text(errno))])
        }
        names.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        return (names, [])
    }

    /// Owner and permission problems of something opened, when it has to be trusted.
    func trustProblems(_ path: String, _ info: stat) -> [PolicyError] {
        guard let trustedOwner else { return [] }
        var problems: [PolicyError] = []
        if info.st_uid != trustedOwner {
            problems.append(.untrustedOwner(path: path, owner: info.st_uid, expected: trustedOwner))
        }
        if info.st_mode & 0o022 != 0 {
            problems.append(.writableByOthers(path: path, mode: UInt32(info.st_mode)))
        }
        return problems
    }

    static func text(_ error: Int32) -> String { String(cString: strerror(error)) }
}

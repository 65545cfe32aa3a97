#if canImport(Glibc)
import Glibc
#endif

/// A file written in full or not at all: bytes go to a temporary file (mode 0600, `mkstemp`) in the
/// destination's directory, which `commit()` flushes (`fsync`) and renames over the destination. Dropped
/// without `commit()`, the temporary file is removed.
struct AtomicFile: ~Copyable {
    let path: String
    private let temporaryPath: String
    private var descriptor: Int32
    private var committed = false

    init(path: String) throws(ScreenshotError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array("\(directory).\(name).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .fileWriteFailed(path: path, operation: "mkstemp", errno: errno) }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // mkstemp already creates the file 0600; say it explicitly in case a libc does otherwise.
        guard fchmod(fd, 0o600) == 0 else {
            let code = errno
            close(fd)
            unlink(temporary)
            throw .fileWriteFailed(path: path, operation: "fchmod", errno: code)
        }
        self.path = path
        self.temporaryPath = temporary
        self.descriptor = fd
    }

    mutating func write(_ bytes: ArraySlice<UInt8>) throws(ScreenshotError) {
        let fd = descriptor
        let failure: Int32? = bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return n < 0 ? errno : EIO }
                done += n
            }
            return nil
        }
        if let failure { throw .fileWriteFailed(path: path, operation: "write", errno: failure) }
    }

    /// Flushes and puts the file at `path`: replacing what is there (`rename`), or, without `replacing`, only
    /// if nothing is (`link`, `EEXIST` otherwise: a file that appeared meanwhile is left alone; where the file
    /// system has no hard links, a `rename` once the name is seen free).
    consuming func commit(replacing: Bool = true) throws(ScreenshotError) {
        guard fsync(descriptor) == 0 else { throw .fileWriteFailed(path: path, operation: "fsync", errno: errno) }
        let closed = close(descriptor)
        descriptor = -1
        guard closed == 0 else { throw .fileWriteFailed(path: path, operation: "close", errno: errno) }
        if replacing {
            guard rename(temporaryPath, path) == 0 else { throw .fileWriteFailed(path: path, operation: "rename", errno: errno) }
        } else if link(temporaryPath, path) == 0 {
            unlink(temporaryPath)
        } else {
            let code = errno
            // exFAT, vfat and many FUSE file systems have no hard links: renamed while the name is free.
            guard PrivateFile.hasNoHardLinks(code) else { throw .fileWriteFailed(path: path, operation: "link", errno: code) }
            var taken = stat()
            if lstat(path, &taken) == 0 { throw .fileWriteFailed(path: path, operation: "link", errno: EEXIST) }
            guard PrivateFile.renameIfFree(temporaryPath, to: path) else {
                throw .fileWriteFailed(path: path, operation: "rename", errno: errno)
            }
        }
        committed = true
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !committed { unlink(temporaryPath) }
    }
}

/// Bytes written to a file in full or not at all, with mode 0600 (the portal's screenshot PNG, as it came).
public enum ScreenshotFile {
    public static func write(_ bytes: [UInt8], to path: String, replacing: Bool = true) throws(ScreenshotError) {
        var file = try AtomicFile(path: path)
        try file.write(bytes[...])
        try file.commit(replacing: replacing)
    }
}

import Foundation
import Synchronization

/// The descriptor of a recording's file (the `-o` partial file, or the kept recording's pending file), held
/// open while the encoder writes through `/proc/self/fd/N`, and closed once (whichever path ends the recording).
final class HeldDescriptor: Sendable {
    private let fd: Mutex<Int32>
    /// `/proc/self/fd/N`, or nil when nothing is held (or /proc is missing and the name is used).
    let path: String?
    /// The file's own name, shown in errors instead of `path`.
    let shownAs: String?

    init(_ fd: Int32, path: String?, shownAs: String?) {
        self.fd = Mutex(fd)
        self.path = path
        self.shownAs = shownAs
    }

    func close() {
        let fd = fd.withLock { fd -> Int32 in
            defer { fd = -1 }
            return fd
        }
        if fd >= 0 { _ = Glibc.close(fd) }
    }

    /// Where the held file is now (the kernel's name for the descriptor), or nil: a folder on the way may have
    /// been renamed since the file was made (`mv Videos/sub Videos/sub.old`), and the file went with it.
    var currentLocation: String? {
        guard let path, fd.withLock({ $0 }) >= 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let target = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // A deleted file reads "NAME (deleted)"; only a live absolute path is a place to tell the user.
        return target.hasPrefix("/") && !target.hasSuffix(" (deleted)") ? target : nil
    }

    /// `error` with the `/proc/self/fd/N` path a sink reported replaced by the file's name.
    func readable(_ error: RecordingError) -> RecordingError {
        guard let path, let shownAs else { return error }
        func named(_ text: String) -> String { text.replacingOccurrences(of: path, with: shownAs) }
        switch error {
        case .insufficientStorage(let p): return .insufficientStorage(path: named(p))
        case .filePermissions(let p, let reason): return .filePermissions(path: named(p), reason: named(reason))
        case .failed(let reason): return .failed(reason: named(reason))
        case .invalidParameter(let what): return .invalidParameter(named(what))
        case .unsupported(let what): return .unsupported(named(what))
        default: return error
        }
    }

    /// Puts the recording at `destination` by its descriptor (`linkat` of `/proc/self/fd/N`), so the file
    /// placed is the one written even if `partial`'s name was swapped for something else meanwhile; the name
    /// `partial` is removed only while it is still that file. Without a held descriptor, by name
    /// (`PrivateFile.moveIntoPlace`).
    func place(_ partial: URL, at destination: URL, overwrite: Bool) throws(RecordingError) {
        let fd = fd.withLock { $0 }
        guard let path, fd >= 0 else {
            try PrivateFile.moveIntoPlace(partial, at: destination, overwrite: overwrite)
            return
        }
        var written = stat()
        guard fstat(fd, &written) == 0 else { throw PrivateFile.placingError(errno, at: destination) }
        if let reason = PrivateFile.specialFileReason(destination) {
            throw .filePermissions(path: destination.path, reason: reason)
        }
        if overwrite {
            // A fresh name beside the destination, then renamed over it (which replaces a symlink there, never
            // what it points to).
            let dir = destination.deletingLastPathComponent().path
            var placed = false
            for _ in 0..<16 where !placed {
                let tmp = "\(dir)/.\(destination.lastPathComponent).\(UInt32.random(in: 0...UInt32.max))"
                if linkat(AT_FDCWD, path, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0 {
                    guard rename(tmp, destination.path) == 0 else {
                        let err = errno
                        unlink(tmp)
                        throw PrivateFile.placingError(err, at: destination)
                    }
                    placed = true
                } else if PrivateFile.hasNoHardLinks(errno) {
                    // No hard links here (vfat, exfat): the partial file itself is renamed over the
                    // destination, while its name is still this file.
                    let err = errno
                    guard Self.names(partial, written), rename(partial.path, destination.path) == 0 else {
                        throw PrivateFile.placingError(err, at: destination)
                    }
                    return
                } else if errno != EEXIST {
                    throw PrivateFile.placingError(errno, at: destination)
                }
            }
            guard placed else { throw .filePermissions(path: destination.path, reason: "cannot find a free temporary name") }
        } else if linkat(AT_FDCWD, path, AT_FDCWD, destination.path, AT_SYMLINK_FOLLOW) != 0 {
            let err = errno
            // File systems without hard links (vfat, exfat, some FUSE): the partial file is renamed instead,
            // while its name is still this file and the destination is still free.
            if PrivateFile.hasNoHardLinks(err), Self.names(partial, written),
               PrivateFile.renameIfFree(partial.path, to: destination.path) {
                return
            }
            throw PrivateFile.placingError(err, at: destination)
        }
        if Self.names(partial, written) { unlink(partial.path) }
    }

    /// Whether the name `url` is still the file `written` (`fstat` of the held descriptor), not something
    /// swapped in at that name since.
    private static func names(_ url: URL, _ written: stat) -> Bool {
        var named = stat()
        return lstat(url.path, &named) == 0 && named.st_dev == written.st_dev && named.st_ino == written.st_ino
    }

    deinit { close() }
}

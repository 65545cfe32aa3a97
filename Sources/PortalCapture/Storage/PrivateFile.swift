import Foundation

/// Files pwrecord creates in folders other users may write to (an `-o` destination, `last save`): never at a
/// name someone could have prepared. A new file is made by `mkstemps` (`O_CREAT | O_EXCL`, a random name,
/// mode 0600), so a file or symlink planted in advance is never opened; the finished file is put in place
/// with `link` (which refuses an existing destination) or, to replace one, `rename` (which replaces the
/// name itself, never what a symlink there points to).
public enum PrivateFile {
    /// Creates `<name>.partial-XXXXXX.<ext>` beside `destination` and returns its path and open descriptor
    /// (the caller closes it). The name ends in the destination's extension so that a recording interrupted
    /// before it was put in place still opens in a player.
    static func createBeside(_ destination: URL) throws(RecordingError) -> (url: URL, fd: Int32) {
        let dir = destination.deletingLastPathComponent().path
        let ext = destination.pathExtension
        let stem = ext.isEmpty ? destination.lastPathComponent : destination.deletingPathExtension().lastPathComponent
        let suffix = ext.isEmpty ? "" : "." + ext
        var template = Array("\(dir)/\(stem).partial-XXXXXX\(suffix)".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, Int32(suffix.utf8.count)) }
        guard fd >= 0 else { throw FileCopy.storageError(errno, path: destination.path) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        // mkstemps creates the file 0600 already; say it explicitly in case a libc does otherwise.
        _ = fchmod(fd, 0o600)
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (URL(fileURLWithPath: path), fd)
    }

    /// Why an existing destination is refused (without `overwrite`; the wording names the option of both the
    /// framework and the command).
    static let existsReason = "the file exists (to replace it: `overwrite`, or pwrecord's --force)"

    /// The error for a failed placing call (`link`, `linkat`, `rename`) at `destination`.
    static func placingError(_ err: Int32, at destination: URL) -> RecordingError {
        .filePermissions(path: destination.path, reason: err == EEXIST ? existsReason : String(cString: strerror(err)))
    }

    /// Puts the finished `temporary` at `destination` (same folder). Without `overwrite` an existing
    /// destination is an error and stays untouched; `temporary` then stays too.
    static func moveIntoPlace(_ temporary: URL, at destination: URL, overwrite: Bool) throws(RecordingError) {
        if let reason = specialFileReason(destination) { throw .filePermissions(path: destination.path, reason: reason) }
        if overwrite {
            guard rename(temporary.path, destination.path) == 0 else { throw placingError(errno, at: destination) }
            return
        }
        guard link(temporary.path, destination.path) == 0 else {
            let err = errno
            if hasNoHardLinks(err), renameIfFree(temporary.path, to: destination.path) { return }
            throw placingError(err, at: destination)
        }
        unlink(temporary.path)
    }

    /// Whether `err`, from `link`/`linkat`, says the file system has no hard links (vfat, exfat, some FUSE
    /// file systems: EPERM, EOPNOTSUPP, ENOSYS) or no room for another (EMLINK).
    static func hasNoHardLinks(_ err: Int32) -> Bool {
        err == EPERM || err == EOPNOTSUPP || err == ENOSYS || err == EMLINK
    }

    /// Where hard links are missing: renames `from` to `to` while nothing (not even a dangling symlink) has
    /// that name; false when something does or the rename fails. Not atomic like `link` (a name taken between
    /// the check and the rename is replaced), which these file systems leave no way to be.
    static func renameIfFree(_ from: String, to: String) -> Bool {
        var taken = stat()
        guard lstat(to, &taken) != 0, errno == ENOENT else { return false }
        return rename(from, to) == 0
    }

    /// Why `destination` cannot take a new private file, or nil: its folder is missing, not writable or
    /// unsafe (`unsafeFolderReason`), or the name is a folder, or (without `replacing`) is taken, also by a
    /// dangling symlink. `example` is a file name suggested when the destination is a folder.
    public static func destinationProblem(_ destination: URL, replacing: Bool, example: String) -> String? {
        let dir = destination.deletingLastPathComponent().path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            return "the folder \(dir) does not exist"
        }
        guard access(dir, W_OK) == 0 else { return "the folder \(dir) is not writable" }
        if let reason = unsafeFolderReason(dir) { return reason }
        var st = stat()
        guard lstat(destination.path, &st) == 0 else { return nil }   // lstat: a dangling symlink is there too
        if (st.st_mode & S_IFMT) == S_IFDIR {
            return "it is a folder; give a file name, e.g. \(destination.path)/\(example)"
        }
        if let reason = specialFileReason(st, at: destination) { return reason }
        if replacing { return nil }
        if (st.st_mode & S_IFMT) == S_IFLNK {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: destination.path)) ?? "?"
            return "a symbolic link is there (to \(target)); it is never written through: with `overwrite` "
                + "(pwrecord's --force) the link itself is replaced by the file"
        }
        return existsReason
    }

    /// Why `destination` may not be replaced by a new file, or nil: it is a device, FIFO or socket, which a
    /// file put in place (renamed over it) would replace instead of writing into it.
    static func specialFileReason(_ destination: URL) -> String? {
        var st = stat()
        guard lstat(destination.path, &st) == 0 else { return nil }
        return specialFileReason(st, at: destination)
    }

    /// `specialFileReason` for what `lstat` already said of `destination`.
    private static func specialFileReason(_ st: stat, at destination: URL) -> String? {
        let kind: String
        switch st.st_mode & S_IFMT {
        case S_IFCHR, S_IFBLK: kind = "a device"
        case S_IFIFO: kind = "a FIFO"
        case S_IFSOCK: kind = "a socket"
        default: return nil
        }
        return "it is \(kind), not a file: a recording is written as a new file and put in place, which would "
            + "replace it; to write into it, use a sink (pwrecord's --sink encoder:output=\(destination.path))"
    }

    /// Why a folder is no place for a private file, or nil: writable by others without the sticky bit, anyone
    /// could rename the file away (or replace it) while it is written.
    public static func unsafeFolderReason(_ dir: String) -> String? {
        var st = stat()
        guard stat(dir, &st) == 0 else { return nil }
        guard st.st_mode & S_IWOTH != 0, st.st_mode & S_ISVTX == 0 else { return nil }
        return "the folder \(dir) is writable by everyone (mode \(String(st.st_mode & 0o7777, radix: 8))) without "
            + "the sticky bit, so anyone could replace the recording; choose a private folder"
    }
}

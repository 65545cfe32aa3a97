#if canImport(Glibc)
import Glibc
#endif

/// The trust rules for plugin files and the folders holding them, checked before anything is loaded.
///
/// - The plugin folder and the folder holding the plugin file must be owned by the user running pwrecord or
///   by root, and must not be writable by group or others.
/// - Every folder on the way to them, from `/` down, and through whatever a symlink points to, must be owned
///   by the user or root and not writable by group or others, unless it is root's and sticky (like `/tmp`,
///   mode 1777): there only an entry's owner can rename it. A symlink on the way must be the user's or root's.
///   Otherwise someone could swap a folder on the way between the check and the load.
/// - The file is opened once, without following a symlink, and judged by what `fstat` says of that
///   descriptor: a regular file, owned by the user or root, not writable by group or others. It is then
///   loaded through the descriptor (``PluginFile``), so the inode checked is the inode loaded.
///
/// Refusals are `pluginRejected` with the plugin folder or file as the path, and the reason and the fix.
struct PluginTrust: Sendable {
    /// The user whose plugins are trusted besides root's (the effective uid).
    var uid: UInt32

    init(uid: UInt32 = geteuid()) { self.uid = uid }

    /// Throws `pluginRejected` with the reason and the fix when `path` (a folder) may not hold plugins.
    func checkDirectory(_ path: String) throws(SinkError) {
        let (resolved, st) = try resolve(path, for: path)
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw .pluginRejected(path: path, reason: "not a folder")
        }
        let what = resolved == path ? "the folder" : "the folder \(resolved)"
        try check(st, Place(path: resolved, what: what), for: path)
    }

    /// Opens `path` if it leads to a regular file in a trusted folder, and checks what was opened: the
    /// returned descriptor is the file to load.
    func openFile(_ path: String) throws(SinkError) -> PluginFile {
        let (resolved, st) = try resolve(path, for: path)
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw .pluginRejected(path: path, reason: "not a regular file")
        }
        let folder = PluginTrust.parentDirectory(of: resolved)
        let holder = Place(path: folder, what: "the folder \(folder) holding it")
        try check(try linkStatus(folder, for: path), holder, for: path)
        let fd = open(resolved, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            throw .pluginRejected(path: path, reason: "cannot open \(resolved): \(PluginTrust.errnoText())")
        }
        let file = PluginFile(descriptor: fd)
        try checkFile(descriptor: fd, path: path, resolved: resolved)
        return file
    }

    /// Judges the file open as `descriptor` by what `fstat` says of it now, whatever its path holds by then.
    /// `resolved` is where it was opened, for the fix.
    func checkFile(descriptor: Int32, path: String, resolved: String) throws(SinkError) {
        var st = Glibc.stat()
        guard fstat(descriptor, &st) == 0 else {
            throw .pluginRejected(path: path, reason: "cannot stat the opened file: \(PluginTrust.errnoText())")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw .pluginRejected(path: path, reason: "not a regular file")
        }
        try check(st, Place(path: resolved, what: "the file"), for: path)
    }

    /// Something the rules judge, as a refusal names it.
    struct Place {
        /// Where it is, for the fix (`chmod go-w PATH`).
        var path: String
        /// How the reason names it: "the file", "the folder", "the folder /x on the way to it".
        var what: String
        /// A folder on the way (not the plugin folder, not the file's): root's sticky folders are accepted.
        var onTheWay = false
    }

    /// Applies the owner and mode rules to `st`, the status of `place`; refusals name `subject`.
    func check(_ st: Glibc.stat, _ place: Place, for subject: String) throws(SinkError) {
        try checkOwner(st, what: place.what, for: subject)
        let mode = st.st_mode & 0o7777
        guard mode & 0o022 != 0 else { return }
        let sharedByRoot = st.st_uid == 0 && mode & S_ISVTX != 0
        if place.onTheWay && sharedByRoot { return }
        let everyone = mode & 0o002 != 0
        let who = everyone ? "everyone" : "its group"
        let replacer = everyone ? "anyone" : "anyone in its group"
        let fix = sharedByRoot
            ? "move the plugin to a folder that only you or root can write"
            : "run `chmod go-w \(place.path)` if you trust its contents"
        throw .pluginRejected(path: subject, reason:
            "\(place.what) is writable by \(who) (mode \(octal(mode))), so \(replacer) could replace the code; \(fix)")
    }

    /// The owner rule alone (symlinks have no mode of their own).
    func checkOwner(_ st: Glibc.stat, what: String, for subject: String) throws(SinkError) {
        if st.st_uid != 0 && st.st_uid != uid {
            throw .pluginRejected(path: subject, reason:
                "\(what) is owned by uid \(st.st_uid), not by you (uid \(uid)) or root; "
                + "plugins are only loaded from files and folders you or root own (chown it, or remove it)")
        }
    }

    /// `lstat` of `path`; refusals name `subject`.
    func linkStatus(_ path: String, for subject: String) throws(SinkError) -> Glibc.stat {
        var st = Glibc.stat()
        guard lstat(path, &st) == 0 else {
            throw .pluginRejected(path: subject, reason: "cannot stat \(path): \(PluginTrust.errnoText())")
        }
        return st
    }
}

extension PluginTrust {
    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}

private func octal(_ mode: UInt32) -> String {
    let digits = String(mode, radix: 8)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}


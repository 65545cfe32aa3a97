#if canImport(Glibc)
import Glibc
#endif

/// The trust rules for plugin files and the folders holding them, checked before anything is loaded:
/// each must be owned by the user running pwrecord or by root, and must not be writable by group or others.
/// A symlink is judged by what it points to (and the folder that holds the target).
struct PluginTrust: Sendable {
    /// The user whose plugins are trusted besides root's (the effective uid).
    var uid: UInt32

    init(uid: UInt32 = geteuid()) { self.uid = uid }

    /// Throws `pluginRejected` with the reason and the fix when `path` (a folder) may not hold plugins.
    func checkDirectory(_ path: String) throws(SinkError) {
        let st = try fileStatus(path)
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw .pluginRejected(path: path, reason: "not a folder")
        }
        try checkOwnerAndMode(st, path: path, kind: "folder")
    }

    /// Throws `pluginRejected` unless `path` is a regular file the rules trust, in a trusted folder.
    /// Returns the resolved path to load.
    func checkFile(_ path: String) throws(SinkError) -> String {
        guard let resolved = realPath(path) else {
            throw .pluginRejected(path: path, reason: "cannot resolve the path: \(errnoText())")
        }
        if resolved != path {
            // A symlink: the folder holding the real file must be trusted too.
            try checkDirectory(PluginTrust.parentDirectory(of: resolved))
        }
        let st = try fileStatus(resolved)
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw .pluginRejected(path: path, reason: "not a regular file")
        }
        try checkOwnerAndMode(st, path: resolved, kind: "file")
        return resolved
    }

    private func checkOwnerAndMode(_ st: stat, path: String, kind: String) throws(SinkError) {
        if st.st_uid != 0 && st.st_uid != uid {
            throw .pluginRejected(path: path, reason:
                "the \(kind) is owned by uid \(st.st_uid), not by you (uid \(uid)) or root; "
                + "plugins are only loaded from files and folders you or root own (chown it, or remove it)")
        }
        let mode = st.st_mode & 0o7777
        if mode & 0o022 != 0 {
            let who = mode & 0o002 != 0 ? "everyone" : "its group"
            throw .pluginRejected(path: path, reason:
                "the \(kind) is writable by \(who) (mode \(octal(mode))), so anyone could replace the code; "
                + "run `chmod go-w \(path)` if you trust its contents")
        }
    }

    private func fileStatus(_ path: String) throws(SinkError) -> Glibc.stat {
        var st = Glibc.stat()
        guard stat(path, &st) == 0 else {
            throw .pluginRejected(path: path, reason: "cannot stat: \(errnoText())")
        }
        return st
    }

    private func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}

extension PluginTrust {
    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

private func octal(_ mode: UInt32) -> String {
    let digits = String(mode, radix: 8)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

private func errnoText() -> String { String(cString: strerror(errno)) }

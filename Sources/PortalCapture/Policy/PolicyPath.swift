import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Path resolution for output-directory checks: symlinks and `..` resolved the way the kernel would, for paths
/// whose last components may not exist yet (the file a recording is about to create).
enum PolicyPath {
    /// The canonical form of `path`: absolute, no `.`/`..`, no symlinks in any existing component. Components
    /// that do not exist are appended as written. Nil when the path cannot be resolved safely: a dangling
    /// symlink (writing through it would create a file wherever it points), a symlink loop, or an error other
    /// than "does not exist".
    ///
    /// With `linksOwnedByRootOnly`, a symlink not owned by root is not followed: the path goes on as written
    /// below it (for the directories a policy allows; see `resolveDirectory`).
    static func resolve(_ path: String, relativeTo base: String = FileManager.default.currentDirectoryPath,
                        linksOwnedByRootOnly: Bool = false) -> String? {
        let absolute = path.hasPrefix("/") ? path : base + "/" + path
        var resolved = "/"
        // Components appended as written below the last one resolved on disk (missing ones, or a user's link
        // not followed and what follows it): `..` climbs back through them, and once back on disk, the
        // components after it are resolved again (`mkdir -p new/../escape` follows `escape`).
        var asWritten = 0
        var belowUnfollowedLink = false
        for component in absolute.split(separator: "/") {
            if component == "." { continue }
            if component == ".." {
                if asWritten == 1 && belowUnfollowedLink { return nil }  // the kernel goes to the link target's parent
                asWritten = max(asWritten - 1, 0)
                resolved = parent(of: resolved)
                continue
            }
            let candidate = (resolved == "/" ? "" : resolved) + "/" + component
            if asWritten > 0 {
                resolved = candidate
                asWritten += 1
                continue
            }
            belowUnfollowedLink = false
            var info = stat()
            if lstat(candidate, &info) != 0 {
                guard errno == ENOENT else { return nil }
                resolved = candidate
                asWritten = 1
                continue
            }
            if (info.st_mode & S_IFMT) == S_IFLNK && linksOwnedByRootOnly && info.st_uid != 0 {
                resolved = candidate
                asWritten = 1  // what lies below is the link's target's, not this path's
                belowUnfollowedLink = true
            } else if (info.st_mode & S_IFMT) == S_IFLNK {
                guard let real = realPath(candidate) else { return nil }  // dangling or looping symlink
                resolved = real
            } else {
                resolved = candidate
            }
        }
        return resolved
    }

    /// `realpath(3)`, or nil when it fails.
    static func realPath(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), path != "/" else { return "/" }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    /// Whether `path` is `directory` or below it (both canonical).
    static func isInside(_ path: String, _ directory: String) -> Bool {
        if directory == "/" { return path.hasPrefix("/") }
        return path == directory || path.hasPrefix(directory + "/")
    }

    /// Expands `~` and `~/...` with `home`, then resolves. Nil when `~` is used but the home is unknown, or the
    /// directory cannot be resolved safely.
    ///
    /// Only root's symlinks are followed. A user can replace anything in their home, `~/Videos` included, by
    /// a symlink of their own (`ln -s / ~/Videos`); followed, it would move the allowed folder wherever the
    /// user points it. Not followed, the entry stays the path as written, and a recording whose path goes
    /// through the user's link resolves to the link's target, outside it. A link a user makes is always
    /// theirs, so a root-owned link (an admin's `~/Videos -> /data/videos/bob`) cannot have been put there by
    /// the user.
    static func resolveDirectory(_ written: String, home: String?) -> String? {
        var path = written
        if written == "~" || written.hasPrefix("~/") {
            guard let home, home.hasPrefix("/") else { return nil }
            path = home + String(written.dropFirst())
        }
        return resolve(path, relativeTo: "/", linksOwnedByRootOnly: true)
    }
}

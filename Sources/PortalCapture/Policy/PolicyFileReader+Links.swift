import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// System files and directories reached through symlinks: the target must be as trustworthy as the place the
/// link sits in. Whoever may write a directory on the way to the target can swap the policy (replace the file
/// by a link to an empty one, say), so every directory the kernel looks a name up in while following the links,
/// and every directory above the final target, must be owned by root (or the trusted owner) and not writable by
/// group or others unless it has the sticky bit; in a sticky directory, the entry on the way must be owned by
/// root or the trusted owner too (its owner may replace it).
extension PolicyFileReader {
    /// Problems of what `name` in `directory` (`path`) leads to, when it is a symlink and needs trust; nil when
    /// it is not a symlink (its own owner and mode are checked as usual). `info` is the opened target's `fstat`.
    func linkProblems(_ path: String, name: String, in directory: Int32, info: stat) -> [PolicyError]? {
        guard let trustedOwner else { return nil }
        var own = stat()
        guard fstatat(directory, name, &own, AT_SYMLINK_NOFOLLOW) == 0, (own.st_mode & S_IFMT) == S_IFLNK else { return nil }
        guard let start = PolicyPath.realPath(PolicyPath.parent(of: path.hasPrefix("/") ? path : "./" + path)),
              let text = Self.readLink(name, in: directory), let walk = Self.follow(text, from: start) else {
            return [.unreadable(path: path, reason: "its symlink cannot be followed")]
        }
        var final = stat()
        guard lstat(walk.target, &final) == 0, final.st_dev == info.st_dev, final.st_ino == info.st_ino else {
            return [.unreadable(path: path, reason: "its symlink changed while it was read; try again")]
        }
        var problems: [PolicyError] = []
        for (directory, entries) in walk.lookups {
            var dir = stat()
            guard lstat(directory, &dir) == 0 else {
                problems.append(.unreadable(path: path, reason: "cannot check \(directory) on the way to \(walk.target)"))
                continue
            }
            if !isTrusted(dir.st_uid) {
                problems.append(.untrustedLinkTarget(link: path, target: walk.target, path: directory, owner: dir.st_uid,
                                                     expected: trustedOwner))
            }
            guard dir.st_mode & 0o022 != 0 else { continue }
            guard dir.st_mode & S_ISVTX != 0 else {
                problems.append(.writableLinkTarget(link: path, target: walk.target, path: directory,
                                                    mode: UInt32(dir.st_mode)))
                continue
            }
            // Sticky: others may add names but only an entry's owner may replace it.
            for entry in entries {
                var item = stat()
                if lstat(entry, &item) == 0, !isTrusted(item.st_uid), entry != walk.target {
                    problems.append(.untrustedLinkTarget(link: path, target: walk.target, path: entry,
                                                         owner: item.st_uid, expected: trustedOwner))
                }
            }
        }
        // The target itself, as any system file: checked on what was opened, named by where it really is.
        if info.st_uid != trustedOwner {
            problems.append(.untrustedLinkTarget(link: path, target: walk.target, path: walk.target, owner: info.st_uid,
                                                 expected: trustedOwner))
        }
        if info.st_mode & 0o022 != 0 {
            problems.append(.writableLinkTarget(link: path, target: walk.target, path: walk.target, mode: UInt32(info.st_mode)))
        }
        return problems.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// Root may write anything anyway; otherwise only the trusted owner.
    private func isTrusted(_ uid: uid_t) -> Bool { uid == 0 || uid == trustedOwner }

    /// Follows `link` (a symlink's text) from the canonical directory `start` as the kernel does. Gives the
    /// canonical target and, in order, each directory a name was looked up in, with the entries looked up there;
    /// the directories above the target are included. Nil when something on the way cannot be read, or after 40
    /// links (`ELOOP`).
    static func follow(_ link: String, from start: String) -> (target: String, lookups: [(String, [String])])? {
        var pending = link.split(separator: "/").map(String.init)
        var current = link.hasPrefix("/") ? "/" : start
        var links = 1
        var lookups: [(String, [String])] = []
        func lookedUp(_ directory: String, _ entry: String) {
            if let index = lookups.firstIndex(where: { $0.0 == directory }) {
                if !lookups[index].1.contains(entry) { lookups[index].1.append(entry) }
            } else {
                lookups.append((directory, [entry]))
            }
        }
        while !pending.isEmpty {
            let component = pending.removeFirst()
            if component == "." { continue }
            if component == ".." { current = PolicyPath.parent(of: current); continue }
            let next = (current == "/" ? "" : current) + "/" + component
            lookedUp(current, next)
            var info = stat()
            guard lstat(next, &info) == 0 else { return nil }
            if (info.st_mode & S_IFMT) == S_IFLNK {
                links += 1
                guard links <= 40, let text = readLink(next, in: AT_FDCWD) else { return nil }
                pending = text.split(separator: "/").map(String.init) + pending
                if text.hasPrefix("/") { current = "/" }
            } else {
                current = next
            }
        }
        // The directories above the target, from the root down.
        var above = "/"
        for component in current.split(separator: "/").dropLast() {
            let next = (above == "/" ? "" : above) + "/" + component
            lookedUp(above, next)
            above = next
        }
        if current != "/" { lookedUp(above, current) }
        return (current, lookups)
    }

    /// `readlinkat(2)`, or nil when it fails.
    static func readLink(_ name: String, in directory: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlinkat(directory, name, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

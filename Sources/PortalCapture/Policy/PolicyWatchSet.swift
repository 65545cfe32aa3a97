import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The inotify watches behind `PolicyWatcher`: one per directory that matters, or, while a directory does not
/// exist yet, one on its nearest existing ancestor filtered to the name that leads to it (so `/etc/pwrecord`
/// appearing later is seen through `/etc`).
///
/// Directories are watched, never files: editors replace files by writing a temporary file and renaming it over
/// the old one, which a watch on the old file's inode would not see. A policy file that is a symlink has every
/// directory on the way to its target watched too (for the names looked up there), placed anew at each `arm`:
/// an edit of the target, or a directory on the way made writable, changes the policy as much as an edit of the
/// link. The kernel calls are `inotify_add_watch(2)` and `inotify_rm_watch(2)`.
struct PolicyWatchSet: Sendable {
    struct Watch: Sendable, Equatable {
        let path: String
        /// The entry names whose events matter; nil for every entry.
        var names: Set<String>?
    }

    struct Target: Sendable {
        let directory: String
        let names: Set<String>?
    }

    let fd: Int32
    let targets: [Target]
    let locations: PolicyLocations
    private(set) var watches: [Int32: Watch] = [:]
    /// Whether a watch could not be placed for a reason other than a missing directory (watch limit, access):
    /// the watcher then re-reads the files every second instead of trusting inotify.
    private(set) var degraded = false

    static let mask: UInt32 = UInt32(IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM
        | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

    init(fd: Int32, locations: PolicyLocations) {
        self.fd = fd
        self.locations = locations
        var targets = [
            Target(directory: locations.systemDirectory, names: ["policy.conf", "policy.d"]),
            Target(directory: locations.dropInDirectory, names: nil),
        ]
        if let userFile = locations.userFile, let slash = userFile.lastIndex(of: "/") {
            let directory = slash == userFile.startIndex ? "/" : String(userFile[..<slash])
            targets.append(Target(directory: directory, names: [String(userFile[userFile.index(after: slash)...])]))
        }
        self.targets = targets
    }

    /// Places (or moves) the watches where they belong now. Call before reading the files, so no change between
    /// reading and watching is lost.
    mutating func arm() {
        var desired: [String: Set<String>?] = [:]
        for target in targets + linkTargets() {
            var directory = target.directory
            var names = target.names
            while !Self.isDirectory(directory) && directory != "/" {
                let parent = PolicyPath.parent(of: directory)
                names = [String(directory.split(separator: "/").last ?? "")]
                directory = parent
            }
            if let existing = desired[directory] {
                desired[directory] = (existing == nil || names == nil) ? nil : existing!.union(names!)
            } else {
                desired[directory] = names
            }
        }
        var placed: [Int32: Watch] = [:]
        degraded = false
        for (path, names) in desired.sorted(by: { $0.key < $1.key }) {
            let wd = inotify_add_watch(fd, path, Self.mask)
            guard wd >= 0 else {
                if errno != ENOENT && errno != ENOTDIR { degraded = true }
                continue
            }
            if let existing = placed[wd] {  // two paths, one directory (a symlink)
                placed[wd]!.names = (existing.names == nil || names == nil) ? nil : existing.names!.union(names!)
            } else {
                placed[wd] = Watch(path: path, names: names)
            }
        }
        for wd in watches.keys where placed[wd] == nil {
            _ = inotify_rm_watch(fd, wd)  // EINVAL when the kernel already dropped it; nothing to undo then
        }
        watches = placed
    }

    /// The directories the policy files that are symlinks lead through (`PolicyFileReader.follow`), each with
    /// the names looked up in it.
    func linkTargets() -> [Target] {
        var files = [locations.systemFile]
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: locations.dropInDirectory) {
            files += entries.map { locations.dropInDirectory + "/" + $0 }
        }
        if let userFile = locations.userFile { files.append(userFile) }
        var found: [Target] = []
        for file in files {
            var info = stat()
            guard lstat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK,
                  let text = PolicyFileReader.readLink(file, in: AT_FDCWD),
                  let start = PolicyPath.realPath(PolicyPath.parent(of: file)),
                  let walk = PolicyFileReader.follow(text, from: start) else { continue }
            for (directory, entries) in walk.lookups {
                found.append(Target(directory: directory,
                                    names: Set(entries.map { String($0.split(separator: "/").last ?? "") })))
            }
        }
        return found
    }

    /// Whether an event means the policy may have changed.
    func isRelevant(wd: Int32, mask: UInt32, name: String) -> Bool {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 { return true }
        guard let watch = watches[wd] else { return false }  // a watch we removed ourselves
        if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 { return true }
        if name.isEmpty { return true }  // the watched directory itself (e.g. its mode changed)
        return watch.names?.contains(name) ?? true
    }

    /// Reads every pending event (the descriptor is non-blocking); true when any of them is relevant.
    func drain() -> Bool {
        var relevant = false
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return relevant }
            buffer.withUnsafeBytes { raw in
                // struct inotify_event { int wd; uint32_t mask, cookie, len; char name[len]; }
                var offset = 0
                while offset + 16 <= count {
                    let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameBytes = raw[(offset + 16)..<min(offset + 16 + length, count)].prefix { $0 != 0 }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    if isRelevant(wd: wd, mask: mask, name: name) { relevant = true }
                    offset += 16 + length
                }
            }
        }
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}

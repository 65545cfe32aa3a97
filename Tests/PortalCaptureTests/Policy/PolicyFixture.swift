import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import PortalCapture

/// A private policy tree under a temporary directory: `<root>/etc/pwrecord/{policy.conf,policy.d/}` and a user
/// file `<root>/home/.config/pwrecord/policy.conf`. System files are trusted when owned by the uid running the
/// tests (`trustedOwner = geteuid()`), so the ownership rule is exercised without root.
final class PolicyFixture {
    let root: String
    var system: String { root + "/etc/pwrecord" }
    var dropIns: String { system + "/policy.d" }
    var userFile: String { root + "/home/.config/pwrecord/policy.conf" }
    var trustedOwner: UInt32 = geteuid()

    init(createSystemDirectory: Bool = true) {
        root = FileManager.default.temporaryDirectory.path + "/pwrecord-policy-" + UUID().uuidString
        makeDirectory(root)  // 0755 whatever the umask: symlinked files have every directory above them checked
        makeDirectory(root + "/etc")
        makeDirectory(root + "/home")
        if createSystemDirectory { makeDirectory(system) }
    }

    deinit {
        _ = chmodTree(root)
        try? FileManager.default.removeItem(atPath: root)
    }

    var locations: PolicyLocations {
        PolicyLocations(systemDirectory: system, userFile: userFile, trustedOwner: trustedOwner)
    }

    func load() -> Policy { Policy.load(locations) }

    func makeDirectory(_ path: String, mode: mode_t = 0o755) {
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, mode)
    }

    /// Writes `text` to `path` in place (truncate and write, as `echo > file` does) and sets `mode`.
    func write(_ path: String, _ text: String, mode: mode_t = 0o644) {
        makeDirectory(PolicyPath.parent(of: path))
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        precondition(fd >= 0, "cannot create \(path)")
        let bytes = Array(text.utf8)
        precondition(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count)
        close(fd)
        chmod(path, mode)
    }

    /// Replaces `path` the way editors do: write a temporary file next to it, then `rename(2)` it over.
    func replace(_ path: String, _ text: String, mode: mode_t = 0o644) {
        let temporary = PolicyPath.parent(of: path) + "/.tmp-\(UUID().uuidString)"
        write(temporary, text, mode: mode)
        precondition(rename(temporary, path) == 0)
    }

    func remove(_ path: String) { precondition(unlink(path) == 0) }

    /// A symlink at `path` whose text is `target`; its directory is made if missing (an existing one keeps its mode).
    func link(_ path: String, to target: String) {
        if access(PolicyPath.parent(of: path), F_OK) != 0 { makeDirectory(PolicyPath.parent(of: path)) }
        precondition(symlink(target, path) == 0, "cannot link \(path)")
    }

    /// `root` with symlinks resolved, as policy messages name targets.
    var canonicalRoot: String { PolicyPath.realPath(root)! }

    private func chmodTree(_ path: String) -> Bool {
        // Make everything removable again after tests that chmod 000.
        chmod(path, 0o755)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return true }
        for name in names {
            var info = stat()
            if lstat(path + "/" + name, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR { _ = chmodTree(path + "/" + name) }
        }
        return true
    }
}

/// Helpers for dates in a named time zone.
enum PolicyTestTime {
    static let utc = TimeZone(identifier: "UTC")!
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    /// `"2025-03-24 10:00"` (a Monday) read in `timeZone`; seconds optional (`"2025-03-24 10:00:30"`).
    static func date(_ text: String, _ timeZone: TimeZone = utc) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = text.count > 16 ? "yyyy-MM-dd HH:mm:ss" : "yyyy-MM-dd HH:mm"
        return formatter.date(from: text)!
    }
}

extension PolicyDocument {
    /// Parses test text under the name `t.conf`.
    static func test(_ text: String) -> PolicyDocument { parse(text, file: "t.conf") }
}

extension Policy {
    /// A policy from texts, one document per text, named `1.conf`, `2.conf`...
    static func test(_ texts: String...) -> Policy {
        Policy(documents: texts.enumerated().map { PolicyDocument.parse($1, file: "\($0 + 1).conf") })
    }
}

extension PolicySubject {
    static let alice = PolicySubject(user: "alice", groups: ["alice", "kids"], appID: "org.example.Game",
                                     executable: "/usr/bin/game", home: "/home/alice")
}

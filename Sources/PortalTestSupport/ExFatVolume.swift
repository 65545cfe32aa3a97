import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small exFAT file system mounted for one test: a 32 MiB image on a loop device, mounted by exfat-fuse
/// with the test's uid and `umask=077` (as a desktop mounts a USB stick for its user). exFAT has no hard
/// links (`link` is EPERM), which is what the file-placing code must cope with. Needs root, a loop device and
/// `exfat-fuse`/`exfatprogs` (scripts/setup); `canMount` says whether this machine has them.
public final class ExFatVolume: @unchecked Sendable {
    /// Where it is mounted.
    public let mountPoint: URL
    private let image: URL
    private let loopDevice: String

    public static var canMount: Bool {
        geteuid() == 0 && access("/dev/loop-control", F_OK) == 0 && access("/dev/fuse", F_OK) == 0
            && ["/usr/sbin/mkfs.exfat", "/sbin/mount.exfat-fuse", "/usr/sbin/losetup"].allSatisfy { (tool: String) in
                access(tool, X_OK) == 0
            }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("exfat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base.appendingPathComponent("mnt"), withIntermediateDirectories: true)
        image = base.appendingPathComponent("volume.img")
        mountPoint = base.appendingPathComponent("mnt")
        guard FileManager.default.createFile(atPath: image.path, contents: nil),
              truncate(image.path, 32 << 20) == 0 else { throw Failure(description: "cannot make \(image.path)") }
        try Self.run("/usr/sbin/mkfs.exfat", [image.path])
        loopDevice = try Self.run("/usr/sbin/losetup", ["-f", "--show", image.path]).trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            try Self.run("/sbin/mount.exfat-fuse", ["-o", "uid=\(getuid()),gid=\(getgid()),umask=077", loopDevice, mountPoint.path])
        } catch {
            _ = try? Self.run("/usr/sbin/losetup", ["-d", loopDevice])
            throw error
        }
    }

    /// Unmounts and removes everything.
    public func remove() {
        _ = try? Self.run("/usr/bin/umount", [mountPoint.path])
        _ = try? Self.run("/usr/sbin/losetup", ["-d", loopDevice])
        try? FileManager.default.removeItem(at: image.deletingLastPathComponent())
    }

    /// Runs `tool` and returns its standard output. Spawned and reaped here (`posix_spawn`, `waitpid`), with
    /// its output in files: exfat-fuse leaves a daemon behind that keeps everything it inherited open, so
    /// neither a pipe nor Foundation's `Process` (which watches a descriptor the child inherits) would see it end.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("exfat-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let outPath = dir.appendingPathComponent("out").path, errPath = dir.appendingPathComponent("err").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([tool] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tool, &actions, nil, argv, environ)
        guard spawned == 0 else { throw Failure(description: "cannot run \(tool): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        // WIFEXITED and WEXITSTATUS, which Swift does not import as macros.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed (status \(status)): "
                          + ((try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""))
        }
        return output
    }
}
